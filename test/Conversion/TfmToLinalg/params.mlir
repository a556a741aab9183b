// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// CHECK-LABEL: func @embedding
// CHECK-SAME: (%[[IDS:.*]]: tensor<?x?xi32>, %[[TAB:.*]]: tensor<100x64xf32>)
// CHECK: %[[LAST:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: linalg.generic {{.*}} ins(%[[IDS]] : tensor<?x?xi32>) outs(%{{.*}} : tensor<?x?x64xf32>)
// CHECK: %[[ID:.*]] = arith.index_cast %{{.*}} : i32 to index
// CHECK: %[[LO:.*]] = arith.maxsi %[[ID]]
// CHECK: %[[ROW:.*]] = arith.minsi %[[LO]], %[[LAST]]
// CHECK: %[[COL:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %[[TAB]][%[[ROW]], %[[COL]]] : tensor<100x64xf32>
func.func @embedding(%ids: tensor<?x?xi32>, %t: tensor<100x64xf32>) -> tensor<?x?x64xf32> {
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<100x64xf32>) -> tensor<?x?x64xf32>
  return %x : tensor<?x?x64xf32>
}

// -----

// The [T, D] table is computed in f64 (sin for even features, cos for odd),
// then added to every batch.
// CHECK-DAG: #[[TD:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-LABEL: func @sinusoidal
// CHECK: %[[TABLE:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<?x8xf32>)
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: math.cos %{{.*}} : f64
// CHECK: arith.select
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[TD]], #{{.*}}]{{.*}} ins(%{{.*}}, %[[TABLE]] :
// CHECK: arith.addf
func.func @sinusoidal(%x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %y = tfm.sinusoidal_position %x : tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// With offsets, the table is [B, T, D]: token t of sequence b sits at
// position offsets[b] + t (the offsets read through the map (b)), and the
// add reads the table with the identity map.
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func @sinusoidal_offsets
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[OFF:.*]]: tensor<?xi32>)
// CHECK: %[[BS:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[TS:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[INIT:.*]] = tensor.empty(%[[BS]], %[[TS]]) : tensor<?x?x8xf32>
// CHECK: %[[TABLE:.*]] = linalg.generic {indexing_maps = [#[[B]], #[[ID]]]{{.*}} ins(%[[OFF]] : tensor<?xi32>) outs(%[[INIT]] : tensor<?x?x8xf32>)
// CHECK-NEXT: ^bb0(%[[O:.*]]: i32, %{{.*}}: f32):
// CHECK-NEXT: %[[T:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[OI:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[OI]], %[[T]] : index
// CHECK-NEXT: %[[P64:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK-NEXT: %[[PF:.*]] = arith.sitofp %[[P64]] : i64 to f64
// CHECK-NEXT: %[[D:.*]] = linalg.index 2 : index
// CHECK: arith.divui %[[D]], %c2
// CHECK: %[[ANGLE:.*]] = arith.mulf %[[PF]], %{{.*}} : f64
// CHECK: math.sin %[[ANGLE]] : f64
// CHECK: math.cos %[[ANGLE]] : f64
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ID]], #[[ID]]]{{.*}} ins(%[[X]], %[[TABLE]] : tensor<?x?x8xf32>, tensor<?x?x8xf32>)
// CHECK: arith.addf
func.func @sinusoidal_offsets(%x: tensor<?x?x8xf32>, %off: tensor<?xi32>) -> tensor<?x?x8xf32> {
  %y = tfm.sinusoidal_position %x offsets(%off : tensor<?xi32>) : tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Only the first T rows of the position table are read.
// CHECK-LABEL: func @learned
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[P:.*]]: tensor<16x8xf32>)
// CHECK: %[[T:.*]] = tensor.dim %[[X]], %c1
// CHECK: %[[ROWS:.*]] = tensor.extract_slice %[[P]][0, 0] [%[[T]], 8] [1, 1] : tensor<16x8xf32> to tensor<?x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[ROWS]] :
func.func @learned(%x: tensor<?x?x8xf32>, %p: tensor<16x8xf32>) -> tensor<?x?x8xf32> {
  %y = tfm.learned_position %x, %p : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// With offsets, row offsets[b] + t of the whole table, clamped into
// [0, P - 1]: no extract_slice of the first T rows.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-LABEL: func @learned_offsets
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[P:.*]]: tensor<16x8xf32>, %[[OFF:.*]]: tensor<?xi64>)
// CHECK-NOT: tensor.extract_slice
// CHECK: %[[ROWS:.*]] = tensor.dim %[[P]], %{{.*}} : tensor<16x8xf32>
// CHECK: %[[LAST:.*]] = arith.subi %[[ROWS]], %{{.*}} : index
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[B]], #[[ID]]]{{.*}} ins(%[[X]], %[[OFF]] : tensor<?x?x8xf32>, tensor<?xi64>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[O:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[T:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[OI:.*]] = arith.index_cast %[[O]] : i64 to index
// CHECK-NEXT: %[[POS:.*]] = arith.addi %[[OI]], %[[T]] : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[LO:.*]] = arith.maxsi %[[POS]], %[[ZERO]] : index
// CHECK-NEXT: %[[ROW:.*]] = arith.minsi %[[LO]], %[[LAST]] : index
// CHECK-NEXT: %[[COL:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[E:.*]] = tensor.extract %[[P]][%[[ROW]], %[[COL]]] : tensor<16x8xf32>
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[IN]], %[[E]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK-NOT: tensor.extract_slice
func.func @learned_offsets(%x: tensor<?x?x8xf32>, %p: tensor<16x8xf32>, %off: tensor<?xi64>) -> tensor<?x?x8xf32> {
  %y = tfm.learned_position %x, %p offsets(%off) : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<?xi64>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// rotate_half with rotary_dim 4 of 8: cos/sin tables [T, 8] (pair index
// d mod 2, passthrough beyond 4), partner feature d +/- 2.
// CHECK-LABEL: func @rope_rotate_half
// CHECK: %[[TABLES:.*]]:2 = linalg.generic {{.*}} outs(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<?x8xf32>)
// CHECK: arith.remui %{{.*}}, %c2
// CHECK: math.cos %{{.*}} : f64
// CHECK: math.sin %{{.*}} : f64
// CHECK: arith.cmpi ult, %{{.*}}, %c4
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[TABLES]]#0, %[[TABLES]]#1 :
// CHECK: tensor.extract
// CHECK: arith.negf
func.func @rope_rotate_half(%x: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32> {
  %y = tfm.rope %x {theta = 10000.0 : f64, rotary_dim = 4 : i64} : tensor<?x2x?x8xf32>
  return %y : tensor<?x2x?x8xf32>
}

// -----

// interleaved: pair index d / 2, partner d + 1 (even) or d - 1 (odd).
// CHECK-LABEL: func @rope_interleaved
// CHECK: arith.divui %{{.*}}, %c2
// CHECK: arith.remui %{{.*}}, %c2
func.func @rope_interleaved(%x: tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32> {
  %y = tfm.rope %x {theta = 10000.0 : f64, style = #tfm.rope_style<interleaved>} : tensor<1x2x?x8xf32>
  return %y : tensor<1x2x?x8xf32>
}

// -----

// With offsets, the cos/sin tables are [B, T, D] with the angle of position
// offsets[b] + t; the rotation reads them at (b, t, d) for every head.
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2) -> (d0)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BTD:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-LABEL: func @rope_offsets
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x?x8xf32>, %[[OFF:.*]]: tensor<?xi32>)
// CHECK: %[[BS:.*]] = tensor.dim %[[X]], %c0
// CHECK: %[[TS:.*]] = tensor.dim %[[X]], %c2
// CHECK: %[[COS0:.*]] = tensor.empty(%[[BS]], %[[TS]]) : tensor<?x?x8xf32>
// CHECK: %[[SIN0:.*]] = tensor.empty(%[[BS]], %[[TS]]) : tensor<?x?x8xf32>
// CHECK: %[[TABLES:.*]]:2 = linalg.generic {indexing_maps = [#[[B]], #[[ID3]], #[[ID3]]]{{.*}} ins(%[[OFF]] : tensor<?xi32>) outs(%[[COS0]], %[[SIN0]] : tensor<?x?x8xf32>, tensor<?x?x8xf32>)
// CHECK-NEXT: ^bb0(%[[O:.*]]: i32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[T:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[OI:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK-NEXT: %[[P:.*]] = arith.addi %[[OI]], %[[T]] : index
// CHECK-NEXT: %[[D:.*]] = linalg.index 2 : index
// CHECK-NEXT: %{{.*}} = arith.constant 4 : index
// CHECK-NEXT: arith.remui %[[D]], %{{.*}} : index
// CHECK-NEXT: arith.index_cast %[[P]] : index to i64
// CHECK: math.cos
// CHECK: math.sin
// CHECK: linalg.generic {indexing_maps = [#[[ID4]], #[[BTD]], #[[BTD]], #[[ID4]]]{{.*}} ins(%[[X]], %[[TABLES]]#0, %[[TABLES]]#1 :
func.func @rope_offsets(%x: tensor<?x2x?x8xf32>, %off: tensor<?xi32>) -> tensor<?x2x?x8xf32> {
  %y = tfm.rope %x offsets(%off : tensor<?xi32>) {theta = 10000.0 : f64} : tensor<?x2x?x8xf32>
  return %y : tensor<?x2x?x8xf32>
}

// -----

// Slopes are constants: 8 heads give 2^-1 ... 2^-8; 6 heads take the 4-head
// slopes (2^-2 ... 2^-8) then every other slope of 8 heads, from the first
// (2^-1, 2^-3): Press et al.'s get_slopes(6).
// CHECK-LABEL: func @alibi_slopes
// CHECK: arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03]> : tensor<8xf32>
// CHECK: arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03, 5.000000e-01, 1.250000e-01]> : tensor<6xf32>
func.func @alibi_slopes() -> (tensor<8xf32>, tensor<6xf32>) {
  %a = tfm.alibi_slopes : tensor<8xf32>
  %b = tfm.alibi_slopes : tensor<6xf32>
  return %a, %b : tensor<8xf32>, tensor<6xf32>
}

// -----

// Explicit frequencies (Llama 3, YaRN): the angle is t * inv_freq[pair],
// read from an f64 constant; attention_factor scales cos and sin in f64.
// CHECK-LABEL: func @rope_inv_freq
// CHECK: %[[FREQ:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-01]> : tensor<2xf64>
// CHECK: linalg.generic
// CHECK: %[[P:.*]] = arith.minui %{{.*}}, %c1
// CHECK-NEXT: %[[F:.*]] = tensor.extract %[[FREQ]][%[[P]]] : tensor<2xf64>
// CHECK: arith.mulf %{{.*}}, %[[F]] : f64
// CHECK: %[[C:.*]] = math.cos %{{.*}} : f64
// CHECK: %[[S:.*]] = math.sin %{{.*}} : f64
// CHECK: %[[AF:.*]] = arith.constant 1.250000e+00 : f64
// CHECK: arith.mulf %[[C]], %[[AF]] : f64
// CHECK: arith.mulf %[[S]], %[[AF]] : f64
// CHECK-NOT: math.exp
func.func @rope_inv_freq(%x: tensor<?x2x?x4xf32>) -> tensor<?x2x?x4xf32> {
  %y = tfm.rope %x {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1>, attention_factor = 1.25 : f64} : tensor<?x2x?x4xf32>
  return %y : tensor<?x2x?x4xf32>
}

// -----

// LongRoPE: a sequence uses the long set where offsets[b] + T > long_after.
// CHECK-LABEL: func @rope_longrope
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x?x4xf32>, %[[OFF:.*]]: tensor<?xi32>)
// CHECK-DAG: %[[SHORT:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-01]> : tensor<2xf64>
// CHECK-DAG: %[[LONG:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-02]> : tensor<2xf64>
// CHECK-DAG: %[[AFTER:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[T:.*]] = tensor.dim %[[X]], %c2
// CHECK: linalg.generic {{.*}} ins(%[[OFF]] : tensor<?xi32>)
// CHECK: %[[FS:.*]] = tensor.extract %[[SHORT]]
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %[[T]] : index
// CHECK: %[[ISLONG:.*]] = arith.cmpi ugt, %[[END]], %[[AFTER]] : index
// CHECK: %[[FL:.*]] = tensor.extract %[[LONG]]
// CHECK: arith.select %[[ISLONG]], %[[FL]], %[[FS]] : f64
func.func @rope_longrope(%x: tensor<?x2x?x4xf32>, %off: tensor<?xi32>) -> tensor<?x2x?x4xf32> {
  %y = tfm.rope %x offsets(%off : tensor<?xi32>) {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1>, long_inv_freq = array<f64: 0.5, 0.025>, long_after = 16 : i64} : tensor<?x2x?x4xf32>
  return %y : tensor<?x2x?x4xf32>
}

// -----

// ViT's patch embedding: pixels [B, 3, 8, 12] in 4 x 4 patches are viewed
// as [B, 3, 2, 4, 3, 4], transposed to (patch row, patch col, c, y, x) and
// collapsed to the 6 rows of 48 of one out_in projection, bias first.
// CHECK-LABEL: func @patch_embed
// CHECK-SAME: (%[[X:.*]]: tensor<?x3x8x12xf32>, %[[W:.*]]: tensor<5x3x4x4xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK: %[[G:.*]] = tensor.expand_shape %[[X]] {{\[\[}}0], [1], [2, 3], [4, 5]] output_shape [%{{.*}}, 3, 2, 4, 3, 4]
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[G]] : tensor<?x3x2x4x3x4xf32>) outs(%{{.*}} : tensor<?x2x3x3x4x4xf32>) permutation = [0, 2, 4, 1, 3, 5]
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %[[T]] {{\[\[}}0], [1, 2], [3, 4, 5]] : tensor<?x2x3x3x4x4xf32> into tensor<?x6x48xf32>
// CHECK: %[[FW:.*]] = tensor.collapse_shape %[[W]] {{\[\[}}0], [1, 2, 3]] : tensor<5x3x4x4xf32> into tensor<5x48xf32>
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<5xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[ROWS]], %[[FW]] : tensor<?x6x48xf32>, tensor<5x48xf32>) outs(%[[ACC]] : tensor<?x6x5xf32>)
func.func @patch_embed(%x: tensor<?x3x8x12xf32>, %w: tensor<5x3x4x4xf32>, %b: tensor<5xf32>) -> tensor<?x6x5xf32> {
  %y = tfm.patch_embed %x, %w, %b : (tensor<?x3x8x12xf32>, tensor<5x3x4x4xf32>, tensor<5xf32>) -> tensor<?x6x5xf32>
  return %y : tensor<?x6x5xf32>
}

