#!/usr/bin/env bash
# Prepares the GPU test bundle on this machine (the one with tfmc):
#
#   bench/gpu/prepare.sh OUTDIR [--arch sm_90] [--jobs N] [--only NAME] [--force]
#
# then carry OUTDIR to the GPU machine and run bench/gpu/run.py there
# (docs/gpu-bench.md). Builds tfm first only when build/bin/tfmc is missing.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
if [ ! -x "$root/build/bin/tfmc" ]; then
  "$root/scripts/build.sh"
fi
exec python3 "$root/bench/gpu/prepare.py" "$@"
