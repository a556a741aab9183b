#!/usr/bin/env bash
# Installs what tfm needs from Debian's packages (LLVM/MLIR 22, CMake, Ninja),
# then the Python package (python/, editable) and what its tests need
# (numpy, tokenizers, pytest, safetensors) into a virtual environment,
# build/python-venv ($TFM_PYTHON_VENV): Debian's Python is externally
# managed, so pip installs nothing outside one.
# Idempotent: does nothing when everything is already installed.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"

PKGS=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools clang-22 lld-22
      libomp-22-dev libclang-rt-22-dev cmake ninja-build python3 python3-psutil
      python3-venv)

missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "tfm: installing ${missing[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Python virtual environment. Up to date when its stamp (a hash of
# python/pyproject.toml, which lists the dependencies) matches and its Python
# imports everything, with `tfm` from this checkout's python/.
VENV=${TFM_PYTHON_VENV:-$ROOT/build/python-venv}
stamp="$(sha256sum "$ROOT/python/pyproject.toml" | cut -d' ' -f1)"
if [ "$(cat "$VENV/.tfm-stamp" 2>/dev/null)" = "$stamp" ] &&
   "$VENV/bin/python" - "$ROOT/python/tfm" <<'PY' 2>/dev/null
import os, sys
import numpy, pytest, safetensors, tokenizers, tfm
sys.exit(os.path.dirname(os.path.realpath(tfm.__file__)) != os.path.realpath(sys.argv[1]))
PY
then
  exit 0
fi
echo "tfm: installing the Python package and its test dependencies into $VENV" >&2
# A venv whose Python no longer runs (the system Python changed) is rebuilt.
"$VENV/bin/python" -c '' 2>/dev/null || /usr/bin/python3 -m venv --clear "$VENV"
"$VENV/bin/python" -m pip install -q --disable-pip-version-check -e "$ROOT/python[test]"
echo "$stamp" > "$VENV/.tfm-stamp"
