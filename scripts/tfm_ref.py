#!/usr/bin/env python3
# ===- tfm_ref.py - independent float64 reference for tfm models ---------=== #
#
# The numerics oracle of tfm: a forward pass written from the op semantics of
# the tfm dialect (dialects/tfm/IR/TfmOps.td) and from the published
# architectures of the Hugging Face model families, in plain Python 3 with the
# standard library only (no numpy), in float64 throughout. It shares no code
# with the C++ compiler: a bug has to be made twice, independently, to pass.
#
# Subcommands (see --help and docs/numerics.md):
#   tensors MODEL                      (the tensor names and shapes it needs)
#   init   MODEL OUT.safetensors --seed N [--dtype f32|f16|bf16] [--scale S]
#   tokens MODEL OUT.npy --batch B --seq T --seed N [--lengths-out L.npy]
#          [--ragged]
#   run    MODEL WEIGHTS TOKENS.npy [--lengths L.npy] [--decoder-tokens D.npy]
#          [--decoder-lengths DL.npy] --out REF.npy
#   check  MODEL WEIGHTS TOKENS.npy ACTUAL.npy [--lengths ...]
#          [--decoder-tokens ...] [--decoder-lengths ...] [--rtol R] [--atol A]
#
# MODEL is a tfm spec (JSON with "architecture") or a Hugging Face config.json
# (JSON with "model_type"), or a folder holding config.json.
#
# ===----------------------------------------------------------------------=== #

import argparse
import ast
import json
import math
import operator
import os
import random
import struct
import sys
from array import array

_mul = operator.mul
_add = operator.add


class RefError(Exception):
    """A user-facing error: printed as 'tfm_ref: error: ...', exit code 1."""


# ===----------------------------------------------------------------------=== #
# File formats: .npy and .safetensors
# ===----------------------------------------------------------------------=== #

_NPY_MAGIC = b"\x93NUMPY"
# descr -> (array typecode, item size, python kind)
_NPY_TYPES = {
    "<i4": ("i", 4, int),
    "<i8": ("q", 8, int),
    "<f4": ("f", 4, float),
    "<f8": ("d", 8, float),
}


def _prod(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _typed_array(code, data):
    a = array(code)
    if a.itemsize != {"i": 4, "q": 8, "f": 4, "d": 8, "H": 2, "I": 4}[code]:
        raise RefError("this Python's array('%s') has an unexpected item size" % code)
    a.frombytes(data)
    if sys.byteorder != "little":
        a.byteswap()
    return a


def read_npy(path):
    """Returns (shape, flat list, descr) of a C-ordered .npy file."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RefError("%s: cannot read: %s" % (path, e.strerror))
    if data[:6] != _NPY_MAGIC or len(data) < 10:
        raise RefError("%s: not a .npy file (bad magic)" % path)
    major = data[6]
    if major == 1:
        hlen = struct.unpack("<H", data[8:10])[0]
        start = 10
    elif major in (2, 3):
        hlen = struct.unpack("<I", data[8:12])[0]
        start = 12
    else:
        raise RefError("%s: unsupported .npy version %d" % (path, major))
    try:
        header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
        descr, fortran, shape = header["descr"], header["fortran_order"], tuple(header["shape"])
    except (ValueError, SyntaxError, KeyError, TypeError):
        raise RefError("%s: malformed .npy header" % path)
    if descr not in _NPY_TYPES:
        raise RefError("%s: unsupported dtype %r (int32, int64, float32, float64 are read)"
                       % (path, descr))
    if fortran and len(shape) > 1:
        raise RefError("%s: Fortran-ordered arrays are not supported" % path)
    code, size, _ = _NPY_TYPES[descr]
    body = data[start + hlen:]
    n = _prod(shape)
    if len(body) != n * size:
        raise RefError("%s: holds %d data bytes, shape %s with %s needs %d"
                       % (path, len(body), list(shape), descr, n * size))
    return shape, _typed_array(code, body).tolist(), descr


def write_npy(path, shape, values, descr):
    code, size, kind = _NPY_TYPES[descr]
    shape = tuple(int(s) for s in shape)
    if len(values) != _prod(shape):
        raise RefError("internal: %d values for shape %s" % (len(values), list(shape)))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, repr(shape))
    # Pad so that the data starts on a 64-byte boundary; end with a newline.
    total = len(_NPY_MAGIC) + 4 + len(header) + 1
    header += " " * ((64 - total % 64) % 64) + "\n"
    a = array(code, [kind(v) for v in values])
    if sys.byteorder != "little":
        a.byteswap()
    with open(path, "wb") as f:
        f.write(_NPY_MAGIC + b"\x01\x00" + struct.pack("<H", len(header)))
        f.write(header.encode("latin1"))
        f.write(a.tobytes())


_ST_SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4}


def read_safetensors(path):
    """Returns {name: (shape, flat list of float)}; f16/bf16 widened exactly."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise RefError("%s: cannot read: %s" % (path, e.strerror))
    if len(data) < 8:
        raise RefError("%s: too short for a safetensors file" % path)
    hlen = struct.unpack("<Q", data[:8])[0]
    if 8 + hlen > len(data):
        raise RefError("%s: header length %d runs past the end of the file" % (path, hlen))
    try:
        header = json.loads(data[8:8 + hlen].decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise RefError("%s: malformed safetensors header: %s" % (path, e))
    base = 8 + hlen
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        try:
            dtype, shape, (s, e) = info["dtype"], list(info["shape"]), info["data_offsets"]
        except (KeyError, TypeError, ValueError):
            raise RefError("%s: tensor '%s': malformed header entry" % (path, name))
        if dtype not in _ST_SIZES:
            raise RefError("%s: tensor '%s': unsupported dtype %s" % (path, name, dtype))
        n = _prod(shape)
        if e - s != n * _ST_SIZES[dtype] or base + e > len(data) or s < 0:
            raise RefError("%s: tensor '%s': data_offsets [%d, %d) do not hold %s %s"
                           % (path, name, s, e, dtype, shape))
        buf = data[base + s:base + e]
        if dtype == "F32":
            vals = _typed_array("f", buf).tolist()
        elif dtype == "F64":
            vals = _typed_array("d", buf).tolist()
        elif dtype == "F16":
            vals = list(struct.unpack("<%de" % n, buf))
        elif dtype == "BF16":
            wide = array("I", [u << 16 for u in _typed_array("H", buf)])
            vals = array("f", wide.tobytes()).tolist()
        elif dtype == "I32":
            vals = [float(v) for v in _typed_array("i", buf)]
        else:
            vals = [float(v) for v in _typed_array("q", buf)]
        out[name] = (shape, vals)
    return out


def _to_bf16_bits(values):
    bits = array("I", array("f", values).tobytes())
    out = array("H")
    for u in bits:
        if (u & 0x7F800000) == 0x7F800000 and (u & 0x7FFFFF):  # NaN stays NaN
            out.append((u >> 16) | 0x40)
        else:  # round to nearest, ties to even
            out.append(((u + 0x7FFF + ((u >> 16) & 1)) >> 16) & 0xFFFF)
    return out


def write_safetensors(path, tensors, dtype):
    """tensors: list of (name, shape, flat values); dtype F32, F16 or BF16."""
    header = {}
    blobs = []
    offset = 0
    for name, shape, vals in sorted(tensors, key=lambda t: t[0]):
        if dtype == "F32":
            a = array("f", vals)
            if sys.byteorder != "little":
                a.byteswap()
            blob = a.tobytes()
        elif dtype == "F16":
            blob = struct.pack("<%de" % len(vals), *vals)
        else:
            a = _to_bf16_bits(vals)
            if sys.byteorder != "little":
                a.byteswap()
            blob = a.tobytes()
        header[name] = {"dtype": dtype, "shape": list(shape),
                        "data_offsets": [offset, offset + len(blob)]}
        offset += len(blob)
        blobs.append(blob)
    header["__metadata__"] = {"format": "pt", "generator": "tfm_ref.py"}
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * ((8 - len(hbytes) % 8) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(hbytes)))
        f.write(hbytes)
        for b in blobs:
            f.write(b)


# ===----------------------------------------------------------------------=== #
# Math primitives (rows are Python lists of floats)
# ===----------------------------------------------------------------------=== #

# --precision bf16|f16 (tfmc --precision): every GEMM and attention input
# (activations, weights, attention probabilities) is rounded to 16 bits,
# everything else stays float64.
_PRECISION = None
_ROUNDED_WEIGHTS = {}


def set_precision(precision):
    global _PRECISION
    _PRECISION = None if precision in (None, "f32") else precision
    _ROUNDED_WEIGHTS.clear()


def round16(x):
    """x rounded to the nearest bf16 or f16 value (ties to even) through
    f32, as tfm rounds."""
    try:
        f = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return math.copysign(math.inf, x)
    if _PRECISION == "f16":
        try:
            return struct.unpack("<e", struct.pack("<e", f))[0]
        except OverflowError:
            return math.copysign(math.inf, f)
    u = struct.unpack("<I", struct.pack("<f", f))[0]
    if (u & 0x7F800000) == 0x7F800000:
        return x
    u = ((u + 0x7FFF + ((u >> 16) & 1)) >> 16) << 16
    return struct.unpack("<f", struct.pack("<I", u & 0xFFFFFFFF))[0]


def _round_rows(rows):
    return [[round16(v) for v in r] for r in rows] if _PRECISION else rows


def dot(a, b):
    return sum(map(_mul, a, b))


def vadd(a, b):
    return list(map(_add, a, b))


def linear(rows, w, b=None):
    """rows: [N][in]; w: [out][in] (out_in layout); b: [out] or None."""
    if _PRECISION:
        rows = _round_rows(rows)
        key = id(w)
        if key not in _ROUNDED_WEIGHTS:
            _ROUNDED_WEIGHTS[key] = (w, _round_rows(w))
        w = _ROUNDED_WEIGHTS[key][1]
    out = []
    for x in rows:
        y = [sum(map(_mul, x, wr)) for wr in w]
        if b is not None:
            y = list(map(_add, y, b))
        out.append(y)
    return out


def layer_norm(x, gamma, beta, eps):
    """(x - mean) / sqrt(var + eps) * gamma + beta, biased variance."""
    n = len(x)
    mean = sum(x) / n
    d = [v - mean for v in x]
    var = sum(v * v for v in d) / n
    r = 1.0 / math.sqrt(var + eps)
    if beta is None:
        return [v * r * g for v, g in zip(d, gamma)]
    return [v * r * g + c for v, g, c in zip(d, gamma, beta)]


def rms_norm(x, gamma, eps):
    """x / sqrt(mean(x^2) + eps) * gamma."""
    r = 1.0 / math.sqrt(sum(v * v for v in x) / len(x) + eps)
    return [v * r * g for v, g in zip(x, gamma)]


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def _gelu(v):
    return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))


