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
