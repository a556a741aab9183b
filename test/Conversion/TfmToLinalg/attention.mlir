// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// GQA: 8 query heads over 2 K/V heads are regrouped [B, 2, 4, Tq, D]; K is
// read with (b, n, j, d), so no repeated K/V is materialized.
// CHECK-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d5)>
// CHECK-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
// CHECK-DAG: #[[S:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>
// CHECK-DAG: #[[V:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d4)>
// CHECK-LABEL: func @attention_gqa_causal_padding
// CHECK-SAME: (%[[QA:.*]]: tensor<?x8x?x64xf32>, %[[KA:.*]]: tensor<?x2x?x64xf32>, %[[VA:.*]]: tensor<?x2x?x64xf32>, %[[LEN:.*]]: tensor<?xi32>)
// CHECK-NOT: tfm.
// CHECK: %[[QG:.*]] = tensor.expand_shape %[[QA]] {{\[\[}}0], [1, 2], [3], [4]] {{.*}} into tensor<?x2x4x?x64xf32>
// CHECK: %[[SC:.*]] = linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[S]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[QG]], %[[KA]] :
// Scale and mask: -inf where j > i + (Tk - Tq) or j >= lengths[b].
// CHECK: linalg.generic {{.*}} ins(%[[SC]], %[[LEN]] : tensor<?x2x4x?x?xf32>, tensor<?xi32>)
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK: arith.cmpi sle
// CHECK: arith.cmpi slt
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// Row max, exp (0 where the max is -inf), sum, P.V, normalization.
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.cmpf one
// CHECK: linalg.generic {indexing_maps = [#[[Q]], #[[V]], #[[S]]]{{.*}} ins(%{{.*}}, %[[VA]] :
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x4x?x64xf32> into tensor<?x8x?x64xf32>
func.func @attention_gqa_causal_padding(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %l: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%l : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// Sliding window: i + off - j < window (4), ALiBi slope per head, bias.
// CHECK-LABEL: func @attention_window_alibi_bias
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] output_shape [2, 1, 4, 5, 7] : tensor<2x4x5x7xf32> into tensor<2x1x4x5x7xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [1, 4] : tensor<4xf32> into tensor<1x4xf32>
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: math.absf
// CHECK: arith.subf
// CHECK: %[[W:.*]] = arith.constant 4 : index
// CHECK: arith.cmpi slt, %{{.*}}, %[[W]] : index
// CHECK: arith.andi
func.func @attention_window_alibi_bias(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x7x8xf32>, %v: tensor<2x1x7x8xf32>, %s: tensor<4xf32>, %b: tensor<2x4x5x7xf32>) -> tensor<2x4x5x8xf32> {
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<4xf32>) bias(%b : tensor<2x4x5x7xf32>) {mask = #tfm.mask<sliding_window>, window = 4 : i64, scale = 0.5} : tensor<2x4x5x8xf32>, tensor<2x1x7x8xf32>, tensor<2x1x7x8xf32> -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

// CHECK-LABEL: func @softmax_axis1
// CHECK: %[[NEG:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEG]] : f32)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.select
// CHECK: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK: arith.cmpf ogt
func.func @softmax_axis1(%x: tensor<?x5x3xf32>) -> tensor<?x5x3xf32> {
  %y = tfm.softmax %x {axis = 1 : i64} : tensor<?x5x3xf32>
  return %y : tensor<?x5x3xf32>
}

// -----

// CHECK-LABEL: func @heads
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] output_shape [%{{.*}}, %{{.*}}, 4, 16] : tensor<?x?x64xf32> into tensor<?x?x4x16xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x?x4x16xf32>) outs(%{{.*}} : tensor<?x4x?x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: linalg.transpose ins(%{{.*}} : tensor<?x4x?x16xf32>) outs(%{{.*}} : tensor<?x?x4x16xf32>) permutation = [0, 2, 1, 3]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1], [2, 3]] : tensor<?x?x4x16xf32> into tensor<?x?x64xf32>
func.func @heads(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %s = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %m = tfm.merge_heads %s : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  return %m : tensor<?x?x64xf32>
}

// -----

// CHECK-LABEL: func @transpose
// CHECK: linalg.transpose ins(%{{.*}} : tensor<2x?x4xf32>) outs(%{{.*}} : tensor<4x2x?xf32>) permutation = [2, 0, 1]
func.func @transpose(%x: tensor<2x?x4xf32>) -> tensor<4x2x?xf32> {
  %y = tfm.transpose %x [2, 0, 1] : (tensor<2x?x4xf32>) -> tensor<4x2x?xf32>
  return %y : tensor<4x2x?xf32>
}

// -----

// CHECK-LABEL: func @unfused_mask
// make_mask: blocked = !(j <= i + off && j < len)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<?xi32>) outs(%{{.*}} : tensor<?x2x?x?xi1>)
// CHECK: arith.cmpi sle
// CHECK: arith.xori
// masked_fill
// CHECK: linalg.generic
// CHECK: arith.constant -1.000000e+09 : f32
// CHECK: arith.select
// alibi_bias: -slope[h] * |i + off - j|
// CHECK: math.absf
// CHECK: arith.negf
// repeat_kv: broadcast then collapse.
// CHECK: linalg.broadcast ins(%{{.*}} : tensor<?x2x?x8xf32>) outs(%{{.*}} : tensor<?x2x3x?x8xf32>) dimensions = [2]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3], [4]] : tensor<?x2x3x?x8xf32> into tensor<?x6x?x8xf32>
func.func @unfused_mask(%s: tensor<?x2x?x?xf32>, %m1: tensor<?x2x?x?xi1>, %l: tensor<?xi32>, %slopes: tensor<2xf32>, %kv: tensor<?x2x?x8xf32>) -> (tensor<?x2x?x?xi1>, tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>, tensor<?x6x?x8xf32>) {
  %m = tfm.make_mask %s key_lengths(%l : tensor<?xi32>) <causal> : tensor<?x2x?x?xf32> -> tensor<?x2x?x?xi1>
  %f = tfm.masked_fill %s, %m1 {value = -1.0e9 : f64} : tensor<?x2x?x?xf32>, tensor<?x2x?x?xi1>
  %a = tfm.alibi_bias %s, %slopes : (tensor<?x2x?x?xf32>, tensor<2xf32>) -> tensor<?x2x?x?xf32>
  %r = tfm.repeat_kv %kv {repeats = 3 : i64} : (tensor<?x2x?x8xf32>) -> tensor<?x6x?x8xf32>
  return %m, %f, %a, %r : tensor<?x2x?x?xi1>, tensor<?x2x?x?xf32>, tensor<?x2x?x?xf32>, tensor<?x6x?x8xf32>
}
