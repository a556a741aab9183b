// RUN: tfm-opt %s -split-input-file -tfm-lower-target | FileCheck %s

// A CPU target becomes LLVM's triple on the module, and its CPU and
// features on every function the module defines (declarations keep none),
// so that llc compiles AVX-512 or AMX intrinsics whatever its own default
// CPU; lowering configurations go.
// CHECK: module attributes {llvm.target_triple = "x86_64-unknown-linux-gnu"}
// CHECK-NOT: tfm.target
// CHECK: llvm.func @defined()
// CHECK-SAME: target_cpu = "znver4"
// CHECK-SAME: target_features = #llvm.target_features<["+avx512f", "+avx512dq", "+fma"]>
// CHECK-NOT: tfm.lowering_config
// CHECK: llvm.func @declared()
// CHECK-NOT: target_cpu
// CHECK-NOT: target_features
module attributes {tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512dq,+fma", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 1>} {
  llvm.func @defined() {
    llvm.return {tfm.lowering_config = #tfm.attention_untiled}
  }
  llvm.func @declared()
}

// -----

// A GPU target is removed; the functions keep what they had.
// CHECK-LABEL: module {
// CHECK: llvm.func @host()
// CHECK-NOT: target_cpu
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {
  llvm.func @host() {
    llvm.return
  }
}
