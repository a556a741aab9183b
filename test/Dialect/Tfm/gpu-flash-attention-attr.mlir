// RUN: tfm-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The tensor-core schedule of an attention (-tfm-configure-attention
// writes it, -tfm-gpu-flash-attention carries it out) round-trips: block_q
// x heads = 16 x warps x row_tiles rows (row_tiles 1 is not printed),
// block_k a multiple of 16.
// CHECK-LABEL: func.func @mha
// CHECK-SAME: s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>
// CHECK-LABEL: func.func @gqa
// CHECK-SAME: s = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 32, warps = 4>
// CHECK-LABEL: func.func @one_warp
// CHECK-SAME: s = #tfm.gpu_flash_attention<block_q = 1, heads = 16, block_k = 16, warps = 1>
// CHECK-LABEL: func.func @two_row_tiles
// CHECK-SAME: s = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2>
// CHECK-LABEL: func.func @one_row_tile
// CHECK-SAME: s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>
func.func @mha() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} {
  return
}
func.func @gqa() attributes {s = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 32, warps = 4>} {
  return
}
func.func @one_warp() attributes {s = #tfm.gpu_flash_attention<block_q = 1, heads = 16, block_k = 16, warps = 1>} {
  return
}
func.func @two_row_tiles() attributes {s = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2>} {
  return
}
func.func @one_row_tile() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4, row_tiles = 1>} {
  return
}

// -----

// It is an op's tfm.lowering_config (parsed, printed and parsed again
// there too).
// CHECK-LABEL: func.func @on_op
// CHECK: tfm.attention {{.*}}tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 32, heads = 2, block_k = 16, warps = 4>
func.func @on_op(%q: tensor<?x4x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) -> tensor<?x4x?x64xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 32, heads = 2, block_k = 16, warps = 4>} : tensor<?x4x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x4x?x64xf32>
  return %o : tensor<?x4x?x64xf32>
}

// -----

// Every warp owns 16 rows: 64 x 2 rows are not 4 warps' 64.
// expected-error @+1 {{'block_q' x 'heads' (128) must be 16 x 'warps' x 'row_tiles' (64): each warp owns 'row_tiles' tiles of 16 rows}}
func.func @rows() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 2, block_k = 64, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{'block_q' x 'heads' (24) must be 16 x 'warps' x 'row_tiles' (32): each warp owns 'row_tiles' tiles of 16 rows}}
func.func @rows_short() attributes {s = #tfm.gpu_flash_attention<block_q = 8, heads = 3, block_k = 64, warps = 2>} {
  return
}

// -----

// expected-error @+1 {{'block_k' must be a multiple of 16 (the k of P V's fragments)}}
func.func @block_k() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 24, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{'block_k' must be a multiple of 16 (the k of P V's fragments)}}
func.func @block_k_8() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 8, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{'block_q', 'heads', 'block_k', 'warps' and 'row_tiles' must be positive}}
func.func @zero_block_q() attributes {s = #tfm.gpu_flash_attention<block_q = 0, heads = 1, block_k = 64, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{'block_q', 'heads', 'block_k', 'warps' and 'row_tiles' must be positive}}
func.func @negative_heads() attributes {s = #tfm.gpu_flash_attention<block_q = -64, heads = -1, block_k = 64, warps = 4>} {
  return
}

// -----

// A zero block_k is a multiple of 16, but not positive.
// expected-error @+1 {{'block_q', 'heads', 'block_k', 'warps' and 'row_tiles' must be positive}}
func.func @zero_block_k() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 0, warps = 4>} {
  return
}

// -----

// expected-error @+1 {{'block_q', 'heads', 'block_k', 'warps' and 'row_tiles' must be positive}}
func.func @zero_warps() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 0>} {
  return
}

// -----

// Two row tiles per warp: 64 rows are not 4 warps' 128.
// expected-error @+1 {{'block_q' x 'heads' (64) must be 16 x 'warps' x 'row_tiles' (128): each warp owns 'row_tiles' tiles of 16 rows}}
func.func @rows_tiles() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4, row_tiles = 2>} {
  return
}

// -----

// expected-error @+1 {{'block_q', 'heads', 'block_k', 'warps' and 'row_tiles' must be positive}}
func.func @zero_row_tiles() attributes {s = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4, row_tiles = 0>} {
  return
}