def _gelu_tanh(v):
    return 0.5 * v * (1.0 + math.tanh(_SQRT_2_OVER_PI * (v + 0.044715 * v * v * v)))


def _silu(v):
    # x * sigmoid(x), written to avoid overflow of exp for large |x|.
    if v >= 0:
        return v / (1.0 + math.exp(-v))
    e = math.exp(v)
    return v * e / (1.0 + e)


ACTIVATIONS = {
    "relu": lambda v: v if v > 0.0 else 0.0,
    "gelu": _gelu,
    "gelu_tanh": _gelu_tanh,
    "silu": _silu,
    "tanh": math.tanh,
}


def softmax_masked(scores, visible):
    """softmax over the visible entries; a row with none visible gives zeros."""
    idx = [j for j, ok in enumerate(visible) if ok]
    out = [0.0] * len(scores)
    if not idx:
        return out
    m = max(scores[j] for j in idx)
    e = [math.exp(scores[j] - m) for j in idx]
    s = sum(e)
    for j, ej in zip(idx, e):
        out[j] = ej / s
    return out


def key_visible(i, j, tq, tk, mask, window, key_length):
    """The dialect's visibility rule (tfm.attention / tfm.make_mask)."""
    if key_length is not None and j >= key_length:
        return False
    off = tk - tq
    if mask == "none":
        return True
    if mask == "causal":
        return j <= i + off
    if mask == "sliding_window":
        return j <= i + off and i + off - j < window
    raise RefError("internal: unknown mask kind %r" % mask)


def alibi_slopes(n):
    """Press et al. (2022): 2^(-8(h+1)/n) for n a power of two; otherwise the
    slopes of the next lower power of two, then every other slope of twice
    that many heads."""
    def pow2(k):
        start = 2.0 ** (-8.0 / k)
        return [start ** (h + 1) for h in range(k)]
    if n <= 0:
        return []
    p = 1 << (n.bit_length() - 1)
    if p == n:
        return pow2(n)
    return pow2(p) + pow2(2 * p)[0::2][:n - p]


def attention(q, k, v, scale, mask="none", window=None, key_length=None, slopes=None,
              bias=None):
    """q: [Hq][Tq][D], k: [Hkv][Tk][D], v: [Hkv][Tk][Dv] -> [Hq][Tq][Dv].

    The score of query i and key j is scale * q_i . k_j + bias[h][i][j] (bias:
    [Hq][Tq][Tk] or None) - slopes[h] * |i + Tk - Tq - j| (ALiBi, if slopes),
    softmax over the keys visible under key_visible."""
    hq, hkv = len(q), len(k)
    if hkv == 0 or hq % hkv:
        raise RefError("internal: %d query heads for %d kv heads" % (hq, hkv))
    group = hq // hkv
    if _PRECISION:
        q = [_round_rows(h) for h in q]
        k = [_round_rows(h) for h in k]
        v = [_round_rows(h) for h in v]
    tq, tk = len(q[0]), len(k[0])
    off = tk - tq
    vis = [[key_visible(i, j, tq, tk, mask, window, key_length) for j in range(tk)]
           for i in range(tq)]
    out = []
    for h in range(hq):
        g = h // group
        kh, vh = k[g], v[g]
        dv = len(vh[0]) if tk else 0
        oh = []
        for i in range(tq):
            qi = q[h][i]
            s = [scale * dot(qi, kj) for kj in kh]
            if bias is not None:
                bi = bias[h][i]
                s = [sj + bi[j] for j, sj in enumerate(s)]
            if slopes is not None:
                sl = slopes[h]
                s = [sj - sl * abs(i + off - j) for j, sj in enumerate(s)]
            p = softmax_masked(s, vis[i])
            if _PRECISION:
                # tfm multiplies V by the unnormalized exponentials
                # exp(s - max), rounded, and divides by their (unrounded)
                # sum afterwards.
                idx = [j for j in range(tk) if vis[i][j]]
                if idx:
                    mx = max(s[j] for j in idx)
                    e = [math.exp(s[j] - mx) if vis[i][j] else 0.0
                         for j in range(tk)]
                    tot = sum(e)
                    p = [round16(ej) / tot for ej in e]
            o = [0.0] * dv
            for j in range(tk):
                if p[j] != 0.0:
                    pj = p[j]
                    o = [a + pj * b for a, b in zip(o, vh[j])]
            oh.append(o)
        out.append(oh)
    return out


def rope(x, positions, theta, scaling=1.0, style="rotate_half", rotary_dim=None):
    """x: [T][D] one head; rotates feature pairs by t/scaling * theta^(-2i/R)."""
    d = len(x[0]) if x else 0
    r = d if rotary_dim is None else rotary_dim
    half = r // 2
    inv = [theta ** (-2.0 * i / r) for i in range(half)]
    out = []
    for row, t in zip(x, positions):
        y = list(row)
        p = t / scaling
        for i in range(half):
            a = p * inv[i]
            c, s = math.cos(a), math.sin(a)
            if style == "rotate_half":
                i1, i2 = i, i + half
            else:
                i1, i2 = 2 * i, 2 * i + 1
            x1, x2 = row[i1], row[i2]
            y[i1] = x1 * c - x2 * s
            y[i2] = x2 * c + x1 * s
        out.append(y)
    return out


def sinusoidal(t, d):
    """The position encoding row of position t: sin on even, cos on odd."""
    pe = [0.0] * d
    for i in range(0, d, 2):
        a = t / (10000.0 ** (i / d))
        pe[i] = math.sin(a)
        if i + 1 < d:
            pe[i + 1] = math.cos(a)
    return pe


def split_heads(rows, h):
    """[T][H*Dh] -> [H][T][Dh]"""
    dh = len(rows[0]) // h if rows else 0
    return [[r[i * dh:(i + 1) * dh] for r in rows] for i in range(h)]


def merge_heads(heads):
    """[H][T][Dh] -> [T][H*Dh]"""
    t = len(heads[0]) if heads else 0
    return [sum((heads[h][i] for h in range(len(heads))), []) for i in range(t)]


# ===----------------------------------------------------------------------=== #
# Model description
#
# Both tfm specs and Hugging Face configs are read into one Model, whose
# parameters use the tensor names of tfm specs (docs/architecture.md); the
# Hugging Face loader translates HF tensors into those names (splitting
# GPT-2's fused c_attn, transposing its Conv1D [in, out] weights).
# ===----------------------------------------------------------------------=== #

