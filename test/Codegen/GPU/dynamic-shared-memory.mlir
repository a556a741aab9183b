// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-gpu-dynamic-shared-memory -mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// STATS: (S) 2 kernels
// STATS: (S) 3 launches
// STATS: (S) 0 kernels

// Two workgroup buffers of 40 KiB (a 4-stage 128 x 160 bf16 slice pair would
// be such): 80 KiB, past the static 48 KiB, within sm_90's 227 KiB. They
// become views of the dynamic shared memory at offsets 0 and 40960, the
// attributions go, and both its launches pass 81920 bytes. A kernel within 48
// KiB keeps its attribution; so does its launch (no dynamic size). The
// third kernel's buffers (1 + 3 bytes, then 64 KiB) put the second at 128.
// CHECK-LABEL: module attributes {gpu.container_module
// CHECK:         func.func @forward
// CHECK:           %[[BYTES:.+]] = arith.constant 81920 : i32
// CHECK:           gpu.launch_func  @tfm_kernels::@big {{.*}} dynamic_shared_memory_size %[[BYTES]]
// CHECK:           %[[BYTES2:.+]] = arith.constant 81920 : i32
// CHECK:           gpu.launch_func  @tfm_kernels::@big {{.*}} dynamic_shared_memory_size %[[BYTES2]]
// CHECK:           gpu.launch_func  @tfm_kernels::@small
// CHECK-NOT:         dynamic_shared_memory_size
// CHECK:           %[[BYTES3:.+]] = arith.constant 65664 : i32
// CHECK:           gpu.launch_func  @tfm_kernels::@odd {{.*}} dynamic_shared_memory_size %[[BYTES3]]
// CHECK:         gpu.module @tfm_kernels
// CHECK:           gpu.func @big(%{{.+}}: memref<?xbf16>) kernel {
// CHECK-NEXT:        %[[D:.+]] = gpu.dynamic_shared_memory : memref<?xi8, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[C0:.+]] = arith.constant 0 : index
// CHECK-NEXT:        %[[A:.+]] = memref.view %[[D]][%[[C0]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<160x128xbf16, #gpu.address_space<workgroup>>
// CHECK-NEXT:        %[[C1:.+]] = arith.constant 40960 : index
// CHECK-NEXT:        %[[B:.+]] = memref.view %[[D]][%[[C1]]][] : memref<?xi8, #gpu.address_space<workgroup>> to memref<160x128xbf16, #gpu.address_space<workgroup>>
// CHECK:             memref.load %[[A]]
// CHECK:             memref.store {{.*}}, %[[B]]
// CHECK:           gpu.func @small(%{{.+}}: memref<?xbf16>) workgroup(%{{.+}} : memref<1024xbf16, #gpu.address_space<workgroup>>) kernel
// CHECK-NOT:         gpu.dynamic_shared_memory
// CHECK:           gpu.func @odd
// CHECK:             arith.constant 0 : index
// CHECK:             memref.view {{.*}} to memref<3xi8, #gpu.address_space<workgroup>>
// CHECK:             arith.constant 128 : index
// CHECK:             memref.view {{.*}} to memref<32768xf16, #gpu.address_space<workgroup>>
module attributes {gpu.container_module, tfm.target = #tfm.gpu_target<chip = "sm_90", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 132, opt_in_shared_memory_bytes = 232448>} {
  func.func @forward(%m: memref<?xbf16>, %h: memref<?xf16>) {
    %c1 = arith.constant 1 : index
    gpu.launch_func @tfm_kernels::@big blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?xbf16>)
    gpu.launch_func @tfm_kernels::@big blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?xbf16>)
    gpu.launch_func @tfm_kernels::@small blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%m : memref<?xbf16>)
    gpu.launch_func @tfm_kernels::@odd blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%h : memref<?xf16>)
    return
  }
  gpu.module @tfm_kernels {
    gpu.func @big(%m: memref<?xbf16>) workgroup(%a : memref<160x128xbf16, #gpu.address_space<workgroup>>, %b : memref<160x128xbf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0, %c0] : memref<160x128xbf16, #gpu.address_space<workgroup>>
      memref.store %x, %b[%c0, %c0] : memref<160x128xbf16, #gpu.address_space<workgroup>>
      memref.store %x, %m[%c0] : memref<?xbf16>
      gpu.return
    }
    gpu.func @small(%m: memref<?xbf16>) workgroup(%a : memref<1024xbf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %a[%c0] : memref<1024xbf16, #gpu.address_space<workgroup>>
      memref.store %x, %m[%c0] : memref<?xbf16>
      gpu.return
    }
    gpu.func @odd(%h: memref<?xf16>) workgroup(%a : memref<3xi8, #gpu.address_space<workgroup>>, %b : memref<32768xf16, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %x = memref.load %b[%c0] : memref<32768xf16, #gpu.address_space<workgroup>>
      memref.store %x, %h[%c0] : memref<?xf16>
      gpu.return
    }
  }
}

// -----

// Past sm_86's 99 KiB opt-in limit: an error naming the sizes.
module attributes {gpu.container_module, tfm.target = #tfm.gpu_target<chip = "sm_86", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 82, opt_in_shared_memory_bytes = 101376>} {
  gpu.module @tfm_kernels {
    // expected-error @+1 {{-tfm-gpu-dynamic-shared-memory: the workgroup buffers take 131072 bytes, more than the 101376 bytes of shared memory a block of sm_86 may have}}
    gpu.func @huge(%m: memref<?xf32>) workgroup(%a : memref<32768xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

// Without a stated opt-in limit (a target from before it existed), 48 KiB
// is all a block may have; a module without a GPU target is left alone.
module attributes {gpu.container_module, tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
  gpu.module @tfm_kernels {
    // expected-error @+1 {{the workgroup buffers take 65536 bytes, more than the 49152 bytes}}
    gpu.func @big(%m: memref<?xf32>) workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}

// -----

// CHECK-LABEL: module attributes {gpu.container_module} {
// CHECK:         gpu.func @big(%{{.+}}: memref<?xf32>) workgroup
module attributes {gpu.container_module} {
  gpu.module @tfm_kernels {
    gpu.func @big(%m: memref<?xf32>) workgroup(%a : memref<16384xf32, #gpu.address_space<workgroup>>) kernel {
      gpu.return
    }
  }
}
