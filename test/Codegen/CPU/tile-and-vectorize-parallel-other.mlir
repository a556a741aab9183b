// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{threads=2 vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576},func.func(tfm-cpu-configure,tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576 threads=2},func.func(tfm-cpu-configure{elementwise=true},tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s --check-prefix=VEC
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576 threads=2},func.func(tfm-cpu-configure{parallel-block-bytes=65536},tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s --check-prefix=BIG
// RUN: tfm-opt %s -split-input-file -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576 threads=1},func.func(tfm-cpu-configure{elementwise=true},tfm-tile-and-vectorize),canonicalize,cse)' | FileCheck %s --check-prefix=SERIAL
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=32768 l2-bytes=1048576 threads=2},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS

// With `parallel`, the non-contraction ops that no loop encloses are split
// into scf.forall row blocks over their outer parallel loops; the innermost
// loop and the reductions stay whole in a block. A block holds
// ceil(l1-bytes / row bytes) rows (parallel-block-bytes overrides l1-bytes).
// Without `parallel` nothing is split (the one forall is @in_forall's own).
// SERIAL-NOT: scf.forall (
// SERIAL: func.func @in_forall
// SERIAL: scf.forall (
// SERIAL-NOT: scf.forall (

// The mean of a layer norm over dynamic batch x tokens: a row is 768 inputs
// and one output, 3076 bytes, so 11 rows per block (22 with 64 KiB); the
// reduction over 768 stays in the block.
// CHECK-LABEL: func.func @layer_norm_mean
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x768xf32>, %[[ACC:.*]]: tensor<?x?xf32>)
// CHECK: scf.forall (%[[B:.*]], %[[T:.*]]) = (0, 0) to (%{{.*}}, %{{.*}}) step (1, 11) shared_outs(%[[O:.*]] = %[[ACC]])
// CHECK:   %[[N:.*]] = affine.min
// CHECK:   %[[XS:.*]] = tensor.extract_slice %[[X]][%[[B]], %[[T]], 0] [1, %[[N]], 768] [1, 1, 1]
// CHECK:   %[[OS:.*]] = tensor.extract_slice %[[O]][%[[B]], %[[T]]] [1, %[[N]]] [1, 1]
// CHECK:   %[[R:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}} ins(%[[XS]] : tensor<1x?x768xf32>) outs(%[[OS]] : tensor<1x?xf32>)
// CHECK:   scf.forall.in_parallel
// CHECK:     tensor.parallel_insert_slice %[[R]] into %[[O]][%[[B]], %[[T]]] [1, %[[N]]] [1, 1]
// BIG-LABEL: func.func @layer_norm_mean
// BIG: scf.forall {{.*}} step (1, 22)
// With `elementwise`, the block's rows are then reduced 32 lanes at a time.
// VEC-LABEL: func.func @layer_norm_mean
// VEC: scf.forall {{.*}} step (1, 11)
// VEC:   scf.for
// VEC:     scf.for %{{.*}} = %c0 to %c768 step %c32
// VEC:       vector.multi_reduction <add>, %{{.*}} [0] : vector<32xf32> to f32
// VEC:   scf.forall.in_parallel
func.func @layer_norm_mean(%x: tensor<?x?x768xf32>, %acc: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x?x768xf32>) outs(%acc : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A fill that only initializes the accumulator of the mean is not split by
// itself: each block fills its own slice (one parallel region, not two).
// CHECK-LABEL: func.func @mean_with_fill
// CHECK: %[[ZERO:.*]] = arith.constant 0.0
// CHECK: %[[EMPTY:.*]] = tensor.empty
// CHECK-NOT: linalg.fill
// CHECK: scf.forall {{.*}} step (1, 11) shared_outs(%[[O:.*]] = %[[EMPTY]])
// CHECK:   %[[OS:.*]] = tensor.extract_slice %[[O]]
// CHECK:   %[[F:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[OS]] : tensor<1x?xf32>)
// CHECK:   linalg.generic {{.*}} outs(%[[F]] : tensor<1x?xf32>)
func.func @mean_with_fill(%x: tensor<?x?x768xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %d0 = tensor.dim %x, %c0 : tensor<?x?x768xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x768xf32>
  %empty = tensor.empty(%d0, %d1) : tensor<?x?xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%empty : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t)>], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x : tensor<?x?x768xf32>) outs(%acc : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

// -----

// A fill that the op also reads as an input stays a loop of its own.
// CHECK-LABEL: func.func @fill_read_twice
// CHECK: %[[F:.*]] = scf.forall
// CHECK:   linalg.fill
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[F]])
// CHECK-NOT: linalg.fill
// CHECK: return
func.func @fill_read_twice(%x: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %d0 = tensor.dim %x, %c0 : tensor<?x768xf32>
  %empty = tensor.empty(%d0) : tensor<?x768xf32>
  %f = linalg.fill ins(%one : f32) outs(%empty : tensor<?x768xf32>) -> tensor<?x768xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(t, d) -> (t, d)>, affine_map<(t, d) -> (t, d)>], iterator_types = ["parallel", "parallel"]}
      ins(%f : tensor<?x768xf32>) outs(%f : tensor<?x768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<?x768xf32>
  return %r : tensor<?x768xf32>
}

