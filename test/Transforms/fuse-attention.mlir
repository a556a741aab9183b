// RUN: tfm-opt %s -split-input-file -tfm-fuse-attention | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-fuse-attention=report-rejections=true -verify-diagnostics | FileCheck %s

// Every chain that -tfm-fuse-attention raises, then every near miss it must
// leave alone. With report-rejections, each near miss carries a remark that
// names its reason (the statistic it is counted in).

//===----------------------------------------------------------------------===//
// Matched variants
//===----------------------------------------------------------------------===//

// The frontend's unfused attention: repeat_kv (GQA), transpose, matmul,
// scale, make_mask causal with key lengths, masked_fill -inf, softmax,
// matmul. The repeats fold into K/V heads.
// CHECK-LABEL: func @frontend_gqa_causal
// CHECK-SAME: (%[[Q:.*]]: tensor<?x8x?x64xf32>, %[[K:.*]]: tensor<?x2x?x64xf32>, %[[V:.*]]: tensor<?x2x?x64xf32>, %[[LEN:.*]]: tensor<?xi32>)
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[LEN]] : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
// CHECK-NEXT: return %[[O]]
func.func @frontend_gqa_causal(%q: tensor<?x8x?x64xf32>, %k0: tensor<?x2x?x64xf32>, %v0: tensor<?x2x?x64xf32>, %len: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %k = tfm.repeat_kv %k0 {repeats = 4 : i64} : (tensor<?x2x?x64xf32>) -> tensor<?x8x?x64xf32>
  %v = tfm.repeat_kv %v0 {repeats = 4 : i64} : (tensor<?x2x?x64xf32>) -> tensor<?x8x?x64xf32>
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x8x?x64xf32>) -> tensor<?x8x64x?xf32>
  %s = tfm.matmul %q, %kt : (tensor<?x8x?x64xf32>, tensor<?x8x64x?xf32>) -> tensor<?x8x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.125 : f64} : tensor<?x8x?x?xf32>
  %m = tfm.make_mask %s2 key_lengths(%len : tensor<?xi32>) <causal> : tensor<?x8x?x?xf32> -> tensor<?x8x?x?xi1>
  %s3 = tfm.masked_fill %s2, %m {value = 0xFFF0000000000000 : f64} : tensor<?x8x?x?xf32>, tensor<?x8x?x?xi1>
  %p = tfm.softmax %s3 {axis = 3 : i64} : tensor<?x8x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x8x?x?xf32>, tensor<?x8x?x64xf32>) -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// The frontend with ALiBi: alibi_bias over the scaled scores, added, then
// the mask built over the sum. Multi-head (no repeat_kv), mask none.
// CHECK-LABEL: func @frontend_alibi
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x?x16xf32>, %[[K:.*]]: tensor<?x4x?x16xf32>, %[[V:.*]]: tensor<?x4x?x16xf32>, %[[LEN:.*]]: tensor<?xi32>)
// CHECK-NEXT: %[[SL:.*]] = tfm.alibi_slopes : tensor<4xf32>
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] key_lengths(%[[LEN]] : tensor<?xi32>) alibi(%[[SL]] : tensor<4xf32>) {scale = 2.500000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @frontend_alibi(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %len: tensor<?xi32>) -> tensor<?x4x?x16xf32> {
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %s = tfm.matmul %q, %kt : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.25 : f64} : tensor<?x4x?x?xf32>
  %sl = tfm.alibi_slopes : tensor<4xf32>
  %ab = tfm.alibi_bias %s2, %sl : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  %s3 = tfm.add %s2, %ab : tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s3 key_lengths(%len : tensor<?xi32>) <none> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %s4 = tfm.masked_fill %s3, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %s4 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// ALiBi added on the left, mask applied before it.
// CHECK-LABEL: func @alibi_commuted
// CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} alibi(%{{.*}} : tensor<4xf32>) {mask = #tfm.mask<causal>, scale = 1.000000e+00 : f64}
// CHECK-NOT: tfm.alibi_bias
// CHECK-NOT: tfm.make_mask
func.func @alibi_commuted(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %sl: tensor<4xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %s2 = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %ab = tfm.alibi_bias %s2, %sl : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  %s3 = tfm.add %ab, %s2 : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s3 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// transpose_rhs instead of a transpose, no scale at all (scale 1), no mask.
// CHECK-LABEL: func @transpose_rhs_unscaled
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x?x16xf32>, %[[K:.*]]: tensor<?x4x?x16xf32>, %[[V:.*]]: tensor<?x4x?x32xf32>)
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64} : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>, tensor<?x4x?x32xf32> -> tensor<?x4x?x32xf32>
// CHECK-NEXT: return %[[O]]
func.func @transpose_rhs_unscaled(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x32xf32>) -> tensor<?x4x?x32xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x32xf32>) -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}

