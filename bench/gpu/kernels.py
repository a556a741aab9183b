#!/usr/bin/env python3
"""Times single attention and GEMM kernels of tfm against PyTorch on a GPU.

    python3 bench/gpu/kernels.py BUNDLE [--out kernels.json] [--deadline 150]
                                 [--only PATTERN] [--smoke] [--no-torch]
    python3 bench/gpu/kernels.py BUNDLE --list
    python3 bench/gpu/kernels.py BUNDLE --prepare [--arch sm_90] [--precisions bf16,f16]
                                 [--gemm-variant 'NAME:OPTION=VALUE ...']...
                                 [--attention-variant 'NAME:OPTION=VALUE ...']...
                                 [--gpu-emulate] [--jobs N]

Here (the machine with tfmc and the CUDA toolkit), --prepare (or
bench/gpu/prepare.sh, which calls it) writes BUNDLE/kernels/: one GPU
library per attention or GEMM configuration of the plan below, compiled by
tfmc from a small tfm-dialect module (docs/gpu-bench.md, "Single kernels"),
in one solid xz archive, and kernels.json, the plan. Standard library only.

There (the GPU machine, python3 with numpy; torch for the comparison), each
shape of the plan is run through its library's C ABI and, in the same
process, through PyTorch:

  * attention [B, H, T, D], bf16 or f16, causal or not, against
    torch.nn.functional.scaled_dot_product_attention under
    sdpa_kernel(SDPBackend.FLASH_ATTENTION);
  * GEMM [M, K] x [N, K]^T against torch.matmul (cuBLAS), bf16 or f16.

Both sides get the same inputs (values exact in the precision), their
outputs on sampled rows are checked against a float64 computation of the
same inputs (max |error| / max |reference row|), and both are timed by GPU
kernel time from CUPTI (torch.profiler): tfm's the kernels named after the
op (the library also gathers its inputs from tables and copies its output
back; that is left out), PyTorch's every kernel of the call. The table
gives TFLOP/s (attention 4*B*H*T*T*D, halved when causal; GEMM 2*M*K*N)
and tfm/PyTorch (above 1: tfm is faster). Without torch, or with
--no-torch, tfm alone, timed by the wall clock around tfm_model_forward
(copies included: a bound, not the kernel time).

Every shape runs in a worker process; a crash, a hung kernel (killed after
--shape-timeout) or a CUDA error costs that shape, and a fresh worker goes
on with the rest. No shape starts after --deadline seconds.
"""

import argparse
import concurrent.futures
import contextlib
import datetime
import json
import math
import os
import platform
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FORMAT = "tfm-gpu-kernels/1"
RESULTS_FORMAT = "tfm-gpu-kernels-results/1"

# ===------------------------------------------------------------------=== #
# The plan
# ===------------------------------------------------------------------=== #

# Attention: (B, H, T, D, causal, precisions). Heads and head sizes of
# GPT-2/BERT (D 64) and LLaMA (D 128); one library per (H, D, mask,
# precision) serves every B and T (both are dynamic).
ATTENTION = [
    (1, 8, 512, 64, True, ("bf16", "f16")),
    (16, 16, 512, 64, False, ("bf16",)),
    (8, 32, 512, 128, True, ("bf16",)),
    (4, 16, 2048, 64, True, ("bf16", "f16")),
    (16, 8, 2048, 64, False, ("bf16",)),
    (1, 32, 2048, 128, True, ("bf16", "f16")),
    (4, 16, 2048, 128, False, ("bf16",)),
    (1, 16, 8192, 64, False, ("bf16",)),
    (1, 32, 8192, 128, True, ("bf16", "f16")),
    (4, 8, 8192, 128, True, ("bf16",)),
    (1, 8, 16384, 128, True, ("bf16", "f16")),
    (1, 32, 16384, 64, True, ("bf16",)),
    (1, 16, 16384, 128, False, ("bf16",)),
]
# GEMMs: (M, K, N, what, precisions); M (tokens) is dynamic.
GEMM = [
    (512, 768, 768, "GPT-2 small projection, 1 x 512 tokens", ("bf16", "f16")),
    (512, 768, 3072, "GPT-2 small FFN up, 1 x 512 tokens", ("bf16",)),
    (512, 3072, 768, "GPT-2 small FFN down, 1 x 512 tokens", ("bf16",)),
    (8192, 768, 3072, "GPT-2 small FFN up, 8 x 1024 tokens", ("bf16",)),
    (8192, 3072, 768, "GPT-2 small FFN down, 8 x 1024 tokens", ("bf16",)),
    (512, 768, 50257, "GPT-2 LM head, 1 x 512 tokens", ("bf16",)),
    (4096, 4096, 4096, "square", ("bf16", "f16")),
    (2048, 4096, 11008, "LLaMA-7B FFN up/gate, 2048 tokens", ("bf16", "f16")),
    (2048, 11008, 4096, "LLaMA-7B FFN down, 2048 tokens", ("bf16",)),
    (8192, 8192, 8192, "square, large", ("bf16", "f16")),
]
# Rows of the gathered input tables (the library's "vocabulary"); ids are
# drawn from it, so a T-long sequence repeats rows, which changes nothing
# in the kernels.
TABLE_ROWS = 1024
MAX_SEQ = 16384
# --smoke: every library once at this B x T (M).
SMOKE_BATCH, SMOKE_SEQ = 1, 128
# Targets (docs/gpu-bench.md): tfm/PyTorch at least this.
TARGETS = {"attention": (1.0, "T >= 2048"), "gemm": (0.8, "all")}
# Checks: max |error| / max |reference row| on the sampled rows. The
# inputs are exact in the precision; attention rounds Q (after its
# scaling) and the probabilities, as the model checks of run.py allow
# (ten units of the format); a GEMM only sums f32 products.
TOLERANCE = {("attention", "bf16"): 4e-2, ("attention", "f16"): 5e-3,
             ("gemm", "bf16"): 1e-3, ("gemm", "f16"): 1e-3}
TOL_F32 = 1e-4


def attention_flops(b, h, t, d, causal):
    return 4.0 * b * h * t * t * d / (2 if causal else 1)


def gemm_flops(m, k, n):
    return 2.0 * m * k * n


# The pass whose options a variant sets (tfmc --pass-option), by op.
VARIANT_PASS = {"gemm": "tfm-gpu-configure", "attention": "tfm-configure-attention"}


def plan(precisions, variants=None, attention_variants=None):
    """(libraries, shapes): each library a dict of its op's static
    parameters, each shape one timed case naming its library. `variants`
    ({NAME: "OPTION=VALUE ..."}) adds, for every bf16 GEMM, a library NAME
    built with those -tfm-gpu-configure options (mma-large, mma-small,
    mma-min-blocks: tfmc --pass-option) and its shapes, id@NAME: the
    built-in schedules and the candidates timed in the same run.
    `attention_variants` does the same for every bf16 attention with
    -tfm-configure-attention's options (gpu-flash=warps,row_tiles,
    max_block_k)."""
    libraries, shapes = {}, []
    for b, h, t, d, causal, precs in ATTENTION:
        for p in precs:
            if p not in precisions:
                continue
            candidates = sorted((attention_variants or {}).items()) if p == "bf16" else []
            for variant, options in [(None, None)] + candidates:
                suffix = "@" + variant if variant else ""
                lib = "attention-h%d-d%d-%s-%s%s" % (h, d, "causal" if causal else "full", p,
                                                     suffix)
                entry = {"op": "attention", "heads": h, "head_dim": d, "causal": causal,
                         "precision": p}
                if variant:
                    entry.update(variant=variant, configure=options)
                libraries.setdefault(lib, entry)
                shapes.append({"id": "attn-b%d-h%d-t%d-d%d-%s-%s%s" % (
                    b, h, t, d, "causal" if causal else "full", p, suffix),
                    "kind": "attention", "library": lib, "precision": p,
                    "batch": b, "heads": h, "seq": t, "head_dim": d, "causal": causal,
                    "flops": attention_flops(b, h, t, d, causal)})
    for m, k, n, what, precs in GEMM:
        for p in precs:
            if p not in precisions:
                continue
            # Candidates in bf16 alone (f16 runs the same kernels).
            candidates = sorted((variants or {}).items()) if p == "bf16" else []
            for variant, options in [(None, None)] + candidates:
                suffix = "@" + variant if variant else ""
                lib = "gemm-k%d-n%d-%s%s" % (k, n, p, suffix)
                entry = {"op": "gemm", "k": k, "n": n, "precision": p}
                if variant:
                    entry.update(variant=variant, configure=options)
                libraries.setdefault(lib, entry)
                shapes.append({"id": "gemm-m%d-k%d-n%d-%s%s" % (m, k, n, p, suffix),
                               "kind": "gemm", "library": lib, "precision": p, "m": m,
                               "k": k, "n": n, "what": what, "flops": gemm_flops(m, k, n)})
    return libraries, shapes


