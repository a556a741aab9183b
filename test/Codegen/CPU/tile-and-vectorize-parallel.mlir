// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{threads=2 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{elementwise=true},tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{threads=2 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{elementwise=true parallel-cols=0},tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s --check-prefix=ROWS
// Column blocks must be whole register tiles (NR = 32 here).
// RUN: not tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{threads=2 vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152},func.func(tfm-cpu-configure{parallel-cols=48}))' 2>&1 | FileCheck %s --check-prefix=BADCOLS
// BADCOLS: error: -tfm-cpu-configure: parallel-cols is 48, must be -1, 0 or a multiple of nr (32 on this target)

// An out_in GEMM: inside each KC = 192 cache tile of k, the pack of B is
// split across threads (blocks of 2·VL = 32 rows of k), then blocks of
// MC = 4·MR = 32 rows by 4·NR = 128 columns, each block reading its part
// of the one packed tile (a decode step's GEMM has one row per sequence:
// the six column blocks still give both threads work); the k loop stays
// serial. With parallel-cols=0 the blocks are whole rows of the tile.
// CHECK-LABEL: func.func @out_in
// CHECK: scf.for %[[K:.*]] = %c0 to %c768 step %c192
// CHECK:   %[[PACKED:.*]] = scf.forall (%{{.*}}) = (0) to (192) step (32)
// CHECK:     vector.transfer_read {{.*}}permutation_map
// CHECK:   scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 768) step (32, 128) shared_outs(%{{.*}} = %{{.*}})
// CHECK:     scf.for %{{.*}} step %c8
// CHECK:       scf.for %{{.*}} = %c0 to %c128 step %c32
// CHECK:         vector.contract
// CHECK:     tensor.parallel_insert_slice
// ROWS-LABEL: func.func @out_in
// ROWS: scf.forall (%{{.*}}) = (0) to (%{{.*}}) step (32) shared_outs(%{{.*}} = %{{.*}})
// ROWS:   scf.for %{{.*}} step %c8
// ROWS:     scf.for %{{.*}} = %c0 to %c768 step %c32
func.func @out_in(%a: tensor<?x768xf32>, %b: tensor<768x768xf32>, %c: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<?x768xf32>, tensor<768x768xf32>) outs(%c : tensor<?x768xf32>) -> tensor<?x768xf32>
  return %r : tensor<?x768xf32>
}

// -----

// Rows that fit one block (static M = 32 <= MC): no forall.
// CHECK-LABEL: func.func @one_block
// CHECK-NOT: scf.forall
func.func @one_block(%a: tensor<32x64xf32>, %b: tensor<64x64xf32>, %c: tensor<32x64xf32>) -> tensor<32x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x64xf32>) outs(%c : tensor<32x64xf32>) -> tensor<32x64xf32>
  return %r : tensor<32x64xf32>
}

// -----

// Batched QK^T: the batch dimensions (of A, B and C) are the forall, one
// (b, h) per iteration, with the rows in blocks of 4·MC = 128 (here all
// 128 rows: not split); no row blocks inside it (one level of threads).
// CHECK-LABEL: func.func @batched
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, 12) shared_outs
// CHECK-NOT: scf.forall
// CHECK: vector.contract
// CHECK: tensor.parallel_insert_slice
func.func @batched(%q: tensor<?x12x128x64xf32>, %k: tensor<?x12x128x64xf32>, %s: tensor<?x12x128x128xf32>) -> tensor<?x12x128x128xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
    ins(%q, %k : tensor<?x12x128x64xf32>, tensor<?x12x128x64xf32>) outs(%s : tensor<?x12x128x128xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<?x12x128x128xf32>
  return %r : tensor<?x12x128x128xf32>
}

// -----

// A contraction inside a loop (the key loop of the tiled attention) is left
// to that loop's iteration: no forall.
// CHECK-LABEL: func.func @in_loop
// CHECK: scf.for
// CHECK-NOT: scf.forall
func.func @in_loop(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>, %n: index) -> tensor<64x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c) -> tensor<64x64xf32> {
    %m = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
    scf.yield %m : tensor<64x64xf32>
  }
  return %r : tensor<64x64xf32>
}

// -----

// A packed weight (-tfm-pack-weights with max-panel=256): three 256-wide
// panels of B. The
// forall takes the panels and the rows in blocks of 4·MC = 128, so that two
// threads do not split three panels 2:1.
// CHECK-LABEL: func.func @packed_panels
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, 3) step (128, 1) shared_outs
// CHECK-NOT: scf.forall
// CHECK: vector.contract
// CHECK: tensor.parallel_insert_slice
func.func @packed_panels(%x: tensor<?x768xf32>, %w: tensor<3x768x256xf32>, %acc: tensor<?x3x256xf32>) -> tensor<?x3x256xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(m, nb, k, r) -> (m, k)>, affine_map<(m, nb, k, r) -> (nb, k, r)>, affine_map<(m, nb, k, r) -> (m, nb, r)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
    ins(%x, %w : tensor<?x768xf32>, tensor<3x768x256xf32>) outs(%acc : tensor<?x3x256xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %t = arith.addf %c, %p : f32
    linalg.yield %t : f32
  } -> tensor<?x3x256xf32>
  return %r : tensor<?x3x256xf32>
}