// -----

// The [CLS] token: broadcast to [B, 1, D] at row 0, the input at rows 1...
// CHECK-LABEL: func @prepend_token
// CHECK-SAME: (%[[X:.*]]: tensor<?x6x5xf32>, %[[TOK:.*]]: tensor<5xf32>)
// CHECK: %[[INIT:.*]] = tensor.empty(%[[BS:.*]]) : tensor<?x7x5xf32>
// CHECK: %[[ROW:.*]] = linalg.generic {{.*}} ins(%[[TOK]] : tensor<5xf32>) outs(%{{.*}} : tensor<?x1x5xf32>)
// CHECK: %[[R0:.*]] = tensor.insert_slice %[[ROW]] into %[[INIT]][0, 0, 0] [%[[BS]], 1, 5] [1, 1, 1]
// CHECK: tensor.insert_slice %[[X]] into %[[R0]][0, 1, 0] [%[[BS]], 6, 5] [1, 1, 1]
func.func @prepend_token(%x: tensor<?x6x5xf32>, %tok: tensor<5xf32>) -> tensor<?x7x5xf32> {
  %y = tfm.prepend_token %x, %tok : (tensor<?x6x5xf32>, tensor<5xf32>) -> tensor<?x7x5xf32>
  return %y : tensor<?x7x5xf32>
}

