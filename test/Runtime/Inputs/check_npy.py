"""Compares a float32 .npy written by tfm-run with expected values.

  check_npy.py FILE SHAPE V0,V1,...   (SHAPE like 2x3x6; '*' repeats: 6*-1000)
"""
import ast
import struct
import sys

path, shape, values = sys.argv[1:]
data = open(path, "rb").read()
assert data[:6] == b"\x93NUMPY", "bad magic"
hlen = struct.unpack("<H", data[8:10])[0]
header = ast.literal_eval(data[10 : 10 + hlen].decode())
want_shape = tuple(int(d) for d in shape.split("x"))
assert header["descr"] == "<f4", header
assert header["fortran_order"] is False, header
assert header["shape"] == want_shape, (header["shape"], want_shape)
assert (10 + hlen) % 64 == 0, "header not padded to 64 bytes"
body = data[10 + hlen :]
got = struct.unpack("<%df" % (len(body) // 4), body)
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