class Model:
    """Everything the forward pass needs besides the weights."""

    def __init__(self):
        self.source = "spec"          # "spec" or "hf"
        self.family = None            # HF model_type
        self.dtype = "f32"            # storage dtype a spec asks for
        self.hf_class = None          # HF architectures[0]
        self.name = "model"
        self.architecture = "decoder"  # encoder | decoder | encoder_decoder
        self.output = "logits"         # logits | classes | hidden
        self.vocab_size = 0
        self.max_seq_len = 0
        self.d_model = 0
        self.num_layers = 0            # encoder or decoder stack
        self.num_encoder_layers = 0    # encoder_decoder only
        self.num_decoder_layers = 0
        self.num_heads = 0
        self.num_kv_heads = 0
        self.head_dim = 0
        self.d_ff = 0
        self.norm = "layernorm"        # layernorm | rmsnorm
        self.norm_eps = 1e-5
        self.norm_bias = True
        self.norm_placement = "pre"    # pre | post
        self.final_norm = True
        self.embed_norm = False
        self.embed_scale = 1.0
        self.token_types = 0           # rows of embed.token_types (0 = none)
        self.positions = "learned"     # learned | sinusoidal | rope | alibi | none
        self.rope_theta = 10000.0
        self.rope_scaling = 1.0
        self.rope_style = "rotate_half"
        self.rotary_dim = None
        self.mask = "causal"           # self-attention mask of the (decoder) stack
        self.window = None
        self.layer_windows = None      # per-layer window (None entries: full)
        self.attn_scale = None         # default 1/sqrt(head_dim)
        self.layer_scale_div = False   # GPT-2 scale_attn_by_inverse_layer_idx
        self.qkv_bias = True
        self.o_bias = True
        self.activation = "gelu"
        self.ffn_bias = True
        self.lm_tied = True
        self.lm_bias = False
        self.lm_transform = False      # BERT MLM: dense, act, layernorm
        self.num_classes = 0
        self.pooling = "first"
        self.pooler = False
        self.classifier_bias = True
        # Per-layer overrides: {(is_decoder_stack, index): {field: value}}
        # for the fields mask, window, d_ff, activation, ffn_bias.
        self.layer_overrides = {}

    def layer(self, decoder_stack, index):
        """The settings of one layer: mask, window, d_ff, activation, ffn_bias."""
        s = {"mask": self.mask if decoder_stack else "none",
             "window": self.window, "d_ff": self.d_ff,
             "activation": self.activation, "ffn_bias": self.ffn_bias}
        if self.architecture == "encoder":
            s["mask"] = self.mask
        if self.layer_windows is not None and self.layer_windows[index]:
            s["mask"], s["window"] = "sliding_window", self.layer_windows[index]
        s.update(self.layer_overrides.get((decoder_stack, index), {}))
        return s

    def stacks(self):
        """(tensor prefix, number of layers, is decoder stack) per stack."""
        if self.architecture == "encoder_decoder":
            return [("encoder.", self.num_encoder_layers, False),
                    ("decoder.", self.num_decoder_layers, True)]
        return [("", self.num_layers, self.architecture == "decoder")]


def _need(d, key, where, kind=None):
    if key not in d or d[key] is None:
        raise RefError("%s: missing field '%s'" % (where, key))
    v = d[key]
    if kind is int and (not isinstance(v, int) or isinstance(v, bool) or v <= 0):
        raise RefError("%s: field '%s' must be a positive integer, got %r" % (where, key, v))
    if kind is float and (not isinstance(v, (int, float)) or isinstance(v, bool)):
        raise RefError("%s: field '%s' must be a number, got %r" % (where, key, v))
    return v


def _choice(v, allowed, where, key):
    if v not in allowed:
        raise RefError("%s: field '%s' is %r, expected one of %s"
                       % (where, key, v, ", ".join(allowed)))
    return v


def _check_model(m, where):
    if m.num_heads % m.num_kv_heads:
        raise RefError("%s: %d heads is not a multiple of %d kv heads"
                       % (where, m.num_heads, m.num_kv_heads))
    if m.positions == "rope":
        r = m.rotary_dim if m.rotary_dim is not None else m.head_dim
        if r % 2 or r > m.head_dim or r <= 0:
            raise RefError("%s: rotary_dim %d must be even and at most head_dim %d"
                           % (where, r, m.head_dim))
    if m.positions == "sinusoidal" and m.d_model % 2:
        raise RefError("%s: sinusoidal positions need an even d_model, got %d"
                       % (where, m.d_model))
    for prefix, n, dec in m.stacks():
        for i in range(n):
            s = m.layer(dec, i)
            if s["mask"] == "sliding_window" and (not isinstance(s["window"], int)
                                                  or s["window"] <= 0):
                raise RefError("%s: layer %s%d: a sliding_window mask needs a positive "
                               "window" % (where, prefix, i))
    if m.output == "classes" and m.num_classes <= 0:
        raise RefError("%s: a classifier head needs a positive number of classes" % where)
    return m


# ----- Hugging Face configs ------------------------------------------------- #

HF_FAMILIES = ("gpt2", "bert", "llama", "mistral", "qwen2")

_HF_ACT = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
           "gelu_fast": None, "relu": "relu", "silu": "silu", "swish": "silu",
           "tanh": "tanh"}


def _hf_act(name, where, key):
    act = _HF_ACT.get(name)
    if act is None:
        raise RefError("%s: %s %r is not supported (supported: gelu, gelu_new, "
                       "gelu_pytorch_tanh, relu, silu, swish, tanh)" % (where, key, name))
    return act


def _hf_rope(cfg, where):
    """(theta, linear scaling factor) from rope_theta/rope_scaling or the
    newer rope_parameters."""
    params = cfg.get("rope_parameters") or {}
    scaling = cfg.get("rope_scaling") or {}
    theta = cfg.get("rope_theta", params.get("rope_theta", 10000.0))
    rope_type = scaling.get("rope_type", scaling.get("type", params.get("rope_type", "default")))
    factor = 1.0
    if rope_type == "linear":
        factor = float(scaling.get("factor", params.get("factor", 1.0)))
    elif rope_type != "default":
        raise RefError("%s: rope scaling type %r is not supported (default, linear)"
                       % (where, rope_type))
    if cfg.get("partial_rotary_factor", params.get("partial_rotary_factor", 1.0)) != 1.0:
        raise RefError("%s: partial_rotary_factor is not supported" % where)
    return float(theta), factor


def model_from_hf(cfg, where):
    mt = cfg.get("model_type")
    if mt not in HF_FAMILIES:
        raise RefError("%s: model_type %r is not supported (supported: %s)"
                       % (where, mt, ", ".join(HF_FAMILIES)))
    m = Model()
    m.source, m.family, m.name = "hf", mt, mt
    archs = cfg.get("architectures") or []
    m.hf_class = archs[0] if archs else None
    m.lm_bias = False
    if mt == "gpt2":
        m.architecture = "decoder"
        m.vocab_size = _need(cfg, "vocab_size", where, int)
        m.max_seq_len = _need(cfg, "n_positions", where, int)
        m.d_model = _need(cfg, "n_embd", where, int)
        m.num_layers = _need(cfg, "n_layer", where, int)
        m.num_heads = m.num_kv_heads = _need(cfg, "n_head", where, int)
        m.d_ff = cfg.get("n_inner") or 4 * m.d_model
        m.activation = _hf_act(cfg.get("activation_function", "gelu_new"), where,
                               "activation_function")
        m.norm_eps = float(cfg.get("layer_norm_epsilon", 1e-5))
        m.positions = "learned"
        m.mask = "causal"
        if not cfg.get("scale_attn_weights", True):
            m.attn_scale = 1.0
        m.layer_scale_div = bool(cfg.get("scale_attn_by_inverse_layer_idx", False))
        m.lm_tied = cfg.get("tie_word_embeddings", True)
        if m.hf_class == "GPT2ForSequenceClassification":
            m.output, m.pooling, m.classifier_bias = "classes", "last", False
        elif m.hf_class == "GPT2Model":
            m.output = "hidden"
        elif m.hf_class in (None, "GPT2LMHeadModel"):
            m.output = "logits"
        else:
            raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))
    elif mt == "bert":
        m.architecture = "encoder"
        m.vocab_size = _need(cfg, "vocab_size", where, int)
        m.max_seq_len = _need(cfg, "max_position_embeddings", where, int)
        m.d_model = _need(cfg, "hidden_size", where, int)
        m.num_layers = _need(cfg, "num_hidden_layers", where, int)
        m.num_heads = m.num_kv_heads = _need(cfg, "num_attention_heads", where, int)
        m.d_ff = _need(cfg, "intermediate_size", where, int)
        m.activation = _hf_act(cfg.get("hidden_act", "gelu"), where, "hidden_act")
        m.norm_eps = float(cfg.get("layer_norm_eps", 1e-12))
        if cfg.get("position_embedding_type", "absolute") != "absolute":
            raise RefError("%s: position_embedding_type %r is not supported (absolute)"
                           % (where, cfg.get("position_embedding_type")))
        m.positions = "learned"
        m.norm_placement = "post"
        m.final_norm = False
        m.embed_norm = True
        m.token_types = int(cfg.get("type_vocab_size", 2))
        m.mask = "none"
        m.lm_tied = cfg.get("tie_word_embeddings", True)
        if m.hf_class == "BertForSequenceClassification":
            m.output, m.pooling, m.pooler = "classes", "first", True
            m.num_classes = len(cfg.get("id2label") or {}) or int(cfg.get("num_labels", 2))
        elif m.hf_class == "BertForMaskedLM":
            m.output, m.lm_transform, m.lm_bias = "logits", True, True
        elif m.hf_class in (None, "BertModel"):
            m.output = "hidden"
        else:
            raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))
    else:  # llama, mistral, qwen2
        m.architecture = "decoder"
        m.vocab_size = _need(cfg, "vocab_size", where, int)
        m.max_seq_len = _need(cfg, "max_position_embeddings", where, int)
        m.d_model = _need(cfg, "hidden_size", where, int)
        m.num_layers = _need(cfg, "num_hidden_layers", where, int)
        m.num_heads = _need(cfg, "num_attention_heads", where, int)
        m.num_kv_heads = cfg.get("num_key_value_heads") or m.num_heads
        m.head_dim = cfg.get("head_dim") or m.d_model // m.num_heads
        m.d_ff = _need(cfg, "intermediate_size", where, int)
        act = _hf_act(cfg.get("hidden_act", "silu"), where, "hidden_act")
        if act not in ("silu", "gelu"):
            raise RefError("%s: gated MLP with hidden_act %r is not supported"
                           % (where, cfg.get("hidden_act")))
        m.activation = "swiglu" if act == "silu" else "geglu"
        m.norm = "rmsnorm"
        m.norm_bias = False
        m.norm_eps = float(cfg.get("rms_norm_eps", 1e-6))
        m.positions = "rope"
        m.rope_theta, m.rope_scaling = _hf_rope(cfg, where)
        m.mask = "causal"
        if mt == "llama":
            m.qkv_bias = m.o_bias = bool(cfg.get("attention_bias", False))
            m.ffn_bias = bool(cfg.get("mlp_bias", False))
        elif mt == "qwen2":
            m.qkv_bias, m.o_bias, m.ffn_bias = True, False, False
        else:
            m.qkv_bias = m.o_bias = m.ffn_bias = False
        window = cfg.get("sliding_window")
        if mt == "mistral" and window:
            m.mask, m.window = "sliding_window", int(window)
        if mt == "qwen2" and window and cfg.get("use_sliding_window", False):
            types = cfg.get("layer_types")
            if types is None:
                mwl = cfg.get("max_window_layers", m.num_layers)
                types = ["sliding_attention" if i >= mwl else "full_attention"
                         for i in range(m.num_layers)]
            m.layer_windows = [int(window) if t == "sliding_attention" else None
                               for t in types]
        m.lm_tied = cfg.get("tie_word_embeddings", False)
        base = {"llama": "Llama", "mistral": "Mistral", "qwen2": "Qwen2"}[mt]
        if m.hf_class == base + "ForSequenceClassification":
            m.output, m.pooling, m.classifier_bias = "classes", "last", False
        elif m.hf_class == base + "Model":
            m.output = "hidden"
        elif m.hf_class in (None, base + "ForCausalLM"):
            m.output = "logits"
        else:
            raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))
    if m.output == "classes" and not m.num_classes:
        m.num_classes = len(cfg.get("id2label") or {}) or int(cfg.get("num_labels", 2))
    if not m.head_dim:
        if m.d_model % m.num_heads:
            raise RefError("%s: hidden size %d is not a multiple of %d heads"
                           % (where, m.d_model, m.num_heads))
        m.head_dim = m.d_model // m.num_heads
    return _check_model(m, where)


