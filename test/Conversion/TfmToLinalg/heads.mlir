// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// Tied LM head: logits = x . E^T (E read transposed, never copied).
// CHECK-DAG: #[[WM:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3)>
// CHECK-LABEL: func @lm_head
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[E:.*]]: tensor<50x8xf32>)
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[WM]], #{{.*}}]{{.*}} ins(%[[X]], %[[E]] : tensor<?x?x8xf32>, tensor<50x8xf32>) outs(%{{.*}} : tensor<?x?x50xf32>)
func.func @lm_head(%x: tensor<?x?x8xf32>, %e: tensor<50x8xf32>) -> tensor<?x?x50xf32> {
  %y = tfm.lm_head %x, %e {tied} : (tensor<?x?x8xf32>, tensor<50x8xf32>) -> tensor<?x?x50xf32>
  return %y : tensor<?x?x50xf32>
}

// -----

// Last position per sequence: x[b, clamp(lengths[b] - 1, 0, T - 1), :], then
// the pooler (tanh of a linear) and the classifier (2-D linalg.matmul).
// CHECK-LABEL: func @classifier_last
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[L:.*]]: tensor<?xi32>
// CHECK: %[[LASTT:.*]] = arith.subi %{{.*}}, %c1{{.*}} : index
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<?xi32>) outs(%{{.*}} : tensor<?x8xf32>)
// CHECK: arith.maxsi
// CHECK: arith.minsi %{{.*}}, %[[LASTT]]
// CHECK: tensor.extract %[[X]]
// CHECK: linalg.matmul {{.*}}ins(%[[P]], %{{.*}} : tensor<?x8xf32>, tensor<8x8xf32>)
// CHECK: math.tanh
// CHECK: linalg.matmul {{.*}}-> tensor<?x3xf32>
func.func @classifier_last(%x: tensor<?x?x8xf32>, %l: tensor<?xi32>, %pw: tensor<8x8xf32>, %pb: tensor<8xf32>, %w: tensor<3x8xf32>, %b: tensor<3xf32>) -> tensor<?x3xf32> {
  %y = tfm.classifier_head %x lengths(%l) pooler(%pw) pooler_bias(%pb) classifier(%w, %b) <last> : (tensor<?x?x8xf32>, tensor<?xi32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}

// -----

// First position ([CLS]): index 0, no pooler.
// CHECK-LABEL: func @classifier_first
// CHECK: linalg.generic
// CHECK: %[[Z:.*]] = arith.constant 0 : index
// CHECK: tensor.extract %{{.*}}[%{{.*}}, %[[Z]], %{{.*}}]
// CHECK-NOT: math.tanh
func.func @classifier_first(%x: tensor<?x?x8xf32>, %w: tensor<2x8xf32>) -> tensor<?x2xf32> {
  %y = tfm.classifier_head %x classifier(%w) <first> : (tensor<?x?x8xf32>, tensor<2x8xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

// DistilBERT's pre-classifier: the pooler with ReLU instead of tanh.
// CHECK-LABEL: func @classifier_relu_pooler
// CHECK: linalg.matmul {{.*}}-> tensor<?x8xf32>
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: math.tanh
// CHECK: linalg.matmul {{.*}}-> tensor<?x3xf32>
func.func @classifier_relu_pooler(%x: tensor<?x?x8xf32>, %pw: tensor<8x8xf32>, %pb: tensor<8xf32>, %w: tensor<3x8xf32>) -> tensor<?x3xf32> {
  %y = tfm.classifier_head %x pooler(%pw) pooler_bias(%pb) classifier(%w) <first> {pooler_activation = #tfm.activation<relu>} : (tensor<?x?x8xf32>, tensor<8x8xf32>, tensor<8xf32>, tensor<3x8xf32>) -> tensor<?x3xf32>
  return %y : tensor<?x3xf32>
}