def parse_variants(specs, flag="--gemm-variant", example="w64:mma-large=128,128,32,2,2,4"):
    """--gemm-variant (--attention-variant) 'NAME:OPTION=VALUE
    [OPTION=VALUE...]' (repeatable): a dict NAME -> "OPTION=VALUE ..." of
    -tfm-gpu-configure's (-tfm-configure-attention's) options."""
    out = {}
    for spec in specs or []:
        name, _, options = spec.partition(":")
        settings = options.split()
        if not name or not all(c.isalnum() or c in "-_" for c in name) or not settings \
                or not all("=" in o for o in settings):
            raise ValueError("%s %r: expected NAME:OPTION=VALUE [OPTION=VALUE...], "
                             "e.g. %s" % (flag, spec, example))
        out[name] = " ".join(settings)
    return out


def describe_shape(s):
    if s["kind"] == "attention":
        return "B=%d H=%d T=%d D=%d %s" % (s["batch"], s["heads"], s["seq"], s["head_dim"],
                                           "causal" if s["causal"] else "full")
    return "M=%d K=%d N=%d" % (s["m"], s["k"], s["n"])


# ===------------------------------------------------------------------=== #
# Prepare (here): the modules and their libraries
# ===------------------------------------------------------------------=== #

def module_text(name, lib):
    """A tfm-dialect model module (docs/architecture.md, "The model module")
    around one op. Its inputs come from `tfm.weight` tables gathered by the
    token ids (dynamic B and T), so that the runtime's C ABI drives it:
    tfm_model_create uploads the tables, tfm_model_forward(ids) runs the
    gathers, the op and copies the output back. Locations name the kernels
    (-tfm-gpu-outline-kernels): the op's are `attention*` or `gemm*`."""
    head = ('module attributes {tfm.architecture = "encoder", tfm.max_seq_len = %d : i64, '
            'tfm.model_name = "%s", tfm.output = "hidden", tfm.vocab_size = %d : i64} {\n'
            % (MAX_SEQ, name, TABLE_ROWS))
    if lib["op"] == "attention":
        h, d = lib["heads"], lib["head_dim"]
        hd = h * d
        table = "tensor<%dx%dxf32>" % (TABLE_ROWS, hd)
        flat = "tensor<?x?x%dxf32>" % hd
        heads = "tensor<?x%dx?x%dxf32>" % (h, d)
        lines = ["  func.func @forward(%%ids: tensor<?x?xi32>, %%lengths: tensor<?xi32>, "
                 "%%positions: tensor<?xi32>) -> %s attributes {tfm.entry} {" % flat]
        for x in "qkv":
            lines += [
                '    %%t%s = tfm.weight "%s" : %s' % (x, x, table),
                '    %%x%s = tfm.embedding %%ids, %%t%s : (tensor<?x?xi32>, %s) -> %s loc("%s_in")'
                % (x, x, table, flat, x),
                '    %%%s = tfm.split_heads %%x%s {num_heads = %d : i64} : (%s) -> %s loc("%s_heads")'
                % (x, x, h, flat, heads, x)]
        lines += [
            "    %%a = tfm.attention %%q, %%k, %%v {mask = #tfm.mask<%s>, scale = %r : f64} : "
            "%s, %s, %s -> %s loc(\"attention\")" % ("causal" if lib["causal"] else "none",
                                                    1.0 / math.sqrt(d), heads, heads, heads,
                                                    heads),
            '    %%o = tfm.merge_heads %%a : (%s) -> %s loc("merge")' % (heads, flat),
            "    return %%o : %s" % flat]
    else:
        k, n = lib["k"], lib["n"]
        table, x, y, w = ("tensor<%dx%dxf32>" % (TABLE_ROWS, k), "tensor<?x?x%dxf32>" % k,
                          "tensor<?x?x%dxf32>" % n, "tensor<%dx%dxf32>" % (n, k))
        lines = ["  func.func @forward(%%ids: tensor<?x?xi32>, %%lengths: tensor<?xi32>, "
                 "%%positions: tensor<?xi32>) -> %s attributes {tfm.entry} {" % y,
                 '    %%t = tfm.weight "x" : %s' % table,
                 '    %%w = tfm.weight "w" : %s' % w,
                 '    %%x = tfm.embedding %%ids, %%t : (tensor<?x?xi32>, %s) -> %s loc("x_in")'
                 % (table, x),
                 '    %%y = tfm.linear %%x, %%w : (%s, %s) -> %s loc("gemm")' % (x, w, y),
                 "    return %%y : %s" % y]
    return head + "\n".join(lines) + "\n  }\n}\n"


def kernel_prefix(lib):
    return "attention" if lib["op"] == "attention" else "gemm"


def compile_one(name, lib, folder, tfmc, arch, cpu_target, gpu_emulate, report_seq):
    """tfmc on one module; returns the library's plan entry."""
    source = os.path.join(folder, name + ".mlir")
    with open(source, "w") as f:
        f.write(module_text(name, lib))
    so = os.path.join(folder, name + ".so")
    cmd = [tfmc, source, "--quiet", "--target=nvptx", "--gpu-arch=" + arch,
           "--target-cpu=" + cpu_target, "--precision=" + lib["precision"],
           "--report=json", "--report-seq=%d" % report_seq, "-o", so]
    if gpu_emulate:
        cmd.append("--gpu-emulate")
    start = time.time()
    for setting in (lib.get("configure") or "").split():
        cmd.append("--pass-option=%s:%s" % (VARIANT_PASS[lib["op"]], setting))
    p = subprocess.run(cmd, capture_output=True, text=True)
    entry = dict(lib, mlir=name + ".mlir", seconds=round(time.time() - start, 1),
                 kernel_prefix=kernel_prefix(lib))
    if p.returncode != 0:
        log = os.path.join(folder, name + "-compile.log")
        with open(log, "w") as f:
            f.write("$ %s\n%s%s" % (" ".join(cmd), p.stdout[-20000:], p.stderr[-20000:]))
        lines = [l for l in (p.stderr + p.stdout).splitlines() if l.strip()]
        first = [l for l in lines if "error:" in l][:1] or lines[-1:] or ["?"]
        entry.update(error="tfmc exited with %d: %s" % (p.returncode, first[0][:300]),
                     log=os.path.basename(log))
        return entry
    entry["file"] = name + ".so"
    if os.path.exists(os.path.join(folder, name + ".h")):
        os.remove(os.path.join(folder, name + ".h"))
    try:
        report = json.loads(p.stdout)
        entry["report"] = summarize_report(report, lib["op"])
    except ValueError:
        entry["report"] = {"error": "no JSON report: %s" % p.stdout[:200]}
    entry["timed_kernels"] = timed_kernels(entry)
    return entry


