"""Copies a safetensors file with tensor names rewritten (F32 out).

    rename_tensors.py IN OUT --strip-prefix P    drop P from names that have it
    rename_tensors.py IN OUT --add-prefix P      put P before every name

Reads and writes with scripts/tfm_ref.py.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import tfm_ref  # noqa: E402

src, dst, mode, prefix = sys.argv[1:5]
tensors = []
for name, (shape, vals) in tfm_ref.read_safetensors(src).items():
    if mode == "--strip-prefix":
        if name.startswith(prefix):
            name = name[len(prefix):]
    elif mode == "--add-prefix":
        name = prefix + name
    else:
        sys.exit("rename_tensors.py: unknown mode " + mode)
    tensors.append((name, shape, vals))
tfm_ref.write_safetensors(dst, tensors, "F32")