// -----

// Bias + activation with dynamic rows: a row is 3 x 3072 floats (36 KiB,
// more than a block), so every (batch, token) row is a block.
// CHECK-LABEL: func.func @bias_tanh
// CHECK: scf.forall (%[[B:.*]], %[[T:.*]]) in (%{{.*}}, %{{.*}}) shared_outs(%[[O:.*]] = %{{.*}})
// CHECK:   linalg.generic {{.*}} outs(%{{.*}} : tensor<1x1x3072xf32>)
// CHECK:     math.tanh
// CHECK:   tensor.parallel_insert_slice %{{.*}} into %[[O]][%[[B]], %[[T]], 0] [1, 1, 3072] [1, 1, 1]
// VEC-LABEL: func.func @bias_tanh
// VEC: scf.forall
// VEC:   scf.for %{{.*}} = %c0 to %c3072 step %c32
// VEC:     math.tanh %{{.*}} : vector<32xf32>
func.func @bias_tanh(%x: tensor<?x?x3072xf32>, %b: tensor<3072xf32>, %y: tensor<?x?x3072xf32>) -> tensor<?x?x3072xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (d)>, affine_map<(b, t, d) -> (b, t, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : tensor<?x?x3072xf32>, tensor<3072xf32>) outs(%y : tensor<?x?x3072xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  } -> tensor<?x?x3072xf32>
  return %r : tensor<?x?x3072xf32>
}

// -----

// Heads back to tokens, static: a row of the innermost split loop (tokens)
// is 12 x 64 floats in and out (6 KiB), so blocks of 6 tokens, rounded up
// to 8, which divides 128: full blocks of a static size.
// CHECK-LABEL: func.func @merge_heads
// CHECK: scf.forall (%[[B:.*]], %[[T:.*]]) = (0, 0) to (2, 128) step (1, 8)
// CHECK:   tensor.extract_slice %{{.*}}[%[[B]], 0, %[[T]], 0] [1, 12, 8, 64] [1, 1, 1, 1] : tensor<2x12x128x64xf32> to tensor<1x12x8x64xf32>
// CHECK:   } -> tensor<1x8x12x64xf32>
// CHECK:   tensor.parallel_insert_slice {{.*}} [1, 8, 12, 64] [1, 1, 1, 1]
func.func @merge_heads(%x: tensor<2x12x128x64xf32>, %y: tensor<2x128x12x64xf32>) -> tensor<2x128x12x64xf32> {
  %r = linalg.transpose ins(%x : tensor<2x12x128x64xf32>) outs(%y : tensor<2x128x12x64xf32>) permutation = [0, 2, 1, 3]
  return %r : tensor<2x128x12x64xf32>
}