def timed_kernels(entry):
    """The kernels whose time is the op's (empty: every kernel named
    kernel_prefix*). A tiled attention's are its CTAs, the attention*
    kernels with shared memory: ptxas's resources in the report. The one
    without is the Q scaling and rounding that -tfm-apply-precision hoists
    out of the CTA into Q's producer (here the input gather; in a model the
    head layout after the Q projection, which runs there anyway): a copy
    of Q, not part of SDPA's work either. GEMMs: all gemm* kernels (the
    output's zero fill is the op's)."""
    rep = entry.get("report") or {}
    if entry["op"] != "attention" or not isinstance(rep.get("tiles"), dict):
        return []
    return sorted(r["kernel"] for r in rep.get("resources", [])
                  if str(r.get("kernel", "")).startswith(entry["kernel_prefix"])
                  and (r.get("shared_memory_bytes") or 0) > 0)


def summarize_report(report, op):
    """What the run side needs of tfmc --report=json: the attention's
    shared-memory tiles ("untiled": the unfused chain of GEMM and softmax
    kernels over the whole scores), and the kernels with a schedule."""
    out = {}
    ops = report.get("kernels") or [{}]
    if op == "attention":
        tiles = ops[0].get("tiles")
        out["tiles"] = tiles if isinstance(tiles, dict) and ops[0].get("fits", True) \
            else "untiled"
    gpu = report.get("gpu") or {}
    kernels = list(gpu.get("kernels") or [])
    kinds = []
    for g in kernels:
        if g.get("kind") not in kinds:
            kinds.append(g.get("kind"))
    out["impl"] = "+".join(str(k) for k in kinds) or "loops"
    if kernels:
        out["schedule"] = str(kernels[0].get("schedule", "")).replace("#tfm.", "")
    out["gpu_kernels"] = [{k: g.get(k) for k in ("kind", "location", "schedule", "grid",
                                                  "threads_per_block", "shared_memory_bytes")}
                          for g in kernels]
    out["resources"] = [{k: r.get(k) for k in ("kernel", "registers", "threads_per_block",
                                                "shared_memory_bytes", "spill_store_bytes")}
                        for r in gpu.get("resources") or []]
    return out


def prepare(outdir, tfmc, arch="sm_90", cpu_target="x86-64-v3", gpu_emulate=False,
            precisions=("bf16", "f16"), jobs=None, log=print, variants=None,
            attention_variants=None):
    """Writes OUTDIR/kernels/ (replacing it): libraries.tar.xz and
    kernels.json. Returns a summary for the bundle's index.json."""
    start = time.time()
    precisions = [p for p in precisions if p in ("bf16", "f16")]
    libraries, shapes = plan(precisions, variants, attention_variants)
    folder = os.path.join(outdir, "kernels")
    if os.path.exists(folder):
        shutil.rmtree(folder)
    os.makedirs(folder)
    if not libraries:
        log("kernels: no bf16/f16 precision asked for; nothing to prepare")
        return {"libraries": 0, "shapes": 0}
    # The longest sequence of each library's shapes, for its report.
    seq = {}
    for s in shapes:
        seq[s["library"]] = max(seq.get(s["library"], 0), s.get("seq", s.get("m", 0)))
    entries = {}
    with tempfile.TemporaryDirectory(prefix="tfm-kernels-") as tmp:
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs or os.cpu_count() or 1) as pool:
            futures = {pool.submit(compile_one, name, lib, tmp, tfmc, arch, cpu_target,
                                   gpu_emulate, seq[name]): name
                       for name, lib in libraries.items()}
            for future in concurrent.futures.as_completed(futures):
                entry = future.result()
                entries[futures[future]] = entry
                if "error" in entry:
                    shutil.copy(os.path.join(tmp, entry["log"]), folder)
        names = sorted(entries)
        # One solid archive: the libraries share the runtime's code, which
        # xz's 64 MiB window then stores once (24 libraries: 0.5 MiB).
        with tarfile.open(os.path.join(folder, "libraries.tar.xz"), "w:xz", preset=9) as tar:
            for name in names:
                tar.add(os.path.join(tmp, name + ".mlir"), arcname=name + ".mlir")
                if "file" in entries[name]:
                    tar.add(os.path.join(tmp, name + ".so"), arcname=name + ".so")
    failed = [n for n in names if "error" in entries[n]]
    index = {"format": FORMAT,
             "created": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
             "gpu_arch": arch, "gpu_emulate": gpu_emulate, "cpu_target": cpu_target,
             "archive": "libraries.tar.xz", "table_rows": TABLE_ROWS,
             "libraries": {n: entries[n] for n in names}, "shapes": shapes}
    with open(os.path.join(folder, "kernels.json"), "w") as f:
        json.dump(index, f, indent=1)
        f.write("\n")
    size = os.path.getsize(os.path.join(folder, "libraries.tar.xz"))
    log("kernels: %d libraries (%d failed%s) for %d shapes, %.1f MiB, %.0f s"
        % (len(names), len(failed), (": " + ", ".join(failed)) if failed else "",
           len(shapes), size / 2 ** 20, time.time() - start))
    untiled = [n for n in names if (entries[n].get("report") or {}).get("tiles") == "untiled"]
    if untiled:
        log("kernels: attention without a shared-memory tile (the unfused GEMM and "
            "softmax chain, O(T^2) memory): %s" % ", ".join(untiled))
    return {"index": "kernels/kernels.json", "libraries": len(names), "failed": failed,
            "shapes": len(shapes), "bytes": size}


# ===------------------------------------------------------------------=== #
# Run (there): inputs, references, timing
# ===------------------------------------------------------------------=== #

def lib_seed(name):
    return zlib.crc32(name.encode()) & 0x7FFFFFFF


def round_to(a, precision):
    """float32 values exactly representable in `precision` (round to
    nearest even), so that every side starts from the same numbers."""
    import numpy as np
    if precision == "f16":
        return a.astype(np.float16).astype(np.float32)
    if precision == "bf16":
        bits = a.astype(np.float32).view(np.uint32)
        bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) \
            & np.uint32(0xFFFF0000)
        return bits.view(np.float32)
    return a.astype(np.float32)


def make_tables(name, lib):
    """The library's weights: {name: float32 array}."""
    import numpy as np
    rng = np.random.default_rng(lib_seed(name))
    p = lib["precision"]
    if lib["op"] == "attention":
        hd = lib["heads"] * lib["head_dim"]
        return {x: round_to(rng.standard_normal((TABLE_ROWS, hd), dtype=np.float32), p)
                for x in "qkv"}
    k, n = lib["k"], lib["n"]
    return {"x": round_to(rng.standard_normal((TABLE_ROWS, k), dtype=np.float32), p),
            "w": round_to(rng.standard_normal((n, k), dtype=np.float32) / math.sqrt(k), p)}


def write_safetensors(path, tensors):
    import numpy as np
    header, offset = {}, 0
    for name, a in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(a.shape),
                        "data_offsets": [offset, offset + a.nbytes]}
        offset += a.nbytes
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as f:
        f.write(len(text).to_bytes(8, "little"))
        f.write(text)
        for a in tensors.values():
            f.write(np.ascontiguousarray(a, dtype=np.float32).tobytes())


