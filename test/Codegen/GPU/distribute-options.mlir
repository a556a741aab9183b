// RUN: not tfm-opt %s -pass-pipeline='builtin.module(func.func(tfm-gpu-distribute{threads-per-block=100}))' 2>&1 | FileCheck %s
// CHECK: threads-per-block=100 must be a multiple of 32 in [32, 1024]
func.func @f() {
  return
}