// -----

// Too small for two blocks (4 rows of 512 bytes): serial.
// CHECK-LABEL: func.func @small
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @small(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%y : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// Column sums: the only parallel loop is the innermost one, the outer loop
// is a reduction; neither is split.
// CHECK-LABEL: func.func @column_sums
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @column_sums(%x: tensor<?x768xf32>, %acc: tensor<768xf32>) -> tensor<768xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(t, d) -> (t, d)>, affine_map<(t, d) -> (d)>], iterator_types = ["reduction", "parallel"]}
      ins(%x : tensor<?x768xf32>) outs(%acc : tensor<768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<768xf32>
  return %r : tensor<768xf32>
}

// -----

// An op inside a loop (the key loop of a tiled attention, say) belongs to
// that loop's iteration, and one inside an scf.forall (the tiled
// attention's blocks) is already on a thread: neither is split.
// CHECK-LABEL: func.func @in_loop
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @in_loop(%x: tensor<?x768xf32>, %y: tensor<?x768xf32>, %n: index) -> tensor<?x768xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %y) -> tensor<?x768xf32> {
    %e = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x768xf32>) outs(%acc : tensor<?x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    } -> tensor<?x768xf32>
    scf.yield %e : tensor<?x768xf32>
  }
  return %r : tensor<?x768xf32>
}

// CHECK-LABEL: func.func @in_forall
// CHECK: scf.forall (
// CHECK-NOT: scf.forall (
// CHECK: return
func.func @in_forall(%x: tensor<12x512x64xf32>, %y: tensor<12x512x64xf32>) -> tensor<12x512x64xf32> {
  %r = scf.forall (%h) in (12) shared_outs(%o = %y) -> tensor<12x512x64xf32> {
    %xs = tensor.extract_slice %x[%h, 0, 0] [1, 512, 64] [1, 1, 1] : tensor<12x512x64xf32> to tensor<512x64xf32>
    %os = tensor.extract_slice %o[%h, 0, 0] [1, 512, 64] [1, 1, 1] : tensor<12x512x64xf32> to tensor<512x64xf32>
    %e = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%xs : tensor<512x64xf32>) outs(%os : tensor<512x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = math.exp %in : f32
      linalg.yield %m : f32
    } -> tensor<512x64xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %e into %o[%h, 0, 0] [1, 512, 64] [1, 1, 1] : tensor<512x64xf32> into tensor<12x512x64xf32>
    }
  }
  return %r : tensor<12x512x64xf32>
}

// A branch is no loop: the op in it is split (the untiled attention of
// short sequences sits in an scf.if).
// CHECK-LABEL: func.func @in_if
// CHECK: scf.if
// CHECK:   scf.forall
func.func @in_if(%c: i1, %x: tensor<?x768xf32>, %y: tensor<?x768xf32>) -> tensor<?x768xf32> {
  %r = scf.if %c -> tensor<?x768xf32> {
    %e = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x768xf32>) outs(%y : tensor<?x768xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = math.exp %in : f32
      linalg.yield %m : f32
    } -> tensor<?x768xf32>
    scf.yield %e : tensor<?x768xf32>
  } else {
    scf.yield %x : tensor<?x768xf32>
  }
  return %r : tensor<?x768xf32>
}

// -----

