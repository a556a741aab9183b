#!/usr/bin/env bash
# Session 21's one device call (bench/gpu/ then held it): the whole bundle at 63fd2f4
# (attention block), the kernels against SDPA/cuBLAS with the old block as
# variants, GPT-2 at 04065e3 (bias fusion) and without it, racecheck.
set -u
B=$(cd "$(dirname "$0")" && pwd)
O=$1
mkdir -p $O/main $O/bias $O/nobias
export PYTHONUNBUFFERED=1
start=$(date +%s)
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv > $O/smi.txt 2>&1
timeout 230 python3 $B/run.py $B/bundle --out $O/main/results.json --deadline 190 --time-budget 8 --model-timeout 90 > $O/main/run.log 2>&1
echo "main run: $(( $(date +%s) - start )) s"
timeout 110 python3 $B/kernels.py $B/bundle --out $O/main/kernels.json --deadline 90 --time-budget 2 > $O/main/kernels.log 2>&1
echo "kernels: $(( $(date +%s) - start )) s"
timeout 110 python3 $B/run.py $B/bundle-bias --out $O/bias/results.json --deadline 90 --time-budget 10 > $O/bias/run.log 2>&1
echo "bias: $(( $(date +%s) - start )) s"
timeout 60 python3 $B/run.py $B/bundle-nobias --out $O/nobias/results.json --deadline 40 --time-budget 10 > $O/nobias/run.log 2>&1
echo "nobias: $(( $(date +%s) - start )) s"
left=$(( 540 - ($(date +%s) - start) ))
if [ $left -gt 40 ]; then
  s=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
  timeout $(( left - 10 )) $s --tool racecheck --print-limit 20 --target-processes all \
    python3 $B/run.py $B/bundle --only tiny-gpt-decoder@bf16 --only hf-llama@f16 --out /tmp/rc.json --model-timeout 60 --deadline 30 > $O/racecheck.log 2>&1
  echo "racecheck rc=$?: $(( $(date +%s) - start )) s"
fi
cd $O && tar czf all.tgz main bias nobias smi.txt racecheck.log 2>/dev/null; rm -rf main bias nobias
