// RUN: tfm-opt %s -tfm-fuse-attention -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s
// REQUIRES: pass-statistics

// The counters of -tfm-fuse-attention over one module: two chains fused, one
// candidate rejected for each reason. (MLIR pass statistics need an LLVM
// built with statistics; see lit.local.cfg. fuse-attention.mlir checks the
// same reasons per candidate through report-rejections remarks.)

// CHECK-LABEL: Pass statistics report
// CHECK: FuseAttentionPass
// Statistics print as `(S) <value> <name padded to the longest> - <description>`.
// CHECK-DAG: (S) 2 fused{{ *}} - Attention chains fused into tfm.attention
// CHECK-DAG: (S) 1 rejected-softmax-axis{{ *}} - Candidates rejected
// CHECK-DAG: (S) 1 rejected-other-uses{{ *}} - Candidates rejected
// CHECK-DAG: (S) 1 rejected-mask{{ *}} - Candidates rejected
// CHECK-DAG: (S) 1 rejected-fill-value{{ *}} - Candidates rejected
// CHECK-DAG: (S) 1 rejected-scale{{ *}} - Candidates rejected
// CHECK-DAG: (S) 1 rejected-structure{{ *}} - Candidates rejected

func.func @fused(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %s = tfm.matmul %q, %kt : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.25 : f64} : tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s2 <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s2, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

func.func @fused_too(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

func.func @softmax_axis(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 2 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

func.func @other_uses(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x?xf32>) {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o, %p : tensor<?x4x?x16xf32>, tensor<?x4x?x?xf32>
}

func.func @mask(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %m: tensor<?x4x?x?xi1>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

func.func @fill_value(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = -1.0 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

func.func @scale(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %c: tensor<1x2x3x5xf32>) -> tensor<1x2x3x4xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
  %s2 = arith.mulf %s, %c : tensor<1x2x3x5xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<1x2x3x5xf32>
  %o = tfm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

func.func @structure(%s: tensor<?x4x?x?xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}
