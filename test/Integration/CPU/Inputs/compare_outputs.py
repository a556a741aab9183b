#!/usr/bin/env python3
"""Compares two model outputs (.npy) row by row, like `tfm_ref.py check`.

  compare_outputs.py EXPECTED.npy ACTUAL.npy [--lengths L.npy]
                     [--rtol 1e-4] [--atol 1e-6]

Passes when every compared element has
|actual - expected| <= atol + rtol * max |expected row|; rows of [B, T, X]
outputs at positions t >= lengths[b] are skipped (padding). Prints tfm_ref's
report (ending in PASS or FAIL) and exits 1 on a mismatch. The integration
tests use it to hold `tfmc --no-fuse` (attention lowered op by op) and the
default compile (fused attention) to the same outputs.
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import tfm_ref as R  # noqa: E402


def main(argv):
    ap = argparse.ArgumentParser(prog="compare_outputs.py")
    ap.add_argument("expected")
    ap.add_argument("actual")
    ap.add_argument("--lengths")
    ap.add_argument("--rtol", type=float, default=1e-4)
    ap.add_argument("--atol", type=float, default=1e-6)
    args = ap.parse_args(argv)
    try:
        exp_shape, exp, _ = R.read_npy(args.expected)
        act_shape, act, _ = R.read_npy(args.actual)
        lengths = None
        if args.lengths:
            _, lengths, _ = R.read_npy(args.lengths)
    except R.RefError as e:
        print("compare_outputs: error: %s" % e, file=sys.stderr)
        return 2
    ok = R.compare(exp_shape, exp, act_shape, act, lengths, args.rtol, args.atol)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
