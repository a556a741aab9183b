// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-gpu-emulate | FileCheck %s

// A launch becomes block z, y, x then thread z, y, x loops; the ids are the
// loop variables and the sizes the launch's operands.
// The emulation is a function of its own, called where the launch was,
// whose arguments are the values the launch read from above (in the order
// it reads them): launches of equal kernels call equal functions, which
// -tfm-gpu-dedup-kernels merges.
// CHECK-LABEL: func.func @launch
// CHECK-SAME:    (%[[M0:.*]]: memref<?xindex>, %[[G0:.*]]: index, %[[B0:.*]]: index)
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    call @kernel(%[[B0]], %[[M0]], %[[G0]]) : (index, memref<?xindex>, index) -> ()
// CHECK-NEXT:    return
// CHECK:       func.func private @kernel
// CHECK-SAME:    (%[[B:.*]]: index, %[[M:.*]]: memref<?xindex>, %[[G:.*]]: index) attributes {tfm.emulated_kernel}
// The block's offset is the same for all its threads: computed once per
// block, outside the thread loops.
// CHECK:         scf.for %[[BZ:.*]] = %{{.*}} to %[[ONE:.*]] step
// CHECK:           scf.for %[[BY:.*]] = %{{.*}} to %[[ONE]] step
// CHECK:             scf.for %[[BX:.*]] = %{{.*}} to %[[G]] step
// CHECK:               %[[P:.*]] = arith.muli %[[BX]], %[[B]]
// CHECK:               scf.for {{.*}} to %[[ONE]] step
// CHECK:                 scf.for {{.*}} to %[[ONE]] step
// CHECK:                   scf.for %[[TX:.*]] = %{{.*}} to %[[B]] step
// CHECK:                     %[[I:.*]] = arith.addi %[[P]], %[[TX]]
// CHECK:                     memref.store %[[I]], %[[M]][%[[I]]]
// CHECK-NOT:   gpu.launch
func.func @launch(%m: memref<?xindex>, %g: index, %b: index) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %g, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %b, %sy = %c1, %sz = %c1) {
    %p = arith.muli %bx, %sx : index
    %i = arith.addi %p, %tx : index
    memref.store %i, %m[%i] : memref<?xindex>
    gpu.terminator
  }
  return
}

// -----

// A barrier cuts the threads' loops: every thread writes its slot of the
// workgroup buffer (NaN before: poisoned per block) before any thread reads
// its neighbour's. The thread's value `%v`, defined before the barrier and
// used after it, goes through a scratch slot indexed by the linear thread
// id.
// CHECK-LABEL: func.func @barrier
// CHECK:         %[[NT:.*]] = arith.muli
// CHECK:         %[[NT2:.*]] = arith.muli %[[NT]]
// CHECK:         %[[W:.*]] = memref.alloc() : memref<64xf32>
// CHECK:         %[[S:.*]] = memref.alloc(%[[NT2]]) : memref<?xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               scf.for %[[P:.*]] =
// CHECK:                 memref.store %cst{{.*}}, %[[W]][%[[P]]]
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   scf.for %[[TX:.*]] =
// CHECK:                     %[[V:.*]] = memref.load %{{.*}}[%[[TX]]]
// CHECK:                     memref.store %[[V]], %[[S]][%[[T:.*]]] : memref<?xf32>
// CHECK:                     memref.store %[[V]], %[[W]][%[[TX]]]
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   scf.for %[[TX2:.*]] =
// CHECK:                     memref.load %[[W]]
// CHECK:                     %[[V2:.*]] = memref.load %[[S]]
// CHECK:                     arith.addf %[[V2]]
// CHECK:         memref.dealloc %[[W]]
// CHECK:         memref.dealloc %[[S]]
// CHECK-NOT:   gpu.
func.func @barrier(%in: memref<64xf32>, %out: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c63 = arith.constant 63 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<64xf32, #gpu.address_space<workgroup>>) {
    %v = memref.load %in[%tx] : memref<64xf32>
    memref.store %v, %w[%tx] : memref<64xf32, #gpu.address_space<workgroup>>
    gpu.barrier
    %n = arith.subi %c63, %tx : index
    %u = memref.load %w[%n] : memref<64xf32, #gpu.address_space<workgroup>>
    %s = arith.addf %v, %u : f32
    memref.store %s, %out[%tx] : memref<64xf32>
    gpu.terminator
  }
  return
}

// -----

