// RUN: tfm-opt %s -tfm-cpu-lower-amx -canonicalize -split-input-file | FileCheck %s
// RUN: tfm-opt %s -tfm-cpu-lower-amx -tfm-cpu-convert-amx-to-llvm -split-input-file | FileCheck %s --check-prefix=LLVM

// A bf16 contraction in AMX form (K = 64: two k steps of 32; N = 64: four
// column tiles; cache blocks of 32 columns) with threads: a forall over
// blocks of 128 rows by 32 columns; in a block, every whole 32 rows run the
// 32 x 32 kernel per pair of column tiles: four f32 accumulators loaded
// from C (row stride 64 floats), carried through the k loop (A tiles at a
// row stride of 64 bf16, B tiles of 1 KiB at 32), stored back.
// CHECK-LABEL: func @gemm
// CHECK: scf.forall (%[[RB:.*]], %[[CB:.*]]) in (%{{.*}}, 2)
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %c32
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c2
// CHECK-COUNT-4: amx.tile_load %arg2[{{.*}}], %c64 : memref<?x4x16xf32> into !amx.tile<16x16xf32>
// CHECK: %[[ACC:.*]]:4 = scf.for %[[K:.*]] = %c0 to %c32 step %c16 iter_args({{.*}}) -> (!amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>, !amx.tile<16x16xf32>)
// CHECK-NEXT: amx.tile_load %arg0[%[[I]], %[[K]], %c0], %c64 : memref<?x32x2xbf16> into !amx.tile<16x32xbf16>
// CHECK-NEXT: amx.tile_load %arg0[%{{.*}}, %[[K]], %c0], %c64
// CHECK-NEXT: amx.tile_load %arg1[%[[J]], %[[K]], %c0, %c0], %c32 : memref<4x32x16x2xbf16> into !amx.tile<16x32xbf16>
// CHECK-NEXT: amx.tile_load %arg1[%{{.*}}, %[[K]], %c0, %c0], %c32
// CHECK-COUNT-4: amx.tile_mulf
// CHECK-NEXT: scf.yield
// CHECK-COUNT-4: amx.tile_store %arg2
// The last rows of a block (fewer than 32): a zeroed 32-row scratch of A,
// C's rows copied in and out.
// CHECK: scf.if
// CHECK: %[[AS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x32x2xbf16>
// CHECK: %[[CS:.*]] = memref.alloc() {alignment = 64 : i64} : memref<32x2x16xf32>
// CHECK: linalg.fill ins(%{{.*}} : bf16) outs(%[[AS]]
// CHECK: linalg.copy
// CHECK: linalg.copy
// CHECK: amx.tile_load %[[CS]][%c0, %{{.*}}, %c0], %c32
// CHECK: amx.tile_load %[[AS]][%c0, %{{.*}}, %c0], %c64
// CHECK: linalg.copy
// CHECK: memref.dealloc %[[AS]]
// CHECK: memref.dealloc %[[CS]]
// CHECK-NOT: linalg.generic

// The tiles the k loop carries become LLVM's x86_amx values with the
// intrinsics (tileloadd64, tdpbf16ps, tilestored64 with their shapes).
// LLVM: scf.for {{.*}} iter_args({{.*}}) -> (!llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx, !llvm.x86_amx)
// LLVM: llvm.call_intrinsic "llvm.x86.tileloadd64.internal"
// LLVM: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// LLVM: llvm.call_intrinsic "llvm.x86.tilestored64.internal"
// LLVM-NOT: amx.
#map0 = affine_map<(m, nb, kp, r, t) -> (m, kp, t)>
#map1 = affine_map<(m, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(m, nb, kp, r, t) -> (m, nb, r)>
func.func @gemm(%a: memref<?x32x2xbf16>, %w: memref<4x32x16x2xbf16>, %c: memref<?x4x16xf32>) {
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 128>}
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

// -----

