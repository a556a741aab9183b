#!/usr/bin/env bash
# Installs what tfm needs from Debian's packages (LLVM/MLIR 22, CMake, Ninja).
# Idempotent: does nothing when everything is already installed.
set -euo pipefail

PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
      libomp-22-dev libclang-rt-22-dev cmake ninja-build python3 python3-psutil)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
echo "tfm: installing ${missing[*]}" >&2
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