// A barrier in a loop with uniform bounds: the loop runs once per block
// around the thread loops; its carried value is per thread (a scratch slot
// copied in before, read and written in the body, read after).
// CHECK-LABEL: func.func @loop
// CHECK:         %[[ACC:.*]] = memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK:         scf.for
// CHECK:           scf.for
// CHECK:             scf.for %[[BX:.*]] =
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   scf.for
// CHECK:                     memref.store %{{.*}}, %[[ACC]]
// CHECK:               scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NOT:             iter_args
// CHECK:                 scf.for
// CHECK:                   scf.for
// CHECK:                     scf.for
// CHECK:                       memref.store
// CHECK:                 scf.for
// CHECK:                   scf.for
// CHECK:                     scf.for
// CHECK:                       memref.load %[[ACC]]
// CHECK:                       arith.addf
// CHECK:                       memref.store %{{.*}}, %[[ACC]]
// CHECK:               scf.for
// CHECK:                 scf.for
// CHECK:                   scf.for
// CHECK:                     %[[R:.*]] = memref.load %[[ACC]]
// CHECK:                     memref.store %[[R]], %arg2
func.func @loop(%in: memref<?x32xf32>, %out: memref<32xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<32xf32, #gpu.address_space<workgroup>>) {
    %r = scf.for %i = %c0 to %k step %c1 iter_args(%acc = %zero) -> f32 {
      %v = memref.load %in[%i, %tx] : memref<?x32xf32>
      memref.store %v, %w[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n = arith.subi %c32, %tx : index
      %m = arith.subi %n, %c1 : index
      %u = memref.load %w[%m] : memref<32xf32, #gpu.address_space<workgroup>>
      %a = arith.addf %acc, %u : f32
      gpu.barrier
      scf.yield %a : f32
    }
    memref.store %r, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return
}

// -----

// A barrier only some threads reach deadlocks a GPU; the emulation refuses.
func.func @divergent(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{holds a barrier but its bounds may differ between the threads}}
    scf.for %i = %c0 to %tx step %c1 {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

func.func @in_if(%p: i1) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{holds a barrier or a shuffle; the emulation runs them at the top level}}
    scf.if %p {
      gpu.barrier
    }
    gpu.terminator
  }
  return
}

// -----

// Shuffles are emulated across whole warps only (numerics:
// emulate-shuffle.mlir); other warp- and subgroup-level operations have no
// host emulation.
func.func @shuffle_width(%x: f32) {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : i32
  %o = arith.constant 1 : i32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{has a width other than a constant 32}}
    %r, %ok = gpu.shuffle xor %x, %o, %c16 : f32
    gpu.terminator
  }
  return
}

// -----

func.func @subgroup_reduce(%x: f32) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{has no host emulation}}
    %r = gpu.subgroup_reduce add %x : (f32) -> f32
    gpu.terminator
  }
  return
}

// -----

// Views of workgroup buffers (the attention tiles of
// -tfm-gpu-map-attention) lose the workgroup memory space with their
// buffer; a load every thread does alike from a buffer the kernel never
// writes (a key length) is uniform, so a loop bounded by it may hold a
// barrier (the kernel writes only a buffer the function allocated: two
// function arguments might alias).
// CHECK-LABEL: func.func @views_and_uniform_load
// CHECK:         %[[W:.*]] = memref.alloc() : memref<4x8xf32>
// CHECK:         scf.for %[[BZ:.*]] =
// CHECK:           scf.for
// CHECK:             scf.for
// CHECK:               %[[FLAT:.*]] = memref.collapse_shape %[[W]] {{\[}}[0, 1]] : memref<4x8xf32> into memref<32xf32>
// CHECK:               %[[LEN:.*]] = memref.load %arg1[%[[BZ]]] : memref<?xindex>
// CHECK:               scf.for %{{.*}} = %{{.*}} to %[[LEN]] step
// CHECK:                 scf.for
// CHECK:                   scf.for
// CHECK:                     scf.for
// CHECK:                       memref.store %{{.*}}, %[[FLAT]]
// CHECK-NOT: #gpu.address_space
func.func @views_and_uniform_load(%len: memref<?xindex>, %b: index) -> memref<32xf32> {
  %out = memref.alloc() : memref<32xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %one = arith.constant 1.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %b)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<4x8xf32, #gpu.address_space<workgroup>>) {
    %flat = memref.collapse_shape %w [[0, 1]] : memref<4x8xf32, #gpu.address_space<workgroup>> into memref<32xf32, #gpu.address_space<workgroup>>
    %n = memref.load %len[%bz] : memref<?xindex>
    scf.for %i = %c0 to %n step %c1 {
      memref.store %one, %flat[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
    }
    %v = memref.load %flat[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
    memref.store %v, %out[%tx] : memref<32xf32>
    gpu.terminator
  }
  return %out : memref<32xf32>
}

