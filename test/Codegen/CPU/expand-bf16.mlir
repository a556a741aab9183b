// RUN: tfm-opt %s -split-input-file -tfm-expand-bf16 | FileCheck %s

// A CPU without AVX512-BF16 (Zen 3, x86-64-v3): the conversions become
// integer ops on the bits (round to nearest even), vectors and scalars.
// CHECK-LABEL: func.func @avx2
// CHECK-NOT:     arith.truncf
// CHECK-NOT:     arith.extf
// CHECK:         arith.bitcast %{{.*}} : vector<8xf32> to vector<8xi32>
// CHECK:         arith.shrui
// CHECK:         arith.trunci %{{.*}} : vector<8xi32> to vector<8xi16>
// CHECK:         arith.bitcast %{{.*}} : vector<8xi16> to vector<8xbf16>
// CHECK:         arith.bitcast %{{.*}} : vector<8xbf16> to vector<8xi16>
// CHECK:         arith.extui
// CHECK:         arith.shli
// CHECK:         arith.bitcast %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK:         arith.bitcast %{{.*}} : f32 to i32
// CHECK-NOT:     arith.truncf
#avx2 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 524288, threads = 2>
module attributes {tfm.target = #avx2} {
  func.func @avx2(%v: vector<8xf32>, %s: f32) -> (vector<8xf32>, bf16) {
    %r = arith.truncf %v : vector<8xf32> to vector<8xbf16>
    %w = arith.extf %r : vector<8xbf16> to vector<8xf32>
    %t = arith.truncf %s : f32 to bf16
    return %w, %t : vector<8xf32>, bf16
  }
}

// -----

// With AVX512-BF16 (Zen 4), LLVM converts 16 per instruction: kept.
// CHECK-LABEL: func.func @zen4
// CHECK:         arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
#zen4 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 2>
module attributes {tfm.target = #zen4} {
  func.func @zen4(%v: vector<16xf32>) -> vector<16xbf16> {
    %r = arith.truncf %v : vector<16xf32> to vector<16xbf16>
    return %r : vector<16xbf16>
  }
}

// -----

// No CPU target (a GPU module, or none): left alone.
// CHECK-LABEL: func.func @untargeted
// CHECK:         arith.truncf %{{.*}} : f32 to bf16
func.func @untargeted(%s: f32) -> bf16 {
  %t = arith.truncf %s : f32 to bf16
  return %t : bf16
}
