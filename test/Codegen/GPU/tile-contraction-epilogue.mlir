// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-contraction))" | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-contraction{fuse-epilogue=false}))" | FileCheck %s --check-prefix=NOFUSE

// -tfm-gpu-tile-contraction's epilogues: the elementwise op after a
// contraction that reads its output runs in the kernel's guarded stores.
// The numerics of every form are checked through the emulation in
// test/Pipelines/Numerics/gpu-gemm-epilogue.mlir; this file checks the IR.

// An activation into a new buffer: the accumulators start from the fill's
// zero (the fill goes, like a bias broadcast), the payload (tanh) runs per
// stored element (16 per thread of 4 x 4), stores go to the op's output,
// and the contraction's own buffer, now neither read nor written, is gone.
// CHECK-LABEL: func.func @activation
// CHECK-SAME:    (%[[A:.*]]: memref<?x40xf32>, %[[B:.*]]: memref<40x70xf32>, %[[D:.*]]: memref<?x70xbf16>)
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch
// CHECK:           scf.for
// CHECK-COUNT-16:  math.tanh
// CHECK-NOT:       memref.store %{{.*}}, %{{.*}} : memref<?x70xf32>
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
// CHECK:         return
// Without epilogues the fill still goes, and the kernel stores the output.
// NOFUSE-LABEL:  func.func @activation
// NOFUSE:        memref.alloc
// NOFUSE-NOT:    linalg.fill
// NOFUSE:        gpu.launch
// NOFUSE:        memref.store %{{.*}}, %{{.*}} : memref<?x70xf32>
// NOFUSE:        linalg.generic
func.func @activation(%a: memref<?x40xf32>, %b: memref<40x70xf32>, %d: memref<?x70xbf16>) {
  %c0 = arith.constant 0 : index
  %m = memref.dim %a, %c0 : memref<?x40xf32>
  %zero = arith.constant 0.0 : f32
  %y = memref.alloc(%m) : memref<?x70xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<?x70xf32>)
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%y : memref<?x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%y : memref<?x70xf32>) outs(%d : memref<?x70xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = math.tanh %in : f32
    %h = arith.truncf %t : f32 to bf16
    linalg.yield %h : bf16
  }
  memref.dealloc %y : memref<?x70xf32>
  return
}

// -----

