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

// f32 exp2 (the tiled attention's softmax) gets its own short expansion:
// clamp to [-127, 128], k = roundeven(min(t, 127)), a degree-6 polynomial
// of t - k (6 FMAs), times 2^k built from k's bits. Accuracy and edge
// cases: exp2-numerics.mlir.
// CHECK-LABEL: func.func @exp2_vector
// CHECK-NOT:     math.exp2
// CHECK:         arith.cmpf olt
// CHECK:         arith.cmpf ogt
// CHECK:         math.roundeven {{.*}} : vector<16xf32>
// CHECK-COUNT-6: math.fma {{.*}} : vector<16xf32>
// CHECK:         arith.fptosi {{.*}} : vector<16xf32> to vector<16xi32>
// CHECK:         arith.shli
// CHECK:         arith.bitcast {{.*}} : vector<16xi32> to vector<16xf32>
// CHECK:         arith.mulf
// CHECK-NOT:     math.exp2
// CHECK:         return
func.func @exp2_vector(%x: vector<16xf32>) -> vector<16xf32> {
  %e = math.exp2 %x : vector<16xf32>
  return %e : vector<16xf32>
}

// CHECK-LABEL: func.func @exp2_scalar_f64
// CHECK:         math.roundeven {{.*}} : f32
// CHECK:         math.exp2 {{.*}} : f64
func.func @exp2_scalar_f64(%x: f32, %y: f64) -> (f32, f64) {
  %e = math.exp2 %x : f32
  %f = math.exp2 %y : f64
  return %e, %f : f32, f64
}

// An f32 exp2 that allows approximate functions (fastmath<afn>: the
// tensor-core attention's softmax) becomes the GPU's ex2.approx inside a
// gpu.module; without the flag, or on the host (the emulation), it takes
// the polynomial.
// CHECK-LABEL: func.func @exp2_afn_host
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         math.fma
// CHECK-LABEL: gpu.module @kernels
// CHECK-LABEL: gpu.func @exp2_afn
// CHECK:         %[[E:.*]] = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// CHECK-NOT:     math.exp2
// CHECK:         math.fma
// CHECK:         gpu.return
func.func @exp2_afn_host(%x: f32) -> f32 {
  %e = math.exp2 %x fastmath<afn> : f32
  return %e : f32
}
gpu.module @kernels {
  gpu.func @exp2_afn(%x: f32, %out: memref<2xf32>) kernel {
    %a = math.exp2 %x fastmath<afn> : f32
    %p = math.exp2 %x : f32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    memref.store %a, %out[%c0] : memref<2xf32>
    memref.store %p, %out[%c1] : memref<2xf32>
    gpu.return
  }
}
