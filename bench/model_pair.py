#!/usr/bin/env python3
"""A tfm model library against PyTorch eager, forward calls in alternation.

    python3 bench/model_pair.py LIB.so FOLDER [--seq 512] [--batch 1]
                                [--threads N] [--pairs 10] [--dtype f32]
                                [--gap 0.3] [--out FILE]

LIB.so is `tfmc FOLDER -o LIB.so` (a Hugging Face causal LM folder with
config.json and model.safetensors; `--precision=bf16` for `--dtype bf16`).
Both sides load FOLDER's weights: tfm through its C ABI (python/tfm), the
peer as transformers' AutoModelForCausalLM in --dtype on PyTorch eager.
The logits of one call are compared first (max |difference| and argmax
agreement, printed), then --pairs pairs of forward calls on the same random
ids are timed, tfm first in even pairs and PyTorch first in odd ones.

Why pairs: on a shared machine whose speed drifts by 1.5x within minutes
(the 2-vCPU KVM Xeon of docs/performance.md), two separate runs of the same
library disagree by more than the difference being measured; the two calls
of a pair see the same moment, so the per-pair ratio (PyTorch's time over
tfm's: above 1, tfm is faster) holds where separate medians do not.

Both sides spin their OpenMP threads for a while after a parallel region
(libomp's KMP_BLOCKTIME is 200 ms), which on 2 cores would steal the other
side's CPU: --gap seconds of sleep between calls (default 0.3) let them
park first. Threads: tfm's run-time count and torch.set_num_threads both
get --threads (default: all cores).

Prints the machine's CPU, each side's median and minimum, and the ratio's
median, minimum and maximum; --out writes the same as JSON with every
pair's times. The commit printed is the checkout's (git HEAD): the one
LIB.so was built at only if tfmc was built from this checkout as it is.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

import generate  # noqa: E402  (reexec_in_venv, cpu_name)


def median(x):
    return sorted(x)[len(x) // 2]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("library")
    ap.add_argument("folder", help="Hugging Face folder (config.json, "
                    "model.safetensors)")
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--pairs", type=int, default=10)
    ap.add_argument("--dtype", choices=("f32", "bf16"), default="f32",
                    help="PyTorch's dtype (compile LIB.so with "
                    "--precision=bf16 for bf16)")
    ap.add_argument("--gap", type=float, default=0.3,
                    help="seconds of sleep between calls")
    ap.add_argument("--out", help="JSON file for the results")
    args = ap.parse_args()
    for name in ("seq", "batch", "threads", "pairs"):
        if getattr(args, name) < 1:
            sys.exit(f"model_pair.py: --{name} must be at least 1")
    if args.gap < 0:
        sys.exit("model_pair.py: --gap must not be negative")

    import numpy as np
    import torch
    import transformers
    import tfm

    torch.set_num_threads(args.threads)
    model = tfm.Model(args.library, args.folder, threads=args.threads)
    vocab = model.info.get("vocab_size")
    if model.info.get("output") != "logits" or not vocab:
        sys.exit(f"model_pair.py: {args.library} does not compute logits "
                 f"(output '{model.info.get('output')}'); this script "
                 "compares causal LMs")
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    peer = transformers.AutoModelForCausalLM.from_pretrained(
        args.folder, dtype=dtype).eval()
    rng = np.random.default_rng(0)
    ids = rng.integers(0, vocab, size=(args.batch, args.seq), dtype=np.int32)
    tids = torch.from_numpy(ids.astype(np.int64))
    out = np.empty((args.batch, args.seq, vocab), dtype=np.float32)

    def run_tfm():
        model(ids, out=out)

    def run_torch():
        with torch.inference_mode():
            return peer(tids).logits

    run_tfm()
    ref = run_torch().float().numpy()
    diff = np.abs(out.astype(np.float64) - ref.astype(np.float64))
    check = {"max_abs_diff": float(diff.max()),
             "max_abs_ref": float(np.abs(ref).max()),
             "argmax_agreement": float((out.argmax(-1) ==
                                        ref.argmax(-1)).mean())}
    print(f"logits: max |tfm - torch| {check['max_abs_diff']:.3g} "
          f"(max |torch| {check['max_abs_ref']:.3g}), argmax agreement "
          f"{check['argmax_agreement']:.4f}", flush=True)

    times = {"tfm": [], "torch": []}
    sides = (("tfm", run_tfm), ("torch", run_torch))
    for pair in range(args.pairs):
        for name, fn in (sides if pair % 2 == 0 else sides[::-1]):
            time.sleep(args.gap)
            t0 = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
    model.close()
    ratios = sorted(b / a for a, b in zip(times["tfm"], times["torch"]))

    cpu = generate.cpu_name()
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short",
                             "HEAD"], capture_output=True,
                            text=True).stdout.strip()
    print(f"{cpu}, {args.threads} thread(s), batch {args.batch}, seq "
          f"{args.seq}, {args.dtype}, checkout at {commit}")
    for name in ("tfm", "torch"):
        t = times[name]
        print(f"{name:>5}: median {1e3 * median(t):.1f} ms, "
              f"min {1e3 * min(t):.1f} ms")
    print(f"torch/tfm per pair: median {median(ratios):.3f}, min "
          f"{ratios[0]:.3f}, max {ratios[-1]:.3f} ({args.pairs} pairs; "
          "above 1: tfm is faster)")
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"date": datetime.date.today().isoformat(), "cpu": cpu,
                       "commit": commit, "library": args.library,
                       "folder": args.folder, "seq": args.seq,
                       "batch": args.batch, "threads": args.threads,
                       "dtype": args.dtype, "torch": torch.__version__,
                       "check": check, "times_s": times,
                       "ratio_median": median(ratios),
                       "ratio_min": ratios[0], "ratio_max": ratios[-1]},
                      f, indent=1)


if __name__ == "__main__":
    generate.reexec_in_venv()
    main()
