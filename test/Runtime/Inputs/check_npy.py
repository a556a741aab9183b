"""Compares a float32 .npy written by tfm-run with expected values.

  check_npy.py FILE SHAPE V0,V1,...   (SHAPE like 2x3x6; '*' repeats: 6*-1000)

Reads with scripts/tfm_ref.py; also checks that tfm-run
pads the header so the data starts on a 64-byte boundary.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import tfm_ref  # noqa: E402

path, shape, values = sys.argv[1:]
got_shape, got, descr = tfm_ref.read_npy(path)
want_shape = tuple(int(d) for d in shape.split("x"))
assert descr == "<f4", descr
assert got_shape == want_shape, (got_shape, want_shape)
with open(path, "rb") as f:
    prefix = f.read(10)
assert (10 + struct.unpack("<H", prefix[8:10])[0]) % 64 == 0, \
    "header not padded to 64 bytes"
want = []
for item in values.split(","):
    if "*" in item:
        n, v = item.split("*")
        want += [float(v)] * int(n)
    else:
        want.append(float(item))
assert len(got) == len(want), (len(got), len(want))
for i, (g, w) in enumerate(zip(got, want)):
    assert abs(g - w) <= 1e-6 * max(1.0, abs(w)), (i, g, w)
print("match", len(got))
