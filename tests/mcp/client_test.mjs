// A real MCP client against `osearch mcp`: the official TypeScript SDK's Client over its stdio
// transport (tests/CMakeLists.txt runs it). It indexes a temp copy of tests/data/mixed (omp, pi,
// Codex) plus one Claude sample, as the mixed-agent tests do, lists the tools, calls each one,
// compares a few answers with the CLI's, and checks the errors.
//   node client_test.mjs --osearch build/osearch --data tests/data
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

function arg(name) {
  const i = process.argv.indexOf(name);
  if (i < 0 || i + 1 >= process.argv.length) throw new Error(`usage: client_test.mjs --osearch BIN --data DIR (missing ${name})`);
  return path.resolve(process.argv[i + 1]);
}
const osearch = arg('--osearch');
const data = arg('--data');

const kOmpOutsideId = '01a0b1c2-0000-7000-8000-00000000a003';
const kClaudeId = '1af7fc5e-8455-4414-9ccd-011d40f70b2a';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'osearch-mcp-'));
process.on('exit', () => fs.rmSync(tmp, { recursive: true, force: true }));
const dir = (name) => path.join(tmp, name);
for (const agent of ['omp', 'pi', 'codex']) fs.cpSync(path.join(data, 'mixed', agent), dir(agent), { recursive: true });
fs.cpSync(path.join(data, 'mixed', 'omp-outside'), dir('outside'), { recursive: true });
fs.mkdirSync(path.join(dir('claude'), 'sample-project'), { recursive: true });
fs.copyFileSync(path.join(data, 'claude', 'sample-project', `${kClaudeId}.jsonl`),
                path.join(dir('claude'), 'sample-project', `${kClaudeId}.jsonl`));
fs.mkdirSync(path.join(dir('omp'), 'custom-session-files'), { recursive: true });
fs.writeFileSync(path.join(dir('omp'), 'custom-session-files', 'a1b2c3d'),
                 path.join(dir('outside'), `2026-11-01T12-00-00-000Z_${kOmpOutsideId}.jsonl`) + '\n');

const globals = ['--index', dir('index'), '--source', `claude=${dir('claude')}`, '--source', `omp=${dir('omp')}`,
                 '--source', `pi=${dir('pi')}`, '--source', `codex=${dir('codex')}`];
const cli = (...args) => JSON.parse(execFileSync(osearch, [...args, ...globals, '--format', 'json'], { encoding: 'utf8' }));
cli('index');

// took_ms differs from run to run; everything else is the same answer.
const strip = (v) => JSON.parse(JSON.stringify(v, (k, x) => (k === 'took_ms' ? undefined : x)));

const transport = new StdioClientTransport({ command: osearch, args: ['mcp', '--allow-writes', ...globals], stderr: 'inherit' });
const client = new Client({ name: 'osearch-test', version: '1.0.0' });
await client.connect(transport);
assert.equal(client.getServerVersion().name, 'osearch');

const { tools } = await client.listTools();
const names = tools.map((t) => t.name).sort();
assert.deepEqual(names, ['failures', 'file_history', 'list_sessions', 'memory_forget', 'memory_list', 'memory_remember',
  'message_context', 'message_trace', 'overview', 'read_thread', 'search_content', 'search_keyword', 'stats',
  'subagents', 'workflows']);
for (const t of tools) {
  assert.equal(t.inputSchema.type, 'object', t.name);
  assert.equal(t.outputSchema.type, 'object', t.name);
}

async function call(name, args) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.content[0].type, 'text');
  const parsed = JSON.parse(r.content[0].text);
  if (!r.isError) assert.deepEqual(r.structuredContent, parsed, `${name}: structuredContent is the text's JSON`);
  return { result: parsed, isError: r.isError === true };
}
async function ok(name, args = {}) {
  const { result, isError } = await call(name, args);
  assert.equal(isError, false, `${name} ${JSON.stringify(args)}: ${JSON.stringify(result)}`);
  return result;
}
async function toolError(name, args, kind) {
  const { result, isError } = await call(name, args);
  assert.equal(isError, true, `${name} ${JSON.stringify(args)} should fail`);
  assert.equal(result.error.kind, kind, JSON.stringify(result));
  assert.ok(result.error.message.length > 0);
  return result.error.message;
}