// -----

// The scale folded into Q beforehand (GPT-NeoX style), and a second one on K
// before the transpose: the attention scale is their product.
// CHECK-LABEL: func @scale_on_q_and_k
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x?x16xf32>, %[[K:.*]]: tensor<?x4x?x16xf32>, %[[V:.*]]: tensor<?x4x?x16xf32>)
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @scale_on_q_and_k(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %qs = tfm.scale %q {factor = 0.5 : f64} : tensor<?x4x?x16xf32>
  %ks = tfm.scale %k {factor = 0.5 : f64} : tensor<?x4x?x16xf32>
  %kt = tfm.transpose %ks [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %s = tfm.matmul %qs, %kt : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A scale on the transposed K, and one more on the scores.
// CHECK-LABEL: func @scale_on_kt_and_scores
// CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64}
// CHECK-NOT: tfm.scale
// CHECK-NOT: tfm.transpose
func.func @scale_on_kt_and_scores(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %kts = tfm.scale %kt {factor = 0.5 : f64} : tensor<?x4x16x?xf32>
  %s = tfm.matmul %q, %kts : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.25 : f64} : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// arith.divf by a splat sqrt(d) on the scores.
// CHECK-LABEL: func @arith_divf
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x3x64xf32>, %[[K:.*]]: tensor<1x2x5x64xf32>, %[[V:.*]]: tensor<1x2x5x64xf32>)
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.250000e-01 : f64} : tensor<1x2x3x64xf32>, tensor<1x2x5x64xf32>, tensor<1x2x5x64xf32> -> tensor<1x2x3x64xf32>
// CHECK-NEXT: return %[[O]]
func.func @arith_divf(%q: tensor<1x2x3x64xf32>, %k: tensor<1x2x5x64xf32>, %v: tensor<1x2x5x64xf32>) -> tensor<1x2x3x64xf32> {
  %c = arith.constant dense<8.0> : tensor<1x2x3x5xf32>
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<1x2x5x64xf32>) -> tensor<1x2x64x5xf32>
  %s = tfm.matmul %q, %kt : (tensor<1x2x3x64xf32>, tensor<1x2x64x5xf32>) -> tensor<1x2x3x5xf32>
  %s2 = arith.divf %s, %c : tensor<1x2x3x5xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<1x2x3x5xf32>
  %o = tfm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x64xf32>) -> tensor<1x2x3x64xf32>
  return %o : tensor<1x2x3x64xf32>
}

// -----

// arith.mulf by a splat constant on either side, on Q and on the scores.
// CHECK-LABEL: func @arith_mulf
// CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {scale = 1.250000e-01 : f64}
// CHECK-NOT: arith.mulf
func.func @arith_mulf(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %cq = arith.constant dense<0.5> : tensor<1x2x3x4xf32>
  %cs = arith.constant dense<0.25> : tensor<1x2x3x5xf32>
  %qs = arith.mulf %cq, %q : tensor<1x2x3x4xf32>
  %s = tfm.matmul %qs, %k {transpose_rhs} : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
  %s2 = arith.mulf %s, %cs : tensor<1x2x3x5xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<1x2x3x5xf32>
  %o = tfm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// A sliding window, filled with a large negative instead of -inf; -1e4 is
// the threshold and still accepted.
// CHECK-LABEL: func @sliding_window_large_negative
// CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {mask = #tfm.mask<sliding_window>, scale = 1.250000e-01 : f64, window = 128 : i64}
// CHECK-NOT: tfm.masked_fill
func.func @sliding_window_large_negative(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.125 : f64} : tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s2 <sliding_window> {window = 128 : i64} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %s3 = tfm.masked_fill %s2, %m {value = -1.0e4 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %s3 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x64xf32>) -> tensor<?x4x?x64xf32>
  return %o : tensor<?x4x?x64xf32>
}

// -----

