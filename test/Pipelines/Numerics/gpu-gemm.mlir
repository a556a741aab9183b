// The GPU's shared-memory GEMM kernels (-tfm-gpu-tile-contraction), run
// through the emulation, compute the same projections as the CPU's scalar
// code, bit for bit: every input is a small integer, so every product and
// partial sum is exact in f32 whatever the order. The shapes exercise every
// edge of the kernel: 70 rows with a dynamic extent (64-row tiles: one full,
// one of 6), 11 rows static (32-row tiles), 37 and 130 columns (partial
// 64-column tiles), K = 40 against block_k = 16 (two full slices + 8, the
// rest of the last slice read as 0), A and B staged k-innermost (out_in
// weights, QK^T) and n-innermost (in_out weights), batch loops on grid z
// (QK^T with 2 heads), and f16 weights widened while staged. A second GPU
// build states a target with one multiprocessor, where every tile is 64
// rows. The biases here are computed into the outputs (no broadcast of a
// buffer); the kernel of the one output with computed initial values reads
// them, the others start from their fill's zero (fused-broadcasts).
//
// RUN: tfm-opt %s -tfm-lower-to-llvm="vectorize=0" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.cpu
// RUN: tfm-opt %s -tfm-set-target="gpu-chip=sm_80" -tfm-lower-to-nvvm="emulate=1" -mlir-pass-statistics 2> %t.stats | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu
// RUN: sed -e 's/^module {/module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {/' %s | tfm-opt -tfm-lower-to-nvvm="emulate=1" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu64
// RUN: diff %t.cpu %t.gpu
// RUN: diff %t.cpu %t.gpu64
// RUN: FileCheck %s < %t.gpu
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// STATS:      GPUConfigurePass
// STATS-NEXT:   (S) 5 contractions
// STATS:      GPUTileContractionPass
// STATS-NEXT:   (S) 4 fused-broadcasts
// STATS-NEXT:   (S) 0 fused-epilogues
// STATS-NEXT:   (S) 5 kernels
// STATS:      GPUEmulatePass
// STATS-NOT:  Pass
// STATS:        thread-segments

// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 130]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 4 offset = 0 sizes = [1, 2, 9, 21]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]

module {
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  // v[i, j] = ((i * a + j * b) mod m) - c, an exact small integer.
  %x0 = tensor.empty() : tensor<70x40xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%x0 : tensor<70x40xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %c5 = arith.constant 5 : index
    %c2 = arith.constant 2 : index
    %ia = arith.muli %i, %c7 : index
    %jb = arith.muli %j, %c3 : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %c5 : index
    %d = arith.subi %q, %c2 : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<70x40xf32>
  %w0 = tensor.empty() : tensor<37x40xf32>
  %woi = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%w0 : tensor<37x40xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c5 = arith.constant 5 : index
    %c1 = arith.constant 1 : index
    %c7 = arith.constant 7 : index
    %c3 = arith.constant 3 : index
    %ia = arith.muli %i, %c5 : index
    %jb = arith.muli %j, %c1 : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %c7 : index
    %d = arith.subi %q, %c3 : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<37x40xf32>
  %v0 = tensor.empty() : tensor<40x130xf32>
  %wio = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%v0 : tensor<40x130xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %c3 = arith.constant 3 : index
    %c2 = arith.constant 2 : index
    %c5 = arith.constant 5 : index
    %ia = arith.muli %i, %c3 : index
    %jb = arith.muli %j, %c2 : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %c5 : index
    %d = arith.subi %q, %c2 : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<40x130xf32>
  %b0 = tensor.empty() : tensor<37xf32>
  %bias = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%b0 : tensor<37xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %c3 = arith.constant 3 : index
    %c1 = arith.constant 1 : index
    %q = arith.remui %i, %c3 : index
    %d = arith.subi %q, %c1 : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<37xf32>

  // 70 rows, dynamic: out_in weight with a bias.
  %xd = tensor.cast %x : tensor<70x40xf32> to tensor<?x40xf32>
  %y1 = tfm.linear %xd, %woi, %bias : (tensor<?x40xf32>, tensor<37x40xf32>, tensor<37xf32>) -> tensor<?x37xf32>
  %u1 = tensor.cast %y1 : tensor<?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  // 11 rows, static: in_out weight, 130 columns.
  %x11 = tensor.extract_slice %x[0, 0] [11, 40] [1, 1] : tensor<70x40xf32> to tensor<11x40xf32>
  %y2 = tfm.linear %x11, %wio {layout = #tfm.layout<in_out>} : (tensor<11x40xf32>, tensor<40x130xf32>) -> tensor<11x130xf32>
  %u2 = tensor.cast %y2 : tensor<11x130xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()

  // Batched Q K^T: [1, 2, 9, 40] x [1, 2, 21, 40]^T.
  %q1 = tensor.extract_slice %x[0, 0] [18, 40] [1, 1] : tensor<70x40xf32> to tensor<18x40xf32>
  %k1 = tensor.extract_slice %x[20, 0] [42, 40] [1, 1] : tensor<70x40xf32> to tensor<42x40xf32>
  %q2 = tensor.expand_shape %q1 [[0, 1, 2], [3]] output_shape [1, 2, 9, 40] : tensor<18x40xf32> into tensor<1x2x9x40xf32>
  %k2 = tensor.expand_shape %k1 [[0, 1, 2], [3]] output_shape [1, 2, 21, 40] : tensor<42x40xf32> into tensor<1x2x21x40xf32>
  %s = tfm.matmul %q2, %k2 {transpose_rhs} : (tensor<1x2x9x40xf32>, tensor<1x2x21x40xf32>) -> tensor<1x2x9x21xf32>
  %u4 = tensor.cast %s : tensor<1x2x9x21xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()

  // f16 weights, widened as they are staged (a mixed-type contraction).
  %wi = tensor.extract_slice %wio[0, 0] [40, 37] [1, 1] : tensor<40x130xf32> to tensor<40x37xf32>
  %wh0 = tensor.empty() : tensor<40x37xf16>
  %wh = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%wi : tensor<40x37xf32>) outs(%wh0 : tensor<40x37xf16>) {
  ^bb0(%in: f32, %out: f16):
    %h = arith.truncf %in : f32 to f16
    linalg.yield %h : f16
  } -> tensor<40x37xf16>
  %c0 = arith.constant 0 : index
  %m = tensor.dim %xd, %c0 : tensor<?x40xf32>
  %e5 = tensor.empty(%m) : tensor<?x37xf32>
  %zero = arith.constant 0.0 : f32
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %y5 = linalg.matmul ins(%xd, %wh : tensor<?x40xf32>, tensor<40x37xf16>) outs(%z5 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %u5 = tensor.cast %y5 : tensor<?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()

  // 11 rows, static, out_in weight without a bias.
  %y6 = tfm.linear %x11, %woi : (tensor<11x40xf32>, tensor<37x40xf32>) -> tensor<11x37xf32>
  %u6 = tensor.cast %y6 : tensor<11x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  return
}
}
