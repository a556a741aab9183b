// RUN: tfm-opt %s -tfm-gpu-outline-kernels | FileCheck %s

// Each launch becomes a kernel named after the model op of its location,
// made a unique C identifier (`_1` for the second kernel of one op, and
// past a symbol the module already has); a launch without a name is
// `<function>_kernel`. A launch's planned occupancy stays on its kernel
// and on no other (not on a kernel of the same name in a module that was
// already there); a launch without one gets none.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK: gpu.module @existing {
// CHECK-NEXT: gpu.func @layers_0_attn_q() kernel {
// CHECK-LABEL: func.func @f(
// CHECK: gpu.launch_func @layers_0_attn_q::@layers_0_attn_q
// CHECK: gpu.launch_func @layers_0_attn_q_1::@layers_0_attn_q_1
// CHECK: gpu.launch_func @f_kernel::@f_kernel
// CHECK: gpu.launch_func @lm_head_1::@lm_head_1
// CHECK-NOT: gpu.launch blocks
// CHECK: gpu.module @layers_0_attn_q {
// CHECK:   gpu.func @layers_0_attn_q(
// CHECK-SAME: kernel attributes {{{.*}}tfm.blocks_per_sm = 3 : i64
// CHECK: gpu.module @layers_0_attn_q_1 {
// CHECK:   gpu.func @layers_0_attn_q_1(
// CHECK-NOT: tfm.blocks_per_sm
// CHECK: gpu.module @f_kernel {
// CHECK:   gpu.func @f_kernel(
// CHECK-SAME: kernel attributes {{{.*}}tfm.blocks_per_sm = 1 : i64
// CHECK: gpu.module @lm_head_1 {
// CHECK-NOT: tfm.blocks_per_sm
module {
  gpu.module @existing {
    gpu.func @layers_0_attn_q() kernel {
      gpu.return
    }
  }
  func.func @lm_head() {
    return
  }
  func.func @f(%out: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %zero = arith.constant 0.0 : f32
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
        threads(%tx, %ty, %tz) in (%i = %c4, %j = %c1, %k = %c1) {
      memref.store %zero, %out[%tx] : memref<4xf32>
      gpu.terminator
    } {tfm.blocks_per_sm = 3 : i64} loc("layers.0.attn.q"("model.json":1:1))
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
        threads(%tx, %ty, %tz) in (%i = %c4, %j = %c1, %k = %c1) {
      memref.store %zero, %out[%tx] : memref<4xf32>
      gpu.terminator
    } loc("layers.0.attn.q"("model.json":1:1))
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
        threads(%tx, %ty, %tz) in (%i = %c1, %j = %c1, %k = %c1) {
      gpu.terminator
    } {tfm.blocks_per_sm = 1 : i64}
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
        threads(%tx, %ty, %tz) in (%i = %c1, %j = %c1, %k = %c1) {
      gpu.terminator
    } loc("lm_head"("model.json":2:1))
    return
  }
}
