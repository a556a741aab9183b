// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536 threads=1},func.func(tfm-cpu-configure{elementwise=true},tfm-tile-and-vectorize))' | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=4096 l2-bytes=65536 threads=1},func.func(tfm-cpu-configure{elementwise=true},tfm-tile-and-vectorize))' | FileCheck %s --check-prefix=AVX2

// With 512-bit vectors: VL = 16, NR = 32, MR = 8, KC = 4096/2/128 = 16,
// NC = 65536/2/64 = 512. With 256-bit vectors and 16 registers: NR = 16,
// MR = 6, KC = 32.

// A dynamic number of rows, N = 80 (two full NR tiles and a static
// remainder of 16), K = 64 (four KC tiles).
// CHECK-LABEL: func.func @matmul_dynamic_rows
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c16
//                  Full MR-row tiles, then the remaining rows one by one.
// CHECK:           %[[FULL:.*]] = affine.apply
// CHECK:           scf.for %{{.*}} = %c0 to %[[FULL]] step %c8
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c32
//                      The accumulator is read once, carried through the k
//                      loop in registers, written once.
// CHECK:               %[[ACC:.*]] = vector.transfer_read {{.*}} vector<8x32xf32>
// CHECK:               %[[SUM:.*]] = scf.for %{{.*}} = %c0 to %c16 step %c1 iter_args(%[[V:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
// CHECK:                 vector.transfer_read {{.*}} vector<8x1xf32>
// CHECK:                 vector.transfer_read {{.*}} vector<1x32xf32>
// CHECK:                 vector.contract {{.*}} %[[V]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK:               vector.transfer_write %[[SUM]]
//                    The static remainder of N: 16 columns.
// CHECK:             vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK:           scf.for %{{.*}} = %[[FULL]] to %{{.*}} step %c8
// CHECK:             scf.for %{{.*}} step %c1
// CHECK:               vector.contract {{.*}} : vector<1x1xf32>, vector<1x32xf32> into vector<1x32xf32>
// CHECK-NOT:     linalg.matmul
// CHECK-NOT:     linalg.generic
// AVX2-LABEL: func.func @matmul_dynamic_rows
// AVX2:         vector.contract {{.*}} : vector<6x1xf32>, vector<1x16xf32> into vector<6x16xf32>
func.func @matmul_dynamic_rows(%a: tensor<?x64xf32>, %b: tensor<64x80xf32>, %c: tensor<?x80xf32>) -> tensor<?x80xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xf32>, tensor<64x80xf32>) outs(%c : tensor<?x80xf32>) -> tensor<?x80xf32>
  return %r : tensor<?x80xf32>
}

// -----

// An out_in weight (B read as B[n, k]) is packed per cache tile into a
// KC x N buffer in 16x16 blocks (a transposing transfer_read, shuffles after
// -tfm-lower-vector-ops); the kernel then reads packed rows.
// CHECK-LABEL: func.func @matmul_transposed_b
// CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK:           %[[PACK:.*]] = tensor.empty() : tensor<16x32xf32>
// CHECK:           %[[PACKED:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[PACK]])
// CHECK:             vector.transfer_read {{.*}} permutation_map = {{.*}} : tensor<16x16xf32>, vector<16x16xf32>
// CHECK:           vector.transfer_read %{{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK:           vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
func.func @matmul_transposed_b(%a: tensor<?x64xf32>, %b: tensor<32x64xf32>, %c: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : tensor<?x64xf32>, tensor<32x64xf32>) outs(%c : tensor<?x32xf32>) -> tensor<?x32xf32>
  return %r : tensor<?x32xf32>
}

// -----

// A rank-3 projection (dynamic batch and sequence): the batch loop is tiled
// by 1 and dropped, the rest is the 2-D kernel.
// CHECK-LABEL: func.func @projection_rank3
// CHECK:         scf.for %{{.*}} = %c0 to %{{.*}} step %c1
// CHECK:           vector.contract {{.*}} : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
// CHECK-NOT:     linalg.generic
func.func @projection_rank3(%x: tensor<?x?x16xf32>, %w: tensor<16x32xf32>, %acc: tensor<?x?x32xf32>) -> tensor<?x?x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, t, o, i) -> (b, t, i)>, affine_map<(b, t, o, i) -> (i, o)>, affine_map<(b, t, o, i) -> (b, t, o)>],
                       iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : tensor<?x?x16xf32>, tensor<16x32xf32>) outs(%acc : tensor<?x?x32xf32>) {
  ^bb0(%in: f32, %wv: f32, %out: f32):
    %m = arith.mulf %in, %wv : f32
    %s = arith.addf %out, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x32xf32>
  return %r : tensor<?x?x32xf32>
}

// -----

// Elementwise: rows by 1, the static innermost dimension in 2·VL = 32
// lanes (64 = two tiles, nothing to peel).
// CHECK-LABEL: func.func @elementwise_exp
// CHECK:         scf.for %{{.*}} step %c1
// CHECK:           scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:             math.exp {{.*}} : vector<32xf32>
func.func @elementwise_exp(%x: tensor<?x64xf32>, %y: tensor<?x64xf32>) -> tensor<?x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x64xf32>) outs(%y : tensor<?x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<?x64xf32>
  return %r : tensor<?x64xf32>
}

// A dynamic innermost dimension is left to LLVM's loop vectorizer (peeling
// elementwise nests cost too much compile time).
// CHECK-LABEL: func.func @elementwise_dynamic
// CHECK-NOT:     scf.for
// CHECK:         linalg.generic
func.func @elementwise_dynamic(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A static row reduction no larger than l1-bytes/16 stays whole: one
// vector.multi_reduction per row.
// CHECK-LABEL: func.func @row_sum
// CHECK:         scf.for %{{.*}} step %c1
// CHECK:           vector.multi_reduction <add>, {{.*}} [0] : vector<64xf32> to f32
func.func @row_sum(%x: tensor<?x64xf32>, %y: tensor<?xf32>) -> tensor<?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x64xf32>) outs(%y : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