// Each tool once; some compared whole with the CLI's answer.
const list = await ok('list_sessions', { limit: 50 });
assert.deepEqual(strip(list), strip(cli('list', '--limit', '50')));
assert.ok(list.results.length >= 10);
for (const s of list.results) assert.ok(s.resume_hint.length > 0, 'every session carries its resume hint');

const kw = await ok('search_keyword', { query: 'the', limit: 5 });
assert.deepEqual(strip(kw), strip(cli('keyword', 'the', '--limit', '5')));
const content = await ok('search_content', { pattern: 'e', ignore_case: true, limit: 3 });
assert.equal(content.action, 'content');
assert.deepEqual(strip(content), strip(cli('content', 'e', '-i', '--limit', '3')));

const session = list.results[0].session_id;
const thread = await ok('read_thread', { session, limit: 5 });
assert.deepEqual(strip(thread), strip(cli('thread', session, '--limit', '5')));
// max_chars on read_thread is the CLI's --max-chars: every text cut to 8 characters, the cut ones marked.
const cut = await ok('read_thread', { session, limit: 5, max_chars: 8 });
assert.deepEqual(strip(cut), strip(cli('thread', session, '--limit', '5', '--max-chars', '8')));
assert.ok(cut.messages.every((m) => [...(m.text ?? '')].length <= 8));
assert.ok(cut.messages.some((m) => m.truncated));
const uuid = thread.messages.find((m) => m.uuid)?.uuid;
assert.ok(uuid, 'a message with a uuid');
assert.deepEqual(strip(await ok('message_context', { uuid })), strip(cli('context', uuid)));
assert.deepEqual(strip(await ok('message_trace', { uuid })), strip(cli('trace', uuid)));
await ok('file_history', { path: 'README.md' });
await ok('failures', { limit: 5 });
assert.deepEqual(strip(await ok('stats', { kind: 'tools' })), strip(cli('stats', 'tools')));
await ok('overview', { cwd: '/work/omp proj' });
await ok('subagents', {});
await ok('workflows', {});

// Memories (this server runs with --allow-writes).
const note = path.join(tmp, 'note.md');
fs.writeFileSync(note, '# Decision\nUse LMDB for the records.\n');
const remembered = await ok('memory_remember', { path: note, summary: 'records live in LMDB' });
assert.equal(remembered.action, 'memory_remember');
const memories = await ok('memory_list', {});
assert.ok(memories.results.some((m) => m.id === remembered.id));
const forgotten = await ok('memory_forget', { id: remembered.id, reason: 'test' });
assert.equal(forgotten.action, 'memory_forget');

// A bounded result is still one JSON object, marked.
const small = await ok('list_sessions', { limit: 50, max_chars: 2000 });
assert.equal(small.truncated, true);
assert.ok(small.truncation.dropped > 0);
assert.ok(JSON.stringify(small).length <= 2100);

// Bad input is a tool error, and the server keeps serving.
await toolError('search_content', { pattern: '(' }, 'bad-regex');
await toolError('list_sessions', { since: 'not a time' }, 'bad-time');
await toolError('read_thread', { session: 'ffffffff-no-such-session' }, 'unknown-session');
assert.match(await toolError('list_sessions', { limit: '5' }, 'usage'), /limit/);
assert.match(await toolError('list_sessions', { limti: 5 }, 'usage'), /limti/);
await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), (e) => e.code === -32602);
await client.ping();
assert.ok((await ok('list_sessions', { limit: 1 })).results.length === 1);

await client.close();

// Without --allow-writes the mutating tools are not offered.
const readOnly = new Client({ name: 'osearch-test', version: '1.0.0' });
await readOnly.connect(new StdioClientTransport({ command: osearch, args: ['mcp', ...globals], stderr: 'inherit' }));
const readOnlyNames = (await readOnly.listTools()).tools.map((t) => t.name);
assert.ok(!readOnlyNames.includes('memory_remember') && !readOnlyNames.includes('memory_forget'));
assert.ok(readOnlyNames.includes('memory_list'));
await assert.rejects(readOnly.callTool({ name: 'memory_remember', arguments: { path: note, summary: 'x' } }),
                     (e) => e.code === -32602);
await readOnly.close();
console.log(`mcp client test: ${tools.length} tools called and checked`);
