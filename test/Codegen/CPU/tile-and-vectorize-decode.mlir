// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s --check-prefix=NOLOOPS
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure))' | FileCheck %s --check-prefix=CONFIG
// `dot-rows` moves the bound (default MR / 2 = 3 here; 0: never).
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure{dot-rows=0}))' | FileCheck %s --check-prefix=NODOT
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure{dot-rows=4}))' | FileCheck %s --check-prefix=DOT4
// RUN: not tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=32768 l2-bytes=524288 threads=1},func.func(tfm-cpu-configure{dot-rows=-2}))' 2>&1 | FileCheck %s --check-prefix=BADROWS
// BADROWS: error: -tfm-cpu-configure: dot-rows is -2, must be -1 or at least 0
// NODOT-NOT: dot = true
// DOT4-LABEL: func.func @decode_scores
// DOT4: dot = true
// DOT4-LABEL: func.func @group_scores
// DOT4: dot = true

// The contractions of a decode step's attention (-tfm-tile-sram with a
// static query length of 1: G query rows per K/V head) have a static m of
// G; AVX2 here: VL = 8, MR = 6. Dropping their unit m loop (G = 1) once
// made them scalar loops; now:
// - S = q K^T with at most MR/2 rows and B read as B[n, k] takes the
//   dot-product kernel (`dot`): K's rows are read in place, 8 keys at a
//   time, 8 accumulators of 8 lanes over k, then a transpose-and-add tree;
// - with more rows (a GQA group of 4 here) it stays the GEMM kernel: K is
//   packed to [k, n] per cache tile, a 16-bit K widened to f32 as it is
//   packed, then 4 x 16 register tiles;
// - P V (B read as B[k, n], in place) is the GEMM kernel on 1 x 16 tiles,
//   each 16-bit row of V widened in registers.

// Nothing is left to convert-linalg-to-loops.
// NOLOOPS-NOT: linalg.

// CONFIG-LABEL: func.func @decode_scores
// CONFIG: linalg.matmul {{.*}}#tfm.cpu_contraction<{{.*}}parallel_cols = 0, dot = true>
// CONFIG-LABEL: func.func @group_scores
// CONFIG: linalg.matmul {{.*}}#tfm.cpu_contraction<{{.*}}parallel_cols = 0>
// CONFIG-LABEL: func.func @decode_values
// CONFIG: linalg.matmul {{.*}}#tfm.cpu_contraction<{{.*}}parallel_cols = 0>

// CHECK-LABEL: func.func @decode_scores
// CHECK-SAME: %[[Q:.*]]: tensor<1x64xf32>, %[[K:.*]]: tensor<128x64xbf16>, %[[S:.*]]: tensor<1x128xf32>
// CHECK-NOT: tensor.empty
// CHECK: scf.for %[[N0:.*]] = %c0 to %c128 step %c8 iter_args(%[[C:.*]] = %[[S]])
// CHECK:   %[[ACC:.*]]:8 = scf.for %[[K0:.*]] = %c0 to %c64 step %c8 iter_args({{.*}}) -> (vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>, vector<8xf32>)
// CHECK:     %[[QV:.*]] = vector.transfer_read %[[Q]][%c0, %[[K0]]]{{.*}} : tensor<1x64xf32>, vector<8xf32>
// CHECK:     %[[K16:.*]] = vector.transfer_read %[[K]][%[[N0]], %[[K0]]]{{.*}} : tensor<128x64xbf16>, vector<8xbf16>
// CHECK:     %[[KW:.*]] = arith.extf %[[K16]] : vector<8xbf16> to vector<8xf32>
// CHECK:     vector.fma %[[QV]], %[[KW]], %{{.*}} : vector<8xf32>
// CHECK-COUNT-7: vector.fma %[[QV]]
// CHECK:     scf.yield
// The tree: 4 + 2 + 1 pairs, two shuffles and an add each.
// CHECK:   vector.shuffle %[[ACC]]#0, %[[ACC]]#1 [0, 8, 2, 10, 4, 12, 6, 14]
// CHECK:   vector.shuffle %[[ACC]]#0, %[[ACC]]#1 [1, 9, 3, 11, 5, 13, 7, 15]
// CHECK-COUNT-3: vector.shuffle {{.*}} [1, 9, 3, 11, 5, 13, 7, 15]
// CHECK-COUNT-2: vector.shuffle {{.*}} [2, 3, 10, 11, 6, 7, 14, 15]
// CHECK:   vector.shuffle {{.*}} [0, 1, 2, 3, 8, 9, 10, 11]
// CHECK:   vector.shuffle {{.*}} [4, 5, 6, 7, 12, 13, 14, 15]
// CHECK:   %[[DOTS:.*]] = arith.addf {{.*}} : vector<8xf32>
// CHECK:   %[[OLD:.*]] = vector.transfer_read %[[C]][%c0, %[[N0]]]
// CHECK:   %[[NEW:.*]] = arith.addf %[[OLD]], %[[DOTS]] : vector<8xf32>
// CHECK:   vector.transfer_write %[[NEW]], %[[C]][%c0, %[[N0]]]
func.func @decode_scores(%q: tensor<1x64xf32>, %k: tensor<128x64xbf16>,
                         %s: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<1x64xf32>, tensor<128x64xbf16>)
      outs(%s : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}

