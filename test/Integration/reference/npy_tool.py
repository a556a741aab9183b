#!/usr/bin/env python3
# ===- npy_tool.py - small .npy edits for the reference's lit tests ------=== #
#
#   npy_tool.py f32 IN OUT                      cast to float32
#   npy_tool.py perturb IN OUT I,J,K DELTA      add DELTA at one index, as float32
#   npy_tool.py show IN                         print shape, dtype and values
#
# ===----------------------------------------------------------------------=== #

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
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
    elif len(argv) == 2 and argv[0] == "show":
        shape, vals, descr = R.read_npy(argv[1])
        print("shape %s dtype %s" % (list(shape), descr))
        print(" ".join(str(v) for v in vals))
    else:
        sys.exit("usage: npy_tool.py f32 IN OUT | perturb IN OUT I,J,K DELTA | show IN")


if __name__ == "__main__":
    main(sys.argv[1:])
