#!/usr/bin/env python3
"""Prepares the GPU test bundle, on the machine that has tfmc.

    bench/gpu/prepare.sh OUTDIR [--arch sm_90] [--jobs N] [--only NAME] [--force]

For every example model (examples/*.json), every small Hugging Face config
of test/Frontend/Inputs/hf/ and a GPT-2-small-sized config, OUTDIR gets a
folder with the GPU library (tfmc --target=nvptx --gpu-arch=ARCH) and the
CPU library of the same model, both xz-compressed, and for all but GPT-2
small: random weights, token ids (a ragged batch), and the float64 output
of scripts/tfm_ref.py on them. OUTDIR/index.json lists
it all; bench/gpu/run.py reads it on the GPU machine (docs/gpu-bench.md).
OUTDIR/kernels/ holds the single attention and GEMM libraries that
bench/gpu/kernels.py times against PyTorch there (kernels.prepare; `--only
kernels` prepares them alone).

Weights of small models are shipped (tfm_ref.py init). Larger ones are
written again on the GPU machine by weightgen.py, which gives the same
bytes there (the sha256 recorded here is checked there). Models too large
for that, or for the reference, are listed as skipped with the reason.
GPT-2 small ships no weights: run.py draws them with torch and runs the
same weights through Hugging Face transformers.

Standard library only (no numpy); runs the models' preparations in
parallel worker processes (--jobs).
"""

import argparse
import concurrent.futures
import datetime
import glob
import json
import lzma
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
sys.path.insert(0, HERE)
import kernels  # noqa: E402
import tfm_ref  # noqa: E402
import weightgen  # noqa: E402

FORMAT = "tfm-gpu-bench/1"
# Models with at most this many parameters ship their weights; up to
# GENERATE_LIMIT they are generated on the GPU machine; beyond, skipped.
SHIP_LIMIT = 2_000_000
GENERATE_LIMIT = 200_000_000
# Ragged batches: (batch, seq) for shipped-weight models (seq capped at the
# model's max_seq_len) and for the generated, full-size ones, whose float64
# reference costs seconds per token in plain Python.
SMALL_BATCH, SMALL_SEQ = 3, 16
LARGE_BATCH, LARGE_SEQ = 2, 8
RTOL, ATOL = 1e-4, 1e-6
# GPT-2 small (Hugging Face's gpt2 config): compared with PyTorch at
# CHECK_SHAPE, timed at TIMING_SHAPES (batch, seq).
GPT2_SMALL = {
    "architectures": ["GPT2LMHeadModel"], "model_type": "gpt2",
    "activation_function": "gelu_new", "layer_norm_epsilon": 1e-05,
    "n_ctx": 1024, "n_positions": 1024, "n_embd": 768, "n_head": 12, "n_layer": 12,
    "vocab_size": 50257, "bos_token_id": 50256, "eos_token_id": 50256,
    "scale_attn_weights": True, "tie_word_embeddings": True, "use_cache": False,
}
CHECK_SHAPES = [(2, 128), (1, 1024)]
TIMING_SHAPES = [(1, 512), (8, 128)]
# Its libraries also have the generation entries (tfmc --generation): run.py
# checks a session's logits against forward passes on the device and times
# prefill and decode at each batch and context against Hugging Face's KV
# cache loop (bench/generate.py's sweep).
GENERATION = {"batches": [1, 8], "contexts": [128, 512, 1024], "steps": 16}
# --precision=bf16|f16 variants (GPU library only; the CPU's are checked in
# CI): against the reference that rounds the same GEMM and attention
# inputs, with test/Integration/GPU/precision.test's tolerances (a few
# units of the format's rounding: a value computed in f32 may land on the
# other side of a rounding boundary than the float64 one).
#
# The GPU's attention is always the tiled online-softmax nest, which rounds
# each key block's probabilities against the running maximum of the blocks
# so far, exp(s - m_block), as FlashAttention does, where the reference
# rounds exp(s - m_row). The two roundings differ by up to a unit of the
# format per probability, and the difference grows through the layers: on
# an H200 (2026-11-26) up to 7e-3 relative for decoders and 2e-2 for the
# encoder-decoders at bf16 (2.8e-3 at f16), the same numbers the emulated
# kernels give on the host. Hence tolerances of ten units of each format
# (2^-8, 2^-11 relative), and the sharper check beside it: the GPU against
# the same kernels emulated on the host ("emu", --gpu-emulate), which
# round at the same places.
PRECISION_RTOL = {"bf16": 4e-2, "f16": 5e-3}
# Models whose 16-bit variants are prepared besides the shipped-weight ones.
PRECISION_LARGE = {"gpt-decoder": ["bf16"]}


