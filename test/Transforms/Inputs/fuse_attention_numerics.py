#!/usr/bin/env python3
"""Numeric proof that -tfm-fuse-attention preserves the meaning of attention.

  fuse_attention_numerics.py emit > ../Numerics/fuse-attention-numerics.mlir
  fuse_attention_numerics.py check NAME=OUTPUT [NAME=OUTPUT ...]

`emit` writes the lit test: one function per case that builds Q, K, V (and a
bias) from integer hashes of the element index (multiples of 1/128, exact in
f32), computes attention as the UNFUSED chain the frontend and Hugging Face
models write (repeat_kv, transpose or transpose_rhs, matmul, a scale on the
scores or on Q, alibi_bias + add, add of a bias, make_mask + masked_fill,
softmax, matmul) and prints the output with printMemrefF32 as
[B * Hq * Tq, Dv]. The test lowers that file with the chain executed op by
op (-tfm-lower-to-llvm="fuse-attention=false"), fused (the default
pipeline: untiled for Tk <= 256, tiled beyond), fused and always tiled, and
fused and never tiled, runs each under mlir-runner and hands the outputs to
`check`.

`check` recomputes every case in float64 with the project's reference
(scripts/tfm_ref.py: its visibility rule, masked softmax,
ALiBi slopes and attention) and compares, row by row, every run with that
oracle and every fused run with the unfused one: an element passes when
|actual - expected| <= ATOL + RTOL * max |expected row| (NaN never passes).
It prints one line per case and run and exits 1 if any comparison fails.
"""

import math
import os
import re
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "scripts"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "Codegen", "Common", "Inputs"))
import tfm_ref as R  # noqa: E402
# The hashed inputs (the IR computes the same formula) are the tile-sram
# numerics generator's.
from gen_tile_sram_numerics import MOD, gen, hashed  # noqa: E402

# Row-relative tolerance (as tfm_ref.py check, tighter: these are single ops).
RTOL = 2.0e-5
ATOL = 1.0e-6
NEG_INF = "0xFFF0000000000000"

