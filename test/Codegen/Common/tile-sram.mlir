// RUN: tfm-opt %s -split-input-file -tfm-set-target='vector-bits=256 l2-bytes=524288 threads=1' -tfm-configure-attention="untiled-max-keys=0 transposed-scores=false budget-bytes=65536 rescale-threshold=0" -tfm-tile-sram -cse | FileCheck %s
// Split-K decode: 4 threads and one K/V head give key_splits = 4.
// RUN: tfm-opt %s -split-input-file -tfm-set-target='vector-bits=256 l2-bytes=524288 threads=4' -tfm-configure-attention="untiled-max-keys=0 transposed-scores=false budget-bytes=65536 rescale-threshold=0" -tfm-tile-sram -cse | FileCheck %s --check-prefix=KSPLIT

// The loop nest of -tfm-tile-sram: which key blocks each query block visits
// (loop bounds), which are masked, how GQA shares K/V blocks, and how the
// chosen tiles are recorded, for the tiles -tfm-configure-attention chooses
// with a 64 KiB budget (budget-bytes), scores not transposed
// (a GPU's nest; the CPU's transposed one: tile-sram-transposed.mlir). Numerics:
// Numerics/tile-sram-numerics.mlir; tile choice: configure-attention.mlir;
// errors: configure-attention-errors.mlir.

// CHECK-DAG: #[[$ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[$MQ:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[$MK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[$MS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>

