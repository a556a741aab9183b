// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefixes=CHECK,MMA
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention='untiled-max-keys=0 tensor-cores=false' | FileCheck %s --check-prefixes=CHECK,SIMT

// A GPU target's budget is a block's static shared memory (48 KiB), and
// key blocks are whole warps (32). GPT-2's heads (64) at f32: 32 x 32
// tiles (Q 8 KiB, K and V 8 KiB each, scores 4 KiB, accumulator 8 KiB,
// rows 512 B; 16 x 64 would be as large a score tile, and the larger
// query block wins the tie).
// CHECK-LABEL: func.func @gpt2_f32
// CHECK: #tfm.attention_tiling<block_q = 32, block_k = 32, group = 1, footprint_bytes = 37376, budget_bytes = 49152>
func.func @gpt2_f32(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

// -----

// LLaMA's heads (128) in groups of 4 at bf16 on tensor cores: the
// FlashAttention-2 kernel, its 128 rows the 4 heads of a group at 32
// queries, key blocks of 32 (blocks of 64 would need 192 accumulators per
// thread).
// MMA-LABEL: func.func @llama_bf16
// MMA: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 32, heads = 4, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>
// Without tensor cores, with the rounded copies of Q, P, K and V even one
// query row against one warp of keys needs 70720 bytes, more than a block
// has. On a GPU that is no error: the op keeps the untiled lowering (GEMM
// and row-reduction kernels).
// SIMT-LABEL: func.func @llama_bf16
// SIMT: tfm.lowering_config = #tfm.attention_untiled
module attributes {tfm.precision = bf16} {
func.func @llama_bf16(%q: tensor<?x32x?x128xf32>, %k: tensor<?x8x?x128xf32>, %v: tensor<?x8x?x128xf32>) -> tensor<?x32x?x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.088388347648318 : f64} : tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32> -> tensor<?x32x?x128xf32>
  return %o : tensor<?x32x?x128xf32>
}
}
