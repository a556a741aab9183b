// RUN: tfm-opt %s -tfm-expand-memref-copy | FileCheck %s

// A strided (non-contiguous) source: finalize-memref-to-llvm would call
// memrefCopy, so the copy becomes a linalg.copy (loops later).
// CHECK-LABEL: func.func @strided
// CHECK: linalg.copy ins(%{{.*}} : memref<?x8xf32, strided<[16, 1], offset: ?>>) outs(%{{.*}} : memref<?x8xf32>)
// CHECK-NOT: memref.copy
func.func @strided(%a: memref<?x8xf32, strided<[16, 1], offset: ?>>, %b: memref<?x8xf32>) {
  memref.copy %a, %b : memref<?x8xf32, strided<[16, 1], offset: ?>> to memref<?x8xf32>
  return
}

// A dynamic view that is contiguous in fact, but not provably so.
// CHECK-LABEL: func.func @dynamic_offset
// CHECK: linalg.copy
func.func @dynamic_offset(%a: memref<?x8xf32, strided<[8, 1], offset: ?>>, %b: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x8xf32, strided<[8, 1], offset: ?>>
  %v = memref.subview %b[0, 0] [%n, 8] [1, 1] : memref<64x8xf32> to memref<?x8xf32, strided<[8, 1]>>
  memref.copy %a, %v : memref<?x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1]>>
  return
}

// Contiguous buffers keep memref.copy (a memcpy).
// CHECK-LABEL: func.func @contiguous
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<?x8xf32> to memref<?x8xf32>
// CHECK: memref.copy %{{.*}}, %{{.*}} : memref<4x8xf32, strided<[8, 1], offset: 8>> to memref<4x8xf32>
// CHECK-NOT: linalg.copy
func.func @contiguous(%a: memref<?x8xf32>, %b: memref<?x8xf32>, %c: memref<8x8xf32>, %d: memref<4x8xf32>) {
  memref.copy %a, %b : memref<?x8xf32> to memref<?x8xf32>
  %s = memref.subview %c[1, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 8>>
  memref.copy %s, %d : memref<4x8xf32, strided<[8, 1], offset: 8>> to memref<4x8xf32>
  return
}
