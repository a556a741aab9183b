// A CPU target's budget is an eighth of its L2: the l2-bytes below give
// budgets of 16 KiB, 48 KiB and 1 MiB.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=131072' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=L1-16K
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=393216' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=L1-48K
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=8388608' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=L2-1M
// RUN: tfm-opt %s -tfm-set-target='vector-bits=128 l2-bytes=131072' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=NEON-16K
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=8388608' -tfm-configure-attention='max-block-q=32 max-block-k=256 untiled-max-keys=0' | FileCheck %s --check-prefix=CAPPED
// The configuration is what -tfm-tile-sram builds: the loop nest carries it.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=131072' -tfm-configure-attention=untiled-max-keys=0 -tfm-tile-sram | FileCheck %s --check-prefix=L1-16K
// Every CPU op gets the conditional rescaling's threshold (rescale-threshold,
// default 8; 0 turns it off, and it is not printed); out of [0, 64] is an
// error.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=393216' -tfm-configure-attention='untiled-max-keys=0 rescale-threshold=3' | FileCheck %s --check-prefix=TAU3
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=393216' -tfm-configure-attention='untiled-max-keys=0 rescale-threshold=0' | FileCheck %s --check-prefix=TAU0
// RUN: not tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=393216' -tfm-configure-attention='rescale-threshold=65' 2>&1 | FileCheck %s --check-prefix=TAUBAD
// TAU3: transposed_scores = true, rescale_threshold = 3>
// TAU0: transposed_scores = true>
// TAUBAD: error: -tfm-configure-attention: invalid options: rescale-threshold (65) must be in [0, 64]
// An op that has a configuration keeps it.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=131072' -tfm-configure-attention=untiled-max-keys=0 -tfm-configure-attention='max-block-q=4 untiled-max-keys=0' | FileCheck %s --check-prefix=L1-16K

// The tile choice follows the budget: causal MHA, D = 64, f32, whose
// working set is 528*Br + 512*Bc + 4*Br*Bc bytes (Q tile, K and V block,
// score tile, accumulator, row statistics). The largest Br*Bc that fits
// wins; of tiles of one size, a CPU takes the squarest (48K: 32 x 32, not
// 64 x 16 or 16 x 64), then the larger Br (NEON: 16 x 8, not 8 x 16); Bc
// is a multiple of the f32 lanes of the vector; max-block-q/k cap both.
// Query blocks of a multiple of the lanes get transposed scores (16K: 8
// rows are half a vector of 16 lanes, so not there).

// L1-16K:   tfm.lowering_config = #tfm.attention_tiling<block_q = 8, block_k = 16, group = 1, footprint_bytes = 12928, budget_bytes = 16384, rescale_threshold = 8>
// L1-48K:   tfm.lowering_config = #tfm.attention_tiling<block_q = 32, block_k = 32, group = 1, footprint_bytes = 37376, budget_bytes = 49152, transposed_scores = true, rescale_threshold = 8>
// L2-1M:    tfm.lowering_config = #tfm.attention_tiling<block_q = 128, block_k = 128, group = 1, footprint_bytes = 198656, budget_bytes = 1048576, transposed_scores = true, rescale_threshold = 8>
// NEON-16K: tfm.lowering_config = #tfm.attention_tiling<block_q = 16, block_k = 8, group = 1, footprint_bytes = 13056, budget_bytes = 16384, transposed_scores = true, rescale_threshold = 8>
// CAPPED:   tfm.lowering_config = #tfm.attention_tiling<block_q = 32, block_k = 256, group = 1, footprint_bytes = 180736, budget_bytes = 1048576, transposed_scores = true, rescale_threshold = 8>
func.func @budgets(%q: tensor<?x8x?x64xf32>, %k: tensor<?x8x?x64xf32>, %v: tensor<?x8x?x64xf32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}
