#!/usr/bin/env python3
"""Generates test/Transforms/Numerics/tile-sram-numerics.mlir.

Each case runs one tfm.attention, with batch and sequence dimensions made
dynamic (tensor.cast), through the whole CPU pipeline and mlir-runner, and
compares every output element against the float64 attention of the
project's reference, scripts/tfm_ref.py, written in plain
Python from the semantics of tfm.attention in dialects/tfm/IR/TfmOps.td
(causal offset Tk - Tq, Mistral sliding window, key_lengths padding, ALiBi
-slope*|i+off-j|, additive bias, rows without a visible key give 0).

Inputs are not stored: the test computes them with integer hashes of the
element index, exactly representable in f32 (multiples of 1/128), and this
script evaluates the same hashes. The test prints, per case,
[elements, mismatches, max |error|], where an element mismatches when
|out - expected| > atol + rtol * |expected| or is NaN. The same file is run
untiled and with -tfm-tile-sram at two budgets whose tiles do not divide
the sequence lengths; the CHECK lines demand 0 mismatches every time.

Usage: python3 gen_tile_sram_numerics.py > ../Numerics/tile-sram-numerics.mlir
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import tfm_ref as R  # noqa: E402

# (atol, rtol) by element type: f32 as in test/Pipelines/Numerics; f16
# outputs carry 11 significant bits.
TOLERANCE = {"f32": (2.0e-5, 2.0e-5), "f16": (1.0e-3, 2.0e-3)}
MOD = 509


def hashed(lin, seed):
    """The input value at linear index `lin` (same formula as the IR)."""
    return ((lin * 7919 + seed * 104729) % MOD - 254) / 128.0


def gen(shape, seed):
    """A nested list with the hashed value of each element."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]

    def rec(dim, base):
        if dim == len(shape):
            return hashed(base, seed)
        return [rec(dim + 1, base + i * strides[dim]) for i in range(shape[dim])]

    return rec(0, 0)


def attention(c):
    """The float64 output [B][Hq][Tq][Dv] of case `c` (tfm_ref.attention on
    each batch, over the hashed inputs)."""
    B, Hq, Hkv, Tq, Tk, D, Dv = (c[x] for x in ("B", "Hq", "Hkv", "Tq", "Tk", "D", "Dv"))
    q = gen([B, Hq, Tq, D], 1)
    k = gen([B, Hkv, Tk, D], 2)
    v = gen([B, Hkv, Tk, Dv], 3)
    bias = gen([B, Hq, Tq, Tk], 4) if c.get("bias") else None
    lens = c.get("lens")
    return [R.attention(q[b], k[b], v[b], c["scale"], c.get("mask", "none"),
                        c.get("window"), None if lens is None else lens[b],
                        c.get("slopes"), None if bias is None else bias[b])
            for b in range(B)]


def flat(t):
    if isinstance(t, list):
        return [x for e in t for x in flat(e)]
    return [t]


def dense(t):
    if isinstance(t, list):
        return "[" + ", ".join(dense(e) for e in t) + "]"
    if isinstance(t, int):
        return str(t)
    r = "%.7g" % t
    return r if ("." in r or "e" in r) else r + ".0"


