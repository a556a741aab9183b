#!/usr/bin/env python3
"""Writes a JSON file with edits applied, for tests of bad inputs.

usage: edit_json.py BASE.json EDIT... > OUT.json

EDIT is `PATH=JSON` (set; PATH like `attention.window` or `layers[1].ffn`),
`-PATH` (delete), or `@TEXT` (ignore BASE and print TEXT verbatim, for
malformed JSON). Values that are not valid JSON are taken as strings.
"""
import json
import re
import sys


def split_path(path):
    parts = []
    for name, index in re.findall(r"([^.\[\]]+)|\[(\d+)\]", path):
        parts.append(int(index) if index else name)
    return parts


def main():
    base, edits = sys.argv[1], sys.argv[2:]
    if edits and edits[0].startswith("@"):
        sys.stdout.write(edits[0][1:])
        return
    with open(base) as f:
        doc = json.load(f)
    for edit in edits:
        delete = edit.startswith("-")
        path, _, value = (edit[1:] if delete else edit).partition("=")
        parts = split_path(path)
        node = doc
        for part in parts[:-1]:
            if isinstance(part, int):
                while len(node) <= part:
                    node.append({})
            elif part not in node:
                node[part] = {}
            node = node[part]
        last = parts[-1]
        if delete:
            del node[last]
            continue
        try:
            parsed = json.loads(value)
        except ValueError:
            parsed = value
        if isinstance(last, int):
            while len(node) <= last:
                node.append({})
        node[last] = parsed
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