// A residual add in place: each stored element is the loaded residual plus
// the result, into the output itself (its initial values read first).
// CHECK-LABEL: func.func @residual
// CHECK-SAME:    (%[[A:.*]]: memref<?x40xf32>, %[[B:.*]]: memref<40x70xf32>, %[[R:.*]]: memref<?x70xf32>, %[[C:.*]]: memref<?x70xf32>)
// CHECK:         gpu.launch
// CHECK-COUNT-16:  memref.load %[[C]]
// CHECK:           scf.for
// CHECK:           scf.if
// CHECK-NEXT:        %[[X:.*]] = memref.load %[[R]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[X]], %{{.*}} : f32
// CHECK-NEXT:        memref.store %[[S]], %[[C]]
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
func.func @residual(%a: memref<?x40xf32>, %b: memref<40x70xf32>, %r: memref<?x70xf32>, %c: memref<?x70xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%c : memref<?x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%r, %c : memref<?x70xf32>, memref<?x70xf32>) outs(%c : memref<?x70xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The output is a function argument (the caller may read it): the kernel
// stores the result and the op's value, a transposed [n, m] store through
// the op's permuted map; the op's column index is the output's column.
// CHECK-LABEL: func.func @keep_transposed
// CHECK-SAME:    (%[[A:.*]]: memref<?x40xf32>, %[[B:.*]]: memref<40x70xf32>, %[[C:.*]]: memref<?x70xf32>, %[[T:.*]]: memref<70x?xf32>)
// CHECK:         gpu.launch
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[V:.*]], %[[C]][%[[I:.*]], %[[J:.*]]]
// CHECK-NEXT:        %[[JI:.*]] = arith.index_cast %[[J]]
// CHECK-NEXT:        %[[JF:.*]] = arith.sitofp %[[JI]]
// CHECK-NEXT:        %[[S:.*]] = arith.addf %[[V]], %[[JF]]
// CHECK-NEXT:        memref.store %[[S]], %[[T]][%[[J]], %[[I]]]
// CHECK-NOT:     linalg.generic
func.func @keep_transposed(%a: memref<?x40xf32>, %b: memref<40x70xf32>, %c: memref<?x70xf32>, %t: memref<70x?xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%c : memref<?x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j, i)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x70xf32>) outs(%t : memref<70x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %j = linalg.index 0 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %s = arith.addf %in, %jf : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Two contractions, then their epilogues: the first one's passes over the
// second contraction (other buffers), and both run in their kernels.
// CHECK-LABEL: func.func @two_projections
// CHECK-COUNT-2: gpu.launch
// CHECK-NOT:     linalg.generic
// CHECK:         return
func.func @two_projections(%a: memref<?x40xf32>, %b: memref<40x70xf32>, %c: memref<?x70xf32>, %d: memref<?x70xf32>, %e: memref<?x70xf32>, %f: memref<?x70xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%c : memref<?x70xf32>)
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%d : memref<?x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x70xf32>) outs(%e : memref<?x70xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.negf %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%d : memref<?x70xf32>) outs(%f : memref<?x70xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.negf %in : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// What stays: an op that reads another element of the output (a row's
// first column); one after a store; one writing a buffer the contraction
// reads. An op reading two outputs whose second contraction came in
// between runs in that second kernel (the first's would pass a write of
// its input).
// CHECK-LABEL: func.func @stays
// CHECK:         gpu.launch
// CHECK:         linalg.generic
// CHECK:         gpu.launch
// CHECK:         memref.store
// CHECK:         linalg.generic
// CHECK:         gpu.launch
// CHECK:         gpu.launch
// CHECK-NOT:     linalg.generic
// CHECK:         memref.store %{{.*}}, %arg3
// CHECK:         gpu.terminator
// CHECK:         gpu.launch
// CHECK:         linalg.generic
// CHECK-SAME:      outs(%subview
func.func @stays(%a: memref<?x40xf32>, %b: memref<40x70xf32>, %c: memref<?x70xf32>, %d: memref<?x70xf32>, %r: memref<?x70xf32>, %x: memref<?x40xf32>, %p: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%c : memref<?x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, 0)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %c : memref<?x70xf32>, memref<?x70xf32>) outs(%d : memref<?x70xf32>) {
  ^bb0(%in: f32, %first: f32, %out: f32):
    %s = arith.subf %in, %first : f32
    linalg.yield %s : f32
  }
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%c : memref<?x70xf32>)
  memref.store %zero, %p[%c0] : memref<?xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c : memref<?x70xf32>) outs(%d : memref<?x70xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.negf %in : f32
    linalg.yield %s : f32
  }
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%c : memref<?x70xf32>)
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf32>) outs(%r : memref<?x70xf32>)
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%c, %r : memref<?x70xf32>, memref<?x70xf32>) outs(%d : memref<?x70xf32>) {
  ^bb0(%in: f32, %res: f32, %out: f32):
    %s = arith.addf %in, %res : f32
    linalg.yield %s : f32
  }
  %v = memref.subview %a[0, 0] [4, 40] [1, 1] : memref<?x40xf32> to memref<4x40xf32, strided<[40, 1]>>
  %e = memref.alloc() : memref<4x70xf32>
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%v, %b : memref<4x40xf32, strided<[40, 1]>>, memref<40x70xf32>) outs(%e : memref<4x70xf32>)
  %w = memref.subview %b[0, 0] [4, 70] [1, 1] : memref<40x70xf32> to memref<4x70xf32, strided<[70, 1]>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%e : memref<4x70xf32>) outs(%w : memref<4x70xf32, strided<[70, 1]>>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  return
}
