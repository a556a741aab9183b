#!/usr/bin/env python3
"""Runs one forward of a bundle's GPU library, for a profiler to watch.

    python3 bench/gpu/forward.py BUNDLE MODEL [--batch 1] [--seq 512] [--calls 1]
                                 [--time N]

Unpacks BUNDLE/MODEL/gpu.so.xz, writes random weights of the manifest's
shapes (normal, std 0.02: the values do not matter to a profile, but zeros
would run faster than real data), creates the model and calls
tfm_model_forward --calls times on random token ids. Meant to run under
Nsight Compute on the GPU machine (docs/gpu-bench.md, "Profiling one
kernel"), e.g.

    ncu --clock-control none --kernel-name regex:'^(h_0_attn_3|lm_head_1)$' \\
        --section SpeedOfLight python3 bench/gpu/forward.py BUNDLE gpt2-small

--time N instead times N calls after 3 warm-up calls (wall clock around
tfm_model_forward, the logits copied back included; median) and, with
torch installed, the device memory tfm_model_create took (the drop of
cudaMemGetInfo's free bytes: weights and kernel modules) and the GPU time
per call by kernel (CUPTI through torch.profiler).

Needs numpy (and torch for the memory figure).
"""

import argparse
import json
import lzma
import os
import shutil
import struct
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from run import Library  # noqa: E402


def write_random_safetensors(path, weights, seed):
    """Every weight of the manifest, f32, N(0, 0.02^2)."""
    rng = np.random.default_rng(seed)
    header, blobs, offset = {}, [], 0
    for w in weights:
        count = int(np.prod(w["shape"])) if w["shape"] else 1
        data = (rng.standard_normal(count, dtype=np.float32) * 0.02).tobytes()
        header[w["name"]] = {"dtype": "F32", "shape": w["shape"],
                             "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("bundle")
    ap.add_argument("model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--seq", type=int, default=512)
    ap.add_argument("--calls", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time", type=int, default=0, metavar="N",
                    help="time N calls (median) instead of --calls")
    args = ap.parse_args()

    work = tempfile.mkdtemp(prefix="tfm-profile-")
    try:
        so = os.path.join(work, "gpu.so")
        with lzma.open(os.path.join(args.bundle, args.model, "gpu.so.xz")) as f, \
                open(so, "wb") as g:
            shutil.copyfileobj(f, g)
        library = Library(so)
        manifest = library.manifest()
        weights = os.path.join(work, "weights.safetensors")
        write_random_safetensors(weights, manifest["weights"], args.seed)
        free = None
        if args.time:
            try:
                import torch
                torch.cuda.init()
                free = torch.cuda.mem_get_info()[0]
            except Exception:  # memory is optional
                free = None
        model = library.create(weights)
        created = None
        if free is not None:
            created = free - torch.cuda.mem_get_info()[0]
        rng = np.random.default_rng(args.seed + 1)
        ids = rng.integers(0, manifest["vocab_size"], size=(args.batch, args.seq),
                           dtype=np.int32)
        out = model.output(args.batch, args.seq)
        if not args.time:
            for _ in range(args.calls):
                model.forward(ids, None, out)
            print("forward.py: %d forward call(s) of %s at %dx%d" % (
                args.calls, args.model, args.batch, args.seq))
        else:
            for _ in range(3):
                model.forward(ids, None, out)
            times = []
            for _ in range(args.time):
                t0 = time.perf_counter()
                model.forward(ids, None, out)
                times.append(time.perf_counter() - t0)
            print("forward.py: %s at %dx%d (precision %s): median %.2f ms, min %.2f ms "
                  "of %d calls; tfm_model_create took %s of device memory" % (
                      args.model, args.batch, args.seq, manifest.get("precision", "f32"),
                      1e3 * float(np.median(times)), 1e3 * min(times), len(times),
                      "%.1f MB" % (created / 1e6) if created is not None else "?"))
            if free is not None:  # torch is there: GPU time by kernel
                from run import profile_kernels
                k = profile_kernels(lambda: model.forward(ids, None, out), torch, calls=3)
                if "error" in k:
                    print("forward.py: profiler unavailable: %s" % k["error"])
                else:
                    print("forward.py: %.2f ms in %d kernels per call; by kernel (ms, launches): %s"
                          % (k["kernel_ms"], k["launches"], ", ".join(
                              "%s %.3f %d" % (g, ms, n) for g, ms, n in k["top"][:10])))
        model.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