class PrepareError(Exception):
    pass


def run(cmd, log=None):
    """Runs a command; on failure raises PrepareError with the end of its
    output (all of it goes to `log` when given)."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        if log:
            lines = p.stdout.splitlines()
            with open(log, "w") as f:
                f.write("$ %s\n" % " ".join(cmd))
                if len(lines) > 400:
                    f.write("[... %d lines left out ...]\n" % (len(lines) - 400))
                f.write("\n".join(lines[-400:]) + "\n")
        tail = [l for l in p.stdout.splitlines() if l.strip()][-1:] or ["(no output)"]
        raise PrepareError("%s exited with %d: %s" % (os.path.basename(cmd[0]),
                                                       p.returncode, tail[0][:300]))
    return p.stdout


def ref(*argv):
    """tfm_ref.py's command line, in process."""
    if tfm_ref.main([str(a) for a in argv]) != 0:
        raise PrepareError("tfm_ref.py %s failed (see its message above)" % argv[0])


def xz(path):
    with open(path, "rb") as f, lzma.open(path + ".xz", "wb", preset=6) as g:
        shutil.copyfileobj(f, g)
    os.remove(path)
    return os.path.basename(path) + ".xz"


# ------------------------------------------------------------------- the plan

def plan(args):
    """(jobs, skipped): one job per model to prepare."""
    jobs, skipped = [], []
    sources = [("example", p) for p in sorted(glob.glob(os.path.join(ROOT, "examples", "*.json")))]
    sources += [("hf", p) for p in sorted(glob.glob(
        os.path.join(ROOT, "test", "Frontend", "Inputs", "hf", "*", "config.json")))]
    for origin, path in sources:
        if origin == "example":
            name = os.path.splitext(os.path.basename(path))[0]
        else:
            name = "hf-" + os.path.basename(os.path.dirname(path))
        if args.only and not any(o in name for o in args.only):
            continue
        m = tfm_ref.load_model(path)
        params = sum(math.prod(shape) for _, shape, _, _ in tfm_ref.file_tensors(m))
        if params > GENERATE_LIMIT:
            skipped.append({"name": name, "source": os.path.relpath(path, ROOT),
                            "skipped": "%.1e parameters (%.0f GB of f32 weights): too big to "
                                       "generate on the GPU machine within minutes, and for "
                                       "the plain-Python float64 reference here"
                                       % (params, params * 4 / 1e9)})
            continue
        small = params <= SHIP_LIMIT
        batch, seq = (SMALL_BATCH, SMALL_SEQ) if small else (LARGE_BATCH, LARGE_SEQ)
        seq2seq = m.architecture == "encoder_decoder"
        job = {"name": name, "kind": "reference", "source": path, "params": params,
               "description": "model.json" if origin == "example" else "config.json",
               "weights": "ship" if small else "generate",
               "batch": batch, "seq": min(seq, m.max_seq_len), "seq2seq": seq2seq,
               "precision": "f32", "targets": ["gpu", "cpu"],
               # Left, right and both-sided padding through
               # tfm_model_forward_masked (single-stack models).
               "masked": small and not seq2seq and m.input != "pixels",
               "pixels": m.input == "pixels"}
        variants = [p for p in args.precisions if p != "f32"] if small else \
            [p for p in PRECISION_LARGE.get(name, []) if p in args.precisions]
        if "f32" in args.precisions:
            jobs.append(job)
        for p in variants:
            jobs.append(dict(job, name="%s@%s" % (name, p), precision=p, targets=["gpu", "emu"],
                             masked=False))
    if (not args.only or any(o in "gpt2-small" for o in args.only)) and \
            "f32" in args.precisions:
        jobs.append({"name": "gpt2-small", "kind": "timing", "source": None,
                     "params": 124_439_808, "weights": "torch"})
    # The same at bf16: tensor-core GEMMs and attention, timed against
    # PyTorch eager at bf16; and variants of it timed beside it in the same
    # run: split-K decode (docs/performance.md, session 22's prediction:
    # each decode attention over 22 key ranges per sequence at batch 1, two
    # CTAs per SM of an H100/H200 over GPT-2's 12 K/V heads), and the f32
    # KV cache of before -tfm-narrow-kv-cache ran on the GPU (session 25's
    # prediction).
    bf16_variants = [
        ("gpt2-small@bf16", []),
        ("gpt2-small@bf16-split",
         ["--pass-option=tfm-configure-attention:decode-key-splits=22"]),
        ("gpt2-small@bf16-f32cache", ["--pass-option=tfm-narrow-kv-cache:narrow=false"]),
    ]
    for name, tfmc in bf16_variants:
        if (not args.only or any(o in name for o in args.only)) and \
                "bf16" in args.precisions:
            job = {"name": name, "kind": "timing", "source": None,
                   "params": 124_439_808, "weights": "torch", "precision": "bf16",
                   "targets": ["gpu"]}
            if tfmc:
                job["tfmc"] = tfmc
            jobs.append(job)
    # Longest first, so that the parallel workers finish together.
    jobs.sort(key=lambda j: -j["params"])
    return jobs, skipped


