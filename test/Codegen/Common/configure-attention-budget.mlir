// A CPU query tile's budget is L2 / 8, but at least 128 KiB on an L2 of
// 512 KiB or more (Zen 3's 512 KiB: 64 x 32 tiles at D = 128 instead of
// 32 x 16, 1.02-1.13x); a decode step's one query row keeps L2 / 8 (its
// longer key blocks ran 0.93-0.98x). budget-bytes overrides both.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=524288 threads=1' -split-input-file -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=L2-512K
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=262144 threads=1' -split-input-file -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=L2-256K
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=2097152 threads=1' -split-input-file -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=L2-2M
// RUN: tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=524288 threads=1' -split-input-file -tfm-configure-attention='untiled-max-keys=0 budget-bytes=65536' | FileCheck %s --check-prefix=OPTION
// RUN: not tfm-opt %s -tfm-set-target='vector-bits=256 l2-bytes=524288' -tfm-configure-attention='budget-bytes=-1' 2>&1 | FileCheck %s --check-prefix=BAD

// L2-512K: @prefill
// L2-512K: #tfm.attention_tiling<block_q = 64, block_k = 32, group = 1, footprint_bytes = 107520, budget_bytes = 131072, transposed_scores = true, rescale_threshold = 8>
// L2-512K: @decode
// L2-512K: #tfm.attention_tiling<block_q = 1, block_k = 32, group = 1, footprint_bytes = 33936, budget_bytes = 65536, rescale_threshold = 8>
// L2-256K: @prefill
// L2-256K: #tfm.attention_tiling<block_q = 16, block_k = 8, group = 1, footprint_bytes = 25344, budget_bytes = 32768, transposed_scores = true, rescale_threshold = 8>
// L2-2M: @prefill
// L2-2M: budget_bytes = 262144
// L2-2M: @decode
// L2-2M: budget_bytes = 262144
// OPTION: @prefill
// OPTION: #tfm.attention_tiling<block_q = 32, block_k = 16, group = 1, footprint_bytes = 51712, budget_bytes = 65536, transposed_scores = true, rescale_threshold = 8>
// OPTION: @decode
// OPTION: budget_bytes = 65536
// BAD: error: -tfm-configure-attention: invalid options: {{.*}} and budget-bytes (-1) >= 0
func.func @prefill(%q: tensor<1x8x?x128xf32>, %k: tensor<1x8x?x128xf32>, %v: tensor<1x8x?x128xf32>) -> tensor<1x8x?x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x8x?x128xf32>, tensor<1x8x?x128xf32>, tensor<1x8x?x128xf32> -> tensor<1x8x?x128xf32>
  return %o : tensor<1x8x?x128xf32>
}
func.func @decode(%q: tensor<1x8x1x128xf32>, %k: tensor<1x8x?x128xf32>, %v: tensor<1x8x?x128xf32>) -> tensor<1x8x1x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x8x1x128xf32>, tensor<1x8x?x128xf32>, tensor<1x8x?x128xf32> -> tensor<1x8x1x128xf32>
  return %o : tensor<1x8x1x128xf32>
}

// -----

// bf16 on a CPU without AVX512-BF16 or AMX (Zen 3, stated: the host may
// have them) runs the f32 kernels: the same rule (the rounded copies make
// the tile smaller).
// L2-512K: @prefill_bf16
// L2-512K: #tfm.attention_tiling<block_q = 32, block_k = 32, group = 1, footprint_bytes = 123392, budget_bytes = 131072, transposed_scores = true, rescale_threshold = 8>
module attributes {tfm.precision = bf16, tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 524288, threads = 1>} {
func.func @prefill_bf16(%q: tensor<1x8x?x128xf32>, %k: tensor<1x8x?x128xf32>, %v: tensor<1x8x?x128xf32>) -> tensor<1x8x?x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x8x?x128xf32>, tensor<1x8x?x128xf32>, tensor<1x8x?x128xf32> -> tensor<1x8x?x128xf32>
  return %o : tensor<1x8x?x128xf32>
}
}
