#!/usr/bin/env python3
"""Generates the numeric lit tests of test/Pipelines/Numerics.

Each test builds constant inputs, runs tfm ops through -tfm-lower-to-llvm
and mlir-runner, and checks the printed f32 results against an independent
float64 reference in plain Python (no numpy, no MLIR): the formulas are
transcribed from the op descriptions in dialects/tfm/IR/TfmOps.td. Softmax and
attention are the project's reference, scripts/tfm_ref.py
(its masked softmax, visibility rule and attention); the others are here.

Inputs are multiples of 1/8 so that f32 and f64 see the same numbers.
Expected values are matched as printMemrefF32 prints them (6 significant
digits) up to a relative tolerance of 2e-5 (see check_value).

Usage: python3 gen_numerics.py <output dir>
"""

import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "scripts"))
import tfm_ref as R  # noqa: E402

# ---------------------------------------------------------------------------
# Deterministic inputs
# ---------------------------------------------------------------------------

_state = [12345]


def rnd():
    _state[0] = (_state[0] * 1103515245 + 12345) % (1 << 31)
    return ((_state[0] >> 8) % 33 - 16) / 8.0


def tensor(shape):
    if not shape:
        return rnd()
    return [tensor(shape[1:]) for _ in range(shape[0])]


def shape_of(t):
    s = []
    while isinstance(t, list):
        s.append(len(t))
        t = t[0]
    return s


def flat(t):
    if isinstance(t, list):
        return [x for e in t for x in flat(e)]
    return [t]


def rows2d(t, cols):
    f = flat(t)
    return [f[i:i + cols] for i in range(0, len(f), cols)]


def mlir_float(x):
    if x == -math.inf:
        return "0xFF800000"
    if x == math.inf:
        return "0x7F800000"
    return repr(float(x))


def mlir_dense(t):
    if isinstance(t, list):
        return "[" + ", ".join(mlir_dense(e) for e in t) + "]"
    if isinstance(t, int) and not isinstance(t, bool):
        return str(t)
    return mlir_float(t)


