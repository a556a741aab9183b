// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-configure))" | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{mma-large=128,256,32,2,4,3 mma-small=64,64,64,2,2,3 mma-min-blocks=3}))" | FileCheck %s --check-prefix=OPTS
// RUN: not tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{mma-large=128,128,32,2,2}))" 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{mma-large=128,128,24,2,2,3}))" 2>&1 | FileCheck %s --check-prefix=BADK
// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{mma-large=256,256,64,4,4,4}))" 2>&1 | FileCheck %s --check-prefix=TOOBIG
// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{mma-large=32,64,32,2,2,3}))" 2>&1 | FileCheck %s --check-prefix=NOCHOICE

// The built-in large tiles on sm_90: 128 x 128 of 2 x 4 warps in 3 stages
// (48 KiB); rows known only at run time: both schedules, the large one
// from a wave of blocks (132 SMs).
// CHECK-LABEL: func.func @opt_in
// CHECK:  #tfm.gpu_mma<block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>
// CHECK:  #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>, small = <block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>, min_blocks = 132>
//
// The options replace the schedules and the threshold (tuning, and the
// candidates bench/gpu/kernels.py times), up to the 227 KiB a block may
// opt into (72 KiB here: -tfm-gpu-dynamic-shared-memory): 8192 x 768 makes
// 64 x 3 blocks of 128 x 256, more than 3; the run-time choice takes both
// options.
// OPTS-LABEL: func.func @opt_in
// OPTS:  #tfm.gpu_mma<block_m = 128, block_n = 256, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>
// OPTS:  #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 256, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>, small = <block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>, min_blocks = 3>
//
// COUNT: error: -tfm-gpu-configure: option 'mma-large': expected 6 numbers (block_m,block_n,block_k,warps_m,warps_n,stages), got 5
// BADK: error: -tfm-gpu-configure: option 'mma-large': 'block_k' must be a multiple of 16
// 4 stages of 256 x 256 x 64 take 256 KiB: more than any GPU lets a block
// have; the small schedule runs (no choice), with a warning.
// TOOBIG: warning: -tfm-gpu-configure: option 'mma-large' (#tfm.gpu_mma<block_m = 256, block_n = 256, block_k = 64, warps_m = 4, warps_n = 4, stages = 4>) does not fit the target's 1024 threads and 232448 bytes of shared memory per block; the small schedule is used
// TOOBIG-COUNT-2: #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>
// Large tiles no larger than the small ones: no run-time choice.
// NOCHOICE: #tfm.gpu_mma<block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>
// NOCHOICE: #tfm.gpu_mma<block_m = 32, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_90", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 132, opt_in_shared_memory_bytes = 232448>} {
func.func @opt_in(%a: memref<8192x768xbf16>, %b: memref<768x768xbf16>, %c: memref<8192x768xf32>,
                  %d: memref<?x768xbf16>, %dc: memref<?x768xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<8192x768xbf16>, memref<768x768xbf16>) outs(%c : memref<8192x768xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%d, %b : memref<?x768xbf16>, memref<768x768xbf16>) outs(%dc : memref<?x768xf32>)
  return
}
}
