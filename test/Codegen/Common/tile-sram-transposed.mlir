// RUN: tfm-opt %s -split-input-file -tfm-set-target='vector-bits=256 l2-bytes=524288 threads=1' -tfm-configure-attention="untiled-max-keys=0 budget-bytes=65536 rescale-threshold=0" -tfm-tile-sram -cse | FileCheck %s

// The key loop of -tfm-tile-sram with transposed scores (the CPU's choice
// for query blocks of whole vectors: #tfm.attention_tiling's
// transposed_scores): Qᵀ once per query block, Sᵀ = K·Qᵀ per key block
// with K read in place as the A operand, the online softmax's row max and
// sum reduce over the rows of Sᵀ (the keys), and P·V reads Pᵀ as its
// transposed A. Loop bounds, masking rules and the epilogue are those of
// tile-sram.mlir; numerics: Numerics/tile-sram-numerics.mlir.

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$QT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[$ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[$COL:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[$ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-DAG: #[[$PT:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[$VB:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[$ACC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// Causal GQA (4 query heads per K/V head) with padding: 16 x 32 tiles,
// 64 query rows per block.
// CHECK-LABEL: func.func @causal_gqa_padding
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x8x?x64xf32>, %[[K:[^:]*]]: tensor<?x2x?x64xf32>, %[[V:[^:]*]]: tensor<?x2x?x64xf32>
// CHECK: scf.forall (%[[BI:.*]], %[[N:.*]], %[[QB:.*]]) in
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %c16
// The scaled, zero-padded Q tile [4, 16, 64], transposed once to [64, 4, 16]
// and viewed as Qᵀ [D, G*Br] = [64, 64].
// CHECK: %[[QS:.*]] = tensor.insert_slice %{{.*}} : tensor<4x?x64xf32> into tensor<4x16x64xf32>
// CHECK: %[[QTE:.*]] = tensor.empty() : tensor<64x4x16xf32>
// CHECK: %[[QTT:.*]] = linalg.generic {indexing_maps = [#[[$QT]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[QS]] : tensor<4x16x64xf32>) outs(%[[QTE]] : tensor<64x4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[X]] : f32
// CHECK: %[[QTM:.*]] = tensor.collapse_shape %[[QTT]] {{\[\[}}0], [1, 2]] : tensor<64x4x16xf32> into tensor<64x64xf32>
// The score tile is [Bc, G*Br] = [32, 64].
// CHECK: %[[FULL:.*]]:8 = scf.for %[[K0:.*]] = %c0 to %{{.*}} step %c32 iter_args({{.*}}) -> (tensor<64x64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<64xf32>, tensor<32x64xf32>, tensor<32x64xf32>, tensor<32x64xf32>)
// CHECK: %[[KB:.*]] = tensor.extract_slice %[[K]][%[[BI]], %[[N]], %[[K0]], %c0] [1, 1, 32, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<32x64xf32>
// CHECK: %[[VB:.*]] = tensor.extract_slice %[[V]][%[[BI]], %[[N]], %[[K0]], %c0] [1, 1, 32, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<32x64xf32>
// CHECK: %[[S0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32x64xf32>)
// Sᵀ = K·Qᵀ, a plain matmul: no transposed operand.
// CHECK: %[[S:.*]] = linalg.matmul ins(%[[KB]], %[[QTM]] : tensor<32x64xf32>, tensor<64x64xf32>) outs(%[[S0]] : tensor<32x64xf32>)
// CHECK-NOT: arith.cmpi
// Row statistics reduce over the keys, Sᵀ's rows (the outer loop).
// CHECK: %[[BM:.*]] = linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[S]] : tensor<32x64xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[UPD:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[BM]] : tensor<64xf32>)
// CHECK: math.exp2
// P = exp2(Sᵀ - m): m broadcast down the key rows.
// CHECK: %[[P:.*]] = linalg.generic {indexing_maps = [#[[$COL]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[UPD]]#0 : tensor<64xf32>) outs(%[[S]] : tensor<32x64xf32>)
// CHECK: math.exp2
// CHECK: linalg.generic {{.*}} ins(%[[UPD]]#1 : tensor<64xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {indexing_maps = [#[[$ID2]], #[[$COL]]], iterator_types = ["reduction", "parallel"]} ins(%[[P]] : tensor<32x64xf32>)
// CHECK: arith.addf
// The accumulator [G*Br, Dv] is rescaled by its rows, as without the
// transpose; P·V reads Pᵀ [Bc, G*Br] as A[k, m].
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[$ROW]], #[[$ID2]]], iterator_types = ["parallel", "parallel"]} ins(%[[UPD]]#1 : tensor<64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: linalg.matmul indexing_maps = [#[[$PT]], #[[$VB]], #[[$ACC]]] ins(%[[P]], %[[VB]] : tensor<32x64xf32>, tensor<32x64xf32>) outs(%[[ACC]] : tensor<64x64xf32>)
// CHECK-NOT: arith.cmpi
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// Diagonal blocks: the mask's loops are (j, g, i) over [Bc, G, Br], so the
// key is index 0 and the query row index 2.
// CHECK: scf.for %[[K1:.*]] = %{{.*}} to %[[D:.*]] step %c32 iter_args(
// CHECK: %[[KBUF:.*]] = tensor.insert_slice %{{.*}} : tensor<?x64xf32> into tensor<32x64xf32>
// CHECK: %[[VBUF:.*]] = tensor.insert_slice %{{.*}} : tensor<?x64xf32> into tensor<32x64xf32>
// CHECK: %[[SM:.*]] = linalg.matmul ins(%[[KBUF]], %[[QTM]] : tensor<32x64xf32>, tensor<64x64xf32>)
// CHECK: %[[S3:.*]] = tensor.expand_shape %[[SM]] {{\[\[}}0], [1, 2]] output_shape [32, 4, 16] : tensor<32x64xf32> into tensor<32x4x16xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} outs(%[[S3]] : tensor<32x4x16xf32>)
// CHECK: %[[R:.*]] = linalg.index 2 : index
// CHECK: %[[I:.*]] = arith.addi %[[Q0]], %[[R]]
// CHECK: %[[JJ:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = arith.addi %[[K1]], %[[JJ]]
// CHECK: %[[POS:.*]] = arith.addi %[[I]], %{{.*}}
// CHECK: %[[INLEN:.*]] = arith.cmpi slt, %[[J]], %[[D]]
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[POS]]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<32x4x16xf32> into tensor<32x64xf32>
// CHECK: linalg.matmul indexing_maps = [#[[$PT]], #[[$VB]], #[[$ACC]]] ins(%{{.*}}, %[[VBUF]] : tensor<32x64xf32>, tensor<32x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// CHECK: } {tfm.lowering_config = #tfm.attention_tiling<block_q = 16, block_k = 32, group = 4, footprint_bytes = 58368, budget_bytes = 65536, transposed_scores = true>}
func.func @causal_gqa_padding(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// An additive bias and ALiBi: the bias tile [G, Br, Bc] is read as
// (g, i, j) = (d1, d2, d0) by the loops (j, g, i) that write Sᵀ in order,
// and the slopes by g = d1.
// CHECK-DAG: #[[$BIAS:.*]] = affine_map<(d0, d1, d2) -> (d1, d2, d0)>
// CHECK-DAG: #[[$SLOPE:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @bias_alibi
// CHECK: scf.for
// CHECK: %[[ST:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [32, 2, 32] : tensor<32x64xf32> into tensor<32x2x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$BIAS]], #[[$SLOPE]], #[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%{{.*}}, %{{.*}} : tensor<2x32x32xf32>, tensor<2xf32>) outs(%[[ST]] : tensor<32x2x32xf32>)
// CHECK: %[[RI:.*]] = linalg.index 2 : index
// CHECK: %[[KJ:.*]] = linalg.index 0 : index
// CHECK: math.absf
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: transposed_scores = true
func.func @bias_alibi(%q: tensor<?x4x?x32xf32>, %k: tensor<?x2x?x32xf32>, %v: tensor<?x2x?x32xf32>, %bias: tensor<?x4x?x?xf32>, %slopes: tensor<4xf32>) -> tensor<?x4x?x32xf32> {
  %o = tfm.attention %q, %k, %v alibi(%slopes : tensor<4xf32>) bias(%bias : tensor<?x4x?x?xf32>) {scale = 0.125 : f64} : tensor<?x4x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32> -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}

// -----

// Query blocks that are not whole vectors (8 lanes here) keep S = Q·Kᵀ:
// a decode step (static Tq = 1, one row per query head).
// CHECK-LABEL: func.func @decode
// CHECK-NOT: transposed_scores
// CHECK: #tfm.attention_tiling<block_q = 1,
// CHECK-NOT: transposed_scores
func.func @decode(%q: tensor<?x4x1x32xf32>, %k: tensor<?x4x?x32xf32>, %v: tensor<?x4x?x32xf32>) -> tensor<?x4x1x32xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x4x1x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32> -> tensor<?x4x1x32xf32>
  return %o : tensor<?x4x1x32xf32>
}
