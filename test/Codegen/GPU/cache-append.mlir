// RUN: tfm-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(func.func(tfm-gpu-cache-append,cse))' \
// RUN:   -mlir-pass-statistics -mlir-pass-statistics-display=list 2> %t.stats \
// RUN:   | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// The bufferized lowering of a tfm.cache_append (keys of layer 1): sequence
// %b's first n rows of the update go into its cache slice at its offset.
// The loop becomes one nest over (sequence, the view's dims: 1, H, rows of
// the update, D); each element reads its sequence's offset and count and
// is copied where its row is below the count.
// CHECK-LABEL: func.func @append
// CHECK-SAME:    (%[[UPD:.*]]: memref<?x4x?x8xf32>, %[[CACHE:.*]]: memref<?x2x2x4x?x8xf32>, %[[OFF:.*]]: memref<?xi32>, %[[LEN:.*]]: memref<?xi32>)
// CHECK-NOT:     scf.for
// CHECK:         %[[B:.*]] = memref.dim %[[CACHE]], %c0
// CHECK:         %[[ROWS:.*]] = memref.dim %[[UPD]], %c2
// CHECK:         scf.parallel (%[[S:.*]], %[[Z:.*]], %[[H:.*]], %[[T:.*]], %[[D:.*]]) = ({{.*}}) to (%[[B]], %c1{{.*}}, %c4{{.*}}, %[[ROWS]], %c8{{.*}})
// CHECK:           memref.load %[[OFF]][%[[S]]]
// CHECK:           memref.load %[[LEN]][%[[S]]]
// CHECK:           %[[SRC:.*]] = memref.subview %[[UPD]][%[[S]], 0, 0, 0] [1, 4, %[[N:[^,]*]], 8]
// CHECK:           %[[DST:.*]] = memref.subview %[[CACHE]][%[[S]], 1, 0, 0, %{{.*}}, 0] [1, 1, 1, 4, %[[N]], 8]
// CHECK:           %[[IN:.*]] = arith.cmpi ult, %[[T]], %[[N]] : index
// CHECK:           scf.if %[[IN]] {
// CHECK:             %[[V:.*]] = memref.load %[[SRC]][%[[Z]], %[[H]], %[[T]], %[[D]]]
// CHECK:             memref.store %[[V]], %[[DST]][%[[Z]], %[[H]], %[[T]], %[[D]]]
// CHECK:           }
// CHECK-NOT:     memref.copy
// STATS: GPUCacheAppendPass
// STATS-NEXT: (S) 1 appends
func.func @append(%upd: memref<?x4x?x8xf32>, %cache: memref<?x2x2x4x?x8xf32>,
                  %offsets: memref<?xi32>, %lengths: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %b = memref.dim %cache, %c0 : memref<?x2x2x4x?x8xf32>
  %cap = memref.dim %cache, %c4 : memref<?x2x2x4x?x8xf32>
  %rows = memref.dim %upd, %c2 : memref<?x4x?x8xf32>
  scf.for %s = %c0 to %b step %c1 {
    %o = memref.load %offsets[%s] : memref<?xi32>
    %oi = arith.index_cast %o : i32 to index
    %oc = arith.maxsi %oi, %c0 : index
    %off = arith.minsi %oc, %cap : index
    %room = arith.subi %cap, %off : index
    %l = memref.load %lengths[%s] : memref<?xi32>
    %li = arith.index_cast %l : i32 to index
    %fit = arith.minsi %room, %rows : index
    %lc = arith.maxsi %li, %c0 : index
    %n = arith.minsi %lc, %fit : index
    %src = memref.subview %upd[%s, 0, 0, 0] [1, 4, %n, 8] [1, 1, 1, 1]
        : memref<?x4x?x8xf32> to memref<1x4x?x8xf32, strided<[?, ?, 8, 1], offset: ?>>
    %dst = memref.subview %cache[%s, 1, 0, 0, %off, 0] [1, 1, 1, 4, %n, 8] [1, 1, 1, 1, 1, 1]
        : memref<?x2x2x4x?x8xf32> to memref<1x4x?x8xf32, strided<[?, ?, 8, 1], offset: ?>>
    memref.copy %src, %dst
        : memref<1x4x?x8xf32, strided<[?, ?, 8, 1], offset: ?>> to memref<1x4x?x8xf32, strided<[?, ?, 8, 1], offset: ?>>
  } {tfm.independent_iterations}
  return
}

// -----

