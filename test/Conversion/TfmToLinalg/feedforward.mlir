// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// out_in weight [O, I] read transposed in place; the bias initializes the
// accumulator. Rank-3 input: one contraction over (b, t, o, i), no reshape.
// CHECK-DAG: #[[XM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[WM:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-DAG: #[[YM:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[BM:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func @linear_out_in
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[W:.*]]: tensor<16x8xf32>, %[[B:.*]]: tensor<16xf32>)
// CHECK: %[[ACC:.*]] = linalg.generic {indexing_maps = [#[[BM]], #{{.*}}]{{.*}} ins(%[[B]] : tensor<16xf32>) outs(%{{.*}} : tensor<?x?x16xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[XM]], #[[WM]], #[[YM]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[X]], %[[W]] : tensor<?x?x8xf32>, tensor<16x8xf32>) outs(%[[ACC]] : tensor<?x?x16xf32>)
// CHECK-NOT: linalg.transpose
func.func @linear_out_in(%x: tensor<?x?x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf32>) -> tensor<?x?x16xf32> {
  %y = tfm.linear %x, %w, %b : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<?x?x16xf32>
  return %y : tensor<?x?x16xf32>
}

// -----

// in_out (GPT-2 Conv1D) weight [I, O], 2-D input: a plain linalg.matmul.
// CHECK-LABEL: func @linear_in_out_2d
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<8x24xf32>) outs(%[[Z]] : tensor<?x24xf32>)
func.func @linear_in_out_2d(%x: tensor<?x8xf32>, %w: tensor<8x24xf32>) -> tensor<?x24xf32> {
  %y = tfm.linear %x, %w {layout = #tfm.layout<in_out>} : (tensor<?x8xf32>, tensor<8x24xf32>) -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// -----

// 2-D out_in: linalg.matmul with transposing indexing maps.
// CHECK-DAG: #[[MK:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[NK:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[MN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func @linear_out_in_2d
// CHECK: linalg.matmul indexing_maps = [#[[MK]], #[[NK]], #[[MN]]] ins(%{{.*}}, %{{.*}} : tensor<?x8xf32>, tensor<24x8xf32>)
func.func @linear_out_in_2d(%x: tensor<?x8xf32>, %w: tensor<24x8xf32>) -> tensor<?x24xf32> {
  %y = tfm.linear %x, %w : (tensor<?x8xf32>, tensor<24x8xf32>) -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// -----

// Batched matmul with transpose_rhs: loops (b, h, m, n, k).
// CHECK-DAG: #[[L:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[R:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// CHECK-DAG: #[[O:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @matmul_transpose_rhs
// CHECK: linalg.generic {indexing_maps = [#[[L]], #[[R]], #[[O]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
func.func @matmul_transpose_rhs(%a: tensor<?x4x?x16xf32>, %b: tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32> {
  %y = tfm.matmul %a, %b {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  return %y : tensor<?x4x?x?xf32>
}

// -----

// CHECK-DAG: #[[KN:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-LABEL: func @matmul_2d
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[KN]], #{{.*}}]
func.func @matmul_2d(%a: tensor<3x5xf32>, %b: tensor<5x7xf32>) -> tensor<3x7xf32> {
  %y = tfm.matmul %a, %b : (tensor<3x5xf32>, tensor<5x7xf32>) -> tensor<3x7xf32>
  return %y : tensor<3x7xf32>
}

// -----

// SwiGLU: down(silu(gate(x)) * up(x)).
// CHECK-LABEL: func @ffn_swiglu
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[UP:.*]]: tensor<32x8xf32>, %[[GATE:.*]]: tensor<32x8xf32>, %[[DOWN:.*]]: tensor<8x32xf32>)
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[UP]] :
// CHECK: %[[GT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[GATE]] :
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[GT]], %[[U]] :
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: arith.mulf
// CHECK: linalg.generic {{.*}} ins(%[[H]], %[[DOWN]] :
func.func @ffn_swiglu(%x: tensor<?x?x8xf32>, %up: tensor<32x8xf32>, %gate: tensor<32x8xf32>, %down: tensor<8x32xf32>) -> tensor<?x?x8xf32> {
  %y = tfm.ffn %x up(%up) gate(%gate) down(%down) <swiglu> : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32x8xf32>, tensor<8x32xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// GeGLU with the tanh GELU (Gemma, T5's gated-gelu): down(gelu_tanh(gate(x))
// * up(x)).
// CHECK-LABEL: func @ffn_geglu_tanh
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[UP:.*]]: tensor<32x8xf32>, %[[GATE:.*]]: tensor<32x8xf32>, %[[DOWN:.*]]: tensor<8x32xf32>)
// CHECK: %[[U:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[UP]] :
// CHECK: %[[GT:.*]] = linalg.generic {{.*}} ins(%[[X]], %[[GATE]] :
// CHECK: %[[H:.*]] = linalg.generic {{.*}} ins(%[[GT]], %[[U]] :
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: math.tanh
// CHECK-NOT: math.erf
// CHECK: linalg.generic {{.*}} ins(%[[H]], %[[DOWN]] :
func.func @ffn_geglu_tanh(%x: tensor<?x?x8xf32>, %up: tensor<32x8xf32>, %gate: tensor<32x8xf32>, %down: tensor<8x32xf32>) -> tensor<?x?x8xf32> {
  %y = tfm.ffn %x up(%up) gate(%gate) down(%down) <geglu_tanh> : (tensor<?x?x8xf32>, tensor<32x8xf32>, tensor<32x8xf32>, tensor<8x32xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// Ungated GELU FFN with biases and GPT-2's in_out layout.
// CHECK-LABEL: func @ffn_gelu_in_out
// CHECK: math.erf
// CHECK-NOT: tfm.
func.func @ffn_gelu_in_out(%x: tensor<?x?x8xf32>, %up: tensor<8x32xf32>, %ub: tensor<32xf32>, %down: tensor<32x8xf32>, %db: tensor<8xf32>) -> tensor<?x?x8xf32> {
  %y = tfm.ffn %x up(%up, %ub) down(%down, %db) <gelu> {layout = #tfm.layout<in_out>} : (tensor<?x?x8xf32>, tensor<8x32xf32>, tensor<32xf32>, tensor<32x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
