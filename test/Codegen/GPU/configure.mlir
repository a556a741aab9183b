// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-configure))" | FileCheck %s

// 64 x 64 tiles of 256 threads (4 x 4 outputs each) where the rows are
// unknown; 32-row tiles for a few rows, and where 64-row tiles would leave
// multiprocessors idle (512 x 768: 96 tiles of 64 rows < 108 SMs).
// CHECK-LABEL: func.func @tiles
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @tiles(%a: memref<?x64xf32>, %b: memref<64x96xf32>, %c: memref<?x96xf32>,
                 %a2: memref<11x64xf32>, %c2: memref<11x96xf32>,
                 %a3: memref<512x768xf32>, %b3: memref<768x768xf32>, %c3: memref<512x768xf32>,
                 %a4: memref<1024x768xf32>, %c4: memref<1024x768xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x96xf32>) outs(%c : memref<?x96xf32>)
  linalg.matmul ins(%a2, %b : memref<11x64xf32>, memref<64x96xf32>) outs(%c2 : memref<11x96xf32>)
  linalg.matmul ins(%a3, %b3 : memref<512x768xf32>, memref<768x768xf32>) outs(%c3 : memref<512x768xf32>)
  linalg.matmul ins(%a4, %b3 : memref<1024x768xf32>, memref<768x768xf32>) outs(%c4 : memref<1024x768xf32>)
  return
}
}

// -----

// Only f32-accumulating float contractions on buffers are configured:
// not an elementwise op, an integer matmul, or ops on tensors.
// CHECK-LABEL: func.func @others
// CHECK-NOT:   tfm.lowering_config
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @others(%a: memref<8x8xf32>, %i: memref<8x8xi32>, %t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x8xf32>) {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  }
  linalg.matmul ins(%i, %i : memref<8x8xi32>, memref<8x8xi32>) outs(%i : memref<8x8xi32>)
  %r = linalg.matmul ins(%t, %t : tensor<8x8xf32>, tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
}

// -----

// A CPU target (or none): nothing for the GPU to decide.
// CHECK-LABEL: func.func @cpu
// CHECK-NOT:   tfm.lowering_config
func.func @cpu(%a: memref<8x8xf32>) {
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  return
}

// -----

// The staging buffers must fit the target's shared memory.
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 1024, multiprocessors = 108>} {
func.func @small_smem(%a: memref<8x8xf32>) {
  // expected-error @+1 {{no GEMM tile fits the target's 1024 threads and 1024 bytes of shared memory per block}}
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  return
}
}