# --------------------------------------------------------------- one model

def compile_library(tools, source, folder, target, args, precision="f32", extra=()):
    """Compiles one library (`extra`: more tfmc flags); returns its index
    entry."""
    so = os.path.join(folder, target + ".so")
    cmd = [tools["tfmc"], source, "--quiet", "--target-cpu=" + args.cpu_target,
           "--precision=" + precision, "-o", so] + list(extra)
    if target in ("gpu", "emu"):
        cmd += ["--target=nvptx", "--gpu-arch=" + args.arch]
        if args.gpu_emulate or target == "emu":
            cmd.append("--gpu-emulate")
        cmd += args.tfmc_option
    start = time.time()
    log = os.path.join(folder, target + "-compile.log")
    try:
        run(cmd, log)
    except PrepareError as e:
        return {"error": "compile failed: %s" % e, "log": os.path.basename(log),
                "seconds": round(time.time() - start, 1)}
    lib = {"manifest": json.loads(run([tools["tfm-run"], so, "--print-manifest"]))}
    omp = re.search(r"^\s*(libomp\S*) => (\S+)", run(["ldd", so]), re.M)
    if omp:  # the OpenMP runtime the library loads (run.py ships a copy)
        lib["libomp"] = omp.groups()
    os.remove(os.path.join(folder, target + ".h"))
    lib.update(file=xz(so), seconds=round(time.time() - start, 1))
    return lib


def check_weights(tools, weights, manifest, folder):
    """tfm-run --check-weights: the file holds every tensor the library needs."""
    path = os.path.join(folder, "manifest.json")
    with open(path, "w") as f:
        json.dump(manifest, f)
    try:
        run([tools["tfm-run"], "--check-weights", weights, "--manifest", path])
    finally:
        os.remove(path)


