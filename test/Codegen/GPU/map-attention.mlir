// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=untiled-max-keys=0 -tfm-tile-sram -convert-tfm-to-linalg -canonicalize -cse -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -buffer-deallocation-pipeline -canonicalize -tfm-gpu-map-attention -canonicalize -cse | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=untiled-max-keys=0 -tfm-tile-sram -convert-tfm-to-linalg -canonicalize -cse -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -buffer-deallocation-pipeline -canonicalize -tfm-gpu-map-attention -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// -tfm-gpu-map-attention: the online-softmax loop nest of -tfm-tile-sram,
// with tiles -tfm-configure-attention sized for one block's 48 KiB of
// shared memory, runs as one gpu.launch: a CTA per (query block, K/V head,
// batch), the tiles in workgroup memory, each tile op spread over the 256
// threads with a barrier after it. Numerics: every attention case of
// test/Pipelines/Numerics and Codegen/Common/Numerics/tile-sram-numerics.mlir
// runs through the emulated kernels; models: test/Integration/GPU.

// STATS: GPUMapAttentionPass
// STATS-NEXT: (S) {{ *}}4 folded-fills
// STATS-NEXT: (S) {{ *}}1 mapped
// STATS-NEXT: (S) {{ *}}{{[0-9]+}} tile-ops