// Causal GQA (8 query heads, 2 K/V heads) with padding. One forall
// iteration per (batch, K/V head, query block): the Q tile holds the 4
// query heads of K/V head n, so each K/V block is read once for all 4.
// Whole blocks left of the diagonal run unmasked; the blocks from there to
// min(len, q0 + off + bq) are masked; blocks right of that are never
// visited.
// CHECK-LABEL: func.func @causal_gqa_padding
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x8x?x64xf32>, %[[K:[^:]*]]: tensor<?x2x?x64xf32>, %[[V:[^:]*]]: tensor<?x2x?x64xf32>, %[[LEN:[^:]*]]: tensor<?xi32>)
// CHECK-NOT: tfm.attention
// CHECK: %[[B:.*]] = tensor.dim %[[Q]], %c0
// CHECK: %[[TQ:.*]] = tensor.dim %[[Q]], %c2
// CHECK: %[[TK:.*]] = tensor.dim %[[K]], %c2
// CHECK: %[[NQ:.*]] = arith.ceildivsi %[[TQ]], %c16
// CHECK: %[[INIT:.*]] = tensor.empty(%[[B]], %[[TQ]]) : tensor<?x8x?x64xf32>
// CHECK: %[[RES:.*]] = scf.forall (%[[BI:.*]], %[[N:.*]], %[[QB:.*]]) in (%[[B]], %c2, %[[NQ]]) shared_outs(%[[OUT:.*]] = %[[INIT]])
// CHECK: %[[H0:.*]] = arith.muli %[[N]], %c4
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %c16
// CHECK: %[[REST:.*]] = arith.subi %[[TQ]], %[[Q0]]
// CHECK: %[[BQ:.*]] = arith.minsi %[[REST]], %c16
// CHECK: %[[OFF:.*]] = arith.subi %[[TK]], %[[TQ]]
// CHECK: %[[QS:.*]] = tensor.extract_slice %[[Q]][%[[BI]], %[[H0]], %[[Q0]], %c0] [1, 4, %[[BQ]], 64] [1, 1, 1, 1] : tensor<?x8x?x64xf32> to tensor<4x?x64xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<4x16x64xf32>)
// Q is scaled by scale * log2(e) = 0.125 * 1.4427: scores in log2 units,
// for exp2.
// CHECK: linalg.generic {{.*}} ins(%[[QS]] : tensor<4x?x64xf32>)
// CHECK: %[[QSCALE:.*]] = arith.constant 0.180336878 : f32
// CHECK: arith.mulf %{{.*}}, %[[QSCALE]] : f32
// CHECK: %[[QT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<4x16x64xf32> into tensor<64x64xf32>
// Key bounds: len = clamp(key_lengths[b], 0, Tk); the visible keys end at
// d = clamp(q0 + off + bq, 0, len); every row sees keys < q0 + off + 1.
// CHECK: %[[L:.*]] = tensor.extract %[[LEN]][%[[BI]]] : tensor<?xi32>
// CHECK: %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK: %[[LLO:.*]] = arith.maxsi %[[LI]], %c0
// CHECK: %[[KLEN:.*]] = arith.minsi %[[LLO]], %[[TK]]
// CHECK: %[[PMIN:.*]] = arith.addi %[[Q0]], %[[OFF]]
// CHECK: %[[PEND:.*]] = arith.addi %[[PMIN]], %[[BQ]]
// CHECK: %[[DLO:.*]] = arith.maxsi %[[PEND]], %c0
// CHECK: %[[D:.*]] = arith.minsi %[[DLO]], %[[KLEN]]
// CHECK: %[[DIAG:.*]] = arith.addi %[[PMIN]], %c1
// CHECK: %[[CLO:.*]] = arith.maxsi %[[DIAG]], %c0
// CHECK: %[[C:.*]] = arith.minsi %[[CLO]], %[[D]]
// CHECK: %[[CPOS:.*]] = arith.maxsi %[[C]], %c0
// CHECK: %[[NFULL:.*]] = arith.divsi %[[CPOS]], %c32
// CHECK: %[[UB:.*]] = arith.muli %[[NFULL]], %c32
// Whole blocks: K and V are read in place, nothing is masked.
// CHECK: %[[FULL:.*]]:8 = scf.for %[[K0:.*]] = %c0 to %[[UB]] step %c32 iter_args(
// CHECK: %[[KB:.*]] = tensor.extract_slice %[[K]][%[[BI]], %[[N]], %[[K0]], %c0] [1, 1, 32, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<32x64xf32>
// CHECK: %[[VB:.*]] = tensor.extract_slice %[[V]][%[[BI]], %[[N]], %[[K0]], %c0] [1, 1, 32, 64] [1, 1, 1, 1] : tensor<?x2x?x64xf32> to tensor<32x64xf32>
// CHECK: %[[S0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<64x32xf32>)
// CHECK: %[[S:.*]] = linalg.matmul indexing_maps = [#[[$MQ]], #[[$MK]], #[[$MS]]] ins(%[[QT]], %[[KB]] : tensor<64x64xf32>, tensor<32x64xf32>) outs(%[[S0]] : tensor<64x32xf32>)
// CHECK-NOT: arith.cmpi
// CHECK: linalg.fill ins(%cst{{.*}} : f32) outs(%{{.*}} : tensor<64xf32>)
// The row max ignores NaN (maxnumf, one instruction); exp2 throughout.
// CHECK: %[[BM:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[S]] : tensor<64x32xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[UPD:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[BM]] : tensor<64xf32>)
// CHECK: arith.maximumf
// CHECK: arith.subf
// CHECK: math.exp2
// CHECK: linalg.yield
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[UPD]]#0 : tensor<64xf32>) outs(%[[S]] : tensor<64x32xf32>)
// CHECK: math.exp2
// CHECK: linalg.generic {{.*}} ins(%[[UPD]]#1 : tensor<64xf32>)
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%[[P]] : tensor<64x32xf32>)
// CHECK: arith.addf
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[UPD]]#1 : tensor<64xf32>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: linalg.matmul ins(%[[P]], %[[VB]] : tensor<64x32xf32>, tensor<32x64xf32>) outs(%[[ACC]] : tensor<64x64xf32>)
// CHECK-NOT: arith.cmpi
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// Diagonal blocks: the (possibly short) K/V block is copied into a zeroed
// buffer and the rule j < d, j <= i + off is applied.
// CHECK: %[[DIAGL:.*]]:8 = scf.for %[[K1:.*]] = %[[UB]] to %[[D]] step %c32 iter_args(%{{.*}} = %[[FULL]]#0,
// CHECK: %[[LEFT:.*]] = arith.subi %[[D]], %[[K1]]
// CHECK: %[[KN:.*]] = arith.minsi %[[LEFT]], %c32
// CHECK: %[[KS:.*]] = tensor.extract_slice %[[K]][%[[BI]], %[[N]], %[[K1]], %c0] [1, 1, %[[KN]], 64]
// CHECK: %[[KBUF:.*]] = tensor.insert_slice %[[KS]] into %{{.*}}[0, 0] [%[[KN]], 64] [1, 1] : tensor<?x64xf32> into tensor<32x64xf32>
// CHECK: %[[VS:.*]] = tensor.extract_slice %[[V]][%[[BI]], %[[N]], %[[K1]], %c0] [1, 1, %[[KN]], 64]
// CHECK: %[[VBUF:.*]] = tensor.insert_slice %[[VS]] into %{{.*}}[0, 0] [%[[KN]], 64] [1, 1] : tensor<?x64xf32> into tensor<32x64xf32>
// CHECK: linalg.matmul indexing_maps = [#[[$MQ]], #[[$MK]], #[[$MS]]] ins(%[[QT]], %[[KBUF]] : tensor<64x64xf32>, tensor<32x64xf32>)
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [4, 16, 32] : tensor<64x32xf32> into tensor<4x16x32xf32>
// CHECK: linalg.generic {indexing_maps = [#[[$ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} outs(
// CHECK: %[[R:.*]] = linalg.index 1 : index
// CHECK: %[[I:.*]] = arith.addi %[[Q0]], %[[R]]
// CHECK: %[[JJ:.*]] = linalg.index 2 : index
// CHECK: %[[J:.*]] = arith.addi %[[K1]], %[[JJ]]
// CHECK: %[[POS:.*]] = arith.addi %[[I]], %[[OFF]]
// CHECK: %[[INLEN:.*]] = arith.cmpi slt, %[[J]], %[[D]]
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[POS]]
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[INLEN]], %[[CAUSAL]]
// CHECK: arith.select %[[VIS]], %{{.*}}, %cst{{.*}} : f32
// CHECK: linalg.matmul ins(%{{.*}}, %[[VBUF]] : tensor<64x32xf32>, tensor<32x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// out = l > 0 ? acc / l : 0 on the bq valid rows of the 4 heads.
// CHECK: %[[ACC3:.*]] = tensor.expand_shape %[[DIAGL]]#0 {{\[\[}}0, 1], [2]] output_shape [4, 16, 64]
// CHECK: %[[SUM2:.*]] = tensor.expand_shape %[[DIAGL]]#2 {{\[\[}}0, 1]] output_shape [4, 16]
// CHECK: %[[ACCS:.*]] = tensor.extract_slice %[[ACC3]][0, 0, 0] [4, %[[BQ]], 64]
// CHECK: %[[SUMS:.*]] = tensor.extract_slice %[[SUM2]][0, 0] [4, %[[BQ]]]
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[OUT]][%[[BI]], %[[H0]], %[[Q0]], %c0] [1, 4, %[[BQ]], 64]
// CHECK: %[[NORM:.*]] = linalg.generic {{.*}} ins(%[[ACCS]], %[[SUMS]] : tensor<4x?x64xf32>, tensor<4x?xf32>) outs(%[[OS]] : tensor<4x?x64xf32>)
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: arith.select
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice %[[NORM]] into %[[OUT]][%[[BI]], %[[H0]], %[[Q0]], %c0] [1, 4, %[[BQ]], 64] [1, 1, 1, 1] : tensor<4x?x64xf32> into tensor<?x8x?x64xf32>
// CHECK: } {tfm.lowering_config = #tfm.attention_tiling<block_q = 16, block_k = 32, group = 4, footprint_bytes = 58368, budget_bytes = 65536>}
// CHECK: return %[[RES]]
func.func @causal_gqa_padding(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// Sliding window (HF Mistral: a row sees itself and window - 1 keys before
// it): keys left of q0 + off + 1 - window are never visited; the blocks that
// hold the window's left edge (up to q0 + off + bq - window, rounded up to
// whole blocks) are masked, then whole unmasked blocks, then the diagonal.
// CHECK-LABEL: func.func @sliding_window
// CHECK: scf.forall (%[[BI:.*]], %[[N:.*]], %[[QB:.*]]) in
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %c128
// CHECK: %[[BQ:.*]] = arith.minsi %{{.*}}, %c128
// CHECK: %[[OFF:.*]] = arith.subi
// CHECK: %[[PMIN:.*]] = arith.addi %[[Q0]], %[[OFF]]
// CHECK: %[[PEND:.*]] = arith.addi %[[PMIN]], %[[BQ]]
// CHECK: %[[DLO:.*]] = arith.maxsi %[[PEND]], %c0
// CHECK: %[[D:.*]] = arith.minsi %[[DLO]], %[[TK:.*]] :
// CHECK: %[[P1:.*]] = arith.addi %[[PMIN]], %c1
// CHECK: %[[ALO:.*]] = arith.subi %[[P1]], %c100
// CHECK: %[[A0:.*]] = arith.maxsi %[[ALO]], %c0
// CHECK: %[[A:.*]] = arith.minsi %[[A0]], %[[D]]
// CHECK: %[[BLO:.*]] = arith.subi %[[PEND]], %c100
// CHECK: %[[B0:.*]] = arith.maxsi %[[BLO]], %[[A]]
// CHECK: %[[BND:.*]] = arith.minsi %[[B0]], %[[D]]
// CHECK: %[[C0:.*]] = arith.maxsi %[[P1]], %[[BND]]
// CHECK: %[[C:.*]] = arith.minsi %[[C0]], %[[D]]
// CHECK: %[[HW:.*]] = arith.subi %[[BND]], %[[A]]
// CHECK: %[[NH:.*]] = arith.ceildivsi %[[HW]], %c64
// CHECK: %[[HL:.*]] = arith.muli %[[NH]], %c64
// CHECK: %[[H1:.*]] = arith.addi %[[A]], %[[HL]]
// CHECK: %[[H:.*]] = arith.minsi %[[H1]], %[[D]]
// CHECK: %[[FW:.*]] = arith.subi %[[C]], %[[H]]
// CHECK: %[[FW0:.*]] = arith.maxsi %[[FW]], %c0
// CHECK: %[[NF:.*]] = arith.divsi %[[FW0]], %c64
// CHECK: %[[FL:.*]] = arith.muli %[[NF]], %c64
// CHECK: %[[UB:.*]] = arith.addi %[[H]], %[[FL]]
// CHECK: scf.for %[[KH:.*]] = %[[A]] to %[[H]] step %c64
// The rule j < d, j <= i + off, i + off - j < window (100).
// CHECK: %[[WR:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[WI:.*]] = arith.addi %[[Q0]], %[[WR]] : index
// CHECK-NEXT: %[[WJJ:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[WJ:.*]] = arith.addi %[[KH]], %[[WJJ]] : index
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[WI]], %[[OFF]] : index
// CHECK-NEXT: %[[DIST:.*]] = arith.subi %[[POS]], %[[WJ]] : index
// CHECK-NEXT: %[[WINLEN:.*]] = arith.cmpi slt, %[[WJ]], %[[D]] : index
// CHECK-NEXT: %[[WCAUSAL:.*]] = arith.cmpi sle, %[[WJ]], %[[POS]] : index
// CHECK-NEXT: %[[WVIS0:.*]] = arith.andi %[[WINLEN]], %[[WCAUSAL]] : i1
// CHECK-NEXT: %[[INWIN:.*]] = arith.cmpi slt, %[[DIST]], %c100 : index
// CHECK-NEXT: %[[WVIS:.*]] = arith.andi %[[WVIS0]], %[[INWIN]] : i1
// CHECK-NEXT: %[[WNEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK-NEXT: arith.select %[[WVIS]], %{{.*}}, %[[WNEG]] : f32
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<window_head>}
// CHECK: scf.for %{{.*}} = %[[H]] to %[[UB]] step %c64
// CHECK-NOT: arith.cmpi
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: scf.for %{{.*}} = %[[UB]] to %[[D]] step %c64
// CHECK: arith.cmpi slt, %{{.*}}, %c100
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// CHECK: {tfm.lowering_config = #tfm.attention_tiling<block_q = 128, block_k = 64, group = 1, footprint_bytes = 59392, budget_bytes = 65536>}
func.func @sliding_window(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<sliding_window>, window = 100 : i64, scale = 0.25 : f64} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// No mask, padding (i64 lengths): the key loop ends at the clamped length;
// only the last, short block is masked, by j < len alone.
// CHECK-LABEL: func.func @padding_only
// CHECK-SAME: %[[K:[^:]*]]: tensor<?x4x?x16xf32>, %{{[^:]*}}: tensor<?x4x?x16xf32>, %[[LEN:[^:]*]]: tensor<?xi64>
// CHECK: %[[TK:.*]] = tensor.dim %[[K]], %c2 : tensor<?x4x?x16xf32>
// CHECK: scf.forall (%[[BI:.*]], %{{.*}}, %{{.*}}) in
// CHECK: %[[L:.*]] = tensor.extract %[[LEN]][%[[BI]]] : tensor<?xi64>
// CHECK: %[[LI:.*]] = arith.index_cast %[[L]] : i64 to index
// CHECK: %[[LLO:.*]] = arith.maxsi %[[LI]], %c0
// CHECK: %[[KLEN:.*]] = arith.minsi %[[LLO]], %[[TK]]
// CHECK: %[[LPOS:.*]] = arith.maxsi %[[KLEN]], %c0
// CHECK: %[[NF:.*]] = arith.divsi %[[LPOS]], %c64
// CHECK: %[[UB:.*]] = arith.muli %[[NF]], %c64
// CHECK: scf.for %{{.*}} = %c0 to %[[UB]] step %c64
// CHECK-NOT: arith.cmpi
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: scf.for %[[K1:.*]] = %[[UB]] to %[[KLEN]] step %c64
// CHECK: linalg.index 2
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[K1]], %{{.*}}
// CHECK-NOT: arith.cmpi sle
// CHECK: %[[VIS:.*]] = arith.cmpi slt, %[[J]], %[[KLEN]] : index
// CHECK: arith.select %[[VIS]]
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<remainder>}
func.func @padding_only(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %len: tensor<?xi64>) -> tensor<?x4x?x16xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi64>) {scale = 0.25 : f64} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// ALiBi and an additive bias apply to every block: the bias tile of the
// block is copied next to the scores, the slopes of the group's 2 heads are
// sliced once per query block; masking stays in the remainder block.
// CHECK-LABEL: func.func @alibi_bias
// CHECK-SAME: %[[SL:[^:]*]]: tensor<2xf32>, %[[BIAS:[^:]*]]: tensor<?x2x?x?xf32>
// CHECK: scf.forall (%[[BI:.*]], %[[N:.*]], %{{.*}}) in
// CHECK: %[[H0:.*]] = arith.muli %[[N]], %c2
// CHECK: %[[Q0:.*]] = arith.muli
// CHECK: %[[BQ:.*]] = arith.minsi
// CHECK: %[[SLOPES:.*]] = tensor.extract_slice %[[SL]][%[[H0]]] [2] [1] : tensor<2xf32> to tensor<2xf32>
// CHECK: scf.for %[[K0:.*]] = %c0 to %{{.*}} step %c64
// CHECK: %[[BS:.*]] = tensor.extract_slice %[[BIAS]][%[[BI]], %[[H0]], %[[Q0]], %[[K0]]] [1, 2, %[[BQ]], 64] [1, 1, 1, 1] : tensor<?x2x?x?xf32> to tensor<2x?x64xf32>
// The bias slice is copied into a slice of the carried bias tile (a bare
// insert_slice of a tile-sized slice would fold away with static shapes).
// CHECK: %[[BD:.*]] = tensor.extract_slice %[[BTILE:.*]][0, 0, 0] [2, %[[BQ]], 64] [1, 1, 1] : tensor<2x32x64xf32> to tensor<2x?x64xf32>
// CHECK: %[[BC:.*]] = linalg.copy ins(%[[BS]] : tensor<2x?x64xf32>) outs(%[[BD]] : tensor<2x?x64xf32>)
// CHECK: %[[BT:.*]] = tensor.insert_slice %[[BC]] into %[[BTILE]][0, 0, 0] [2, %[[BQ]], 64] [1, 1, 1] : tensor<2x?x64xf32> into tensor<2x32x64xf32>
// Both in log2 units (times log2(e)), like the scores; a finite bias whose
// product overflows is clamped to -+FLT_MAX, not -+inf.
// CHECK: linalg.generic {{.*}} ins(%[[BT]], %[[SLOPES]] : tensor<2x32x64xf32>, tensor<2xf32>)
// CHECK: ^bb0(%[[BV:.*]]: f32, %[[SV:.*]]: f32, %[[SC:.*]]: f32):
// CHECK: %[[LOG2E:.*]] = arith.constant 1.44269502 : f32
// CHECK: %[[BL:.*]] = arith.mulf %[[BV]], %[[LOG2E]] : f32
// CHECK: %[[CL:.*]] = math.copysign %{{.*}}, %[[BL]] : f32
// CHECK: %[[BSEL:.*]] = arith.select %{{.*}}, %[[CL]], %[[BL]] : f32
// CHECK: arith.addf %[[SC]], %[[BSEL]] : f32
// CHECK: %[[SLOG:.*]] = arith.mulf %[[SV]], %[[LOG2E]] : f32
// CHECK: math.absf
// CHECK: arith.mulf %[[SLOG]]
// CHECK: arith.subf
// CHECK-NOT: arith.select
// CHECK: linalg.yield
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: math.absf
// CHECK: arith.cmpi slt
// CHECK: arith.select
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<remainder>}
// CHECK: {tfm.lowering_config = #tfm.attention_tiling<block_q = 32, block_k = 64, group = 2, footprint_bytes = 50176, budget_bytes = 65536>}
func.func @alibi_bias(%q: tensor<?x2x?x16xf32>, %k: tensor<?x1x?x16xf32>, %v: tensor<?x1x?x16xf32>, %s: tensor<2xf32>, %bias: tensor<?x2x?x?xf32>) -> tensor<?x2x?x16xf32> {
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<2xf32>) bias(%bias : tensor<?x2x?x?xf32>) {scale = 0.25 : f64} : tensor<?x2x?x16xf32>, tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x2x?x16xf32>
  return %o : tensor<?x2x?x16xf32>
}

