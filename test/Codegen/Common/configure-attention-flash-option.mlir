// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention='gpu-flash=4,2,64' | FileCheck %s --check-prefix=R2
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention='gpu-flash=8,1,48,1' | FileCheck %s --check-prefix=W8
// RUN: not tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention='gpu-flash=64,1,64' 2>&1 | FileCheck %s --check-prefix=THREADS
// RUN: not tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention='gpu-flash=4,2' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention='gpu-flash=4,2,40' 2>&1 | FileCheck %s --check-prefix=MALFORMED
// RUN: not tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention='gpu-flash=4,2,64,2' 2>&1 | FileCheck %s --check-prefix=MALFORMED

// -tfm-configure-attention's gpu-flash option sets the tensor-core block
// (warps, row tiles, largest key block, Q shared) with no accumulator cap:
// two tiles with Q in registers take 64-key blocks at D = 128 too. Key
// blocks are powers of two: a largest block of 48 takes 32. A block must
// fit the target's threads per block (1024 on sm_90), and the option takes
// 3 or 4 numbers, the key block a multiple of 16, q_shared 0 or 1.
// R2: #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2>
// W8: #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 32, warps = 8, q_shared = true>
// THREADS: error: -tfm-configure-attention: option 'gpu-flash': 64 warps are more threads than the target's 1024 per block
// MALFORMED: error: -tfm-configure-attention: option 'gpu-flash': expected warps,row_tiles,max_block_k[,q_shared] (positive, max_block_k a multiple of 16, q_shared 0 or 1)
module attributes {tfm.precision = bf16} {
func.func @d128(%q: tensor<?x8x?x128xf32>, %k: tensor<?x8x?x128xf32>, %v: tensor<?x8x?x128xf32>) -> tensor<?x8x?x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.088388347648318 : f64} : tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32> -> tensor<?x8x?x128xf32>
  return %o : tensor<?x8x?x128xf32>
}
}
