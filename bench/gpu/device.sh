#!/usr/bin/env bash
# The one command for a lent GPU machine (docs/gpu-bench.md): the whole
# bundle through run.py, then CUDA's compute-sanitizer (memcheck, racecheck,
# synccheck) on the small models' GPU kernels, within about 8 minutes.
#
#   bench/gpu/device.sh BUNDLE OUTDIR [SANITIZED_MODEL...]
#
# OUTDIR gets results.json/.txt, run.log, smi.txt and one log per
# sanitizer tool. SANITIZED_MODEL: run.py --only patterns, substrings of
# model names (default: the tiny GPT and LLaMA decoders and the tiny
# encoder-decoder, each at f32, bf16 and f16). The script's exit status is
# 0 whatever the checks say: read results.txt.
# TFM_SANITIZER_TOOLS picks the tools, TFM_DEVICE_DEADLINE run.py's
# --deadline (300 s).
set -u
bundle=$1 out=$2
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(tiny-gpt-decoder tiny-llama-decoder tiny-transformer-base)
mkdir -p "$out"
export PYTHONUNBUFFERED=1
{
  date -u +%FT%TZ
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
    --format=csv
  nvidia-smi -q | grep -iE "product name|cuda version|persistence|compute mode" || true
  lscpu | grep -iE "model name|^cpu\(s\)" || true
} > "$out/smi.txt" 2>&1
cat "$out/smi.txt"

here=$(dirname "$0")
python3 "$here/run.py" "$bundle" --out "$out/results.json" --deadline "${TFM_DEVICE_DEADLINE:-300}" \
  2>&1 | tee "$out/run.log" | grep -v '^    '

sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -z "$sanitizer" ]; then
  echo "compute-sanitizer: not found" | tee "$out/sanitizer.log"
  exit 0
fi
only=()
for m in "${models[@]}"; do only+=(--only "$m"); done
for tool in ${TFM_SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
  start=$(date +%s)
  timeout "${TFM_SANITIZER_TIMEOUT:-75}" "$sanitizer" --tool "$tool" --print-limit 20 \
    --target-processes all --error-exitcode 3 \
    python3 "$here/run.py" "$bundle" "${only[@]}" --out "/tmp/sanitize-$tool.json" \
      --model-timeout 60 --deadline 60 > "$out/sanitizer-$tool.log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$out/sanitizer-$tool.log" | sort | uniq -c | tr -s ' ' | head -6 | paste -sd';')
  echo "compute-sanitizer --tool $tool: exit $rc after $(( $(date +%s) - start )) s; $summary"
done