// -----

// Decoding one token with MQA in f16: the static Tq = 1 caps block_q at 1,
// the 8 query heads of the single K/V head form the 8 rows of the tile;
// Q is widened to f32 and scaled, K/V blocks are widened into f32 buffers
// (the contractions are all-f32), the result is narrowed back to f16.
// CHECK-LABEL: func.func @decode_mqa_f16
// CHECK: %[[INIT:.*]] = tensor.empty(%{{.*}}) : tensor<?x8x1x64xf16>
// CHECK: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}}, %c1, %c1) shared_outs
// CHECK: tensor.extract_slice {{.*}} [1, 8, %{{.*}}, 64] [1, 1, 1, 1] : tensor<?x8x1x64xf16> to tensor<8x?x64xf16>
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: tensor.collapse_shape {{.*}} : tensor<8x1x64xf32> into tensor<8x64xf32>
// CHECK: %[[KW:.*]] = linalg.copy ins(%{{.*}} : tensor<64x64xf16>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: %[[VW:.*]] = linalg.copy ins(%{{.*}} : tensor<64x64xf16>) outs(%{{.*}} : tensor<64x64xf32>)
// CHECK: linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %[[KW]] : tensor<8x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %[[VW]] : tensor<8x64xf32>, tensor<64x64xf32>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: linalg.copy ins(%{{.*}} : tensor<?x64xf16>) outs(%{{.*}} : tensor<?x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: {tfm.lowering_config = #tfm.attention_tiling<block_q = 1, block_k = 64, group = 8, footprint_bytes = 39040, budget_bytes = 65536>}
// With key_splits = 4, each (batch, K/V head) splits its visible keys into
// S = ceil(4 / B) ranges of whole 64-key blocks: range s runs the same key
// loops cut to [s * per, min((s + 1) * per, d)) and writes its f32
// accumulator, running max and sum; the combine after the parallel loop
// takes M = max_s m_s and weighs each range by exp2(m_s - M).
// KSPLIT-LABEL: func.func @decode_mqa_f16
// KSPLIT: %[[B:.*]] = tensor.dim %arg0, %c0 : tensor<?x8x1x64xf16>
// KSPLIT: %[[B1:.*]] = arith.maxsi %[[B]], %c1
// KSPLIT: %[[S:.*]] = arith.ceildivsi %c4, %[[B1]]
// KSPLIT: %[[ACC0:.*]] = tensor.empty(%[[B]], %[[S]]) : tensor<?x1x?x8x64xf32>
// KSPLIT: %[[STAT0:.*]] = tensor.empty(%[[B]], %[[S]]) : tensor<?x1x?x8xf32>
// KSPLIT: %[[P:.*]]:3 = scf.forall (%[[BI:.*]], %[[N:.*]], %[[SI:.*]]) in (%[[B]], %c1, %[[S]]) shared_outs(%[[ACC:.*]] = %[[ACC0]], %[[MX:.*]] = %[[STAT0]], %[[SUM:.*]] = %[[STAT0]])
// KSPLIT: %[[NB:.*]] = arith.ceildivsi %{{.*}}, %c64
// KSPLIT: %[[PB:.*]] = arith.ceildivsi %[[NB]], %[[S]]
// KSPLIT: %[[PER:.*]] = arith.muli %[[PB]], %c64
// KSPLIT: %[[LO0:.*]] = arith.muli %[[SI]], %[[PER]]
// KSPLIT: %[[LO:.*]] = arith.minsi %[[LO0]], %[[D:.*]] : index
// KSPLIT: %[[HI0:.*]] = arith.addi %[[LO]], %[[PER]]
// KSPLIT: %[[HI:.*]] = arith.minsi %[[HI0]], %[[D]]
// KSPLIT: %[[FLO:.*]] = arith.maxsi %[[LO]], %c0
// KSPLIT: %[[FHI:.*]] = arith.minsi %[[UB:.*]], %[[HI]]
// KSPLIT: %[[FULL:.*]]:8 = scf.for %{{.*}} = %[[FLO]] to %[[FHI]] step %c64
// KSPLIT: } {tfm.key_blocks = #tfm.key_blocks<full>}
// KSPLIT: %[[MLO:.*]] = arith.maxsi %[[UB]], %[[LO]]
// KSPLIT: %[[MHI:.*]] = arith.minsi %[[D]], %[[HI]]
// KSPLIT: %[[DIAG:.*]]:8 = scf.for %{{.*}} = %[[MLO]] to %[[MHI]] step %c64 iter_args(%{{.*}} = %[[FULL]]#0
// KSPLIT: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// KSPLIT: scf.forall.in_parallel
// KSPLIT-NEXT: tensor.parallel_insert_slice %[[DIAG]]#0 into %[[ACC]][%[[BI]], %[[N]], %[[SI]], %c0, %c0] [1, 1, 1, 8, 64]
// KSPLIT-NEXT: tensor.parallel_insert_slice %[[DIAG]]#1 into %[[MX]][%[[BI]], %[[N]], %[[SI]], %c0] [1, 1, 1, 8]
// KSPLIT-NEXT: tensor.parallel_insert_slice %[[DIAG]]#2 into %[[SUM]][%[[BI]], %[[N]], %[[SI]], %c0] [1, 1, 1, 8]
// KSPLIT: } {tfm.lowering_config = #tfm.attention_tiling<block_q = 1, block_k = 64, group = 8, footprint_bytes = 39040, budget_bytes = 65536, key_splits = 4>}
// The combine: M = max_s m_s; l = sum_s exp2(m_s - M) l_s;
// o = sum_s exp2(m_s - M) acc_s; out = l > 0 ? o / l : 0, as f16, then
// [B, Hkv, G, Dv] as [B, Hq, 1, Dv].
// KSPLIT: %[[M:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P]]#1 : tensor<?x1x?x8xf32>)
// KSPLIT: arith.maxnumf
// KSPLIT: %[[L:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[P]]#1, %[[P]]#2, %[[M]] :
// KSPLIT: math.exp2
// KSPLIT: %[[O:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[P]]#0, %[[P]]#1, %[[M]] :
// KSPLIT: math.exp2
// KSPLIT: %[[OUT:.*]] = linalg.generic {{.*}} ins(%[[O]], %[[L]] : tensor<?x1x8x64xf32>, tensor<?x1x8xf32>) outs(%{{.*}} : tensor<?x1x8x64xf16>)
// KSPLIT: arith.divf
// KSPLIT: arith.truncf %{{.*}} : f32 to f16
// KSPLIT: %[[H:.*]] = tensor.collapse_shape %[[OUT]] {{\[\[}}0], [1, 2], [3]] : tensor<?x1x8x64xf16> into tensor<?x8x64xf16>
// KSPLIT: %[[R:.*]] = tensor.expand_shape %[[H]] {{\[\[}}0], [1], [2, 3]] output_shape [%[[B]], 8, 1, 64] : tensor<?x8x64xf16> into tensor<?x8x1x64xf16>
// KSPLIT: return %[[R]]
func.func @decode_mqa_f16(%q: tensor<?x8x1x64xf16>, %k: tensor<?x1x?x64xf16>, %v: tensor<?x1x?x64xf16>) -> tensor<?x8x1x64xf16> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x1x64xf16>, tensor<?x1x?x64xf16>, tensor<?x1x?x64xf16> -> tensor<?x8x1x64xf16>
  return %o : tensor<?x8x1x64xf16>
}

