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
#   pixels MODEL OUT.npy --batch B --seed N   (image models: float32 [B,C,H,W])
#   run    MODEL WEIGHTS TOKENS.npy [--lengths L.npy] [--decoder-tokens D.npy]
#          [--decoder-lengths DL.npy] --out REF.npy
#   check  MODEL WEIGHTS TOKENS.npy ACTUAL.npy [--lengths ...]
#          [--decoder-tokens ...] [--decoder-lengths ...] [--rtol R] [--atol A]
#
# MODEL is a tfm spec (JSON with "architecture") or a Hugging Face config.json
# (JSON with "model_type"), or a folder holding config.json. Hugging Face
# families: gpt2, bert, roberta, distilbert, llama, mistral, qwen2, qwen3,
# gemma, phi3, t5, vit (RoPE scaling default, linear, llama3, yarn,
# longrope). For a vit, run and check take the pixels .npy in the place of
# TOKENS.npy.
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


def rms_norm(x, gamma, eps, offset=0.0):
    """x / sqrt(mean(x^2) + eps) * (offset + gamma); Gemma stores gamma - 1
    (offset 1)."""
    r = 1.0 / math.sqrt(sum(v * v for v in x) / len(x) + eps)
    if offset:
        return [v * r * (offset + g) for v, g in zip(x, gamma)]
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


def gated_base(act):
    """The activation applied to the gate of a gated FFN activation
    (act(gate) * up), or None for a plain one: swiglu = silu, geglu = gelu
    (erf), and gated_<name> for any name of ACTIVATIONS."""
    if act == "swiglu":
        return "silu"
    if act == "geglu":
        return "gelu"
    if act.startswith("gated_"):
        return act[len("gated_"):]
    return None


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
    """The dialect's visibility rule (tfm.attention / tfm.make_mask).
    key_length: keys j >= key_length are padding; or a list of booleans,
    Hugging Face's attention_mask of the keys (any pattern)."""
    if isinstance(key_length, list):
        if not key_length[j]:
            return False
    elif key_length is not None and j >= key_length:
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


def rope(x, positions, theta, scaling=1.0, style="rotate_half", rotary_dim=None,
         inv_freq=None, attn_factor=1.0):
    """x: [T][D] one head; rotates feature pairs i < R/2 by the angle
    t/scaling * theta^(-2i/R), or t * inv_freq[i] when inv_freq is given
    (rope_frequencies). attn_factor multiplies cos and sin (so the rotated
    features, not the features past R)."""
    d = len(x[0]) if x else 0
    r = d if rotary_dim is None else rotary_dim
    half = r // 2
    if inv_freq is None:
        inv = [theta ** (-2.0 * i / r) for i in range(half)]
    else:
        if len(inv_freq) != half:
            raise RefError("internal: %d inverse frequencies for rotary dim %d"
                           % (len(inv_freq), r))
        inv = inv_freq
    out = []
    for row, t in zip(x, positions):
        y = list(row)
        p = t / scaling if inv_freq is None else t
        for i in range(half):
            a = p * inv[i]
            c, s = math.cos(a), math.sin(a)
            if attn_factor != 1.0:
                c, s = c * attn_factor, s * attn_factor
            if style == "rotate_half":
                i1, i2 = i, i + half
            else:
                i1, i2 = 2 * i, 2 * i + 1
            x1, x2 = row[i1], row[i2]
            y[i1] = x1 * c - x2 * s
            y[i2] = x2 * c + x1 * s
        out.append(y)
    return out


ROPE_TYPES = ("default", "linear", "llama3", "yarn", "longrope")


def rope_frequencies(kind, dim, theta, p):
    """The inverse frequencies of RoPE scaling type `kind` over rotary dim
    `dim` (even): a dict with "short" (the list used by default), "long" and
    "switch" (longrope: "long" is used by a sequence whose position offset +
    token count exceeds "switch"), and "attn_factor", the factor that
    multiplies cos and sin. p holds the type's parameters, already resolved
    (see _hf_rope): factor, original_max_position_embeddings, ... The
    formulas are those of the RoPE scaling papers as Hugging Face
    transformers implements them (modeling_rope_utils.py)."""
    half = dim // 2
    base = [theta ** (-2.0 * i / dim) for i in range(half)]   # 1 / theta^(2i/R)
    out = {"short": base, "long": None, "switch": None, "attn_factor": 1.0}
    if kind == "default":
        return out
    if kind == "linear":
        # Position interpolation: every frequency divided by the factor.
        out["short"] = [f / p["factor"] for f in base]
        return out
    if kind == "llama3":
        # Llama 3.1: wavelengths 2 pi / f above orig / low_freq_factor are
        # divided by the factor, those below orig / high_freq_factor kept,
        # and those between blended with s = (orig / wavelength - low) /
        # (high - low): (1 - s) f / factor + s f.
        factor, orig = p["factor"], p["original_max_position_embeddings"]
        low, high = p["low_freq_factor"], p["high_freq_factor"]
        low_wl, high_wl = orig / low, orig / high
        freqs = []
        for f in base:
            wl = 2.0 * math.pi / f
            if wl > low_wl:
                freqs.append(f / factor)
            elif wl < high_wl:
                freqs.append(f)
            else:
                s = (orig / wl - low) / (high - low)
                freqs.append((1.0 - s) * f / factor + s * f)
        out["short"] = freqs
        return out
    if kind == "yarn":
        # YaRN (Peng et al. 2023): interpolated frequencies f / factor and
        # extrapolated ones f, blended by a linear ramp over the dimension
        # index between the correction dims of beta_fast and beta_slow
        # rotations; cos and sin scaled by 0.1 ln(factor) + 1 (or the mscale
        # ratio, or the given attention_factor).
        factor, orig = p["factor"], p["original_max_position_embeddings"]

        def mscale(scale, m=1.0):
            return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

        af = p.get("attention_factor")
        if af is None:
            ms, msa = p.get("mscale"), p.get("mscale_all_dim")
            af = mscale(factor, ms) / mscale(factor, msa) if ms and msa else mscale(factor)
        beta_fast = p.get("beta_fast") or 32
        beta_slow = p.get("beta_slow") or 1

        def correction_dim(rotations):
            return dim * math.log(orig / (rotations * 2.0 * math.pi)) / (2.0 * math.log(theta))

        lo, hi = correction_dim(beta_fast), correction_dim(beta_slow)
        if p.get("truncate", True):
            lo, hi = math.floor(lo), math.ceil(hi)
        lo, hi = max(lo, 0), min(hi, dim - 1)
        if lo == hi:
            hi += 0.001
        freqs = []
        for i, f in enumerate(base):
            ramp = min(max((i - lo) / (hi - lo), 0.0), 1.0)
            extra = 1.0 - ramp     # weight of the extrapolated frequency
            freqs.append(f / factor * (1.0 - extra) + f * extra)
        out["short"], out["attn_factor"] = freqs, float(af)
        return out
    if kind == "longrope":
        # LongRoPE (Phi-3): per-frequency rescale factors, short_factor for
        # sequences within original_max_position_embeddings, long_factor
        # past it; cos and sin scaled by sqrt(1 + ln(factor) / ln(orig)).
        factor, orig = p["factor"], p["original_max_position_embeddings"]
        af = p.get("attention_factor")
        if af is None:
            af = 1.0 if factor <= 1.0 else math.sqrt(1.0 + math.log(factor) / math.log(orig))
        out["short"] = [f / e for f, e in zip(base, p["short_factor"])]
        out["long"] = [f / e for f, e in zip(base, p["long_factor"])]
        out["switch"], out["attn_factor"] = orig, float(af)
        return out
    raise RefError("internal: unknown rope type %r" % kind)


