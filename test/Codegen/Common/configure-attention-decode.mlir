// Split-K decode: -tfm-configure-attention gives an attention with a static
// Tq of 1 (a generation library's @decode) on a CPU target with more
// threads than K/V heads key_splits = ceil(threads / Hkv), so that
// -tfm-tile-sram splits each sequence's keys over the threads a batch of
// one leaves idle; option decode-key-splits fixes the count (1: off).
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=1048576 threads=16' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=T16
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=1048576 threads=2' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=T2
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=1048576 threads=1' -tfm-configure-attention=untiled-max-keys=0 | FileCheck %s --check-prefix=OFF
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=1048576 threads=16' -tfm-configure-attention='untiled-max-keys=0 decode-key-splits=1' | FileCheck %s --check-prefix=OFF
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=1048576 threads=16' -tfm-configure-attention='untiled-max-keys=0 decode-key-splits=5' | FileCheck %s --check-prefix=FIVE
// A GPU target splits only when the option asks (tiled CTAs, one per key
// range; not yet measured on a device, so not the default).
// RUN: tfm-opt %s -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention='untiled-max-keys=0' | FileCheck %s --check-prefix=OFF
// RUN: tfm-opt %s -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention='untiled-max-keys=0 decode-key-splits=5' | FileCheck %s --check-prefix=FIVE
// With the cost model's runtime branch (dynamic Tk), the tiled side splits.
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512 l2-bytes=1048576 threads=16' -tfm-configure-attention | FileCheck %s --check-prefix=BRANCH
// RUN: not tfm-opt %s -tfm-set-target='threads=16' -tfm-configure-attention='decode-key-splits=-1' 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: error: -tfm-configure-attention: invalid options: max-block-q (128) must be >= 1, max-block-k (0), untiled-max-keys (256), decode-key-splits (-1) and budget-bytes (0) >= 0

// MQA (one K/V head, 8 query heads): one decode row per K/V head group.
// T16-LABEL: func.func @decode_mqa
// T16: #tfm.attention_tiling<block_q = 1, block_k = 128, group = 8, footprint_bytes = {{[0-9]+}}, budget_bytes = 131072, key_splits = 16, rescale_threshold = 8>
// T2-LABEL: func.func @decode_mqa
// T2: #tfm.attention_tiling<block_q = 1, {{.*}}, key_splits = 2, rescale_threshold = 8>
// FIVE-LABEL: func.func @decode_mqa
// FIVE: key_splits = 5{{>|, rescale_threshold = 8>}}
// BRANCH-LABEL: func.func @decode_mqa
// BRANCH: untiled_max_keys = 256, key_splits = 16, rescale_threshold = 8>
// OFF-LABEL: func.func @decode_mqa
// OFF-NOT: key_splits
// OFF-LABEL: func.func @decode_gqa4
func.func @decode_mqa(%q: tensor<?x8x1x64xf32>, %k: tensor<?x1x?x64xf32>, %v: tensor<?x1x?x64xf32>) -> tensor<?x8x1x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x1x64xf32>, tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32> -> tensor<?x8x1x64xf32>
  return %o : tensor<?x8x1x64xf32>
}

// GQA with 4 K/V heads: 16 threads take 4 ranges each; 2 threads are busy
// with the heads alone.
// T16-LABEL: func.func @decode_gqa4
// T16: #tfm.attention_tiling<block_q = 1, {{.*}}, key_splits = 4, rescale_threshold = 8>
// T2-LABEL: func.func @decode_gqa4
// T2-NOT: key_splits
// T2-LABEL: func.func @decode_mha16
func.func @decode_gqa4(%q: tensor<?x16x1x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>) -> tensor<?x16x1x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x16x1x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32> -> tensor<?x16x1x64xf32>
  return %o : tensor<?x16x1x64xf32>
}

// As many K/V heads as threads, and a prefill (dynamic Tq): no split.
// T16-LABEL: func.func @decode_mha16
// T16-NOT: key_splits
// T16-LABEL: func.func @prefill_mqa
// T16-NOT: key_splits
// T16: return
func.func @decode_mha16(%q: tensor<?x16x1x64xf32>, %k: tensor<?x16x?x64xf32>, %v: tensor<?x16x?x64xf32>) -> tensor<?x16x1x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x16x1x64xf32>, tensor<?x16x?x64xf32>, tensor<?x16x?x64xf32> -> tensor<?x16x1x64xf32>
  return %o : tensor<?x16x1x64xf32>
}

func.func @prefill_mqa(%q: tensor<?x8x?x64xf32>, %k: tensor<?x1x?x64xf32>, %v: tensor<?x1x?x64xf32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x1x?x64xf32>, tensor<?x1x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}
