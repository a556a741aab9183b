// RUN: not tfm-opt %s -pass-pipeline='builtin.module(func.func(tfm-gpu-distribute{threads-per-block=100}))' 2>&1 | FileCheck %s
// CHECK: threads-per-block=100 must be a multiple of 32 in [32, 1024]{{$}}
// The target's block limit bounds the option.
// RUN: not tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{gpu-chip=sm_90},func.func(tfm-gpu-distribute{threads-per-block=2048}))' 2>&1 | FileCheck %s --check-prefix=TARGET
// TARGET: threads-per-block=2048 must be a multiple of 32 in [32, 1024] (the target's max_threads_per_block)
func.func @f() {
  return
}
