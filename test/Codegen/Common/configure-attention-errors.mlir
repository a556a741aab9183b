// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-set-target='vector-bits=512 l2-bytes=64000' -tfm-configure-attention=untiled-max-keys=0
// RUN: not tfm-opt %s -split-input-file -tfm-set-target -tfm-configure-attention='max-block-q=0' 2>&1 | FileCheck %s --check-prefix=OPTS
// RUN: not tfm-opt %s -split-input-file -tfm-configure-attention 2>&1 | FileCheck %s --check-prefix=NOTARGET

// What -tfm-configure-attention refuses, each with a message that names
// the limit.

// OPTS: error: -tfm-configure-attention: invalid options: max-block-q (0) must be >= 1, max-block-k (0), untiled-max-keys (256), decode-key-splits (0) and budget-bytes (0) >= 0
// NOTARGET: error: -tfm-configure-attention: the module has no target to size attention tiles for ('tfm.target' is missing or neither #tfm.cpu_target nor #tfm.gpu_target; tfmc sets it, -tfm-set-target sets the host's)

// A target with a 64000-byte L2 gives attention 8000 bytes, which cannot
// hold even one query row against one 16-key block when D = 64: Q row 256
// + K/V block 8192 + scores 64 + accumulator 256 + row statistics 16 =
// 8784 bytes.
func.func @budget_too_small(%q: tensor<?x8x?x64xf32>, %k: tensor<?x8x?x64xf32>, %v: tensor<?x8x?x64xf32>) -> tensor<?x8x?x64xf32> {
  // expected-error @+1 {{fast-memory budget of 8000 bytes is too small for any tile: the smallest legal tile, block_q = 1 and block_k = 16 (one vector), with 1 query head(s) per K/V head, D = 64 and Dv = 64, needs 8784 bytes}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// A K/V head shared by G query heads needs G Q rows, score rows and
// accumulator rows per query position: 8 query heads on 2 K/V heads with
// D = 16 fit (the smallest tile needs 2880 bytes)...
func.func @fits(%q: tensor<?x8x?x16xf32>, %k: tensor<?x2x?x16xf32>, %v: tensor<?x2x?x16xf32>) -> tensor<?x8x?x16xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.25 : f64} : tensor<?x8x?x16xf32>, tensor<?x2x?x16xf32>, tensor<?x2x?x16xf32> -> tensor<?x8x?x16xf32>
  return %o : tensor<?x8x?x16xf32>
}

// -----

// ...but one K/V head shared by 64 query heads (MQA) with D = 16 needs
// 64 * (64 + 64 + 64 + 16) + 16 * 128 = 15360 bytes for the smallest tile.
func.func @mqa_too_small(%q: tensor<?x64x?x16xf32>, %k: tensor<?x1x?x16xf32>, %v: tensor<?x1x?x16xf32>) -> tensor<?x64x?x16xf32> {
  // expected-error @+1 {{with 64 query head(s) per K/V head, D = 16 and Dv = 16, needs 15360 bytes}}
  %o = tfm.attention %q, %k, %v {scale = 0.25 : f64} : tensor<?x64x?x16xf32>, tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x64x?x16xf32>
  return %o : tensor<?x64x?x16xf32>
}

// -----

// Head sizes must be static (the tiles are static).
func.func @dynamic_head_size(%q: tensor<?x8x?x?xf32>, %k: tensor<?x8x?x?xf32>, %v: tensor<?x8x?x?xf32>) -> tensor<?x8x?x?xf32> {
  // expected-error @+1 {{cannot be tiled: head counts ('query' dim 1, 'key' dim 1) and head sizes ('query' dim 3, 'value' dim 3) must be static, found 'tensor<?x8x?x?xf32>' and 'tensor<?x8x?x?xf32>'}}
  %o = tfm.attention %q, %k, %v {scale = 0.25 : f64} : tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32>, tensor<?x8x?x?xf32> -> tensor<?x8x?x?xf32>
  return %o : tensor<?x8x?x?xf32>
}
