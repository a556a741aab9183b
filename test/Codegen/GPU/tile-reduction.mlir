// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-reduction))" | FileCheck %s

// A softmax's row maximum over [b, h, q, k] (k reduced): one block per
// (b, h, q), 64 threads; each folds elements tid, tid + 64, ... with the
// payload from -inf, then one pairwise step in shared memory (64 -> 32
// slots) and a barrier, then the last 32 in registers: a butterfly of five
// xor shuffles across the warp; thread 0 folds the total into the output.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME:    (%[[X:.*]]: memref<2x?x5x?xf32>, %[[O:.*]]: memref<2x?x5xf32>)
// CHECK:         %[[ROWS:.*]] = arith.muli %{{.*}}, %c5
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[ROWS]], %{{[a-z0-9_]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9_]+}} = %c1{{[_0-9]*}})
// CHECK-SAME:      threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c64{{[_0-9]*}},
// CHECK-SAME:      workgroup(%[[P:.*]] : memref<64xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[Q:.*]] = arith.remui %[[BX]], %c5
// CHECK:           %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:           %[[PART:.*]] = scf.for %[[K:.*]] = %[[TX]] to %{{.*}} step %c64{{[_0-9]*}} iter_args(%[[ACC:.*]] = %[[NINF]])
// CHECK:             %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[Q]], %[[K]]]
// CHECK:             %[[M:.*]] = arith.maximumf %[[V]], %[[ACC]]
// CHECK:             scf.yield %[[M]]
// CHECK:           memref.store %[[PART]], %[[P]][%[[TX]]]
// CHECK-NEXT:      gpu.barrier
// CHECK:           arith.cmpi ult, %[[TX]], %c32
// CHECK:           gpu.barrier
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[W:.*]] = memref.load %[[P]][%[[TX]]]
// CHECK:           %[[S16:.*]], %{{.*}} = gpu.shuffle  xor %[[W]], %c16_i32, %c32_i32 : f32
// CHECK:           arith.maximumf %[[S16]], %[[W]]
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           %[[TOT:.*]] = arith.maximumf
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %c0
// CHECK:           scf.if %[[FIRST]] {
// CHECK:             %[[INIT:.*]] = memref.load %[[O]]
// CHECK:             %[[R:.*]] = arith.maximumf %[[TOT]], %[[INIT]]
// CHECK:             memref.store %[[R]], %[[O]]
// CHECK-NOT:     linalg.generic
func.func @row_max(%x: memref<2x?x5x?xf32>, %o: memref<2x?x5xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, h, q, k) -> (b, h, q, k)>, affine_map<(b, h, q, k) -> (b, h, q)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<2x?x5x?xf32>) outs(%o : memref<2x?x5xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 64>} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// A block of less than a warp (a configuration written by hand) combines
// in shared memory only, one tree step per halving (a shuffle needs the
// whole warp): threads below the stride combine their slot with the one a
// stride above.
// CHECK-LABEL: func.func @step
// CHECK:         %[[LOW:.*]] = arith.cmpi ult, %[[T:.*]], %c1{{[_0-9]*}}
// CHECK:         scf.if %[[LOW]]
// CHECK:           %[[A:.*]] = memref.load %[[P:.*]][%[[T]]]
// CHECK:           %[[U:.*]] = arith.addi %[[T]], %c1
// CHECK:           %[[B:.*]] = memref.load %[[P]][%[[U]]]
// CHECK:           %[[S:.*]] = arith.addf %[[A]], %[[B]]
// CHECK:           memref.store %[[S]], %[[P]][%[[T]]]
// CHECK:         gpu.barrier
func.func @step(%x: memref<4x?xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x?xf32>) outs(%o : memref<4xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 2>} {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  return
}

// -----

func.func @not_reduction(%a: memref<8x8xf32>) {
  // expected-error @+1 {{carries #tfm.gpu_reduction<threads = 32> but is not a row reduction the kernel takes}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x8xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 32>} {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// expected-error @+1 {{'threads' must be a power of two}}
func.func @bad_threads() attributes {x = #tfm.gpu_reduction<threads = 48>} {
  return
}
