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

// A row reduction becomes vector.reduction; an f32 min/max one then a tree
// of vector max ops over halves (LLVM would expand its fmax reduction
// intrinsic lane by lane on x86), the accumulator combined last.
// CHECK-LABEL: func.func @row_max
// CHECK-NOT:     vector.multi_reduction
// CHECK-NOT:     vector.reduction
// CHECK:         %[[LO:.*]] = vector.extract_strided_slice %[[X:.*]] {offsets = [0], sizes = [32], strides = [1]} : vector<64xf32> to vector<32xf32>
// CHECK:         %[[HI:.*]] = vector.extract_strided_slice %[[X]] {offsets = [32], sizes = [32], strides = [1]} : vector<64xf32> to vector<32xf32>
// CHECK:         arith.maxnumf %[[LO]], %[[HI]] : vector<32xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<16xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<8xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<4xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<2xf32>
// CHECK:         arith.maxnumf {{.*}} : vector<1xf32>
// CHECK:         %[[E:.*]] = vector.extract %{{.*}}[0] : f32 from vector<1xf32>
// CHECK:         %[[R:.*]] = arith.maxnumf %[[E]], %{{.*}} : f32
// CHECK:         return %[[R]]
func.func @row_max(%x: vector<64xf32>, %init: f32) -> f32 {
  %r = vector.multi_reduction <maxnumf>, %x, %init [0] : vector<64xf32> to f32
  return %r : f32
}

// NaN-propagating maximumf and minimumf the same way; a length that is no
// power of two and an add reduction stay vector.reduction (LLVM reassociates
// the add into a tree itself).
// CHECK-LABEL: func.func @other_reductions
// CHECK:         arith.maximumf {{.*}} : vector<8xf32>
// CHECK:         arith.minimumf {{.*}} : vector<8xf32>
// CHECK:         vector.reduction <maxnumf>, %{{.*}} : vector<12xf32> into f32
// CHECK:         vector.reduction <add>, %{{.*}} : vector<16xf32> into f32
func.func @other_reductions(%x: vector<16xf32>, %y: vector<12xf32>) -> (f32, f32, f32, f32) {
  %a = vector.reduction <maximumf>, %x : vector<16xf32> into f32
  %b = vector.reduction <minimumf>, %x : vector<16xf32> into f32
  %c = vector.reduction <maxnumf>, %y : vector<12xf32> into f32
  %d = vector.reduction <add>, %x : vector<16xf32> into f32
  return %a, %b, %c, %d : f32, f32, f32, f32
}

// The 16x16 transpose of a packed B block becomes shuffles.
// CHECK-LABEL: func.func @pack_block
// CHECK-NOT:     vector.transpose
// CHECK:         vector.shuffle
func.func @pack_block(%x: vector<16x16xf32>) -> vector<16x16xf32> {
  %t = vector.transpose %x, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
  return %t : vector<16x16xf32>
}

// A 16-bit block transposed as it is widened (a bf16 KV cache's K block
// packed for QK^T) is widened first and shuffled as f32: the shuffle's
// lanes are f32, never bf16.
// CHECK-LABEL: func.func @widen_then_transpose
// CHECK-SAME:    %[[X:.*]]: vector<8x8xbf16>
// CHECK:         %[[W:.*]] = arith.extf %[[X]] : vector<8x8xbf16> to vector<8x8xf32>
// CHECK:         %[[F:.*]] = vector.shape_cast %[[W]] : vector<8x8xf32> to vector<64xf32>
// CHECK:         vector.shuffle %[[F]], %[[F]] [0, 8, 16, 24, 32, 40, 48, 56, 1, {{.*}}] : vector<64xf32>, vector<64xf32>
// CHECK-NOT:     bf16
// CHECK:         return
func.func @widen_then_transpose(%x: vector<8x8xbf16>) -> vector<8x8xf32> {
  %t = vector.transpose %x, [1, 0] : vector<8x8xbf16> to vector<8x8xbf16>
  %w = arith.extf %t : vector<8x8xbf16> to vector<8x8xf32>
  return %w : vector<8x8xf32>
}

// A transpose with another use is left as it is.
// CHECK-LABEL: func.func @transpose_used_twice
// CHECK:         vector.shuffle {{.*}} : vector<64xbf16>, vector<64xbf16>
// CHECK:         arith.extf {{.*}} : vector<8x8xbf16> to vector<8x8xf32>
func.func @transpose_used_twice(%x: vector<8x8xbf16>) -> (vector<8x8xbf16>, vector<8x8xf32>) {
  %t = vector.transpose %x, [1, 0] : vector<8x8xbf16> to vector<8x8xbf16>
  %w = arith.extf %t : vector<8x8xbf16> to vector<8x8xf32>
  return %t, %w : vector<8x8xbf16>, vector<8x8xf32>
}
