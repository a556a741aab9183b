"""Checks tfm-run outputs of a real compiled model.

  compare_npy.py shape FILE D0xD1x...     shape matches, every value finite
  compare_npy.py prefix A B BATCH POS     A[b, :POS] == B[b, :POS] bit for bit

Reads with scripts/tfm_ref.py.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import tfm_ref  # noqa: E402


def load(path):
    shape, values, descr = tfm_ref.read_npy(path)
    assert descr == "<f4", (path, descr)
    return shape, values


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
