// RUN: tfm-opt %s -canonicalize -split-input-file | FileCheck %s

// Folders of the tfm dialect: only rewrites that are exact, bit for bit.

// CHECK-LABEL: func @scale_by_one
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @scale_by_one(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = tfm.scale %x {factor = 1.0 : f64} : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @scale_kept
// CHECK: tfm.scale %{{.*}} {factor = 1.250000e-01 : f64}
func.func @scale_kept(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %y = tfm.scale %x {factor = 0.125 : f64} : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @transpose_identity
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_identity(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %y = tfm.transpose %x [0, 1] : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Two transposes compose into one: result dim k is input dim p1[p2[k]].
// CHECK-LABEL: func @transpose_compose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tfm.transpose %[[X]] [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_compose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %a = tfm.transpose %x [1, 2, 0] : (tensor<2x3x4xf32>) -> tensor<3x4x2xf32>
  %b = tfm.transpose %a [1, 2, 0] : (tensor<3x4x2xf32>) -> tensor<4x2x3xf32>
  return %b : tensor<4x2x3xf32>
}

// -----

// Transposing the last two dims twice is the identity.
// CHECK-LABEL: func @transpose_involution
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x?x16xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_involution(%x: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %a = tfm.transpose %x [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %b = tfm.transpose %a [0, 1, 3, 2] : (tensor<?x4x16x?xf32>) -> tensor<?x4x?x16xf32>
  return %b : tensor<?x4x?x16xf32>
}

// -----

// CHECK-LABEL: func @repeat_kv_once
// CHECK-SAME: (%[[X:.*]]: tensor<?x2x?x16xf32>)
// CHECK-NEXT: return %[[X]]
func.func @repeat_kv_once(%x: tensor<?x2x?x16xf32>) -> tensor<?x2x?x16xf32> {
  %y = tfm.repeat_kv %x {repeats = 1 : i64} : (tensor<?x2x?x16xf32>) -> tensor<?x2x?x16xf32>
  return %y : tensor<?x2x?x16xf32>
}
