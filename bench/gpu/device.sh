#!/usr/bin/env bash
# The one command for a lent GPU machine (docs/gpu-bench.md): the whole
# bundle through run.py, then the single attention and GEMM kernels against
# PyTorch (kernels.py), then CUDA's compute-sanitizer (memcheck, racecheck,
# synccheck) on the small models' GPU kernels, within about 9.5 minutes.
#
#   bench/gpu/device.sh BUNDLE OUTDIR [SANITIZED_MODEL...]
#
# OUTDIR gets results.json/.txt, run.log, smi.txt, kernels.json/.txt and
# sanitizer.log (one section per tool): seven files (the device tool brings
# back eight at most). SANITIZED_MODEL: run.py --only patterns, substrings of
# model names (default: the tiny GPT and LLaMA decoders and the tiny
# encoder-decoder, each at f32, bf16 and f16). The script's exit status is
# 0 whatever the checks say: read results.txt and kernels.txt.
#
# Environment:
#   TFM_DEVICE_PARTS      which parts run, in this order (default
#                         "run kernels sanitizer"); e.g. TFM_DEVICE_PARTS=kernels
#   TFM_DEVICE_BUDGET     seconds the whole script may take (default 570: the
#                         device tool stops a command at 600); later parts
#                         shrink or are left out to stay within it
#   TFM_DEVICE_DEADLINE   run.py's --deadline (300 s)
#   TFM_KERNELS_DEADLINE  kernels.py's --deadline (150 s, less when the
#                         budget has less left)
#   TFM_SANITIZER_TOOLS, TFM_SANITIZER_TIMEOUT (75 s per tool)
set -u
# Absolute: kernels.py's workers run in folders of their own.
bundle=$(cd "$1" && pwd) out=$2
shift 2
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(tiny-gpt-decoder tiny-llama-decoder tiny-transformer-base)
start=$(date +%s)
budget=${TFM_DEVICE_BUDGET:-570}
parts=" ${TFM_DEVICE_PARTS:-run kernels sanitizer} "
left() { echo $(( budget - ($(date +%s) - start) )); }
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
if [[ $parts == *" run "* ]]; then
  if [ -f "$bundle/index.json" ]; then
    python3 "$here/run.py" "$bundle" --out "$out/results.json" --deadline "${TFM_DEVICE_DEADLINE:-300}" \
      2>&1 | tee "$out/run.log" | grep -v '^    '
  else
    echo "run.py: no $bundle/index.json, skipped"
  fi
fi

if [[ $parts == *" kernels "* ]]; then
  if [ -f "$bundle/kernels/kernels.json" ]; then
    deadline=${TFM_KERNELS_DEADLINE:-150}
    # What is left of the budget, less the table and JSON at the end.
    room=$(( $(left) - 15 ))
    [ "$room" -lt "$deadline" ] && deadline=$room
    if [ "$deadline" -ge 30 ]; then
      # Each shape's worker is killed at the deadline; the table still comes.
      python3 "$here/kernels.py" "$bundle" --out "$out/kernels.json" --deadline "$deadline"
    else
      echo "kernels.py: skipped, $(left) s left of TFM_DEVICE_BUDGET=$budget" | tee "$out/kernels.txt"
    fi
  else
    echo "kernels.py: no $bundle/kernels/kernels.json (prepare.sh without --only, or --only kernels), skipped"
  fi
fi

[[ $parts == *" sanitizer "* ]] || exit 0
[ -f "$bundle/index.json" ] || exit 0
sanitizer=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
if [ -z "$sanitizer" ]; then
  echo "compute-sanitizer: not found" | tee "$out/sanitizer.log"
  exit 0
fi
only=()
for m in "${models[@]}"; do only+=(--only "$m"); done
: > "$out/sanitizer.log"
for tool in ${TFM_SANITIZER_TOOLS:-memcheck racecheck synccheck}; do
  limit=${TFM_SANITIZER_TIMEOUT:-75}
  room=$(( $(left) - 5 ))
  [ "$room" -lt "$limit" ] && limit=$room
  if [ "$limit" -lt 30 ]; then
    echo "compute-sanitizer --tool $tool: skipped, $(left) s left of TFM_DEVICE_BUDGET=$budget" \
      | tee -a "$out/sanitizer.log"
    continue
  fi
  tstart=$(date +%s)
  log=/tmp/sanitizer-$tool.log
  timeout "$limit" "$sanitizer" --tool "$tool" --print-limit 20 \
    --target-processes all --error-exitcode 3 \
    python3 "$here/run.py" "$bundle" "${only[@]}" --out "/tmp/sanitize-$tool.json" \
      --model-timeout 60 --deadline 60 > "$log" 2>&1
  rc=$?
  summary=$(grep -E "ERROR SUMMARY|RACECHECK SUMMARY|passed, " "$log" | sort | uniq -c | tr -s ' ' | head -6 | paste -sd';')
  line="compute-sanitizer --tool $tool: exit $rc after $(( $(date +%s) - tstart )) s (limit $limit s); $summary"
  echo "$line"
  { echo "===== $line"; cat "$log"; echo; } >> "$out/sanitizer.log"
done
