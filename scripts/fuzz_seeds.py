#!/usr/bin/env python3
"""Writes the seed corpus of a fuzz harness (scripts/fuzz.sh): small
well-formed inputs of each format, and the manifests of the examples as
tfmc writes them. Existing files are kept.

Usage: fuzz_seeds.py safetensors|npy|manifest|spec|hf-config|tfm-ir|c-abi CORPUS_DIR
"""
import json
import os
import struct
import sys


def safetensors(tensors, meta=None):
    header, data = {}, b""
    if meta:
        header["__metadata__"] = meta
    for name, dtype, shape, payload in tensors:
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [len(data), len(data) + len(payload)]}
        data += payload
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def npy(descr, shape, payload, version=(1, 0)):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d," % d for d in shape) if len(shape) == 1
        else ", ".join(str(d) for d in shape))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + " " * pad + "\n"
    return (b"\x93NUMPY" + bytes(version) + struct.pack("<H", len(header)) +
            header.encode() + payload)


def seeds(target):
    if target == "safetensors":
        yield "two", safetensors([
            ("embed.tokens", "F32", [4, 2], struct.pack("<8f", *range(8))),
            ("norm.weight", "BF16", [2], b"\x80\x3f\x00\x40")])
        yield "meta", safetensors(
            [("w", "F16", [2, 2], struct.pack("<4e", 1, 2, 3, 4))],
            {"format": "pt"})
        yield "empty", safetensors([])
        yield "scalar", safetensors([("s", "I64", [], struct.pack("<q", 7))])
    elif target == "npy":
        yield "ids", npy("<i4", [2, 3], struct.pack("<6i", *range(6)))
        yield "lengths", npy("<i8", [2], struct.pack("<2q", 3, 1))
        yield "f32", npy("<f4", [1, 2, 2], struct.pack("<4f", 1, 2, 3, 4))
        yield "v2", npy("<i4", [1], struct.pack("<i", 5), version=(2, 0))
    elif target == "manifest":
        here = os.path.dirname(os.path.abspath(__file__))
        with open(os.path.join(here, "..", "test", "Support", "Inputs",
                               "manifest.json"), "rb") as f:
            yield "check", f.read()
        yield "cuda", json.dumps({
            "format": "tfm-manifest/1", "model_name": "m",
            "architecture": "encoder_decoder", "device": "cuda",
            "precision": "bf16", "vocab_size": 8, "max_seq_len": 4,
            "output": "logits", "output_dims": [8],
            "inputs": ["src", "src_lengths", "tgt", "tgt_lengths"],
            "weights": [{"name": "a", "shape": [8, 2], "round": "bf16"},
                        {"name": "b", "shape": [2], "round": "bf16",
                         "storage": "bf16"}],
            "prepared": [{"name": "a:packed[n=0,panel=8]",
                          "shape": [1, 2, 8]}]}).encode()
    elif target in ("spec", "hf-config"):
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.join(here, "..")
        inputs = os.path.join(root, "test", "Integration", "reference", "Inputs")
        if target == "spec":
            folders = [(os.path.join(root, "examples"), ""),
                       (inputs, "tiny-")]
        else:
            folders = [(inputs, "hf-")]
        for folder, prefix in folders:
            for name in sorted(os.listdir(folder)):
                if name.endswith(".json") and name.startswith(prefix):
                    with open(os.path.join(folder, name), "rb") as f:
                        yield name[:-5], f.read()
    elif target == "tfm-ir":
        # The dialect's own tests, one seed per split-input-file chunk, and
        # the IR example.
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.join(here, "..")
        tests = os.path.join(root, "test", "Dialect", "Tfm")
        for name in sorted(os.listdir(tests)):
            if not name.endswith(".mlir"):
                continue
            with open(os.path.join(tests, name)) as f:
                chunks = f.read().split("// -----")
            for i, chunk in enumerate(chunks):
                yield "%s-%d" % (name[:-5], i), chunk.encode()
        with open(os.path.join(root, "examples", "attention.mlir"), "rb") as f:
            yield "attention", f.read()
    elif target == "c-abi":
        # Call descriptions (tools/tfm-fuzz/fuzz-c-abi.cpp reads its choices
        # from the bytes): all-zero (one sequence of one token), and bytes
        # from a fixed generator, short and long (batches of several
        # sequences of many tokens).
        yield "zeros", bytes(64)
        state = 12345
        for i, size in enumerate((16, 64, 256, 1024, 4096)):
            data = bytearray()
            for _ in range(size):
                state = (state * 1103515245 + 12345) % (1 << 31)
                data.append(state >> 23)
            yield "random-%d" % i, bytes(data)
    else:
        raise SystemExit("fuzz_seeds.py: unknown target " + target)


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    target, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    for name, data in seeds(target):
        path = os.path.join(out, "seed-" + name)
        if not os.path.exists(path):
            with open(path, "wb") as f:
                f.write(data)


if __name__ == "__main__":
    main()
