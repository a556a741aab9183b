// RUN: tfm-opt %s -tfm-pack-weights="panel=4 max-panel=4" -split-input-file | FileCheck %s
// RUN: tfm-opt %s -tfm-pack-weights="panel=4 max-panel=4" -split-input-file -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: tfm-opt %s -tfm-pack-weights="panel=4 max-panel=4 sixteen-bit-panels=false" -split-input-file | FileCheck %s --check-prefix=F32

// With --precision=bf16, a weight the runtime rounds to bf16
// (tfm.rounded_weights) gets bf16 panels: the pack truncates (exactly: the
// values are rounded already) and the contraction widens each element it
// reads. A weight the runtime does not round ("v") keeps f32 panels.
// CHECK-LABEL: func @bf16_panels
// CHECK: %[[Q:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3x4xf32>) attrs = {tfm.prepare = "v:packed[n=0,panel=4]"}
// CHECK: %[[P:.*]] = linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3x4xbf16>) attrs = {tfm.prepare = "w:packed[n=0,panel=4,bf16]"}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT: %[[T:.*]] = arith.truncf %[[IN]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[T]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[P]] : tensor<?x3xf32>, tensor<2x3x4xbf16>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[B:.*]]: bf16, %[[C:.*]]: f32):
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[A]], %[[WIDE]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[C]], %[[M]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[Q]] : tensor<?x3xf32>, tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.mulf
// F32-LABEL: func @bf16_panels
// F32: attrs = {tfm.prepare = "w:packed[n=0,panel=4]"}
// F32-NOT: bf16
// STATS: PackWeightsPass
// STATS-NEXT: (S) 2 packed-contractions
// STATS-NEXT: (S) 2 packed-weights
// STATS-NEXT: (S) 1 sixteen-bit-weights - Packed weight layouts stored in 16 bits
// STATS: PackWeightsPass
// STATS: (S) 1 sixteen-bit-weights
// STATS: PackWeightsPass
// STATS: (S) 0 sixteen-bit-weights
// STATS: PackWeightsPass
// STATS: (S) 0 sixteen-bit-weights
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"]} {
func.func @bf16_panels(%x: tensor<?x3xf32>, %acc: tensor<?x8xf32>) -> (tensor<?x8xf32>, tensor<?x8xf32>) {
  %w = tfm.weight "w" : tensor<8x3xf32>
  %v = tfm.weight "v" : tensor<8x3xf32>
  %y = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x3xf32>, tensor<8x3xf32>) outs(%acc : tensor<?x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %z = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %v : tensor<?x3xf32>, tensor<8x3xf32>) outs(%acc : tensor<?x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  return %y, %z : tensor<?x8xf32>, tensor<?x8xf32>
}
}

// -----

// f16 the same way, on a CPU that converts it (F16C).
// CHECK-LABEL: func @f16_panels
// CHECK: attrs = {tfm.prepare = "w:packed[n=1,panel=4,f16]"}
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.extf %{{.*}} : f16 to f32
module attributes {tfm.precision = f16, tfm.rounded_weights = ["w"], tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "haswell", features = "+avx2,+fma,+f16c", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 262144, threads = 1>} {
func.func @f16_panels(%x: tensor<?x3xf32>, %w0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %w = tfm.weight "w" : tensor<3x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x8xf32>) outs(%w0 : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
}

// -----

// Without F16C, f16 weights keep f32 panels: each widening would be a
// library call.
// CHECK-LABEL: func @f16_without_f16c
// CHECK: attrs = {tfm.prepare = "w:packed[n=1,panel=4]"}
// CHECK-NOT: f16
module attributes {tfm.precision = f16, tfm.rounded_weights = ["w"], tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64", features = "+sse2", vector_bits = 128, vector_registers = 16, l1_bytes = 32768, l2_bytes = 262144, threads = 1>} {
func.func @f16_without_f16c(%x: tensor<?x3xf32>, %w0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %w = tfm.weight "w" : tensor<3x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x8xf32>) outs(%w0 : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
}

// -----

// f32 precision: f32 panels whatever the list says.
// CHECK-LABEL: func @f32_module
// CHECK: attrs = {tfm.prepare = "w:packed[n=1,panel=4]"}
// CHECK-NOT: bf16
module attributes {tfm.rounded_weights = ["w"]} {
func.func @f32_module(%x: tensor<?x3xf32>, %w0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %w = tfm.weight "w" : tensor<3x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<?x3xf32>, tensor<3x8xf32>) outs(%w0 : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %y : tensor<?x8xf32>
}
}
