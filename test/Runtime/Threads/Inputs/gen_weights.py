"""Writes deterministic pseudo-random F32 weights as safetensors.

  gen_weights.py OUT NAME=D0xD1[:SCALE[:OFFSET]] ...

Element i of the n-th tensor is OFFSET + SCALE * sin(0.7 i + 1.3 n + 0.1)
(defaults: SCALE 0.3, OFFSET 0): smooth, bounded, different per tensor.
"""
import json
import math
import struct
import sys

out = sys.argv[1]
header, data = {}, b""
for n, arg in enumerate(sys.argv[2:]):
    name, spec = arg.split("=", 1)
    parts = spec.split(":")
    shape = [int(d) for d in parts[0].split("x")]
    scale = float(parts[1]) if len(parts) > 1 else 0.3
    offset = float(parts[2]) if len(parts) > 2 else 0.0
    count = math.prod(shape)
    values = [offset + scale * math.sin(0.7 * i + 1.3 * n + 0.1)
              for i in range(count)]
    blob = struct.pack("<%df" % count, *values)
    header[name] = {"dtype": "F32", "shape": shape,
                    "data_offsets": [len(data), len(data) + len(blob)]}
    data += blob
text = json.dumps(header).encode()
text += b" " * (-len(text) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + data)
