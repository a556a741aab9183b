# ===- weightgen.py - random weights two machines write bit for bit -----=== #
#
# Full-size models (GPT-2 small, BERT-base, transformer-base: 250-500 MB of
# float32) are too big to carry to the GPU machine. prepare.py writes their
# weights here with plain Python to compute the float64 reference, and
# run.py writes the same file there with numpy. Both go through
# write_safetensors below, so both files must be identical; prepare.py
# records the file's sha256 and run.py checks it before using the file.
#
# A tensor's values come from SHAKE-256 of "seed:name", one 32-bit
# little-endian word u per value:
#
#     r = ((u >> 8) + 0.5) * 2^-24          in (0, 1), exact in float64
#     v = center + half_width * (2r - 1)    float64, then rounded to float32
#
# The numpy and the plain-Python path perform the same IEEE operations in
# the same order, so they round alike. The spread of each kind matches
# tfm_ref.py's `init` (norm gammas 1 +- 0.1, biases +- 0.1, embeddings with
# standard deviation 1, matrices 1/sqrt(fan_in)), uniform instead of normal.
#
# ===----------------------------------------------------------------------=== #

import hashlib
import json
import math
import sys
from array import array

try:
    import numpy as np
except ImportError:  # prepare.py runs without numpy
    np = None


def spread(kind, fan_in):
    """(center, half width) of the uniform distribution of a tensor kind
    (the kinds of tfm_ref.py's tensor lists)."""
    if kind == "gamma":
        return 1.0, 0.1
    if kind in ("beta", "bias"):
        return 0.0, 0.1
    if kind == "embedding":
        return 0.0, math.sqrt(3.0)
    if kind == "matrix":
        return 0.0, math.sqrt(3.0 / fan_in)
    raise ValueError("unknown tensor kind %r" % kind)


def _count(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def tensor_bytes(seed, name, shape, kind, fan_in):
    """The tensor's values as little-endian float32 bytes."""
    n = _count(shape)
    center, half = spread(kind, fan_in)
    raw = hashlib.shake_256(("tfm-gpu-bench:%d:%s" % (seed, name)).encode()).digest(4 * n)
    if np is not None:
        u = np.frombuffer(raw, dtype="<u4")
        r = ((u >> 8).astype(np.float64) + 0.5) * 2.0 ** -24
        return (center + half * (2.0 * r - 1.0)).astype("<f4").tobytes()
    words = array("I")
    if words.itemsize != 4:
        raise RuntimeError("this Python's array('I') is not 32-bit")
    words.frombytes(raw)
    if sys.byteorder != "little":
        words.byteswap()
    k = 2.0 ** -24
    values = array("f", [center + half * (2.0 * (((u >> 8) + 0.5) * k) - 1.0)
                         for u in words])
    if sys.byteorder != "little":
        values.byteswap()
    return values.tobytes()


def write_safetensors(path, tensors, seed):
    """Writes [(name, shape, kind, fan_in)] as float32 safetensors, tensors
    in the order given, and returns the file's sha256 (hex)."""
    header = {"__metadata__": {"format": "pt", "generator": "bench/gpu/weightgen.py",
                               "seed": str(seed)}}
    offset = 0
    for name, shape, _, _ in tensors:
        size = 4 * _count(shape)
        header[name] = {"dtype": "F32", "shape": list(shape),
                        "data_offsets": [offset, offset + size]}
        offset += size
    hbytes = json.dumps(header, separators=(",", ":")).encode("utf-8")
    hbytes += b" " * ((8 - len(hbytes) % 8) % 8)
    digest = hashlib.sha256()
    with open(path, "wb") as f:
        for chunk in (len(hbytes).to_bytes(8, "little"), hbytes):
            f.write(chunk)
            digest.update(chunk)
        for name, shape, kind, fan_in in tensors:
            data = tensor_bytes(seed, name, shape, kind, fan_in)
            f.write(data)
            digest.update(data)
    return digest.hexdigest()
