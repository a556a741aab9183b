// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure))' | FileCheck %s
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{cache-k=128 cache-cols=1024}))' | FileCheck %s --check-prefix=SET
// RUN: not tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{cache-cols=48}))' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{cache-k=4611686018427387904}))' 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{cache-k=-1}))' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{register-rows=12}))' | FileCheck %s --check-prefix=ROWS
// RUN: not tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{register-rows=17}))' 2>&1 | FileCheck %s --check-prefix=ROWS-BAD

// An f32 GEMM's cache tiles from the target's caches (48 KiB L1, 2 MiB L2,
// AVX-512: NR = 32): kc = 49152 / 2 / (4 * 32) = 192, nc = 2 MiB / 2 /
// (4 * 192) = 1365 -> 1344 (a multiple of NR). cache-k and cache-cols set
// both (A/B runs: tfm-bench --versus); the 32 KiB / 1 MiB defaults gave
// 128 and 1024.
// CHECK: #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344
// SET: #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 128, nc = 1024
// BAD: error: -tfm-cpu-configure: cache-k is 0 and cache-cols 48, must be 0 to 1048576, cache-cols a multiple of nr (32 on this target)
// register-rows sets mr (12-row tiles measured no faster than 8 on a Xeon
// with AVX-512, docs/performance.md).
// ROWS: #tfm.cpu_contraction<lanes = 16, mr = 12, nr = 32, kc = 192, nc = 1344
// ROWS-BAD: error: -tfm-cpu-configure: register-rows is 17, must be 0 to 16
// HUGE: error: -tfm-cpu-configure: cache-k is 4611686018427387904 and cache-cols 0, must be 0 to 1048576
// NEG: error: -tfm-cpu-configure: cache-k is -1 and cache-cols 0, must be 0 to 1048576
func.func @gemm(%a: tensor<?x768xf32>, %b: tensor<768x2304xf32>, %c: tensor<?x2304xf32>) -> tensor<?x2304xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %b : tensor<?x768xf32>, tensor<768x2304xf32>) outs(%c : tensor<?x2304xf32>) {
  ^bb0(%x: f32, %y: f32, %z: f32):
    %m = arith.mulf %x, %y : f32
    %s = arith.addf %z, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x2304xf32>
  return %r : tensor<?x2304xf32>
}
