// RUN: tfm-opt %s -split-input-file -verify-diagnostics \
// RUN:   -pass-pipeline='builtin.module(func.func(tfm-gpu-distribute))' \
// RUN:   | FileCheck %s

// A dynamic 3-D nest becomes one dimension (row-major: the innermost loop
// varies fastest across threads), tiled by 256: blocks over the tiles,
// threads inside one, each thread recovering its indices by div/rem.
// CHECK-LABEL: func.func @dynamic_nest
// CHECK:         %[[N0:.*]] = arith.muli %{{.*}}, %arg1 : index
// CHECK:         %[[N1:.*]] = arith.muli %[[N0]], %[[T:arg2]] : index
// CHECK:         %[[N:.*]] = arith.muli %[[N1]], %[[C32:.*]] : index
// CHECK:         %[[C256:.*]] = arith.constant 256 : index
// CHECK:         %[[STEP:.*]] = arith.muli %{{.*}}, %[[C256]] : index
// CHECK:         scf.parallel (%[[BLK:.*]]) = (%{{.*}}) to (%[[N]]) step (%[[STEP]]) {
// CHECK:           %[[LEN:.*]] = affine.min #{{.*}}(%[[STEP]], %[[N]], %[[BLK]])
// CHECK:           scf.parallel (%[[TID:.*]]) = (%{{.*}}) to (%[[LEN]])
// CHECK:             %[[LIN:.*]] = arith.addi %[[TID]], %[[BLK]] : index
// CHECK:             %[[K:.*]] = arith.remsi %[[LIN]], %[[C32]] : index
// CHECK:             %[[R:.*]] = arith.divsi %[[LIN]], %[[C32]] : index
// CHECK:             %[[J:.*]] = arith.remsi %[[R]], %[[T]] : index
// CHECK:             %[[I:.*]] = arith.divsi %[[R]], %[[T]] : index
// CHECK:             memref.store %{{.*}}, %{{.*}}[%[[I]], %[[J]], %[[K]]]
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @dynamic_nest(%out: memref<?x?x32xf32>, %b: index, %t: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %cst = arith.constant 1.0 : f32
  scf.parallel (%i, %j, %k) = (%c0, %c0, %c0) to (%b, %t, %c32) step (%c1, %c1, %c1) {
    memref.store %cst, %out[%i, %j, %k] : memref<?x?x32xf32>
    scf.reduce
  }
  return
}

// -----

// 40 iterations known statically: one block of two warps (64 threads), and
// the reduction loop stays sequential inside the thread.
// CHECK-LABEL: func.func @static_small
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[STEP:.*]] = arith.muli %{{.*}}, %[[C64]] : index
// CHECK:         scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step (%[[STEP]])
// CHECK:           scf.parallel
// CHECK:             scf.for
// CHECK:           {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @static_small(%a: memref<40x8xf32>, %out: memref<40xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c40 = arith.constant 40 : index
  scf.parallel (%i) = (%c0) to (%c40) step (%c1) {
    scf.for %k = %c0 to %c8 step %c1 {
      %x = memref.load %a[%i, %k] : memref<40x8xf32>
      %y = memref.load %out[%i] : memref<40xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %out[%i] : memref<40xf32>
    }
    scf.reduce
  }
  return
}

// -----

// A stray store becomes a one-thread kernel; the host's read of the weights
// table (llvm dialect) and the allocation stay where they are.
// CHECK-LABEL: func.func @stray
// CHECK:         llvm.load
// CHECK:         memref.alloc
// CHECK:         scf.parallel (%{{.*}}) = (%[[Z:.*]]) to (%[[O:.*]]) step (%[[O]]) {
// CHECK-NEXT:      scf.parallel (%{{.*}}) = (%[[Z]]) to (%[[O]]) step (%[[O]]) {
// CHECK-NEXT:        memref.store
// CHECK:           } {mapping = [#gpu.loop_dim_map<processor = thread_x
// CHECK:         } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @stray(%table: !llvm.ptr) -> !llvm.ptr {
  %p = llvm.load %table : !llvm.ptr -> !llvm.ptr
  %m = memref.alloc() : memref<4xf32>
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  memref.store %cst, %m[%c0] : memref<4xf32>
  return %p : !llvm.ptr
}

// -----

// A host read whose value later host code needs cannot become a kernel.
func.func @used_on_host(%m: memref<4xindex>) -> index {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{reads or writes memory on the host and its result is used by later host code}}
  %v = memref.load %m[%c0] : memref<4xindex>
  return %v : index
}
