// RUN: tfm-opt %s -tfm-fuse-attention -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,PIPELINE
// RUN: tfm-opt %s -tfm-fuse-attention -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,LIST
// Nested on func.func, where MLIR runs copies of the pass on several
// threads: the copies' counts add up.
// RUN: tfm-opt %s -pass-pipeline='builtin.module(func.func(tfm-fuse-attention,cse))' -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,NESTED
// RUN: tfm-opt %s -pass-pipeline='builtin.module(func.func(tfm-fuse-attention),func.func(tfm-fuse-attention))' -mlir-pass-statistics -mlir-pass-statistics-display=list -mlir-disable-threading -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// Without the flag, no report.
// RUN: tfm-opt %s -tfm-fuse-attention -o /dev/null 2>&1 | count 0
// The names and descriptions printed here are those of Passes.td, as the
// generated reference shows them.
// RUN: FileCheck %s --check-prefix=DOC --input-file=%tfm_src/docs/reference/Passes/TfmTransformsPasses.md

// The counters of -tfm-fuse-attention over one module: two chains fused, one
// candidate rejected for each reason, in MLIR's format on every LLVM build
// (tfm/Transforms/PassStatistics.h: on an LLVM without statistics, tfm-opt
// prints the report of tfm's own counters). fuse-attention.mlir checks the
// same reasons per candidate through report-rejections remarks.

// CHECK-LABEL: Pass statistics report
// PIPELINE-NEXT: ===---
// PIPELINE-NEXT: FuseAttentionPass
// LIST-NEXT: ===---
// LIST-NEXT: {{^  }}FuseAttentionPass
// NESTED-NEXT: ===---
// NESTED-NEXT: 'func.func' Pipeline
// NESTED-NEXT: {{^  }}FuseAttentionPass
// Statistics print sorted by name as `(S) <value> <name padded to the
// longest> - <description>`.
// CHECK-NEXT: (S) 2 fused                 - Attention chains fused into tfm.attention
// CHECK-NEXT: (S) 1 rejected-fill-value   - Candidates rejected: masked_fill value is neither -inf nor <= -1e4, or finite with a bias added after it
// CHECK-NEXT: (S) 1 rejected-mask         - Candidates rejected: a mask or ALiBi bias is not a tfm.make_mask/tfm.alibi_bias provably over these scores
// CHECK-NEXT: (S) 1 rejected-other-uses   - Candidates rejected: an intermediate result has users outside the chain
// CHECK-NEXT: (S) 1 rejected-scale        - Candidates rejected: a scale is not a finite splat constant
// CHECK-NEXT: (S) 1 rejected-softmax-axis - Candidates rejected: softmax not over the key (last) axis
// CHECK-NEXT: (S) 1 rejected-structure    - Candidates rejected: the chain is not matmul, scale, mask/bias, softmax, matmul
// NESTED-NEXT: {{^  }}CSE
// PIPELINE-NOT: (S)
// LIST-NOT: (S)

// Two instances of the pass: the list sums them (the second finds nothing
// left to fuse and rejects the same six candidates again).
// TWICE: {{^  }}FuseAttentionPass
// TWICE-NEXT: (S) 2 fused
// TWICE-NEXT: (S) 2 rejected-fill-value
// TWICE-NEXT: (S) 2 rejected-mask
// TWICE-NEXT: (S) 2 rejected-other-uses
// TWICE-NEXT: (S) 2 rejected-scale
// TWICE-NEXT: (S) 2 rejected-softmax-axis
// TWICE-NEXT: (S) 2 rejected-structure
// TWICE-NOT: FuseAttentionPass

// DOC: ### `-tfm-fuse-attention`
// DOC: #### Statistics
// DOC: fused                 : Attention chains fused into tfm.attention
// DOC-NEXT: rejected-softmax-axis : Candidates rejected: softmax not over the key (last) axis
// DOC-NEXT: rejected-other-uses   : Candidates rejected: an intermediate result has users outside the chain
// DOC-NEXT: rejected-mask         : Candidates rejected: a mask or ALiBi bias is not a tfm.make_mask/tfm.alibi_bias provably over these scores
// DOC-NEXT: rejected-fill-value   : Candidates rejected: masked_fill value is neither -inf nor <= -1e4, or finite with a bias added after it
// DOC-NEXT: rejected-scale        : Candidates rejected: a scale is not a finite splat constant
// DOC-NEXT: rejected-structure    : Candidates rejected: the chain is not matmul, scale, mask/bias, softmax, matmul

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
