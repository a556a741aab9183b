#!/usr/bin/env python3
"""Two generation libraries' decode steps, timed in alternation (a paired A/B).

    python3 bench/decode_pair.py A.so B.so FOLDER [--batch 8] [--context 120]
                                 [--steps 40] [--threads N]

Both libraries (tfmc --generation, of the same model) open FOLDER's
model.safetensors, create a session of --batch slots, prefill every slot with
--context tokens, then take --steps decode steps each, A and B alternating
(A first on even steps, B first on odd ones). On a shared machine whose speed
drifts within minutes (the AMX Xeon of docs/performance.md), each pair of
steps sees the same conditions, so the per-pair ratio survives the drift that
two separate runs do not. Prints the median and minimum step time of each
and the median, minimum and maximum of A's time / B's (above 1: B is
faster). The libraries' outputs are not compared here; bench/generate.py
checks the tokens.
"""

import argparse
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import generate  # noqa: E402  (TfmSession, the C ABI through ctypes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("folder", help="model folder with model.safetensors")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--context", type=int, default=120,
                    help="prompt tokens per slot before the timed steps")
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--max-context", type=int, default=2048)
    args = ap.parse_args()
    if args.context + args.steps > args.max_context:
        sys.exit("decode_pair.py: --context + --steps exceeds --max-context")
    import numpy as np
    weights = os.path.join(args.folder, "model.safetensors")
    sessions = [generate.TfmSession(lib, weights, args.batch,
                                    args.max_context, args.threads)
                for lib in (args.a, args.b)]
    prompt = np.zeros((args.batch, args.context), dtype=np.int32)
    for s in sessions:
        s.prefill(prompt)
    ids = np.zeros(args.batch, dtype=np.int32)
    times = ([], [])
    for step in range(args.steps):
        for j in ((0, 1) if step % 2 == 0 else (1, 0)):
            t0 = time.perf_counter()
            sessions[j].decode(ids)
            times[j].append(time.perf_counter() - t0)
    for s in sessions:
        s.close()
    ratios = sorted(a / b for a, b in zip(*times))

    def median(x):
        return sorted(x)[len(x) // 2]

    for name, t in zip("AB", times):
        print(f"{name}: median {1e3 * median(t):.2f} ms, "
              f"min {1e3 * min(t):.2f} ms")
    print(f"A/B per pair: median {median(ratios):.3f}, min {ratios[0]:.3f}, "
          f"max {ratios[-1]:.3f} ({args.steps} pairs, batch {args.batch}, "
          f"{args.context} tokens before)")


if __name__ == "__main__":
    generate.reexec_in_venv()
    main()
