// RUN: tfm-opt %s -tfm-cpu-unroll-kernels -split-input-file | FileCheck %s
// RUN: tfm-opt %s -tfm-cpu-unroll-kernels="factor=2" -split-input-file | FileCheck %s --check-prefix=TWO
// RUN: tfm-opt %s -tfm-cpu-unroll-kernels="factor=1" -split-input-file | FileCheck %s --check-prefix=OFF
// RUN: tfm-opt %s -tfm-cpu-unroll-kernels -split-input-file -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS
// RUN: not tfm-opt %s -tfm-cpu-unroll-kernels="factor=0" -split-input-file 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: -tfm-cpu-unroll-kernels: factor must be 1 or more, got 0

// A register kernel's k loop (one 8 x 32 accumulator carried, B's row k
// read each step), 192 steps: unrolled by 4, four rows read per
// iteration (k, k + 1, k + 2, k + 3), 48 iterations, no epilogue.
// CHECK-LABEL: func.func @kernel
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[K:[^ ]*]] = %{{.*}} to %{{.*}} step %[[C4]] iter_args
// CHECK: vector.transfer_read %arg1[%[[K]], %{{.*}}]
// CHECK: %[[K1:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: vector.transfer_read %arg1[%[[K1]], %{{.*}}]
// CHECK: %[[K2:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: vector.transfer_read %arg1[%[[K2]], %{{.*}}]
// CHECK: %[[K3:.*]] = arith.addi %[[K]], %{{.*}}
// CHECK: vector.transfer_read %arg1[%[[K3]], %{{.*}}]
// CHECK-NOT: vector.transfer_read %arg1
// CHECK: scf.yield
// CHECK-NOT: scf.for
// CHECK: return
// TWO-LABEL: func.func @kernel
// TWO: scf.for {{.*}} step %c2
// TWO-COUNT-2: vector.transfer_read %arg1
// TWO-NOT: vector.transfer_read %arg1
// OFF-LABEL: func.func @kernel
// OFF: scf.for {{.*}} step %c1
// OFF-COUNT-1: vector.transfer_read %arg1
// OFF-NOT: vector.transfer_read %arg1
// Statistics, one per function below.
// STATS: CpuUnrollKernelsPass
// STATS-NEXT: (S) 1 unrolled
// STATS: CpuUnrollKernelsPass
// STATS-NEXT: (S) 1 unrolled
// STATS: CpuUnrollKernelsPass
// STATS-NEXT: (S) 0 unrolled
func.func @kernel(%a: memref<8x192xf32>, %b: memref<192x32xf32>, %acc: vector<8x32xf32>) -> vector<8x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c192 = arith.constant 192 : index
  %cst = arith.constant 0.0 : f32
  %r = scf.for %k = %c0 to %c192 step %c1 iter_args(%arg = %acc) -> (vector<8x32xf32>) {
    %x = vector.transfer_read %a[%c0, %k], %cst {in_bounds = [true, true]} : memref<8x192xf32>, vector<8x1xf32>
    %y = vector.transfer_read %b[%k, %c0], %cst {in_bounds = [true, true]} : memref<192x32xf32>, vector<1x32xf32>
    %s = vector.contract {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %x, %y, %arg : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
    scf.yield %s : vector<8x32xf32>
  }
  return %r : vector<8x32xf32>
}

// -----

// A dynamic count (a decode step's key block): unrolled by 4, and an
// epilogue loop takes the last count mod 4 steps.
// CHECK-LABEL: func.func @dynamic
// CHECK: scf.for {{.*}} step %{{.*}} iter_args
// CHECK-COUNT-4: vector.load
// CHECK: scf.yield
// CHECK: scf.for {{.*}} iter_args
// CHECK-COUNT-1: vector.load
// CHECK: scf.yield
func.func @dynamic(%v: memref<?x32xf32>, %t: index, %acc: vector<32xf32>) -> vector<32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %k = %c0 to %t step %c1 iter_args(%arg = %acc) -> (vector<32xf32>) {
    %y = vector.load %v[%k, %c0] : memref<?x32xf32>, vector<32xf32>
    %s = vector.fma %y, %y, %arg : vector<32xf32>
    scf.yield %s : vector<32xf32>
  }
  return %r : vector<32xf32>
}

// -----

// Left alone: an AMX tile kernel's loop (unrolled, a bf16 GEMM ran 5 %
// slower), a loop that carries a scalar beside its vector (no kernel), a
// loop of fewer static steps (2) than the factor, and a vectorized row
// maximum (no multiply-add: unrolled, such loops made AMX attention
// slower).
// CHECK-LABEL: func.func @left_alone
// CHECK: scf.for {{.*}} step %c16
// CHECK-COUNT-1: amx.tile_load
// CHECK: scf.for {{.*}} step %c1
// CHECK-COUNT-1: vector.load
// CHECK: scf.for {{.*}} step %c1
// CHECK-COUNT-1: vector.load
// CHECK: scf.for {{.*}} step %c1
// CHECK-COUNT-1: vector.load
// CHECK-NOT: vector.load
// CHECK: return
func.func @left_alone(%wp: memref<4x384x16x2xbf16>, %c: !amx.tile<16x16xf32>, %v: memref<192x16xf32>, %acc: vector<16xf32>) -> (!amx.tile<16x16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c192 = arith.constant 192 : index
  %c384 = arith.constant 384 : index
  %cst = arith.constant 0.0 : f32
  %t = scf.for %k = %c0 to %c384 step %c16 iter_args(%x = %c) -> (!amx.tile<16x16xf32>) {
    %b = amx.tile_load %wp[%c0, %k, %c0, %c0], %c32 : memref<4x384x16x2xbf16> into !amx.tile<16x32xbf16>
    %y = amx.tile_mulf %b, %b, %x : !amx.tile<16x32xbf16>, !amx.tile<16x32xbf16>, !amx.tile<16x16xf32>
    scf.yield %y : !amx.tile<16x16xf32>
  }
  %m:2 = scf.for %k = %c0 to %c192 step %c1 iter_args(%x = %acc, %z = %cst) -> (vector<16xf32>, f32) {
    %y = vector.load %v[%k, %c0] : memref<192x16xf32>, vector<16xf32>
    %s = vector.fma %y, %y, %x : vector<16xf32>
    scf.yield %s, %z : vector<16xf32>, f32
  }
  %n = scf.for %k = %c0 to %c2 step %c1 iter_args(%x = %acc) -> (vector<16xf32>) {
    %y = vector.load %v[%k, %c0] : memref<192x16xf32>, vector<16xf32>
    %s = vector.fma %y, %y, %x : vector<16xf32>
    scf.yield %s : vector<16xf32>
  }
  %q = scf.for %k = %c0 to %c192 step %c1 iter_args(%x = %acc) -> (vector<16xf32>) {
    %y = vector.load %v[%k, %c0] : memref<192x16xf32>, vector<16xf32>
    %s = arith.maximumf %x, %y : vector<16xf32>
    scf.yield %s : vector<16xf32>
  }
  return %t, %m#0, %n, %q : !amx.tile<16x16xf32>, vector<16xf32>, vector<16xf32>, vector<16xf32>
}
