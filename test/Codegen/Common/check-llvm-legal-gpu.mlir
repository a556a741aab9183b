// The GPU pipeline's end: embedded kernels and their launches may remain
// with allow-gpu-binaries (the translation to LLVM IR turns them into
// kernel images and mgpu* calls), and only then.
// RUN: tfm-opt %s -tfm-check-llvm-legal=allow-gpu-binaries | FileCheck %s
// RUN: not tfm-opt %s -tfm-check-llvm-legal 2>&1 | FileCheck %s --check-prefix=CPU
// CHECK: gpu.binary @kernels
// CHECK: gpu.launch_func @kernels::@k
// CPU-DAG: error: 'gpu.binary' is left after lowering to the LLVM dialect
// CPU-DAG: error: 'gpu.launch_func' is left after lowering to the LLVM dialect
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "">]
  llvm.func @host(%n: i64) {
    gpu.launch_func @kernels::@k blocks in (%n, %n, %n) threads in (%n, %n, %n) : i64
    llvm.return
  }
}
