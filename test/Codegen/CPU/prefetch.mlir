// RUN: tfm-opt %s -tfm-cpu-prefetch -canonicalize -split-input-file | FileCheck %s
// RUN: tfm-opt %s -tfm-cpu-prefetch="bytes-ahead=256" -canonicalize -split-input-file | FileCheck %s --check-prefix=NEAR
// RUN: tfm-opt %s -tfm-cpu-prefetch="bytes-ahead=0" -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: tfm-opt %s -tfm-cpu-prefetch -split-input-file -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not tfm-opt %s -tfm-cpu-prefetch="bytes-ahead=-1" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: -tfm-cpu-prefetch: bytes-ahead must be 0 or more, got -1

// A register kernel's k loop (-tfm-tile-and-vectorize, bufferized: one
// 8 x 32 accumulator vector carried, B's row k read as [1, 32] from a
// subview made in the loop, of a panel whose rows are 32 floats apart):
// each of the row's two 64-byte lines is prefetched 4 KiB (32 rows of 128
// bytes) ahead, clamped to B's last row (191). A's column (an [8, 1] read)
// is left alone.
// CHECK-LABEL: func.func @kernel
// CHECK-DAG: %[[C191:.*]] = arith.constant 191 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK: scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[A:.*]] = arith.addi %[[K]], %[[C32]]
// CHECK: %[[R:.*]] = arith.minui %[[A]], %[[C191]]
// CHECK: memref.prefetch %arg1[%[[R]], %[[C0]]], read, locality<3>, data
// CHECK: memref.prefetch %arg1[%[[R]], %[[C16]]], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: vector.transfer_read
// CHECK: scf.yield
// 256 bytes ahead: two rows.
// NEAR-LABEL: func.func @kernel
// NEAR: %[[C2:.*]] = arith.constant 2 : index
// NEAR: arith.addi %{{.*}}, %[[C2]]
// NEAR-COUNT-2: memref.prefetch
// NEAR-NOT: memref.prefetch
// NEAR-LABEL: func.func @k_block
// OFF-NOT: memref.prefetch
// Statistics, one per function below.
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 2 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 2 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 1 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 2 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 1 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 32 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 0 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 0 prefetches
// STATS: CpuPrefetchPass
// STATS-NEXT: (S) 0 prefetches
func.func @kernel(%a: memref<8x192xf32>, %b: memref<192x32xf32>, %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c192 = arith.constant 192 : index
  %cst = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c192 step %c1 iter_args(%arg = %acc) -> (vector<8x32xf32>) {
    %ak = memref.subview %a[0, %k] [8, 1] [1, 1] : memref<8x192xf32> to memref<8x1xf32, strided<[192, 1], offset: ?>>
    %bk = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<192x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %x = vector.transfer_read %ak[%c0, %c0], %cst {in_bounds = [true, true]} : memref<8x1xf32, strided<[192, 1], offset: ?>>, vector<8x1xf32>
    %y = vector.transfer_read %bk[%c0, %c0], %cst {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %s = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %arg : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %s : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// -----

// The k block [192, 384) of panel %p of a packed weight [4, 768, 32], a
// subview made outside the loop, in steps of 2 rows: the prefetches index
// the panel itself, 64 rows (32 steps) ahead of the block's row, so that
// the last steps of the block fetch the next block's first rows; the clamp
// is the panel's last row (767).
// CHECK-LABEL: func.func @k_block
// CHECK-DAG: %[[C767:.*]] = arith.constant 767 : index
// CHECK-DAG: %[[C256:.*]] = arith.constant 256 : index
// CHECK: scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[A:.*]] = arith.addi %[[K]], %[[C256]]
// CHECK: %[[R:.*]] = arith.minui %[[A]], %[[C767]]
// CHECK: memref.prefetch %arg0[%arg1, %[[R]], %{{.*}}], read, locality<3>, data
// CHECK: memref.prefetch %arg0[%arg1, %[[R]], %{{.*}}], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
func.func @k_block(%w: memref<4x768x32xf32>, %p: index, %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c192 = arith.constant 192 : index
  %cst = arith.constant 0.0 : f32
  %blk = memref.subview %w[%p, 192, 0] [1, 192, 32] [1, 1, 1] : memref<4x768x32xf32> to memref<192x32xf32, strided<[32, 1], offset: ?>>
  %r = scf.for %k = %c0 to %c192 step %c2 iter_args(%arg = %acc) -> (vector<8x32xf32>) {
    %bk = memref.subview %blk[%k, 0] [1, 32] [1, 1] : memref<192x32xf32, strided<[32, 1], offset: ?>> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %y = vector.transfer_read %bk[%c0, %c0], %cst {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %yb = vector.broadcast %y : vector<1x32xf32> to vector<8x32xf32>
    %s = arith.addf %arg, %yb : vector<8x32xf32>
    scf.yield %s : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// -----

// A 16-bit panel (bf16 rows of 32: one 64-byte line) of a packed weight
// [panels, K, 32], read through a rank-reducing subview made in the loop
// (the panel index an outer offset): one prefetch per row, 64 rows ahead,
// clamped to the dynamic K's last row.
// CHECK-LABEL: func.func @bf16_panel
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK: %[[K1:.*]] = memref.dim %arg0, %{{.*}} : memref<4x?x32xbf16>
// CHECK: %[[LAST:.*]] = arith.subi %[[K1]], %{{.*}}
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK: %[[A:.*]] = arith.addi %[[K]], %[[C64]]
// CHECK: %[[R:.*]] = arith.minui %[[A]], %[[LAST]]
// CHECK: memref.prefetch %arg0[%arg1, %[[R]], %{{.*}}], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
func.func @bf16_panel(%w: memref<4x?x32xbf16>, %p: index, %acc: vector<1x32xf32>, %kn: index) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %pad = arith.constant 0.0 : bf16
  %r = scf.for %k = %c0 to %kn step %c1 iter_args(%arg = %acc) -> (vector<1x32xf32>) {
    %bk = memref.subview %w[%p, %k, 0] [1, 1, 32] [1, 1, 1] : memref<4x?x32xbf16> to memref<1x32xbf16, strided<[32, 1], offset: ?>>
    %y = vector.transfer_read %bk[%c0, %c0], %pad {in_bounds = [true, true]} : memref<1x32xbf16, strided<[32, 1], offset: ?>>, vector<1x32xbf16>
    %e = arith.extf %y : vector<1x32xbf16> to vector<1x32xf32>
    %s = arith.addf %arg, %e : vector<1x32xf32>
    scf.yield %s : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// -tfm-cpu-lower-amx's dot-product kernel (AVX512-BF16): two vector
// accumulators, two 64-byte rows of Wp [tiles, K/2, 32] read with
// vector.load at (tile, k) each step, one of them at a tile index computed
// in the loop: a prefetch per row, 64 rows ahead; A's pair (4 bytes) is
// left alone.
// CHECK-LABEL: func.func @dot_kernel
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C383:.*]] = arith.constant 383 : index
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK: %[[A:.*]] = arith.addi %[[K]], %[[C64]]
// CHECK: %[[R:.*]] = arith.minui %[[A]], %[[C383]]
// CHECK: memref.prefetch %arg0[%arg2, %[[R]], %{{.*}}], read, locality<3>, data
// CHECK: vector.load %arg0[%arg2, %[[K]], %{{.*}}]
// CHECK: %[[T1:.*]] = arith.addi %arg2, %{{.*}}
// CHECK: memref.prefetch %arg0[%[[T1]], %{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK: vector.load %arg0[%[[T1]], %[[K]], %{{.*}}]
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
func.func @dot_kernel(%wp: memref<48x384x32xbf16>, %a: memref<1x384x2xbf16>, %t: index, %acc: vector<16xf32>) -> (vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c384 = arith.constant 384 : index
  %r:2 = scf.for %k = %c0 to %c384 step %c1 iter_args(%x = %acc, %y = %acc) -> (vector<16xf32>, vector<16xf32>) {
    %w0 = vector.load %wp[%t, %k, %c0] : memref<48x384x32xbf16>, vector<32xbf16>
    %t1 = arith.addi %t, %c1 : index
    %w1 = vector.load %wp[%t1, %k, %c0] : memref<48x384x32xbf16>, vector<32xbf16>
    %p = vector.load %a[%c0, %k, %c0] : memref<1x384x2xbf16>, vector<2xbf16>
    %pw = vector.bitcast %p : vector<2xbf16> to vector<1xi32>
    %e = vector.extract %pw[0] : i32 from vector<1xi32>
    %bc = vector.broadcast %e : i32 to vector<16xi32>
    %av = vector.bitcast %bc : vector<16xi32> to vector<32xbf16>
    %x1 = x86vector.avx512.dot %x, %av, %w0 : vector<32xbf16> -> vector<16xf32>
    %y1 = x86vector.avx512.dot %y, %av, %w1 : vector<32xbf16> -> vector<16xf32>
    scf.yield %x1, %y1 : vector<16xf32>, vector<16xf32>
  }
  return %r#0, %r#1 : vector<16xf32>, vector<16xf32>
}

// -----

// A one-row kernel (the 1 x 32 register kernel of a decode step's P V):
// the first 32 of each 64-value row of a bf16 V block [T, 64], read through
// a subview of the block made outside the loop. Its rows are 128 bytes
// apart: each is used once, for the one row, so it is prefetched like a
// panel's, 32 rows (4 KiB of V) ahead, clamped to V's last row; an 8-row
// kernel's rows of such a buffer are not (@left_alone).
// CHECK-LABEL: func.func @one_row
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[T:.*]] = memref.dim %arg0, %{{.*}} : memref<?x64xbf16>
// CHECK: %[[LAST:.*]] = arith.subi %[[T]], %{{.*}}
// CHECK: %[[D:.*]] = arith.addi %arg1, %[[C32]]
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK: %[[A:.*]] = arith.addi %[[K]], %[[D]]
// CHECK: %[[R:.*]] = arith.minui %[[A]], %[[LAST]]
// CHECK: memref.prefetch %arg0[%[[R]], %{{.*}}], read, locality<3>, data
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
func.func @one_row(%v: memref<?x64xbf16>, %b0: index, %acc: vector<1x32xf32>) -> vector<1x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  %pad = arith.constant 0.0 : bf16
  %blk = memref.subview %v[%b0, 0] [128, 64] [1, 1] : memref<?x64xbf16> to memref<128x64xbf16, strided<[64, 1], offset: ?>>
  %r = scf.for %k = %c0 to %c128 step %c1 iter_args(%arg = %acc) -> (vector<1x32xf32>) {
    %y = vector.transfer_read %blk[%k, %c0], %pad {in_bounds = [true, true]} : memref<128x64xbf16, strided<[64, 1], offset: ?>>, vector<1x32xbf16>
    %e = arith.extf %y : vector<1x32xbf16> to vector<1x32xf32>
    %s = arith.addf %arg, %e : vector<1x32xf32>
    scf.yield %s : vector<1x32xf32>
  }
  return %r : vector<1x32xf32>
}

// -----

// -tfm-cpu-lower-amx's tile kernel: four f32 accumulator tiles carried,
// per step of 16 pairs of k two A tiles (rows of A, 768 bf16 apart) and
// two B tiles of Wp [tiles, K/2, 16, 2] (16 rows of 64 bytes, one after
// another; one tile index computed in the loop): each B tile's 16 rows
// (1 KiB a step) are prefetched 4 steps (64 rows) ahead, one line per
// row, the first clamped to the first of the last 16 rows (368), the
// others after it; A's tiles are left alone.
// CHECK-LABEL: func.func @tile_kernel
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: %[[C368:.*]] = arith.constant 368 : index
// CHECK-DAG: %[[C15:.*]] = arith.constant 15 : index
// CHECK: scf.for %[[K:[^ ]*]] =
// CHECK-COUNT-2: amx.tile_load %arg1
// CHECK: %[[A:.*]] = arith.addi %[[K]], %[[C64]]
// CHECK: %[[R:.*]] = arith.minui %[[A]], %[[C368]]
// CHECK: memref.prefetch %arg0[%arg2, %[[R]], %{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK-COUNT-14: memref.prefetch %arg0[%arg2,
// CHECK: %[[R15:.*]] = arith.addi %[[R]], %[[C15]]
// CHECK: memref.prefetch %arg0[%arg2, %[[R15]], %{{.*}}, %{{.*}}], read, locality<3>, data
// CHECK: amx.tile_load %arg0[%arg2, %[[K]], %{{.*}}, %{{.*}}], %{{.*}}
// CHECK: %[[T1:.*]] = arith.addi %arg2, %{{.*}}
// CHECK-COUNT-16: memref.prefetch %arg0[%[[T1]],
// CHECK: amx.tile_load %arg0[%[[T1]], %[[K]], %{{.*}}, %{{.*}}], %{{.*}}
// CHECK-NOT: memref.prefetch
// CHECK: scf.yield
!acc = !amx.tile<16x16xf32>
!in = !amx.tile<16x32xbf16>
func.func @tile_kernel(%wp: memref<4x384x16x2xbf16>, %a: memref<32x384x2xbf16>, %t: index, %c: !acc) -> (!acc, !acc, !acc, !acc) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c384 = arith.constant 384 : index
  %c768 = arith.constant 768 : index
  %r:4 = scf.for %k = %c0 to %c384 step %c16 iter_args(%x0 = %c, %x1 = %c, %x2 = %c, %x3 = %c) -> (!acc, !acc, !acc, !acc) {
    %a0 = amx.tile_load %a[%c0, %k, %c0], %c768 : memref<32x384x2xbf16> into !in
    %a1 = amx.tile_load %a[%c16, %k, %c0], %c768 : memref<32x384x2xbf16> into !in
    %b0 = amx.tile_load %wp[%t, %k, %c0, %c0], %c32 : memref<4x384x16x2xbf16> into !in
    %t1 = arith.addi %t, %c1 : index
    %b1 = amx.tile_load %wp[%t1, %k, %c0, %c0], %c32 : memref<4x384x16x2xbf16> into !in
    %y0 = amx.tile_mulf %a0, %b0, %x0 : !in, !in, !acc
    %y1 = amx.tile_mulf %a0, %b1, %x1 : !in, !in, !acc
    %y2 = amx.tile_mulf %a1, %b0, %x2 : !in, !in, !acc
    %y3 = amx.tile_mulf %a1, %b1, %x3 : !in, !in, !acc
    scf.yield %y0, %y1, %y2, %y3 : !acc, !acc, !acc, !acc
  }
  return %r#0, %r#1, %r#2, %r#3 : !acc, !acc, !acc, !acc
}

// -----

// Tile loads left alone: a tile whose rows are half of the memref's rows
// (32 of 64 bytes: the next tile row is not the next bytes), one read at a
// row stride wider than the memref's rows (every other row: a strided
// K/V block), one at a column offset after the induction variable, and a
// Wp of no more rows (64) than the distance (4 steps of 16); a loop that
// carries a tile and a vector is no kernel.
// CHECK-LABEL: func.func @tiles_left_alone
// CHECK-NOT: memref.prefetch
// CHECK: return
!acc = !amx.tile<16x16xf32>
!in = !amx.tile<16x32xbf16>
func.func @tiles_left_alone(%half: memref<4x384x32x2xbf16>, %wp: memref<4x384x16x2xbf16>, %small: memref<4x64x16x2xbf16>, %t: index, %c: !acc, %v: vector<16xf32>) -> (!acc, !acc, !acc, !acc, !acc, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c192 = arith.constant 192 : index
  %c384 = arith.constant 384 : index
  %r:4 = scf.for %k = %c0 to %c192 step %c16 iter_args(%x0 = %c, %x1 = %c, %x2 = %c, %x3 = %c) -> (!acc, !acc, !acc, !acc) {
    %h = amx.tile_load %half[%t, %k, %c0, %c0], %c64 : memref<4x384x32x2xbf16> into !in
    %s = amx.tile_load %wp[%t, %k, %c0, %c0], %c64 : memref<4x384x16x2xbf16> into !in
    %o = amx.tile_load %wp[%t, %k, %c1, %c0], %c32 : memref<4x384x16x2xbf16> into !in
    %y0 = amx.tile_mulf %h, %s, %x0 : !in, !in, !acc
    %y1 = amx.tile_mulf %h, %o, %x1 : !in, !in, !acc
    scf.yield %y0, %y1, %x2, %x3 : !acc, !acc, !acc, !acc
  }
  %q = scf.for %k = %c0 to %c64 step %c16 iter_args(%x = %c) -> (!acc) {
    %b = amx.tile_load %small[%t, %k, %c0, %c0], %c32 : memref<4x64x16x2xbf16> into !in
    %y = amx.tile_mulf %b, %b, %x : !in, !in, !acc
    scf.yield %y : !acc
  }
  %m:2 = scf.for %k = %c0 to %c384 step %c16 iter_args(%x = %c, %u = %v) -> (!acc, vector<16xf32>) {
    %b = amx.tile_load %wp[%t, %k, %c0, %c0], %c32 : memref<4x384x16x2xbf16> into !in
    %y = amx.tile_mulf %b, %b, %x : !in, !in, !acc
    scf.yield %y, %u : !acc, vector<16xf32>
  }
  return %r#0, %r#1, %r#2, %q, %m#0, %m#1 : !acc, !acc, !acc, !acc, !acc, vector<16xf32>
}

// -----

// Left alone: a loop that carries a scalar beside its vector (no kernel);
// rows read from a subview made outside the loop, at an offset that is not
// the induction variable, of a buffer whose rows are 64 floats apart (a
// cache tile's packed B: the next row is not the next 128 bytes), at the
// innermost index (a row's columns), through a transposing map, as a
// [2, 32] vector; and a panel of no more rows (16) than the distance (32).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.prefetch
// CHECK: return
func.func @left_alone(%b: memref<192x32xf32>, %wide: memref<192x64xf32>, %small: memref<16x32xf32>, %acc: vector<8x32xf32>, %i: index) -> (vector<8x32xf32>, vector<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c192 = arith.constant 192 : index
  %cst = arith.constant 0.0 : f32
  %r:2 = scf.for %k = %c0 to %c192 step %c1 iter_args(%x = %acc, %z = %cst) -> (vector<8x32xf32>, f32) {
    %bk = memref.subview %b[%k, 0] [1, 32] [1, 1] : memref<192x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %y = vector.transfer_read %bk[%c0, %c0], %cst {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %yb = vector.broadcast %y : vector<1x32xf32> to vector<8x32xf32>
    %s = arith.addf %x, %yb : vector<8x32xf32>
    scf.yield %s, %z : vector<8x32xf32>, f32
  }
  %outside = memref.subview %b[%i, 0] [1, 32] [1, 1] : memref<192x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
  %t = scf.for %k = %c0 to %c192 step %c1 iter_args(%x = %acc) -> (vector<8x32xf32>) {
    %y = vector.transfer_read %outside[%c0, %c0], %cst {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %bi = memref.subview %b[%i, 0] [1, 32] [1, 1] : memref<192x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
    %w = vector.transfer_read %bi[%c0, %c0], %cst {in_bounds = [true, true]} : memref<1x32xf32, strided<[32, 1], offset: ?>>, vector<1x32xf32>
    %v = vector.transfer_read %wide[%k, %c0], %cst {in_bounds = [true, true]} : memref<192x64xf32>, vector<1x32xf32>
    %col = vector.transfer_read %b[%c0, %k], %cst {in_bounds = [true, true]} : memref<192x32xf32>, vector<1x32xf32>
    %tr = vector.transfer_read %b[%k, %c0], %cst {in_bounds = [true, true], permutation_map = affine_map<(d0, d1) -> (d1, d0)>} : memref<192x32xf32>, vector<32x1xf32>
    %two = vector.transfer_read %b[%k, %c0], %cst {in_bounds = [true, true]} : memref<192x32xf32>, vector<2x32xf32>
    %sm = vector.transfer_read %small[%k, %c0], %cst {in_bounds = [true, true]} : memref<16x32xf32>, vector<1x32xf32>
    %yb = vector.broadcast %y : vector<1x32xf32> to vector<8x32xf32>
    %wb = vector.broadcast %w : vector<1x32xf32> to vector<8x32xf32>
    %vb = vector.broadcast %v : vector<1x32xf32> to vector<8x32xf32>
    %cb = vector.broadcast %col : vector<1x32xf32> to vector<8x32xf32>
    %sb = vector.broadcast %sm : vector<1x32xf32> to vector<8x32xf32>
    %tt = vector.transpose %tr, [1, 0] : vector<32x1xf32> to vector<1x32xf32>
    %tb = vector.broadcast %tt : vector<1x32xf32> to vector<8x32xf32>
    %t2 = vector.extract %two[0] : vector<32xf32> from vector<2x32xf32>
    %t2b = vector.broadcast %t2 : vector<32xf32> to vector<8x32xf32>
    %s = arith.addf %x, %yb : vector<8x32xf32>
    %s2 = arith.addf %s, %wb : vector<8x32xf32>
    %s3 = arith.addf %s2, %vb : vector<8x32xf32>
    %s4 = arith.addf %s3, %cb : vector<8x32xf32>
    %s5 = arith.addf %s4, %sb : vector<8x32xf32>
    %s6 = arith.addf %s5, %tb : vector<8x32xf32>
    %s7 = arith.addf %s6, %t2b : vector<8x32xf32>
    scf.yield %s7 : vector<8x32xf32>
  }
  return %r#0, %t : vector<8x32xf32>, vector<8x32xf32>
}

// -----

// The same dot-product kernel marked tfm.cached_panel (a whole 32-row
// step of -tfm-cpu-lower-amx, whose kernels read Wp's rows in turn, all
// but the first from cache): no prefetches.
// CHECK-LABEL: func.func @cached_dot_kernel
// CHECK-NOT: memref.prefetch
// CHECK: } {tfm.cached_panel}
// CHECK-NOT: memref.prefetch
func.func @cached_dot_kernel(%wp: memref<48x384x32xbf16>, %a: memref<1x384x2xbf16>, %t: index, %acc: vector<16xf32>) -> vector<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c384 = arith.constant 384 : index
  %r = scf.for %k = %c0 to %c384 step %c1 iter_args(%x = %acc) -> (vector<16xf32>) {
    %w0 = vector.load %wp[%t, %k, %c0] : memref<48x384x32xbf16>, vector<32xbf16>
    %p = vector.load %a[%c0, %k, %c0] : memref<1x384x2xbf16>, vector<2xbf16>
    %pw = vector.bitcast %p : vector<2xbf16> to vector<1xi32>
    %e = vector.extract %pw[0] : i32 from vector<1xi32>
    %bc = vector.broadcast %e : i32 to vector<16xi32>
    %av = vector.bitcast %bc : vector<16xi32> to vector<32xbf16>
    %x1 = x86vector.avx512.dot %x, %av, %w0 : vector<32xbf16> -> vector<16xf32>
    scf.yield %x1 : vector<16xf32>
  } {tfm.cached_panel}
  return %r : vector<16xf32>
}
