// RUN: tfm-opt %s -tfm-configure-attention | FileCheck %s

// The built-in tensor-core block's fallbacks, on a target that states no
// opt-in shared memory (a block has its 48 KiB): D = Dv = 192 (staged rows
// of 200) cannot take two row tiles (16-key blocks need 208 accumulators
// per thread, over 160), nor one tile with Q in a buffer of its own (16-key
// blocks: 2 x (32 + 64 + 32) x 200 = 51200 bytes), so it takes one tile
// with Q staged in the K buffer (2 x (64 + 32) x 200 = 38400 bytes).
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 16, warps = 4>
module attributes {tfm.precision = bf16, tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @d192(%q: tensor<?x4x?x192xf32>, %k: tensor<?x4x?x192xf32>, %v: tensor<?x4x?x192xf32>) -> tensor<?x4x?x192xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.072168783648703 : f64} : tensor<?x4x?x192xf32>, tensor<?x4x?x192xf32>, tensor<?x4x?x192xf32> -> tensor<?x4x?x192xf32>
  return %o : tensor<?x4x?x192xf32>
}
}