def ttype(shape, et="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + et + ">"


def dyn_type(shape, dyn, et="f32"):
    return "tensor<" + "x".join("?" if i in dyn else str(d) for i, d in enumerate(shape)) + "x" + et + ">"


def emit_input(name, shape, seed, et="f32"):
    """IR computing the hashed input `name` of `shape` (exact in f16 too)."""
    rank = len(shape)
    dims = ", ".join("d%d" % i for i in range(rank))
    lines = []
    lines.append("  %%%s_e = tensor.empty() : %s" % (name, ttype(shape, et)))
    lines.append("  %%%s = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>], "
                 "iterator_types = [%s]} outs(%%%s_e : %s) {" %
                 (name, dims, dims, ", ".join(['"parallel"'] * rank), name, ttype(shape, et)))
    lines.append("  ^bb0(%%out: %s):" % et)
    lines.append("    %lin0 = linalg.index 0 : index")
    for i in range(1, rank):
        lines.append("    %%i%d = linalg.index %d : index" % (i, i))
        lines.append("    %%m%d = arith.muli %%lin%d, %%c%d : index" % (i, i - 1, shape[i]))
        lines.append("    %%lin%d = arith.addi %%m%d, %%i%d : index" % (i, i, i))
    last = "%%lin%d" % (rank - 1)
    lines.append("    %%hm = arith.muli %s, %%c7919 : index" % last)
    lines.append("    %%hs = arith.addi %%hm, %%c%d : index" % (seed * 104729))
    lines.append("    %hr = arith.remsi %hs, %c509 : index")
    lines.append("    %hc = arith.subi %hr, %c254 : index")
    lines.append("    %hi = arith.index_cast %hc : index to i64")
    lines.append("    %hf = arith.sitofp %hi : i64 to f32")
    lines.append("    %hv = arith.mulf %hf, %inv128 : f32")
    if et == "f32":
        lines.append("    linalg.yield %hv : f32")
    else:
        lines.append("    %%hn = arith.truncf %%hv : f32 to %s" % et)
        lines.append("    linalg.yield %%hn : %s" % et)
    lines.append("  } -> %s" % ttype(shape, et))
    return lines, set([d for d in shape[1:]] + [7919, seed * 104729])


def emit_case(c):
    B, Hq, Hkv, Tq, Tk, D, Dv = (c[x] for x in ("B", "Hq", "Hkv", "Tq", "Tk", "D", "Dv"))
    name = c["name"]
    et = c.get("dtype", "f32")
    qs, ks, vs, os_ = [B, Hq, Tq, D], [B, Hkv, Tk, D], [B, Hkv, Tk, Dv], [B, Hq, Tq, Dv]
    body = []
    consts = {254, MOD}
    for nm, shape, seed in (("q", qs, 1), ("k", ks, 2), ("v", vs, 3)):
        lines, cs = emit_input(nm, shape, seed, et)
        body += lines
        consts |= cs
    if c.get("bias"):
        lines, cs = emit_input("bias", [B, Hq, Tq, Tk], 4)
        body += lines
        consts |= cs
    # A decode case keeps its static Tq = 1 (what split-K decode needs).
    dyn = {0, 2}
    qdyn = {0} if c.get("decode") else dyn
    for nm, shape, dd in (("q", qs, qdyn), ("k", ks, dyn), ("v", vs, dyn)):
        body.append("  %%%s_d = tensor.cast %%%s : %s to %s" % (nm, nm, ttype(shape, et), dyn_type(shape, dd, et)))
    extra = ""
    if c.get("lens") is not None:
        body.append("  %%len = arith.constant dense<%s> : tensor<%dxi32>" % (dense(c["lens"]), B))
        body.append("  %%len_d = tensor.cast %%len : tensor<%dxi32> to tensor<?xi32>" % B)
        extra += " key_lengths(%len_d : tensor<?xi32>)"
    if c.get("slopes") is not None:
        body.append("  %%slopes = arith.constant dense<%s> : tensor<%dxf32>" % (dense(c["slopes"]), Hq))
        extra += " alibi(%%slopes : tensor<%dxf32>)" % Hq
    if c.get("bias"):
        bshape = [B, Hq, Tq, Tk]
        bdyn = {0, 3} if c.get("decode") else {0, 2, 3}
        body.append("  %%bias_d = tensor.cast %%bias : %s to %s" % (ttype(bshape), dyn_type(bshape, bdyn)))
        extra += " bias(%%bias_d : %s)" % dyn_type(bshape, bdyn)
    attrs = "mask = #tfm.mask<%s>, scale = %s : f64" % (c.get("mask", "none"), repr(c["scale"]))
    if c.get("window") is not None:
        attrs += ", window = %d : i64" % c["window"]
    body.append("  %%o_d = tfm.attention %%q_d, %%k_d, %%v_d%s {%s} : %s, %s, %s -> %s" %
                (extra, attrs, dyn_type(qs, qdyn, et), dyn_type(ks, dyn, et), dyn_type(vs, dyn, et),
                 dyn_type(os_, qdyn, et)))
    body.append("  %%o_s = tensor.cast %%o_d : %s to %s" % (dyn_type(os_, qdyn, et), ttype(os_, et)))
    if et == "f32":
        body.append("  %o = tensor.cast %o_s : " + ttype(os_) + " to " + ttype(os_))
    else:
        rank = 4
        dims = ", ".join("d%d" % i for i in range(rank))
        body.append("  %%o_w = tensor.empty() : %s" % ttype(os_))
        body.append("  %%o = linalg.generic {indexing_maps = [affine_map<(%s) -> (%s)>, affine_map<(%s) -> (%s)>], "
                    "iterator_types = [%s]} ins(%%o_s : %s) outs(%%o_w : %s) {" %
                    (dims, dims, dims, dims, ", ".join(['"parallel"'] * rank), ttype(os_, et), ttype(os_)))
        body.append("  ^bb0(%%x: %s, %%y: f32):" % et)
        body.append("    %%w = arith.extf %%x : %s to f32" % et)
        body.append("    linalg.yield %w : f32")
        body.append("  } -> %s" % ttype(os_))
    expected = attention(c)
    body.append("  %%exp = arith.constant dense<%s> : %s" % (dense(expected), ttype(os_)))
    atol, rtol = TOLERANCE[et]
    body.append("  %%atol = arith.constant %.1e : f32" % atol)
    body.append("  %%rtol = arith.constant %.1e : f32" % rtol)
    body.append("  call @compare_%s(%%o, %%exp, %%atol, %%rtol) : (%s, %s, f32, f32) -> ()" %
                ("x".join(map(str, os_)), ttype(os_), ttype(os_)))
    head = ["// %s: %s" % (name, c["doc"]), "func.func @%s() {" % name]
    head.append("  %inv128 = arith.constant 0.0078125 : f32")
    for cst in sorted(consts):
        head.append("  %%c%d = arith.constant %d : index" % (cst, cst))
    return head + body + ["  return", "}", ""], os_, len(flat(expected))


def emit_compare(shape):
    """@compare_<shape>(out, expected): prints [n, mismatches, max |err|].

    One linalg op computes the three statistics (a parallel loop over them
    around reductions over every element), so that the comparison runs as
    kernels on the GPU pipeline too: no host reads of device results."""
    t = ttype(shape)
    return """func.func @compare_%s(%%o: %s, %%e: %s, %%atol: f32, %%rtol: f32) {
  %%zero = arith.constant 0.0 : f32
  %%fone = arith.constant 1.0 : f32
  %%init = arith.constant dense<0.0> : tensor<3xf32>
  %%s = linalg.generic {indexing_maps = [affine_map<(s, d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(s, d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(s, d0, d1, d2, d3) -> (s)>], iterator_types = ["parallel", "reduction", "reduction", "reduction", "reduction"]} ins(%%o, %%e : %s, %s) outs(%%init : tensor<3xf32>) {
  ^bb0(%%x: f32, %%y: f32, %%acc: f32):
    %%d = arith.subf %%x, %%y : f32
    %%ad = math.absf %%d : f32
    %%ay = math.absf %%y : f32
    %%rt = arith.mulf %%ay, %%rtol : f32
    %%tol = arith.addf %%rt, %%atol : f32
    %%is_bad = arith.cmpf ugt, %%ad, %%tol : f32
    %%one = arith.select %%is_bad, %%fone, %%zero : f32
    %%count = arith.addf %%acc, %%fone : f32
    %%bad = arith.addf %%acc, %%one : f32
    %%mx = arith.maximumf %%acc, %%ad : f32
    %%stat = linalg.index 0 : index
    %%c0i = arith.constant 0 : index
    %%c1i = arith.constant 1 : index
    %%is_count = arith.cmpi eq, %%stat, %%c0i : index
    %%is_bad_count = arith.cmpi eq, %%stat, %%c1i : index
    %%tail = arith.select %%is_bad_count, %%bad, %%mx : f32
    %%v = arith.select %%is_count, %%count, %%tail : f32
    linalg.yield %%v : f32
  } -> tensor<3xf32>
  %%u = tensor.cast %%s : tensor<3xf32> to tensor<*xf32>
  call @printMemrefF32(%%u) : (tensor<*xf32>) -> ()
  return
}
""" % ("x".join(map(str, shape)), t, t, t, t)


CASES = [
    dict(name="none_mha", doc="no mask, G = 1, two batches",
         B=2, Hq=2, Hkv=2, Tq=19, Tk=23, D=8, Dv=8, scale=0.35),
    dict(name="causal_offset_gqa2", doc="causal with Tq < Tk (offset 16), G = 2",
         B=1, Hq=4, Hkv=2, Tq=13, Tk=29, D=8, Dv=8, mask="causal", scale=0.3),
    dict(name="causal_square", doc="causal Tq = Tk, several diagonal blocks, Dv != D",
         B=1, Hq=2, Hkv=2, Tq=37, Tk=37, D=12, Dv=8, mask="causal", scale=0.25),
    dict(name="window_mqa", doc="sliding window 5 (boundary inside blocks), MQA (Hkv = 1)",
         B=1, Hq=4, Hkv=1, Tq=35, Tk=35, D=8, Dv=8, mask="sliding_window", window=5, scale=0.4),
    dict(name="window_offset", doc="sliding window 7 with Tq < Tk, G = 2",
         B=1, Hq=2, Hkv=1, Tq=11, Tk=30, D=8, Dv=8, mask="sliding_window", window=7, scale=0.4),
    dict(name="window_wide", doc="sliding window 12 wider than a block, padding",
         B=2, Hq=1, Hkv=1, Tq=33, Tk=33, D=8, Dv=8, mask="sliding_window", window=12,
         lens=[30, 9], scale=0.3),
    dict(name="padding_none", doc="padding, one batch with no key (fully masked rows), no mask",
         B=3, Hq=2, Hkv=2, Tq=9, Tk=27, D=8, Dv=8, lens=[27, 0, 10], scale=0.3),
    dict(name="padding_causal", doc="padding shorter than the diagonal, causal",
         B=2, Hq=2, Hkv=1, Tq=21, Tk=21, D=8, Dv=8, mask="causal", lens=[13, 21], scale=0.3),
    dict(name="alibi_causal", doc="ALiBi slopes, causal, G = 2",
         B=2, Hq=2, Hkv=1, Tq=17, Tk=17, D=8, Dv=8, mask="causal",
         slopes=[0.5, 0.125], scale=0.35),
    dict(name="bias_alibi_padding", doc="additive bias, ALiBi, padding, no mask",
         B=2, Hq=4, Hkv=2, Tq=15, Tk=18, D=8, Dv=8, bias=True, lens=[18, 7],
         slopes=[0.25, 0.5, 0.125, 0.0625], scale=0.3),
    dict(name="gqa8", doc="G = 8 (16 query heads, 2 K/V heads), causal",
         B=1, Hq=16, Hkv=2, Tq=13, Tk=13, D=8, Dv=8, mask="causal", scale=0.3),
    # Large scales: scores up to about 90 in log2 units, so a later key
    # block's max often exceeds the running max by more than the CPU's
    # rescale threshold (8) and the conditional rescaling takes both ways.
    dict(name="none_peaked", doc="no mask, scale 2 (peaked softmax: the running max moves by > 8 in later blocks)",
         B=1, Hq=2, Hkv=2, Tq=19, Tk=41, D=8, Dv=8, scale=2.0),
    dict(name="causal_peaked", doc="causal, scale 1.5, G = 2, padding",
         B=2, Hq=4, Hkv=2, Tq=37, Tk=37, D=8, Dv=8, mask="causal", lens=[37, 20], scale=1.5),
    dict(name="causal_negative_offset", doc="causal with Tq > Tk: the first 11 rows see no key",
         B=1, Hq=2, Hkv=2, Tq=20, Tk=9, D=8, Dv=8, mask="causal", scale=0.3),
    dict(name="f16_gqa2_causal", doc="f16 inputs and output, G = 2, causal, padding",
         B=2, Hq=4, Hkv=2, Tq=19, Tk=19, D=8, Dv=8, mask="causal", lens=[19, 11],
         scale=0.3, dtype="f16"),
    # Decode (a static Tq of 1), which the split-K RUN line splits into
    # ranges of whole key blocks, some short or empty.
    dict(name="decode_mqa_causal", doc="decode, MQA (G = 4), causal, 53 keys",
         B=1, Hq=4, Hkv=1, Tq=1, Tk=53, D=8, Dv=8, mask="causal", scale=0.3, decode=True),
    dict(name="decode_window_padding", doc="decode, sliding window 13, padding, G = 2, two batches",
         B=2, Hq=4, Hkv=2, Tq=1, Tk=40, D=8, Dv=8, mask="sliding_window", window=13,
         lens=[40, 17], scale=0.35, decode=True),
    dict(name="decode_alibi_empty", doc="decode, ALiBi, no mask, one sequence without keys",
         B=2, Hq=2, Hkv=1, Tq=1, Tk=30, D=8, Dv=12, lens=[30, 0], slopes=[0.25, 0.0625],
         scale=0.3, decode=True),
    dict(name="decode_bias", doc="decode, additive bias, causal, G = 2",
         B=1, Hq=4, Hkv=2, Tq=1, Tk=45, D=8, Dv=8, mask="causal", bias=True, scale=0.3,
         decode=True),
    dict(name="decode_f16_mqa", doc="decode, f16, MQA (G = 8), causal, 70 keys",
         B=1, Hq=8, Hkv=1, Tq=1, Tk=70, D=8, Dv=8, mask="causal", scale=0.3, dtype="f16",
         decode=True),
]


def main():
    out = []
    out.append("// GENERATED by Inputs/gen_tile_sram_numerics.py: do not edit by hand.")
    out.append("// RUN: tfm-opt %s -tfm-lower-to-llvm | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=0},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=0 transposed-scores=false},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 l2-bytes=8000000},tfm-configure-attention{max-block-q=16 max-block-k=16 untiled-max-keys=0},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=48000},tfm-configure-attention{untiled-max-keys=0},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=0},tfm-tile-sram,tfm-lower-to-llvm{vectorize=false})' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=20},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=0 decode-key-splits=3},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=0 rescale-threshold=0},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=128 l2-bytes=8000000},tfm-configure-attention{max-block-q=8 max-block-k=8 untiled-max-keys=0 rescale-threshold=1 decode-key-splits=3},tfm-tile-sram,tfm-lower-to-llvm)' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{gpu-chip=sm_80},tfm-lower-to-nvvm{emulate=1})' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{gpu-chip=sm_80},tfm-configure-attention{max-block-q=4 max-block-k=32 untiled-max-keys=0},tfm-lower-to-nvvm{emulate=1})' \\")
    out.append("// RUN:   | %mlir_runner | FileCheck %s")
    out.append("//")
    out.append("// Untiled lowering and -tfm-tile-sram with 8x8 tiles (transposed scores,")
    out.append("// the CPU's choice for query blocks of whole vectors, and not transposed;")
    out.append("// 16x16 tiles of 16-lane vectors) and with the tiles a")
    out.append("// 6000-byte budget gives (also without vectorization, and with the cost")
    out.append("// model's runtime branch: Tk <= 20 untiled; and with split-K decode: the")
    out.append("// decode cases' keys in ceil(3 / B) ranges of 8-key blocks; and with the")
    out.append("// CPU's conditional rescaling off, rescale-threshold=0, and at a threshold")
    out.append("// of 1, which moves the running max and rescales in many more blocks),")
    out.append("// and the GPU pipeline's")
    out.append("// attention CTAs (-tfm-gpu-map-attention) run through the emulation, with")
    out.append("// the tiles chosen for 48 KiB of shared memory and with 4 x 32 tiles, each")
    out.append("// against a float64 reference: every case")
    out.append("// prints [elements, mismatches, max |error|] and must have 0 mismatches")
    out.append("// (|out - expected| <= atol + rtol * |expected|, NaN counts as a mismatch;")
    out.append("// atol = rtol = 2e-5 in f32, atol = 1e-3 and rtol = 2e-3 for f16 outputs).")
    out.append("")
    out.append("func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}")
    out.append("")
    shapes = []
    checks = []
    tiles = []
    for c in CASES:
        lines, shape, n = emit_case(c)
        out += lines
        if shape not in shapes:
            shapes.append(shape)
        checks.append("// CHECK: data =")
        checks.append("// CHECK-NEXT: [%d,  0,  {{.*}}]" % n)
    for s in shapes:
        out += emit_compare(s).splitlines()
        out.append("")
    out.append("func.func @main() {")
    for c in CASES:
        out.append("  call @%s() : () -> ()" % c["name"])
    out.append("  return")
    out.append("}")
    out.append("")
    out += checks
    text = "\n".join(out) + "\n"
    print(text, end="")


if __name__ == "__main__":
    main()
