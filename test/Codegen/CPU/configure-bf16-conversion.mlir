// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576},func.func(tfm-cpu-configure))' | FileCheck %s
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576},func.func(tfm-cpu-configure,tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s --check-prefix=VEC

// The conversions of -tfm-pack-amx (f32 -> bf16 activations, and K and V
// converted once per attention) and the roundings of -tfm-apply-precision
// (extf(truncf(x)), f32 out) are vectorized whatever `elementwise`
// says: LLVM's loop vectorizer left them scalar, one vcvtneps2bf16 and one
// vpextrw per element. Other elementwise ops outside a key loop are not
// (without threads they get no schedule at all).
// CHECK-LABEL: func.func @to_bf16
// CHECK: linalg.generic {{.*}} ins(%arg0 : tensor<?x768xf32>) outs(%{{.*}} : tensor<?x768xbf16>) attrs = {tfm.lowering_config = #tfm.cpu_elementwise<lanes = 16, whole_reduction = 512, parallel_block_bytes = 0, vectorize = true>}
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<?x768xf32>) attrs = {tfm.lowering_config = #tfm.cpu_elementwise<{{.*}}vectorize = true>}
// CHECK: linalg.generic
// CHECK-NOT: tfm.lowering_config
// CHECK-SAME: outs(%{{.*}} : tensor<?x768xf32>)
// VEC-LABEL: func.func @to_bf16
// VEC: arith.truncf %{{.*}} : vector<32xf32> to vector<32xbf16>
#id = affine_map<(i, j) -> (i, j)>
func.func @to_bf16(%x: tensor<?x768xf32>) -> (tensor<?x768xbf16>, tensor<?x768xf32>, tensor<?x768xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x768xf32>
  %e = tensor.empty(%n) : tensor<?x768xbf16>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x768xf32>) outs(%e : tensor<?x768xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x768xbf16>
  %f = tensor.empty(%n) : tensor<?x768xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x768xf32>) outs(%f : tensor<?x768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.truncf %in : f32 to bf16
    %w = arith.extf %t : bf16 to f32
    linalg.yield %w : f32
  } -> tensor<?x768xf32>
  %g = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x768xf32>) outs(%f : tensor<?x768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.mulf %in, %in : f32
    linalg.yield %t : f32
  } -> tensor<?x768xf32>
  return %b, %r, %g : tensor<?x768xbf16>, tensor<?x768xf32>, tensor<?x768xf32>
}
