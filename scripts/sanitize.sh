#!/usr/bin/env bash
# The lit tests of tfm's readers and runtime under AddressSanitizer and
# UndefinedBehaviorSanitizer (scripts/test.sh runs it after the main suite;
# docs/sanitizers.md):
#
#   scripts/sanitize.sh [LIT_PATH...]
#
# Builds what those tests run, instrumented (-DTFM_ENABLE_SANITIZERS=ON:
# tfmc, tfm-opt, tfm-run, the runtime and support archives that go into
# every model library; -O1, as the sanitizers' documentation recommends,
# which also keeps the build short; the code generators come from the main
# build, uninstrumented) into build-asan (TFM_ASAN_BUILD_DIR),
# then runs lit on test/Frontend (the spec and Hugging Face config readers),
# test/Support (safetensors, .npy, manifests, sharded checkpoints,
# untrusted files) and test/Runtime (the C ABI, sessions, the loader), or
# on the given paths under the build. Every process writes its reports to
# a log folder, so a report from a step run under `not` (whose test passes
# when the expected message was printed first) still fails the run.
# Prints "sanitized: N passed, N failed" and exits non-zero on any failure
# or report.
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${TFM_ASAN_BUILD_DIR:-build-asan}
LIT=/usr/lib/llvm-22/bin/lit
# No stale results if the build below fails.
rm -f "$BUILD_DIR/lit-results.json"

# The code generators are not instrumented: with a main build beside it
# (scripts/test.sh builds it first), the sanitized build links its
# archives of them (TFM_UNINSTRUMENTED_FROM in CMakeLists.txt) rather than
# compiling them again.
# CMake lists those libraries (tfm_uninstrumented) in tfm-uninstrumented.txt.
MAIN_BUILD=${TFM_BUILD_DIR:-build}
from=""
if [ -f "$MAIN_BUILD/build.ninja" ] && [ -s "$MAIN_BUILD/tfm-uninstrumented.txt" ]; then
  mapfile -t uninstrumented < "$MAIN_BUILD/tfm-uninstrumented.txt"
  if ninja -C "$MAIN_BUILD" "${uninstrumented[@]}" >/dev/null; then
    from=$(cd "$MAIN_BUILD" && pwd)
  fi
fi
TFM_BUILD_DIR=$BUILD_DIR TFM_NINJA_TARGETS="tfmc tfm-opt tfm-run TfmRuntime TfmSupport" \
  scripts/build.sh -DTFM_ENABLE_SANITIZERS=ON "-DTFM_UNINSTRUMENTED_FROM=$from" \
  "-DCMAKE_CXX_FLAGS_RELEASE=-O1 -DNDEBUG" "-DCMAKE_C_FLAGS_RELEASE=-O1 -DNDEBUG" ||
  exit 1

paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
  paths=("$BUILD_DIR/test/Frontend" "$BUILD_DIR/test/Support" "$BUILD_DIR/test/Runtime")
fi
logs="$BUILD_DIR/sanitizer-logs"
rm -rf "$logs" && mkdir -p "$logs"
# test/lit.cfg.py puts halt_on_error, print_stacktrace and detect_leaks
# first; these come after them and win (docs/sanitizers.md).
ASAN_OPTIONS="log_path=$(pwd)/$logs/asan" \
UBSAN_OPTIONS="log_path=$(pwd)/$logs/ubsan" \
  "$LIT" -sv --timeout 1200 --output "$BUILD_DIR/lit-results.json" "${paths[@]}"
rc=$?

reports=$(find "$logs" -type f | sort)
if [ -n "$reports" ]; then
  echo "sanitizer reports (one file per process that reported):"
  for f in $reports; do
    echo "== $f"
    head -40 "$f"
  done
fi
/usr/bin/python3 - "$BUILD_DIR/lit-results.json" "$([ -n "$reports" ] && echo 1 || echo 0)" <<'PY'
import json, sys
try:
    tests = json.load(open(sys.argv[1]))["tests"]
except Exception as e:
    print(f"sanitized: could not read lit results: {e}")
    sys.exit(1)
ok = sum(t["code"] in ("PASS", "XFAIL") for t in tests)
bad = len(tests) - ok  # UNSUPPORTED counts as a failure here too
print(f"sanitized: {ok} passed, {bad} failed"
      + (", sanitizer reports above" if sys.argv[2] == "1" else ""))
sys.exit(1 if bad or sys.argv[2] == "1" else 0)
PY
summary=$?
[ $rc -ne 0 ] && exit $rc
exit $summary