def hf_tensors(m):
    """[(name, shape, init kind, fan_in)] as the HF class stores them."""
    D, F, V, dh = m.d_model, m.d_ff, m.vocab_size, m.head_dim
    hq, hkv = m.num_heads * dh, m.num_kv_heads * dh
    t = []

    def mat(name, shape, fan_in):
        t.append((name, list(shape), "matrix", fan_in))

    def vec(name, n, kind="bias"):
        t.append((name, [n], kind, 0))

    def ln(name, bias=True):
        vec(name + ".weight", D, "gamma")
        if bias:
            vec(name + ".bias", D, "beta")

    if m.family == "gpt2":
        p = "" if m.hf_class == "GPT2Model" else "transformer."
        t.append((p + "wte.weight", [V, D], "embedding", 0))
        t.append((p + "wpe.weight", [m.max_seq_len, D], "embedding", 0))
        for i in range(m.num_layers):
            h = "%sh.%d." % (p, i)
            ln(h + "ln_1")
            mat(h + "attn.c_attn.weight", [D, 3 * D], D)
            vec(h + "attn.c_attn.bias", 3 * D)
            mat(h + "attn.c_proj.weight", [D, D], D)
            vec(h + "attn.c_proj.bias", D)
            ln(h + "ln_2")
            mat(h + "mlp.c_fc.weight", [D, F], D)
            vec(h + "mlp.c_fc.bias", F)
            mat(h + "mlp.c_proj.weight", [F, D], F)
            vec(h + "mlp.c_proj.bias", D)
        ln(p + "ln_f")
        if m.output == "logits" and not m.lm_tied:
            mat("lm_head.weight", [V, D], D)
        if m.output == "classes":
            mat("score.weight", [m.num_classes, D], D)
    elif m.family == "bert":
        p = "" if m.hf_class in (None, "BertModel") else "bert."
        e = p + "embeddings."
        t.append((e + "word_embeddings.weight", [V, D], "embedding", 0))
        t.append((e + "position_embeddings.weight", [m.max_seq_len, D], "embedding", 0))
        t.append((e + "token_type_embeddings.weight", [m.token_types, D], "embedding", 0))
        ln(e + "LayerNorm")
        for i in range(m.num_layers):
            h = "%sencoder.layer.%d." % (p, i)
            for n in ("query", "key", "value"):
                mat(h + "attention.self.%s.weight" % n, [D, D], D)
                vec(h + "attention.self.%s.bias" % n, D)
            mat(h + "attention.output.dense.weight", [D, D], D)
            vec(h + "attention.output.dense.bias", D)
            ln(h + "attention.output.LayerNorm")
            mat(h + "intermediate.dense.weight", [F, D], D)
            vec(h + "intermediate.dense.bias", F)
            mat(h + "output.dense.weight", [D, F], F)
            vec(h + "output.dense.bias", D)
            ln(h + "output.LayerNorm")
        if m.hf_class != "BertForMaskedLM":
            mat(p + "pooler.dense.weight", [D, D], D)
            vec(p + "pooler.dense.bias", D)
        if m.output == "classes":
            mat("classifier.weight", [m.num_classes, D], D)
            vec("classifier.bias", m.num_classes)
        if m.lm_transform:
            mat("cls.predictions.transform.dense.weight", [D, D], D)
            vec("cls.predictions.transform.dense.bias", D)
            ln("cls.predictions.transform.LayerNorm")
            vec("cls.predictions.bias", V)
            if not m.lm_tied:
                mat("cls.predictions.decoder.weight", [V, D], D)
    else:
        p = "" if m.hf_class and m.hf_class.endswith("Model") else "model."
        t.append((p + "embed_tokens.weight", [V, D], "embedding", 0))
        for i in range(m.num_layers):
            h = "%slayers.%d." % (p, i)
            vec(h + "input_layernorm.weight", D, "gamma")
            for n, rows in (("q", hq), ("k", hkv), ("v", hkv)):
                mat(h + "self_attn.%s_proj.weight" % n, [rows, D], D)
                if m.qkv_bias:
                    vec(h + "self_attn.%s_proj.bias" % n, rows)
            mat(h + "self_attn.o_proj.weight", [D, hq], hq)
            if m.o_bias:
                vec(h + "self_attn.o_proj.bias", D)
            vec(h + "post_attention_layernorm.weight", D, "gamma")
            for n in ("gate", "up"):
                mat(h + "mlp.%s_proj.weight" % n, [F, D], D)
                if m.ffn_bias:
                    vec(h + "mlp.%s_proj.bias" % n, F)
            mat(h + "mlp.down_proj.weight", [D, F], F)
            if m.ffn_bias:
                vec(h + "mlp.down_proj.bias", D)
        vec(p + "norm.weight", D, "gamma")
        if m.output == "logits" and not m.lm_tied:
            mat("lm_head.weight", [V, D], D)
        if m.output == "classes":
            mat("score.weight", [m.num_classes, D], D)
    return t


def _transpose(shape, vals):
    r, c = shape
    return [c, r], [vals[i * c + j] for j in range(c) for i in range(r)]


