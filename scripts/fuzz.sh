#!/usr/bin/env bash
# Runs one libFuzzer harness (tools/tfm-fuzz) on a corpus seeded from
# well-formed files, for a time budget:
#
#   scripts/fuzz.sh safetensors|npy|manifest|spec|hf-config|tfm-ir|c-abi SECONDS [BUILD_DIR] [-- LIBFUZZER_ARGS]
#
# The corpus lives in BUILD_DIR/fuzz-corpus/TARGET (kept between runs, so a
# campaign can be resumed); crashes are written to BUILD_DIR/fuzz-crashes/
# TARGET. The last lines libFuzzer prints give the executions and coverage
# that docs/reliability.md records. Exit status: libFuzzer's (non-zero when
# it found a crash, a leak or a timeout).
set -euo pipefail

if [ $# -lt 2 ]; then
  sed -n '2,12p' "$0" >&2
  exit 2
fi
target=$1
seconds=$2
shift 2
build=build
if [ $# -gt 0 ] && [ "$1" != "--" ]; then
  build=$1
  shift
fi
[ $# -gt 0 ] && [ "$1" = "--" ] && shift
here=$(cd "$(dirname "$0")/.." && pwd)
fuzzer="$build/bin/tfm-fuzz-$target"
if [ ! -x "$fuzzer" ]; then
  echo "fuzz.sh: $fuzzer is not built (needs clang with libFuzzer: scripts/install-deps.sh installs libclang-rt-22-dev; then scripts/build.sh)" >&2
  exit 2
fi
corpus="$build/fuzz-corpus/$target"
crashes="$build/fuzz-crashes/$target"
mkdir -p "$corpus" "$crashes"
python3 "$here/scripts/fuzz_seeds.py" "$target" "$corpus"
# -timeout: a single input taking longer than 10 s is a hang.
exec "$fuzzer" "$corpus" -max_total_time="$seconds" -timeout=10 \
  -rss_limit_mb=2048 -artifact_prefix="$crashes/" -print_final_stats=1 "$@"