// An additive bias on either side of tfm.add, combined with a causal mask
// (filled with -1e9, the Hugging Face convention) and ALiBi.
// CHECK-LABEL: func @bias_mask_alibi
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x?x16xf32>, %[[K:.*]]: tensor<?x4x?x16xf32>, %[[V:.*]]: tensor<?x4x?x16xf32>, %[[B:.*]]: tensor<?x4x?x?xf32>, %[[SL:.*]]: tensor<4xf32>)
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] alibi(%[[SL]] : tensor<4xf32>) bias(%[[B]] : tensor<?x4x?x?xf32>) {mask = #tfm.mask<causal>, scale = 2.500000e-01 : f64}
// CHECK-NEXT: return %[[O]]
func.func @bias_mask_alibi(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %b: tensor<?x4x?x?xf32>, %sl: tensor<4xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.25 : f64} : tensor<?x4x?x?xf32>
  %s3 = tfm.add %b, %s2 : tensor<?x4x?x?xf32>
  %ab = tfm.alibi_bias %s3, %sl : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  %s4 = tfm.add %s3, %ab : tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s2 <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %s5 = tfm.masked_fill %s4, %m {value = -1.0e9 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %s5 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// An additive bias on the right, which is itself a tfm.matmul result (the
// scores are found on the left).
// CHECK-LABEL: func @bias_from_matmul
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x8x16xf32>, %[[K:.*]]: tensor<1x4x8x16xf32>, %[[V:.*]]: tensor<1x4x8x16xf32>, %[[A:.*]]: tensor<1x4x8x8xf32>)
// CHECK-NEXT: %[[B:.*]] = tfm.matmul %[[A]], %[[A]]
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] bias(%[[B]] : tensor<1x4x8x8xf32>) {scale = 1.000000e+00 : f64}
// CHECK-NEXT: return %[[O]]
func.func @bias_from_matmul(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %a: tensor<1x4x8x8xf32>) -> tensor<1x4x8x16xf32> {
  %b = tfm.matmul %a, %a : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x8xf32>
  %s2 = tfm.add %s, %b : tensor<1x4x8x8xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<1x4x8x8xf32>
  %o = tfm.matmul %p, %v : (tensor<1x4x8x8xf32>, tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// One static mask shared by two attentions, built over a value of the same
// static shape that is not in either chain: both fuse, the mask dies with
// the second.
// CHECK-LABEL: func @shared_static_mask
// CHECK-NOT: tfm.make_mask
// CHECK: %[[O1:.*]] = tfm.attention %{{.*}} {mask = #tfm.mask<causal>, scale = 1.000000e+00 : f64}
// CHECK: %[[O2:.*]] = tfm.attention %[[O1]], %{{.*}} {mask = #tfm.mask<causal>, scale = 1.000000e+00 : f64}
// CHECK-NEXT: return %[[O2]]
func.func @shared_static_mask(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %shape: tensor<1x2x8x8xf32>) -> tensor<1x2x8x4xf32> {
  %m = tfm.make_mask %shape <causal> : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xi1>
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<1x2x8x8xf32>
  %o = tfm.matmul %p, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  %s2 = tfm.matmul %o, %k {transpose_rhs} : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32>
  %f2 = tfm.masked_fill %s2, %m {value = 0xFFF0000000000000 : f64} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xi1>
  %p2 = tfm.softmax %f2 {axis = 3 : i64} : tensor<1x2x8x8xf32>
  %o2 = tfm.matmul %p2, %v : (tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32>
  return %o2 : tensor<1x2x8x4xf32>
}

// -----

// A repeated K that is also returned (a KV cache, say): the chain still
// fuses onto the un-repeated K/V, and that repeat_kv stays for its other
// user while V's dies.
// CHECK-LABEL: func @repeat_with_other_user
// CHECK-SAME: (%[[Q:.*]]: tensor<?x4x?x16xf32>, %[[K:.*]]: tensor<?x1x?x16xf32>, %[[V:.*]]: tensor<?x1x?x16xf32>)
// CHECK-NEXT: %[[RK:.*]] = tfm.repeat_kv %[[K]] {repeats = 4 : i64}
// CHECK-NEXT: %[[O:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {scale = 1.000000e+00 : f64} : tensor<?x4x?x16xf32>, tensor<?x1x?x16xf32>, tensor<?x1x?x16xf32> -> tensor<?x4x?x16xf32>
// CHECK-NEXT: return %[[O]], %[[RK]]
func.func @repeat_with_other_user(%q: tensor<?x4x?x16xf32>, %k0: tensor<?x1x?x16xf32>, %v0: tensor<?x1x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) {
  %k = tfm.repeat_kv %k0 {repeats = 4 : i64} : (tensor<?x1x?x16xf32>) -> tensor<?x4x?x16xf32>
  %v = tfm.repeat_kv %v0 {repeats = 4 : i64} : (tensor<?x1x?x16xf32>) -> tensor<?x4x?x16xf32>
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o, %k : tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>
}

// -----

// K and V repeated by different factors of different bases: nothing to fold,
// the repeated tensors are the attention's K and V (plain multi-head).
// CHECK-LABEL: func @repeat_mismatch
// CHECK: %[[RK:.*]] = tfm.repeat_kv %{{.*}} {repeats = 4 : i64}
// CHECK: %[[RV:.*]] = tfm.repeat_kv %{{.*}} {repeats = 2 : i64}
// CHECK: tfm.attention %{{.*}}, %[[RK]], %[[RV]]
func.func @repeat_mismatch(%q: tensor<?x4x?x16xf32>, %k0: tensor<?x1x?x16xf32>, %v0: tensor<?x2x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %k = tfm.repeat_kv %k0 {repeats = 4 : i64} : (tensor<?x1x?x16xf32>) -> tensor<?x4x?x16xf32>
  %v = tfm.repeat_kv %v0 {repeats = 2 : i64} : (tensor<?x2x?x16xf32>) -> tensor<?x4x?x16xf32>
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

//===----------------------------------------------------------------------===//
// Rejected candidates: left exactly as they are
//===----------------------------------------------------------------------===//

// -----

// CHECK-LABEL: func @reject_softmax_axis
// CHECK-NOT: tfm.attention
// CHECK: tfm.softmax %{{.*}} {axis = 2 : i64}
func.func @reject_softmax_axis(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 2 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{not fused into tfm.attention (rejected-softmax-axis): the softmax runs over axis 2, not the key axis 3}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// The probabilities are also returned.
// CHECK-LABEL: func @reject_probs_escape
// CHECK-NOT: tfm.attention
// CHECK: tfm.softmax
func.func @reject_probs_escape(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x?xf32>) {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{not fused into tfm.attention (rejected-other-uses): the result of tfm.softmax has a user outside the attention chain}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o, %p : tensor<?x4x?x16xf32>, tensor<?x4x?x?xf32>
}

// -----

// The scaled scores have a second user.
// CHECK-LABEL: func @reject_scores_escape
// CHECK-NOT: tfm.attention
// CHECK: tfm.scale
func.func @reject_scores_escape(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x?xf32>) {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.scale %s {factor = 0.25 : f64} : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-other-uses): the result of tfm.scale has a user outside the attention chain}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  %e = tfm.activation %s2 <relu> : tensor<?x4x?x?xf32>
  return %o, %e : tensor<?x4x?x16xf32>, tensor<?x4x?x?xf32>
}

// -----

// The transposed K is used elsewhere too.
// CHECK-LABEL: func @reject_transpose_escape
// CHECK-NOT: tfm.attention
func.func @reject_transpose_escape(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) {
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %s = tfm.matmul %q, %kt : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-other-uses): the result of tfm.transpose has a user outside the attention chain}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o, %kt : tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>
}

// -----

// The mask built over the chain's scores is used by something else as well:
// it cannot die, so neither can the scores it reads.
// CHECK-LABEL: func @reject_mask_escape
// CHECK-NOT: tfm.attention
func.func @reject_mask_escape(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> (tensor<?x4x?x16xf32>, tensor<?x4x?x?xi1>) {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-other-uses): the result of tfm.matmul has a user outside the attention chain}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o, %m : tensor<?x4x?x16xf32>, tensor<?x4x?x?xi1>
}

