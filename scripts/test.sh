#!/usr/bin/env bash
# README command 2: builds if needed and runs the whole test suite.
# The output ends with lit's summary and the line "N passed, N failed".
# A test that lit skips (UNSUPPORTED) fails the run: a suite that silently
# stops running because a runtime archive or library went missing must not
# look green.
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
skipped = [t["name"].split(" :: ", 1)[-1] for t in tests
           if t["code"] in {"UNSUPPORTED", "SKIPPED"}]
for n in skipped:
    print(f"unexpectedly skipped: {n}")
f += len(skipped)
print(f"{p} passed, {f} failed, 0 skipped")
sys.exit(1 if skipped else 0)
PY
summary_rc=$?
[ $rc -ne 0 ] && exit $rc
exit $summary_rc
