// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-reduction))" | FileCheck %s

// A softmax's row maximum over [b, h, q, k] (k reduced): one block per
// (b, h, q), 64 threads; every thread reads the output's initial value,
// folds elements tid, tid + 64, ... with the payload from -inf, combines
// its warp's 32 partial results with a butterfly of five xor shuffles; lane
// 0 of each warp writes the warp's total to its slot; after a barrier every
// thread combines the two slots and the initial value; thread 0 writes it.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME:    (%[[X:.*]]: memref<2x?x5x?xf32>, %[[O:.*]]: memref<2x?x5xf32>)
// CHECK:         %[[ROWS:.*]] = arith.muli %{{.*}}, %c5
// CHECK:         gpu.launch blocks(%[[BX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %[[ROWS]], %{{[a-z0-9_]+}} = %c1{{[_0-9]*}}, %{{[a-z0-9_]+}} = %c1{{[_0-9]*}})
// CHECK-SAME:      threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c64{{[_0-9]*}},
// CHECK-SAME:      workgroup(%[[P:.*]] : memref<2xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[Q:.*]] = arith.remui %[[BX]], %c5
// CHECK:           %[[INIT:.*]] = memref.load %[[O]]
// CHECK:           %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK:           %[[PART:.*]] = scf.for %[[K:.*]] = %[[TX]] to %{{.*}} step %c64{{[_0-9]*}} iter_args(%[[ACC:.*]] = %[[NINF]])
// CHECK:             %[[V:.*]] = memref.load %[[X]][%{{.*}}, %{{.*}}, %[[Q]], %[[K]]]
// CHECK:             %[[M:.*]] = arith.maximumf %[[V]], %[[ACC]]
// CHECK:             scf.yield %[[M]]
// CHECK:           %[[S16:.*]], %{{.*}} = gpu.shuffle  xor %[[PART]], %c16_i32, %c32_i32 : f32
// CHECK:           arith.maximumf %[[S16]], %[[PART]]
// CHECK-COUNT-4:   gpu.shuffle  xor
// CHECK:           %[[WARP:.*]] = arith.maximumf
// CHECK:           %[[LANE:.*]] = arith.remui %[[TX]], %c32
// CHECK:           %[[LANE0:.*]] = arith.cmpi eq, %[[LANE]], %c0
// CHECK:           scf.if %[[LANE0]] {
// CHECK:             %[[W:.*]] = arith.divui %[[TX]], %c32
// CHECK:             memref.store %[[WARP]], %[[P]][%[[W]]]
// CHECK:           gpu.barrier
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[P0:.*]] = memref.load %[[P]][%c0
// CHECK:           %[[P1:.*]] = memref.load %[[P]][%c1
// CHECK:           %[[TOT:.*]] = arith.maximumf %[[P1]], %[[P0]]
// CHECK:           %[[R:.*]] = arith.maximumf %[[TOT]], %[[INIT]]
// CHECK:           %[[FIRST:.*]] = arith.cmpi eq, %[[TX]], %c0
// CHECK:           scf.if %[[FIRST]] {
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
// in shared memory only (a shuffle needs the whole warp): every thread
// writes its slot, and after a barrier every thread adds the slots in
// order.
// CHECK-LABEL: func.func @step
// CHECK:         gpu.launch {{.*}} workgroup(%[[P:.*]] : memref<2xf32, #gpu.address_space<workgroup>>)
// CHECK-NOT:       gpu.shuffle
// CHECK:           %[[PART:.*]] = scf.for
// CHECK:           memref.store %[[PART]], %[[P]][%[[T:.*]]]
// CHECK-NEXT:      gpu.barrier
// CHECK:           %[[A:.*]] = memref.load %[[P]][%c0
// CHECK:           %[[B:.*]] = memref.load %[[P]][%c1
// CHECK:           arith.addf %[[A]], %[[B]]
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

// -----

// A layer norm whose rows of 3072 stay in registers: one kernel for the
// mean, the variance and the normalization (stages 1 and 2), 256 threads,
// each with three 128-bit vectors of x (elements 4t, 4(t + 256), ...)
// loaded once for all three stages; both initial values read before any
// barrier; the variance and the normalization read the statistics from
// registers, not from %sum/%var (which thread 0 still writes); the
// normalization stores 4 results at a time.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME:    (%[[X:.*]]: memref<?x3072xf32>, %[[G:.*]]: memref<3072xf32>, %[[SUM:.*]]: memref<?xf32>, %[[VAR:.*]]: memref<?xf32>, %[[Y:.*]]: memref<?x3072xf32>)
// CHECK:         gpu.launch
// CHECK-SAME:      threads(%[[TX:[a-z0-9_]+]], %{{[a-z0-9_]+}}, %{{[a-z0-9_]+}}) in (%{{[a-z0-9_]+}} = %c256
// CHECK-SAME:      workgroup(%[[P0:.*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[P1:.*]] : memref<8xf32, #gpu.address_space<workgroup>>)
// CHECK-DAG:       %[[S0:.*]] = memref.load %[[SUM]]
// CHECK-DAG:       %[[V0:.*]] = memref.load %[[VAR]]
// CHECK-NOT:       gpu.barrier
// CHECK:           %[[T4:.*]] = arith.muli %[[TX]], %c4
// CHECK:           vector.load %[[X]][%{{.*}}, %[[T4]]] {alignment = 16 : i64} : memref<?x3072xf32>, vector<4xf32>
// CHECK:           %[[K1:.*]] = arith.addi %{{.*}}, %c1024
// CHECK:           vector.load %[[X]][%{{.*}}, %[[K1]]]
// CHECK:           %[[K2:.*]] = arith.addi %{{.*}}, %c2048
// CHECK:           vector.load %[[X]][%{{.*}}, %[[K2]]]
// CHECK-NOT:       memref.load %[[X]]
// CHECK-NOT:       vector.load %[[X]]
// CHECK:           gpu.barrier
// CHECK:           %[[MEAN:.*]] = arith.addf %[[S0]], %{{.*}} : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[MEAN]], %[[SUM]]
// CHECK-NOT:       memref.load %[[SUM]]
// CHECK:           arith.divf %[[MEAN]]
// CHECK:           gpu.barrier
// CHECK:           %[[VV:.*]] = arith.addf %[[V0]], %{{.*}} : f32
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[VV]], %[[VAR]]
// CHECK-NOT:       gpu.barrier
// CHECK-NOT:       memref.load %[[VAR]]
// CHECK:           vector.load %[[G]]
// CHECK:           %[[OUT:.*]] = vector.from_elements
// CHECK:           vector.store %[[OUT]], %[[Y]]{{.*}} {alignment = 16 : i64}
// CHECK-COUNT-2:   vector.store %{{.*}}, %[[Y]]
// CHECK:           gpu.terminator
// CHECK-NOT:     linalg.generic
#row = affine_map<(i, j) -> (i, j)>
#stat = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
func.func @layer_norm(%x: memref<?x3072xf32>, %g: memref<3072xf32>, %sum: memref<?xf32>, %var: memref<?xf32>, %y: memref<?x3072xf32>) {
  %n = arith.constant 3072.0 : f32
  linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x3072xf32>) outs(%sum : memref<?xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 256, stages = 3>} {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#row, #stat, #stat], iterator_types = ["parallel", "reduction"]}
      ins(%x, %sum : memref<?x3072xf32>, memref<?xf32>) outs(%var : memref<?xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %out, %d2 : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#row, #stat, #stat, #col, #row], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum, %var, %g : memref<?x3072xf32>, memref<?xf32>, memref<?xf32>, memref<3072xf32>) outs(%y : memref<?x3072xf32>)
      attrs = {tfm.row_kernel_stage = 2} {
  ^bb0(%in: f32, %s: f32, %v: f32, %gj: f32, %out: f32):
    %m = arith.divf %s, %n : f32
    %vm = arith.divf %v, %n : f32
    %r = math.rsqrt %vm : f32
    %d = arith.subf %in, %m : f32
    %q = arith.mulf %d, %r : f32
    %w = arith.mulf %q, %gj : f32
    linalg.yield %w : f32
  }
  return
}

// -----

// RMSNorm over rows of 302 (static, not a multiple of 4: scalar
// registers, two per thread, the second past the row for threads 46 and
// up: its load is clamped to element 301 and its value dropped by a
// select in the sum and by a guard on the store).
// CHECK-LABEL: func.func @rms_tail
// CHECK:         gpu.launch
// CHECK-NOT:       vector.
// CHECK:           %[[T2:.*]] = arith.addi %{{.*}}, %c256
// CHECK:           %[[IN:.*]] = arith.cmpi ule, %[[T2]], %c301
// CHECK:           %[[K2:.*]] = arith.minui %[[T2]], %c301
// CHECK:           memref.load %{{.*}}[%{{.*}}, %[[K2]]]
// CHECK:           arith.select %[[IN]]
// CHECK:           gpu.shuffle
// CHECK:           %[[IN2:.*]] = arith.cmpi ule, %{{.*}}, %c301
// CHECK:           scf.if %[[IN2]] {
// CHECK:             memref.store
func.func @rms_tail(%x: memref<?x302xf32>, %ss: memref<?xf32>, %y: memref<?x302xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x302xf32>) outs(%ss : memref<?xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 256, stages = 2>} {
  ^bb0(%in: f32, %out: f32):
    %sq = arith.mulf %in, %in : f32
    %a = arith.addf %out, %sq : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %ss : memref<?x302xf32>, memref<?xf32>) outs(%y : memref<?x302xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = math.rsqrt %s : f32
    %q = arith.mulf %in, %r : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// A dynamic row length: every stage loops over the thread's elements and
// loads them again (from cache on a GPU).
// CHECK-LABEL: func.func @softmax_dynamic
// CHECK:         gpu.launch
// CHECK:           scf.for
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:           gpu.barrier
// CHECK:           scf.for
// CHECK:             math.exp
// CHECK:             arith.divf
// CHECK:             memref.store
func.func @softmax_dynamic(%x: memref<?x?xf32>, %mx: memref<?xf32>, %den: memref<?xf32>, %y: memref<?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32>) outs(%mx : memref<?xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 256, stages = 3>} {
  ^bb0(%in: f32, %out: f32):
    %a = arith.maximumf %in, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mx : memref<?x?xf32>, memref<?xf32>) outs(%den : memref<?xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %a = arith.addf %out, %e : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mx, %den : memref<?x?xf32>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>)
      attrs = {tfm.row_kernel_stage = 2} {
  ^bb0(%in: f32, %m: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %e = math.exp %d : f32
    %q = arith.divf %e, %s : f32
    linalg.yield %q : f32
  }
  return
}

// -----

// Stages that are not what the kernel can run: the normalization writes x,
// which the reduction reads.
func.func @bad_stage(%x: memref<4x32xf32>, %ss: memref<4xf32>) {
  // expected-error @+1 {{asks for 2 stages, but the ops after it marked tfm.row_kernel_stage 1, 2, ... are not 1 ops that can run on its rows in its kernel}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x32xf32>) outs(%ss : memref<4xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 32, stages = 2>} {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%ss : memref<4xf32>) outs(%x : memref<4x32xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%s: f32, %out: f32):
    %q = arith.divf %out, %s : f32
    linalg.yield %q : f32
  }
  return
}

// -----

func.func @stray_stage(%x: memref<4x32xf32>) {
  // expected-error @+1 {{carries tfm.row_kernel_stage but follows no row reduction whose kernel runs it}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%x : memref<4x32xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// expected-error @+1 {{'stages' must be positive}}
func.func @bad_stages() attributes {x = #tfm.gpu_reduction<threads = 32, stages = 0>} {
  return
}

// -----

// Two row kernels whose ops interleave (the second's reduction between
// the first's, the first's normalization between the second's): the
// first kernel is built where its last stage was, and the second's stages
// move down past it (it touches none of their buffers).
// CHECK-LABEL: func.func @interleaved
// CHECK-SAME:    (%[[A:.*]]: memref<4x64xf32>, %[[B:.*]]: memref<4x64xf32>, %[[SA:.*]]: memref<4xf32>, %[[SB:.*]]: memref<4xf32>, %[[YA:.*]]: memref<4x64xf32>, %[[YB:.*]]: memref<4x64xf32>)
// CHECK:         gpu.launch
// CHECK:           vector.load %[[A]]
// CHECK:           vector.store %{{.*}}, %[[YA]]
// CHECK:         gpu.launch
// CHECK:           vector.load %[[B]]
// CHECK:           vector.store %{{.*}}, %[[YB]]
// CHECK-NOT:     linalg.generic
func.func @interleaved(%a: memref<4x64xf32>, %b: memref<4x64xf32>, %sa: memref<4xf32>, %sb: memref<4xf32>, %ya: memref<4x64xf32>, %yb: memref<4x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%a : memref<4x64xf32>) outs(%sa : memref<4xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 64, stages = 2>} {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%b : memref<4x64xf32>) outs(%sb : memref<4xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 64, stages = 2>} {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %out, %in : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%a, %sa : memref<4x64xf32>, memref<4xf32>) outs(%ya : memref<4x64xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%b, %sb : memref<4x64xf32>, memref<4xf32>) outs(%yb : memref<4x64xf32>)
      attrs = {tfm.row_kernel_stage = 1} {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.divf %in, %s : f32
    linalg.yield %q : f32
  }
  return
}