// -----

// A load from a buffer the kernel writes may differ between threads (one
// may store before another loads): a loop it bounds may not hold a barrier.
func.func @written_load(%len: memref<?xindex>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    %n = memref.load %len[%c0] : memref<?xindex>
    // expected-error @+1 {{holds a barrier but its bounds may differ between the threads}}
    scf.for %i = %c0 to %n step %c1 {
      gpu.barrier
    }
    memref.store %c0, %len[%tx] : memref<?xindex>
    gpu.terminator
  }
  return
}

// -----

// A workgroup buffer handed to an op other than a load, a store or a view
// (a copy) has no host model.
func.func @workgroup_copy(%m: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<4xf32, #gpu.address_space<workgroup>>) {
    // expected-error @+1 {{uses a workgroup buffer other than by loads, stores and views}}
    memref.copy %m, %w : memref<4xf32> to memref<4xf32, #gpu.address_space<workgroup>>
    gpu.terminator
  }
  return
}

// -----

// A loop whose body reads shared memory after its last barrier and writes
// it before its first: on a GPU a fast thread's next-iteration store can
// overwrite what a slow thread still reads (the GEMM k loop without its
// closing barrier). The emulation would order them; it refuses instead.
func.func @missing_back_edge_barrier(%in: memref<?x32xf32>, %out: memref<32xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%w : memref<32xf32, #gpu.address_space<workgroup>>) {
    // expected-error @+1 {{uses shared memory after its last barrier and again, one of them writing, before its first}}
    scf.for %i = %c0 to %k step %c1 {
      %v = memref.load %in[%i, %tx] : memref<?x32xf32>
      memref.store %v, %w[%tx] : memref<32xf32, #gpu.address_space<workgroup>>
      gpu.barrier
      %n = arith.subi %c32, %tx : index
      %m = arith.subi %n, %c1 : index
      %u = memref.load %w[%m] : memref<32xf32, #gpu.address_space<workgroup>>
      memref.store %u, %out[%tx] : memref<32xf32>
    }
    gpu.terminator
  }
  return
}

// -----

// mma.sync takes every lane of whole warps; the emulation models 16-bit
// m16n8k16 products into f32 only.
func.func @mma_partial_warp(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) {
  %c1 = arith.constant 1 : index
  %c48 = arith.constant 48 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c48, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{runs in a block that is not a constant number of whole warps}}
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    gpu.terminator
  }
  return
}

// -----

func.func @mma_f16_accumulator(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{has no host emulation: the emulation models m16n8k16 products of bf16 or f16 into f32}}
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
    gpu.terminator
  }
  return
}

// -----

// cp.async: each copy is done at once by its thread, element by element,
// the first `srcElements` read and the rest zero; groups and waits go.
// CHECK-LABEL: func.func @async_copy
// CHECK-NOT:     nvgpu.
// CHECK:         scf.for
// CHECK:           arith.cmpi slt, %c0{{.*}}, %[[N:.*]] : index
// CHECK:           scf.if
// CHECK:             memref.load %arg1
// CHECK:           } else {
// CHECK:             scf.yield %cst
// CHECK:           memref.store
// CHECK-COUNT-3:   memref.store
// CHECK-NOT:     nvgpu.
func.func @async_copy(%src: memref<4x8xbf16>, %n: index) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1)
             workgroup(%tile : memref<4x8xbf16, #gpu.address_space<workgroup>>) {
    %row = arith.remui %tx, %c1 : index
    %t = nvgpu.device_async_copy %src[%row, %c0], %tile[%row, %c0], 4, %n : memref<4x8xbf16> to memref<4x8xbf16, #gpu.address_space<workgroup>>
    %g = nvgpu.device_async_create_group %t
    nvgpu.device_async_wait %g {numGroups = 0 : i32}
    gpu.barrier
    gpu.terminator
  }
  return
}

// -----

func.func @ldmatrix_32bit(%tile: memref<16x16xf32, #gpu.address_space<workgroup>>) {
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %c0 = arith.constant 0 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{has no host emulation: the emulation models ldmatrix of 16-bit 8 x 8 matrices}}
    %f = nvgpu.ldmatrix %tile[%tx, %c0] {numTiles = 4 : i32, transpose = false} : memref<16x16xf32, #gpu.address_space<workgroup>> -> vector<4x1xf32>
    gpu.terminator
  }
  return
}
