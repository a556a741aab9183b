// RUN: tfm-opt %s -tfm-cpu-lower-amx=dot-tiles=2 -canonicalize -cse | FileCheck %s
// RUN: tfm-opt %s -tfm-cpu-lower-amx -canonicalize -cse | FileCheck %s --check-prefix=SIX
// RUN: tfm-opt %s -tfm-cpu-lower-amx -convert-vector-to-llvm=enable-x86vector | FileCheck %s --check-prefix=LLVM
// RUN: not tfm-opt %s -tfm-cpu-lower-amx=dot-tiles=3 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: -tfm-cpu-lower-amx: dot-tiles is 3, must be 2, 4 or 6

// A contraction in AMX form scheduled for AVX512-BF16's dot products (a
// CPU without AMX), with kernels of two column tiles (dot-tiles=2): the
// blocks, 32-row steps and column pairs of the tile kernels, each 32 x 32
// kernel as four kernels of 8 rows by 2 vectors of 16 f32 accumulators,
// loaded from C, carried through the k loop one pair of k at a time,
// stored back; a whole step's k loops are marked tfm.cached_panel (no
// software prefetch: -tfm-cpu-prefetch). Wp is read as rows of 32 bf16 (16 columns
// by the pair); each row's pair of A is broadcast as one 32-bit element.
// CHECK-LABEL: func @gemm
// CHECK: %[[WP:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<4x32x16x2xbf16> into memref<4x32x32xbf16>
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, 2)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: scf.for %[[J:.*]] = %[[T0:.*]] to %{{.*}} step %c2
// CHECK-COUNT-16: vector.load %arg2[{{.*}}] : memref<?x4x16xf32>, vector<16xf32>
// CHECK: %[[ACC:.*]]:16 = scf.for %[[K:.*]] = %c0 to %c32 step %c1 iter_args({{.*}}) -> (vector<16xf32>,
// CHECK-NEXT: vector.load %[[WP]][%[[J]], %[[K]], %c0] : memref<4x32x32xbf16>, vector<32xbf16>
// CHECK-NEXT: vector.load %[[WP]][%{{.*}}, %[[K]], %c0] : memref<4x32x32xbf16>, vector<32xbf16>
// CHECK-NEXT: %[[PAIR:.*]] = vector.load %arg0[%[[I]], %[[K]], %c0] : memref<?x32x2xbf16>, vector<2xbf16>
// CHECK-NEXT: %[[WORD:.*]] = vector.bitcast %[[PAIR]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT: %[[SCALAR:.*]] = vector.extract %[[WORD]][0] : i32 from vector<1xi32>
// CHECK-NEXT: %[[LANES:.*]] = vector.broadcast %[[SCALAR]] : i32 to vector<16xi32>
// CHECK-NEXT: %[[A:.*]] = vector.bitcast %[[LANES]] : vector<16xi32> to vector<32xbf16>
// CHECK-NEXT: x86vector.avx512.dot %{{.*}}, %[[A]], %{{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK-NEXT: x86vector.avx512.dot %{{.*}}, %[[A]], %{{.*}} : vector<32xbf16> -> vector<16xf32>
// CHECK-COUNT-14: x86vector.avx512.dot
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {tfm.cached_panel}
// CHECK-COUNT-16: vector.store %{{.*}}, %arg2[{{.*}}] : memref<?x4x16xf32>, vector<16xf32>
// Three more kernels of 8 rows, then the last rows of the block (fewer
// than 32) in place, without a scratch: kernels of 8 rows while 8 are
// left, then one kernel of 4, 2 and 1 rows for each bit of the count left
// (a decode step's one row: one kernel of 2 dot products per column pair).
// CHECK-COUNT-3: x86vector.avx512.dot
// CHECK-NOT: memref.alloc
// CHECK: %[[REST:.*]] = arith.subi
// CHECK: %[[GROUPS:.*]] = arith.divui %[[REST]], %c8 : index
// CHECK: scf.for %[[G:.*]] = %c0 to %[[GROUPS]] step %c1
// CHECK: %[[OFF:.*]] = arith.muli %[[G]], %c8 : index
// CHECK: %[[ROW8:.*]] = arith.addi %{{.*}}, %[[OFF]] : index
// C's column tiles from the block's first (t0), not from a scratch's 0:
// CHECK: scf.for %[[T:.*]] = %[[T0]] to %{{.*}} step %c2
// CHECK: vector.load %arg2[%[[ROW8]], %[[T]], %c0]
// CHECK: vector.load %arg0[%[[ROW8]],
// CHECK-COUNT-16: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK: %[[FOUR:.*]] = arith.andi %[[REST]], %c4 : index
// CHECK: %[[HAS4:.*]] = arith.cmpi ne, %[[FOUR]], %c0 : index
// CHECK: scf.if %[[HAS4]]
// CHECK-COUNT-8: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK: arith.andi %[[REST]], %c2 : index
// CHECK: scf.if
// CHECK-COUNT-4: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK: arith.andi %[[REST]], %c1 : index
// CHECK: scf.if
// CHECK: scf.for
// CHECK: %[[ACC1:.*]]:2 = scf.for
// CHECK: vector.load %arg0[
// CHECK-COUNT-2: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK: scf.yield
// CHECK-NEXT: }{{$}}
// CHECK: vector.store %[[ACC1]]#0, %arg2[
// CHECK: vector.store %[[ACC1]]#1, %arg2[
// CHECK-NOT: memref.alloc
// CHECK-NOT: amx.
// CHECK-NOT: linalg.generic

