#!/usr/bin/env bash
# Configures (once) and builds tfm into build/. Extra arguments go to CMake
# at configure time, e.g. scripts/build.sh -DTFM_ENABLE_SANITIZERS=ON.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${TFM_BUILD_DIR:-build}
if [ ! -f "$BUILD_DIR/build.ninja" ] || [ $# -gt 0 ]; then
  # A configure that failed before (say, run before install-deps.sh put
  # clang there) leaves a cache with empty Release flags: start afresh.
  if [ ! -f "$BUILD_DIR/build.ninja" ]; then
    rm -f "$BUILD_DIR/CMakeCache.txt"
  fi
  cmake -S . -B "$BUILD_DIR" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_C_COMPILER=/usr/lib/llvm-22/bin/clang \
    -DCMAKE_CXX_COMPILER=/usr/lib/llvm-22/bin/clang++ \
    -DLLVM_USE_LINKER=lld \
    "$@" >/dev/null
fi
ninja -C "$BUILD_DIR" ${TFM_NINJA_TARGETS:-}