def t5_bucket(rel, bidirectional, num_buckets, max_distance):
    """The T5 relative position bucket of rel = key position - query
    position (Raffel et al. 2020, mesh-tensorflow): bidirectional, half the
    buckets are for rel > 0; unidirectional, rel > 0 counts as 0. Of the n
    buckets left, distances below n/2 get one bucket each, larger ones
    n/2 + floor(ln(d / (n/2)) / ln(max_distance / (n/2)) * (n - n/2)),
    capped at n - 1."""
    bucket = 0
    n = num_buckets
    if bidirectional:
        n //= 2
        if rel > 0:
            bucket += n
        d = abs(rel)
    else:
        d = -min(rel, 0)
    exact = n // 2
    if d < exact:
        return bucket + d
    large = exact + int(math.log(d / exact) / math.log(max_distance / exact) * (n - exact))
    return bucket + min(large, n - 1)


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
        self.norm_offset = 0.0         # rmsnorm scale offset + gamma (Gemma: 1)
        self.norm_eps = 1e-5
        self.norm_bias = True
        self.norm_placement = "pre"    # pre | post
        self.final_norm = True
        self.embed_norm = False
        self.embed_scale = 1.0
        self.token_types = 0           # rows of embed.token_types (0 = none)
        self.positions = "learned"     # learned | sinusoidal | rope | alibi | none
        self.position_offset = 0       # learned: row of position t is t + offset
        self.position_rows = 0         # rows of the position table (0: max_seq_len)
        self.pad_token_id = None       # RoBERTa: its padding_idx
        self.rope_theta = 10000.0
        self.rope_scaling = 1.0
        self.rope_style = "rotate_half"
        self.rotary_dim = None
        self.rope_type = "default"
        self.rope_tables = None        # HF: rope_frequencies() of the config
        self.qk_norm = False           # RMSNorm of each q and k head (Qwen3)
        self.rel_buckets = 0           # T5 relative position buckets (0: none)
        self.rel_max_distance = 0
        self.input = "tokens"          # tokens | pixels (ViT)
        self.image = None              # ViT: (channels, height, width, patch h, patch w)
        self.num_patches = 0
        self.pooler_size = 0
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
        self.lm_transform_act = None   # its activation (default: activation)
        self.lm_scale = 1.0            # T5: hidden states * d_model^-0.5 before the head
        self.num_classes = 0
        self.pooling = "first"
        self.pooler = False
        self.pooler_act = "tanh"       # after the pooler dense (DistilBERT: relu)
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
#
# Each family is read from the fields its transformers configuration class
# has, with that class's defaults for fields a config.json leaves out, and
# the tensors are named as save_pretrained writes them. A field whose
# feature the reference does not implement is an error naming the field,
# never silently ignored.

HF_FAMILIES = ("gpt2", "bert", "roberta", "distilbert", "llama", "mistral", "qwen2",
               "qwen3", "gemma", "phi3", "t5", "vit")

# Families that are recognised only to say why they are not supported.
_HF_REJECTED = {
    "gemma2": "its soft-capping (attn_logit_softcapping, final_logit_softcapping), "
              "query_pre_attn_scalar, alternating sliding-window layers and "
              "pre/post feed-forward norms are not implemented",
}

# Fields whose features no supported family implements here: a config that
# sets one (to anything but null or false) is rejected by name.
_HF_UNIMPLEMENTED = (
    ("attn_logit_softcapping", "soft-capping of the attention scores"),
    ("final_logit_softcapping", "soft-capping of the logits"),
    ("query_pre_attn_scalar", "a query scale other than head_dim^-0.5"),
    ("use_bidirectional_attention", "bidirectional attention in a decoder"),
)

_HF_ACT = {"gelu": "gelu", "gelu_new": "gelu_tanh", "gelu_pytorch_tanh": "gelu_tanh",
           "gelu_fast": None, "relu": "relu", "silu": "silu", "swish": "silu",
           "tanh": "tanh"}


def _hf_act(name, where, key):
    act = _HF_ACT.get(name)
    if act is None:
        raise RefError("%s: %s %r is not supported (supported: gelu, gelu_new, "
                       "gelu_pytorch_tanh, relu, silu, swish, tanh)" % (where, key, name))
    return act


def _hf_field(cfg, key, defaults, fallback=None):
    """cfg[key]; the family's default when the config leaves the key out."""
    if key in cfg:
        return cfg[key]
    return defaults.get(key, fallback)


def _number(v, where, key):
    if not isinstance(v, (int, float)) or isinstance(v, bool):
        raise RefError("%s: field '%s' must be a number, got %r" % (where, key, v))
    return float(v)


def _hf_rope(cfg, m, where):
    """Sets m.rope_theta, m.rotary_dim and m.rope_tables from the RoPE
    fields, in either spelling: transformers 5's rope_parameters (holding
    rope_theta, rope_type and the type's parameters) or 4.x's top-level
    rope_theta with rope_scaling (whose type is 'rope_type' or 'type').
    As in transformers, a non-empty rope_scaling wins over rope_parameters,
    the dict's rope_theta over the top-level one, and a top-level
    original_max_position_embeddings over the dict's (then
    max_position_embeddings; Phi-3's class default is 4096)."""
    fam = m.family
    scaling, params = cfg.get("rope_scaling"), cfg.get("rope_parameters")
    for key, v in (("rope_scaling", scaling), ("rope_parameters", params)):
        if v is not None and not isinstance(v, dict):
            raise RefError("%s: field '%s' must be an object, got %r" % (where, key, v))
    key, p = ("rope_scaling", scaling) if scaling else ("rope_parameters", params or {})
    if any(isinstance(v, dict) for v in p.values()):
        raise RefError("%s: field '%s' holds parameters per layer type, which is not "
                       "supported" % (where, key))
    theta = p.get("rope_theta")
    if theta is None:
        theta = cfg.get("rope_theta", 10000.0)
    theta = _number(theta, where, "rope_theta")
    tkey = "rope_type" if p.get("rope_type") is not None else "type"
    kind = p.get(tkey) or "default"
    if fam == "phi3" and kind in ("su", "yarn"):
        kind = "longrope"  # transformers' Phi3Config renames these
    allowed = ("default", "longrope") if fam == "phi3" else ROPE_TYPES
    if kind not in allowed:
        raise RefError("%s: field '%s.%s' is %r, which is not supported (supported: %s)"
                       % (where, key, tkey, kind, ", ".join(allowed)))
    prf = p.get("partial_rotary_factor")
    if prf is None:
        prf = cfg.get("partial_rotary_factor")
    prf = 1.0 if prf is None else _number(prf, where, "partial_rotary_factor")
    if prf != 1.0 and fam != "phi3":
        raise RefError("%s: field 'partial_rotary_factor' is %r: only phi3 rotates part "
                       "of a head" % (where, prf))
    dim = int(m.head_dim * prf)
    if dim <= 0 or dim % 2:
        raise RefError("%s: partial_rotary_factor %r of head_dim %d gives rotary dim %d, "
                       "which must be even and positive" % (where, prf, m.head_dim, dim))

    def param(name, required=True):
        v = p.get(name)
        if v is None:
            if required:
                raise RefError("%s: rope type %r needs field '%s.%s'" % (where, kind, key, name))
            return None
        return _number(v, where, "%s.%s" % (key, name))

    r = {}
    if kind in ("llama3", "yarn", "longrope"):
        orig = cfg.get("original_max_position_embeddings")
        if orig is None:
            orig = 4096 if fam == "phi3" else p.get("original_max_position_embeddings")
        if orig is None:
            orig = m.max_seq_len
        if not isinstance(orig, int) or isinstance(orig, bool) or orig <= 0:
            raise RefError("%s: original_max_position_embeddings must be a positive "
                           "integer, got %r" % (where, orig))
        r["original_max_position_embeddings"] = orig
    if kind in ("linear", "llama3"):
        r["factor"] = param("factor")
    if kind == "llama3":
        r["low_freq_factor"] = param("low_freq_factor")
        r["high_freq_factor"] = param("high_freq_factor")
        if r["high_freq_factor"] == r["low_freq_factor"]:
            raise RefError("%s: llama3 rope needs high_freq_factor != low_freq_factor" % where)
    if kind in ("yarn", "longrope"):
        f = param("factor", required=False)
        r["factor"] = f if f is not None else m.max_seq_len / r["original_max_position_embeddings"]
        r["attention_factor"] = param("attention_factor", required=False)
    if kind == "yarn":
        for name in ("beta_fast", "beta_slow", "mscale", "mscale_all_dim"):
            r[name] = param(name, required=False)
        r["truncate"] = p.get("truncate", True)
    if kind == "longrope":
        for name in ("short_factor", "long_factor"):
            v = p.get(name)
            if not isinstance(v, list) or len(v) != dim // 2:
                raise RefError("%s: field '%s.%s' must be a list of %d numbers (rotary dim / 2)"
                               % (where, key, name, dim // 2))
            r[name] = [_number(e, where, "%s.%s" % (key, name)) for e in v]
    m.rope_theta, m.rope_type = theta, kind
    m.rotary_dim = None if dim == m.head_dim else dim
    m.rope_tables = rope_frequencies(kind, dim, theta, r)


def _hf_gpt2(m, cfg, where):
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


def _hf_bert(m, cfg, where):
    """BERT and RoBERTa: post-norm encoders with learned positions."""
    mt = m.family
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
    if mt == "roberta":
        for key, what in (("is_decoder", "a causal (decoder) RoBERTa"),
                          ("add_cross_attention", "cross-attention")):
            if cfg.get(key):
                raise RefError("%s: field '%s' is set: %s is not supported" % (where, key, what))
        # Position ids count from padding_idx + 1 (fairseq); the table has
        # max_position_embeddings rows, so padding_idx + 1 fewer tokens fit.
        pad = cfg.get("pad_token_id", 1)
        if not isinstance(pad, int) or isinstance(pad, bool) or pad < 0:
            raise RefError("%s: field 'pad_token_id' must be a non-negative integer (the "
                           "padding_idx of the positions), got %r" % (where, pad))
        m.pad_token_id = pad
        m.position_rows = m.max_seq_len
        m.position_offset = pad + 1
        m.max_seq_len -= pad + 1
        if m.max_seq_len < 1:
            raise RefError("%s: max_position_embeddings %d leaves no position after "
                           "padding_idx %d" % (where, m.position_rows, pad))
        if m.hf_class == "RobertaForSequenceClassification":
            # classifier.dense -> tanh -> classifier.out_proj on the first
            # token: the math of a pooler and a classifier.
            m.output, m.pooling, m.pooler = "classes", "first", True
        elif m.hf_class == "RobertaForMaskedLM":
            m.output, m.lm_transform, m.lm_bias = "logits", True, True
            m.lm_transform_act = "gelu"   # RobertaLMHead: always erf gelu
        elif m.hf_class in (None, "RobertaModel"):
            m.output = "hidden"
        else:
            raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))
        return
    if m.hf_class == "BertForSequenceClassification":
        m.output, m.pooling, m.pooler = "classes", "first", True
    elif m.hf_class == "BertForMaskedLM":
        m.output, m.lm_transform, m.lm_bias = "logits", True, True
    elif m.hf_class in (None, "BertModel"):
        m.output = "hidden"
    else:
        raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))


