#!/usr/bin/env python3
"""Device-to-host copy cost of a model's output, on the GPU machine.

    python3 bench/gpu/copy_cost.py [--mb 103]

Times copying N MB from the GPU (the size of GPT-2's 1 x 512 logits by
default) into host memory three ways: a reused pageable buffer (what
tfm_model_forward's `out` is in bench/gpu/run.py), a fresh pageable buffer
per copy (what PyTorch's `.cpu()` does) and a reused page-locked buffer.
It separates the copy from the kernels in the forward timings of
docs/performance.md. Median of 10 after 2 warm-ups.
"""
import argparse
import statistics
import time

import torch


def median_ms(fn, reps=10, warmup=2):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t) * 1e3)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mb", type=float, default=512 * 50257 * 4 / 1e6)
    args = p.parse_args()
    n = int(args.mb * 1e6 / 4)
    src = torch.randn(n, device="cuda")
    pageable = torch.empty(n)
    pageable.fill_(0)  # touched once, as a reused output buffer is
    pinned = torch.empty(n, pin_memory=True)
    rows = [
        ("reused pageable", lambda: pageable.copy_(src)),
        ("fresh pageable (.cpu())", lambda: src.cpu()),
        ("reused pinned", lambda: pinned.copy_(src)),
    ]
    print(f"{torch.cuda.get_device_name()}: {n * 4 / 1e6:.1f} MB device to host")
    for name, fn in rows:
        ms = median_ms(fn)
        print(f"  {name:24s} {ms:8.2f} ms  {n * 4 / ms / 1e6:6.2f} GB/s")


if __name__ == "__main__":
    main()
