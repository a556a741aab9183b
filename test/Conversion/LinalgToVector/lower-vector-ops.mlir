// RUN: tfm-opt %s -tfm-lower-vector-ops | FileCheck %s

// A register-tile contraction (k = 1) becomes one FMA per row of the
// accumulator: an outer product of the A column and the B row.
// CHECK-LABEL: func.func @kernel
// CHECK-NOT:     vector.contract
// CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
// CHECK-NOT:     vector.fma
// CHECK:         return
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @kernel(%a: vector<8x1xf32>, %b: vector<1x32xf32>, %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %r = vector.contract {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %a, %b, %acc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  return %r : vector<8x32xf32>
}

// A row reduction becomes vector.reduction, which convert-vector-to-llvm
// lowers to a (reassociated) LLVM reduction intrinsic.
// CHECK-LABEL: func.func @row_max
// CHECK:         vector.reduction <maxnumf>
// CHECK-NOT:     vector.multi_reduction
func.func @row_max(%x: vector<64xf32>, %init: f32) -> f32 {
  %r = vector.multi_reduction <maxnumf>, %x, %init [0] : vector<64xf32> to f32
  return %r : f32
}

// The 16x16 transpose of a packed B block becomes shuffles.
// CHECK-LABEL: func.func @pack_block
// CHECK-NOT:     vector.transpose
// CHECK:         vector.shuffle
func.func @pack_block(%x: vector<16x16xf32>) -> vector<16x16xf32> {
  %t = vector.transpose %x, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
  return %t : vector<16x16xf32>
}
