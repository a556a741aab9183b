// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-tile-sram

// What -tfm-tile-sram refuses in a configuration it is handed (a user's,
// or one written for another op), each with a message.

// Split-K decode on an op that is not a decode step: its query length
// must be a static 1 (one query row per sequence).
func.func @split_prefill(%q: tensor<?x8x?x64xf32>, %k: tensor<?x1x?x64xf32>, %v: tensor<?x1x?x64xf32>) -> tensor<?x8x?x64xf32> {
  // expected-error @+1 {{has a lowering_config with key_splits = 4 (split-K decode), which needs a static query length of 1}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_tiling<block_q = 1, block_k = 64, group = 8, footprint_bytes = 1000, budget_bytes = 2000, key_splits = 4>} : tensor<?x8x?x64xf32>, tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// A configuration for another GQA group.
func.func @wrong_group(%q: tensor<?x8x1x64xf32>, %k: tensor<?x1x?x64xf32>, %v: tensor<?x1x?x64xf32>) -> tensor<?x8x1x64xf32> {
  // expected-error @+1 {{has a lowering_config for 2 query head(s) per K/V head, but has 8}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_tiling<block_q = 1, block_k = 64, group = 2, footprint_bytes = 1000, budget_bytes = 2000>} : tensor<?x8x1x64xf32>, tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32> -> tensor<?x8x1x64xf32>
  return %o : tensor<?x8x1x64xf32>
}