// Serial (parallel_rows = 0), rows of two dimensions flattened first, and
// a C that is a view of a wider init (row stride 80 floats).
// CHECK-LABEL: func @serial
// CHECK-NOT: scf.forall
// CHECK: %[[A2:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2], [3]] : memref<?x?x32x2xbf16> into memref<?x32x2xbf16>
// CHECK: %[[C2:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1], [2], [3]] : memref<?x?x4x16xf32, strided<[?, 80, 16, 1]>> into memref<?x4x16xf32, strided<[?, 16, 1]>>
// CHECK: scf.for
// CHECK: amx.tile_load %[[C2]][{{.*}}], %c80
#map0 = affine_map<(b, s, nb, kp, r, t) -> (b, s, kp, t)>
#map1 = affine_map<(b, s, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(b, s, nb, kp, r, t) -> (b, s, nb, r)>
func.func @serial(%a: memref<?x?x32x2xbf16>, %w: memref<4x32x16x2xbf16>, %c: memref<?x?x4x16xf32, strided<[?, 80, 16, 1]>>) {
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 32, parallel_rows = 0>}
      ins(%a, %w : memref<?x?x32x2xbf16>, memref<4x32x16x2xbf16>) outs(%c : memref<?x?x4x16xf32, strided<[?, 80, 16, 1]>>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// C just filled with zeros, the whole buffer, and one k block (an
// attention's scores): the accumulators start from tilezero and the fill
// goes. A fill of a buffer whose other columns C does not cover stays, and
// so does one with a store in between.
// CHECK-LABEL: func @zero_init
// CHECK-NOT: linalg.fill
// CHECK: amx.tile_zero : !amx.tile<16x16xf32>
// CHECK-NOT: amx.tile_load %{{.*}} : memref<64x2x16xf32>
// CHECK: amx.tile_mulf
// CHECK: amx.tile_store
// CHECK-LABEL: func @zero_init_kept
// CHECK: linalg.fill
// CHECK-NOT: amx.tile_zero
// CHECK: linalg.fill
// CHECK: memref.store
// CHECK-NOT: amx.tile_zero
// CHECK: return
#map0 = affine_map<(m, nb, kp, r, t) -> (m, kp, t)>
#map1 = affine_map<(m, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(m, nb, kp, r, t) -> (m, nb, r)>
func.func @zero_init(%a: memref<64x32x2xbf16>, %w: memref<2x32x16x2xbf16>, %s: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.expand_shape %s [[0], [1, 2]] output_shape [64, 2, 16] : memref<64x32xf32> into memref<64x2x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x2x16xf32>)
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 0>}
      ins(%a, %w : memref<64x32x2xbf16>, memref<2x32x16x2xbf16>) outs(%c : memref<64x2x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
func.func @zero_init_kept(%a: memref<64x32x2xbf16>, %w: memref<2x32x16x2xbf16>, %wide: memref<64x48xf32>, %s: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  linalg.fill ins(%zero : f32) outs(%wide : memref<64x48xf32>)
  %sub = memref.subview %wide[0, 0] [64, 32] [1, 1] : memref<64x48xf32> to memref<64x32xf32, strided<[48, 1]>>
  %cw = memref.expand_shape %sub [[0], [1, 2]] output_shape [64, 2, 16] : memref<64x32xf32, strided<[48, 1]>> into memref<64x2x16xf32, strided<[48, 16, 1]>>
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 0>}
      ins(%a, %w : memref<64x32x2xbf16>, memref<2x32x16x2xbf16>) outs(%cw : memref<64x2x16xf32, strided<[48, 16, 1]>>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  %c = memref.expand_shape %s [[0], [1, 2]] output_shape [64, 2, 16] : memref<64x32xf32> into memref<64x2x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<64x2x16xf32>)
  memref.store %zero, %s[%c0, %c0] : memref<64x32xf32>
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 0>}
      ins(%a, %w : memref<64x32x2xbf16>, memref<2x32x16x2xbf16>) outs(%c : memref<64x2x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}

// -----

