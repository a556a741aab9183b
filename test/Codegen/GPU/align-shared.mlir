// RUN: tfm-opt %s -tfm-gpu-align-shared -mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// The alignment reaches the shared-memory globals.
// RUN: tfm-opt %s -tfm-gpu-align-shared -convert-gpu-to-nvvm | FileCheck %s --check-prefix=NVVM

// Every workgroup buffer gets 16-byte alignment; one that states more
// keeps it.
// CHECK-LABEL: gpu.func @kernel
// CHECK-SAME:    workgroup(%{{.*}} : memref<64x40xbf16, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 16 : i64}, %{{.*}} : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64})
// STATS: (S) 2 aligned
// NVVM-DAG: llvm.mlir.global internal @__wg_kernel_0() {addr_space = 3 : i32, alignment = 16 : i64} : !llvm.array<2560 x bf16>
// NVVM-DAG: llvm.mlir.global internal @__wg_kernel_2() {addr_space = 3 : i32, alignment = 128 : i64} : !llvm.array<8 x f32>
gpu.module @kernels {
  gpu.func @kernel() workgroup(%a : memref<64x40xbf16, #gpu.address_space<workgroup>>,
                               %b : memref<8xf32, #gpu.address_space<workgroup>>,
                               %c : memref<8xf32, #gpu.address_space<workgroup>> {llvm.align = 128 : i64}) kernel {
    gpu.return
  }
}