// An op that never reads its init (a tensor.empty) and reads last the
// result of another op of the same shape writes that result in place: the
// forall's shared_outs is the input, and each block reads and writes its
// own slice of it (without this, bufferization would allocate a new
// buffer for the forall).
// CHECK-LABEL: func.func @in_place
// CHECK: %[[SUM:.*]] = scf.forall
// CHECK: scf.forall (%{{.*}}, %{{.*}}) = (0, 0) to (%{{.*}}, %{{.*}}) step (1, 6) shared_outs(%[[O:.*]] = %[[SUM]])
// CHECK:   %[[S:.*]] = tensor.extract_slice %[[O]]
// CHECK:   linalg.generic {{.*}} ins(%[[S]] : tensor<1x?x768xf32>) outs(%[[S]] : tensor<1x?x768xf32>)
// CHECK:     math.exp
func.func @in_place(%x: tensor<?x?x768xf32>, %y: tensor<?x?x768xf32>) -> tensor<?x?x768xf32> {
  %sum = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<?x?x768xf32>, tensor<?x?x768xf32>) outs(%y : tensor<?x?x768xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?x768xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x768xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x768xf32>
  %empty = tensor.empty(%d0, %d1) : tensor<?x?x768xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sum : tensor<?x?x768xf32>) outs(%empty : tensor<?x?x768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<?x?x768xf32>
  return %e : tensor<?x?x768xf32>
}

// -----

// The same with the input still needed afterwards: the init stays.
// CHECK-LABEL: func.func @input_used_later
// CHECK: %[[SUM:.*]] = scf.forall
// CHECK: %[[EMPTY:.*]] = tensor.empty
// CHECK: scf.forall {{.*}} shared_outs(%{{.*}} = %[[EMPTY]])
func.func @input_used_later(%x: tensor<?x?x768xf32>, %y: tensor<?x?x768xf32>) -> (tensor<?x?x768xf32>, tensor<?x?x768xf32>) {
  %sum = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %y : tensor<?x?x768xf32>, tensor<?x?x768xf32>) outs(%y : tensor<?x?x768xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?x?x768xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = tensor.dim %x, %c0 : tensor<?x?x768xf32>
  %d1 = tensor.dim %x, %c1 : tensor<?x?x768xf32>
  %empty = tensor.empty(%d0, %d1) : tensor<?x?x768xf32>
  %e = linalg.generic {indexing_maps = [affine_map<(b, t, d) -> (b, t, d)>, affine_map<(b, t, d) -> (b, t, d)>], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%sum : tensor<?x?x768xf32>) outs(%empty : tensor<?x?x768xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = math.exp %in : f32
    linalg.yield %m : f32
  } -> tensor<?x?x768xf32>
  return %e, %sum : tensor<?x?x768xf32>, tensor<?x?x768xf32>
}

// -----

// A fill (the logits' zero init: 50257 floats a row) is split as well.
// CHECK-LABEL: func.func @fill
// CHECK: scf.forall (%{{.*}}, %{{.*}}) in (%{{.*}}, %{{.*}})
// CHECK:   linalg.fill {{.*}} -> tensor<1x1x50257xf32>
func.func @fill(%y: tensor<?x?x50257xf32>) -> tensor<?x?x50257xf32> {
  %zero = arith.constant 0.0 : f32
  %r = linalg.fill ins(%zero : f32) outs(%y : tensor<?x?x50257xf32>) -> tensor<?x?x50257xf32>
  return %r : tensor<?x?x50257xf32>
}

// The ops split, summed over the functions (one module, without
// -split-input-file): layer_norm_mean, mean_with_fill (the fill moves into
// its blocks), bias_tanh, merge_heads, in_if, in_place (2),
// input_used_later (2), fill, fill_read_twice (2).
// STATS: (S) 0 parallel-loops - scf.forall
// STATS-NEXT: (S) 12 parallel-ops - Other linalg ops split into scf.forall row blocks for threads

// -----

// An empty static loop: nothing to compute, the op is left as it is (it
// used to divide by the extent when choosing blocks and tiles).
// CHECK-LABEL: func @empty_extent
// CHECK-NOT: scf.forall
// CHECK-NOT: scf.for
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<?x0xf32>)
func.func @empty_extent(%x: tensor<?x0xf32>) -> tensor<?x0xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x0xf32>
  %e = tensor.empty(%d) : tensor<?x0xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x0xf32>) outs(%e : tensor<?x0xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.negf %a : f32
    linalg.yield %m : f32
  } -> tensor<?x0xf32>
  return %r : tensor<?x0xf32>
}