// The dot products become LLVM's vdpbf16ps intrinsic on 512-bit vectors.
// LLVM: llvm.call_intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// LLVM-NOT: x86vector.
// LLVM-NOT: amx.
#map0 = affine_map<(m, nb, kp, r, t) -> (m, kp, t)>
#map1 = affine_map<(m, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(m, nb, kp, r, t) -> (m, nb, r)>
func.func @gemm(%a: memref<?x32x2xbf16>, %w: memref<4x32x16x2xbf16>, %c: memref<?x4x16xf32>) {
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 128, dot_products = true>}
      ins(%a, %w : memref<?x32x2xbf16>, memref<4x32x16x2xbf16>) outs(%c : memref<?x4x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// The default, kernels of six column tiles (24 accumulators, six rows of
// Wp and a broadcast of A: 31 of the 32 registers; ten loads per 24 dot
// products where two tiles take ten per 16) in kernels of 4 rows, while
// six tiles are left, then pairs: on a block of 8 tiles, each 32-row step
// as eight 4 x 6 kernels on tiles 0-5 and four 8 x 2 kernels on tiles 6-7
// (the loops of one step each fold away here).
// SIX-LABEL: func @gemm_six
// SIX: %[[WP:.*]] = memref.collapse_shape %arg1
// SIX: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c32
// SIX-COUNT-24: vector.load %arg2[{{.*}}] : memref<?x8x16xf32>, vector<16xf32>
// SIX-NEXT: %{{.*}}:24 = scf.for %[[K:.*]] = %c0 to %c32 step %c1
// SIX-NEXT: vector.load %[[WP]][%c0, %[[K]], %c0]
// SIX-NEXT: vector.load %[[WP]][%c1, %[[K]], %c0]
// SIX-NEXT: vector.load %[[WP]][%c2, %[[K]], %c0]
// SIX-NEXT: vector.load %[[WP]][%c3, %[[K]], %c0]
// SIX-NEXT: vector.load %[[WP]][%c4, %[[K]], %c0]
// SIX-NEXT: vector.load %[[WP]][%c5, %[[K]], %c0]
// SIX-NEXT: vector.load %arg0[%[[I]], %[[K]], %c0]
// SIX-COUNT-24: x86vector.avx512.dot
// SIX-NEXT: scf.yield
// SIX-NEXT: } {tfm.cached_panel}
// SIX-COUNT-24: vector.store
// SIX-COUNT-7: } {tfm.cached_panel}
// SIX: %{{.*}}:16 = scf.for
// SIX-NEXT: vector.load %[[WP]][%c6, %{{.*}}, %c0]
// SIX-NEXT: vector.load %[[WP]][%c7, %{{.*}}, %c0]
// SIX-COUNT-4: } {tfm.cached_panel}
// The last rows (fewer than 32), whose rows of Wp come from memory, each
// read by few rows: column pairs as with dot-tiles=2 (two streams of Wp
// at a time), prefetched: kernels of 8, then 4, 2 and 1 rows.
// SIX-NOT: tfm.cached_panel
// SIX: arith.divui %{{.*}}, %c8
// SIX: %{{.*}}:16 = scf.for
// SIX: arith.andi %{{.*}}, %c4
// SIX: %{{.*}}:8 = scf.for
// SIX: arith.andi %{{.*}}, %c2
// SIX: %{{.*}}:4 = scf.for
// SIX: arith.andi %{{.*}}, %c1
// SIX: %{{.*}}:2 = scf.for
// SIX-NOT: tfm.cached_panel
// SIX-NOT: :24 = scf.for
// SIX: return
func.func @gemm_six(%a: memref<?x32x2xbf16>, %w: memref<8x32x16x2xbf16>, %c: memref<?x8x16xf32>) {
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 128, k_block = 64, parallel_rows = 128, dot_products = true>}
      ins(%a, %w : memref<?x32x2xbf16>, memref<8x32x16x2xbf16>) outs(%c : memref<?x8x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
