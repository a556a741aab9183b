// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s --check-prefix=NOLOOPS

// The contractions of a decode step's attention (-tfm-tile-sram with a
// static query length of 1: one query row per K/V head) are GEMVs: m is a
// static 1. They still get the register kernel, 1 x NR tiles (two 8-lane
// vectors here) with the k loop innermost; dropping the unit m loop made
// them scalar loops before. The K block of S = q K^T is B read as B[n, k]:
// it is packed to [k, n] per cache tile, and a 16-bit one (a KV cache
// stored in bf16, read in place) is widened to f32 as it is packed. The V
// block of P V is B[k, n] and is read in place, each row widened in
// registers.

// Nothing is left to convert-linalg-to-loops.
// NOLOOPS-NOT: linalg.

// CHECK-LABEL: func.func @decode_scores
// CHECK-SAME: %[[Q:.*]]: tensor<1x64xf32>, %[[K:.*]]: tensor<128x64xbf16>
// The pack: 8 x 8 blocks of K read transposed, widened, written as f32.
// CHECK: %[[PACK:.*]] = scf.for
// CHECK:   scf.for
// CHECK:     %[[KT:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true], permutation_map = #[[SWAP:.*]]} : tensor<8x8xbf16>, vector<8x8xbf16>
// CHECK:     %[[KW:.*]] = arith.extf %[[KT]] : vector<8x8xbf16> to vector<8x8xf32>
// CHECK:     vector.transfer_write %[[KW]], %{{.*}} : vector<8x8xf32>, tensor<8x8xf32>
// The kernel: 1 x 16 accumulators carried through the 64 steps of k.
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK:   scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<1x16xf32>)
// CHECK:     tensor.extract_slice %[[Q]]
// CHECK:     tensor.extract_slice %[[PACK]]{{.*}} : tensor<64x128xf32> to tensor<1x16xf32>
// CHECK:     vector.contract {{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
func.func @decode_scores(%q: tensor<1x64xf32>, %k: tensor<128x64xbf16>,
                         %s: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<1x64xf32>, tensor<128x64xbf16>)
      outs(%s : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}

// CHECK-LABEL: func.func @decode_values
// CHECK-NOT: tensor.empty
// CHECK: scf.for %{{.*}} = %c0 to %c64 step %c16
// CHECK:   scf.for %{{.*}} = %c0 to %c128 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<1x16xf32>)
// CHECK:     %[[ROW:.*]] = vector.transfer_read %{{.*}} : tensor<1x16xbf16>, vector<1x16xbf16>
// CHECK:     %[[WIDE:.*]] = arith.extf %[[ROW]] : vector<1x16xbf16> to vector<1x16xf32>
// CHECK:     vector.contract {{.*}}, %[[WIDE]], %{{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
func.func @decode_values(%p: tensor<1x128xf32>, %v: tensor<128x64xbf16>,
                         %acc: tensor<1x64xf32>) -> tensor<1x64xf32> {
  %r = linalg.matmul ins(%p, %v : tensor<1x128xf32>, tensor<128x64xbf16>)
      outs(%acc : tensor<1x64xf32>) -> tensor<1x64xf32>
  return %r : tensor<1x64xf32>
}

// An f32 K block: packed by plain transposes, the same kernel.
// CHECK-LABEL: func.func @decode_scores_f32
// CHECK: vector.transfer_read %{{.*}} {in_bounds = [true, true], permutation_map = #[[SWAP]]} : tensor<8x8xf32>, vector<8x8xf32>
// CHECK: vector.contract {{.*}} : vector<1x1xf32>, vector<1x16xf32> into vector<1x16xf32>
func.func @decode_scores_f32(%q: tensor<1x64xf32>, %k: tensor<128x64xf32>,
                             %s: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<1x64xf32>, tensor<128x64xf32>)
      outs(%s : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}
