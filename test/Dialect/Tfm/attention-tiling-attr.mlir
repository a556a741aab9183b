// RUN: tfm-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The tiles of an attention (-tfm-configure-attention writes them,
// -tfm-tile-sram carries them out) round-trip; key_splits (split-K decode)
// defaults to 1 and is printed only when it is not, transposed_scores
// (Sᵀ = K·Qᵀ per key block) to false, likewise.
// CHECK-LABEL: func.func @tiles
// CHECK-SAME: s = #tfm.attention_tiling<block_q = 16, block_k = 32, group = 2, footprint_bytes = 1000, budget_bytes = 2000>
// CHECK-LABEL: func.func @decode
// CHECK-SAME: s = #tfm.attention_tiling<block_q = 1, block_k = 128, group = 8, footprint_bytes = 1000, budget_bytes = 2000, untiled_max_keys = 256, key_splits = 16>
func.func @tiles() attributes {s = #tfm.attention_tiling<block_q = 16, block_k = 32, group = 2, footprint_bytes = 1000, budget_bytes = 2000, key_splits = 1>} {
  return
}
func.func @decode() attributes {s = #tfm.attention_tiling<block_q = 1, block_k = 128, group = 8, footprint_bytes = 1000, budget_bytes = 2000, untiled_max_keys = 256, key_splits = 16>} {
  return
}
// CHECK-LABEL: func.func @transposed
// CHECK-SAME: s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = true>
// CHECK-LABEL: func.func @not_transposed
// CHECK-SAME: s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000>
func.func @transposed() attributes {s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = true>} {
  return
}
func.func @not_transposed() attributes {s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = false>} {
  return
}

// rescale_threshold (conditional rescaling) defaults to 0, printed when set.
// CHECK-LABEL: func.func @conditional_rescale
// CHECK-SAME: s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = true, rescale_threshold = 8>
func.func @conditional_rescale() attributes {s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = true, rescale_threshold = 8>} {
  return
}

// -----

// expected-error @+1 {{'rescale_threshold' must be in [0, 64], not -1}}
func.func @negative_threshold() attributes {s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, rescale_threshold = -1>} {
  return
}

// -----

// expected-error @+1 {{'rescale_threshold' must be in [0, 64], not 65}}
func.func @large_threshold() attributes {s = #tfm.attention_tiling<block_q = 64, block_k = 64, group = 1, footprint_bytes = 1000, budget_bytes = 2000, rescale_threshold = 65>} {
  return
}

// -----

// expected-error @+1 {{'key_splits' must be positive}}
func.func @zero_splits() attributes {s = #tfm.attention_tiling<block_q = 1, block_k = 32, group = 1, footprint_bytes = 1000, budget_bytes = 2000, key_splits = 0>} {
  return
}

// -----

// expected-error @+1 {{'key_splits' > 1 (split-K decode) needs 'block_q' = 1, not 4}}
func.func @split_query_blocks() attributes {s = #tfm.attention_tiling<block_q = 4, block_k = 32, group = 1, footprint_bytes = 1000, budget_bytes = 2000, key_splits = 2>} {
  return
}

// -----

// expected-error @+1 {{'block_q', 'block_k' and 'group' must be positive}}
func.func @zero_block() attributes {s = #tfm.attention_tiling<block_q = 0, block_k = 32, group = 1, footprint_bytes = 1000, budget_bytes = 2000>} {
  return
}

// -----

// expected-error @+1 {{'transposed_scores' is for query blocks, not split-K decode ('key_splits' > 1)}}
func.func @transposed_split() attributes {s = #tfm.attention_tiling<block_q = 1, block_k = 32, group = 16, footprint_bytes = 1000, budget_bytes = 2000, key_splits = 2, transposed_scores = true>} {
  return
}
