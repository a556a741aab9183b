// The GPU's block-per-row reduction kernels (-tfm-gpu-tile-reduction), run
// through the emulation, compute the same sums, maxima and minima as the
// CPU's scalar code, bit for bit: every element is a small integer, so
// every partial sum is exact in f32 whatever the order. Rows of 1000
// elements with a dynamic length (256 threads, each folding 3 or 4), 37
// (64 threads, 27 idle), 5 (a warp, mostly idle) and 300 (256 threads, 44
// folding twice); the reduction loop innermost and outermost in memory;
// f16 elements; an output with a non-zero initial value (folded in once).
//
// RUN: tfm-opt %s -tfm-lower-to-llvm="vectorize=0" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.cpu
// RUN: tfm-opt %s -tfm-set-target="gpu-chip=sm_80" -tfm-lower-to-nvvm="emulate=1" -mlir-pass-statistics 2> %t.stats | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu
// RUN: diff %t.cpu %t.gpu
// RUN: FileCheck %s < %t.gpu
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// STATS:      GPUConfigurePass
// STATS:        (S) 5 reductions
// STATS:      GPUTileReductionPass
// STATS-NEXT:   (S) 0 fused-stages
// STATS-NEXT:   (S) 5 kernels

// CHECK-LABEL: Unranked Memref{{.*}}rank = 1 offset = 0 sizes = [6]
// CHECK-NEXT:  [9901,  9909,  9885,  9906,  9906,  9885]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 1 offset = 0 sizes = [6]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 1 offset = 0 sizes = [6]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 1 offset = 0 sizes = [37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 1 offset = 0 sizes = [300]

module {
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  %pinf = arith.constant 0x7F800000 : f32
  // x[i, j] = ((7 i + 3 j) mod 11) - 5 for 6 rows of 1000.
  %x0 = tensor.empty() : tensor<6x1000xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%x0 : tensor<6x1000xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %c11 = arith.constant 11 : index
    %c5 = arith.constant 5 : index
    %ia = arith.muli %i, %c7 : index
    %jb = arith.muli %j, %c3 : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %c11 : index
    %d = arith.subi %q, %c5 : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<6x1000xf32>

  // Sum of squares over 1000 (dynamic) elements, starting from -100.
  %xd = tensor.cast %x : tensor<6x1000xf32> to tensor<6x?xf32>
  %m100 = arith.constant -100.0 : f32
  %e1 = tensor.empty() : tensor<6xf32>
  %i1 = linalg.fill ins(%m100 : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%xd : tensor<6x?xf32>) outs(%i1 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %out, %sq : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  %u1 = tensor.cast %r1 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  // Maximum over 5 elements (a warp of threads, 27 idle).
  %x5 = tensor.extract_slice %x[0, 3] [6, 5] [1, 1] : tensor<6x1000xf32> to tensor<6x5xf32>
  %i2 = linalg.fill ins(%ninf : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %r2 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%x5 : tensor<6x5xf32>) outs(%i2 : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.maximumf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  %u2 = tensor.cast %r2 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()

  // Minimum of f16 elements, widened.
  %h0 = tensor.empty() : tensor<6x1000xf16>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<6x1000xf32>) outs(%h0 : tensor<6x1000xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<6x1000xf16>
  %i3 = linalg.fill ins(%pinf : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %r3 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%h : tensor<6x1000xf16>) outs(%i3 : tensor<6xf32>) {
  ^bb0(%in: f16, %out: f32):
    %w = arith.extf %in : f16 to f32
    %a = arith.minimumf %out, %w : f32
    linalg.yield %a : f32
  } -> tensor<6xf32>
  %u3 = tensor.cast %r3 : tensor<6xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()

  // Columns: a sum over the 6 rows (the reduction loop outermost in
  // memory), 37 columns.
  %x37 = tensor.extract_slice %x[0, 0] [6, 37] [1, 1] : tensor<6x1000xf32> to tensor<6x37xf32>
  %e4 = tensor.empty() : tensor<37xf32>
  %i4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<37xf32>) -> tensor<37xf32>
  %r4 = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>], iterator_types = ["parallel", "reduction"]} ins(%x37 : tensor<6x37xf32>) outs(%i4 : tensor<37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<37xf32>
  %u4 = tensor.cast %r4 : tensor<37xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()

  // 300 rows of 300 elements (2-D rows, 256 threads).
  %y0 = tensor.empty() : tensor<300x300xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%y0 : tensor<300x300xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c13 = arith.constant 13 : index
    %c6 = arith.constant 6 : index
    %ij = arith.muli %i, %j : index
    %s = arith.addi %ij, %j : index
    %q = arith.remui %s, %c13 : index
    %d = arith.subi %q, %c6 : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<300x300xf32>
  %e5 = tensor.empty() : tensor<300xf32>
  %i5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<300xf32>) -> tensor<300xf32>
  %r5 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<300x300xf32>) outs(%i5 : tensor<300xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  } -> tensor<300xf32>
  %u5 = tensor.cast %r5 : tensor<300xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  return
}
}