# Fields: B, Hq, Hkv, Tq, Tk, D, Dv; mask (none, causal, sliding_window) and
# window; lens (key lengths per batch, or None); alibi and bias flags;
# fill (masked_fill value: -inf, or a finite large negative); kt (transpose
# or transpose_rhs); scale_on (scores: tfm.scale, divf: arith.divf by a splat
# on the scores, mulf: arith.mulf by a splat, q: tfm.scale on Q); static
# (fully static shapes; otherwise batch and sequences are dynamic).
CASES = [
    dict(name="none_mha", doc="no mask, MHA (G = 1), two batches, Dv != D",
         B=2, Hq=2, Hkv=2, Tq=7, Tk=11, D=8, Dv=12, scale=0.35),
    dict(name="causal_gqa2_static",
         doc="causal Tq = Tk, G = 2, transpose_rhs, divf by sqrt(d), static shapes",
         B=1, Hq=4, Hkv=2, Tq=13, Tk=13, D=16, Dv=16, mask="causal",
         kt="transpose_rhs", scale_on="divf", scale=0.25, static=True),
    dict(name="causal_offset_gqa8", doc="causal with Tq < Tk (offset 7), G = 8, scale on Q",
         B=1, Hq=16, Hkv=2, Tq=5, Tk=12, D=8, Dv=8, mask="causal",
         scale_on="q", scale=0.3),
    dict(name="causal_negative_offset_mqa",
         doc="causal with Tq > Tk: the first 3 rows see no key (zeros), MQA, mulf",
         B=1, Hq=4, Hkv=1, Tq=9, Tk=6, D=8, Dv=8, mask="causal",
         scale_on="mulf", scale=0.3, static=True),
    dict(name="window_boundary",
         doc="sliding window 4, Tq = Tk: each row sees itself and the 3 keys before",
         B=1, Hq=2, Hkv=2, Tq=12, Tk=12, D=8, Dv=8, mask="sliding_window",
         window=4, scale=0.4),
    dict(name="window_offset_gqa2",
         doc="sliding window 5 with Tq < Tk, G = 2, fill -1e4 (the threshold)",
         B=1, Hq=4, Hkv=2, Tq=6, Tk=15, D=8, Dv=8, mask="sliding_window",
         window=5, fill="-1.0e4", kt="transpose_rhs", scale=0.4),
    dict(name="padding_fully_masked",
         doc="padding, no mask; batch 1 has no key: every row 0, not NaN",
         B=3, Hq=2, Hkv=2, Tq=5, Tk=11, D=8, Dv=8, lens=[11, 0, 4], scale=0.3),
    dict(name="window_padding_rows_masked",
         doc="window 3 and padding: rows 4..7 of batch 0 see no key (0)",
         B=2, Hq=2, Hkv=1, Tq=8, Tk=8, D=8, Dv=8, mask="sliding_window",
         window=3, lens=[2, 8], scale=0.3),
    dict(name="bias_gqa2", doc="additive bias [B, Hq, Tq, Tk], no mask, G = 2",
         B=2, Hq=2, Hkv=1, Tq=6, Tk=9, D=8, Dv=8, bias=True, scale=0.3),
    dict(name="boolean_mask_large_negative",
         doc="boolean causal + padding mask filled with -1e9 (Hugging Face)",
         B=2, Hq=2, Hkv=2, Tq=10, Tk=10, D=8, Dv=8, mask="causal",
         lens=[10, 7], fill="-1.0e9", scale=0.3),
    dict(name="alibi_causal_gqa2", doc="ALiBi (tfm.alibi_slopes), causal, G = 2",
         B=1, Hq=4, Hkv=2, Tq=10, Tk=10, D=8, Dv=8, mask="causal", alibi=True,
         scale=0.35),
    dict(name="bias_alibi_padding",
         doc="additive bias, ALiBi and causal padding together, fill -1e9",
         B=2, Hq=4, Hkv=2, Tq=9, Tk=9, D=8, Dv=8, mask="causal", lens=[9, 5],
         alibi=True, bias=True, fill="-1.0e9", scale=0.3),
    dict(name="long_causal_tiled_static",
         doc="Tk = 300 > 256 (tiled), causal offset 276, padding, G = 2, static",
         B=1, Hq=2, Hkv=1, Tq=24, Tk=300, D=16, Dv=16, mask="causal",
         lens=[290], scale=0.25, static=True),
    dict(name="long_window_mqa",
         doc="Tk = 280 (runtime branch takes the tiles), window 64, MQA",
         B=1, Hq=4, Hkv=1, Tq=40, Tk=280, D=16, Dv=16, mask="sliding_window",
         window=64, kt="transpose_rhs", scale=0.25),
]


def f32(x):
    return struct.unpack("f", struct.pack("f", x))[0]


def shapes(c):
    B, Hq, Hkv, Tq, Tk, D, Dv = (c[x] for x in ("B", "Hq", "Hkv", "Tq", "Tk", "D", "Dv"))
    return dict(q=[B, Hq, Tq, D], k=[B, Hkv, Tk, D], v=[B, Hkv, Tk, Dv],
                bias=[B, Hq, Tq, Tk], o=[B, Hq, Tq, Dv], s=[B, Hq, Tq, Tk],
                kr=[B, Hq, Tk, D], vr=[B, Hq, Tk, Dv], kt=[B, Hq, D, Tk])


# ===-------------------------------------------------------------------=== #
# The oracle
# ===-------------------------------------------------------------------=== #

def oracle(c):
    """[B * Hq * Tq] rows of Dv float64 values."""
    sh = shapes(c)
    q, k, v = gen(sh["q"], 1), gen(sh["k"], 2), gen(sh["v"], 3)
    bias = gen(sh["bias"], 4) if c.get("bias") else None
    slopes = [f32(s) for s in R.alibi_slopes(c["Hq"])] if c.get("alibi") else None
    mask, window, lens = c.get("mask", "none"), c.get("window"), c.get("lens")
    rows = []
    for b in range(c["B"]):
        length = lens[b] if lens is not None else None
        out = R.attention(q[b], k[b], v[b], c["scale"], mask, window, length, slopes,
                          None if bias is None else bias[b])
        for head in out:
            rows.extend(head)
    return rows


# ===-------------------------------------------------------------------=== #
# emit
# ===-------------------------------------------------------------------=== #

def ttype(shape, dyn=(), et="f32"):
    return "tensor<" + "x".join("?" if i in dyn else str(d)
                                for i, d in enumerate(shape)) + "x" + et + ">"


