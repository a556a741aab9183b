"""Checks tfm-run outputs of a real compiled model.

  compare_npy.py shape FILE D0xD1x...     shape matches, every value finite
  compare_npy.py prefix A B BATCH POS     A[b, :POS] == B[b, :POS] bit for bit
"""
import ast
import math
import struct
import sys


def load(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", path
    hlen = struct.unpack("<H", data[8:10])[0]
    header = ast.literal_eval(data[10 : 10 + hlen].decode())
    body = data[10 + hlen :]
    return header["shape"], struct.unpack("<%df" % (len(body) // 4), body)


mode = sys.argv[1]
if mode == "shape":
    shape, values = load(sys.argv[2])
    want = tuple(int(d) for d in sys.argv[3].split("x"))
    assert shape == want, (shape, want)
    bad = [i for i, v in enumerate(values) if not math.isfinite(v)]
    assert not bad, "non-finite values at %s" % bad[:5]
    assert any(v != 0 for v in values), "all zeros"
    print("ok", shape)
elif mode == "prefix":
    (sa, a), (sb, b) = load(sys.argv[2]), load(sys.argv[3])
    batch, pos = int(sys.argv[4]), int(sys.argv[5])
    assert sa == sb, (sa, sb)
    row = 1
    for d in sa[2:]:
        row *= d
    per_batch = sa[1] * row
    for i in range(pos * row):
        x, y = a[batch * per_batch + i], b[batch * per_batch + i]
        assert x == y, (i, x, y)
    print("equal", pos * row)