def prepare_model(job, outdir, tools, args):
    """Fills OUTDIR/NAME; returns the model's index entry (with "error" when
    something other than a library failed)."""
    start = time.time()
    name = job["name"]
    folder = os.path.join(outdir, name)
    os.makedirs(folder)
    entry = {"name": name, "kind": job["kind"], "params": job["params"]}
    try:
        if job["kind"] == "timing":
            source = os.path.join(folder, "config.json")
            with open(source, "w") as f:
                json.dump(GPT2_SMALL, f, indent=2)
            entry.update(config="config.json", seed=args.seed,
                         check_shapes=[list(s) for s in CHECK_SHAPES],
                         timing_shapes=[list(s) for s in TIMING_SHAPES],
                         generation=GENERATION)
        else:
            source = os.path.join(folder, job["description"])
            shutil.copy(job["source"], source)
            entry.update(source=os.path.relpath(job["source"], ROOT),
                         description=os.path.basename(source))
        precision = job.get("precision", "f32")
        entry["precision"] = precision
        if job.get("tfmc"):
            entry["tfmc"] = job["tfmc"]
        extra = (["--generation"] if job["kind"] == "timing" else []) + job.get("tfmc", [])
        libs = {t: compile_library(tools, source, folder, t, args, precision, extra)
                for t in job.get("targets", ["gpu", "cpu"])}
        manifests = [lib.pop("manifest") for lib in libs.values() if "manifest" in lib]
        omp = [lib.pop("libomp") for lib in libs.values() if "libomp" in lib]
        if omp:
            entry["libomp"] = omp[0]
        entry["libraries"] = libs
        if not manifests:
            raise PrepareError("neither library compiled (see %s/*-compile.log)" % name)
        entry["manifest_weights"] = manifests[0]["weights"]
        if job["kind"] == "reference":
            entry.update(prepare_reference(job, source, folder, tools, manifests[0]))
    except (PrepareError, tfm_ref.RefError, OSError, ValueError) as e:
        entry["error"] = str(e)
    entry["prepare_seconds"] = round(time.time() - start, 1)
    return entry


def prepare_reference(job, source, folder, tools, manifest):
    """Weights, tokens and the float64 reference output."""
    seed = job["seed"]
    if job.get("pixels"):  # an image model (ViT): pixels [B, C, H, W], no lengths
        files = {"pixels": "pixels.npy"}
        ref("pixels", source, os.path.join(folder, "pixels.npy"), "--batch", job["batch"],
            "--seed", seed + 1)
    else:
        files = {"ids": "ids.npy", "lengths": "lengths.npy"}
        ref("tokens", source, os.path.join(folder, "ids.npy"), "--batch", job["batch"],
            "--seq", job["seq"], "--seed", seed + 1,
            "--lengths-out", os.path.join(folder, "lengths.npy"), "--ragged")
    dec = []
    if job["seq2seq"]:
        files.update(decoder_ids="decoder_ids.npy", decoder_lengths="decoder_lengths.npy")
        ref("tokens", source, os.path.join(folder, "decoder_ids.npy"), "--batch", job["batch"],
            "--seq", job["seq"], "--seed", seed + 2,
            "--lengths-out", os.path.join(folder, "decoder_lengths.npy"), "--ragged")
        dec = ["--decoder-tokens", os.path.join(folder, "decoder_ids.npy"),
               "--decoder-lengths", os.path.join(folder, "decoder_lengths.npy")]
    precision = job["precision"]
    out = {"inputs": files, "reference": "reference.npy",
           "tolerance": {"rtol": PRECISION_RTOL.get(precision, RTOL), "atol": ATOL}}
    with tempfile.TemporaryDirectory(prefix="tfm-gpu-bench-") as tmp:
        if job["weights"] == "ship":
            weights = os.path.join(folder, "weights.safetensors")
            ref("init", source, weights, "--seed", seed)
            out["weights"] = {"file": "weights.safetensors"}
        else:
            weights = os.path.join(tmp, "weights.safetensors")
            tensors = [list(t) for t in tfm_ref.file_tensors(tfm_ref.load_model(source))]
            digest = weightgen.write_safetensors(weights, tensors, seed)
            out["weights"] = {"generate": {"seed": seed, "sha256": digest,
                                           "bytes": os.path.getsize(weights),
                                           "tensors": tensors}}
        check_weights(tools, weights, manifest, tmp)
        lens = [] if job.get("pixels") else ["--lengths", os.path.join(folder, "lengths.npy")]
        ref("run", source, weights, os.path.join(folder, files.get("pixels", "ids.npy")),
            *lens, *dec, "--precision", precision, "--out", os.path.join(folder, "reference.npy"))
        if job["masked"]:
            mask = write_mask(os.path.join(folder, "mask.npy"), job["batch"], job["seq"])
            # Under the padding, the pad id where the model has one: RoBERTa
            # counts its positions from the ids that are not padding_idx
            # (as Hugging Face does, and tfm assumes the mask agrees).
            pad = tfm_ref.load_model(source).pad_token_id
            shape, ids, _ = tfm_ref.read_npy(os.path.join(folder, "ids.npy"))
            if pad is not None:
                ids = [v if keep else pad for v, keep in zip(ids, mask)]
            tfm_ref.write_npy(os.path.join(folder, "masked_ids.npy"), shape, ids, "<i4")
            ref("run", source, weights, os.path.join(folder, "masked_ids.npy"),
                "--attention-mask", os.path.join(folder, "mask.npy"),
                "--precision", precision, "--out", os.path.join(folder, "reference_masked.npy"))
            out["masked"] = {"attention_mask": "mask.npy", "ids": "masked_ids.npy",
                             "reference": "reference_masked.npy"}
    return out