// -----

// CHECK-LABEL: func @reject_fill_value
// CHECK-NOT: tfm.attention
// CHECK: tfm.masked_fill
func.func @reject_fill_value(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = -9999.0 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-fill-value): the masked_fill value -9.999000e+03 is neither -inf nor <= -1e4}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Filling with +inf is not a mask.
// CHECK-LABEL: func @reject_fill_positive_inf
// CHECK-NOT: tfm.attention
func.func @reject_fill_positive_inf(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = 0x7FF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-fill-value)}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A finite fill followed by an added bias: the masked entries are no longer
// provably very negative (only -inf is absorbing).
// CHECK-LABEL: func @reject_finite_fill_then_bias
// CHECK-NOT: tfm.attention
func.func @reject_finite_fill_then_bias(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %b: tensor<?x4x?x?xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = -1.0e9 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %s2 = tfm.add %f, %b : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-fill-value): a bias is added after a masked_fill with a finite value; only -inf stays masked whatever is added}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A mask that arrives as a tensor: its kind is unknown.
// CHECK-LABEL: func @reject_mask_tensor
// CHECK-NOT: tfm.attention
func.func @reject_mask_tensor(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %m: tensor<?x4x?x?xi1>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-mask): the masked_fill mask is not a tfm.make_mask, so its kind is unknown}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A make_mask over some other dynamically shaped tensor: Tq and Tk of the
// mask are not provably those of the scores (the causal offset would differ).
// CHECK-LABEL: func @reject_mask_other_scores
// CHECK-NOT: tfm.attention
func.func @reject_mask_other_scores(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %other: tensor<?x4x?x?xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %other <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-mask): the tfm.make_mask is not built over these scores, so its shape is not provably theirs}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// The same for an ALiBi bias over another tensor.
// CHECK-LABEL: func @reject_alibi_other_scores
// CHECK-NOT: tfm.attention
func.func @reject_alibi_other_scores(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %other: tensor<?x4x?x?xf32>, %sl: tensor<4xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %ab = tfm.alibi_bias %other, %sl : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.add %s, %ab : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-mask): the tfm.alibi_bias is not built over these scores}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A multiplication by a tensor that is not a constant is not a scale.
// CHECK-LABEL: func @reject_scale_not_constant
// CHECK-NOT: tfm.attention
func.func @reject_scale_not_constant(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>, %c: tensor<1x2x3x5xf32>) -> tensor<1x2x3x4xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
  %s2 = arith.mulf %s, %c : tensor<1x2x3x5xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<1x2x3x5xf32>
  // expected-remark @+1 {{(rejected-scale): the scores are multiplied or divided by something that is not a finite splat constant}}
  %o = tfm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// A constant that is not a splat is not a scale either.