def ttype(shape, et="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + et + ">"


# ---------------------------------------------------------------------------
# Expected-value formatting (C++ ostream default: %g with 6 digits)
# ---------------------------------------------------------------------------


def check_value(x):
    """A FileCheck pattern for the printed f32 value of the float64 `x`.

    Exact zeros (masked rows) must print as 0. Otherwise the pattern is the
    common prefix of the 6-digit prints of x -/+ (2e-5 |x| + 1e-6) followed
    by any digits: every value in that interval matches, and a value outside
    it differs in a printed digit that the prefix fixes.
    """
    if x == 0.0:
        return "{{-?}}0"
    tol = 2e-5 * abs(x) + 1e-6
    lo, hi = "%g" % (x - tol), "%g" % (x + tol)
    if "e" in lo or "e" in hi:
        return "{{-?[0-9.e+-]+}}"
    prefix = os.path.commonprefix([lo, hi])
    k = len(prefix)
    if lo == hi:
        return lo
    if k < len(lo) and k < len(hi) and lo[k].isdigit() and hi[k].isdigit():
        # The first differing digit ranges between the two ends.
        # (Digits, and the decimal point, may follow: -7542.99 between
        # -7543.14 and -7542.84.)
        a, b = sorted([lo[k], hi[k]])
        return prefix + "{{[" + a + "-" + b + "][0-9.]*}}"
    if not any(c.isdigit() and c != "0" for c in prefix):
        return "{{-?[0-9.]+}}"
    return prefix + "{{[0-9.]*}}"


def check_rows(rows):
    lines = []
    for i, r in enumerate(rows):
        body = ",   ".join(check_value(v) for v in r)
        open_ = "{{\\[\\[}}" if i == 0 else "{{\\[}}"
        close = "{{\\]\\]}}" if i == len(rows) - 1 else "],"
        prefix = "// CHECK-NEXT: " if i else "// CHECK: "
        lines.append(prefix + open_ + body + close)
    return lines


# ---------------------------------------------------------------------------
# float64 references
# ---------------------------------------------------------------------------


def softmax_row(xs):
    """Softmax of one slice, -inf entries masked; an all -inf slice gives 0."""
    return R.softmax_masked(xs, [x != -math.inf for x in xs])


def attention(q, k, v, scale, mask="none", window=None, lens=None,
              slopes=None, bias=None):
    """tfm_ref.attention on each batch: q [B][Hq][Tq][D], k and v
    [B][Hkv][Tk][*], lens [B] or None, bias [B][Hq][Tq][Tk] or None."""
    return [R.attention(q[b], k[b], v[b], scale, mask, window,
                        None if lens is None else lens[b], slopes,
                        None if bias is None else bias[b])
            for b in range(len(q))]


def scaled(x, factor):
    """`x` (nested lists) times `factor` (a power of two: exact)."""
    if isinstance(x, list):
        return [scaled(v, factor) for v in x]
    return x * factor


def layer_norm(x, gamma, beta, eps):
    out = []
    for r in rows2d(x, len(gamma)):
        mean = sum(r) / len(r)
        var = sum((a - mean) ** 2 for a in r) / len(r)
        out.append([(a - mean) / math.sqrt(var + eps) * g + b
                    for a, g, b in zip(r, gamma, beta)])
    return out


def rms_norm(x, gamma, eps):
    out = []
    for r in rows2d(x, len(gamma)):
        ms = sum(a * a for a in r) / len(r)
        out.append([a / math.sqrt(ms + eps) * g for a, g in zip(r, gamma)])
    return out


def rope(x, theta, style, rot=None, scaling=1.0):
    B, H, T, D = shape_of(x)
    R = rot or D
    out = []
    for b in range(B):
        for h in range(H):
            for t in range(T):
                row = list(x[b][h][t])
                res = list(row)
                pos = t / scaling
                for i in range(R // 2):
                    ang = pos * theta ** (-2.0 * i / R)
                    c, s = math.cos(ang), math.sin(ang)
                    if style == "rotate_half":
                        a, bb = i, i + R // 2
                    else:
                        a, bb = 2 * i, 2 * i + 1
                    x1, x2 = row[a], row[bb]
                    res[a] = x1 * c - x2 * s
                    res[bb] = x2 * c + x1 * s
                out.append(res)
    return out


def act(kind, x):
    if kind == "relu":
        return max(x, 0.0)
    if kind == "gelu":
        return x / 2 * (1 + math.erf(x / math.sqrt(2)))
    if kind == "gelu_tanh":
        return x / 2 * (1 + math.tanh(math.sqrt(2 / math.pi) *
                                      (x + 0.044715 * x ** 3)))
    if kind == "silu":
        return x / (1 + math.exp(-x))
    if kind == "tanh":
        return math.tanh(x)
    raise ValueError(kind)


# ---------------------------------------------------------------------------
# Test files
# ---------------------------------------------------------------------------

HEADER = """// GENERATED by Inputs/gen_numerics.py: do not edit by hand.
// RUN: tfm-opt %s -tfm-lower-to-llvm | %mlir_runner | FileCheck %s
// The GPU pipeline's kernels (tiled attention as CTAs, shared-memory GEMMs,
// block-per-row reductions, loop kernels), run through the emulation:
// RUN: tfm-opt %s -tfm-set-target="gpu-chip=sm_80" -tfm-lower-to-nvvm="emulate=1" | %mlir_runner | FileCheck %s
//
// Expected values: {how}
// computed in float64 by Inputs/gen_numerics.py (plain Python, formulas from
// the op descriptions in TfmOps.td), matched to 2e-5 relative.

func.func private @printMemrefF32(tensor<*xf32>) attributes {{llvm.emit_c_interface}}
"""


def print_2d(name, shape, cols):
    """MLIR that collapses %name (shape) to [N, cols] and prints it."""
    n = len(shape)
    lines = []
    src = name
    if n > 2:
        reassoc = "[" + ", ".join(str(i) for i in range(n - 1)) + "], [" + \
            str(n - 1) + "]"
        rows = 1
        for d in shape[:-1]:
            rows *= d
        lines.append(f"  {name}_2d = tensor.collapse_shape {name} [{reassoc}]"
                     f" : {ttype(shape)} into {ttype([rows, cols])}")
        src = name + "_2d"
        shape = [rows, cols]
    lines.append(f"  {name}_u = tensor.cast {src} : {ttype(shape)} to tensor<*xf32>")
    lines.append(f"  call @printMemrefF32({name}_u) : (tensor<*xf32>) -> ()")
    return lines


class Test:
    def __init__(self, fname, how, runs=()):
        self.fname = fname
        self.how = how
        self.runs = runs  # RUN lines besides HEADER's
        self.funcs = []

    def add(self, label, body, out_name, out_shape, expected_rows):
        self.funcs.append((label, body, out_name, out_shape, expected_rows))

    def write(self, outdir):
        header = HEADER.format(how=self.how)
        if self.runs:
            first, rest = header.split("//\n// Expected", 1)
            header = first + "".join(self.runs) + "//\n// Expected" + rest
        text = [header]
        calls = []
        for label, body, out_name, out_shape, expected in self.funcs:
            text.append(f"// {label}")
            text.append(f"func.func @{label}() {{")
            text.extend(body)
            text.extend(print_2d(out_name, out_shape, out_shape[-1]))
            text.append("  return")
            text.append("}")
            text.append("")
            calls.append((label, expected))
        text.append("func.func @main() {")
        for label, _ in calls:
            text.append(f"  call @{label}() : () -> ()")
        text.append("  return")
        text.append("}")
        text.append("")
        for label, expected in calls:
            text.append(f"// {label}")
            text.extend(check_rows(expected))
        with open(os.path.join(outdir, self.fname), "w") as f:
            f.write("\n".join(text) + "\n")


def const(name, value, et="f32"):
    return (f"  {name} = arith.constant dense<{mlir_dense(value)}> : "
            f"{ttype(shape_of(value), et)}")


def attention_test(t, label, B, Hq, Hkv, Tq, Tk, D, scale, mask="none",
                   window=None, lens=None, alibi=False, bias=False):
    q, k, v = tensor([B, Hq, Tq, D]), tensor([B, Hkv, Tk, D]), tensor([B, Hkv, Tk, D])
    body = [const("%q", q), const("%k", k), const("%v", v)]
    operands = ""
    slopes = None
    bias_t = None
    if lens is not None:
        body.append(const("%len", lens, "i32"))
        operands += f" key_lengths(%len : {ttype([B], 'i32')})"
    if alibi:
        body.append(f"  %slopes = tfm.alibi_slopes : {ttype([Hq])}")
        operands += f" alibi(%slopes : {ttype([Hq])})"
        n = Hq
        slopes = [2 ** (-8 * (h + 1) / n) for h in range(n)]
    if bias:
        bias_t = tensor([B, Hq, Tq, Tk])
        body.append(const("%bias", bias_t))
        operands += f" bias(%bias : {ttype([B, Hq, Tq, Tk])})"
    attrs = f"mask = #tfm.mask<{mask}>, scale = {scale} : f64"
    if window is not None:
        attrs += f", window = {window} : i64"
    qt, kt, ot = ttype([B, Hq, Tq, D]), ttype([B, Hkv, Tk, D]), ttype([B, Hq, Tq, D])
    body.append(f"  %o = tfm.attention %q, %k, %v{operands} {{{attrs}}} : "
                f"{qt}, {kt}, {kt} -> {ot}")
    ref = attention(q, k, v, scale, mask, window, lens, slopes, bias_t)
    t.add(label, body, "%o", [B, Hq, Tq, D], rows2d(ref, D))


def main(outdir):
    # --- attention ---------------------------------------------------------
    t = Test("attention.mlir",
             "softmax(scale * q.k^T + bias - alibi |i + Tk - Tq - j|, masked) . v "
             "with the visibility rule of tfm.attention",
             runs=("// The CPU's tiled loop nest at these short static lengths "
                   "(the pipeline\n"
                   "// keeps them untiled by default):\n"
                   "// RUN: tfm-opt %s -pass-pipeline='builtin.module("
                   "tfm-set-target,tfm-configure-attention{untiled-max-keys=0},"
                   "tfm-tile-sram,tfm-lower-to-llvm)' | %mlir_runner | "
                   "FileCheck %s\n",))
    attention_test(t, "causal_offset", 1, 2, 2, 2, 4, 4, 0.5, mask="causal")
    attention_test(t, "sliding_window_boundary", 1, 1, 1, 4, 4, 4, 0.5,
                   mask="sliding_window", window=2)
    # Batch 1 has key length 0: every query row of it sees no key -> zeros.
    attention_test(t, "padding_fully_masked", 2, 1, 1, 3, 3, 4, 0.5,
                   mask="causal", lens=[2, 0])
    attention_test(t, "gqa_group2", 1, 4, 2, 2, 3, 4, 0.5, mask="none")
    attention_test(t, "alibi_bias_padding", 2, 2, 1, 3, 3, 4, 0.25,
                   mask="causal", lens=[3, 2], alibi=True, bias=True)
    t.write(outdir)

    # --- softmax -----------------------------------------------------------
    t = Test("softmax.mlir",
             "exp(x - max) / sum(exp(x - max)) along the axis; an all -inf "
             "slice gives 0")
    x = [[1.0, 2.0, 3.0], [-math.inf, -math.inf, -math.inf], [0.5, -math.inf, -0.5]]
    body = [const("%x", x),
            f"  %y = tfm.softmax %x {{axis = 1 : i64}} : {ttype([3, 3])}"]
    t.add("last_axis", body, "%y", [3, 3], [softmax_row(r) for r in x])
    x2 = tensor([3, 2])
    x2[1][0] = -math.inf
    body = [const("%x", x2),
            f"  %y = tfm.softmax %x {{axis = 0 : i64}} : {ttype([3, 2])}"]
    cols = [softmax_row([x2[r][c] for r in range(3)]) for c in range(2)]
    t.add("first_axis", body, "%y", [3, 2], [[cols[c][r] for c in range(2)]
                                              for r in range(3)])
    t.write(outdir)

    # --- rope ----------------------------------------------------------------
    t = Test("rope.mlir",
             "angle = (t / scaling) * theta^(-2i/R); (x1, x2) -> (x1 cos - x2 sin, "
             "x2 cos + x1 sin) with rotate_half (i, i + R/2) or interleaved "
             "(2i, 2i + 1) pairs")
    for label, style, rot, scaling in [("rotate_half", "rotate_half", None, 1.0),
                                       ("interleaved", "interleaved", None, 1.0),
                                       ("rotate_half_partial_scaled", "rotate_half", 4, 2.0),
                                       ("interleaved_partial", "interleaved", 2, 1.0)]:
        x = tensor([1, 2, 3, 6])
        attrs = f"theta = 100.0 : f64, style = #tfm.rope_style<{style}>"
        if rot:
            attrs += f", rotary_dim = {rot} : i64"
        if scaling != 1.0:
            attrs += f", scaling_factor = {scaling} : f64"
        body = [const("%x", x), f"  %y = tfm.rope %x {{{attrs}}} : {ttype([1, 2, 3, 6])}"]
        t.add(label, body, "%y", [1, 2, 3, 6], rope(x, 100.0, style, rot, scaling))
    t.write(outdir)

    # --- norms ---------------------------------------------------------------
    t = Test("norms.mlir",
             "layer_norm: (x - mean) / sqrt(var + eps) * gamma + beta (biased "
             "variance); rms_norm: x / sqrt(mean(x^2) + eps) * gamma; also on "
             "inputs whose squares overflow f32")
    x, g, b = tensor([2, 3, 5]), tensor([5]), tensor([5])
    body = [const("%x", x), const("%g", g), const("%b", b),
            f"  %y = tfm.layer_norm %x, %g, %b {{eps = 1.0e-05 : f64}} : "
            f"({ttype([2, 3, 5])}, {ttype([5])}, {ttype([5])}) -> {ttype([2, 3, 5])}"]
    t.add("layer_norm", body, "%y", [2, 3, 5], layer_norm(x, g, b, 1e-5))
    x, g = tensor([2, 3, 5]), tensor([5])
    body = [const("%x", x), const("%g", g),
            f"  %y = tfm.layer_norm %x, %g {{eps = 1.0e-03 : f64}} : "
            f"({ttype([2, 3, 5])}, {ttype([5])}) -> {ttype([2, 3, 5])}"]
    t.add("layer_norm_no_beta", body, "%y", [2, 3, 5],
          layer_norm(x, g, [0.0] * 5, 1e-3))
    x, g = tensor([3, 6]), tensor([6])
    body = [const("%x", x), const("%g", g),
            f"  %y = tfm.rms_norm %x, %g {{eps = 1.0e-06 : f64}} : "
            f"({ttype([3, 6])}, {ttype([6])}) -> {ttype([3, 6])}"]
    t.add("rms_norm", body, "%y", [3, 6], rms_norm(x, g, 1e-6))
    # Inputs near 2^66 (~7e19: their squares, ~2^132, overflow f32) and
    # gains of 2^13 (~1e4): the outputs are representable (~1e4), so they
    # must come out finite and right (an f32 sum of squares gave zeros).
    big, gain = 2.0 ** 66, 2.0 ** 13
    x, g = scaled(tensor([3, 6]), big), scaled(tensor([6]), gain)
    body = [const("%x", x), const("%g", g),
            f"  %y = tfm.rms_norm %x, %g {{eps = 1.0e-06 : f64}} : "
            f"({ttype([3, 6])}, {ttype([6])}) -> {ttype([3, 6])}"]
    t.add("rms_norm_huge", body, "%y", [3, 6], rms_norm(x, g, 1e-6))
    x, g, b = scaled(tensor([2, 5]), big), scaled(tensor([5]), gain), tensor([5])
    body = [const("%x", x), const("%g", g), const("%b", b),
            f"  %y = tfm.layer_norm %x, %g, %b {{eps = 1.0e-05 : f64}} : "
            f"({ttype([2, 5])}, {ttype([5])}, {ttype([5])}) -> {ttype([2, 5])}"]
    t.add("layer_norm_huge", body, "%y", [2, 5], layer_norm(x, g, b, 1e-5))
    t.write(outdir)

    # --- activations ---------------------------------------------------------
    t = Test("activations.mlir",
             "relu, gelu = x/2 (1 + erf(x / sqrt 2)), gelu_tanh = x/2 (1 + "
             "tanh(sqrt(2/pi) (x + 0.044715 x^3))), silu = x / (1 + exp(-x)), tanh")
    x = [[-3.0, -1.5, -0.25, 0.0, 0.125, 0.75, 2.0, 4.5]]
    for kind in ["relu", "gelu", "gelu_tanh", "silu", "tanh"]:
        body = [const("%x", x),
                f"  %y = tfm.activation %x <{kind}> : {ttype([1, 8])}"]
        t.add(kind, body, "%y", [1, 8], [[act(kind, a) for a in x[0]]])
    t.write(outdir)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
