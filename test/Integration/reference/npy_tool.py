#!/usr/bin/env python3
# ===- npy_tool.py - small .npy edits for the reference's lit tests ------=== #
#
#   npy_tool.py f32 IN OUT                      cast to float32
#   npy_tool.py perturb IN OUT I,J,K DELTA      add DELTA at one index, as float32
#   npy_tool.py set IN OUT I,J VALUE            set one element, keeping the dtype
#   npy_tool.py rowdiff A B TOL                 per [b, t] row of two [B, T, X]
#                                               arrays: "same" or "differs"
#   npy_tool.py show IN                         print shape, dtype and values
#
# ===----------------------------------------------------------------------=== #

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "scripts"))
import tfm_ref as R  # noqa: E402


def main(argv):
    if len(argv) >= 3 and argv[0] == "f32":
        shape, vals, _ = R.read_npy(argv[1])
        R.write_npy(argv[2], shape, vals, "<f4")
    elif len(argv) == 5 and argv[0] == "perturb":
        shape, vals, _ = R.read_npy(argv[1])
        idx = [int(s) for s in argv[3].split(",")]
        flat = 0
        for i, n in zip(idx, shape):
            flat = flat * n + i
        vals[flat] += float(argv[4])
        R.write_npy(argv[2], shape, vals, "<f4")
    elif len(argv) == 5 and argv[0] == "set":
        shape, vals, descr = R.read_npy(argv[1])
        idx = [int(s) for s in argv[3].split(",")]
        flat = 0
        for i, n in zip(idx, shape):
            flat = flat * n + i
        vals[flat] = type(vals[flat])(float(argv[4]))
        R.write_npy(argv[2], shape, vals, descr)
    elif len(argv) == 4 and argv[0] == "rowdiff":
        sa, a, _ = R.read_npy(argv[1])
        sb, b, _ = R.read_npy(argv[2])
        if list(sa) != list(sb) or len(sa) != 3:
            sys.exit("rowdiff: shapes %s and %s are not one [B, T, X]" % (list(sa), list(sb)))
        tol, w = float(argv[3]), sa[2]
        for r in range(sa[0] * sa[1]):
            d = max(abs(x - y) for x, y in zip(a[r * w:(r + 1) * w], b[r * w:(r + 1) * w]))
            print("%d %d %s" % (r // sa[1], r % sa[1], "same" if d <= tol else "differs"))
    elif len(argv) == 2 and argv[0] == "show":
        shape, vals, descr = R.read_npy(argv[1])
        print("shape %s dtype %s" % (list(shape), descr))
        print(" ".join(str(v) for v in vals))
    else:
        sys.exit("usage: npy_tool.py f32 IN OUT | perturb IN OUT I,J,K DELTA | set IN OUT I,J V | rowdiff A B TOL | show IN")


if __name__ == "__main__":
    main(sys.argv[1:])
