"""Writes deterministic weights for every tensor a model manifest lists.

  weights_for_manifest.py MANIFEST OUT [--dtype F32|F16|BF16] [--prefix P]
                          [--drop NAME] [--transpose NAME]

Values come from a fixed LCG, scaled by 0.1 (norm weights are 1 + noise)
and rounded to values that F16 and BF16 represent exactly, so the same
weights written as F32, F16 or BF16 must give bit-identical model outputs.
--prefix prepends P to every name (Hugging Face style); --drop leaves a
tensor out; --transpose writes a 2-D tensor with its dimensions swapped.
Written with scripts/tfm_ref.py.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "scripts"))
import tfm_ref  # noqa: E402

args = sys.argv[1:]
opts = {"--dtype": "F32", "--prefix": "", "--drop": None, "--transpose": None}
for flag in list(opts):
    if flag in args:
        i = args.index(flag)
        opts[flag] = args[i + 1]
        del args[i : i + 2]
manifest = json.load(open(args[0]))
out = args[1]

state = 12345


def next_value():
    global state
    state = (state * 1103515245 + 12345) % (1 << 31)
    # Multiples of 1/64 in [-0.5, 0.5): exact in F16 and BF16.
    return ((state >> 8) % 64 - 32) / 64.0


tensors = []
for w in manifest["weights"]:
    name, shape = w["name"], list(w["shape"])
    count = 1
    for d in shape:
        count *= d
    norm = "norm" in name and name.endswith(".weight")
    values = [(1.0 if norm else 0.0) + 0.2 * next_value() for _ in range(count)]
    values = [round(v * 64) / 64 for v in values]
    if name == opts["--drop"]:
        continue
    if name == opts["--transpose"]:
        shape = shape[::-1]
    tensors.append((opts["--prefix"] + name, shape, values))
tfm_ref.write_safetensors(out, tensors, opts["--dtype"])
