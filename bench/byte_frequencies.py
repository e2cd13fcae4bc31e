#!/usr/bin/env python3
"""Prints the byte weights of engine/query/literal_filter.cpp (kByteWeight): how common each byte is
in the text of real transcripts, so that the literal prefilter compares the rarest two bytes of a
literal first. Every string value of every JSON line under the given roots is counted (the text the
index's log holds: messages, tool input and output), as UTF-8; weight = round(64 * log2(count + 1)).

    python3 bench/byte_frequencies.py ../shared/corpus
"""
import json
import math
import os
import sys


def strings(v):
    if isinstance(v, str):
        yield v
    elif isinstance(v, dict):
        for x in v.values():
            yield from strings(x)
    elif isinstance(v, list):
        for x in v:
            yield from strings(x)


def main():
    counts = [0] * 256
    for root in sys.argv[1:]:
        for dp, _, fns in os.walk(root):
            for fn in fns:
                if not fn.endswith(".jsonl"):
                    continue
                with open(os.path.join(dp, fn), "rb") as fh:
                    for line in fh:
                        try:
                            obj = json.loads(line)
                        except ValueError:
                            continue
                        for s in strings(obj):
                            for b in s.encode("utf-8", "surrogatepass"):
                                counts[b] += 1
    weights = [round(64 * math.log2(c + 1)) for c in counts]
    print(f"// {sum(counts)} bytes counted by bench/byte_frequencies.py")
    for row in range(0, 256, 16):
        print("    " + ", ".join(f"{w:4d}" for w in weights[row:row + 16]) + ",")


if __name__ == "__main__":
    main()