def _hf_distilbert(m, cfg, where):
    """DistilBERT: BERT's post-norm encoder without token types or pooler,
    LayerNorm eps fixed at 1e-12 (no config field), config.activation in
    the FFN and the MLM head, a ReLU after the classifier's pre_classifier."""
    m.architecture = "encoder"
    m.vocab_size = _need(cfg, "vocab_size", where, int)
    m.max_seq_len = _need(cfg, "max_position_embeddings", where, int)
    m.d_model = _need(cfg, "dim", where, int)
    m.num_layers = _need(cfg, "n_layers", where, int)
    m.num_heads = m.num_kv_heads = _need(cfg, "n_heads", where, int)
    m.d_ff = _need(cfg, "hidden_dim", where, int)
    m.activation = _hf_act(cfg.get("activation", "gelu"), where, "activation")
    m.norm_eps = 1e-12
    # sinusoidal_pos_embds only initialises position_embeddings.weight (in
    # transformers 4.x and 5.x alike); the table is stored and loaded like a
    # learned one, so the stored table is what the forward adds either way.
    m.positions = "learned"
    m.norm_placement = "post"
    m.final_norm = False
    m.embed_norm = True
    m.mask = "none"
    # Old configs' "tie_weights_" is read by no transformers version; the
    # projector is tied unless tie_word_embeddings is false (and, as in
    # transformers 5, a vocab_projector.weight in the file wins: see
    # hf_to_logical).
    m.lm_tied = cfg.get("tie_word_embeddings", True) is not False
    if m.hf_class == "DistilBertForSequenceClassification":
        # pre_classifier -> ReLU -> classifier on the first token.
        m.output, m.pooling, m.pooler, m.pooler_act = "classes", "first", True, "relu"
    elif m.hf_class == "DistilBertForMaskedLM":
        # vocab_transform -> activation -> vocab_layer_norm -> vocab_projector.
        m.output, m.lm_transform, m.lm_bias = "logits", True, True
    elif m.hf_class in (None, "DistilBertModel"):
        m.output = "hidden"
    else:
        raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))


# Llama-like decoders: model_type -> (class name prefix, the class defaults
# of fields that a config may leave out, where they are not derived).
_HF_DECODERS = {
    "llama": ("Llama", {}),
    "mistral": ("Mistral", {}),
    "qwen2": ("Qwen2", {}),
    "qwen3": ("Qwen3", {"head_dim": 128, "num_key_value_heads": 32}),
    "gemma": ("Gemma", {"head_dim": 256, "num_key_value_heads": 16,
                        "hidden_act": "gelu_pytorch_tanh", "tie_word_embeddings": True}),
    "phi3": ("Phi3", {"rms_norm_eps": 1e-5}),
}


def _hf_decoder(m, cfg, where):
    mt = m.family
    base, defaults = _HF_DECODERS[mt]
    m.architecture = "decoder"
    m.vocab_size = _need(cfg, "vocab_size", where, int)
    m.max_seq_len = _need(cfg, "max_position_embeddings", where, int)
    m.d_model = _need(cfg, "hidden_size", where, int)
    m.num_layers = _need(cfg, "num_hidden_layers", where, int)
    m.num_heads = _need(cfg, "num_attention_heads", where, int)
    m.num_kv_heads = _hf_field(cfg, "num_key_value_heads", defaults) or m.num_heads
    m.head_dim = _hf_field(cfg, "head_dim", defaults) or m.d_model // m.num_heads
    for key, v in (("num_key_value_heads", m.num_kv_heads), ("head_dim", m.head_dim)):
        if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
            raise RefError("%s: field '%s' must be a positive integer, got %r" % (where, key, v))
    m.d_ff = _need(cfg, "intermediate_size", where, int)
    act_name = _hf_field(cfg, "hidden_act", defaults, "silu")
    if mt == "gemma":
        # transformers 4.x read hidden_activation (default tanh gelu); 5.x
        # reads hidden_act, where Gemma's "gelu" means the tanh gelu too.
        if act_name == "gelu":
            act_name = "gelu_pytorch_tanh"
        hact = cfg.get("hidden_activation")
        if hact is not None:
            if "hidden_act" in cfg and _hf_act(hact, where, "hidden_activation") != \
                    _hf_act(act_name, where, "hidden_act"):
                raise RefError("%s: fields 'hidden_activation' (%r) and 'hidden_act' (%r) "
                               "disagree" % (where, hact, cfg["hidden_act"]))
            act_name = hact
    act = _hf_act(act_name, where, "hidden_act")
    m.activation = {"silu": "swiglu", "gelu": "geglu"}.get(act, "gated_" + act)
    m.norm = "rmsnorm"
    m.norm_bias = False
    m.norm_eps = float(_hf_field(cfg, "rms_norm_eps", defaults, 1e-6))
    m.positions = "rope"
    m.mask = "causal"
    m.lm_tied = bool(_hf_field(cfg, "tie_word_embeddings", defaults, False))
    attention_bias = bool(cfg.get("attention_bias", False))
    if mt == "llama":
        m.qkv_bias = m.o_bias = attention_bias
        m.ffn_bias = bool(cfg.get("mlp_bias", False))
    elif mt == "qwen2":
        m.qkv_bias, m.o_bias, m.ffn_bias = True, False, False
    elif mt in ("qwen3", "gemma"):
        m.qkv_bias = m.o_bias = attention_bias
        m.ffn_bias = False
    else:  # mistral, phi3
        m.qkv_bias = m.o_bias = m.ffn_bias = False
    if mt == "qwen3":
        m.qk_norm = True          # RMSNorm of each q and k head, before RoPE
    if mt == "gemma":
        m.norm_offset = 1.0       # x / rms * (1 + w)
        m.embed_scale = math.sqrt(m.d_model)
    window = cfg.get("sliding_window")
    if mt in ("mistral", "phi3") and window:
        m.mask, m.window = "sliding_window", int(window)
    if mt in ("qwen2", "qwen3") and cfg.get("use_sliding_window", False):
        window = cfg.get("sliding_window", 4096)
        types = cfg.get("layer_types")
        if window and types is None:
            mwl = cfg.get("max_window_layers", 28)
            types = ["sliding_attention" if i >= mwl else "full_attention"
                     for i in range(m.num_layers)]
        if window:
            if len(types) != m.num_layers:
                raise RefError("%s: field 'layer_types' has %d entries for %d layers"
                               % (where, len(types), m.num_layers))
            m.layer_windows = [int(window) if t == "sliding_attention" else None
                               for t in types]
    _hf_rope(cfg, m, where)
    if m.hf_class == base + "ForSequenceClassification":
        m.output, m.pooling, m.classifier_bias = "classes", "last", False
    elif m.hf_class == base + "Model":
        m.output = "hidden"
    elif m.hf_class in (None, base + "ForCausalLM"):
        m.output = "logits"
    else:
        raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))


