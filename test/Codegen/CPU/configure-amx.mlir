// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure))' | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure{amx-cols=96 amx-k-block=1024}))' | FileCheck %s --check-prefix=SET
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure{amx-k-block=8192}))' | FileCheck %s --check-prefix=WHOLE
// RUN: not tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure{amx-cols=48}))' 2>&1 | FileCheck %s --check-prefix=BADCOLS
// RUN: not tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure{amx-k-block=-32}))' 2>&1 | FileCheck %s --check-prefix=BADK
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure{amx-tail-dot-rows=0}))' | FileCheck %s --check-prefix=NOTAIL
// RUN: not tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-pack-amx,func.func(tfm-cpu-configure{amx-tail-dot-rows=32}))' 2>&1 | FileCheck %s --check-prefix=BADTAIL

// The schedule of a contraction in AMX form (-tfm-pack-amx), from the
// target's caches: a [M, 3072] x [3072, 768] GEMM (GPT-2's FFN down
// projection) on a 48 KiB L1, 2 MiB L2, two threads. cache_cols: the K x
// cols bf16 block of Wp in half of L2 is 1 MiB / 6144 B = 170 -> 160
// columns, then at most N / (2 threads) / 2 = 192 (two column blocks per
// thread): 160, then evened out: 768 / 160 = 4 whole blocks of 192 (not
// five, the last of 128). k_block: 32 rows of bf16 A in an eighth of L2, 256 KiB /
// 64 B = 4096, at most K: the whole 3072. No loop around it, two threads:
// parallel_rows 128.
// CHECK-LABEL: func.func @down
// CHECK: tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 192, k_block = 3072, parallel_rows = 128>
// K = 8192 is blocked: 4096 (and 64 columns: a K x 64 bf16 block is 1 MiB).
// CHECK-LABEL: func.func @long_k
// CHECK: tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 4096, parallel_rows = 128>
// Without AMX (AVX512-BF16 dot products over the same blocks, the same
// k_block rule): the whole 3072.
// CHECK-LABEL: func.func @down_dot
// CHECK: tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 192, k_block = 3072, parallel_rows = 128, dot_products = true>

// amx-cols and amx-k-block set both for every AMX contraction (for A/B
// runs: tfm-bench --versus); k_block is at most K.
// Tiles on a target that also has AVX512-BF16 (every AMX CPU): the last
// rows, when at most 4 (a decode step's one per sequence), on dot products.
// CHECK-LABEL: func.func @down_both
// CHECK: tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 192, k_block = 3072, parallel_rows = 128, tail_dot_rows = 4>
// NOTAIL-LABEL: func.func @down_both
// NOTAIL: tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 192, k_block = 3072, parallel_rows = 128>

// SET-LABEL: func.func @down
// SET: #tfm.cpu_amx_contraction<cache_cols = 96, k_block = 1024, parallel_rows = 128>
// WHOLE-LABEL: func.func @down
// WHOLE: #tfm.cpu_amx_contraction<cache_cols = 192, k_block = 3072, parallel_rows = 128>
// WHOLE-LABEL: func.func @long_k
// WHOLE: #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 8192, parallel_rows = 128>

// BADCOLS: error: -tfm-cpu-configure: amx-cols is 48, must be 0 or a multiple of 32
// BADK: error: -tfm-cpu-configure: amx-k-block is -32, must be 0 or a multiple of 32
// BADTAIL: error: -tfm-cpu-configure: amx-tail-dot-rows is 32, must be in [0, 32)
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #amx} {
  func.func @down(%x: tensor<?x3072xf32>, %acc: tensor<?x768xf32>) -> tensor<?x768xf32> {
    %w = tfm.weight "w" : tensor<3072x768xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(t, n, k) -> (t, k)>, affine_map<(t, n, k) -> (k, n)>, affine_map<(t, n, k) -> (t, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x3072xf32>, tensor<3072x768xf32>) outs(%acc : tensor<?x768xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x768xf32>
    return %r : tensor<?x768xf32>
  }
}

// -----

#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #amx} {
  func.func @long_k(%x: tensor<?x8192xf32>, %acc: tensor<?x768xf32>) -> tensor<?x768xf32> {
    %w = tfm.weight "w" : tensor<8192x768xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(t, n, k) -> (t, k)>, affine_map<(t, n, k) -> (k, n)>, affine_map<(t, n, k) -> (t, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x8192xf32>, tensor<8192x768xf32>) outs(%acc : tensor<?x768xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x768xf32>
    return %r : tensor<?x768xf32>
  }
}

// -----

#dot = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #dot} {
  func.func @down_dot(%x: tensor<?x3072xf32>, %acc: tensor<?x768xf32>) -> tensor<?x768xf32> {
    %w = tfm.weight "w" : tensor<3072x768xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(t, n, k) -> (t, k)>, affine_map<(t, n, k) -> (k, n)>, affine_map<(t, n, k) -> (t, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x3072xf32>, tensor<3072x768xf32>) outs(%acc : tensor<?x768xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x768xf32>
    return %r : tensor<?x768xf32>
  }
}

// -----

#both = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+avx512bf16,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #both} {
  func.func @down_both(%x: tensor<?x3072xf32>, %acc: tensor<?x768xf32>) -> tensor<?x768xf32> {
    %w = tfm.weight "w" : tensor<3072x768xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(t, n, k) -> (t, k)>, affine_map<(t, n, k) -> (k, n)>, affine_map<(t, n, k) -> (t, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x3072xf32>, tensor<3072x768xf32>) outs(%acc : tensor<?x768xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x768xf32>
    return %r : tensor<?x768xf32>
  }
}
