// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-configure))" | FileCheck %s

// 64 x 64 tiles of 256 threads (4 x 4 outputs each); 32-row tiles for a
// few rows, and where 64-row tiles would leave multiprocessors idle
// (512 x 768: 96 tiles of 64 rows < 108 SMs). Where the rows are unknown,
// the columns decide: 64-row tiles for 8192 columns (128 column tiles),
// 32-row ones for 96 columns (2 column tiles per 64 rows).
// CHECK-LABEL: func.func @tiles
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @tiles(%a: memref<?x64xf32>, %b: memref<64x96xf32>, %c: memref<?x96xf32>,
                 %a2: memref<11x64xf32>, %c2: memref<11x96xf32>,
                 %a3: memref<512x768xf32>, %b3: memref<768x768xf32>, %c3: memref<512x768xf32>,
                 %a4: memref<1024x768xf32>, %c4: memref<1024x768xf32>,
                 %b5: memref<64x8192xf32>, %c5: memref<?x8192xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x96xf32>) outs(%c : memref<?x96xf32>)
  linalg.matmul ins(%a, %b5 : memref<?x64xf32>, memref<64x8192xf32>) outs(%c5 : memref<?x8192xf32>)
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

// -----

// Row reductions: a block per output element, threads by the row length
// (a power of two, from a warp to 256; 256 when the length is dynamic).
// CHECK-LABEL: func.func @reductions
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 256>
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 64>
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 32>
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 256>
// A payload that is not `combine(out, f(in))` (out used twice) stays loops.
// CHECK-NOT: tfm.lowering_config
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @reductions(%d: memref<4x?xf32>, %s: memref<4x37xf32>, %t: memref<4x3xf32>, %l: memref<4x3000xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%d : memref<4x?xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%s : memref<4x37xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.maximumf %in, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%t : memref<4x3xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %a = arith.addf %out, %e : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%l : memref<4x3000xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.minnumf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%s : memref<4x37xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %out, %in : f32
    %a = arith.addf %out, %p : f32
    linalg.yield %a : f32
  }
  return
}
}