def hf_to_logical(m, st, where):
    """Translates HF tensors into tfm spec names (out_in layout)."""
    expected = {name: shape for name, shape, _, _ in hf_tensors(m)}
    # A file may come from another class of the family (GPT2Model instead of
    # GPT2LMHeadModel): accept the names with or without the base prefix.
    prefixes = {"gpt2": "transformer.", "bert": "bert.", "llama": "model.",
                "mistral": "model.", "qwen2": "model."}
    pre = prefixes[m.family]

    def get(name, optional=False):
        cands = [name]
        if name.startswith(pre):
            cands.append(name[len(pre):])
        else:
            cands.append(pre + name)
        for c in cands:
            if c in st:
                shape, vals = st[c]
                want = expected.get(name)
                if want is not None and list(shape) != want:
                    raise RefError("%s: tensor '%s' has shape %s, the config needs %s"
                                   % (where, c, list(shape), want))
                return shape, vals
        if optional:
            return None
        raise RefError("%s: tensor '%s' is missing" % (where, name))

    L = {}
    names = [n for n, _, _, _ in hf_tensors(m)]

    def find(suffix):
        for n in names:
            if n.endswith(suffix):
                return n
        raise RefError("internal: no HF tensor ending in %s" % suffix)

    if m.family == "gpt2":
        p = find("wte.weight")[:-len("wte.weight")]
        L["embed.tokens"] = get(p + "wte.weight")
        L["embed.positions"] = get(p + "wpe.weight")
        D = m.d_model
        for i in range(m.num_layers):
            h, o = "%sh.%d." % (p, i), "layers.%d." % i
            L[o + "attn_norm.weight"] = get(h + "ln_1.weight")
            L[o + "attn_norm.bias"] = get(h + "ln_1.bias")
            shape, w = _transpose(*get(h + "attn.c_attn.weight"))   # [3D, D]
            _, b = get(h + "attn.c_attn.bias")
            for k, n in enumerate("qkv"):
                L[o + "attn.%s.weight" % n] = ([D, D], w[k * D * D:(k + 1) * D * D])
                L[o + "attn.%s.bias" % n] = ([D], b[k * D:(k + 1) * D])
            L[o + "attn.o.weight"] = _transpose(*get(h + "attn.c_proj.weight"))
            L[o + "attn.o.bias"] = get(h + "attn.c_proj.bias")
            L[o + "ffn_norm.weight"] = get(h + "ln_2.weight")
            L[o + "ffn_norm.bias"] = get(h + "ln_2.bias")
            L[o + "ffn.up.weight"] = _transpose(*get(h + "mlp.c_fc.weight"))
            L[o + "ffn.up.bias"] = get(h + "mlp.c_fc.bias")
            L[o + "ffn.down.weight"] = _transpose(*get(h + "mlp.c_proj.weight"))
            L[o + "ffn.down.bias"] = get(h + "mlp.c_proj.bias")
        L["final_norm.weight"] = get(p + "ln_f.weight")
        L["final_norm.bias"] = get(p + "ln_f.bias")
        if m.output == "logits" and not m.lm_tied:
            L["lm_head.weight"] = get("lm_head.weight")
        if m.output == "classes":
            L["classifier.weight"] = get("score.weight")
    elif m.family == "bert":
        e = find("embeddings.word_embeddings.weight")[:-len("word_embeddings.weight")]
        p = e[:-len("embeddings.")]
        L["embed.tokens"] = get(e + "word_embeddings.weight")
        L["embed.positions"] = get(e + "position_embeddings.weight")
        L["embed.token_types"] = get(e + "token_type_embeddings.weight")
        L["embed.norm.weight"] = get(e + "LayerNorm.weight")
        L["embed.norm.bias"] = get(e + "LayerNorm.bias")
        for i in range(m.num_layers):
            h, o = "%sencoder.layer.%d." % (p, i), "layers.%d." % i
            for n, s in (("query", "q"), ("key", "k"), ("value", "v")):
                L[o + "attn.%s.weight" % s] = get(h + "attention.self.%s.weight" % n)
                L[o + "attn.%s.bias" % s] = get(h + "attention.self.%s.bias" % n)
            L[o + "attn.o.weight"] = get(h + "attention.output.dense.weight")
            L[o + "attn.o.bias"] = get(h + "attention.output.dense.bias")
            L[o + "attn_norm.weight"] = get(h + "attention.output.LayerNorm.weight")
            L[o + "attn_norm.bias"] = get(h + "attention.output.LayerNorm.bias")
            L[o + "ffn.up.weight"] = get(h + "intermediate.dense.weight")
            L[o + "ffn.up.bias"] = get(h + "intermediate.dense.bias")
            L[o + "ffn.down.weight"] = get(h + "output.dense.weight")
            L[o + "ffn.down.bias"] = get(h + "output.dense.bias")
            L[o + "ffn_norm.weight"] = get(h + "output.LayerNorm.weight")
            L[o + "ffn_norm.bias"] = get(h + "output.LayerNorm.bias")
        if m.output == "classes":
            L["pooler.weight"] = get(p + "pooler.dense.weight")
            L["pooler.bias"] = get(p + "pooler.dense.bias")
            L["classifier.weight"] = get("classifier.weight")
            L["classifier.bias"] = get("classifier.bias")
        if m.lm_transform:
            c = "cls.predictions."
            L["lm_transform.dense.weight"] = get(c + "transform.dense.weight")
            L["lm_transform.dense.bias"] = get(c + "transform.dense.bias")
            L["lm_transform.norm.weight"] = get(c + "transform.LayerNorm.weight")
            L["lm_transform.norm.bias"] = get(c + "transform.LayerNorm.bias")
            L["lm_head.bias"] = (get(c + "bias", optional=True)
                                 or get(c + "decoder.bias"))
            if not m.lm_tied:
                L["lm_head.weight"] = get(c + "decoder.weight")
    else:
        p = find("embed_tokens.weight")[:-len("embed_tokens.weight")]
        L["embed.tokens"] = get(p + "embed_tokens.weight")
        for i in range(m.num_layers):
            h, o = "%slayers.%d." % (p, i), "layers.%d." % i
            L[o + "attn_norm.weight"] = get(h + "input_layernorm.weight")
            for n in "qkvo":
                L[o + "attn.%s.weight" % n] = get(h + "self_attn.%s_proj.weight" % n)
                if (m.o_bias if n == "o" else m.qkv_bias):
                    L[o + "attn.%s.bias" % n] = get(h + "self_attn.%s_proj.bias" % n)
            L[o + "ffn_norm.weight"] = get(h + "post_attention_layernorm.weight")
            for n in ("gate", "up", "down"):
                L[o + "ffn.%s.weight" % n] = get(h + "mlp.%s_proj.weight" % n)
                if m.ffn_bias:
                    L[o + "ffn.%s.bias" % n] = get(h + "mlp.%s_proj.bias" % n)
        L["final_norm.weight"] = get(p + "norm.weight")
        if m.output == "logits" and not m.lm_tied:
            L["lm_head.weight"] = get("lm_head.weight")
        if m.output == "classes":
            L["classifier.weight"] = get("score.weight")
    return L


# ----- tfm specs (docs/spec.md, format "tfm-spec/1") ------------------------ #

_SPEC_MASKS = {"causal": "causal", "bidirectional": "none",
               "sliding_window": "sliding_window"}
_SPEC_ACTS = ("relu", "gelu", "gelu_tanh", "silu", "swiglu", "geglu")


def _obj(d, key, where, required=False):
    v = d.get(key)
    if v is None:
        if required:
            raise RefError("%s: missing field '%s'" % (where, key))
        return {}
    if not isinstance(v, dict):
        raise RefError("%s: field '%s' must be an object" % (where, key))
    return v


def _layer_override(entry, where):
    o = {}
    attn = _obj(entry, "attention", where)
    if "mask" in attn:
        o["mask"] = _SPEC_MASKS.get(attn["mask"])
        if o["mask"] is None:
            raise RefError("%s: attention.mask %r is not one of %s"
                           % (where, attn["mask"], ", ".join(_SPEC_MASKS)))
    if "window" in attn:
        o["window"] = attn["window"]
    ffn = _obj(entry, "ffn", where)
    if "hidden_size" in ffn:
        o["d_ff"] = ffn["hidden_size"]
    if "activation" in ffn:
        o["activation"] = _choice(ffn["activation"], _SPEC_ACTS, where, "ffn.activation")
    if "bias" in ffn:
        o["ffn_bias"] = bool(ffn["bias"])
    return o


