#!/usr/bin/env python3
"""Hugging Face style padding for the attention-mask tests.

  hf_masks.py pad IDS.npy --runs S:E,S:E,... --ids-out OUT.npy
              --mask-out MASK.npy [--pad-id P] [--positions-out POS.npy]
              [--first-position F]
      Row b of the batch keeps its tokens [S, E) (a run of 1s in the mask;
      S > 0 is left padding, E < T right padding); the other ids become P
      (default: left as they are). --positions-out writes the position ids
      Hugging Face's generate() computes, cumsum(mask) - 1 (1 under the
      padding), plus F (default 0).
  hf_masks.py zeros OUT.npy MASK.npy
      Prints "zeros under the padding" when every [b, t, :] row of OUT where
      the mask is 0 is all zeros, else the first row that is not (exit 1).
"""

import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import tfm_ref as R  # noqa: E402


def pad(args):
    shape, ids, _ = R.read_npy(args.ids)
    if len(shape) != 2:
        sys.exit("%s: token ids must be [batch, seq]" % args.ids)
    batch, seq = shape
    runs = [tuple(int(v) for v in r.split(":")) for r in args.runs.split(",")]
    if len(runs) != batch:
        sys.exit("%d runs for a batch of %d" % (len(runs), batch))
    ids, mask, positions = list(ids), [], []
    for b, (start, end) in enumerate(runs):
        for t in range(seq):
            keep = start <= t < end
            mask.append(1 if keep else 0)
            positions.append(t - start + args.first_position if keep else 1)
            if not keep and args.pad_id is not None:
                ids[b * seq + t] = args.pad_id
    R.write_npy(args.ids_out, shape, ids, "<i4")
    R.write_npy(args.mask_out, shape, mask, "<i8")  # HF's tokenizers: int64
    if args.positions_out:
        R.write_npy(args.positions_out, shape, positions, "<i8")
    return 0


def zeros(args):
    shape, out, _ = R.read_npy(args.out)
    mshape, mask, _ = R.read_npy(args.mask)
    if len(shape) != 3 or list(shape[:2]) != list(mshape):
        sys.exit("%s %s does not match the mask %s" % (args.out, shape, mshape))
    width = shape[2]
    for r, keep in enumerate(mask):
        if not keep and any(out[r * width:(r + 1) * width]):
            print("row [%d, %d] is masked but not zero" % divmod(r, shape[1]))
            return 1
    print("zeros under the padding")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pad")
    p.add_argument("ids")
    p.add_argument("--runs", required=True)
    p.add_argument("--ids-out", required=True)
    p.add_argument("--mask-out", required=True)
    p.add_argument("--pad-id", type=int)
    p.add_argument("--positions-out")
    p.add_argument("--first-position", type=int, default=0)
    p.set_defaults(fn=pad)
    p = sub.add_parser("zeros")
    p.add_argument("out")
    p.add_argument("mask")
    p.set_defaults(fn=zeros)
    args = ap.parse_args()
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