// -----

// T5's bucketed bias, bidirectional: keys after the query (r > 0) use the
// upper half; the log-spaced buckets in transformers' order of operations.
// CHECK-LABEL: func @relative_position_bias
// CHECK-SAME: (%[[TAB:.*]]: tensor<8x3xf32>, %[[B:.*]]: index, %[[T:.*]]: index)
// CHECK: %[[SHIFT:.*]] = arith.subi %[[T]], %[[T]] : index
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x3x?x?xf32>)
// CHECK: %[[H:.*]] = linalg.index 1 : index
// CHECK: arith.cmpi sgt
// CHECK: math.absi
// CHECK: math.log %{{.*}} : f64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.fptosi
// CHECK: arith.minsi
// CHECK: tensor.extract %[[TAB]][%{{.*}}, %[[H]]] : tensor<8x3xf32>
func.func @relative_position_bias(%table: tensor<8x3xf32>, %b: index, %t: index) -> tensor<?x3x?x?xf32> {
  %y = tfm.relative_position_bias %table [%b, %t, %t] {bidirectional, max_distance = 16 : i64} : tensor<8x3xf32> -> tensor<?x3x?x?xf32>
  return %y : tensor<?x3x?x?xf32>
}

// -----

// In a generation step, query i sits at offsets[b] + i; unidirectional:
// later keys clamp to bucket 0.
// CHECK-LABEL: func @relative_position_bias_offsets
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?xi32>)
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: arith.maxsi
// CHECK-NOT: math.absi
func.func @relative_position_bias_offsets(%table: tensor<8x3xf32>, %b: index, %t: index, %c: index, %off: tensor<?xi32>) -> tensor<?x3x?x?xf32> {
  %y = tfm.relative_position_bias %table [%b, %t, %c] offsets(%off : tensor<?xi32>) {max_distance = 16 : i64} : tensor<8x3xf32> -> tensor<?x3x?x?xf32>
  return %y : tensor<?x3x?x?xf32>
}

// -----

// In a generation step whose rows append different counts, LongRoPE's
// choice is per row: offsets[b] + lengths[b], not the padded width.
// CHECK-LABEL: func @rope_longrope_lengths
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x?x4xf32>, %[[OFF:.*]]: tensor<?xi32>, %[[LEN:.*]]: tensor<?xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[OFF]], %[[LEN]] : tensor<?xi32>, tensor<?xi32>)
// CHECK-NEXT: ^bb0(%[[O:.*]]: i32, %[[L:.*]]: i32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK: %[[LI:.*]] = arith.index_cast %[[L]] : i32 to index
// CHECK: %[[END:.*]] = arith.addi %{{.*}}, %[[LI]] : index
// CHECK: arith.cmpi ugt, %[[END]], %{{.*}} : index
func.func @rope_longrope_lengths(%x: tensor<?x2x?x4xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) -> tensor<?x2x?x4xf32> {
  %y = tfm.rope %x offsets(%off : tensor<?xi32>) lengths(%len : tensor<?xi32>) {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1>, long_inv_freq = array<f64: 0.5, 0.025>, long_after = 16 : i64} : tensor<?x2x?x4xf32>
  return %y : tensor<?x2x?x4xf32>
}
