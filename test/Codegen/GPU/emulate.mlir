// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-gpu-emulate | FileCheck %s

// A launch becomes block z, y, x then thread z, y, x loops; the ids are the
// loop variables and the sizes the launch's operands.
// CHECK-LABEL: func.func @launch
// CHECK-SAME:    (%[[M:.*]]: memref<?xindex>, %[[G:.*]]: index, %[[B:.*]]: index)
// CHECK:         scf.for %[[BZ:.*]] = %{{.*}} to %[[ONE:.*]] step
// CHECK:           scf.for %[[BY:.*]] = %{{.*}} to %[[ONE]] step
// CHECK:             scf.for %[[BX:.*]] = %{{.*}} to %[[G]] step
// CHECK:               scf.for {{.*}} to %[[ONE]] step
// CHECK:                 scf.for {{.*}} to %[[ONE]] step
// CHECK:                   scf.for %[[TX:.*]] = %{{.*}} to %[[B]] step
// CHECK:                     %[[P:.*]] = arith.muli %[[BX]], %[[B]]
// CHECK:                     %[[I:.*]] = arith.addi %[[P]], %[[TX]]
// CHECK:                     memref.store %[[I]], %[[M]][%[[I]]]
// CHECK-NOT:   gpu.launch
func.func @launch(%m: memref<?xindex>, %g: index, %b: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %g, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %b, %sy = %c1, %sz = %c1) {
    %p = arith.muli %bx, %sx : index
    %i = arith.addi %p, %tx : index
    memref.store %i, %m[%i] : memref<?xindex>
    gpu.terminator
  }
  return
}

// -----

// Threads that synchronize cannot run one after another.
func.func @barrier() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{has no sequential host emulation}}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

// Workgroup memory is shared between the threads of a block.
func.func @workgroup() {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{has workgroup or private memory attributions}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<4xf32, #gpu.address_space<workgroup>>) {
    gpu.terminator
  }
  return
}
