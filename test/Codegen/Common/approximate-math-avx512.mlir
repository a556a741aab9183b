// RUN: tfm-opt %s -split-input-file -tfm-approximate-math | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-approximate-math=avx512-exp2=false | FileCheck %s --check-prefix=OFF

// On a CPU target with AVX512F and AVX512DQ (here znver4's features), f32
// vector exp2 of 16·n lanes takes vreduceps (t - roundeven(t)), the
// polynomial of the fraction (6 FMAs) and vscalefps (times 2^k, k = t - f),
// 16 lanes at a time; with AVX512VL, 8 lanes take the 256-bit forms. Other
// widths and scalars keep the clamped polynomial. Accuracy and edges:
// exp2-numerics.mlir.

module attributes {tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512dq,+avx512vl,+fma", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 1>} {
// CHECK-LABEL: func.func @avx512
// CHECK-SAME:    (%[[X:.*]]: vector<32xf32>, %[[Y:.*]]: vector<8xf32>, %[[Z:.*]]: vector<4xf32>, %[[S:.*]]: f32)
// CHECK-NOT:     math.exp2
// CHECK:         %[[LO:.*]] = vector.extract_strided_slice %[[X]] {offsets = [0], sizes = [16], strides = [1]}
// CHECK:         %[[F:.*]] = llvm.call_intrinsic "llvm.x86.avx512.mask.reduce.ps.512"(%[[LO]], %{{.*}}) : (vector<16xf32>, i32, vector<16xf32>, i16, i32) -> vector<16xf32>
// CHECK:         %[[K:.*]] = arith.subf %[[LO]], %[[F]] : vector<16xf32>
// CHECK-COUNT-6: math.fma {{.*}}, %[[F]], {{.*}} : vector<16xf32>
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"(%{{.*}}, %[[K]], %{{.*}}) : (vector<16xf32>, vector<16xf32>, vector<16xf32>, i16, i32) -> vector<16xf32>
// CHECK:         vector.insert_strided_slice {{.*}} {offsets = [0], strides = [1]} : vector<16xf32> into vector<32xf32>
// CHECK:         vector.extract_strided_slice %[[X]] {offsets = [16], sizes = [16], strides = [1]}
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.mask.reduce.ps.512"
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// CHECK:         vector.insert_strided_slice {{.*}} {offsets = [16], strides = [1]} : vector<16xf32> into vector<32xf32>
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.mask.reduce.ps.256"(%[[Y]], %{{.*}}) : (vector<8xf32>, i32, vector<8xf32>, i8) -> vector<8xf32>
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.256"
// The other widths: the polynomial with its clamps.
// CHECK:         math.roundeven {{.*}} : vector<4xf32>
// CHECK:         math.roundeven {{.*}} : f32
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         return

// OFF-LABEL: func.func @avx512
// OFF-NOT:     llvm.call_intrinsic
// OFF:         math.roundeven {{.*}} : vector<32xf32>
// OFF-NOT:     llvm.call_intrinsic
// OFF:         return
func.func @avx512(%x: vector<32xf32>, %y: vector<8xf32>, %z: vector<4xf32>, %s: f32) -> (vector<32xf32>, vector<8xf32>, vector<4xf32>, f32) {
  %a = math.exp2 %x : vector<32xf32>
  %b = math.exp2 %y : vector<8xf32>
  %c = math.exp2 %z : vector<4xf32>
  %d = math.exp2 %s : f32
  return %a, %b, %c, %d : vector<32xf32>, vector<8xf32>, vector<4xf32>, f32
}
}

// -----

// AVX512F without VL: 16 lanes take vscalefps, 8 the polynomial.
module attributes {tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64", features = "+avx512f,+avx512dq,+fma", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 1>} {
// CHECK-LABEL: func.func @no_vl
// CHECK:         llvm.call_intrinsic "llvm.x86.avx512.mask.scalef.ps.512"
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         math.roundeven {{.*}} : vector<8xf32>
// CHECK:         return
func.func @no_vl(%x: vector<16xf32>, %y: vector<8xf32>) -> (vector<16xf32>, vector<8xf32>) {
  %a = math.exp2 %x : vector<16xf32>
  %b = math.exp2 %y : vector<8xf32>
  return %a, %b : vector<16xf32>, vector<8xf32>
}
}

// -----

// AVX2 (haswell; likewise an AVX-512 target without DQ, whose vreduceps
// it lacks): the polynomial.
module attributes {tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "haswell", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 262144, threads = 1>} {
// CHECK-LABEL: func.func @avx2
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         math.roundeven {{.*}} : vector<16xf32>
// CHECK:         return
func.func @avx2(%x: vector<16xf32>) -> vector<16xf32> {
  %a = math.exp2 %x : vector<16xf32>
  return %a : vector<16xf32>
}
}

// -----

module attributes {tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64", features = "+avx512f,+fma", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 1>} {
// CHECK-LABEL: func.func @no_dq
// CHECK-NOT:     llvm.call_intrinsic
// CHECK:         math.roundeven {{.*}} : vector<16xf32>
// CHECK:         return
func.func @no_dq(%x: vector<16xf32>) -> vector<16xf32> {
  %a = math.exp2 %x : vector<16xf32>
  return %a : vector<16xf32>
}
}
