#!/usr/bin/env bash
# README command 2: builds if needed and runs the whole test suite: lit, then
# the Python package's pytest suite (python/tests) from the virtual
# environment that install-deps.sh sets up, against this build's tools, then
# the readers' and the runtime's lit tests again under AddressSanitizer and
# UndefinedBehaviorSanitizer (scripts/sanitize.sh, its own build in
# build-asan; TFM_SKIP_SANITIZERS=1 leaves that stage out).
# The output ends with the line "N passed, N failed, 0 skipped" counting all
# three runs.
# A test that lit skips (UNSUPPORTED) or that pytest skips fails the run: a
# suite that silently stops running because a runtime archive, library or
# Python package went missing must not look green.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh || exit 1
BUILD_DIR=${TFM_BUILD_DIR:-build}
/usr/lib/llvm-22/bin/lit -sv --timeout 600 --output "$BUILD_DIR/lit-results.json" "$BUILD_DIR/test"
rc=$?
VENV=${TFM_PYTHON_VENV:-build/python-venv}
rm -f "$BUILD_DIR/pytest-results.xml"
TFM_BIN="$(cd "$BUILD_DIR" && pwd)/bin" "$VENV/bin/python" -m pytest -q -rfEs \
  -p no:cacheprovider --junitxml="$BUILD_DIR/pytest-results.xml" python/tests
py_rc=$?
san_rc=0
SAN_RESULTS=""
if [ "${TFM_SKIP_SANITIZERS:-0}" != 1 ]; then
  scripts/sanitize.sh
  san_rc=$?
  SAN_RESULTS="${TFM_ASAN_BUILD_DIR:-build-asan}/lit-results.json"
fi
/usr/bin/python3 - "$BUILD_DIR/lit-results.json" "$BUILD_DIR/pytest-results.xml" \
  "$SAN_RESULTS" "$san_rc" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
p = f = 0
skipped = []
ok = {"PASS", "XFAIL"}
bad = {"FAIL", "XPASS", "TIMEOUT", "UNRESOLVED"}
# The main lit run, then (when it ran) the sanitized one, whose tests count
# again under their own name.
for path, prefix in ((sys.argv[1], ""), (sys.argv[3], "sanitized: ")):
    if not path:
        continue
    try:
        tests = json.load(open(path))["tests"]
    except Exception as e:
        print(f"could not read {prefix}lit results: {e}")
        tests = []
        f += 1
    p += sum(t["code"] in ok for t in tests)
    f += sum(t["code"] in bad for t in tests)
    skipped += [prefix + t["name"].split(" :: ", 1)[-1] for t in tests
                if t["code"] in {"UNSUPPORTED", "SKIPPED"}]
# A sanitizer report with every test passing (a step under `not`) fails too.
if sys.argv[4] != "0" and f == 0:
    print("the sanitized run failed (scripts/sanitize.sh's output above)")
    f += 1
try:
    cases = list(ET.parse(sys.argv[2]).getroot().iter("testcase"))
    if not cases:
        print("pytest ran no test")
        f += 1
except Exception as e:
    print(f"could not read pytest results: {e}")
    cases = []
    f += 1
for c in cases:
    name = f"{c.get('classname', '').replace('.', '/')}.py::{c.get('name')}"
    skip = c.find("skipped")
    if c.find("failure") is not None or c.find("error") is not None:
        f += 1
    elif skip is not None and skip.get("type") != "pytest.xfail":
        skipped.append(f"{name} ({skip.get('message', '')})")
    else:
        p += 1
for n in skipped:
    print(f"unexpectedly skipped: {n}")
f += len(skipped)
print(f"{p} passed, {f} failed, 0 skipped")
sys.exit(1 if skipped or f else 0)
PY
summary_rc=$?
[ $rc -ne 0 ] && exit $rc
[ $py_rc -ne 0 ] && exit $py_rc
[ $san_rc -ne 0 ] && exit $san_rc
exit $summary_rc
