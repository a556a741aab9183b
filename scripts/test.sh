#!/usr/bin/env bash
# README command 2: builds if needed and runs the whole test suite.
# The output ends with lit's summary and the line "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh || exit 1
BUILD_DIR=${TFM_BUILD_DIR:-build}
/usr/lib/llvm-22/bin/lit -sv --timeout 600 --output "$BUILD_DIR/lit-results.json" "$BUILD_DIR/test"
rc=$?
/usr/bin/python3 - "$BUILD_DIR/lit-results.json" <<'PY'
import json, sys
try:
    tests = json.load(open(sys.argv[1]))["tests"]
except Exception as e:
    print(f"could not read lit results: {e}")
    sys.exit(0)
ok = {"PASS", "XFAIL"}
bad = {"FAIL", "XPASS", "TIMEOUT", "UNRESOLVED"}
p = sum(t["code"] in ok for t in tests)
f = sum(t["code"] in bad for t in tests)
s = sum(t["code"] in {"UNSUPPORTED", "SKIPPED"} for t in tests)
print(f"{p} passed, {f} failed, {s} skipped")
PY
exit $rc
