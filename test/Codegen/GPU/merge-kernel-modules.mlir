// RUN: tfm-opt %s -split-input-file -tfm-gpu-merge-kernel-modules | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-gpu-merge-kernel-modules=module-name=kernels -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// Every kernel moves into one module, which takes the first module's
// place; launches follow. A kernel name used twice (two modules with a
// @k) is made unique, and only the launch of the moved one changes name.
// STATS: (S) 3 merged-modules
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK-NOT: gpu.module @a
// CHECK: gpu.module @tfm_kernels {
// CHECK-DAG: gpu.func @a(%{{.*}}: memref<4xf32>) kernel
// CHECK-DAG: gpu.func @k(%{{.*}}: memref<4xf32>) kernel
// CHECK-DAG: gpu.func @[[K2:k_[0-9]+]](%{{.*}}: memref<4xf32>) kernel
// CHECK: }
// CHECK-NOT: gpu.module
// CHECK: func.func @forward
// CHECK: gpu.launch_func  @tfm_kernels::@a
// CHECK: gpu.launch_func  @tfm_kernels::@k blocks
// CHECK: gpu.launch_func  @tfm_kernels::@[[K2]] blocks
module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @a(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @k(%m: memref<4xf32>) kernel {
      gpu.return
    }
  }
  gpu.module @c {
    gpu.func @k(%m: memref<4xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<4xf32>
      gpu.return
    }
  }
  func.func @forward(%m: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @a::@a blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @b::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    gpu.launch_func @c::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<4xf32>)
    return
  }
}

// -----

// One kernel module: nothing to merge.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @only
// CHECK: gpu.launch_func  @only::@only
module attributes {gpu.container_module} {
  gpu.module @only {
    gpu.func @only() kernel {
      gpu.return
    }
  }
  func.func @forward() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @only::@only blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
