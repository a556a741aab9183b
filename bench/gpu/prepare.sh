#!/usr/bin/env bash
# Prepares the GPU test bundle on this machine (the one with tfmc):
#
#   bench/gpu/prepare.sh OUTDIR [--arch sm_90] [--jobs N] [--only NAME] [--force]
#
# then carry OUTDIR to the GPU machine and run bench/gpu/device.sh there
# (run.py, kernels.py and compute-sanitizer; docs/gpu-bench.md). OUTDIR/kernels/
# holds kernels.py's single attention and GEMM libraries (--only kernels:
# those alone). Builds tfm first only when build/bin/tfmc is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ ! -x "$root/build/bin/tfmc" ]; then
  "$root/scripts/build.sh"
fi
exec python3 "$root/bench/gpu/prepare.py" "$@"