def model_from_spec(spec, where):
    fmt = spec.get("format")
    if fmt is not None and fmt != "tfm-spec/1":
        raise RefError("%s: format %r is not supported (tfm-spec/1)" % (where, fmt))
    m = Model()
    m.source = "spec"
    m.name = spec.get("name", "model")
    m.architecture = _choice(_need(spec, "architecture", where),
                             ("encoder", "decoder", "encoder_decoder"), where,
                             "architecture")
    m.vocab_size = _need(spec, "vocab_size", where, int)
    m.d_model = _need(spec, "d_model", where, int)
    m.num_heads = _need(spec, "num_heads", where, int)
    m.num_kv_heads = spec.get("num_kv_heads") or m.num_heads
    m.head_dim = spec.get("head_dim") or m.d_model // m.num_heads
    m.max_seq_len = _need(spec, "max_seq_len", where, int)
    m.dtype = _choice(spec.get("dtype", "f32"), ("f32", "f16", "bf16"), where, "dtype")

    norm = _obj(spec, "norm", where, required=True)
    m.norm = _choice(_need(norm, "kind", where + ": norm"), ("layernorm", "rmsnorm"),
                     where, "norm.kind")
    m.norm_eps = float(norm.get("eps", 1e-5))
    m.norm_bias = bool(norm.get("bias", m.norm == "layernorm"))
    m.norm_placement = _choice(norm.get("placement", "pre"), ("pre", "post"), where,
                               "norm.placement")
    m.final_norm = bool(spec.get("final_norm", m.norm_placement == "pre"))

    emb = _obj(spec, "embedding", where)
    scale = _choice(emb.get("scale", "none"), ("none", "sqrt_d_model"), where,
                    "embedding.scale")
    m.embed_scale = math.sqrt(m.d_model) if scale == "sqrt_d_model" else 1.0
    m.embed_norm = bool(emb.get("norm", False))
    m.token_types = int(emb.get("token_types", 0))

    pos = _obj(spec, "positions", where, required=True)
    m.positions = _choice(_need(pos, "kind", where + ": positions"),
                          ("none", "sinusoidal", "learned", "rope", "alibi"), where,
                          "positions.kind")
    if m.positions == "rope":
        m.rope_theta = float(pos.get("theta", 10000.0))
        m.rope_scaling = float(pos.get("scaling_factor", 1.0))
        m.rope_style = _choice(pos.get("style", "rotate_half"),
                               ("rotate_half", "interleaved"), where, "positions.style")
        m.rotary_dim = pos.get("rotary_dim")

    attn = _obj(spec, "attention", where)
    default_mask = "none" if m.architecture == "encoder" else "causal"
    m.mask = _SPEC_MASKS.get(attn.get("mask"), default_mask) if "mask" in attn \
        else default_mask
    if "mask" in attn and attn["mask"] not in _SPEC_MASKS:
        raise RefError("%s: attention.mask %r is not one of %s"
                       % (where, attn["mask"], ", ".join(_SPEC_MASKS)))
    m.window = attn.get("window")
    m.qkv_bias = bool(attn.get("qkv_bias", False))
    m.o_bias = bool(attn.get("out_bias", False))

    ffn = _obj(spec, "ffn", where, required=True)
    m.d_ff = _need(ffn, "hidden_size", where + ": ffn", int)
    m.activation = _choice(_need(ffn, "activation", where + ": ffn"), _SPEC_ACTS,
                           where, "ffn.activation")
    m.ffn_bias = bool(ffn.get("bias", False))

    if m.architecture == "encoder_decoder":
        m.num_encoder_layers = _need(spec, "encoder_layers", where, int)
        m.num_decoder_layers = _need(spec, "decoder_layers", where, int)
        stacks = [(False, _obj(spec, "encoder", where), "encoder"),
                  (True, _obj(spec, "decoder", where), "decoder")]
    else:
        m.num_layers = _need(spec, "num_layers", where, int)
        stacks = [(m.architecture == "decoder", spec, "")]
    for dec, container, label in stacks:
        entries = container.get("layers") or []
        for i, entry in enumerate(entries):
            path = "%s: %slayers[%d]" % (where, label + "." if label else "", i)
            if not isinstance(entry, dict):
                raise RefError("%s: expected an object" % path)
            o = _layer_override(entry, path)
            if o.get("mask", "sliding_window") != "sliding_window":
                o["window"] = None
            m.layer_overrides[(dec, i)] = o

    m.lm_tied = bool(spec.get("tie_embeddings", False))
    head = _obj(spec, "head", where, required=True)
    kind = _choice(_need(head, "kind", where + ": head"), ("lm", "classifier", "none"),
                   where, "head.kind")
    if kind == "lm":
        m.output = "logits"
        m.lm_bias = bool(head.get("bias", False))
    elif kind == "classifier":
        m.output = "classes"
        m.num_classes = _need(head, "num_classes", where + ": head", int)
        m.pooling = _choice(head.get("pooling", "first" if m.architecture == "encoder"
                                     else "last"), ("first", "last"), where,
                            "head.pooling")
        m.pooler = bool(head.get("pooler", False))
        m.classifier_bias = bool(head.get("bias", True))
    else:
        m.output = "hidden"
    return _check_model(m, where)


def load_model(path):
    """A Model from a spec, a config.json or a folder holding config.json."""
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    try:
        with open(path, encoding="utf-8") as f:
            d = json.load(f)
    except OSError as e:
        raise RefError("%s: cannot read: %s" % (path, e.strerror))
    except ValueError as e:
        raise RefError("%s: not valid JSON: %s" % (path, e))
    if not isinstance(d, dict):
        raise RefError("%s: expected a JSON object" % path)
    if "model_type" in d:
        return model_from_hf(d, path)
    if "architecture" in d:
        return model_from_spec(d, path)
    raise RefError("%s: neither a tfm spec (no 'architecture') nor a Hugging Face "
                   "config (no 'model_type')" % path)


# ----- tfm spec tensors ----------------------------------------------------- #

def spec_tensors(m):
    """[(name, shape, init kind, fan_in)] with the names of docs/architecture.md."""
    D, V, dh = m.d_model, m.vocab_size, m.head_dim
    hq, hkv = m.num_heads * dh, m.num_kv_heads * dh
    t = []

    def lin(name, out, inp, bias):
        t.append((name + ".weight", [out, inp], "matrix", inp))
        if bias:
            t.append((name + ".bias", [out], "bias", 0))

    def norm(name):
        t.append((name + ".weight", [D], "gamma", 0))
        if m.norm == "layernorm" and m.norm_bias:
            t.append((name + ".bias", [D], "beta", 0))

    t.append(("embed.tokens", [V, D], "embedding", 0))
    if m.positions == "learned":
        t.append(("embed.positions", [m.max_seq_len, D], "embedding", 0))
    if m.token_types:
        t.append(("embed.token_types", [m.token_types, D], "embedding", 0))
    if m.embed_norm:
        norm("embed.norm")
    for prefix, n, dec in m.stacks():
        for i in range(n):
            s = m.layer(dec, i)
            b = "%slayers.%d." % (prefix, i)
            norm(b + "attn_norm")
            lin(b + "attn.q", hq, D, m.qkv_bias)
            lin(b + "attn.k", hkv, D, m.qkv_bias)
            lin(b + "attn.v", hkv, D, m.qkv_bias)
            lin(b + "attn.o", D, hq, m.o_bias)
            if m.architecture == "encoder_decoder" and dec:
                norm(b + "cross_attn_norm")
                lin(b + "cross_attn.q", hq, D, m.qkv_bias)
                lin(b + "cross_attn.k", hkv, D, m.qkv_bias)
                lin(b + "cross_attn.v", hkv, D, m.qkv_bias)
                lin(b + "cross_attn.o", D, hq, m.o_bias)
            norm(b + "ffn_norm")
            lin(b + "ffn.up", s["d_ff"], D, s["ffn_bias"])
            if s["activation"] in ("swiglu", "geglu"):
                lin(b + "ffn.gate", s["d_ff"], D, s["ffn_bias"])
            lin(b + "ffn.down", D, s["d_ff"], s["ffn_bias"])
        if m.final_norm:
            norm(prefix + "final_norm")
    if m.output == "logits":
        if not m.lm_tied:
            t.append(("lm_head.weight", [V, D], "matrix", D))
        if m.lm_bias:
            t.append(("lm_head.bias", [V], "bias", 0))
    if m.output == "classes":
        if m.pooler:
            lin("pooler", D, D, True)
        lin("classifier", m.num_classes, D, m.classifier_bias)
    return t


def file_tensors(m):
    return hf_tensors(m) if m.source == "hf" else spec_tensors(m)


def logical_weights(m, st, where):
    """Tensors by tfm spec name, checked against the model's needs."""
    if m.source == "hf":
        return hf_to_logical(m, st, where)
    out = {}
    for name, shape, _, _ in spec_tensors(m):
        if name not in st:
            raise RefError("%s: tensor '%s' is missing" % (where, name))
        if list(st[name][0]) != shape:
            raise RefError("%s: tensor '%s' has shape %s, the spec needs %s"
                           % (where, name, list(st[name][0]), shape))
        out[name] = st[name]
    return out


class Params:
    """Access to logical weights as rows (matrices) or lists (vectors)."""

    def __init__(self, tensors):
        self._t = tensors
        self._cache = {}

    def has(self, name):
        return name in self._t

    def vec(self, name):
        return self._t[name][1]

    def opt_vec(self, name):
        return self._t[name][1] if name in self._t else None

    def round_gemm_weights(self):
        """Rounds (to the precision) every matrix that linear() has read."""
        names = [n for n, rows in self._cache.items()
                 if id(rows) in _ROUNDED_WEIGHTS]
        for n in names:
            shape, vals = self._t[n]
            self._t[n] = (shape, [round16(v) for v in vals])
            del self._cache[n]
        _ROUNDED_WEIGHTS.clear()

    def mat(self, name):
        if name not in self._cache:
            shape, vals = self._t[name]
            r, c = shape
            self._cache[name] = [vals[i * c:(i + 1) * c] for i in range(r)]
        return self._cache[name]


