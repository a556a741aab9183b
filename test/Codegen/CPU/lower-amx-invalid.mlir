// RUN: tfm-opt %s -tfm-cpu-lower-amx -verify-diagnostics

// The tile loads step through rows at a constant stride: an output whose
// row stride is not known at compile time is refused, by name.
#map0 = affine_map<(m, nb, kp, r, t) -> (m, kp, t)>
#map1 = affine_map<(m, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(m, nb, kp, r, t) -> (m, nb, r)>
func.func @dynamic_stride(%a: memref<?x32x2xbf16>, %w: memref<4x32x16x2xbf16>, %c: memref<?x4x16xf32, strided<[?, 16, 1]>>) {
  // expected-error @+1 {{-tfm-cpu-lower-amx: the rows of an AMX contraction's operands must have a static stride, got 'memref<?x32x2xbf16>' and 'memref<?x4x16xf32, strided<[?, 16, 1]>>'}}
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 0>}
      ins(%a, %w : memref<?x32x2xbf16>, memref<4x32x16x2xbf16>) outs(%c : memref<?x4x16xf32, strided<[?, 16, 1]>>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