def _hf_t5(m, cfg, where):
    """T5: pre-norm encoder-decoder, RMS norms without mean or bias,
    relative position buckets, unscaled scores."""
    m.architecture = "encoder_decoder"
    m.vocab_size = _need(cfg, "vocab_size", where, int)
    m.d_model = _need(cfg, "d_model", where, int)
    m.head_dim = _need(cfg, "d_kv", where, int)
    m.num_heads = m.num_kv_heads = _need(cfg, "num_heads", where, int)
    m.d_ff = _need(cfg, "d_ff", where, int)
    n = _need(cfg, "num_layers", where, int)
    m.num_encoder_layers = n
    m.num_decoder_layers = cfg.get("num_decoder_layers") or n
    ffp = cfg.get("feed_forward_proj", "relu")
    parts = ffp.split("-") if isinstance(ffp, str) else []
    if not parts or len(parts) > 2 or (len(parts) == 2 and parts[0] != "gated"):
        raise RefError("%s: field 'feed_forward_proj' is %r: expected ACT or gated-ACT"
                       % (where, ffp))
    # T5Config derives dense_act_fn and is_gated_act from feed_forward_proj
    # ("gated-gelu" means gelu_new); saved values of those two win.
    act_name = cfg.get("dense_act_fn") or ("gelu_new" if ffp == "gated-gelu" else parts[-1])
    gated = cfg.get("is_gated_act")
    if gated is None:
        gated = len(parts) == 2
    act = _hf_act(act_name, where, "dense_act_fn" if "dense_act_fn" in cfg
                  else "feed_forward_proj")
    m.activation = "gated_" + act if gated else act
    m.norm = "rmsnorm"
    m.norm_bias = False
    m.norm_eps = float(cfg.get("layer_norm_epsilon", 1e-6))
    m.positions = "none"
    m.rel_buckets = int(cfg.get("relative_attention_num_buckets", 32))
    m.rel_max_distance = int(cfg.get("relative_attention_max_distance", 128))
    if m.rel_buckets < 4 or m.rel_max_distance <= m.rel_buckets // 2:
        raise RefError("%s: relative_attention_num_buckets %d must be at least 4 and "
                       "relative_attention_max_distance %d above half of it"
                       % (where, m.rel_buckets, m.rel_max_distance))
    m.attn_scale = 1.0
    m.qkv_bias = m.o_bias = m.ffn_bias = False
    m.mask = "causal"
    # T5 has no position table; n_positions (when given) bounds the length.
    m.max_seq_len = int(cfg.get("n_positions") or 512)
    # transformers 5 saves tie_word_embeddings: true and keeps the old flag
    # as scale_decoder_outputs; 4.x configs have tie_word_embeddings only.
    tied = cfg.get("tie_word_embeddings", True) is not False
    scale = cfg.get("scale_decoder_outputs")
    if scale is None:
        scale = tied
    m.lm_tied = tied
    m.lm_scale = m.d_model ** -0.5 if scale else 1.0
    if m.hf_class in (None, "T5ForConditionalGeneration"):
        m.output = "logits"
    elif m.hf_class == "T5Model":
        m.output = "hidden"
    elif m.hf_class == "T5EncoderModel":
        m.architecture, m.num_layers, m.mask, m.output = "encoder", n, "none", "hidden"
        m.num_encoder_layers = m.num_decoder_layers = 0
    else:
        raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))


def _pair(v, where, key):
    if isinstance(v, int) and not isinstance(v, bool) and v > 0:
        return v, v
    if isinstance(v, list) and len(v) == 2 and all(
            isinstance(e, int) and not isinstance(e, bool) and e > 0 for e in v):
        return v[0], v[1]
    raise RefError("%s: field '%s' must be a positive integer or a pair, got %r"
                   % (where, key, v))


