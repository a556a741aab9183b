// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-gpu-check-kernels \
// RUN:   | FileCheck %s

// Kernels read and write buffers inside gpu.module; the host only launches.
// CHECK-LABEL: func.func @host
// CHECK:         gpu.launch_func @kernels::@k
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%m: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %v = memref.load %m[%c0] : memref<4xf32>
      memref.store %v, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
  func.func @host(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}

// -----

// A host read of a buffer, and a launch that was never outlined.
func.func @bad(%m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{reads or writes a buffer on the host}}
  %v = memref.load %m[%c0] : memref<4xf32>
  // expected-error @+1 {{is not outlined into a gpu.module}}
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}

// -----

// A kernel given the host's copy of a global would read host memory.
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<3xf64> = dense<[1.0, 0.5, 0.25]>
  gpu.module @kernels {
    gpu.func @k(%m: memref<3xf64>) kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %t = memref.get_global @table : memref<3xf64>
    // expected-error @+1 {{passes the host's global @table to the kernel}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%t : memref<3xf64>)
    return
  }
}

// -----

// Nor a view of it.
module attributes {gpu.container_module} {
  memref.global "private" constant @table : memref<3xf64> = dense<[1.0, 0.5, 0.25]>
  gpu.module @kernels {
    gpu.func @k(%m: memref<2xf64, strided<[1], offset: 1>>) kernel {
      gpu.return
    }
  }
  func.func @host() {
    %c1 = arith.constant 1 : index
    %t = memref.get_global @table : memref<3xf64>
    %v = memref.subview %t[1] [2] [1] : memref<3xf64> to memref<2xf64, strided<[1], offset: 1>>
    // expected-error @+1 {{passes the host's global @table to the kernel}}
    gpu.launch_func @kernels::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : memref<2xf64, strided<[1], offset: 1>>)
    return
  }
}