def sample_rows(n, want):
    if want >= n:
        return list(range(n))
    return sorted({i * (n - 1) // (want - 1) for i in range(want)})


def row_error(actual, expected):
    """max over rows (last axis) of max |actual - expected| / max |expected
    row|; NaN counts as infinite."""
    import numpy as np
    actual = np.asarray(actual, dtype=np.float64)
    err = np.abs(actual - expected)
    err[np.isnan(err)] = np.inf
    scale = np.abs(expected).max(axis=-1, keepdims=True)
    scale[scale == 0] = 1.0
    return float((err / scale).max())


class Case:
    """One shape: its inputs, the sampled float64 reference and the slices
    of each side's output that it covers."""

    def __init__(self, shape, lib, tables, seed, smoke):
        import numpy as np
        self.shape, self.lib, self.tables = dict(shape), lib, tables
        if smoke:
            if shape["kind"] == "attention":
                self.shape.update(batch=SMOKE_BATCH, seq=SMOKE_SEQ)
                s = self.shape
                self.shape["flops"] = attention_flops(s["batch"], s["heads"], s["seq"],
                                                      s["head_dim"], s["causal"])
            else:
                self.shape.update(m=SMOKE_SEQ)
                self.shape["flops"] = gemm_flops(SMOKE_SEQ, shape["k"], shape["n"])
        s = self.shape
        rng = np.random.default_rng(seed)
        if s["kind"] == "attention":
            self.ids = rng.integers(0, TABLE_ROWS, size=(s["batch"], s["seq"]), dtype=np.int32)
        else:
            self.ids = rng.integers(0, TABLE_ROWS, size=(1, s["m"]), dtype=np.int32)
        self.reference = self.compute_reference()

    def compute_reference(self):
        """float64 outputs at sampled places: attention, for the first and
        last batch element and head, 32 query rows each; GEMM, 32 rows."""
        import numpy as np
        s, t = self.shape, self.tables
        if s["kind"] == "gemm":
            self.rows = sample_rows(s["m"], 32)
            x = t["x"][self.ids[0, self.rows]].astype(np.float64)
            return x @ t["w"].astype(np.float64).T
        h, d, seq = s["heads"], s["head_dim"], s["seq"]
        self.rows = sample_rows(seq, 32)
        self.pairs = sorted({(0, 0), (s["batch"] - 1, h - 1)})
        scale = 1.0 / math.sqrt(d)
        out = []
        for b, hh in self.pairs:
            cols = slice(hh * d, (hh + 1) * d)
            q = t["q"][self.ids[b, self.rows], cols].astype(np.float64)
            k = t["k"][self.ids[b], cols].astype(np.float64)
            v = t["v"][self.ids[b], cols].astype(np.float64)
            scores = (q @ k.T) * scale
            if s["causal"]:
                scores[np.arange(seq)[None, :] > np.array(self.rows)[:, None]] = -np.inf
            scores -= scores.max(axis=1, keepdims=True)
            p = np.exp(scores)
            p /= p.sum(axis=1, keepdims=True)
            out.append(p @ v)
        return np.stack(out)

    def tfm_sample(self, out):
        """The reference's places of tfm's output [B, T, H*D] or [1, M, N]."""
        import numpy as np
        if self.shape["kind"] == "gemm":
            return out[0, self.rows]
        d = self.shape["head_dim"]
        return np.stack([out[b, self.rows, hh * d:(hh + 1) * d] for b, hh in self.pairs])

    def torch_sample(self, out):
        """The same places of PyTorch's output ([B, H, T, D] or [M, N]),
        as float64 on the host."""
        if self.shape["kind"] == "gemm":
            return out[self.rows].double().cpu().numpy()
        import numpy as np
        return np.stack([out[b, hh, self.rows].double().cpu().numpy() for b, hh in self.pairs])


def kernel_times(torch, fn, calls, select=None):
    """GPU kernel time per call (ms) of `calls` calls of fn, from CUPTI
    through torch.profiler: the kernels for whose names select(name) is
    true (every kernel when None), summed per call. Returns (per-call list,
    {kernel name: ms per call} of every kernel); per call when every call
    launched the same number of them, else each entry is the mean."""
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(calls):
            fn()
        torch.cuda.synchronize()
    events, by_name = [], {}
    for e in prof.events():
        if e.device_type != DeviceType.CUDA:
            continue
        low = e.name.lower()
        if "memcpy" in low or "memset" in low:
            continue
        us = e.time_range.elapsed_us()
        by_name[e.name] = by_name.get(e.name, 0.0) + us / calls / 1e3
        if select is None or select(e.name):
            events.append((e.time_range.start, us, e.name))
    if not events:
        raise RuntimeError("the profiler recorded none of the kernels asked for (it saw: %s)"
                           % ", ".join(sorted(by_name)[:12]))
    events.sort()
    if len(events) % calls == 0:
        per = len(events) // calls
        times = [sum(us for _, us, _ in events[i * per:(i + 1) * per]) / 1e3
                 for i in range(calls)]
    else:
        times = [sum(us for _, us, _ in events) / calls / 1e3] * calls
    return times, by_name


def calls_for(first_s, reps, budget_s):
    """Timed calls: up to reps, fewer when the first call shows that they
    would take more than budget_s, at least 1."""
    return max(1, min(reps, int(budget_s / max(first_s, 1e-6))))


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


class Worker:
    """Runs shapes in order, appending one JSON line per shape (and per
    step, so that the parent knows where a worker that died was)."""

    def __init__(self, args, index):
        self.args, self.index = args, index
        self.libdir = args.libdir
        self.model = None       # (library name, tfm model): one alive at a time
        self.libraries = {}     # name -> Library (dlopen'ed once)
        self.tables = {}        # name -> (tables, weights path)
        self.torch = None
        self.torch_note = None
        if not args.no_torch:
            try:
                import torch
                if args.cpu_only:
                    self.torch_note = "--cpu-only: no PyTorch comparison"
                elif not torch.cuda.is_available():
                    self.torch_note = "torch %s sees no CUDA device" % torch.__version__
                else:
                    self.torch = torch
            except ImportError as e:
                self.torch_note = "no torch: %s" % e
        else:
            self.torch_note = "--no-torch"

    def emit(self, record):
        with open(self.args.result, "a") as f:
            f.write(json.dumps(record) + "\n")

    def step(self, sid, what):
        self.emit({"event": "step", "id": sid, "step": what, "time": time.time()})

    def machine(self):
        info = {"torch_note": self.torch_note}
        if self.torch is not None:
            t = self.torch
            props = t.cuda.get_device_properties(0)
            info.update(torch=t.__version__, torch_cuda=t.version.cuda,
                        gpu=t.cuda.get_device_name(0), sms=props.multi_processor_count,
                        gpu_memory_bytes=props.total_memory)
            try:
                info["cudnn"] = t.backends.cudnn.version()
            except Exception:  # informational
                pass
        return info

    # ----- tfm side

    def library(self, name):
        from run import Library
        if name not in self.libraries:
            self.libraries[name] = Library(os.path.join(self.libdir, name + ".so"))
        return self.libraries[name]

    def instance(self, sid, name, lib):
        """The library's model, created on the tables (one instance alive at
        a time: a destroyed library instance gives its memory pool back)."""
        if self.model and self.model[0] == name:
            return self.model[1]
        self.release()
        library = self.library(name)
        manifest = library.manifest()
        want = "cpu" if self.index.get("gpu_emulate") else "cuda"
        if manifest.get("device", "cpu") != want:
            raise RuntimeError("the library's manifest says device %r, expected %r"
                               % (manifest.get("device", "cpu"), want))
        self.step(sid, "tfm_model_create (%s)" % name)
        model = library.create(self.tables[name][1])
        self.model = (name, model)
        return model

    def release(self):
        if self.model:
            self.model[1].close()
            self.model = None

    def run_tfm(self, case, result):
        import numpy as np
        s = case.shape
        name = s["library"]
        lib = self.index["libraries"][name]
        model = self.instance(s["id"], name, lib)
        batch, seq = case.ids.shape
        out = model.output(batch, seq)
        out.fill(np.nan)
        self.step(s["id"], "tfm forward (checked)")
        t0 = time.perf_counter()
        model.forward(case.ids, None, out)
        first = time.perf_counter() - t0
        err = row_error(case.tfm_sample(out), case.reference)
        tol = TOLERANCE.get((s["kind"], s["precision"]), TOL_F32)
        tfm = {"first_ms": 1e3 * first, "err": err, "tolerance": tol, "ok": err <= tol}
        result["tfm"] = tfm
        self.emit({"event": "partial", "id": s["id"], "result": result})
        args = self.args

        def call():
            model.forward(case.ids, None, out)

        if first < 0.5:
            for _ in range(args.warmup):
                call()
        n = calls_for(first, args.reps, args.time_budget)
        self.step(s["id"], "tfm timing (%d calls)" % n)
        if self.torch is not None:
            wall = []

            def timed():
                t0 = time.perf_counter()
                call()
                wall.append(time.perf_counter() - t0)
            try:
                prefix = lib["kernel_prefix"]
                timed_names = set(lib.get("timed_kernels") or [])
                if timed_names:
                    select = timed_names.__contains__
                else:
                    select = lambda name: name.startswith(prefix)  # noqa: E731
                times, kernels = kernel_times(self.torch, timed, n, select)
                tfm.update(method="cupti", kernel_ms=median(times), min_ms=min(times),
                           calls=n, wall_ms=1e3 * median(wall),
                           op_kernels_ms=sum(v for k, v in kernels.items()
                                             if k.startswith(prefix)),
                           forward_kernels_ms=sum(kernels.values()),
                           kernels={k: round(v, 4) for k, v in sorted(
                               kernels.items(), key=lambda kv: -kv[1])[:12]})
                return
            except Exception as e:  # profiler unusable: the wall clock below
                if type(e).__name__ == "TfmError":  # tfm's call failed, not the profiler
                    raise
                tfm["profiler_error"] = "%s: %s" % (type(e).__name__, str(e)[:300])
        wall = []
        for _ in range(n):
            t0 = time.perf_counter()
            call()
            wall.append(time.perf_counter() - t0)
        tfm.update(method="wall", kernel_ms=1e3 * median(wall), min_ms=1e3 * min(wall),
                   calls=n, wall_ms=1e3 * median(wall))

    # ----- PyTorch side

    def run_torch(self, case, result):
        torch = self.torch
        s = case.shape
        p = {"bf16": torch.bfloat16, "f16": torch.float16}.get(s["precision"], torch.float32)
        dev = "cuda"
        ids = torch.from_numpy(case.ids).long().to(dev)
        t = {k: torch.from_numpy(v).to(dev, dtype=p) for k, v in case.tables.items()}
        if s["kind"] == "attention":
            from torch.nn.attention import SDPBackend, sdpa_kernel
            import torch.nn.functional as F
            b, h, seq, d = s["batch"], s["heads"], s["seq"], s["head_dim"]
            q, k, v = (t[x][ids].view(b, seq, h, d).transpose(1, 2).contiguous() for x in "qkv")
            del t
            backend = "flash"

            def fn():  # under sdpa_kernel(FLASH_ATTENTION), below
                return F.scaled_dot_product_attention(q, k, v, is_causal=s["causal"])
        else:
            x = t["x"][ids[0]].contiguous()
            wt = t["w"]
            del t
            backend = "cublas"

            def fn():
                return torch.matmul(x, wt.t())
        ref = {"backend": backend}
        for flag in ("allow_bf16_reduced_precision_reduction",
                     "allow_fp16_reduced_precision_reduction"):
            if s["kind"] == "gemm" and hasattr(torch.backends.cuda.matmul, flag):
                ref[flag] = bool(getattr(torch.backends.cuda.matmul, flag))
        result["torch"] = ref
        if s["kind"] == "attention":
            context = sdpa_kernel(SDPBackend.FLASH_ATTENTION)
        else:
            context = contextlib.nullcontext()
        with context:
            self.time_torch(case, fn, ref)

    def time_torch(self, case, fn, ref):
        torch, s = self.torch, case.shape
        self.step(s["id"], "torch (checked)")
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        y = fn()
        torch.cuda.synchronize()
        first = time.perf_counter() - t0
        ref["err"] = row_error(case.torch_sample(y), case.reference)
        del y
        args = self.args
        if first < 0.5:
            for _ in range(args.warmup):
                fn()
        n = calls_for(first, args.reps, args.time_budget)
        self.step(s["id"], "torch timing (%d calls)" % n)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        events = []
        for _ in range(n):
            start.record()
            fn()
            end.record()
            end.synchronize()
            events.append(start.elapsed_time(end))
        ref.update(event_ms=median(events), calls=n)
        try:
            times, kernels = kernel_times(torch, fn, n)
            ref.update(method="cupti", kernel_ms=median(times), min_ms=min(times),
                       kernels={k[:60]: round(v, 4) for k, v in sorted(
                           kernels.items(), key=lambda kv: -kv[1])[:4]})
        except Exception as e:
            ref.update(method="events", kernel_ms=median(events), min_ms=min(events),
                       profiler_error="%s: %s" % (type(e).__name__, str(e)[:300]))

    # ----- one shape

    def memory_check(self, case):
        """An attention the compiler could not tile runs as GEMMs and
        softmax over the whole [B, H, T, T] scores: SKIP when they would
        not fit in the GPU's free memory."""
        s = case.shape
        lib = self.index["libraries"][s["library"]]
        if s["kind"] != "attention" or lib.get("report", {}).get("tiles") != "untiled":
            return None
        need = 8.0 * s["batch"] * s["heads"] * s["seq"] * s["seq"]  # f32 scores + probabilities
        self.release()  # the memory pool of the last shape's instance goes back
        free = gpu_free_bytes(self.torch)
        if free is not None and need > 0.8 * free:
            return ("untiled attention (no shared-memory tile fits this head size at %s) "
                    "needs ~%.0f GiB for its scores, %.0f GiB free" % (
                        s["precision"], need / 2 ** 30, free / 2 ** 30))
        return None

    def run_shape(self, shape):
        s = shape
        result = {"id": s["id"]}
        self.emit({"event": "start", "id": s["id"], "time": time.time()})
        lib = self.index["libraries"].get(s["library"], {})
        if "file" not in lib:
            result.update(status="ERROR", error="no library: %s" % lib.get("error", "?"))
            return result
        name = s["library"]
        if name not in self.tables:  # only the current library's are kept
            self.release()
            self.step(s["id"], "writing the tables of %s" % name)
            tables = make_tables(name, lib)
            path = os.path.join(self.args.work_dir, name + ".safetensors")
            write_safetensors(path, tables)
            self.tables = {name: (tables, path)}
        self.step(s["id"], "inputs and float64 reference")
        case = Case(s, lib, self.tables[name][0], lib_seed(s["id"]), self.args.smoke)
        result["shape"] = {k: v for k, v in case.shape.items() if k not in ("id", "library")}
        self.emit({"event": "partial", "id": s["id"], "result": result})
        if not self.args.cpu_only:
            why = self.memory_check(case)
            if why:
                result.update(status="SKIP", note=why)
                return result
        try:
            self.run_tfm(case, result)
        except Exception as e:
            result["tfm"] = dict(result.get("tfm", {}), error="%s: %s" % (type(e).__name__, e))
            if sticky(e):
                result.update(status="ERROR", error="tfm: %s" % e, sticky=True)
                return result
        if self.torch is not None:
            try:
                self.run_torch(case, result)
            except Exception as e:
                result["torch"] = dict(result.get("torch", {}),
                                       error="%s: %s" % (type(e).__name__, str(e)[:500]))
                if sticky(e):
                    result["sticky"] = True
            finally:
                self.torch.cuda.empty_cache()
        else:
            result["torch"] = {"error": self.torch_note}
        finish(result, self.torch is not None)
        return result

    def run(self, ids):
        by_id = {s["id"]: s for s in self.index["shapes"]}
        self.emit({"event": "machine", "machine": self.machine()})
        for sid in ids:
            result = self.run_shape(by_id[sid])
            self.emit({"event": "result", "id": sid, "result": result})
            if result.get("sticky"):
                return 3  # the CUDA context may be unusable: a fresh worker goes on
        self.release()
        return 0


def sticky(e):
    """A CUDA error after which the process's context may be unusable."""
    text = str(e)
    return any(k in text for k in ("ILLEGAL_ADDRESS", "illegal memory access", "LAUNCH_FAILED",
                                   "unspecified launch failure", "misaligned address",
                                   "ILLEGAL_INSTRUCTION", "MISALIGNED", "HARDWARE_STACK",
                                   "TFM_ERROR_DEVICE", "device-side assert"))


def gpu_free_bytes(torch):
    if torch is not None:
        try:
            return torch.cuda.mem_get_info()[0]
        except Exception:  # fall through to nvidia-smi
            pass
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.free", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=20).stdout
        return float(out.split()[0]) * 2 ** 20
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def finish(result, with_torch):
    """Status, TFLOP/s and the ratio of one shape's result."""
    flops = result["shape"]["flops"]
    tfm, ref = result.get("tfm", {}), result.get("torch", {})
    for side in (tfm, ref):
        if side.get("kernel_ms"):
            side["tflops"] = flops / (side["kernel_ms"] * 1e-3) / 1e12
    if tfm.get("tflops") and ref.get("tflops"):
        result["ratio"] = tfm["tflops"] / ref["tflops"]
    if "error" in tfm:
        result["status"] = "ERROR"
        result["error"] = "tfm: " + tfm["error"][:500]
    elif not tfm.get("ok"):
        result["status"] = "FAIL"
        result["note"] = ("tfm's error %.2e is over the tolerance %.0e"
                          % (tfm["err"], tfm["tolerance"]))
    elif with_torch and "error" in ref:
        result["status"] = "PASS"
        result["note"] = "torch: " + ref["error"][:200]
    else:
        result["status"] = "PASS"


# ===------------------------------------------------------------------=== #
# The parent: workers, the table, the JSON
# ===------------------------------------------------------------------=== #

def load_index(bundle):
    path = os.path.join(bundle, "kernels", "kernels.json")
    with open(path) as f:
        index = json.load(f)
    if index.get("format") != FORMAT:
        sys.exit("kernels.py: %s is not a %s plan" % (path, FORMAT))
    return index


def selected(index, args):
    shapes = index["shapes"]
    if args.only:
        shapes = [s for s in shapes if any(o in s["id"] or o in s["library"] for o in args.only)]
    if args.smoke:  # each library once
        seen, out = set(), []
        for s in shapes:
            if s["library"] not in seen:
                seen.add(s["library"])
                out.append(s)
        shapes = out
    # Cheapest first, so that a deadline leaves out the longest; the shapes
    # of one library together where their costs allow.
    return sorted(shapes, key=lambda s: (s["flops"], s["library"]))


def read_records(path):
    records = []
    try:
        with open(path) as f:
            for line in f:
                try:
                    records.append(json.loads(line))
                except ValueError:
                    pass  # a line cut by a crash
    except OSError:
        pass
    return records


def run_all(args, index, shapes, work, libdir, start):
    """Workers over `shapes` until all ran or the deadline; returns
    (results by id, machine info)."""
    results, machine = {}, {}
    pending = [s["id"] for s in shapes]
    attempt = 0
    while pending:
        left = args.deadline - (time.time() - start)
        if left < 5:
            break
        attempt += 1
        result_path = os.path.join(work, "worker-%d.jsonl" % attempt)
        log_path = os.path.join(work, "worker-%d.log" % attempt)
        cmd = [sys.executable, os.path.abspath(__file__), args.bundle, "--worker",
               ",".join(pending), "--result", result_path, "--work-dir", work,
               "--libdir", libdir, "--reps", str(args.reps), "--warmup", str(args.warmup),
               "--time-budget", str(args.time_budget)]
        for flag in ("smoke", "no_torch", "cpu_only"):
            if getattr(args, flag):
                cmd.append("--" + flag.replace("_", "-"))
        with open(log_path, "w") as log:
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
                                    start_new_session=True, cwd=HERE)
            killed = None
            seen = 0
            while True:
                try:
                    code = proc.wait(timeout=0.5)
                    break
                except subprocess.TimeoutExpired:
                    pass
                records = read_records(result_path)
                for r in records[seen:]:
                    if r["event"] == "result":
                        report_line(r["result"], index)
                seen = len(records)
                current = [r for r in records if r["event"] in ("start", "result")]
                now = time.time()
                if current and current[-1]["event"] == "start":
                    if now - current[-1]["time"] > args.shape_timeout:
                        killed = "killed after %.0f s (--shape-timeout)" % args.shape_timeout
                if now - start > args.deadline:
                    killed = "killed at the --deadline of %.0f s" % args.deadline
                if killed:
                    os.killpg(proc.pid, signal.SIGKILL)
                    proc.wait()
                    code = None
                    break
        records = read_records(result_path)
        for r in records[seen:]:
            if r["event"] == "result":
                report_line(r["result"], index)
        for r in records:
            if r["event"] == "machine":
                machine = r["machine"]
            elif r["event"] == "result":
                results[r["id"]] = r["result"]
            elif r["event"] == "partial":
                results["partial:" + r["id"]] = r["result"]
        done = [i for i in pending if i in results]
        starts = [r for r in records if r["event"] == "start" and r["id"] not in results]
        if starts:  # the shape the worker died in
            sid = starts[-1]["id"]
            steps = [r["step"] for r in records if r["event"] == "step" and r["id"] == sid]
            why = killed or ("crashed (%s)" % signal.Signals(-code).name if code and code < 0
                             else "worker exited with %s" % code)
            partial = results.pop("partial:" + sid, {"id": sid})
            what = "%s during %s" % (why, steps[-1] if steps else "start")
            if killed and "deadline" in killed:  # out of time, not a failure
                partial.update(status="SKIP", note=what)
            else:
                partial.update(status="ERROR", error=what)
            with open(log_path, errors="replace") as f:
                partial["log_tail"] = f.read().splitlines()[-15:]
            results[sid] = partial
            report_line(partial, index)
            done.append(sid)
        elif not done:
            # Died (or ended) before finishing any shape: say why once and stop.
            with open(log_path, errors="replace") as f:
                tail = f.read().splitlines()[-15:]
            for sid in pending:
                results[sid] = {"id": sid, "status": "ERROR",
                                "error": "worker failed before its first shape (exit %s)" % code,
                                "log_tail": tail}
            print("\n".join(tail))
            break
        for key in [k for k in results if k.startswith("partial:")]:
            del results[key]
        pending = [i for i in pending if i not in done]
    for sid in pending:
        results.setdefault(sid, {"id": sid, "status": "SKIP",
                                 "note": "not run: the --deadline of %.0f s was reached"
                                 % args.deadline})
    return results, machine


def report_line(r, index):
    s = next((x for x in index["shapes"] if x["id"] == r["id"]), None)
    tfm, ref = r.get("tfm", {}), r.get("torch", {})
    bits = [r.get("status", "?")]
    if tfm.get("tflops"):
        bits.append("tfm %.3f ms %.1f TFLOP/s" % (tfm["kernel_ms"], tfm["tflops"]))
    if ref.get("tflops"):
        bits.append("torch %.3f ms %.1f TFLOP/s" % (ref["kernel_ms"], ref["tflops"]))
    if r.get("ratio"):
        bits.append("ratio %.3f" % r["ratio"])
    for k in ("error", "note"):
        if r.get(k):
            bits.append(r[k][:200])
    print("%-40s %s" % (r["id"] if s is None else r["id"], "; ".join(bits)), flush=True)


def fmt(v, spec):
    return "-" if v is None else spec % v


def target_of(r, shape):
    goal, where = TARGETS[shape["kind"]]
    if shape["kind"] == "attention" and shape["seq"] < 2048:
        return None
    return goal


def table(index, shapes, results, machine, args, elapsed):
    methods = sorted({results.get(s["id"], {}).get(side, {}).get("method")
                      for s in shapes for side in ("tfm", "torch")} - {None})
    lines = ["tfm single kernels vs PyTorch: %s, %s" % (
        machine.get("gpu") or ("CPU (emulated GPU libraries)" if index.get("gpu_emulate")
                               else "GPU unknown"),
        datetime.datetime.now().astimezone().isoformat(timespec="seconds")),
        "torch %s%s; libraries for %s%s; time: median of up to %d calls, by %s" % (
            machine.get("torch", "-"), (" (%s)" % machine["torch_note"])
            if machine.get("torch_note") else "", index.get("gpu_arch"),
            " (EMULATED on the host)" if index.get("gpu_emulate") else "", args.reps,
            " and ".join({"cupti": "GPU kernel time (CUPTI)", "wall": "wall clock (tfm)",
                          "events": "CUDA events (torch)"}.get(m, m) for m in methods) or "-"),
        ""]
    head = "%-9s %-31s %-4s %-22s %10s %9s %10s %9s %7s %6s %9s %9s  %-6s %s" % (
        "op", "shape", "prec", "tfm kernel", "tfm ms", "tfm TF/s", "torch ms", "torch TF/s",
        "ratio", "target", "tfm err", "torch err", "status", "note")
    lines.append(head)
    ratios = {"attention": [], "gemm": []}
    met = {"attention": [0, 0], "gemm": [0, 0]}
    for s in shapes:
        variant = index["libraries"].get(s["library"], {}).get("variant")
        if variant:  # candidates: a geometric mean of their own
            kind = s["kind"] + "@" + variant
            ratios.setdefault(kind, [])
            met.setdefault(kind, [0, 0])
        else:
            kind = s["kind"]
        r = results.get(s["id"], {"status": "SKIP", "note": "not run"})
        sh = dict(s, **r.get("shape", {}))
        tfm, ref = r.get("tfm", {}), r.get("torch", {})
        goal = None if args.smoke else target_of(r, sh)
        ratio = r.get("ratio")
        if goal is not None and ratio is not None:
            ratios[kind].append(ratio)
            met[kind][1] += 1
            met[kind][0] += ratio >= goal
        notes = [r.get("error") or r.get("note") or ""]
        if ref.get("error") and not notes[0] and ref["error"] != machine.get("torch_note"):
            notes[0] = "torch: " + ref["error"]
        if tfm.get("method") == "wall":
            notes.insert(0, "tfm: wall clock, copies included")
        note = "; ".join(n for n in notes if n)
        lines.append("%-9s %-31s %-4s %-22s %10s %9s %10s %9s %7s %6s %9s %9s  %-6s %s" % (
            s["kind"], describe_shape(sh), s["precision"],
            short_impl(index["libraries"].get(s["library"], {})),
            fmt(tfm.get("kernel_ms"), "%.3f"),
            fmt(tfm.get("tflops"), "%.2f"), fmt(ref.get("kernel_ms"), "%.3f"),
            fmt(ref.get("tflops"), "%.1f"), fmt(ratio, "%.3f"),
            fmt(goal, ">=%.1f"), fmt(tfm.get("err"), "%.1e"), fmt(ref.get("err"), "%.1e"),
            r.get("status", "?"), note[:160]))
    lines.append("")
    for kind in ratios:
        goal, where = TARGETS[kind.split("@")[0]]
        rs = ratios[kind]
        if rs:
            gm = math.exp(sum(math.log(x) for x in rs) / len(rs))
            lines.append("%s (%s): tfm/PyTorch geometric mean %.3f, %d of %d shapes at the "
                         "target >= %.1f" % (kind, where, gm, met[kind][0], met[kind][1], goal))
        else:
            lines.append("%s (%s): no ratio (target >= %.1f)" % (kind, where, goal))
    lines += [
        "tfm ms: GPU time per call of the op's kernels: a tiled attention's CTAs (attention* "
        "kernels with shared memory; the Q scaling and rounding hoisted into Q's producer, the "
        "input gathers and the output copy are left out), every kernel of an unfused attention "
        "(attention*) or GEMM (gemm*). torch ms: every kernel of F.scaled_dot_product_attention "
        "under sdpa_kernel(FLASH_ATTENTION), or of torch.matmul (cuBLAS).",
        "TF/s: attention 4*B*H*T*T*D (halved when causal), GEMM 2*M*K*N, over that time; "
        "ratio: tfm TF/s / torch TF/s (above 1: tfm is faster).",
        "err: max |output - float64| / max |float64 row| on sampled rows, same inputs (exact in "
        "the precision); tfm FAILs above 4e-2 (attention bf16), 5e-3 (attention f16), 1e-3 "
        "(GEMM). PyTorch returns bf16/f16 outputs, tfm f32.",
        "%.0f s" % elapsed]
    return "\n".join(lines)


def impl_text(lib):
    """The op's kernels in a few words: the attention CTA's tiles, or the
    kinds of kernels it became, and the first one's schedule."""
    rep = lib.get("report") or {}
    tiles = rep.get("tiles")
    if isinstance(tiles, dict):
        return "%s q%s x k%s" % (rep.get("impl", "?"), tiles.get("block_q"), tiles.get("block_k"))
    text = rep.get("impl", "")
    if tiles == "untiled":
        text = "untiled: " + text
    sched = rep.get("schedule", "")
    if lib.get("op") == "gemm" and sched:
        fields = dict(kv.split(" = ", 1) for kv in sched.split("<", 1)[-1].rstrip(">").split(", ")
                      if " = " in kv)
        if all(k in fields for k in ("block_m", "block_n", "block_k")):
            text += " %sx%sx%s" % (fields["block_m"], fields["block_n"], fields["block_k"])
            if "warps_m" in fields:
                text += " warps %sx%s" % (fields["warps_m"], fields.get("warps_n", "?"))
            text += " stages %s" % fields.get("stages", "1")
        else:
            text += " " + sched
    return text


def short_impl(lib):
    """impl_text in at most 22 characters, for the table."""
    rep = lib.get("report") or {}
    tiles, kinds = rep.get("tiles"), rep.get("impl", "")
    if "error" in lib:
        return "no library"
    if lib.get("variant"):
        return ("%s @%s" % ("mma" if lib.get("op") == "gemm" else "cta",
                            lib["variant"]))[:22]
    if isinstance(tiles, dict):
        text = "%s q%s k%s" % ("cta" if kinds == "attention" else kinds, tiles.get("block_q"),
                               tiles.get("block_k"))
    elif tiles == "untiled":
        text = "unfused " + kinds.replace("gemm-", "").replace("row-reduce", "rows")
    else:
        text = impl_text(lib).replace("gemm-", "").replace(" warps ", " w").replace(
            " stages ", " s")
    return text[:22]


def list_plan(args):
    path = os.path.join(args.bundle, "kernels", "kernels.json")
    if os.path.exists(path):
        index = load_index(args.bundle)
        where = path
    else:
        libs, shapes = plan(["bf16", "f16"])
        index = {"libraries": libs, "shapes": shapes}
        where = "the built-in plan (%s not prepared)" % path
    shapes = selected(index, args)
    print("kernels: %d shapes, %d libraries, from %s" % (len(shapes), len(index["libraries"]),
                                                          where))
    print("%-40s %-34s %-4s %10s  %-32s %s" % ("id", "shape", "prec", "GFLOP", "library",
                                              "kernels (tfmc --report)"))
    for s in shapes:
        lib = index["libraries"].get(s["library"], {})
        tiles = impl_text(lib)
        state = " (NO LIBRARY: %s)" % lib["error"] if "error" in lib else ""
        print("%-40s %-34s %-4s %10.1f  %-32s %s%s" % (
            s["id"], describe_shape(s), s["precision"], s["flops"] / 1e9, s["library"],
            tiles, state))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bundle", help="the bundle folder (its kernels/ subfolder)")
    ap.add_argument("--list", action="store_true", help="print the plan and exit (no GPU)")
    ap.add_argument("--prepare", action="store_true",
                    help="here: (re)build BUNDLE/kernels/ with tfmc")
    ap.add_argument("--arch", default=None, help="--prepare: --gpu-arch (default: the "
                    "bundle's index.json, else sm_90)")
    ap.add_argument("--cpu-target", default="x86-64-v3", help="--prepare: --target-cpu")
    ap.add_argument("--precisions", default="bf16,f16", help="--prepare: bf16, f16 or both")
    ap.add_argument("--gemm-variant", action="append", default=[],
                    help="--prepare: 'NAME:OPTION=VALUE ...', every bf16 GEMM also built with "
                         "these -tfm-gpu-configure options (mma-large=block_m,block_n,block_k,"
                         "warps_m,warps_n,stages, mma-small=..., mma-min-blocks=N)")
    ap.add_argument("--attention-variant", action="append", default=[],
                    help="--prepare: 'NAME:OPTION=VALUE ...', every bf16 attention also built "
                         "with these -tfm-configure-attention options "
                         "(gpu-flash=warps,row_tiles,max_block_k)")
    ap.add_argument("--gpu-emulate", action="store_true",
                    help="--prepare: libraries whose kernels run on the host (a dry run "
                         "without a GPU: kernels.py --smoke --cpu-only)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    ap.add_argument("--out", help="results JSON (default BUNDLE/kernels-results.json); the table "
                                  "goes beside it as .txt")
    ap.add_argument("--only", action="append",
                    help="shapes whose id or library contains this (repeatable)")
    ap.add_argument("--smoke", action="store_true",
                    help="each library once at B=%d, T (M)=%d: checks, not a benchmark"
                         % (SMOKE_BATCH, SMOKE_SEQ))
    ap.add_argument("--no-torch", action="store_true", help="tfm only")
    ap.add_argument("--cpu-only", action="store_true",
                    help="run the libraries on the host (an --gpu-emulate bundle), no torch")
    ap.add_argument("--reps", type=int, default=10, help="timed calls per side (median)")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--time-budget", type=float, default=4.0,
                    help="seconds of timed calls per shape and side: fewer calls (at least "
                         "one) when they are slow")
    ap.add_argument("--shape-timeout", type=float, default=60.0,
                    help="seconds one shape may take before its worker is killed")
    ap.add_argument("--deadline", type=float, default=150.0,
                    help="seconds after which no shape runs (the one running is killed)")
    ap.add_argument("--work-dir", help="where the libraries are unpacked and the tables "
                                       "written (default: a temporary folder)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    ap.add_argument("--result", help=argparse.SUPPRESS)
    ap.add_argument("--libdir", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.prepare:
        tfmc = os.path.join(args.build_dir, "bin", "tfmc")
        if not os.access(tfmc, os.X_OK):
            sys.exit("kernels.py: %s not found (scripts/build.sh builds it)" % tfmc)
        arch = args.arch
        if arch is None:
            try:
                with open(os.path.join(args.bundle, "index.json")) as f:
                    arch = json.load(f).get("gpu_arch")
            except (OSError, ValueError):
                pass
        os.makedirs(args.bundle, exist_ok=True)
        summary = prepare(args.bundle, tfmc, arch or "sm_90", args.cpu_target, args.gpu_emulate,
                          [p.strip() for p in args.precisions.split(",")], args.jobs,
                          variants=parse_variants(args.gemm_variant),
                          attention_variants=parse_variants(
                              args.attention_variant, "--attention-variant",
                              "r2:gpu-flash=4,2,64"))
        index_path = os.path.join(args.bundle, "index.json")
        if os.path.exists(index_path):  # a run.py bundle: record it there too
            with open(index_path) as f:
                bundle_index = json.load(f)
            bundle_index["kernels"] = summary
            with open(index_path, "w") as f:
                json.dump(bundle_index, f, indent=1)
                f.write("\n")
        return 1 if summary.get("failed") else 0
    if args.list:
        return list_plan(args)
    if args.worker:
        sys.path.insert(0, HERE)
        import numpy  # noqa: F401  (before any shape: a missing numpy stops the run once)
        index = load_index(args.bundle)
        worker = Worker(args, index)
        try:
            return worker.run(args.worker.split(","))
        finally:
            worker.release()

    start = time.time()
    if not os.path.exists(os.path.join(args.bundle, "kernels", "kernels.json")):
        sys.exit("kernels.py: no %s/kernels/kernels.json (bench/gpu/prepare.sh, or "
                 "kernels.py BUNDLE --prepare, writes it)" % args.bundle)
    index = load_index(args.bundle)
    shapes = selected(index, args)
    work = args.work_dir or tempfile.mkdtemp(prefix="tfm-kernels-")
    os.makedirs(work, exist_ok=True)
    try:
        libdir = os.path.join(work, "lib")
        os.makedirs(libdir, exist_ok=True)
        with tarfile.open(os.path.join(args.bundle, "kernels", index["archive"]), "r:xz") as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(libdir, filter="data")
            else:
                tar.extractall(libdir)
        print("kernels: %d shapes from %s (deadline %.0f s)" % (len(shapes), args.bundle,
                                                                args.deadline), flush=True)
        results, machine = run_all(args, index, shapes, work, libdir, start)
    finally:
        if not args.work_dir:
            shutil.rmtree(work, ignore_errors=True)
    elapsed = time.time() - start
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.sm,"
                              "clocks.max.sm", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20).stdout.strip().splitlines()
    except (OSError, subprocess.TimeoutExpired):
        smi = None
    machine.update(nvidia_smi=smi, host=platform.node(), python=platform.python_version())
    text = table(index, shapes, results, machine, args, elapsed)
    print("\n" + text)
    statuses = [results.get(s["id"], {}).get("status") for s in shapes]
    summary = {k: statuses.count(k) for k in ("PASS", "FAIL", "ERROR", "SKIP")}
    out = args.out or os.path.join(args.bundle, "kernels-results.json")
    report = {"format": RESULTS_FORMAT, "machine": machine, "smoke": args.smoke,
              "options": {k: getattr(args, k) for k in ("reps", "warmup", "time_budget",
                                                         "shape_timeout", "deadline", "only",
                                                         "no_torch", "cpu_only")},
              "plan": {k: index.get(k) for k in ("created", "gpu_arch", "gpu_emulate")},
              "libraries": {n: {k: l.get(k) for k in ("report", "error", "seconds")}
                            for n, l in index["libraries"].items()},
              "summary": summary, "seconds": round(elapsed, 1),
              "results": [dict(results.get(s["id"], {"status": "SKIP"}), id=s["id"])
                          for s in shapes]}
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    with open(out, "w") as f:
        json.dump(report, f, indent=1)
        f.write("\n")
    with open(os.path.splitext(out)[0] + ".txt", "w") as f:
        f.write(text + "\n")
    print("\n%d passed, %d failed, %d errors, %d skipped\nwrote %s" % (
        summary["PASS"], summary["FAIL"], summary["ERROR"], summary["SKIP"], out))
    return 1 if summary["FAIL"] or summary["ERROR"] else 0


if __name__ == "__main__":
    sys.exit(main())