// Causal GQA (8 query heads on 2 K/V heads) with padding: D = 64 gives
// 8-row query blocks (32 rows for the 4 heads of a group) and 32-key
// blocks: 37376 bytes of tiles. The grid is (ceil(Tq / 8), 2, B).
// CHECK-LABEL: func.func @causal_gqa_padding
// CHECK-SAME: (%[[Q:[^:]*]]: memref<?x8x?x64xf32>, %[[K:[^:]*]]: memref<?x2x?x64xf32>, %[[V:[^:]*]]: memref<?x2x?x64xf32>, %[[LEN:[^:]*]]: memref<?xi32>)
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[B:.*]] = memref.dim %[[Q]], %c0
// CHECK: %[[TQ:.*]] = memref.dim %[[Q]], %c2
// CHECK: %[[NQ:.*]] = arith.ceildivsi %[[TQ]], %c8
// CHECK: %[[OUT:.*]] = memref.alloc(%[[B]], %[[TQ]])
// CHECK: gpu.launch blocks(%[[QB:.*]], %[[N:.*]], %[[BI:.*]]) in (%{{.*}} = %[[NQ]], %{{.*}} = %c2, %{{.*}} = %[[B]]) threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%[[NT:.*]] = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK-SAME: workgroup(%[[QT:.*]] : memref<4x8x64xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>, %[[MX:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[L:.*]] : memref<32xf32, #gpu.address_space<workgroup>>, %[[S:.*]] : memref<32x32xf32, #gpu.address_space<workgroup>>, %[[ACC:.*]] : memref<32x64xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>, %[[KB:.*]] : memref<32x64xf32, #gpu.address_space<workgroup>>, %[[VB:.*]] : memref<32x64xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.dealloc
// The Q tile: zeroed, then the scaled rows of the 4 heads, 2048 elements
// spread over the threads (thread t: t, t + 256, ...).
// CHECK: %[[H0:.*]] = arith.muli %[[N]], %c4
// CHECK: %[[Q0:.*]] = arith.muli %[[QB]], %c8
// CHECK: %[[QSRC:.*]] = memref.subview %[[Q]][%[[BI]], %[[H0]], %[[Q0]], 0]
// CHECK: scf.for %[[I:.*]] = %[[TX]] to %c2048 step %[[NT]] {
// CHECK: memref.store %{{.*}}, %[[QT]]
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[QDST:.*]] = memref.subview %[[QT]]
// CHECK: scf.for %{{.*}} = %[[TX]] to %{{.*}} step %[[NT]] {
// CHECK: memref.load %[[QSRC]]
// CHECK: arith.mulf
// CHECK: memref.store %{{.*}}, %[[QDST]]
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK: %[[QM:.*]] = memref.collapse_shape %[[QT]] {{\[}}[0, 1], [2]] : memref<4x8x64xf32, #gpu.address_space<workgroup>> into memref<32x64xf32, #gpu.address_space<workgroup>>
// The key length: every thread reads it (the loop bounds agree).
// CHECK: memref.load %[[LEN]][%[[BI]]]
// The accumulator, zeroed.
// CHECK: memref.store %{{.*}}, %[[ACC]]
// CHECK: gpu.barrier
// Whole blocks left of the diagonal, unmasked: S = Q K^T with K read in
// place, each thread accumulating its scores in a register from 0 (the
// scores' fill is folded into the contraction: no pass and no barrier of
// its own; the same for the block maximum's -inf).
// CHECK: scf.for %[[K0:.*]] = %c0 to %{{.*}} step %c32 {
// CHECK: %[[KSRC:.*]] = memref.subview %[[K]][%[[BI]], %[[N]], %[[K0]], 0] [1, 1, 32, 64]
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %[[TX]] to %c1024 step %[[NT]] {
// CHECK: %[[COL:.*]] = arith.remui %[[J]], %c32
// CHECK: %[[ROW:.*]] = arith.divui %[[J]], %c32
// CHECK: scf.for %[[D:.*]] = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[ZERO]])
// CHECK: memref.load %[[QM]][%[[ROW]], %[[D]]]
// CHECK: memref.load %[[KSRC]][%[[COL]], %[[D]]]
// CHECK: memref.store %{{.*}}, %[[S]][%[[ROW]], %[[COL]]]
// CHECK: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK-NEXT: scf.for %{{.*}} iter_args(%{{.*}} = %[[NINF]])
// CHECK: arith.maxnumf
// CHECK: gpu.barrier
// CHECK: math.exp2
// CHECK: gpu.barrier
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// The K and V staging tiles, zeroed (bufferization made them copies of
// one zeroed tile; the copies are fills now, that tile is gone).
// CHECK: memref.store %{{.*}}, %[[KB]]
// CHECK: gpu.barrier
// CHECK: memref.store %{{.*}}, %[[VB]]
// CHECK: gpu.barrier
// Diagonal blocks: K and V copied into the staging tiles, then masked.
// CHECK: scf.for %{{.*}} = %{{.*}} step %c32 {
// CHECK: memref.store %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : memref<?x64xf32, strided<[64, 1]>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<diagonal>}
// out = acc / l for the valid rows, written to the output.
// CHECK: %[[OSL:.*]] = memref.subview %[[OUT]][%[[BI]], %[[H0]], %[[Q0]], 0]
// CHECK: scf.for %{{.*}} = %[[TX]] to %{{.*}} step %[[NT]] {
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %[[OSL]]
// CHECK: }
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: gpu.terminator
// Its planned occupancy: 36.5 KiB of tiles (+ 1 KiB reserved) fit four
// times in an sm_80 multiprocessor's 164 KiB.
// CHECK-NEXT: } {tfm.blocks_per_sm = 4 : i64, tfm.lowering_config = #tfm.attention_tiling<block_q = 8, block_k = 32, group = 4, footprint_bytes = 37376, budget_bytes = 49152>}
func.func @causal_gqa_padding(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}

// -----

// MQA with static shapes: one K/V head and one query block, so
// canonicalization leaves the forall one loop (the batch), which goes on
// grid x. f16 inputs are widened into the f32 tiles.
// CHECK-LABEL: func.func @mqa_one_block
// CHECK: gpu.launch blocks(%[[BX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c3, %{{.*}} = %c1, %{{.*}} = %c1) threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %c256, %{{.*}} = %c1, %{{.*}} = %c1)
// CHECK: memref.subview %{{.*}}[%[[BX]], 0, 0, 0] [1, 4, 8, 16]
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: gpu.terminator
func.func @mqa_one_block(%q: tensor<3x4x8x16xf16>, %k: tensor<3x1x8x16xf16>, %v: tensor<3x1x8x16xf16>) -> tensor<3x4x8x16xf16> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.25 : f64} : tensor<3x4x8x16xf16>, tensor<3x1x8x16xf16>, tensor<3x1x8x16xf16> -> tensor<3x4x8x16xf16>
  return %o : tensor<3x4x8x16xf16>
}
