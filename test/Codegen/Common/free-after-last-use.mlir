// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-free-after-last-use))" | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-free-after-last-use))" -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// Two layers' buffers, freed at the end as ownership-based deallocation
// leaves them: each dealloc moves up to its buffer's last use, a use in a
// loop counting as the loop's, a view's use as the buffer's.
// (The last buffer's dealloc then already follows its last use.)
// CHECK-LABEL: func.func @layers
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK:         linalg.fill {{.*}} outs(%[[A]]
// CHECK:         %[[B:.*]] = memref.alloc
// CHECK:         scf.for
// CHECK:           memref.load %[[A]]
// CHECK:         }
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK:         %[[C:.*]] = memref.alloc
// CHECK:         %[[V:.*]] = memref.subview %[[B]]
// CHECK:         linalg.copy ins(%[[V]] {{.*}} outs(%[[C]]
// CHECK-NEXT:    memref.dealloc %[[B]]
// CHECK:         linalg.copy ins(%[[C]] {{.*}} outs(%arg1
// CHECK-NEXT:    memref.dealloc %[[C]]
// CHECK-NEXT:    return
// STATS: (S) 2 moved-deallocs
func.func @layers(%n: index, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  %b = memref.alloc(%n) : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %b[%i] : memref<?xf32>
  }
  %c = memref.alloc() : memref<4xf32>
  %v = memref.subview %b[0] [4] [1] : memref<?xf32> to memref<4xf32, strided<[1]>>
  linalg.copy ins(%v : memref<4xf32, strided<[1]>>) outs(%c : memref<4xf32>)
  linalg.copy ins(%c : memref<4xf32>) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  memref.dealloc %c : memref<4xf32>
  return
}

// -----

// What stays: a dealloc already right after the last use; a buffer whose
// address leaves the memref type; one freed in another block than its
// alloc (a conditional one).
// CHECK-LABEL: func.func @stays
// CHECK:         %[[A:.*]] = memref.alloc
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    memref.dealloc %[[A]]
// CHECK:         memref.extract_aligned_pointer_as_index %[[C:[a-z0-9_]+]]
// CHECK-NEXT:    linalg.fill
// CHECK-NEXT:    memref.dealloc %[[C]]
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      memref.dealloc
func.func @stays(%cond: i1) -> index {
  %zero = arith.constant 0.0 : f32
  %a = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<8xf32>)
  memref.dealloc %a : memref<8xf32>
  %b = memref.alloc() : memref<8xf32>
  linalg.fill ins(%zero : f32) outs(%b : memref<8xf32>)
  %c = memref.alloc() : memref<8xf32>
  %p = memref.extract_aligned_pointer_as_index %c : memref<8xf32> -> index
  linalg.fill ins(%zero : f32) outs(%b : memref<8xf32>)
  memref.dealloc %c : memref<8xf32>
  scf.if %cond {
    memref.dealloc %b : memref<8xf32>
  }
  return %p : index
}