// CHECK-LABEL: func @reject_scale_not_splat
// CHECK-NOT: tfm.attention
func.func @reject_scale_not_splat(%q: tensor<1x1x1x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x1x4xf32> {
  %c = arith.constant dense<[[[[1.0, 2.0]]]]> : tensor<1x1x1x2xf32>
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<1x1x1x4xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x1x2xf32>
  %s2 = arith.divf %s, %c : tensor<1x1x1x2xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<1x1x1x2xf32>
  // expected-remark @+1 {{(rejected-scale)}}
  %o = tfm.matmul %p, %v : (tensor<1x1x1x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x1x4xf32>
  return %o : tensor<1x1x1x4xf32>
}

// -----

// Dividing by zero is not a scale.
// CHECK-LABEL: func @reject_divide_by_zero
// CHECK-NOT: tfm.attention
func.func @reject_divide_by_zero(%q: tensor<1x2x3x4xf32>, %k: tensor<1x2x5x4xf32>, %v: tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32> {
  %c = arith.constant dense<0.0> : tensor<1x2x3x4xf32>
  %qs = arith.divf %q, %c : tensor<1x2x3x4xf32>
  %s = tfm.matmul %qs, %k {transpose_rhs} : (tensor<1x2x3x4xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x5xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<1x2x3x5xf32>
  // expected-remark @+1 {{(rejected-scale): the queries are multiplied or divided by something that is not a finite splat constant}}
  %o = tfm.matmul %p, %v : (tensor<1x2x3x5xf32>, tensor<1x2x5x4xf32>) -> tensor<1x2x3x4xf32>
  return %o : tensor<1x2x3x4xf32>
}

// -----

// The transpose swaps heads and positions, not positions and features.
// CHECK-LABEL: func @reject_wrong_transpose
// CHECK-NOT: tfm.attention
func.func @reject_wrong_transpose(%q: tensor<2x4x4x4xf32>, %k: tensor<2x4x4x4xf32>, %v: tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32> {
  %kt = tfm.transpose %k [0, 2, 1, 3] : (tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %s = tfm.matmul %q, %kt : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<2x4x4x4xf32>
  // expected-remark @+1 {{(rejected-structure): the scores matmul's right operand is not K transposed (tfm.transpose [0, 1, 3, 2] or transpose_rhs)}}
  %o = tfm.matmul %p, %v : (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x4x4xf32>
  return %o : tensor<2x4x4x4xf32>
}

// -----

// The scores are not a matmul.
// CHECK-LABEL: func @reject_scores_not_matmul
// CHECK-NOT: tfm.attention
func.func @reject_scores_not_matmul(%s: tensor<?x4x?x?xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s2 = tfm.scale %s {factor = 0.125 : f64} : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): the softmax input does not come from a tfm.matmul through scales, masks and biases}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A scale after the mask (it would scale the bias too): not the claimed order.
// CHECK-LABEL: func @reject_scale_after_mask
// CHECK-NOT: tfm.attention
func.func @reject_scale_after_mask(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %b: tensor<?x4x?x?xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.add %s, %b : tensor<?x4x?x?xf32>
  %s3 = tfm.scale %s2 {factor = 0.25 : f64} : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s3 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): the softmax input does not come from a tfm.matmul through scales, masks and biases}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Two masks on one chain.
// CHECK-LABEL: func @reject_two_masks
// CHECK-NOT: tfm.attention
func.func @reject_two_masks(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %m = tfm.make_mask %s <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %m2 = tfm.make_mask %f <sliding_window> {window = 4 : i64} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %f2 = tfm.masked_fill %f, %m2 {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %p = tfm.softmax %f2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): more than one masked_fill}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Two additive biases on one chain.
// CHECK-LABEL: func @reject_two_biases
// CHECK-NOT: tfm.attention
func.func @reject_two_biases(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %b: tensor<?x4x?x?xf32>, %c: tensor<?x4x?x?xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.add %s, %b : tensor<?x4x?x?xf32>
  %s3 = tfm.add %s2, %c : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s3 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): more than one additive bias}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// P times V transposed is not attention's P.V.
// CHECK-LABEL: func @reject_pv_transposed
// CHECK-NOT: tfm.attention
func.func @reject_pv_transposed(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %vt: tensor<?x4x16x?xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %p = tfm.softmax %s {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): the P.V matmul has transpose_rhs}}
  %o = tfm.matmul %p, %vt {transpose_rhs} : (tensor<?x4x?x?xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// Rank-3 scores (heads folded into the batch) are not tfm.attention's form.
// CHECK-LABEL: func @reject_rank3
// CHECK-NOT: tfm.attention
func.func @reject_rank3(%q: tensor<?x?x16xf32>, %k: tensor<?x?x16xf32>, %v: tensor<?x?x16xf32>) -> tensor<?x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x?x16xf32>, tensor<?x?x16xf32>) -> tensor<?x?x?xf32>
  %p = tfm.softmax %s {axis = 2 : i64} : tensor<?x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): the scores have rank 3, not 4}}
  %o = tfm.matmul %p, %v : (tensor<?x?x?xf32>, tensor<?x?x16xf32>) -> tensor<?x?x16xf32>
  return %o : tensor<?x?x16xf32>
}

// -----

// The bias is the scores themselves (softmax(2 s)): an attention operand
// computed by the chain.
// CHECK-LABEL: func @reject_bias_from_chain
// CHECK-NOT: tfm.attention
func.func @reject_bias_from_chain(%q: tensor<?x4x?x16xf32>, %k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32> {
  %s = tfm.matmul %q, %k {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %s2 = tfm.add %s, %s : tensor<?x4x?x?xf32>
  %p = tfm.softmax %s2 {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // expected-remark @+1 {{(rejected-structure): an attention operand is computed by the chain itself}}
  %o = tfm.matmul %p, %v : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  return %o : tensor<?x4x?x16xf32>
}

// -----

// A matmul of a softmax that is not attention at all stays a matmul, and a
// matmul without a softmax is no candidate (no remark).
// CHECK-LABEL: func @not_a_candidate
// CHECK-NOT: tfm.attention
func.func @not_a_candidate(%a: tensor<?x4x?x16xf32>, %b: tensor<?x4x16x8xf32>) -> tensor<?x4x?x8xf32> {
  %o = tfm.matmul %a, %b : (tensor<?x4x?x16xf32>, tensor<?x4x16x8xf32>) -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}