# ===----------------------------------------------------------------------=== #
# Forward pass
# ===----------------------------------------------------------------------=== #

def _norm_rows(m, P, name, rows):
    g = P.vec(name + ".weight")
    if m.norm == "rmsnorm":
        return [rms_norm(r, g, m.norm_eps) for r in rows]
    b = P.opt_vec(name + ".bias")
    return [layer_norm(r, g, b, m.norm_eps) for r in rows]


def _embed(m, P, ids):
    tok = P.mat("embed.tokens")
    x = []
    for t, i in enumerate(ids):
        if not 0 <= i < m.vocab_size:
            raise RefError("token id %d at position %d is outside [0, %d)"
                           % (i, t, m.vocab_size))
        r = tok[i]
        if m.embed_scale != 1.0:
            r = [v * m.embed_scale for v in r]
        x.append(list(r))
    if len(ids) > m.max_seq_len:
        raise RefError("sequence of %d tokens exceeds max_seq_len %d"
                       % (len(ids), m.max_seq_len))
    if m.token_types:
        tt = P.mat("embed.token_types")[0]
        x = [vadd(r, tt) for r in x]
    if m.positions == "learned":
        pos = P.mat("embed.positions")
        x = [vadd(r, pos[t]) for t, r in enumerate(x)]
    elif m.positions == "sinusoidal":
        x = [vadd(r, sinusoidal(t, m.d_model)) for t, r in enumerate(x)]
    if m.embed_norm:
        x = _norm_rows(m, P, "embed.norm", x)
    return x


def _attention_block(m, P, name, x, kv, key_length, mask, window, self_attn, scale):
    bias = lambda n: P.opt_vec(n + ".bias")
    q = linear(x, P.mat(name + ".q.weight"), bias(name + ".q"))
    k = linear(kv, P.mat(name + ".k.weight"), bias(name + ".k"))
    v = linear(kv, P.mat(name + ".v.weight"), bias(name + ".v"))
    qh, kh, vh = split_heads(q, m.num_heads), split_heads(k, m.num_kv_heads), \
        split_heads(v, m.num_kv_heads)
    slopes = None
    if self_attn and m.positions == "rope":
        tq, tk = len(x), len(kv)
        qpos, kpos = list(range(tk - tq, tk)), list(range(tk))
        qh = [rope(h, qpos, m.rope_theta, m.rope_scaling, m.rope_style, m.rotary_dim)
              for h in qh]
        kh = [rope(h, kpos, m.rope_theta, m.rope_scaling, m.rope_style, m.rotary_dim)
              for h in kh]
    if self_attn and m.positions == "alibi":
        slopes = alibi_slopes(m.num_heads)
    o = attention(qh, kh, vh, scale, mask, window, key_length, slopes)
    return linear(merge_heads(o), P.mat(name + ".o.weight"), bias(name + ".o"))


def _ffn(P, name, x, act):
    bias = lambda n: P.opt_vec(n + ".bias")
    up = linear(x, P.mat(name + ".up.weight"), bias(name + ".up"))
    if act in ("swiglu", "geglu"):
        f = _silu if act == "swiglu" else _gelu
        gate = linear(x, P.mat(name + ".gate.weight"), bias(name + ".gate"))
        h = [[f(g) * u for g, u in zip(gr, ur)] for gr, ur in zip(gate, up)]
    else:
        f = ACTIVATIONS[act]
        h = [[f(u) for u in ur] for ur in up]
    return linear(h, P.mat(name + ".down.weight"), bias(name + ".down"))


def _stack(m, P, prefix, n, decoder_stack, x, length, memory=None, memory_length=None):
    base_scale = m.attn_scale if m.attn_scale is not None else 1.0 / math.sqrt(m.head_dim)
    pre = m.norm_placement == "pre"
    for i in range(n):
        s = m.layer(decoder_stack, i)
        b = "%slayers.%d." % (prefix, i)
        scale = base_scale / (i + 1) if m.layer_scale_div else base_scale

        def self_attn(h):
            return _attention_block(m, P, b + "attn", h, h, length, s["mask"],
                                    s["window"], True, scale)

        def cross_attn(h):
            return _attention_block(m, P, b + "cross_attn", h, memory, memory_length,
                                    "none", None, False, base_scale)

        def ffn(h):
            return _ffn(P, b + "ffn", h, s["activation"])

        blocks = [("attn_norm", self_attn)]
        if memory is not None:
            blocks.append(("cross_attn_norm", cross_attn))
        blocks.append(("ffn_norm", ffn))
        for norm_name, fn in blocks:
            if pre:
                y = fn(_norm_rows(m, P, b + norm_name, x))
                x = [vadd(a, c) for a, c in zip(x, y)]
            else:
                y = fn(x)
                x = _norm_rows(m, P, b + norm_name, [vadd(a, c) for a, c in zip(x, y)])
    if m.final_norm:
        x = _norm_rows(m, P, prefix + "final_norm", x)
    return x


def _head(m, P, x, length):
    if m.output == "hidden":
        return x
    if m.output == "classes":
        if m.pooling == "first":
            p = x[0]
        else:
            last = length if length is not None else len(x)
            if last < 1:
                raise RefError("pooling 'last' needs a sequence of at least one token")
            p = x[last - 1]
        if m.pooler:
            p = [math.tanh(v) for v in linear([p], P.mat("pooler.weight"),
                                               P.vec("pooler.bias"))[0]]
        return linear([p], P.mat("classifier.weight"), P.opt_vec("classifier.bias"))[0]
    if m.lm_transform:
        act = ACTIVATIONS[m.activation]
        x = linear(x, P.mat("lm_transform.dense.weight"), P.vec("lm_transform.dense.bias"))
        x = [[act(v) for v in r] for r in x]
        x = [layer_norm(r, P.vec("lm_transform.norm.weight"),
                        P.vec("lm_transform.norm.bias"), m.norm_eps) for r in x]
    w = P.mat("embed.tokens") if m.lm_tied else P.mat("lm_head.weight")
    return linear(x, w, P.opt_vec("lm_head.bias"))


def forward(m, P, ids, lengths=None, dec_ids=None, dec_lengths=None):
    """ids: [B][T] ints. Returns nested lists: [B][T][V|D] or [B][C]."""
    out = []
    for b, seq in enumerate(ids):
        length = lengths[b] if lengths is not None else len(seq)
        if not 0 <= length <= len(seq):
            raise RefError("lengths[%d] = %d is outside [0, %d]" % (b, length, len(seq)))
        if m.architecture == "encoder_decoder":
            if dec_ids is None:
                raise RefError("an encoder_decoder model needs --decoder-tokens")
            tgt = dec_ids[b]
            tlen = dec_lengths[b] if dec_lengths is not None else len(tgt)
            if not 0 <= tlen <= len(tgt):
                raise RefError("decoder lengths[%d] = %d is outside [0, %d]"
                               % (b, tlen, len(tgt)))
            (ep, en, _), (dp, dn, _) = m.stacks()
            mem = _stack(m, P, ep, en, False, _embed(m, P, seq), length)
            x = _stack(m, P, dp, dn, True, _embed(m, P, tgt), tlen, mem, length)
            out.append(_head(m, P, x, tlen))
        else:
            prefix, n, dec = m.stacks()[0]
            x = _stack(m, P, prefix, n, dec, _embed(m, P, seq), length)
            out.append(_head(m, P, x, length))
    return out


# ===----------------------------------------------------------------------=== #
# Command line
# ===----------------------------------------------------------------------=== #

def init_values(name, shape, kind, fan_in, seed, scale):
    """Deterministic values for one tensor: each tensor has its own PRNG,
    seeded from (seed, name), so adding a tensor changes no other."""
    rng = random.Random("tfm_ref:%d:%s" % (seed, name))
    n = _prod(shape)
    if kind == "gamma":
        return [1.0 + 0.1 * rng.uniform(-1.0, 1.0) for _ in range(n)]
    if kind in ("beta", "bias"):
        return [0.1 * scale * rng.uniform(-1.0, 1.0) for _ in range(n)]
    if kind == "embedding":
        return [rng.gauss(0.0, scale) for _ in range(n)]
    std = scale / math.sqrt(fan_in)
    return [rng.gauss(0.0, std) for _ in range(n)]


def cmd_init(args):
    m = load_model(args.model)
    dtype = (args.dtype or m.dtype).upper()
    tensors = []
    for name, shape, kind, fan_in in file_tensors(m):
        tensors.append((name, shape, init_values(name, shape, kind, fan_in,
                                                 args.seed, args.scale)))
    write_safetensors(args.out, tensors, dtype)
    return 0


def cmd_tensors(args):
    m = load_model(args.model)
    print("# %s: %s, output %s" % (m.name, m.architecture, m.output))
    for name, shape, _, _ in file_tensors(m):
        print("%s %s" % (name, "x".join(str(s) for s in shape)))
    return 0