// -----

// Decoding from a KV cache stored in bf16 (-tfm-narrow-kv-cache) under an
// f32 query: the whole key and value blocks go to the contractions as they
// are (bf16 slices of the cache, no f32 copy: the CPU's register kernels
// widen the rows they load); the short diagonal block is still widened
// into the zeroed f32 staging tile.
// CHECK-LABEL: func.func @decode_bf16_cache
// CHECK: %[[KB:.*]] = tensor.extract_slice %arg1{{.*}} : tensor<?x1x?x64xbf16> to tensor<64x64xbf16>
// CHECK: %[[VB:.*]] = tensor.extract_slice %arg2{{.*}} : tensor<?x1x?x64xbf16> to tensor<64x64xbf16>
// CHECK: linalg.matmul indexing_maps = {{.*}} ins(%{{.*}}, %[[KB]] : tensor<8x64xf32>, tensor<64x64xbf16>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK: linalg.matmul ins(%{{.*}}, %[[VB]] : tensor<8x64xf32>, tensor<64x64xbf16>) outs(%{{.*}} : tensor<8x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: linalg.copy ins(%{{.*}} : tensor<?x64xbf16>) outs(%{{.*}} : tensor<?x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
func.func @decode_bf16_cache(%q: tensor<?x8x1x64xf32>, %k: tensor<?x1x?x64xbf16>, %v: tensor<?x1x?x64xbf16>) -> tensor<?x8x1x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x1x64xf32>, tensor<?x1x?x64xbf16>, tensor<?x1x?x64xbf16> -> tensor<?x8x1x64xf32>
  return %o : tensor<?x8x1x64xf32>
}

