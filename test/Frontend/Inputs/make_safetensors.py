#!/usr/bin/env python3
"""Writes small safetensors files for frontend tests (stdlib only).

usage: make_safetensors.py OUT [--from-ir IR.mlir|-] [--drop NAME]...
           [--shape NAME=AxB] [--dtype NAME=DT] [--add NAME:DT:AxB]...
           [--all-dtype DT] [--shards N] [--strip-prefix P]

--from-ir takes every `tfm.weight "NAME" : tensor<...xf32>` of a tfm module
(e.g. `tfmc spec.json --emit=tfm`) as the tensor list. With --shards N, OUT
is a folder that receives model-0000K-of-0000N.safetensors shards and a
model.safetensors.index.json. --strip-prefix renames "P.x" to "x" (HF
checkpoints saved from the bare model class). Tensor data is zeros.
"""
import argparse
import json
import os
import re
import struct
import sys

SIZES = {"F64": 8, "F32": 4, "F16": 2, "BF16": 2, "I64": 8, "I32": 4,
         "I16": 2, "I8": 1, "U8": 1, "BOOL": 1}


def parse_shape(text):
    return [int(d) for d in text.split("x")] if text else []


def write_file(path, tensors):
    header, offset = {}, 0
    for name, (dtype, shape) in tensors.items():
        count = 1
        for d in shape:
            count *= d
        size = count * SIZES[dtype]
        header[name] = {"dtype": dtype, "shape": shape,
                        "data_offsets": [offset, offset + size]}
        offset += size
    blob = json.dumps(header).encode()
    blob += b" " * (-len(blob) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(blob)))
        f.write(blob)
        f.write(b"\0" * offset)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--from-ir")
    p.add_argument("--drop", action="append", default=[])
    p.add_argument("--shape", action="append", default=[])
    p.add_argument("--dtype", action="append", default=[])
    p.add_argument("--add", action="append", default=[])
    p.add_argument("--all-dtype")
    p.add_argument("--shards", type=int, default=0)
    p.add_argument("--strip-prefix", default="")
    args = p.parse_args()

    tensors = {}
    if args.from_ir:
        text = sys.stdin.read() if args.from_ir == "-" else open(args.from_ir).read()
        for name, dims in re.findall(
                r'tfm\.weight "([^"]+)" : tensor<([0-9x]*)x?f32>', text):
            tensors[name] = ("F32", parse_shape(dims.rstrip("x")))
    if args.strip_prefix:
        tensors = {(n[len(args.strip_prefix):]
                    if n.startswith(args.strip_prefix) else n): v
                   for n, v in tensors.items()}
    if args.all_dtype:
        tensors = {n: (args.all_dtype, s) for n, (_, s) in tensors.items()}
    for name in args.drop:
        del tensors[name]
    for edit in args.shape:
        name, shape = edit.split("=")
        tensors[name] = (tensors[name][0], parse_shape(shape))
    for edit in args.dtype:
        name, dtype = edit.split("=")
        tensors[name] = (dtype, tensors[name][1])
    for spec in args.add:
        name, dtype, shape = spec.split(":")
        tensors[name] = (dtype, parse_shape(shape))

    if not args.shards:
        write_file(args.out, tensors)
        return
    os.makedirs(args.out, exist_ok=True)
    names = list(tensors)
    weight_map = {}
    for k in range(args.shards):
        shard = "model-%05d-of-%05d.safetensors" % (k + 1, args.shards)
        part = {n: tensors[n] for n in names[k::args.shards]}
        write_file(os.path.join(args.out, shard), part)
        weight_map.update({n: shard for n in part})
    with open(os.path.join(args.out, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f, indent=2)


if __name__ == "__main__":
    main()
