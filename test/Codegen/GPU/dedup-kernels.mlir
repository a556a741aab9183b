// RUN: tfm-opt %s -split-input-file -tfm-gpu-dedup-kernels -mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// STATS: (S) 2 merged-kernels
// STATS: (S) 2 merged-kernels
// STATS: (S) 1 merged-kernels

// One kernel module: the two layers' copies of a kernel become one, named
// with N for the layer, and both launches run it; kernels equal but for
// their block size or their body stay apart; equal kernels whose names
// differ in more than digits keep the first name.
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         func.func @forward
// CHECK:           gpu.launch_func  @tfm_kernels::@layers_N_ffn_1
// CHECK-NEXT:      gpu.launch_func  @tfm_kernels::@layers_N_ffn_1
// CHECK-NEXT:      gpu.launch_func  @tfm_kernels::@wide
// CHECK-NEXT:      gpu.launch_func  @tfm_kernels::@layers_0_attn_q
// CHECK-NEXT:      gpu.launch_func  @tfm_kernels::@layers_0_attn_q
// CHECK-NEXT:      gpu.launch_func  @tfm_kernels::@other
// CHECK:         gpu.module @tfm_kernels
// CHECK-NEXT:      gpu.func @layers_N_ffn_1
// CHECK:           gpu.func @wide
// CHECK:           gpu.func @layers_0_attn_q
// CHECK:           gpu.func @other
// CHECK-NOT:       gpu.func
module attributes {gpu.container_module} {
  func.func @forward(%a: memref<?xf32>, %b: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @tfm_kernels::@layers_0_ffn_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tfm_kernels::@layers_1_ffn_1 blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<?xf32>)
    gpu.launch_func @tfm_kernels::@wide blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%b : memref<?xf32>)
    gpu.launch_func @tfm_kernels::@layers_0_attn_q blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tfm_kernels::@layers_0_attn_k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @tfm_kernels::@other blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
  gpu.module @tfm_kernels {
    gpu.func @layers_0_ffn_1(%m: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<?xf32>
      gpu.return
    }
    gpu.func @layers_1_ffn_1(%m: memref<?xf32>) kernel attributes {known_block_size = array<i32: 32, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<?xf32>
      gpu.return
    }
    gpu.func @wide(%m: memref<?xf32>) kernel attributes {known_block_size = array<i32: 64, 1, 1>} {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<?xf32>
      gpu.return
    }
    gpu.func @layers_0_attn_q(%m: memref<?xf32>) kernel {
      %c1 = arith.constant 1 : index
      %two = arith.constant 2.0 : f32
      memref.store %two, %m[%c1] : memref<?xf32>
      gpu.return
    }
    gpu.func @layers_0_attn_k(%m: memref<?xf32>) kernel {
      %c1 = arith.constant 1 : index
      %two = arith.constant 2.0 : f32
      memref.store %two, %m[%c1] : memref<?xf32>
      gpu.return
    }
    gpu.func @other(%m: memref<?xf32>) kernel {
      %c1 = arith.constant 1 : index
      %three = arith.constant 3.0 : f32
      memref.store %three, %m[%c1] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// A module per kernel (tfmc --emit=ptx): a copy goes with its module, and
// the kept kernel's module takes the shared name too (made unique among
// the top-level symbols: layers_N_up exists).
// CHECK-LABEL: module attributes {gpu.container_module}
// CHECK:         func.func @forward
// CHECK:           gpu.launch_func  @layers_N_up_1::@layers_N_up_1
// CHECK-NEXT:      gpu.launch_func  @layers_N_up_1::@layers_N_up_1
// CHECK-NEXT:      gpu.launch_func  @layers_N_up_1::@layers_N_up_1
// CHECK:         func.func private @layers_N_up
// CHECK:         gpu.module @layers_N_up_1
// CHECK-NEXT:      gpu.func @layers_N_up_1
// CHECK-NOT:     gpu.module
module attributes {gpu.container_module} {
  func.func @forward(%a: memref<?xf32>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @layers_0_up::@layers_0_up blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @layers_1_up::@layers_1_up blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    gpu.launch_func @layers_12_up::@layers_12_up blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%a : memref<?xf32>)
    return
  }
  func.func private @layers_N_up()
  gpu.module @layers_0_up {
    gpu.func @layers_0_up(%m: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @layers_1_up {
    gpu.func @layers_1_up(%m: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<?xf32>
      gpu.return
    }
  }
  gpu.module @layers_12_up {
    gpu.func @layers_12_up(%m: memref<?xf32>) kernel {
      %c0 = arith.constant 0 : index
      %one = arith.constant 1.0 : f32
      memref.store %one, %m[%c0] : memref<?xf32>
      gpu.return
    }
  }
}

// -----

// The emulation's host functions (-tfm-gpu-emulate): equal private ones
// marked tfm.emulated_kernel are merged and their calls follow; a public
// one and an unmarked one are left alone.
// CHECK-LABEL: func.func @emulated
// CHECK-NEXT:    call @layers_N_norm(%arg0)
// CHECK-NEXT:    call @layers_N_norm(%arg1)
// CHECK-NEXT:    call @public_copy(%arg0)
// CHECK-NEXT:    call @unmarked_copy(%arg0)
// CHECK:       func.func private @layers_N_norm
// CHECK:       func.func @public_copy
// CHECK:       func.func private @unmarked_copy
// CHECK-NOT:   func.func
func.func @emulated(%a: memref<4xf32>, %b: memref<4xf32>) {
  call @layers_0_norm(%a) : (memref<4xf32>) -> ()
  call @layers_1_norm(%b) : (memref<4xf32>) -> ()
  call @public_copy(%a) : (memref<4xf32>) -> ()
  call @unmarked_copy(%a) : (memref<4xf32>) -> ()
  return
}
func.func private @layers_0_norm(%m: memref<4xf32>) attributes {tfm.emulated_kernel} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%c0] : memref<4xf32>
  return
}
func.func private @layers_1_norm(%m: memref<4xf32>) attributes {tfm.emulated_kernel} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%c0] : memref<4xf32>
  return
}
func.func @public_copy(%m: memref<4xf32>) attributes {tfm.emulated_kernel} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%c0] : memref<4xf32>
  return
}
func.func private @unmarked_copy(%m: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %m[%c0] : memref<4xf32>
  return
}