// Into a 16-bit cache (-tfm-narrow-kv-cache) the copy rounds each element
// (an elementwise linalg.generic): each thread loads the f32 element, runs
// the generic's body on it and stores the bf16 result.
// CHECK-LABEL: func.func @append_bf16
// CHECK:         scf.parallel (%[[S:.*]], %[[Z:.*]], %[[H:.*]], %[[T:.*]], %[[D:.*]]) =
// CHECK:           %[[SRC:.*]] = memref.subview %{{.*}}[%[[S]], 0, 0, 0] [1, 4, %[[N:[^,]*]], 8]
// CHECK:           %[[DST:.*]] = memref.subview %{{.*}}[%[[S]], 0, 1, 0, %{{.*}}, 0] [1, 1, 1, 4, %[[N]], 8]
// CHECK:           scf.if
// CHECK:             %[[V:.*]] = memref.load %[[SRC]][%[[Z]], %[[H]], %[[T]], %[[D]]] : memref<1x4x?x8xf32
// CHECK:             %[[R:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK:             memref.store %[[R]], %[[DST]][%[[Z]], %[[H]], %[[T]], %[[D]]] : memref<1x4x?x8xbf16
// CHECK-NOT:     linalg.generic
func.func @append_bf16(%upd: memref<?x4x?x8xf32>, %cache: memref<?x2x2x4x?x8xbf16>,
                       %offsets: memref<?xi32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %b = memref.dim %cache, %c0 : memref<?x2x2x4x?x8xbf16>
  scf.for %s = %c0 to %b step %c1 {
    %o = memref.load %offsets[%s] : memref<?xi32>
    %off = arith.index_cast %o : i32 to index
    %src = memref.subview %upd[%s, 0, 0, 0] [1, 4, %n, 8] [1, 1, 1, 1]
        : memref<?x4x?x8xf32> to memref<1x4x?x8xf32, strided<[?, ?, 8, 1], offset: ?>>
    %dst = memref.subview %cache[%s, 0, 1, 0, %off, 0] [1, 1, 1, 4, %n, 8] [1, 1, 1, 1, 1, 1]
        : memref<?x2x2x4x?x8xbf16> to memref<1x4x?x8xbf16, strided<[?, ?, 8, 1], offset: ?>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                    iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%src : memref<1x4x?x8xf32, strided<[?, ?, 8, 1], offset: ?>>)
        outs(%dst : memref<1x4x?x8xbf16, strided<[?, ?, 8, 1], offset: ?>>) {
    ^bb0(%in: f32, %out: bf16):
      %r = arith.truncf %in : f32 to bf16
      linalg.yield %r : bf16
    }
  } {tfm.independent_iterations}
  return
}

// -----

// A generic that reads what it overwrites is not a copy.
func.func @accumulates(%src: memref<?x8xf32>, %dst: memref<?x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{does not end with a memref.copy or an elementwise linalg.generic copy}}
  scf.for %s = %c0 to %n step %c1 {
    %a = memref.subview %src[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    %b = memref.subview %dst[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                    iterator_types = ["parallel", "parallel"]}
        ins(%a : memref<?x8xf32, strided<[8, 1]>>) outs(%b : memref<?x8xf32, strided<[8, 1]>>) {
    ^bb0(%in: f32, %out: f32):
      %r = arith.addf %in, %out : f32
      linalg.yield %r : f32
    }
  } {tfm.independent_iterations}
  return
}

// -----

// An unmarked loop is left alone.
// CHECK-LABEL: func.func @unmarked
// CHECK:         scf.for
// CHECK:           memref.copy
func.func @unmarked(%src: memref<?x8xf32>, %dst: memref<?x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %s = %c0 to %n step %c1 {
    %a = memref.subview %src[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    %b = memref.subview %dst[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    memref.copy %a, %b : memref<?x8xf32, strided<[8, 1]>> to memref<?x8xf32, strided<[8, 1]>>
  }
  return
}

// -----

// A marked loop that writes before its copy: an error naming the marker.
func.func @writes_first(%src: memref<?x8xf32>, %dst: memref<?x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  // expected-error @+1 {{-tfm-gpu-cache-append: a loop marked tfm.independent_iterations writes memory before its copy}}
  scf.for %s = %c0 to %n step %c1 {
    memref.store %f, %dst[%s, %c0] : memref<?x8xf32>
    %a = memref.subview %src[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    %b = memref.subview %dst[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    memref.copy %a, %b : memref<?x8xf32, strided<[8, 1]>> to memref<?x8xf32, strided<[8, 1]>>
  } {tfm.independent_iterations}
  return
}

// -----

// A window that does not start at row 0 of the source has no bound.
func.func @window_offset(%src: memref<?x8xf32>, %dst: memref<?x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{copies a window that does not start at 0 along its dynamic dimension 0}}
  scf.for %s = %c0 to %n step %c1 {
    %a = memref.subview %src[%s, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    %b = memref.subview %dst[0, 0] [%s, 8] [1, 1] : memref<?x8xf32> to memref<?x8xf32, strided<[8, 1]>>
    memref.copy %a, %b : memref<?x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1]>>
  } {tfm.independent_iterations}
  return
}

// -----

// A loop without a copy at its end.
func.func @no_copy(%dst: memref<?xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  // expected-error @+1 {{does not end with a memref.copy}}
  scf.for %s = %c0 to %n step %c1 {
    memref.store %f, %dst[%s] : memref<?xf32>
  } {tfm.independent_iterations}
  return
}