// CHECK-LABEL: func.func @group_scores
// CHECK-SAME: %{{.*}}: tensor<4x64xf32>, %[[K:.*]]: tensor<128x64xbf16>
// The pack: 8 x 8 blocks of K read transposed, widened, written as f32.
// CHECK: %[[PACK:.*]] = scf.for
// CHECK:   scf.for
// CHECK:     %[[KT:.*]] = vector.transfer_read %{{.*}} {in_bounds = [true, true], permutation_map = #{{.*}}} : tensor<8x8xbf16>, vector<8x8xbf16>
// CHECK:     %[[KW:.*]] = arith.extf %[[KT]] : vector<8x8xbf16> to vector<8x8xf32>
// CHECK:     vector.transfer_write %[[KW]], %{{.*}} : vector<8x8xf32>, tensor<8x8xf32>
// The kernel: 4 x 16 accumulators carried through the 64 steps of k.
// CHECK: scf.for %{{.*}} = %c0 to %c128 step %c16
// CHECK:   scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (vector<4x16xf32>)
// CHECK:     tensor.extract_slice %[[PACK]]{{.*}} : tensor<64x128xf32> to tensor<1x16xf32>
// CHECK:     vector.contract {{.*}} : vector<4x1xf32>, vector<1x16xf32> into vector<4x16xf32>
func.func @group_scores(%q: tensor<4x64xf32>, %k: tensor<128x64xbf16>,
                        %s: tensor<4x128xf32>) -> tensor<4x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<4x64xf32>, tensor<128x64xbf16>)
      outs(%s : tensor<4x128xf32>) -> tensor<4x128xf32>
  return %r : tensor<4x128xf32>
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

// An f32 K block: the same dot-product kernel, no widening.
// CHECK-LABEL: func.func @decode_scores_f32
// CHECK-NOT: tensor.empty
// CHECK-NOT: arith.extf
// CHECK: vector.transfer_read {{.*}} : tensor<128x64xf32>, vector<8xf32>
// CHECK: vector.fma
func.func @decode_scores_f32(%q: tensor<1x64xf32>, %k: tensor<128x64xf32>,
                             %s: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<1x64xf32>, tensor<128x64xf32>)
      outs(%s : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}

// Keys that the lanes do not divide (a head dimension of 20): the GEMM
// kernel, as configured without `dot`.
// CONFIG-LABEL: func.func @odd_head_dim
// CONFIG: linalg.matmul {{.*}}#tfm.cpu_contraction<{{.*}}parallel_cols = 0>
// CHECK-LABEL: func.func @odd_head_dim
// CHECK: vector.contract
func.func @odd_head_dim(%q: tensor<1x20xf32>, %k: tensor<128x20xf32>,
                        %s: tensor<1x128xf32>) -> tensor<1x128xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
      ins(%q, %k : tensor<1x20xf32>, tensor<128x20xf32>)
      outs(%s : tensor<1x128xf32>) -> tensor<1x128xf32>
  return %r : tensor<1x128xf32>
}