def _hf_vit(m, cfg, where):
    """ViT: patch embedding (a conv with kernel = stride = patch), a CLS
    token, learned positions, a pre-norm encoder, a final LayerNorm."""
    m.architecture = "encoder"
    m.input = "pixels"
    m.d_model = _need(cfg, "hidden_size", where, int)
    m.num_layers = _need(cfg, "num_hidden_layers", where, int)
    m.num_heads = m.num_kv_heads = _need(cfg, "num_attention_heads", where, int)
    m.head_dim = cfg.get("head_dim") or 0   # 0: hidden_size / heads, checked
    m.d_ff = _need(cfg, "intermediate_size", where, int)
    ih, iw = _pair(cfg.get("image_size", 224), where, "image_size")
    ph, pw = _pair(cfg.get("patch_size", 16), where, "patch_size")
    channels = cfg.get("num_channels", 3)
    if not isinstance(channels, int) or isinstance(channels, bool) or channels <= 0:
        raise RefError("%s: field 'num_channels' must be a positive integer" % where)
    if ih < ph or iw < pw:
        raise RefError("%s: image %dx%d is smaller than a patch %dx%d" % (where, ih, iw, ph, pw))
    m.image = (channels, ih, iw, ph, pw)
    m.num_patches = (ih // ph) * (iw // pw)
    m.max_seq_len = m.num_patches + 1
    m.activation = _hf_act(cfg.get("hidden_act", "gelu"), where, "hidden_act")
    m.norm_eps = float(cfg.get("layer_norm_eps", 1e-12))
    m.positions = "learned"
    m.mask = "none"
    m.qkv_bias = bool(cfg.get("qkv_bias", True))
    m.o_bias = m.ffn_bias = True
    m.pooler_size = cfg.get("pooler_output_size") or m.d_model
    if m.hf_class == "ViTForImageClassification":
        m.output, m.pooling, m.pooler = "classes", "first", False
    elif m.hf_class in (None, "ViTModel"):
        m.output = "hidden"   # last_hidden_state, [B, 1 + patches, D]
    else:
        raise RefError("%s: architecture %r is not supported" % (where, m.hf_class))


def model_from_hf(cfg, where):
    mt = cfg.get("model_type")
    if mt in _HF_REJECTED:
        raise RefError("%s: model_type %r is not supported: %s (supported: %s)"
                       % (where, mt, _HF_REJECTED[mt], ", ".join(HF_FAMILIES)))
    if mt not in HF_FAMILIES:
        raise RefError("%s: model_type %r is not supported (supported: %s)"
                       % (where, mt, ", ".join(HF_FAMILIES)))
    for key, what in _HF_UNIMPLEMENTED:
        if cfg.get(key) not in (None, False):
            raise RefError("%s: field '%s' is set (%r): %s is not supported"
                           % (where, key, cfg[key], what))
    m = Model()
    m.source, m.family, m.name = "hf", mt, mt
    archs = cfg.get("architectures") or []
    m.hf_class = archs[0] if archs else None
    m.lm_bias = False
    if mt == "gpt2":
        _hf_gpt2(m, cfg, where)
    elif mt in ("bert", "roberta"):
        _hf_bert(m, cfg, where)
    elif mt == "distilbert":
        _hf_distilbert(m, cfg, where)
    elif mt == "t5":
        _hf_t5(m, cfg, where)
    elif mt == "vit":
        _hf_vit(m, cfg, where)
    else:
        _hf_decoder(m, cfg, where)
    if m.output == "classes" and not m.num_classes:
        m.num_classes = len(cfg.get("id2label") or {}) or int(cfg.get("num_labels", 2))
    if not m.head_dim:
        if m.d_model % m.num_heads:
            raise RefError("%s: hidden size %d is not a multiple of %d heads"
                           % (where, m.d_model, m.num_heads))
        m.head_dim = m.d_model // m.num_heads
    return _check_model(m, where)


def hf_tensors(m):
    """[(name, shape, init kind, fan_in)] as the HF class stores them
    (save_pretrained: tied tensors only once, under the name they are tied
    to)."""
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
    elif m.family in ("bert", "roberta"):
        rob = m.family == "roberta"
        bare = m.hf_class in (None, "RobertaModel" if rob else "BertModel")
        p = "" if bare else m.family + "."
        e = p + "embeddings."
        t.append((e + "word_embeddings.weight", [V, D], "embedding", 0))
        t.append((e + "position_embeddings.weight", [m.position_rows or m.max_seq_len, D],
                  "embedding", 0))
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
        if (bare if rob else m.hf_class != "BertForMaskedLM"):
            mat(p + "pooler.dense.weight", [D, D], D)
            vec(p + "pooler.dense.bias", D)
        if m.output == "classes" and rob:
            mat("classifier.dense.weight", [D, D], D)
            vec("classifier.dense.bias", D)
            mat("classifier.out_proj.weight", [m.num_classes, D], D)
            vec("classifier.out_proj.bias", m.num_classes)
        elif m.output == "classes":
            mat("classifier.weight", [m.num_classes, D], D)
            vec("classifier.bias", m.num_classes)
        if m.lm_transform and rob:
            mat("lm_head.dense.weight", [D, D], D)
            vec("lm_head.dense.bias", D)
            ln("lm_head.layer_norm")
            vec("lm_head.bias", V)
            if not m.lm_tied:
                mat("lm_head.decoder.weight", [V, D], D)
        elif m.lm_transform:
            mat("cls.predictions.transform.dense.weight", [D, D], D)
            vec("cls.predictions.transform.dense.bias", D)
            ln("cls.predictions.transform.LayerNorm")
            vec("cls.predictions.bias", V)
            if not m.lm_tied:
                mat("cls.predictions.decoder.weight", [V, D], D)
    elif m.family == "distilbert":
        p = "" if m.hf_class in (None, "DistilBertModel") else "distilbert."
        e = p + "embeddings."
        t.append((e + "word_embeddings.weight", [V, D], "embedding", 0))
        t.append((e + "position_embeddings.weight", [m.max_seq_len, D], "embedding", 0))
        ln(e + "LayerNorm")
        for i in range(m.num_layers):
            h = "%stransformer.layer.%d." % (p, i)
            for n in ("q", "k", "v", "out"):
                mat(h + "attention.%s_lin.weight" % n, [D, D], D)
                vec(h + "attention.%s_lin.bias" % n, D)
            ln(h + "sa_layer_norm")
            mat(h + "ffn.lin1.weight", [F, D], D)
            vec(h + "ffn.lin1.bias", F)
            mat(h + "ffn.lin2.weight", [D, F], F)
            vec(h + "ffn.lin2.bias", D)
            ln(h + "output_layer_norm")
        if m.output == "classes":
            mat("pre_classifier.weight", [D, D], D)
            vec("pre_classifier.bias", D)
            mat("classifier.weight", [m.num_classes, D], D)
            vec("classifier.bias", m.num_classes)
        if m.lm_transform:
            mat("vocab_transform.weight", [D, D], D)
            vec("vocab_transform.bias", D)
            ln("vocab_layer_norm")
            if not m.lm_tied:
                mat("vocab_projector.weight", [V, D], D)
            vec("vocab_projector.bias", V)
    elif m.family == "t5":
        inner = hq
        t.append(("shared.weight", [V, D], "embedding", 0))
        gated = gated_base(m.activation) is not None
        for pre, n, dec in (_t5_stacks(m)):
            for i in range(n):
                b = "%sblock.%d.layer." % (pre, i)
                parts = [("0.SelfAttention.", "0.layer_norm")]
                if dec:
                    parts.append(("1.EncDecAttention.", "1.layer_norm"))
                for a, norm in parts:
                    for nm in "qkv":
                        mat(b + a + nm + ".weight", [inner, D], D)
                    mat(b + a + "o.weight", [D, inner], inner)
                    if i == 0 and a.startswith("0."):
                        t.append((b + a + "relative_attention_bias.weight",
                                  [m.rel_buckets, m.num_heads], "embedding", 0))
                    vec(b + norm + ".weight", D, "gamma")
                f = "%d." % len(parts)
                for nm in (("wi_0", "wi_1") if gated else ("wi",)):
                    mat(b + f + "DenseReluDense.%s.weight" % nm, [F, D], D)
                mat(b + f + "DenseReluDense.wo.weight", [D, F], F)
                vec(b + f + "layer_norm.weight", D, "gamma")
            vec(pre + "final_layer_norm.weight", D, "gamma")
        if m.output == "logits" and not m.lm_tied:
            mat("lm_head.weight", [V, D], D)
    elif m.family == "vit":
        bare = m.hf_class in (None, "ViTModel")
        p = "" if bare else "vit."
        C, _, _, ph, pw = m.image
        e = p + "embeddings."
        t.append((e + "cls_token", [1, 1, D], "embedding", 0))
        t.append((e + "position_embeddings", [1, m.num_patches + 1, D], "embedding", 0))
        mat(e + "patch_embeddings.projection.weight", [D, C, ph, pw], C * ph * pw)
        vec(e + "patch_embeddings.projection.bias", D)
        for i in range(m.num_layers):
            h = "%sencoder.layer.%d." % (p, i)
            ln(h + "layernorm_before")
            for n in ("query", "key", "value"):
                mat(h + "attention.attention.%s.weight" % n, [hq, D], D)
                if m.qkv_bias:
                    vec(h + "attention.attention.%s.bias" % n, hq)
            mat(h + "attention.output.dense.weight", [D, hq], hq)
            vec(h + "attention.output.dense.bias", D)
            ln(h + "layernorm_after")
            mat(h + "intermediate.dense.weight", [F, D], D)
            vec(h + "intermediate.dense.bias", F)
            mat(h + "output.dense.weight", [D, F], F)
            vec(h + "output.dense.bias", D)
        ln(p + "layernorm")
        if bare:
            mat("pooler.dense.weight", [m.pooler_size, D], D)
            vec("pooler.dense.bias", m.pooler_size)
        if m.output == "classes":
            mat("classifier.weight", [m.num_classes, D], D)
            vec("classifier.bias", m.num_classes)
    else:
        p = "" if m.hf_class and m.hf_class.endswith("Model") else "model."
        gamma = "gamma0" if m.norm_offset else "gamma"
        t.append((p + "embed_tokens.weight", [V, D], "embedding", 0))
        for i in range(m.num_layers):
            h = "%slayers.%d." % (p, i)
            vec(h + "input_layernorm.weight", D, gamma)
            if m.family == "phi3":
                mat(h + "self_attn.qkv_proj.weight", [hq + 2 * hkv, D], D)
            else:
                for n, rows in (("q", hq), ("k", hkv), ("v", hkv)):
                    mat(h + "self_attn.%s_proj.weight" % n, [rows, D], D)
                    if m.qkv_bias:
                        vec(h + "self_attn.%s_proj.bias" % n, rows)
            if m.qk_norm:
                vec(h + "self_attn.q_norm.weight", dh, gamma)
                vec(h + "self_attn.k_norm.weight", dh, gamma)
            mat(h + "self_attn.o_proj.weight", [D, hq], hq)
            if m.o_bias:
                vec(h + "self_attn.o_proj.bias", D)
            vec(h + "post_attention_layernorm.weight", D, gamma)
            if m.family == "phi3":
                mat(h + "mlp.gate_up_proj.weight", [2 * F, D], D)
            else:
                for n in ("gate", "up"):
                    mat(h + "mlp.%s_proj.weight" % n, [F, D], D)
                    if m.ffn_bias:
                        vec(h + "mlp.%s_proj.bias" % n, F)
            mat(h + "mlp.down_proj.weight", [D, F], F)
            if m.ffn_bias:
                vec(h + "mlp.down_proj.bias", D)
        vec(p + "norm.weight", D, gamma)
        if m.output == "logits" and not m.lm_tied:
            mat("lm_head.weight", [V, D], D)
        if m.output == "classes":
            mat("score.weight", [m.num_classes, D], D)
    return t


def _t5_stacks(m):
    """(HF prefix, layers, is decoder) of the T5 stacks the class has."""
    if m.architecture == "encoder":
        return [("encoder.", m.num_layers, False)]
    return [("encoder.", m.num_encoder_layers, False),
            ("decoder.", m.num_decoder_layers, True)]


def _transpose(shape, vals):
    r, c = shape
    return [c, r], [vals[i * c + j] for j in range(c) for i in range(r)]


def _rows(shape, vals, start, count):
    """Rows [start, start + count) of a [R, C] tensor."""
    c = shape[1]
    return [count, c], vals[start * c:(start + count) * c]


# ViT: transformers 5 holds ViT layers as layers.N.attention.q_proj, ...
# but save_pretrained writes (and the Hub holds) the older names; read both.
_VIT_NEW_NAMES = (("encoder.layer.", "layers."),
                  ("attention.attention.query", "attention.q_proj"),
                  ("attention.attention.key", "attention.k_proj"),
                  ("attention.attention.value", "attention.v_proj"),
                  ("attention.output.dense", "attention.o_proj"),
                  ("intermediate.dense", "mlp.fc1"),
                  ("output.dense", "mlp.fc2"))


def hf_to_logical(m, st, where):
    """Translates HF tensors into tfm spec names (out_in layout)."""
    expected = {name: shape for name, shape, _, _ in hf_tensors(m)}
    # A file may come from another class of the family (GPT2Model instead of
    # GPT2LMHeadModel): accept the names with or without the base prefix.
    prefixes = {"gpt2": "transformer.", "bert": "bert.", "roberta": "roberta.",
                "distilbert": "distilbert.", "t5": "", "vit": "vit."}
    pre = prefixes.get(m.family, "model.")

    def candidates(name):
        cands = [name]
        if pre:
            cands.append(name[len(pre):] if name.startswith(pre) else pre + name)
        if m.family == "vit":
            for c in list(cands):
                for old, new in _VIT_NEW_NAMES:
                    c = c.replace(old, new)
                cands.append(c)
        return cands

    def get(name, optional=False):
        for c in candidates(name):
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
    elif m.family in ("bert", "roberta"):
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
        if m.output == "classes" and m.family == "roberta":
            L["pooler.weight"] = get("classifier.dense.weight")
            L["pooler.bias"] = get("classifier.dense.bias")
            L["classifier.weight"] = get("classifier.out_proj.weight")
            L["classifier.bias"] = get("classifier.out_proj.bias")
        elif m.output == "classes":
            L["pooler.weight"] = get(p + "pooler.dense.weight")
            L["pooler.bias"] = get(p + "pooler.dense.bias")
            L["classifier.weight"] = get("classifier.weight")
            L["classifier.bias"] = get("classifier.bias")
        if m.lm_transform:
            if m.family == "roberta":
                c, tr, norm, dec = "lm_head.", "lm_head.", "layer_norm", "lm_head.decoder."
            else:
                c, tr, norm = "cls.predictions.", "cls.predictions.transform.", "LayerNorm"
                dec = c + "decoder."
            L["lm_transform.dense.weight"] = get(tr + "dense.weight")
            L["lm_transform.dense.bias"] = get(tr + "dense.bias")
            L["lm_transform.norm.weight"] = get(tr + norm + ".weight")
            L["lm_transform.norm.bias"] = get(tr + norm + ".bias")
            L["lm_head.bias"] = (get(c + "bias", optional=True)
                                 or get(dec + "bias"))
            if not m.lm_tied:
                L["lm_head.weight"] = get(dec + "weight")
    elif m.family == "distilbert":
        e = find("embeddings.word_embeddings.weight")[:-len("word_embeddings.weight")]
        p = e[:-len("embeddings.")]
        L["embed.tokens"] = get(e + "word_embeddings.weight")
        L["embed.positions"] = get(e + "position_embeddings.weight")
        L["embed.norm.weight"] = get(e + "LayerNorm.weight")
        L["embed.norm.bias"] = get(e + "LayerNorm.bias")
        for i in range(m.num_layers):
            h, o = "%stransformer.layer.%d." % (p, i), "layers.%d." % i
            for n, s in (("q", "q"), ("k", "k"), ("v", "v"), ("out", "o")):
                L[o + "attn.%s.weight" % s] = get(h + "attention.%s_lin.weight" % n)
                L[o + "attn.%s.bias" % s] = get(h + "attention.%s_lin.bias" % n)
            for nm, to in (("sa_layer_norm", "attn_norm"), ("output_layer_norm", "ffn_norm")):
                L[o + to + ".weight"] = get(h + nm + ".weight")
                L[o + to + ".bias"] = get(h + nm + ".bias")
            L[o + "ffn.up.weight"] = get(h + "ffn.lin1.weight")
            L[o + "ffn.up.bias"] = get(h + "ffn.lin1.bias")
            L[o + "ffn.down.weight"] = get(h + "ffn.lin2.weight")
            L[o + "ffn.down.bias"] = get(h + "ffn.lin2.bias")
        if m.output == "classes":
            L["pooler.weight"] = get("pre_classifier.weight")
            L["pooler.bias"] = get("pre_classifier.bias")
            L["classifier.weight"] = get("classifier.weight")
            L["classifier.bias"] = get("classifier.bias")
        if m.lm_transform:
            L["lm_transform.dense.weight"] = get("vocab_transform.weight")
            L["lm_transform.dense.bias"] = get("vocab_transform.bias")
            L["lm_transform.norm.weight"] = get("vocab_layer_norm.weight")
            L["lm_transform.norm.bias"] = get("vocab_layer_norm.bias")
            L["lm_head.bias"] = get("vocab_projector.bias")
            # transformers 5 ties vocab_projector to the word embeddings
            # unless the file holds a vocab_projector.weight of its own.
            head = get("vocab_projector.weight", optional=m.lm_tied)
            if head is not None:
                L["lm_head.weight"] = head
    elif m.family == "t5":
        L["embed.tokens"] = get("shared.weight")
        gated = gated_base(m.activation) is not None
        for pre, n, dec in _t5_stacks(m):
            lp = pre if m.architecture == "encoder_decoder" else ""
            for i in range(n):
                b, o = "%sblock.%d.layer." % (pre, i), "%slayers.%d." % (lp, i)
                parts = [("0.SelfAttention.", "0.layer_norm", "attn")]
                if dec:
                    parts.append(("1.EncDecAttention.", "1.layer_norm", "cross_attn"))
                for a, norm, to in parts:
                    L[o + to + "_norm.weight"] = get(b + norm + ".weight")
                    for nm in "qkvo":
                        L[o + to + ".%s.weight" % nm] = get(b + a + nm + ".weight")
                f = b + "%d.DenseReluDense." % len(parts)
                L[o + "ffn_norm.weight"] = get(b + "%d.layer_norm.weight" % len(parts))
                if gated:
                    L[o + "ffn.gate.weight"] = get(f + "wi_0.weight")
                    L[o + "ffn.up.weight"] = get(f + "wi_1.weight")
                else:
                    L[o + "ffn.up.weight"] = get(f + "wi.weight")
                L[o + "ffn.down.weight"] = get(f + "wo.weight")
            L[lp + "rel_bias"] = get(pre + "block.0.layer.0.SelfAttention."
                                     "relative_attention_bias.weight")
            L[lp + "final_norm.weight"] = get(pre + "final_layer_norm.weight")
        if m.output == "logits":
            # transformers 5 ties lm_head to shared unless the file holds a
            # separate lm_head.weight (then it is used).
            head = get("lm_head.weight", optional=m.lm_tied)
            if head is not None:
                L["lm_head.weight"] = head
    elif m.family == "vit":
        e = find("embeddings.cls_token")[:-len("cls_token")]
        p = e[:-len("embeddings.")]
        D = m.d_model
        L["embed.cls"] = ([D], get(e + "cls_token")[1])
        L["embed.positions"] = ([m.num_patches + 1, D], get(e + "position_embeddings")[1])
        shape, w = get(e + "patch_embeddings.projection.weight")
        # [D, C, ph, pw] -> [D, C * ph * pw]: a patch flattened in (c, kh, kw) order.
        L["embed.patch.weight"] = ([D, _prod(shape[1:])], w)
        L["embed.patch.bias"] = get(e + "patch_embeddings.projection.bias")
        for i in range(m.num_layers):
            h, o = "%sencoder.layer.%d." % (p, i), "layers.%d." % i
            for nm, to in (("layernorm_before", "attn_norm"), ("layernorm_after", "ffn_norm")):
                L[o + to + ".weight"] = get(h + nm + ".weight")
                L[o + to + ".bias"] = get(h + nm + ".bias")
            for n, s in (("query", "q"), ("key", "k"), ("value", "v")):
                L[o + "attn.%s.weight" % s] = get(h + "attention.attention.%s.weight" % n)
                if m.qkv_bias:
                    L[o + "attn.%s.bias" % s] = get(h + "attention.attention.%s.bias" % n)
            L[o + "attn.o.weight"] = get(h + "attention.output.dense.weight")
            L[o + "attn.o.bias"] = get(h + "attention.output.dense.bias")
            L[o + "ffn.up.weight"] = get(h + "intermediate.dense.weight")
            L[o + "ffn.up.bias"] = get(h + "intermediate.dense.bias")
            L[o + "ffn.down.weight"] = get(h + "output.dense.weight")
            L[o + "ffn.down.bias"] = get(h + "output.dense.bias")
        L["final_norm.weight"] = get(p + "layernorm.weight")
        L["final_norm.bias"] = get(p + "layernorm.bias")
        if m.output == "classes":
            L["classifier.weight"] = get("classifier.weight")
            L["classifier.bias"] = get("classifier.bias")
    else:
        p = find("embed_tokens.weight")[:-len("embed_tokens.weight")]
        L["embed.tokens"] = get(p + "embed_tokens.weight")
        hq, hkv = m.num_heads * m.head_dim, m.num_kv_heads * m.head_dim
        for i in range(m.num_layers):
            h, o = "%slayers.%d." % (p, i), "layers.%d." % i
            L[o + "attn_norm.weight"] = get(h + "input_layernorm.weight")
            if m.family == "phi3":
                # qkv_proj rows: the H q heads, then the Hkv k heads, then v.
                qkv = get(h + "self_attn.qkv_proj.weight")
                L[o + "attn.q.weight"] = _rows(qkv[0], qkv[1], 0, hq)
                L[o + "attn.k.weight"] = _rows(qkv[0], qkv[1], hq, hkv)
                L[o + "attn.v.weight"] = _rows(qkv[0], qkv[1], hq + hkv, hkv)
                L[o + "attn.o.weight"] = get(h + "self_attn.o_proj.weight")
            else:
                for n in "qkvo":
                    L[o + "attn.%s.weight" % n] = get(h + "self_attn.%s_proj.weight" % n)
                    if (m.o_bias if n == "o" else m.qkv_bias):
                        L[o + "attn.%s.bias" % n] = get(h + "self_attn.%s_proj.bias" % n)
            if m.qk_norm:
                L[o + "attn.q_norm.weight"] = get(h + "self_attn.q_norm.weight")
                L[o + "attn.k_norm.weight"] = get(h + "self_attn.k_norm.weight")
            L[o + "ffn_norm.weight"] = get(h + "post_attention_layernorm.weight")
            if m.family == "phi3":
                # gate_up_proj rows: the gate, then the up projection.
                gu = get(h + "mlp.gate_up_proj.weight")
                L[o + "ffn.gate.weight"] = _rows(gu[0], gu[1], 0, m.d_ff)
                L[o + "ffn.up.weight"] = _rows(gu[0], gu[1], m.d_ff, m.d_ff)
                L[o + "ffn.down.weight"] = get(h + "mlp.down_proj.weight")
            else:
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
            if gated_base(s["activation"]) is not None:
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
        return [rms_norm(r, g, m.norm_eps, m.norm_offset) for r in rows]
    b = P.opt_vec(name + ".bias")
    return [layer_norm(r, g, b, m.norm_eps) for r in rows]


def _embed(m, P, ids, positions=None):
    """positions: each token's position (a row of a learned table, as
    Hugging Face's position_ids); default t (+ RoBERTa's offset)."""
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
        # RoBERTa counts positions from padding_idx + 1 (offset); padded
        # rows of a sequence take the same rule (they are not compared).
        pos = P.mat("embed.positions")
        rows = positions or [t + m.position_offset for t in range(len(x))]
        if any(not 0 <= p < len(pos) for p in rows):
            raise RefError("positions %s outside the table's %d rows" % (rows, len(pos)))
        x = [vadd(r, pos[p]) for p, r in zip(rows, x)]
    elif m.positions == "sinusoidal":
        rows = positions or list(range(len(x)))
        x = [vadd(r, sinusoidal(p, m.d_model)) for p, r in zip(rows, x)]
    if m.embed_norm:
        x = _norm_rows(m, P, "embed.norm", x)
    return x


def rope_table(m, total):
    """(inverse frequencies, attention factor) of an HF model's RoPE for a
    call whose position offset + token count is `total`: longrope uses its
    long factors when total > original_max_position_embeddings (in a plain
    forward the offset is 0 and the count is the padded width T)."""
    t = m.rope_tables
    if t["long"] is not None and total > t["switch"]:
        return t["long"], t["attn_factor"]
    return t["short"], t["attn_factor"]


def _attention_block(m, P, name, x, kv, key_length, mask, window, self_attn, scale,
                     bias=None, positions=None):
    b_ = lambda n: P.opt_vec(n + ".bias")
    q = linear(x, P.mat(name + ".q.weight"), b_(name + ".q"))
    k = linear(kv, P.mat(name + ".k.weight"), b_(name + ".k"))
    v = linear(kv, P.mat(name + ".v.weight"), b_(name + ".v"))
    qh, kh, vh = split_heads(q, m.num_heads), split_heads(k, m.num_kv_heads), \
        split_heads(v, m.num_kv_heads)
    if m.qk_norm and self_attn:
        # Qwen3: each head of q and k RMS-normalised over head_dim.
        qn, kn = P.vec(name + ".q_norm.weight"), P.vec(name + ".k_norm.weight")
        qh = [[rms_norm(r, qn, m.norm_eps, m.norm_offset) for r in h] for h in qh]
        kh = [[rms_norm(r, kn, m.norm_eps, m.norm_offset) for r in h] for h in kh]
    slopes = None
    if self_attn and m.positions == "rope":
        tq, tk = len(x), len(kv)
        qpos, kpos = list(range(tk - tq, tk)), list(range(tk))
        if positions is not None:
            qpos = kpos = positions
        kw = {}
        if m.rope_tables is not None:
            inv, af = rope_table(m, tk)
            kw = {"inv_freq": inv, "attn_factor": af}
        qh = [rope(h, qpos, m.rope_theta, m.rope_scaling, m.rope_style, m.rotary_dim, **kw)
              for h in qh]
        kh = [rope(h, kpos, m.rope_theta, m.rope_scaling, m.rope_style, m.rotary_dim, **kw)
              for h in kh]
    if self_attn and m.positions == "alibi":
        slopes = alibi_slopes(m.num_heads)
    o = attention(qh, kh, vh, scale, mask, window, key_length, slopes, bias)
    return linear(merge_heads(o), P.mat(name + ".o.weight"), b_(name + ".o"))


def _ffn(P, name, x, act):
    bias = lambda n: P.opt_vec(n + ".bias")
    up = linear(x, P.mat(name + ".up.weight"), bias(name + ".up"))
    base = gated_base(act)
    if base is not None:
        f = ACTIVATIONS[base]
        gate = linear(x, P.mat(name + ".gate.weight"), bias(name + ".gate"))
        h = [[f(g) * u for g, u in zip(gr, ur)] for gr, ur in zip(gate, up)]
    else:
        f = ACTIVATIONS[act]
        h = [[f(u) for u in ur] for ur in up]
    return linear(h, P.mat(name + ".down.weight"), bias(name + ".down"))


def _stack(m, P, prefix, n, decoder_stack, x, length, memory=None, memory_length=None,
           positions=None):
    base_scale = m.attn_scale if m.attn_scale is not None else 1.0 / math.sqrt(m.head_dim)
    pre = m.norm_placement == "pre"
    rel = None
    if m.rel_buckets:
        # T5: one bias table [buckets, heads] per stack (its layer 0's),
        # added to the self-attention scores of every layer.
        table = P.mat(prefix + "rel_bias")
        t = len(x)
        idx = [[t5_bucket(j - i, not decoder_stack, m.rel_buckets, m.rel_max_distance)
                for j in range(t)] for i in range(t)]
        rel = [[[table[bk][h] for bk in row] for row in idx] for h in range(m.num_heads)]
    for i in range(n):
        s = m.layer(decoder_stack, i)
        b = "%slayers.%d." % (prefix, i)
        scale = base_scale / (i + 1) if m.layer_scale_div else base_scale

        def self_attn(h):
            return _attention_block(m, P, b + "attn", h, h, length, s["mask"],
                                    s["window"], True, scale, rel, positions)

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
    """length: the valid tokens (left-aligned), or a list of booleans (an
    attention mask: pooling takes the first or last token it keeps)."""
    if m.output == "hidden":
        return x
    if m.output == "classes":
        if isinstance(length, list):
            kept = [t for t, ok in enumerate(length) if ok]
            if not kept:
                raise RefError("pooling needs a sequence of at least one token")
            p = x[kept[0] if m.pooling == "first" else kept[-1]]
        elif m.pooling == "first":
            p = x[0]
        else:
            last = length if length is not None else len(x)
            if last < 1:
                raise RefError("pooling 'last' needs a sequence of at least one token")
            p = x[last - 1]
        if m.pooler:
            act = ACTIVATIONS[m.pooler_act]
            p = [act(v) for v in linear([p], P.mat("pooler.weight"),
                                         P.vec("pooler.bias"))[0]]
        return linear([p], P.mat("classifier.weight"), P.opt_vec("classifier.bias"))[0]
    if m.lm_transform:
        act = ACTIVATIONS[m.lm_transform_act or m.activation]
        x = linear(x, P.mat("lm_transform.dense.weight"), P.vec("lm_transform.dense.bias"))
        x = [[act(v) for v in r] for r in x]
        x = [layer_norm(r, P.vec("lm_transform.norm.weight"),
                        P.vec("lm_transform.norm.bias"), m.norm_eps) for r in x]
    if m.lm_scale != 1.0:
        x = [[v * m.lm_scale for v in r] for r in x]
    w = P.mat("lm_head.weight") if P.has("lm_head.weight") else P.mat("embed.tokens")
    return linear(x, w, P.opt_vec("lm_head.bias"))


def _flat(x):
    while x and isinstance(x[0], list):
        x = [v for sub in x for v in sub]
    return x


def _vision_embed(m, P, pixels):
    """ViT: the image [C][H][W] (flat) cut into patches row by row, each
    patch flattened in (c, kh, kw) order and projected (the conv with
    kernel = stride = patch), the CLS token first, positions added."""
    c, hgt, wid, ph, pw = m.image
    if len(pixels) != c * hgt * wid:
        raise RefError("an image of %d values for %d x %d x %d pixels"
                       % (len(pixels), c, hgt, wid))
    patches = []
    for py in range(hgt // ph):
        for px in range(wid // pw):
            row = []
            for ch in range(c):
                for ky in range(ph):
                    at = (ch * hgt + py * ph + ky) * wid + px * pw
                    row.extend(pixels[at:at + pw])
            patches.append(row)
    x = [list(P.vec("embed.cls"))] + linear(patches, P.mat("embed.patch.weight"),
                                            P.vec("embed.patch.bias"))
    pos = P.mat("embed.positions")
    return [vadd(r, pos[t]) for t, r in enumerate(x)]


def hf_positions(m, ids, mask):
    """Hugging Face's default position_ids of one row: RoBERTa counts the
    tokens that are not padding_idx from padding_idx + 1 (its
    create_position_ids_from_input_ids, whatever the mask says); the other
    families take the index in the padded row."""
    if m.position_offset:
        pad = m.position_offset - 1
        out, count = [], 0
        for i in ids:
            count += i != pad
            out.append(pad + count if i != pad else pad)
        return out
    return list(range(len(ids)))


def forward_masked(m, P, ids, masks, position_ids=None):
    """An encoder or decoder on Hugging Face's inputs: masks [B][T] of 0/1
    (keys with 0 are never attended to, any pattern), position_ids [B][T]
    or None for hf_positions."""
    if m.architecture == "encoder_decoder" or m.input == "pixels":
        raise RefError("attention masks are for encoders and decoders of tokens")
    prefix, n, dec = m.stacks()[0]
    out = []
    for b, seq in enumerate(ids):
        keep = [v == 1 for v in masks[b]]
        pos = position_ids[b] if position_ids is not None else hf_positions(m, seq, keep)
        x = _stack(m, P, prefix, n, dec, _embed(m, P, seq, pos), keep, positions=pos)
        out.append(_head(m, P, x, keep))
    return out


def forward(m, P, ids, lengths=None, dec_ids=None, dec_lengths=None):
    """ids: [B][T] ints (or, for an image model, [B] images of C*H*W floats,
    flat or nested). Returns nested lists: [B][T][V|D] or [B][C]."""
    out = []
    if m.input == "pixels":
        prefix, n, dec = m.stacks()[0]
        for img in ids:
            x = _stack(m, P, prefix, n, dec, _vision_embed(m, P, _flat(img)), None)
            out.append(_head(m, P, x, None))
        return out
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
    if kind == "gamma0":  # a gamma stored minus 1 (Gemma's RMSNorm)
        return [0.1 * rng.uniform(-1.0, 1.0) for _ in range(n)]
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
    if m.input == "pixels":
        raise RefError("%s: an image model takes pixels, not tokens (use the pixels "
                       "command)" % args.model)
    if args.batch < 1 or args.seq < 1:
        raise RefError("--batch and --seq must be positive")
    if args.seq > m.max_seq_len:
        raise RefError("--seq %d exceeds the model's max_seq_len %d"
                       % (args.seq, m.max_seq_len))
    rng = random.Random("tfm_ref-tokens:%d" % args.seed)
    if m.pad_token_id is not None and 0 <= m.pad_token_id < m.vocab_size:
        # RoBERTa: Hugging Face derives positions from the non-pad tokens, so
        # the real tokens avoid the pad id (then positions are offset + t).
        pad = m.pad_token_id
        ids = [v + (v >= pad) for v in
               (rng.randrange(m.vocab_size - 1) for _ in range(args.batch * args.seq))]
    else:
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


def cmd_pixels(args):
    m = load_model(args.model)
    if m.input != "pixels":
        raise RefError("%s: pixels are for image models (vit); this model takes tokens"
                       % args.model)
    if args.batch < 1:
        raise RefError("--batch must be positive")
    c, h, w = m.image[:3]
    rng = random.Random("tfm_ref-pixels:%d" % args.seed)
    vals = [rng.uniform(-1.0, 1.0) for _ in range(args.batch * c * h * w)]
    write_npy(args.out, [args.batch, c, h, w], vals, "<f4")
    return 0


def _read_pixels(path, m):
    shape, vals, descr = read_npy(path)
    if descr not in ("<f4", "<f8"):
        raise RefError("%s: pixels must be float32 or float64, got %s" % (path, descr))
    c, h, w = m.image[:3]
    if len(shape) != 4 or list(shape[1:]) != [c, h, w]:
        raise RefError("%s: pixels must be [batch, %d, %d, %d], got shape %s"
                       % (path, c, h, w, list(shape)))
    n = c * h * w
    return [vals[i * n:(i + 1) * n] for i in range(shape[0])]


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
    dec_ids = dec_lengths = None
    if m.input == "pixels":
        for opt, v in (("--lengths", args.lengths), ("--decoder-tokens", args.decoder_tokens),
                       ("--decoder-lengths", args.decoder_lengths)):
            if v:
                raise RefError("%s: an image model takes no %s" % (args.model, opt))
        ids, lengths = _read_pixels(args.tokens, m), None
    else:
        ids = _read_ids(args.tokens, "tokens")
        lengths = _read_lengths(args.lengths, len(ids), "lengths")
        if args.decoder_tokens:
            dec_ids = _read_ids(args.decoder_tokens, "decoder tokens")
            if len(dec_ids) != len(ids):
                raise RefError("%s: %d decoder sequences for %d encoder sequences"
                               % (args.decoder_tokens, len(dec_ids), len(ids)))
            dec_lengths = _read_lengths(args.decoder_lengths, len(ids), "decoder lengths")
        elif m.architecture == "encoder_decoder":
            raise RefError("%s: an encoder_decoder model needs --decoder-tokens"
                           % args.model)
    masks = positions = None
    if args.attention_mask or args.position_ids:
        if lengths is not None or dec_ids is not None:
            raise RefError("--attention-mask/--position-ids are for encoders and "
                           "decoders, without --lengths")
        masks = (_read_ids(args.attention_mask, "attention mask") if args.attention_mask
                 else [[1] * len(r) for r in ids])
        if args.position_ids:
            positions = _read_ids(args.position_ids, "position ids")
        for what, v in (("attention mask", masks), ("position ids", positions)):
            if v is not None and [len(r) for r in v] != [len(r) for r in ids]:
                raise RefError("the %s must have the shape of the tokens" % what)

    def run():
        if masks is not None:
            return forward_masked(m, P, ids, masks, positions)
        return forward(m, P, ids, lengths, dec_ids, dec_lengths)
    out = run()
    if _PRECISION:
        # A weight that a GEMM reads is rounded when tfm loads it, for every
        # use (a tied embedding table is looked up rounded too): find those
        # names in a first pass, round them, run again.
        P.round_gemm_weights()
        out = run()
    if masks is not None:
        return m, out, [[v == 1 for v in r] for r in masks]
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
    t >= length of [B, T, X] outputs are skipped (row_lengths[b] may also be
    a list of booleans: the positions an attention mask keeps). Passes when every compared
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
            if row_lengths is not None:
                keep = row_lengths[b]
                if (not keep[t]) if isinstance(keep, list) else t >= keep:
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
                    "Hugging Face configs (%s)." % ", ".join(HF_FAMILIES))
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

    p = sub.add_parser("pixels", help="write random float32 pixels [B, C, H, W] in "
                                      "[-1, 1] for an image model")
    p.add_argument("model")
    p.add_argument("out")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--seed", type=int, required=True)
    p.set_defaults(fn=cmd_pixels)

    for name, fn, hlp in (("run", cmd_run, "write the float64 reference output"),
                          ("check", cmd_check, "compare an output with the reference")):
        p = sub.add_parser(name, help=hlp)
        p.add_argument("model")
        p.add_argument("weights")
        p.add_argument("tokens", help="token ids [B, T] (an image model: pixels "
                                      "[B, C, H, W])")
        if name == "check":
            p.add_argument("actual")
        p.add_argument("--lengths")
        p.add_argument("--decoder-tokens")
        p.add_argument("--decoder-lengths")
        p.add_argument("--attention-mask",
                       help="Hugging Face's attention_mask [B, T] of 0/1 (any "
                            "pattern; rows it masks are not compared)")
        p.add_argument("--position-ids",
                       help="Hugging Face's position_ids [B, T] (default: as "
                            "the Hugging Face model computes them)")
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