// -----

// Causal with offsets (a generation step over a KV cache): query i of
// sequence b sits at key position offsets[b] + i, so off is offsets[b],
// read once per forall iteration, instead of Tk - Tq; the key bounds and
// the diagonal mask use it.
// CHECK-LABEL: func.func @causal_offsets
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x4x?x16xf32>, %[[K:[^:]*]]: tensor<?x4x?x16xf32>, %{{[^:]*}}: tensor<?x4x?x16xf32>, %[[OFFS:[^:]*]]: tensor<?xi32>)
// CHECK: %[[TK:.*]] = tensor.dim %[[K]], %c2
// CHECK: scf.forall (%[[BI:.*]], %{{.*}}, %[[QB:.*]]) in
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %c128
// CHECK: %[[BQ:.*]] = arith.minsi %{{.*}}, %c128
// CHECK-NOT: arith.subi %[[TK]]
// CHECK: %[[RAW:.*]] = tensor.extract %[[OFFS]][%[[BI]]] : tensor<?xi32>
// CHECK-NEXT: %[[OFF:.*]] = arith.index_cast %[[RAW]] : i32 to index
// Key bounds: d = clamp(q0 + off + bq, 0, Tk); whole blocks below
// q0 + off + 1.
// CHECK: %[[PMIN:.*]] = arith.addi %[[Q0]], %[[OFF]] : index
// CHECK-NEXT: %[[PEND:.*]] = arith.addi %[[PMIN]], %[[BQ]] : index
// CHECK-NEXT: %[[DLO:.*]] = arith.maxsi %[[PEND]], %c0 : index
// CHECK-NEXT: %[[D:.*]] = arith.minsi %[[DLO]], %[[TK]] : index
// CHECK-NEXT: %[[DIAG:.*]] = arith.addi %[[PMIN]], %c1 : index
// CHECK-NEXT: %[[CLO:.*]] = arith.maxsi %[[DIAG]], %c0 : index
// CHECK-NEXT: %[[C:.*]] = arith.minsi %[[CLO]], %[[D]] : index
// CHECK-NEXT: %[[CPOS:.*]] = arith.maxsi %[[C]], %c0 : index
// CHECK-NEXT: %[[NF:.*]] = arith.divsi %[[CPOS]], %c64 : index
// CHECK-NEXT: %[[UB:.*]] = arith.muli %[[NF]], %c64 : index
// CHECK: scf.for %{{.*}} = %c0 to %[[UB]] step %c64
// CHECK-NOT: arith.cmpi
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: scf.for %[[K1:.*]] = %[[UB]] to %[[D]] step %c64
// CHECK: %[[R:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[I:.*]] = arith.addi %[[Q0]], %[[R]] : index
// CHECK-NEXT: %[[JJ:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[J:.*]] = arith.addi %[[K1]], %[[JJ]] : index
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[I]], %[[OFF]] : index
// CHECK-NEXT: %[[INLEN:.*]] = arith.cmpi slt, %[[J]], %[[D]] : index
// CHECK-NEXT: %[[CAUSAL:.*]] = arith.cmpi sle, %[[J]], %[[POS]] : index
// CHECK-NEXT: %[[VIS:.*]] = arith.andi %[[INLEN]], %[[CAUSAL]] : i1
// CHECK: arith.select %[[VIS]], %{{.*}}, %{{.*}} : f32
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// CHECK: {tfm.lowering_config = #tfm.attention_tiling<block_q = 128, block_k = 64, group = 1, footprint_bytes = 59392, budget_bytes = 65536>}
func.func @causal_offsets(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %off: tensor<?xi32>) -> tensor<?x4x?x16xf32> {
  %o = tfm.attention %q, %k, %v offsets(%off : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.25 : f64} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32> -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// T5's decoder: a causal mask with the relative position bias as the
// additive bias. Block skipping is the mask's alone: whole blocks before
// the diagonal (no mask test), the diagonal blocks, and nothing after the
// last visible key; each visited block reads its [block_q, block_k] slice
// of the bias.
// CHECK-LABEL: func.func @causal_relative_bias
// CHECK-SAME: %[[BIAS:[a-z0-9]+]]: tensor<?x3x?x?xf32>)
// CHECK: scf.for %[[KB:.*]] = %c0 to %[[SPLIT:.*]] step %c64
// CHECK: tensor.extract_slice %[[BIAS]][{{.*}}, %[[KB]]] [1, 1, %{{.*}}, 64]
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: scf.for %[[KD:.*]] = %[[SPLIT]] to %[[END:.*]] step %c64
// CHECK: tensor.extract_slice %[[BIAS]][{{.*}}, %[[KD]]]
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// CHECK-NOT: scf.for
// CHECK: scf.forall.in_parallel
func.func @causal_relative_bias(%q: tensor<?x3x?x12xf32>, %k: tensor<?x3x?x12xf32>, %v: tensor<?x3x?x12xf32>, %len: tensor<?xi32>, %bias: tensor<?x3x?x?xf32>) -> tensor<?x3x?x12xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) bias(%bias : tensor<?x3x?x?xf32>) {mask = #tfm.mask<causal>, scale = 1.0 : f64} : tensor<?x3x?x12xf32>, tensor<?x3x?x12xf32>, tensor<?x3x?x12xf32> -> tensor<?x3x?x12xf32>
  return %o : tensor<?x3x?x12xf32>
}

// -----

// A static batch (tfm-bench's kernels, a model compiled for one batch size)
// keeps its static shapes through the split and the combine.
// KSPLIT-LABEL: func.func @decode_static_batch
// KSPLIT: scf.forall (%{{.*}}, %{{.*}}, %{{.*}}) in (%c1, %c1, %c4) shared_outs({{.*}}) -> (tensor<1x1x?x8x64xf32>, tensor<1x1x?x8xf32>, tensor<1x1x?x8xf32>)
// KSPLIT: key_splits = 4>}
// KSPLIT: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [1, 8, 1, 64] : tensor<1x8x64xf32> into tensor<1x8x1x64xf32>
func.func @decode_static_batch(%q: tensor<1x8x1x64xf32>, %k: tensor<1x1x4096x64xf32>, %v: tensor<1x1x4096x64xf32>) -> tensor<1x8x1x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x8x1x64xf32>, tensor<1x1x4096x64xf32>, tensor<1x1x4096x64xf32> -> tensor<1x8x1x64xf32>
  return %o : tensor<1x8x1x64xf32>
}
