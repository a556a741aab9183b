// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s

// A contraction whose A is read transposed, C[m, n] += A[k, m] * B[k, n]
// (the P·V of a tiled attention with transposed scores, A = Pᵀ): rows of
// MR = 8 take A's [K, 8] columns in place (no pack), and each register
// tile's [1, 8] slice of A is reshaped to [8, 1], the plain A[m, k] tile
// whose vector.contract is 8 rows by 32 columns, as for any other GEMM.

// CHECK-LABEL: func.func @pv_transposed_a
// CHECK-SAME: (%[[PT:[^:]*]]: tensor<32x64xf32>, %[[V:[^:]*]]: tensor<32x64xf32>, %[[ACC:[^:]*]]: tensor<64x64xf32>)
// CHECK-NOT: linalg.
// CHECK: scf.for %[[M:.*]] = %c0 to %c64 step %c8
// CHECK: %[[AS:.*]] = tensor.extract_slice %[[PT]][0, %[[M]]] [32, 8] [1, 1] : tensor<32x64xf32> to tensor<32x8xf32>
// CHECK: scf.for %[[N:.*]] = %c0 to %c64 step %c32
// CHECK: %[[C:.*]] = vector.transfer_read {{.*}} : tensor<8x32xf32>, vector<8x32xf32>
// CHECK: scf.for %[[K:.*]] = %c0 to %c32 step %c1 iter_args(%[[ACCV:.*]] = %[[C]]) -> (vector<8x32xf32>)
// CHECK: %[[AK:.*]] = tensor.extract_slice %[[AS]][%[[K]], 0] [1, 8] [1, 1] : tensor<32x8xf32> to tensor<1x8xf32>
// CHECK: %[[BK:.*]] = tensor.extract_slice %[[V]][%[[K]], %[[N]]] [1, 32] [1, 1]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[AK]] {{\[\[}}0, 1]] : tensor<1x8xf32> into tensor<8xf32>
// CHECK: %[[COL:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xf32> into tensor<8x1xf32>
// CHECK: %[[A:.*]] = vector.transfer_read %[[COL]][%c0, %c0], %{{.*}} : tensor<8x1xf32>, vector<8x1xf32>
// CHECK: %[[B:.*]] = vector.transfer_read %[[BK]][%c0, %c0], %{{.*}} : tensor<1x32xf32>, vector<1x32xf32>
// CHECK: vector.contract {{.*}} %[[A]], %[[B]], %[[ACCV]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
#pt = affine_map<(m, n, k) -> (k, m)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @pv_transposed_a(%pt: tensor<32x64xf32>, %v: tensor<32x64xf32>, %acc: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul indexing_maps = [#pt, #b, #c] ins(%pt, %v : tensor<32x64xf32>, tensor<32x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
