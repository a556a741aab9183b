#!/usr/bin/env bash
# Hardware counters of a few kernels of one forward, on the GPU machine
# (docs/gpu-bench.md, "Profiling one kernel"):
#
#   bench/gpu/ncu.sh BUNDLE OUTDIR [MODEL] [KERNEL_REGEX] [BATCHxSEQ]
#
# Defaults: gpt2-small at 1x512, layer 0's attention CTA, QKV projection,
# FFN GEMMs and the LM head. Nsight Compute replays each kernel with the
# clocks left as they are (--clock-control none, METHOD.md) and writes
# OUTDIR/ncu.txt (the sections, readable) and OUTDIR/ncu.csv (the same, one
# metric per row).
set -u
bundle=$1 out=$2
model=${3:-gpt2-small}
kernels=${4:-'^(h_0_attn_3|h_0_attn_q_1|h_0_ffn_1|h_0_ffn_4|lm_head_1)$'}
shape=${5:-1x512}
mkdir -p "$out"
ncu=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
if [ -z "$ncu" ]; then
  echo "ncu: not found" | tee "$out/ncu.txt"
  exit 1
fi
here=$(dirname "$0")
args=(--clock-control none --kernel-name "regex:$kernels" --launch-count 16
      --section SpeedOfLight --section Occupancy --section LaunchStats
      --section WarpStateStats --section MemoryWorkloadAnalysis
      --section ComputeWorkloadAnalysis
      --metrics l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,smsp__inst_executed_op_global_ld.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,smsp__inst_executed_op_bar.sum)
run=(python3 "$here/forward.py" "$bundle" "$model" --batch "${shape%x*}" --seq "${shape#*x}")
"$ncu" "${args[@]}" "${run[@]}" > "$out/ncu.txt" 2>&1
echo "ncu (text): exit $?"
"$ncu" "${args[@]}" --csv --page details "${run[@]}" > "$out/ncu.csv" 2>&1
echo "ncu (csv): exit $?"
grep -E '^  [a-z_0-9]+ \(|Duration|Compute \(SM\) Throughput|Memory Throughput|Achieved Occupancy|Registers Per Thread|Block Limit|bank_conflicts|Warp Cycles Per Issued|Stall|inst_executed_op_bar' "$out/ncu.txt" | head -150
