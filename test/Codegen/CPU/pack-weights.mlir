// RUN: tfm-opt %s -tfm-pack-weights="panel=4 max-panel=4" -split-input-file | FileCheck %s
// RUN: tfm-opt %s -tfm-pack-weights="panel=4 max-panel=4" -split-input-file -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: tfm-opt %s -tfm-pack-weights="panel=4 max-panel=16" -split-input-file | FileCheck %s --check-prefix=WIDE
// RUN: not tfm-opt %s -tfm-pack-weights="panel=4 max-panel=6" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: tfm-pack-weights: panel must be positive and max-panel 0 or a multiple of it, got panel=4 max-panel=6

// An out_in weight W[n, k] (N = 8, K = 3) read by a rank-3 contraction:
// Wp[nb, k, r] = W[nb*4 + r, k], made once at the top of the function and
// marked for -tfm-outline-prepare; the output is expanded to [.., 2, 4] and
// the new loop r (d4) is innermost.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3)>
// CHECK-DAG: #[[WP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-LABEL: func @out_in
// CHECK-NEXT: %[[W:.*]] = tfm.weight "w" : tensor<8x3xf32>
// CHECK-NEXT: %[[W3:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0, 1], [2]] output_shape [2, 4, 3] : tensor<8x3xf32> into tensor<2x4x3xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = linalg.generic {indexing_maps = [#[[WIN]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[W3]] : tensor<2x4x3xf32>) outs(%[[E]] : tensor<2x3x4xf32>) attrs = {tfm.prepare = "w:packed[n=0,panel=4]"}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]]
// CHECK-NEXT: } -> tensor<2x3x4xf32>
// CHECK: %[[INIT:.*]] = tensor.expand_shape %[[ACC:.*]] {{\[\[}}0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 2, 4] : tensor<?x?x8xf32> into tensor<?x?x2x4xf32>
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[X]], #[[WP]], #[[Y]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %[[P]] : tensor<?x?x3xf32>, tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<?x?x2x4xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0], [1], [2, 3]] : tensor<?x?x2x4xf32> into tensor<?x?x8xf32>
// CHECK: return %[[C]]
// The original weight is not read any more.
// CHECK-NOT: tfm.weight
#x = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
#w = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
#y = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
func.func @out_in(%x: tensor<?x?x3xf32>, %acc: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %w = tfm.weight "w" : tensor<8x3xf32>
  %y = linalg.generic {indexing_maps = [#x, #w, #y], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x?x3xf32>, tensor<8x3xf32>) outs(%acc : tensor<?x?x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// An in_out weight W[k, n] (K = 3, N = 8) read by linalg.matmul, twice:
// one packed copy Wp[nb, k, r] = W[k, nb*4 + r] serves both.
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// CHECK-DAG: #[[WP:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-LABEL: func @in_out_twice
// CHECK-NEXT: %[[W:.*]] = tfm.weight "w" : tensor<3x8xf32>
// CHECK-NEXT: %[[W3:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0], [1, 2]] output_shape [3, 2, 4] : tensor<3x8xf32> into tensor<3x2x4xf32>
// CHECK-NEXT: tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = linalg.generic {indexing_maps = [#[[WIN]], #{{.*}}]{{.*}} attrs = {tfm.prepare = "w:packed[n=1,panel=4]"}
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[WP]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %[[P]] : tensor<?x3xf32>, tensor<2x3x4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[WP]], #[[C]]], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%{{.*}}, %[[P]] : tensor<?x3xf32>, tensor<2x3x4xf32>)
// CHECK-NOT: tfm.prepare
func.func @in_out_twice(%x: tensor<?x3xf32>, %acc: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %w = tfm.weight "w" : tensor<3x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x8xf32>) outs(%acc : tensor<?x8xf32>) -> tensor<?x8xf32>
  %w2 = tfm.weight "w" : tensor<3x8xf32>
  %z = linalg.matmul ins(%x, %w2 : tensor<?x3xf32>, tensor<3x8xf32>) outs(%acc : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y, %z : tensor<?x8xf32>, tensor<?x8xf32>
}

// -----

// Left alone: an in_out weight whose packable columns (4 of 6, or all 4)
// are one panel (already panel-major), a contraction of two activations,
// an out_in weight narrower than one panel (3 columns).
// CHECK-LABEL: func @left_alone
// CHECK-NOT: tfm.prepare
// CHECK-NOT: tensor.expand_shape
// CHECK: return
func.func @left_alone(%x: tensor<?x3xf32>, %a6: tensor<?x6xf32>, %a4: tensor<?x4xf32>, %y: tensor<3x8xf32>, %a8: tensor<?x8xf32>, %d: index) -> (tensor<?x6xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x3xf32>) {
  %w6 = tfm.weight "w6" : tensor<3x6xf32>
  %r6 = linalg.matmul ins(%x, %w6 : tensor<?x3xf32>, tensor<3x6xf32>) outs(%a6 : tensor<?x6xf32>) -> tensor<?x6xf32>
  %w4 = tfm.weight "w4" : tensor<3x4xf32>
  %r4 = linalg.matmul ins(%x, %w4 : tensor<?x3xf32>, tensor<3x4xf32>) outs(%a4 : tensor<?x4xf32>) -> tensor<?x4xf32>
  %r8 = linalg.matmul ins(%x, %y : tensor<?x3xf32>, tensor<3x8xf32>) outs(%a8 : tensor<?x8xf32>) -> tensor<?x8xf32>
  %w3 = tfm.weight "w3" : tensor<3x3xf32>
  %a3 = tensor.empty(%d) : tensor<?x3xf32>
  %r3 = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w3 : tensor<?x3xf32>, tensor<3x3xf32>) outs(%a3 : tensor<?x3xf32>) -> tensor<?x3xf32>
  return %r6, %r4, %r8, %r3 : tensor<?x6xf32>, tensor<?x4xf32>, tensor<?x8xf32>, tensor<?x3xf32>
}

// -----

// An output whose N is dynamic (the weight's is not): left alone.
// CHECK-LABEL: func @dynamic_n
// CHECK-NOT: tfm.prepare
// CHECK: linalg.matmul
func.func @dynamic_n(%x: tensor<?x3xf32>, %acc: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %w = tfm.weight "w" : tensor<3x8xf32>
  %r = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x8xf32>) outs(%acc : tensor<?x?xf32>) -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A tied table: the gather reads W, the head reads the packed copy.
// CHECK-LABEL: func @tied
// CHECK: %[[P:.*]] = linalg.generic {{.*}} attrs = {tfm.prepare = "emb:packed[n=0,panel=4]"}
// CHECK: %[[W:.*]] = tfm.weight "emb" : tensor<8x3xf32>
// CHECK: tfm.embedding %{{.*}}, %[[W]]
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<?x3xf32>, tensor<2x3x4xf32>)
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @tied(%ids: tensor<?x?xi32>, %h: tensor<?x3xf32>, %acc: tensor<?x8xf32>) -> (tensor<?x?x3xf32>, tensor<?x8xf32>) {
  %w = tfm.weight "emb" : tensor<8x3xf32>
  %e = tfm.embedding %ids, %w : (tensor<?x?xi32>, tensor<8x3xf32>) -> tensor<?x?x3xf32>
  %l = linalg.matmul indexing_maps = [#a, #b, #c] ins(%h, %w : tensor<?x3xf32>, tensor<8x3xf32>) outs(%acc : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %e, %l : tensor<?x?x3xf32>, tensor<?x8xf32>
}

// One report per split: out_in, in_out_twice (two contractions, one
// layout), left_alone, dynamic_n, tied, widest, remainder.
// STATS: PackWeightsPass
// STATS-NEXT: (S) 1 packed-contractions - Contractions rewritten to read a packed weight
// STATS-NEXT: (S) 1 packed-weights      - Packed weight layouts made (one per weight name and layout)
// STATS: PackWeightsPass
// STATS-NEXT: (S) 2 packed-contractions
// STATS-NEXT: (S) 1 packed-weights
// STATS: PackWeightsPass
// STATS-NEXT: (S) 0 packed-contractions
// STATS-NEXT: (S) 0 packed-weights
// STATS: PackWeightsPass
// STATS-NEXT: (S) 0 packed-contractions
// STATS-NEXT: (S) 0 packed-weights
// STATS: PackWeightsPass
// STATS-NEXT: (S) 1 packed-contractions
// STATS-NEXT: (S) 1 packed-weights
// STATS: PackWeightsPass
// STATS-NEXT: (S) 1 packed-contractions
// STATS-NEXT: (S) 1 packed-weights
// STATS: PackWeightsPass
// STATS-NEXT: (S) 1 packed-contractions
// STATS-NEXT: (S) 1 packed-weights

// -----

// The panel is the widest multiple of `panel` that divides N (24) and is at
// most `max-panel`: 4 by default, 12 with max-panel=16. (In
// @in_out_twice, N = 8 would be one 8-wide panel of a [K, N] weight,
// which is panel-major already: left alone.)
// CHECK-LABEL: func @widest
// CHECK: tensor.empty() : tensor<6x5x4xf32>
// CHECK: attrs = {tfm.prepare = "w24:packed[n=0,panel=4]"}
// WIDE-LABEL: func @in_out_twice
// WIDE-NOT: tfm.prepare
// WIDE-LABEL: func @left_alone
// WIDE-LABEL: func @widest
// WIDE: tensor.empty() : tensor<2x5x12xf32>
// WIDE: attrs = {tfm.prepare = "w24:packed[n=0,panel=12]"}
// WIDE: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x5xf32>, tensor<2x5x12xf32>) outs(%{{.*}} : tensor<?x2x12xf32>)
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @widest(%x: tensor<?x5xf32>, %acc: tensor<?x24xf32>) -> tensor<?x24xf32> {
  %w = tfm.weight "w24" : tensor<24x5xf32>
  %l = linalg.matmul indexing_maps = [#a, #b, #c] ins(%x, %w : tensor<?x5xf32>, tensor<24x5xf32>) outs(%acc : tensor<?x24xf32>) -> tensor<?x24xf32>
  return %l : tensor<?x24xf32>
}
// STATS: PackWeightsPass
// STATS-NEXT: (S) 1 packed-contractions
// STATS-NEXT: (S) 1 packed-weights

// -----

// N = 6 is not a multiple of the panel: the first 4 columns read the packed
// weight (a packed copy of W[0:4]), the last 2 a slice of W as stored; both
// write slices of the init.
// CHECK-LABEL: func @remainder
// CHECK: %[[W:.*]] = tfm.weight "head" : tensor<6x3xf32>
// CHECK-NEXT: %[[W4:.*]] = tensor.extract_slice %[[W]][0, 0] [4, 3] [1, 1] : tensor<6x3xf32> to tensor<4x3xf32>
// CHECK-NEXT: tensor.expand_shape %[[W4]] {{\[\[}}0, 1], [2]] output_shape [1, 4, 3]
// CHECK: %[[P:.*]] = linalg.generic {{.*}} attrs = {tfm.prepare = "head:packed[n=0,panel=4]"}
// CHECK: %[[MAININIT:.*]] = tensor.extract_slice %[[ACC:.*]][0, 0] [%{{.*}}, 4] [1, 1] : tensor<?x6xf32> to tensor<?x4xf32>
// CHECK: %[[E:.*]] = tensor.expand_shape %[[MAININIT]]
// CHECK: %[[MAIN:.*]] = linalg.generic {{.*}} ins(%{{.*}}, %[[P]] : tensor<?x3xf32>, tensor<1x3x4xf32>) outs(%[[E]] : tensor<?x1x4xf32>)
// CHECK: %[[MC:.*]] = tensor.collapse_shape %[[MAIN]]
// CHECK: %[[I1:.*]] = tensor.insert_slice %[[MC]] into %[[ACC]][0, 0] [%{{.*}}, 4] [1, 1]
// CHECK: %[[RESTINIT:.*]] = tensor.extract_slice %[[I1]][0, 4] [%{{.*}}, 2] [1, 1] : tensor<?x6xf32> to tensor<?x2xf32>
// CHECK: %[[W2:.*]] = tensor.extract_slice %{{.*}}[4, 0] [2, 3] [1, 1] : tensor<6x3xf32> to tensor<2x3xf32>
// CHECK: %[[REST:.*]] = linalg.matmul {{.*}} ins(%{{.*}}, %[[W2]] : tensor<?x3xf32>, tensor<2x3xf32>) outs(%[[RESTINIT]] : tensor<?x2xf32>)
// CHECK: %[[I2:.*]] = tensor.insert_slice %[[REST]] into %[[I1]][0, 4] [%{{.*}}, 2] [1, 1]
// CHECK: return %[[I2]]
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#b = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @remainder(%x: tensor<?x3xf32>, %acc: tensor<?x6xf32>) -> tensor<?x6xf32> {
  %w = tfm.weight "head" : tensor<6x3xf32>
  %l = linalg.matmul indexing_maps = [#a, #b, #c] ins(%x, %w : tensor<?x3xf32>, tensor<6x3xf32>) outs(%acc : tensor<?x6xf32>) -> tensor<?x6xf32>
  return %l : tensor<?x6xf32>
}

// -----

// A static block of a weight (the middle third of a fused QKV weight
// W[k, n]): its packed copy is made from the block, under a name that says
// which.
// CHECK-LABEL: func @block
// CHECK: %[[W:.*]] = tfm.weight "qkv" : tensor<3x24xf32>
// CHECK-NEXT: %[[B:.*]] = tensor.extract_slice %[[W]][0, 8] [3, 8] [1, 1] : tensor<3x24xf32> to tensor<3x8xf32>
// CHECK-NEXT: tensor.expand_shape %[[B]] {{\[\[}}0], [1, 2]] output_shape [3, 2, 4]
// CHECK: linalg.generic {{.*}} attrs = {tfm.prepare = "qkv[0:3,8:16]:packed[n=1,panel=4]"}
func.func @block(%x: tensor<?x3xf32>, %acc: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %w = tfm.weight "qkv" : tensor<3x24xf32>
  %k = tensor.extract_slice %w[0, 8] [3, 8] [1, 1] : tensor<3x24xf32> to tensor<3x8xf32>
  %l = linalg.matmul ins(%x, %k : tensor<?x3xf32>, tensor<3x8xf32>) outs(%acc : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %l : tensor<?x8xf32>
}
