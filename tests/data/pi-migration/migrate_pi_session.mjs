// Opens a version-1 pi session file with pi's own SessionManager (npm @mariozechner/pi-coding-agent
// 0.73.1), which migrates it to version 3 and writes it back over the same file (writeFileSync: same
// inode, longer content). No model call. The committed migrated.jsonl was made by:
//   npm install @mariozechner/pi-coding-agent@0.73.1   (in a scratch dir; copy this script there)
//   cp v1.jsonl migrated.jsonl && node migrate_pi_session.mjs migrated.jsonl
// The ids pi gives the entries are random: a new run gives another file; the tests expect the committed one.
import { statSync } from "node:fs";
import { SessionManager } from "@mariozechner/pi-coding-agent";

const file = process.argv[2];
if (!file) throw new Error("usage: node migrate_pi_session.mjs <session.jsonl>");
const before = statSync(file);
SessionManager.open(file);
const after = statSync(file);
console.log(JSON.stringify({ inode_kept: before.ino === after.ino, size_before: before.size, size_after: after.size }));