def cmd_tokens(args):
    m = load_model(args.model)
    if args.batch < 1 or args.seq < 1:
        raise RefError("--batch and --seq must be positive")
    if args.seq > m.max_seq_len:
        raise RefError("--seq %d exceeds the model's max_seq_len %d"
                       % (args.seq, m.max_seq_len))
    rng = random.Random("tfm_ref-tokens:%d" % args.seed)
    ids = [rng.randrange(m.vocab_size) for _ in range(args.batch * args.seq)]
    write_npy(args.out, [args.batch, args.seq], ids, "<i4")
    if args.lengths_out:
        if args.ragged:
            # The first sequence is full, so the batch really has length T.
            lengths = [args.seq] + [rng.randint(1, args.seq)
                                    for _ in range(args.batch - 1)]
        else:
            lengths = [args.seq] * args.batch
        write_npy(args.lengths_out, [args.batch], lengths, "<i4")
    elif args.ragged:
        raise RefError("--ragged needs --lengths-out")
    return 0


def _read_ids(path, what):
    shape, vals, descr = read_npy(path)
    if descr not in ("<i4", "<i8"):
        raise RefError("%s: %s must be int32 or int64, got %s" % (path, what, descr))
    if len(shape) != 2:
        raise RefError("%s: %s must be [batch, seq], got shape %s" % (path, what, list(shape)))
    b, t = shape
    return [vals[i * t:(i + 1) * t] for i in range(b)]


def _read_lengths(path, batch, what):
    if path is None:
        return None
    shape, vals, descr = read_npy(path)
    if descr not in ("<i4", "<i8"):
        raise RefError("%s: %s must be int32 or int64, got %s" % (path, what, descr))
    if list(shape) != [batch]:
        raise RefError("%s: %s must have shape [%d], got %s" % (path, what, batch, list(shape)))
    return vals


def reference(args):
    """(model, nested output, lengths of the rows that are compared)."""
    set_precision(args.precision)
    m = load_model(args.model)
    st = read_safetensors(args.weights)
    P = Params(logical_weights(m, st, args.weights))
    ids = _read_ids(args.tokens, "tokens")
    lengths = _read_lengths(args.lengths, len(ids), "lengths")
    dec_ids = dec_lengths = None
    if args.decoder_tokens:
        dec_ids = _read_ids(args.decoder_tokens, "decoder tokens")
        if len(dec_ids) != len(ids):
            raise RefError("%s: %d decoder sequences for %d encoder sequences"
                           % (args.decoder_tokens, len(dec_ids), len(ids)))
        dec_lengths = _read_lengths(args.decoder_lengths, len(ids), "decoder lengths")
    elif m.architecture == "encoder_decoder":
        raise RefError("%s: an encoder_decoder model needs --decoder-tokens" % args.model)
    out = forward(m, P, ids, lengths, dec_ids, dec_lengths)
    if _PRECISION:
        # A weight that a GEMM reads is rounded when tfm loads it, for every
        # use (a tied embedding table is looked up rounded too): find those
        # names in a first pass, round them, run again.
        P.round_gemm_weights()
        out = forward(m, P, ids, lengths, dec_ids, dec_lengths)
    row_lengths = dec_lengths if m.architecture == "encoder_decoder" else lengths
    return m, out, row_lengths


def _flatten(out):
    shape = []
    x = out
    while isinstance(x, list):
        shape.append(len(x))
        x = x[0] if x else None
    flat = out
    for _ in range(len(shape) - 1):
        flat = [v for sub in flat for v in sub]
    return shape, flat


def cmd_run(args):
    _, out, _ = reference(args)
    shape, flat = _flatten(out)
    write_npy(args.out, shape, flat, "<f8")
    return 0


def compare(ref_shape, ref, act_shape, act, row_lengths, rtol, atol, out=sys.stdout):
    """Compares row by row (a row is the last axis: one position's logits or
    hidden state, or one sequence's class scores). Rows at positions
    t >= length of [B, T, X] outputs are skipped. Passes when every compared
    element has |actual - ref| <= atol + rtol * max|ref row|."""
    if list(ref_shape) != list(act_shape):
        print("FAIL: output shape %s differs from the reference shape %s"
              % (list(act_shape), list(ref_shape)), file=out)
        return False
    width = ref_shape[-1]
    nrows = len(ref) // width if width else 0
    worst_abs, worst_rel, worst = (0.0, None), (0.0, None), None
    compared = 0
    for r in range(nrows):
        if len(ref_shape) == 3:
            b, t = divmod(r, ref_shape[1])
            if row_lengths is not None and t >= row_lengths[b]:
                continue
            prefix = [b, t]
        else:
            prefix = [r]
        compared += 1
        rr = ref[r * width:(r + 1) * width]
        ar = act[r * width:(r + 1) * width]
        rowmax = max(abs(v) for v in rr)
        tol = atol + rtol * rowmax
        for c in range(width):
            a, e = ar[c], rr[c]
            err = abs(a - e)
            if err != err:  # NaN
                err = float("inf")
            rel = err / rowmax if rowmax > 0 else (0.0 if err == 0 else float("inf"))
            if worst_abs[1] is None or err > worst_abs[0]:
                worst_abs = (err, prefix + [c])
            if worst_rel[1] is None or rel > worst_rel[0]:
                worst_rel = (rel, prefix + [c])
            ratio = err / tol if tol > 0 else (0.0 if err == 0 else float("inf"))
            if worst is None or ratio > worst[0]:
                worst = (ratio, prefix + [c], a, e, err, rowmax, tol)
    print("compared %d of %d rows of %d values (shape %s)%s"
          % (compared, nrows, width, list(ref_shape),
             ", positions >= length skipped" if compared != nrows else ""), file=out)
    if compared == 0:
        print("FAIL: nothing to compare (every length is 0)", file=out)
        return False
    print("max abs error %.3e at %s" % worst_abs, file=out)
    print("max rel error %.3e at %s (error / max |reference| of its row)" % worst_rel,
          file=out)
    ratio, idx, a, e, err, rowmax, tol = worst
    if not ratio <= 1.0:
        print("FAIL: element %s: actual %.9g, reference %.9g, error %.3e exceeds "
              "atol + rtol * max|row| = %.1e + %.1e * %.3e = %.3e"
              % (idx, a, e, err, atol, rtol, rowmax, tol), file=out)
        return False
    print("PASS (rtol %.1e, atol %.1e)" % (rtol, atol), file=out)
    return True


def cmd_check(args):
    m, out, row_lengths = reference(args)
    ref_shape, ref = _flatten(out)
    act_shape, act, descr = read_npy(args.actual)
    if descr not in ("<f4", "<f8"):
        raise RefError("%s: expected float32 output, got %s" % (args.actual, descr))
    if m.output == "classes":
        row_lengths = None
    ok = compare(ref_shape, ref, act_shape, act, row_lengths, args.rtol, args.atol)
    sys.stdout.flush()
    if not ok:
        print("tfm_ref: %s does not match the float64 reference of %s"
              % (args.actual, args.model), file=sys.stderr)
    return 0 if ok else 1


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="tfm_ref.py",
        description="Independent float64 reference forward pass for tfm specs and "
                    "Hugging Face configs (gpt2, bert, llama, mistral, qwen2).")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("init", help="write deterministic random weights")
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--dtype", choices=["f32", "f16", "bf16"],
                   help="storage dtype (default: the spec's dtype, else f32)")
    p.add_argument("--scale", type=float, default=1.0,
                   help="multiplies the spread of every random tensor but the "
                        "norm gammas (default 1)")
    p.set_defaults(fn=cmd_init)

    p = sub.add_parser("tensors", help="list the tensors a weights file must hold")
    p.add_argument("model")
    p.set_defaults(fn=cmd_tensors)

    p = sub.add_parser("tokens", help="write random int32 token ids [B, T]")
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--seq", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--lengths-out", help="also write int32 lengths [B]")
    p.add_argument("--ragged", action="store_true",
                   help="random lengths in [1, T] (the first sequence is full)")
    p.set_defaults(fn=cmd_tokens)

    for name, fn, hlp in (("run", cmd_run, "write the float64 reference output"),
                          ("check", cmd_check, "compare an output with the reference")):
        p = sub.add_parser(name, help=hlp)
        p.add_argument("model")
        p.add_argument("weights")
        p.add_argument("tokens")
        if name == "check":
            p.add_argument("actual")
        p.add_argument("--lengths")
        p.add_argument("--decoder-tokens")
        p.add_argument("--decoder-lengths")
        p.add_argument("--precision", choices=["f32", "bf16", "f16"], default="f32",
                       help="round every GEMM and attention input to this "
                            "precision, as tfmc --precision does")
        if name == "run":
            p.add_argument("--out", required=True)
        else:
            p.add_argument("--rtol", type=float, default=1e-4)
            p.add_argument("--atol", type=float, default=1e-6)
        p.set_defaults(fn=fn)

    args = ap.parse_args(argv)
    try:
        return args.fn(args)
    except RefError as e:
        print("tfm_ref: error: %s" % e, file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `tfm_ref.py tensors X | head`
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    sys.exit(main())
