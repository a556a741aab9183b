// Ties between score tiles of one size (Br*Bc). A CPU whose key blocks run
// the f32 kernels takes the squarer [G*Br, Bc] tile, then the larger Br; a
// GPU takes the larger Br.
// RUN: tfm-opt %s -split-input-file -tfm-set-target='vector-bits=512 l2-bytes=1048576' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=CPU
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=GPU

// D = 64 on a 128 KiB budget (an eighth of 1 MiB): 128 x 32 and 64 x 64
// both fit; the CPU takes 64 x 64.
// CPU-LABEL: func.func @mha_d64
// CPU: #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 82944, budget_bytes = 131072, transposed_scores = true, rescale_threshold = 8>
func.func @mha_d64(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

// -----

// D = 128: 64 x 32 and 32 x 64 are as skewed; the larger Br wins.
// CPU-LABEL: func.func @mha_d128
// CPU: #tfm.attention_tiling<block_q = 64, block_k = 32, group = 1,
func.func @mha_d128(%q: tensor<?x8x?x128xf32>, %k: tensor<?x8x?x128xf32>, %v: tensor<?x8x?x128xf32>) -> tensor<?x8x?x128xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.088 : f64} : tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32> -> tensor<?x8x?x128xf32>
  return %o : tensor<?x8x?x128xf32>
}

// -----

// Squareness counts the G query heads that share a K/V block: with 4 per
// group, 32 x 128 (128 rows by 128 keys) beats 64 x 64 (256 rows by 64
// keys), the larger Br of the two.
// CPU-LABEL: func.func @gqa4_d16
// CPU: #tfm.attention_tiling<block_q = 32, block_k = 128, group = 4,
func.func @gqa4_d16(%q: tensor<?x8x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>) -> tensor<?x8x?x16xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.25 : f64} : tensor<?x8x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x8x?x16xf32>
  return %o : tensor<?x8x?x16xf32>
}

// -----

// A GPU (48 KiB of shared memory, warp-sized key blocks): D = 16 fits
// 128 x 32, 64 x 64 and 32 x 128 alike, and keeps the larger Br. No
// rescale threshold: every key block rescales on a GPU.
// GPU-LABEL: func.func @gpu_d16
// GPU: #tfm.attention_tiling<block_q = 128, block_k = 32, group = 1,
// GPU-NOT: rescale_threshold
// GPU-SAME: >
func.func @gpu_d16(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.25 : f64} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}
