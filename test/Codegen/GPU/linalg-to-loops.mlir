// RUN: tfm-opt %s -split-input-file -tfm-gpu-linalg-to-loops=rows-per-thread=1 | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-gpu-linalg-to-loops=rows-per-thread=4 | FileCheck %s --check-prefix=ROWS

// A GEMM: one iteration per output element, the output read once, the
// k loop carrying the accumulator, one store.
// CHECK-LABEL: func.func @matmul
// CHECK:         scf.parallel (%[[M:.*]], %[[N:.*]]) = {{.*}} step (%{{.*}}, %{{.*}}) {
// CHECK:           %[[INIT:.*]] = memref.load %arg2[%[[M]], %[[N]]]
// CHECK:           %[[ACC:.*]] = scf.for %[[K:.*]] = {{.*}} iter_args(%[[A:.*]] = %[[INIT]]) -> (f32) {
// CHECK:             %[[X:.*]] = memref.load %arg0[%[[M]], %[[K]]]
// CHECK:             %[[Y:.*]] = memref.load %arg1[%[[K]], %[[N]]]
// CHECK:             %[[P:.*]] = arith.mulf %[[X]], %[[Y]]
// CHECK:             %[[S:.*]] = arith.addf %[[A]], %[[P]]
// CHECK:             scf.yield %[[S]]
// CHECK:           memref.store %[[ACC]], %arg2[%[[M]], %[[N]]]
// CHECK-NOT:       memref.store

// Four rows per iteration: the loop over m steps by 4, B[k, n] is read once
// for the four accumulators, rows past the end are clamped for reading and
// not stored.
// ROWS-LABEL: func.func @matmul
// ROWS:         %[[C4:.*]] = arith.constant 4 : index
// ROWS:         scf.parallel (%[[M:.*]], %[[N:.*]]) = {{.*}} step (%[[C4]], %{{.*}}) {
// ROWS:           %[[R1:.*]] = arith.addi %[[M]], %{{.*}}
// ROWS:           %[[IN1:.*]] = arith.cmpi slt, %[[R1]], %{{.*}}
// ROWS:           %[[M1:.*]] = arith.minsi %[[R1]], %{{.*}}
// ROWS:           scf.for {{.*}} -> (f32, f32, f32, f32) {
// ROWS-COUNT-1:     memref.load %arg1
// ROWS-NOT:         memref.load %arg1
// ROWS:             scf.yield {{.*}} : f32, f32, f32, f32
// ROWS:           memref.store %{{.*}}, %arg2[%[[M]], %[[N]]]
// ROWS:           scf.if %[[IN1]] {
// ROWS-NEXT:        memref.store %{{.*}}, %arg2[%[[M1]], %[[N]]]
func.func @matmul(%a: memref<?x64xf32>, %b: memref<64x32xf32>, %c: memref<?x32xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x32xf32>) outs(%c : memref<?x32xf32>)
  return
}

// -----

// Elementwise with linalg.index: the index is the loop variable, the
// write-only output is never read.
// CHECK-LABEL: func.func @iota
// CHECK:         scf.parallel (%[[I:.*]]) =
// CHECK-NOT:       memref.load
// CHECK:           %[[V:.*]] = arith.index_cast %[[I]] : index to i32
// CHECK:           memref.store %[[V]], %arg0[%[[I]]]
func.func @iota(%out: memref<?xi32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%out : memref<?xi32>) {
  ^bb0(%o: i32):
    %i = linalg.index 0 : index
    %v = arith.index_cast %i : index to i32
    linalg.yield %v : i32
  }
  return
}

// -----

// A full reduction has no parallel dimension: one iteration computes it.
// CHECK-LABEL: func.func @sum
// CHECK:         scf.parallel (%{{.*}}) = (%[[Z:.*]]) to (%[[O:.*]]) step (%[[O]])
// CHECK:           %[[INIT:.*]] = memref.load %arg1[]
// CHECK:           scf.for {{.*}} iter_args(%{{.*}} = %[[INIT]])
// CHECK:           memref.store %{{.*}}, %arg1[]
func.func @sum(%in: memref<?xf32>, %out: memref<f32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>], iterator_types = ["reduction"]} ins(%in : memref<?xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Tensors are left alone.
// CHECK-LABEL: func.func @on_tensors
// CHECK:         linalg.matmul
func.func @on_tensors(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}
