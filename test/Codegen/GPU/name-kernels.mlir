// RUN: tfm-opt %s -tfm-gpu-name-kernels | FileCheck %s

// Each outlined kernel takes the model name of its launch's location, made
// a unique C identifier; a launch without one keeps the outlined name.
// CHECK: gpu.module @layers_0_attn_q
// CHECK:   gpu.func @layers_0_attn_q
// CHECK: gpu.module @layers_0_attn_q_1
// CHECK:   gpu.func @layers_0_attn_q_1
// CHECK: gpu.module @f_kernel_1
// CHECK:   gpu.func @f_kernel
// CHECK: gpu.launch_func @layers_0_attn_q::@layers_0_attn_q
// CHECK: gpu.launch_func @layers_0_attn_q_1::@layers_0_attn_q_1
// CHECK: gpu.launch_func @f_kernel_1::@f_kernel
module attributes {gpu.container_module} {
  gpu.module @f_kernel {
    gpu.func @f_kernel() kernel { gpu.return }
  }
  gpu.module @f_kernel_0 {
    gpu.func @f_kernel() kernel { gpu.return }
  }
  gpu.module @f_kernel_1 {
    gpu.func @f_kernel() kernel { gpu.return }
  }
  func.func @f() {
    %c1 = arith.constant 1 : index
    gpu.launch_func @f_kernel::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) loc("layers.0.attn.q"("model.json":1:1))
    gpu.launch_func @f_kernel_0::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) loc("layers.0.attn.q"("model.json":1:1))
    gpu.launch_func @f_kernel_1::@f_kernel blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
}
