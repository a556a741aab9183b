// RUN: tfm-opt %s -tfm-approximate-math | FileCheck %s

// f32 exp, erf and tanh, scalar or vector, become arithmetic (no math op is
// left for convert-math-to-libm to unroll into per-lane calls).
// CHECK-LABEL: func.func @f32_vector
// CHECK-NOT:     math.exp
// CHECK-NOT:     math.erf
// CHECK-NOT:     math.tanh
// CHECK:         math.fma {{.*}} : vector<16xf32>
// CHECK:         return
func.func @f32_vector(%x: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %e = math.exp %x : vector<16xf32>
  %r = math.erf %x : vector<16xf32>
  %t = math.tanh %x : vector<16xf32>
  return %e, %r, %t : vector<16xf32>, vector<16xf32>, vector<16xf32>
}

// CHECK-LABEL: func.func @f32_scalar
// CHECK-NOT:     math.exp
// CHECK:         return
func.func @f32_scalar(%x: f32) -> f32 {
  %e = math.exp %x : f32
  return %e : f32
}

// f64 (RoPE's angle tables) and functions outside the list keep their
// libm-accurate lowering.
// CHECK-LABEL: func.func @untouched
// CHECK:         math.exp {{.*}} : f64
// CHECK:         math.sin {{.*}} : f32
func.func @untouched(%x: f64, %y: f32) -> (f64, f32) {
  %e = math.exp %x : f64
  %s = math.sin %y : f32
  return %e, %s : f64, f32
}