// Tiles with tail_dot_rows = 4 (-tfm-cpu-configure's default for a CPU
// with AMX and AVX512-BF16): the whole 32-row steps on tiles; the last rows
// of a block, when at most 4 (a decode step's one per sequence), on vector
// dot products reading A and C in place: one kernel of 4, 2 and 1 rows for
// each bit of the count (no 8-row kernels: at most 4 rows come here), over
// Wp's rows of 32 bf16; more rows through the 32-row scratch on tiles as
// before.
// CHECK-LABEL: func @tail_dots
// CHECK: %[[WPD:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : memref<4x32x16x2xbf16> into memref<4x32x32xbf16>
// CHECK: amx.tile_mulf
// CHECK: %[[REST:.*]] = arith.subi
// CHECK: %[[FEW:.*]] = arith.cmpi ule, %[[REST]], %c4 : index
// CHECK: scf.if %[[FEW]] {
// CHECK-NOT: arith.divui
// CHECK-NOT: memref.alloc
// CHECK-NOT: amx.
// CHECK: arith.andi %[[REST]], %c4 : index
// CHECK-NOT: amx.
// CHECK: vector.load %arg2[
// CHECK-NOT: amx.
// CHECK: vector.load %[[WPD]][
// CHECK-NOT: amx.
// CHECK: vector.load %arg0[
// CHECK-COUNT-8: x86vector.avx512.dot
// CHECK-NOT: amx.
// CHECK: arith.andi %[[REST]], %c2 : index
// CHECK-NOT: amx.
// CHECK-COUNT-4: x86vector.avx512.dot
// CHECK-NOT: amx.
// CHECK: arith.andi %[[REST]], %c1 : index
// CHECK-NOT: amx.
// CHECK-COUNT-2: x86vector.avx512.dot
// CHECK-NOT: amx.
// CHECK-NOT: x86vector.avx512.dot
// CHECK: } else {
// CHECK: memref.alloc() {alignment = 64 : i64} : memref<32x32x2xbf16>
// CHECK-NOT: x86vector.avx512.dot
// CHECK: amx.tile_mulf
// CHECK-NOT: x86vector.avx512.dot
// CHECK: memref.dealloc
// CHECK: return
// Both kinds of kernel reach the LLVM dialect: tile intrinsics and vdpbf16ps.
// LLVM-LABEL: func @tail_dots
// LLVM: llvm.call_intrinsic "llvm.x86.tdpbf16ps.internal"
// LLVM: x86vector.avx512.dot
// LLVM-NOT: amx.
#map0 = affine_map<(m, nb, kp, r, t) -> (m, kp, t)>
#map1 = affine_map<(m, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(m, nb, kp, r, t) -> (m, nb, r)>
func.func @tail_dots(%a: memref<?x32x2xbf16>, %w: memref<4x32x16x2xbf16>, %c: memref<?x4x16xf32>) {
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 128, tail_dot_rows = 4>}
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

// -----

// Static rows (35: a 32-row step and 3 last ones) with C just filled with
// zeros and one k block: the fill goes, the tiles start from tilezero and
// the last rows' dot kernels from zero vectors (no load of C); the count's
// bits are known, so only a 2-row and a 1-row kernel remain, no scratch.
// CHECK-LABEL: func @zero_init_tail
// CHECK-NOT: linalg.fill
// CHECK: amx.tile_zero
// CHECK-NOT: memref.alloc
// CHECK-NOT: vector.load %{{.*}} : memref<35x2x16xf32>
// CHECK-COUNT-4: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK: vector.store %{{.*}} : memref<35x2x16xf32>
// CHECK-NOT: vector.load %{{.*}} : memref<35x2x16xf32>
// CHECK-COUNT-2: x86vector.avx512.dot
// CHECK-NOT: x86vector.avx512.dot
// CHECK-NOT: memref.alloc
// CHECK: return
#map0 = affine_map<(m, nb, kp, r, t) -> (m, kp, t)>
#map1 = affine_map<(m, nb, kp, r, t) -> (nb, kp, r, t)>
#map2 = affine_map<(m, nb, kp, r, t) -> (m, nb, r)>
func.func @zero_init_tail(%a: memref<35x32x2xbf16>, %w: memref<2x32x16x2xbf16>, %s: memref<35x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %c = memref.expand_shape %s [[0], [1, 2]] output_shape [35, 2, 16] : memref<35x32xf32> into memref<35x2x16xf32>
  linalg.fill ins(%zero : f32) outs(%c : memref<35x2x16xf32>)
  linalg.generic {indexing_maps = [#map0, #map1, #map2], iterator_types = ["parallel", "parallel", "reduction", "parallel", "reduction"], tfm.lowering_config = #tfm.cpu_amx_contraction<cache_cols = 32, k_block = 64, parallel_rows = 0, tail_dot_rows = 4>}
      ins(%a, %w : memref<35x32x2xbf16>, memref<2x32x16x2xbf16>) outs(%c : memref<35x2x16xf32>) {
  ^bb0(%x: bf16, %y: bf16, %acc: f32):
    %0 = arith.extf %x : bf16 to f32
    %1 = arith.extf %y : bf16 to f32
    %2 = arith.mulf %0, %1 : f32
    %3 = arith.addf %acc, %2 : f32
    linalg.yield %3 : f32
  }
  return
}
