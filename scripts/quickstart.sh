#!/usr/bin/env bash
# README command 1: installs what is missing, builds tfm into build/, then
# runs the main job on the bundled example.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
echo "== tfm-opt round-trips the bundled tfm IR example"
build/bin/tfm-opt examples/attention.mlir
