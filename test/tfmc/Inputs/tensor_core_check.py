"""Checks that a 16-bit GPU build runs its attention and GEMMs on tensor cores.

Usage: tfmc MODEL --target=nvptx --precision=bf16 --report=json ... | tensor_core_check.py
Reads tfmc's --report=json: every tfm.attention of the model must be a
FlashAttention-2 kernel ("attention-mma") and every GEMM kernel a
tensor-core one ("gemm-mma"); prints the counts, or what runs elsewhere.
"""
import collections
import json
import sys


def main():
    report = json.load(sys.stdin)
    ops = [k for k in report.get("kernels", []) if k.get("op") == "tfm.attention"]
    kinds = collections.Counter(k["kind"] for k in report["gpu"]["kernels"])
    problems = []
    if kinds["attention-mma"] != len(ops):
        problems.append(f"{len(ops)} attention ops but {kinds['attention-mma']} "
                        "attention-mma kernels")
    for kind in ("attention", "gemm"):
        if kinds[kind]:
            problems.append(f"{kinds[kind]} {kind} kernels off the tensor cores")
    if not kinds["gemm-mma"]:
        problems.append("no gemm-mma kernel")
    if problems:
        print("tensor cores: " + "; ".join(problems))
        return 1
    print(f"tensor cores: {len(ops)} attention, {kinds['gemm-mma']} GEMM kernels")
    return 0


if __name__ == "__main__":
    sys.exit(main())
