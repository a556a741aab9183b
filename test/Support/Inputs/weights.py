"""Writes a well-formed safetensors file from NAME=DTYPE:SHAPE:VALUES specs.

  weights.py OUT [--meta KEY=VALUE] NAME=DTYPE:D0xD1:V0,V1,... ...

DTYPE is F32, F16, BF16 or I64; SHAPE is 'x'-separated (empty for a
scalar); VALUES lists every element (or 'seq' for 0, 1, 2, ...). The header
is padded to 8 bytes like the reference writer's.
"""
import json
import struct
import sys


def encode(dtype, values):
    if dtype == "F32":
        return struct.pack("<%df" % len(values), *values)
    if dtype == "F16":
        return struct.pack("<%de" % len(values), *values)
    if dtype == "BF16":
        out = b""
        for v in values:
            (bits,) = struct.unpack("<I", struct.pack("<f", v))
            out += struct.pack("<H", bits >> 16)
        return out
    if dtype == "I64":
        return struct.pack("<%dq" % len(values), *[int(v) for v in values])
    raise SystemExit("unknown dtype " + dtype)


args = sys.argv[1:]
out = args.pop(0)
header, data, meta = {}, b"", {}
while args:
    arg = args.pop(0)
    if arg == "--meta":
        k, v = args.pop(0).split("=", 1)
        meta[k] = v
        continue
    name, spec = arg.split("=", 1)
    dtype, shape, values = spec.split(":")
    shape = [int(d) for d in shape.split("x")] if shape else []
    count = 1
    for d in shape:
        count *= d
    if values == "seq":
        vals = [float(i) for i in range(count)]
    else:
        vals = [float(v) for v in values.split(",")] if values else []
    assert len(vals) == count, (name, len(vals), count)
    blob = encode(dtype, vals)
    header[name] = {"dtype": dtype, "shape": shape,
                    "data_offsets": [len(data), len(data) + len(blob)]}
    data += blob
if meta:
    header["__metadata__"] = meta
text = json.dumps(header).encode()
text += b" " * ((8 - len(text) % 8) % 8)
with open(out, "wb") as f:
    f.write(struct.pack("<Q", len(text)))
    f.write(text)
    f.write(data)