def write_mask(path, batch, seq):
    """Hugging Face attention_mask [B, T] as int32 .npy: row 0 full, then
    left padding, padding on both sides, right padding (cycling)."""
    rows = []
    for b in range(batch):
        left, right = [(0, 0), (seq // 3, 0), (seq // 4, seq // 5), (0, seq // 3)][b % 4]
        rows.append([0] * left + [1] * (seq - left - right) + [0] * right)
    header = "{'descr': '<i4', 'fortran_order': False, 'shape': (%d, %d), }" % (batch, seq)
    header += " " * (63 - (10 + len(header)) % 64) + "\n"  # the data starts at a multiple of 64
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header.encode())
        for row in rows:
            for v in row:
                f.write(v.to_bytes(4, "little", signed=True))
    return [v for row in rows for v in row]


# ------------------------------------------------------------------ driver

def describe(entry):
    if "skipped" in entry:
        return "skipped: " + entry["skipped"]
    parts = []
    for target, lib in entry.get("libraries", {}).items():
        parts.append("%s %s" % (target, "ok" if "file" in lib else
                                "FAILED (%s/%s)" % (entry["name"], lib["log"])))
    if "error" in entry:
        parts.append("ERROR: " + entry["error"])
    elif entry["kind"] == "reference":
        parts.append("reference ok")
    return "%s (%.0f s)" % (", ".join(parts), entry["prepare_seconds"])


def toolkit_version():
    try:
        out = subprocess.run(["ptxas", "--version"], capture_output=True, text=True).stdout
    except OSError:
        return None
    return out.strip().splitlines()[-1] if out.strip() else None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("outdir")
    ap.add_argument("--arch", default="sm_90", help="--gpu-arch of the GPU libraries")
    ap.add_argument("--cpu-target", default="x86-64-v3",
                    help="--target-cpu of both libraries' host code (default x86-64-v3, "
                         "so that they run on the GPU machine's CPU too)")
    ap.add_argument("--gpu-emulate", action="store_true",
                    help="build the GPU libraries with --gpu-emulate (kernels run on the "
                         "host): tests this bundle and run.py on a machine without a GPU")
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tfmc-option", action="append", default=[],
                    help="one more tfmc option for the GPU libraries (repeatable), e.g. "
                         "--tfmc-option=--pass-option=tfm-gpu-tile-contraction:fuse-bias=false "
                         "for a bundle to time against")
    ap.add_argument("--precisions", default="f32,bf16,f16",
                    help="comma-separated --precision values: f32 prepares every model; "
                         "bf16/f16 add GPU-only variants NAME@bf16 of the small models "
                         "(and of %s)" % ", ".join(sorted(PRECISION_LARGE)))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="models prepared at once (default: one per core)")
    ap.add_argument("--only", action="append",
                    help="prepare only models whose name contains this (repeatable; "
                         "\"kernels\": the single-kernel libraries of kernels.py)")
    ap.add_argument("--force", action="store_true", help="replace an existing OUTDIR")
    args = ap.parse_args()
    args.precisions = [p.strip() for p in args.precisions.split(",") if p.strip()]
    bad = [p for p in args.precisions if p not in ("f32", "bf16", "f16")]
    if bad or not args.precisions:
        sys.exit("prepare: --precisions takes f32, bf16 and f16, not %r" % ",".join(bad))

    tools = {t: os.path.join(args.build_dir, "bin", t) for t in ("tfmc", "tfm-run")}
    for path in tools.values():
        if not os.access(path, os.X_OK):
            sys.exit("prepare: %s not found (scripts/build.sh builds it)" % path)
    outdir = os.path.abspath(args.outdir)
    if os.path.exists(outdir) and os.listdir(outdir):
        if not (args.force and os.path.exists(os.path.join(outdir, "index.json"))):
            sys.exit("prepare: %s exists and is not empty (--force replaces a bundle)" % outdir)
        shutil.rmtree(outdir)
    os.makedirs(outdir, exist_ok=True)

    start = time.time()
    jobs, skipped = plan(args)
    for job in jobs:
        job["seed"] = args.seed
    print("prepare: %d models into %s (%d at once); skipped: %s"
          % (len(jobs), outdir, args.jobs, ", ".join(s["name"] for s in skipped) or "none"),
          flush=True)
    kernel_summary = None
    if not args.only or any(o in "kernels" for o in args.only):
        # The single attention and GEMM kernels (bench/gpu/kernels.py), first:
        # about 25 s on two cores.
        try:
            kernel_summary = kernels.prepare(outdir, tools["tfmc"], args.arch, args.cpu_target,
                                             args.gpu_emulate, args.precisions, args.jobs)
        except (OSError, ValueError, subprocess.SubprocessError) as e:
            kernel_summary = {"error": "%s: %s" % (type(e).__name__, e)}
            print("prepare: kernels FAILED: %s" % kernel_summary["error"], flush=True)
    entries = []
    with concurrent.futures.ProcessPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(prepare_model, job, outdir, tools, args): job for job in jobs}
        for n, future in enumerate(concurrent.futures.as_completed(futures), 1):
            entry = future.result()
            entries.append(entry)
            print("[%d/%d] %s: %s" % (n, len(jobs), entry["name"], describe(entry)), flush=True)
    order = {job["name"]: i for i, job in enumerate(sorted(jobs, key=lambda j: j["name"]))}
    entries.sort(key=lambda e: order[e["name"]])

    commit = subprocess.run(["git", "-C", ROOT, "describe", "--always", "--dirty"],
                            capture_output=True, text=True).stdout.strip()
    index = {"format": FORMAT,
             "created": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
             "host": platform.node(), "tfm_commit": commit or None,
             "gpu_arch": args.arch, "gpu_emulate": args.gpu_emulate,
             "tfmc_options": args.tfmc_option,
             "cpu_target": args.cpu_target, "cuda_toolkit": toolkit_version(),
             "seed": args.seed, "models": entries + skipped}
    if kernel_summary is not None:
        index["kernels"] = kernel_summary
    omp = [e.pop("libomp") for e in entries if "libomp" in e]
    if omp:
        os.makedirs(os.path.join(outdir, "lib"))
        dest = os.path.join(outdir, "lib", omp[0][0])
        shutil.copy(omp[0][1], dest)
        index["libomp"] = "lib/" + xz(dest)
    with open(os.path.join(outdir, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")

    size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(outdir) for f in fs)
    failed = [e["name"] for e in entries if "error" in e]
    no_gpu = [e["name"] for e in entries if "file" not in e.get("libraries", {}).get("gpu", {})]
    print("prepare: %s, %.1f MiB, %.0f s" % (outdir, size / 2 ** 20, time.time() - start))
    if no_gpu:
        print("prepare: no GPU library for %d of %d models: %s"
              % (len(no_gpu), len(entries), ", ".join(no_gpu)))
    if size > 60 * 2 ** 20:
        print("prepare: warning: over 60 MiB, more than the device machine takes")
    if kernel_summary is not None and (kernel_summary.get("failed") or
                                       "error" in kernel_summary):
        failed.append("kernels (%s)" % (kernel_summary.get("error") or
                                        ", ".join(kernel_summary["failed"])))
    if failed:
        print("prepare: FAILED: %s" % ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
