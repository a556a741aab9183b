// RUN: tfm-opt %s -tfm-tile-sram='fast-memory-bytes=16384 vector-bits=512' | FileCheck %s --check-prefix=L1-16K
// RUN: tfm-opt %s -tfm-tile-sram='fast-memory-bytes=49152 vector-bits=512' | FileCheck %s --check-prefix=L1-48K
// RUN: tfm-opt %s -tfm-tile-sram='fast-memory-bytes=1048576 vector-bits=512' | FileCheck %s --check-prefix=L2-1M
// RUN: tfm-opt %s -tfm-tile-sram='fast-memory-bytes=16384 vector-bits=128' | FileCheck %s --check-prefix=NEON-16K
// RUN: tfm-opt %s -tfm-tile-sram='fast-memory-bytes=1048576 vector-bits=512 max-block-q=32 max-block-k=256' | FileCheck %s --check-prefix=CAPPED

// The tile choice follows the budget: causal MHA, D = 64, f32, whose
// working set is 528*Br + 512*Bc + 4*Br*Bc bytes (Q tile, K and V block,
// score tile, accumulator, row statistics). The largest Br*Bc that fits
// wins, ties going to the larger Br; Bc is a multiple of the f32 lanes of
// vector-bits; max-block-q/k cap both.

// L1-16K:   {tfm.tile = {block_k = 16 : i64, block_q = 8 : i64, budget_bytes = 16384 : i64, footprint_bytes = 12928 : i64, group = 1 : i64}}
// L1-48K:   {tfm.tile = {block_k = 16 : i64, block_q = 64 : i64, budget_bytes = 49152 : i64, footprint_bytes = 46080 : i64, group = 1 : i64}}
// L2-1M:    {tfm.tile = {block_k = 128 : i64, block_q = 128 : i64, budget_bytes = 1048576 : i64, footprint_bytes = 198656 : i64, group = 1 : i64}}
// NEON-16K: {tfm.tile = {block_k = 8 : i64, block_q = 16 : i64, budget_bytes = 16384 : i64, footprint_bytes = 13056 : i64, group = 1 : i64}}
// CAPPED:   {tfm.tile = {block_k = 256 : i64, block_q = 32 : i64, budget_bytes = 1048576 : i64, footprint_bytes = 180736 : i64, group = 1 : i64}}
func.func @budgets(%q: tensor<?x8x?x64xf32>, %k: tensor<?x8x?x64xf32>, %v: tensor<?x8x?x64xf32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}