def emit_input(name, shape, seed):
    rank = len(shape)
    dims = ", ".join("d%d" % i for i in range(rank))
    t = ttype(shape)
    lines = ["  %%%s_e = tensor.empty() : %s" % (name, t),
             "  %%%s = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>], "
             "iterator_types = [%s]} outs(%%%s_e : %s) {"
             % (name, dims, dims, ", ".join(['"parallel"'] * rank), name, t),
             "  ^bb0(%out: f32):",
             "    %lin0 = linalg.index 0 : index"]
    for i in range(1, rank):
        lines += ["    %%i%d = linalg.index %d : index" % (i, i),
                  "    %%m%d = arith.muli %%lin%d, %%c%d : index" % (i, i - 1, shape[i]),
                  "    %%lin%d = arith.addi %%m%d, %%i%d : index" % (i, i, i)]
    lines += ["    %%hm = arith.muli %%lin%d, %%c7919 : index" % (rank - 1),
              "    %%hs = arith.addi %%hm, %%c%d : index" % (seed * 104729),
              "    %hr = arith.remsi %hs, %c509 : index",
              "    %hc = arith.subi %hr, %c254 : index",
              "    %hi = arith.index_cast %hc : index to i64",
              "    %hf = arith.sitofp %hi : i64 to f32",
              "    %hv = arith.mulf %hf, %inv128 : f32",
              "    linalg.yield %hv : f32",
              "  } -> %s" % t]
    return lines, set(shape[1:]) | {7919, seed * 104729}


def fmt(x):
    r = repr(float(x))
    return r


