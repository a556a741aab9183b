// Vectorized and scalar code compute the same projections, bit for bit:
// every input is a small integer, so every product and partial sum is exact
// in f32 whatever the order or FMA contraction. The shapes exercise every
// remainder of the GEMM schedule: 11 rows (one full MR=8 tile + 3 single
// rows), 37 outputs (a full NR=32 tile + 5), K = 40 against KC = 16 (two
// full cache tiles + 8), rank-3 inputs with a dynamic batch and sequence,
// both weight layouts (out_in is packed), and batched matmuls with a
// transposed right-hand side (attention's QK^T).
//
// RUN: tfm-opt %s -tfm-lower-to-llvm="vectorize=0" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.scalar
// RUN: tfm-opt %s -tfm-set-target="vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536" -tfm-lower-to-llvm | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.avx512
// RUN: tfm-opt %s -tfm-set-target="vector-bits=256 vector-registers=16 l1-bytes=4096 l2-bytes=4096" -tfm-lower-to-llvm | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.avx2
// RUN: diff %t.scalar %t.avx512
// RUN: diff %t.scalar %t.avx2
// RUN: FileCheck %s < %t.avx512

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// v[i, j] = ((i * a + j * b) mod m) - c, an exact small integer.
func.func @ints2(%r: index, %c: index, %a: index, %b: index, %m: index, %off: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%r, %c) : tensor<?x?xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ia = arith.muli %i, %a : index
    %jb = arith.muli %j, %b : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %m : index
    %d = arith.subi %q, %off : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %v : tensor<?x?xf32>
}

// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-NEXT:  [4,   -2,   6,   4,   -9,
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 3 offset = 0 sizes = [2, 5, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 4 offset = 0 sizes = [1, 2, 9, 21]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [2, 48]
// CHECK-NEXT:  {{\[\[}}2, 10, 18, -16, 6, 0, -20, 2,
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [2, 48]
// CHECK-NEXT:  {{\[\[}}2, 10, 18, -16, 6, 0, -20, 2,
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c11 = arith.constant 11 : index
  %c37 = arith.constant 37 : index
  %c40 = arith.constant 40 : index
  %x0 = func.call @ints2(%c11, %c40, %c7, %c3, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?xf32> to tensor<?x40xf32>
  %woi0 = func.call @ints2(%c37, %c40, %c5, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %woi = tensor.cast %woi0 : tensor<?x?xf32> to tensor<37x40xf32>
  %wio0 = func.call @ints2(%c40, %c37, %c3, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %wio = tensor.cast %wio0 : tensor<?x?xf32> to tensor<40x37xf32>
  %b0 = func.call @ints2(%c1, %c37, %c1, %c1, %c3, %c1) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %b1 = tensor.cast %b0 : tensor<?x?xf32> to tensor<1x37xf32>
  %bias = tensor.collapse_shape %b1 [[0, 1]] : tensor<1x37xf32> into tensor<37xf32>

  // out_in weight with a bias, 2-D.
  %y1 = tfm.linear %x, %woi, %bias : (tensor<?x40xf32>, tensor<37x40xf32>, tensor<37xf32>) -> tensor<?x37xf32>
  %u1 = tensor.cast %y1 : tensor<?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  // in_out weight, 2-D.
  %y2 = tfm.linear %x, %wio {layout = #tfm.layout<in_out>} : (tensor<?x40xf32>, tensor<40x37xf32>) -> tensor<?x37xf32>
  %u2 = tensor.cast %y2 : tensor<?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()

  // Rank 3 with dynamic batch and sequence: [2, 5, 40].
  %x3s = tensor.extract_slice %x0[0, 0] [10, 40] [1, 1] : tensor<?x?xf32> to tensor<10x40xf32>
  %x3e = tensor.expand_shape %x3s [[0, 1], [2]] output_shape [2, 5, 40] : tensor<10x40xf32> into tensor<2x5x40xf32>
  %x3 = tensor.cast %x3e : tensor<2x5x40xf32> to tensor<?x?x40xf32>
  %y3 = tfm.linear %x3, %woi, %bias : (tensor<?x?x40xf32>, tensor<37x40xf32>, tensor<37xf32>) -> tensor<?x?x37xf32>
  %u3 = tensor.cast %y3 : tensor<?x?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()

  // Batched Q K^T: [1, 2, 9, 40] x [1, 2, 21, 40]^T.
  %c9 = arith.constant 9 : index
  %c18 = arith.constant 18 : index
  %c21 = arith.constant 21 : index
  %c42 = arith.constant 42 : index
  %q0 = func.call @ints2(%c18, %c40, %c3, %c1, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %k0 = func.call @ints2(%c42, %c40, %c1, %c2, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %q1 = tensor.cast %q0 : tensor<?x?xf32> to tensor<18x40xf32>
  %k1 = tensor.cast %k0 : tensor<?x?xf32> to tensor<42x40xf32>
  %q2 = tensor.expand_shape %q1 [[0, 1, 2], [3]] output_shape [1, 2, 9, 40] : tensor<18x40xf32> into tensor<1x2x9x40xf32>
  %k2 = tensor.expand_shape %k1 [[0, 1, 2], [3]] output_shape [1, 2, 21, 40] : tensor<42x40xf32> into tensor<1x2x21x40xf32>
  %q = tensor.cast %q2 : tensor<1x2x9x40xf32> to tensor<?x2x?x40xf32>
  %k = tensor.cast %k2 : tensor<1x2x21x40xf32> to tensor<?x2x?x40xf32>
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x2x?x40xf32>, tensor<?x2x?x40xf32>) -> tensor<?x2x?x?xf32>
  %u4 = tensor.cast %s : tensor<?x2x?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()

  // A decode step's Q K^T inside a loop (as in a tiled attention; two
  // trips, each adding Q K^T): two static query rows, 48 keys of 48
  // features read as B[n, k], f32 and bf16 (small integers are exact in
  // bf16 too). The vector targets give it the dot-product kernel (n and k
  // multiples of the lanes).
  %c48 = arith.constant 48 : index
  %qd0 = func.call @ints2(%c2, %c48, %c3, %c1, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %kd0 = func.call @ints2(%c48, %c48, %c1, %c2, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %qd = tensor.cast %qd0 : tensor<?x?xf32> to tensor<2x48xf32>
  %kd = tensor.cast %kd0 : tensor<?x?xf32> to tensor<48x48xf32>
  %kh0 = tensor.empty() : tensor<48x48xbf16>
  %kh = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%kd : tensor<48x48xf32>) outs(%kh0 : tensor<48x48xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<48x48xbf16>
  %zero = arith.constant 0.0 : f32
  %sd0 = tensor.empty() : tensor<2x48xf32>
  %sd1 = linalg.fill ins(%zero : f32) outs(%sd0 : tensor<2x48xf32>) -> tensor<2x48xf32>
  %sd:2 = scf.for %i = %c0 to %c2 step %c1 iter_args(%a32 = %sd1, %a16 = %sd1) -> (tensor<2x48xf32>, tensor<2x48xf32>) {
    %r32 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%qd, %kd : tensor<2x48xf32>, tensor<48x48xf32>) outs(%a32 : tensor<2x48xf32>) -> tensor<2x48xf32>
    %r16 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%qd, %kh : tensor<2x48xf32>, tensor<48x48xbf16>) outs(%a16 : tensor<2x48xf32>) -> tensor<2x48xf32>
    scf.yield %r32, %r16 : tensor<2x48xf32>, tensor<2x48xf32>
  }
  %u5 = tensor.cast %sd#0 : tensor<2x48xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()
  %u6 = tensor.cast %sd#1 : tensor<2x48xf32> to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()
  return
}
