// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-gpu-device-memory \
// RUN:   | FileCheck %s

// Host buffers become stream-ordered device allocations; the kernel that
// uses one is untouched.
// CHECK-LABEL: func.func @host_buffers
// CHECK:         %[[W0:.*]] = gpu.wait async
// CHECK:         %[[M:.*]], %[[T0:.*]] = gpu.alloc async [%[[W0]]] (%arg0) : memref<?xf32>
// CHECK:         gpu.wait [%[[T0]]]
// CHECK:         gpu.launch
// CHECK:           memref.store %{{.*}}, %[[M]]
// CHECK:         %[[W1:.*]] = gpu.wait async
// CHECK:         %[[T1:.*]] = gpu.dealloc async [%[[W1]]] %[[M]] : memref<?xf32>
// CHECK:         gpu.wait [%[[T1]]]
// CHECK-NOT:     memref.alloc
// CHECK-NOT:     memref.dealloc
func.func @host_buffers(%n: index) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %m = memref.alloc(%n) : memref<?xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %cst, %m[%c0] : memref<?xf32>
    gpu.terminator
  }
  memref.dealloc %m : memref<?xf32>
  return
}

// -----

// Global memory allocated inside a kernel would become a device malloc per
// thread: an error. Workgroup memory is left alone.
func.func @kernel_alloc() {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{allocates global memory inside a GPU kernel}}
    %m = memref.alloc() : memref<4xf32>
    %s = memref.alloc() : memref<4xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A constant table read by two kernels and by the host's own code: each
// kernel gets its own memref.get_global (outlining then copies the global
// into the device module); the host's use keeps the host's copy. Before,
// the kernels were given the host's address (LongRoPE's inverse
// frequencies: CUDA_ERROR_ILLEGAL_ADDRESS on an H200).
// The index constants the kernels use go in too (ptxas folds them).
// CHECK-LABEL: func.func @constant_table
// CHECK:         %[[HOST:.*]] = memref.get_global @table
// CHECK:         gpu.launch
// CHECK-DAG:       %[[K1:.*]] = memref.get_global @table : memref<3xf64>
// CHECK-DAG:       %[[Z1:.*]] = arith.constant 0 : index
// CHECK:           memref.load %[[K1]][%[[Z1]]]
// CHECK:         gpu.launch
// CHECK-DAG:       %[[K2:.*]] = memref.get_global @table : memref<3xf64>
// CHECK-DAG:       %[[O2:.*]] = arith.constant 1 : index
// CHECK:           memref.load %[[K2]][%[[O2]]]
// CHECK:         memref.dim %[[HOST]]
memref.global "private" constant @table : memref<3xf64> = dense<[1.0, 0.5, 0.25]>
func.func @constant_table(%out: memref<3xf64>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.get_global @table : memref<3xf64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%c0] : memref<3xf64>
    memref.store %v, %out[%c0] : memref<3xf64>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%c1] : memref<3xf64>
    memref.store %v, %out[%c1] : memref<3xf64>
    gpu.terminator
  }
  %d = memref.dim %t, %c0 : memref<3xf64>
  return %d : index
}

// -----

// A kernel cannot share a global the host may write.
memref.global "private" @state : memref<3xf64> = dense<0.0>
func.func @mutable_global(%out: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{is read by a GPU kernel but names a global that is not constant}}
  %t = memref.get_global @state : memref<3xf64>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %v = memref.load %t[%c0] : memref<3xf64>
    memref.store %v, %out[%c0] : memref<3xf64>
    gpu.terminator
  }
  return
}

// -----

// A view of a constant table goes in with it (the view's offsets too).
// CHECK-LABEL: func.func @table_view
// CHECK:         gpu.launch
// CHECK-DAG:       %[[G:.*]] = memref.get_global @table2 : memref<4xf64>
// CHECK-DAG:       %[[V:.*]] = memref.subview %[[G]][1] [2] [1]
// CHECK:           memref.load %[[V]]
memref.global "private" constant @table2 : memref<4xf64> = dense<[1.0, 0.5, 0.25, 0.125]>
func.func @table_view(%out: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = memref.get_global @table2 : memref<4xf64>
  %v = memref.subview %t[1] [2] [1] : memref<4xf64> to memref<2xf64, strided<[1], offset: 1>>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %x = memref.load %v[%c0] : memref<2xf64, strided<[1], offset: 1>>
    memref.store %x, %out[%c0] : memref<3xf64>
    gpu.terminator
  }
  return
}

// -----

// Nor may a kernel take a global that is not constant inside itself.
memref.global "private" @state2 : memref<3xf64> = dense<0.0>
func.func @mutable_inside(%out: memref<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{is read by a GPU kernel but names a global that is not constant}}
    %t = memref.get_global @state2 : memref<3xf64>
    %v = memref.load %t[%c0] : memref<3xf64>
    memref.store %v, %out[%c0] : memref<3xf64>
    gpu.terminator
  }
  return
}

// -----

// Index constants go into kernels, but not into attention CTAs (folded,
// their tile loops unrolled until ptxas spilled); other constants stay
// outside either way.
// CHECK-LABEL: func.func @constants
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[F:.*]] = arith.constant 1.500000e+00 : f32
// CHECK:         gpu.launch
// CHECK-NEXT:      %[[K2:.*]] = arith.constant 2 : index
// CHECK:           memref.store %[[F]], %{{.*}}[%[[K2]]]
// CHECK:         gpu.launch
// CHECK-NOT:       arith.constant
// CHECK:           memref.store %[[F]], %{{.*}}[%[[C2]]]
// CHECK:         } {tfm.lowering_config = #tfm.attention_tiling
func.func @constants(%out: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %f = arith.constant 1.5 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %f, %out[%c2] : memref<4xf32>
    gpu.terminator
  }
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    memref.store %f, %out[%c2] : memref<4xf32>
    gpu.terminator
  } {tfm.lowering_config = #tfm.attention_tiling<block_q = 16, block_k = 16, group = 1, footprint_bytes = 1024, budget_bytes = 49152>}
  return
}