def emit_case(c):
    sh = shapes(c)
    B, Hq, Hkv, D = c["B"], c["Hq"], c["Hkv"], c["D"]
    dyn = () if c.get("static") else (0, 2)
    sdyn = () if c.get("static") else (0, 2, 3)
    kdyn = () if c.get("static") else (0, 3)  # [B, H, D, Tk]
    body, consts = [], {254, MOD}
    for nm, seed in (("q", 1), ("k", 2), ("v", 3)) + ((("bias", 4),) if c.get("bias") else ()):
        lines, cs = emit_input(nm, sh[nm], seed)
        body += lines
        consts |= cs
    T = {n: ttype(sh[n], sdyn if n in ("bias", "s") else kdyn if n == "kt" else dyn)
         for n in sh}
    # The unfused chain, on dynamic batch and sequence dimensions unless static.
    ins = {}
    for nm in ("q", "k", "v", "bias"):
        ins[nm] = "%" + nm
        if dyn and (nm != "bias" or c.get("bias")):
            body.append("  %%%s_d = tensor.cast %%%s : %s to %s" % (nm, nm, ttype(sh[nm]), T[nm]))
            ins[nm] = "%%%s_d" % nm
    q, k, v = ins["q"], ins["k"], ins["v"]
    if Hq != Hkv:
        g = Hq // Hkv
        body.append("  %%kr = tfm.repeat_kv %s {repeats = %d : i64} : (%s) -> %s" % (k, g, T["k"], T["kr"]))
        body.append("  %%vr = tfm.repeat_kv %s {repeats = %d : i64} : (%s) -> %s" % (v, g, T["v"], T["vr"]))
        k, v = "%kr", "%vr"
    scale_on = c.get("scale_on", "scores")
    scale = c["scale"]
    if scale_on == "q":
        body.append("  %%qs = tfm.scale %s {factor = %s : f64} : %s" % (q, fmt(scale), T["q"]))
        q = "%qs"
    if c.get("kt", "transpose") == "transpose":
        body.append("  %%kt = tfm.transpose %s [0, 1, 3, 2] : (%s) -> %s" % (k, T["kr"], T["kt"]))
        body.append("  %%s0 = tfm.matmul %s, %%kt : (%s, %s) -> %s" % (q, T["q"], T["kt"], T["s"]))
    else:
        body.append("  %%s0 = tfm.matmul %s, %s {transpose_rhs} : (%s, %s) -> %s"
                    % (q, k, T["q"], T["kr"], T["s"]))
    s = "%s0"
    if scale_on == "scores":
        body.append("  %%s1 = tfm.scale %%s0 {factor = %s : f64} : %s" % (fmt(scale), T["s"]))
        s = "%s1"
    elif scale_on in ("divf", "mulf"):
        # -tfm-fuse-attention takes arith scales by splat constants, which
        # need a static shape.
        assert c.get("static"), "arith scales need static shapes"
        c_val = 1.0 / scale if scale_on == "divf" else scale
        body.append("  %%splat = arith.constant dense<%s> : %s" % (fmt(c_val), T["s"]))
        op = "arith.divf" if scale_on == "divf" else "arith.mulf"
        body.append("  %%s1 = %s %%s0, %%splat : %s" % (op, T["s"]))
        s = "%s1"
    scores = s
    if c.get("alibi"):
        body.append("  %%slopes = tfm.alibi_slopes : tensor<%dxf32>" % Hq)
        body.append("  %%ab = tfm.alibi_bias %s, %%slopes : (%s, tensor<%dxf32>) -> %s"
                    % (s, T["s"], Hq, T["s"]))
        body.append("  %%s2 = tfm.add %s, %%ab : %s" % (s, T["s"]))
        s = "%s2"
    if c.get("bias"):
        body.append("  %%s3 = tfm.add %s, %s : %s" % (ins["bias"], s, T["s"]))
        s = "%s3"
    mask, lens = c.get("mask", "none"), c.get("lens")
    if mask != "none" or lens is not None:
        extra = ""
        if lens is not None:
            body.append("  %%len = arith.constant dense<[%s]> : tensor<%dxi32>"
                        % (", ".join(map(str, lens)), B))
            lt = "tensor<%dxi32>" % B
            if dyn:
                body.append("  %%len_d = tensor.cast %%len : tensor<%dxi32> to tensor<?xi32>" % B)
                lt = "tensor<?xi32>"
                extra = " key_lengths(%%len_d : %s)" % lt
            else:
                extra = " key_lengths(%%len : %s)" % lt
        attr = " {window = %d : i64}" % c["window"] if c.get("window") else ""
        mt = T["s"].replace("xf32>", "xi1>")
        body.append("  %%m = tfm.make_mask %s%s <%s>%s : %s -> %s"
                    % (scores, extra, mask, attr, T["s"], mt))
        fill = c.get("fill", NEG_INF)
        body.append("  %%s4 = tfm.masked_fill %s, %%m {value = %s : f64} : %s, %s"
                    % (s, fill, T["s"], mt))
        s = "%s4"
    body.append("  %%p = tfm.softmax %s {axis = 3 : i64} : %s" % (s, T["s"]))
    body.append("  %%o_d = tfm.matmul %%p, %s : (%s, %s) -> %s" % (v, T["s"], T["vr"], T["o"]))
    o = sh["o"]
    body.append("  %%o = tensor.cast %%o_d : %s to %s" % (T["o"], ttype(o)))
    rows = o[0] * o[1] * o[2]
    body.append("  %%o2 = tensor.collapse_shape %%o [[0, 1, 2], [3]] : %s into tensor<%dx%dxf32>"
                % (ttype(o), rows, o[3]))
    body.append("  %%ou = tensor.cast %%o2 : tensor<%dx%dxf32> to tensor<*xf32>" % (rows, o[3]))
    body.append("  call @printMemrefF32(%ou) : (tensor<*xf32>) -> ()")
    head = ["// %s: %s" % (c["name"], c["doc"]), "func.func @%s() {" % c["name"],
            "  %inv128 = arith.constant 0.0078125 : f32"]
    head += ["  %%c%d = arith.constant %d : index" % (x, x) for x in sorted(consts)]
    return head + body + ["  return", "}", ""]


def fused_checks(c):
    """FileCheck lines for the tfm.attention that the chain must become."""
    sh = shapes(c)
    dyn = () if c.get("static") else (0, 2)
    name = c["name"]
    lines = ["// FUSED-LABEL: func.func @%s()" % name,
             "// FUSED: tfm.attention"]
    if c.get("lens") is not None:
        lines.append("// FUSED-SAME: key_lengths(")
    if c.get("alibi"):
        lines.append("// FUSED-SAME: alibi(")
    if c.get("bias"):
        lines.append("// FUSED-SAME: bias(")
    if c.get("mask", "none") != "none":
        lines.append("// FUSED-SAME: mask = #tfm.mask<%s>" % c["mask"])
    if c.get("window"):
        lines.append("// FUSED-SAME: window = %d : i64" % c["window"])
    # K and V keep their Hkv heads: the repeat folded into GQA grouping.
    lines.append("// FUSED-SAME: : %s, %s, %s -> %s"
                 % (ttype(sh["q"], dyn), ttype(sh["k"], dyn), ttype(sh["v"], dyn),
                    ttype(sh["o"], dyn)))
    return lines


