// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file | FileCheck %s

// Two f64 reductions over the last dimension (sum, then centred squares:
// neither overflows for finite f32 input), then one elementwise op:
// f32((x - s/D) / sqrt(v/D + eps)) * gamma + beta, the normalization in
// f64.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32>, %[[G:.*]]: tensor<8xf32>, %[[B:.*]]: tensor<8xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] :
// CHECK-SAME: outs(%{{.*}} : tensor<?x?xf64>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f64):
// CHECK-NEXT: arith.extf %{{.*}} : f32 to f64
// CHECK: %[[SQ:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]], %[[SUM]] :
// CHECK-SAME: outs(%{{.*}} : tensor<?x?xf64>)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[LAST]], #[[LAST]], #[[ID]]]{{.*}} ins(%[[X]], %[[SUM]], %[[SQ]], %[[G]], %[[B]] :
// CHECK: arith.constant 1.250000e-01 : f64
// CHECK: arith.constant 1.000000e-05 : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @layer_norm(%x: tensor<?x?x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x?x8xf32> {
  %y = tfm.layer_norm %x, %g, %b {eps = 1.0e-5 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}

// -----

// The sum of squares in f64 (an f32 one overflows once |x| ~ 1e19 and
// gave all-zero outputs): the output is finite whenever it is
// representable.
// CHECK-LABEL: func @rms_norm
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: linalg.generic
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @rms_norm(%x: tensor<?x16xf32>, %g: tensor<16xf32>) -> tensor<?x16xf32> {
  %y = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return %y : tensor<?x16xf32>
}

// -----

// CHECK-LABEL: func @add_scale
// CHECK: linalg.generic
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.constant 1.250000e-01 : f32
// CHECK: arith.mulf
func.func @add_scale(%a: tensor<?x4xf32>, %b: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %s = tfm.add %a, %b : tensor<?x4xf32>
  %y = tfm.scale %s {factor = 0.125 : f64} : tensor<?x4xf32>
  return %y : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func @activations
// relu
// CHECK: arith.maximumf
// gelu (erf)
// CHECK: arith.constant 0.707106769 : f32
// CHECK: math.erf
// gelu_tanh
// CHECK: arith.constant 4.471500e-02 : f32
// CHECK: math.tanh
// silu
// CHECK: arith.negf
// CHECK: math.exp
// CHECK: arith.divf
// tanh
// CHECK: math.tanh
func.func @activations(%x: tensor<?x4xf32>) -> (tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>) {
  %a = tfm.activation %x <relu> : tensor<?x4xf32>
  %b = tfm.activation %x <gelu> : tensor<?x4xf32>
  %c = tfm.activation %x <gelu_tanh> : tensor<?x4xf32>
  %d = tfm.activation %x <silu> : tensor<?x4xf32>
  %e = tfm.activation %x <tanh> : tensor<?x4xf32>
  return %a, %b, %c, %d, %e : tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>, tensor<?x4xf32>
}

// -----

// f16 operands are widened to f32 for the arithmetic and narrowed once.
// CHECK-LABEL: func @rms_norm_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @rms_norm_f16(%x: tensor<?x16xf16>, %g: tensor<16xf16>) -> tensor<?x16xf16> {
  %y = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x16xf16>, tensor<16xf16>) -> tensor<?x16xf16>
  return %y : tensor<?x16xf16>
}

// -----

// Gemma's gain 1 + w: gamma_offset is added to gamma in f32 before the
// product; per-head norms (Qwen3) normalize the last dim of [B, H, T, Dh].
// CHECK-LABEL: func @rms_norm_offset_heads
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: linalg.generic
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[G:.*]] = arith.addf %{{.*}}, %[[ONE]] : f32
// CHECK-NEXT: arith.mulf %{{.*}}, %[[G]] : f32
func.func @rms_norm_offset_heads(%x: tensor<?x3x?x12xf32>, %g: tensor<12xf32>) -> tensor<?x3x?x12xf32> {
  %y = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64, gamma_offset = 1.0 : f64} : (tensor<?x3x?x12xf32>, tensor<12xf32>) -> tensor<?x3x?x12xf32>
  return %y : tensor<?x3x?x12xf32>
}
