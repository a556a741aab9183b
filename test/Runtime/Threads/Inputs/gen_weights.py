"""Writes deterministic pseudo-random F32 weights as safetensors.

  gen_weights.py OUT NAME=D0xD1[:SCALE[:OFFSET]] ...

Element i of the n-th tensor is OFFSET + SCALE * sin(0.7 i + 1.3 n + 0.1)
(defaults: SCALE 0.3, OFFSET 0): smooth, bounded, different per tensor.
Written with scripts/tfm_ref.py.
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "..", "scripts"))
import tfm_ref  # noqa: E402

tensors = []
for n, arg in enumerate(sys.argv[2:]):
    name, spec = arg.split("=", 1)
    parts = spec.split(":")
    shape = [int(d) for d in parts[0].split("x")]
    scale = float(parts[1]) if len(parts) > 1 else 0.3
    offset = float(parts[2]) if len(parts) > 2 else 0.0
    values = [offset + scale * math.sin(0.7 * i + 1.3 * n + 0.1)
              for i in range(math.prod(shape))]
    tensors.append((name, shape, values))
tfm_ref.write_safetensors(sys.argv[1], tensors, "F32")