def emit():
    n = len(CASES)
    out = """// GENERATED by Inputs/fuse_attention_numerics.py: do not edit by hand.
// RUN: %python %S/../Inputs/fuse_attention_numerics.py emit | diff %s -
//
// The chains fuse, every one: the FUSED lines give the op each becomes,
// and nothing of a chain or a rejection remark is left.
// RUN: tfm-opt %s -tfm-fuse-attention=report-rejections=true 2>&1 \\
// RUN:   | FileCheck %s --check-prefix=FUSED --implicit-check-not=remark \\
// RUN:       --implicit-check-not=tfm.softmax --implicit-check-not=tfm.repeat_kv \\
// RUN:       --implicit-check-not=tfm.make_mask --implicit-check-not=tfm.masked_fill \\
// RUN:       --implicit-check-not=tfm.alibi_bias
//
// Four executions of this file, each checked by the pass statistics of its
// own compile: the chains executed op by op (fuse-attention=false: no
// FuseAttentionPass ran; -tfm-lower-to-llvm does not lower arith ops on
// tensors, so the two arith scales become linalg first), fused by the
// default pipeline (Tk <= 256 untiled, beyond that tiled), fused and always
// tiled, fused and never tiled.
// RUN: tfm-opt %s -pass-pipeline='builtin.module(func.func(convert-elementwise-to-linalg),tfm-lower-to-llvm{fuse-attention=false})' \\
// RUN:   -mlir-pass-statistics 2> %t.unfused.stats | %mlir_runner > %t.unfused
// RUN: FileCheck %s --check-prefix=UNFUSED-STATS --input-file=%t.unfused.stats
// RUN: tfm-opt %s -tfm-lower-to-llvm -mlir-pass-statistics -mlir-pass-statistics-display=list 2> %t.fused.stats \\
// RUN:   | %mlir_runner > %t.fused
// RUN: FileCheck %s --check-prefix=STATS --input-file=%t.fused.stats
// RUN: tfm-opt %s '-tfm-lower-to-llvm=attention-untiled-max-keys=0' -mlir-pass-statistics -mlir-pass-statistics-display=list 2> %t.tiled.stats \\
// RUN:   | %mlir_runner > %t.tiled
// RUN: FileCheck %s --check-prefix=STATS --input-file=%t.tiled.stats
// RUN: tfm-opt %s '-tfm-lower-to-llvm=tile-attention=false' -mlir-pass-statistics -mlir-pass-statistics-display=list 2> %t.untiled.stats \\
// RUN:   | %mlir_runner > %t.untiled
// RUN: FileCheck %s --check-prefix=STATS --input-file=%t.untiled.stats
//
// Every run against the float64 oracle (tfm_ref.py) and every fused run
// against the unfused one, element by element.
// RUN: %python %S/../Inputs/fuse_attention_numerics.py check unfused=%t.unfused \\
// RUN:   fused=%t.fused tiled=%t.tiled untiled=%t.untiled | FileCheck %s
//
// UNFUSED-STATS: Pass statistics report
// UNFUSED-STATS-NOT: FuseAttentionPass
// UNFUSED-STATS: ConvertTfmToLinalgPass
// UNFUSED-STATS-NOT: FuseAttentionPass
//
// STATS: Pass statistics report
// STATS: FuseAttentionPass
// STATS-NEXT: (S) {{ *}}@CASES@ fused{{ *}} - Attention chains fused into tfm.attention
// STATS-NEXT: (S) {{ *}}0 rejected-fill-value
// STATS-NEXT: (S) {{ *}}0 rejected-mask
// STATS-NEXT: (S) {{ *}}0 rejected-other-uses
// STATS-NEXT: (S) {{ *}}0 rejected-scale
// STATS-NEXT: (S) {{ *}}0 rejected-softmax-axis
// STATS-NEXT: (S) {{ *}}0 rejected-structure

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

""".replace("@CASES@", str(n))
    lines = out.splitlines()
    for c in CASES:
        lines += fused_checks(c)
        lines += emit_case(c)
    lines.append("func.func @main() {")
    lines += ["  call @%s() : () -> ()" % c["name"] for c in CASES]
    lines += ["  return", "}", ""]
    lines.append("// CHECK: %d cases" % n)
    for c in CASES:
        for run in ("unfused", "fused", "tiled", "untiled"):
            lines.append("// CHECK-NEXT: %s %s: {{.*}} PASS" % (c["name"], run))
        for run in ("fused", "tiled", "untiled"):
            lines.append("// CHECK-NEXT: %s %s vs unfused: {{.*}} PASS" % (c["name"], run))
    lines.append("// CHECK-NEXT: all comparisons passed")
    print("\n".join(lines))


# ===-------------------------------------------------------------------=== #
# check
# ===-------------------------------------------------------------------=== #

NUMBER = re.compile(r"[-+]?(?:nan|inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?)", re.IGNORECASE)


def parse_run(path):
    """The printed memrefs of one run, in order: [(sizes, values)]."""
    with open(path) as f:
        text = f.read()
    out = []
    for chunk in text.split("Unranked Memref")[1:]:
        m = re.search(r"sizes = \[([^\]]*)\].*?data =", chunk, re.S)
        if not m:
            raise SystemExit("%s: unreadable printMemrefF32 output" % path)
        sizes = [int(x) for x in m.group(1).split(",")]
        values = [float(x) for x in NUMBER.findall(chunk[m.end():])]
        out.append((sizes, values))
    return out


def compare(expected_rows, actual, width):
    """Worst error as a fraction of the tolerance; (ratio, max abs error)."""
    worst, max_err = 0.0, 0.0
    for r, exp in enumerate(expected_rows):
        tol = ATOL + RTOL * max(abs(x) for x in exp)
        for e, a in zip(exp, actual[r * width:(r + 1) * width]):
            err = abs(a - e)
            if err != err:
                return float("inf"), float("nan")
            max_err = max(max_err, err)
            worst = max(worst, err / tol)
    return worst, max_err


def check(args):
    runs = []
    for arg in args:
        name, _, path = arg.partition("=")
        runs.append((name, parse_run(path)))
    names = [r[0] for r in runs]
    if "unfused" not in names:
        raise SystemExit("check: needs an unfused=OUTPUT run")
    print("%d cases" % len(CASES))
    ok = True
    for i, c in enumerate(CASES):
        rows = c["B"] * c["Hq"] * c["Tq"]
        width = c["Dv"]
        expected = oracle(c)
        outputs = {}
        for name, printed in runs:
            if i >= len(printed) or printed[i][0] != [rows, width]:
                print("%s %s: FAIL: no [%d, %d] output printed for this case"
                      % (c["name"], name, rows, width))
                ok = False
                continue
            if len(printed[i][1]) != rows * width:
                print("%s %s: FAIL: %d values printed, %d expected"
                      % (c["name"], name, len(printed[i][1]), rows * width))
                ok = False
                continue
            outputs[name] = printed[i][1]
            ratio, err = compare(expected, printed[i][1], width)
            good = ratio <= 1.0
            ok &= good
            print("%s %s: %d values, max |error| %.2e against float64: %s"
                  % (c["name"], name, rows * width, err, "PASS" if good else "FAIL"))
        if "unfused" not in outputs:
            continue
        unfused = outputs["unfused"]
        unfused_rows = [unfused[r * width:(r + 1) * width] for r in range(rows)]
        for name in names:
            if name == "unfused" or name not in outputs:
                continue
            ratio, err = compare(unfused_rows, outputs[name], width)
            good = ratio <= 1.0
            ok &= good
            print("%s %s vs unfused: max |difference| %.2e: %s"
                  % (c["name"], name, err, "PASS" if good else "FAIL"))
    print("all comparisons passed" if ok else "SOME COMPARISONS FAILED")
    return 0 if ok else 1


def main(argv):
    if argv[:1] == ["emit"]:
        emit()
        return 0
    if argv[:1] == ["check"] and len(argv) > 1:
        return check(argv[1:])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
