// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-apply-precision | FileCheck %s
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-apply-precision="precision=f16" | FileCheck %s --check-prefix=OPTION
// A second run changes nothing that matters: the weights it stored in 16
// bits keep their names in tfm.rounded_weights (the runtime must still be
// asked to round them).
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-apply-precision -tfm-apply-precision | FileCheck %s --check-prefix=TWICE
// A CPU target whose key blocks run the f32 kernels, without the hoisting
// of K and V blocks' roundings: they stay in the loop.
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-apply-precision=cpu-tile-roundings=false | FileCheck %s --check-prefix=INLOOP

// bf16: the activation input of a projection is rounded (truncf, extf) once
// for the two contractions that read it; the weights are marked for the
// runtime under their names, also read through views and by both ops of a
// name (a tied table); the elementwise op is untouched.
// CHECK-LABEL: module attributes {tfm.precision = bf16, tfm.rounded_weights = ["k.weight", "q.weight", "table"]}
// CHECK:       func.func @projections
// CHECK-DAG:     %[[WQ:.*]] = tfm.weight "q.weight" :
// CHECK-DAG:     %[[WK:.*]] = tfm.weight "k.weight" :
// CHECK:         %[[X:.*]] = linalg.generic {{.*}} outs(
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[X]] : tensor<4x16xf32>)
// CHECK:           %[[N:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:           %[[W:.*]] = arith.extf %[[N]] : bf16 to f32
// CHECK:           linalg.yield %[[W]]
// CHECK:         linalg.matmul ins(%[[R]], %[[WQ]]
// CHECK:         linalg.matmul ins(%[[R]], %[[WK]]
// CHECK:         tfm.weight "table" : tensor<8x16xf32>
// CHECK-NOT:     arith.truncf
// CHECK:         return
// OPTION-LABEL: module attributes {tfm.precision = bf16,
module attributes {tfm.precision = bf16} {
func.func @projections(%ids: tensor<4xindex>) -> (tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x4xf32>) {
  %wq = tfm.weight "q.weight" : tensor<16x16xf32>
  %wk = tfm.weight "k.weight" : tensor<16x16xf32>
  %t = tfm.weight "table" : tensor<8x16xf32>
  %e = tensor.empty() : tensor<4x16xf32>
  %x = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<4x16xf32>) {
  ^bb0(%o: f32):
    %c = arith.constant 1.5 : f32
    linalg.yield %c : f32
  } -> tensor<4x16xf32>
  %z = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x16xf32>) -> tensor<4x16xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<4x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<4x16xf32>, tensor<16x16xf32>) outs(%acc : tensor<4x16xf32>) -> tensor<4x16xf32>
  // Two ops of one name, read through views.
  %g = tensor.extract_slice %t[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  %t2 = tfm.weight "table" : tensor<8x16xf32>
  %e4 = tensor.empty() : tensor<4x4xf32>
  %acc4 = linalg.fill ins(%z : f32) outs(%e4 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %ts = tensor.extract_slice %t2[0, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>, affine_map<(i, j, k) -> (j, k)>, affine_map<(i, j, k) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%g, %ts : tensor<4x16xf32>, tensor<4x16xf32>) outs(%acc4 : tensor<4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x4xf32>
  return %q, %k, %h : tensor<4x16xf32>, tensor<4x16xf32>, tensor<4x4xf32>
}
}

// -----

// The option states the precision of a module that has none.
// CHECK-LABEL: func.func @none
// CHECK-NOT:   arith.truncf
// OPTION-LABEL: module attributes {tfm.precision = f16}
// OPTION:       func.func @none
// OPTION:         arith.truncf %{{.*}} : f32 to f16
func.func @none(%a: tensor<4x8xf32>, %b: tensor<8x4xf32>, %c: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x4xf32>) outs(%c : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

// -----

// expected-error @+1 {{the module's tfm.precision is 'f64', not bf16 or f16}}
module attributes {tfm.precision = f64} {
}

// -----

// On a GPU target the rounded weights are also stored in 16 bits when every
// reader can take them so: a generic contraction (directly and through a
// view; the body widens the element), a linalg.matmul (made a generic that
// widens: the classifier heads'), an embedding lookup (tensor.extract,
// widened after it) and tensor.dim, in every function that reads the name.
// A weight another named op reads (here linalg.transpose) keeps f32
// storage, in every function ("mixed": a generic here, a transpose in
// @other). The activation all three contractions read is stored in 16 bits
// too.
// CHECK-LABEL: module attributes {tfm.precision = bf16, tfm.rounded_weights = ["head", "mixed", "table", "w"]
// TWICE-LABEL: module attributes {tfm.precision = bf16, tfm.rounded_weights = ["head", "mixed", "table", "w"]
// TWICE:         tfm.weight "w" : tensor<16x16xbf16>
// CHECK:       func.func @gpu_storage
// CHECK:         %[[X:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16xbf16>)
// CHECK:         %[[W:.*]] = tfm.weight "w" : tensor<16x16xbf16>
// CHECK:         %[[H:.*]] = tfm.weight "head" : tensor<16x16xbf16>
// CHECK:         %[[T:.*]] = tfm.weight "table" : tensor<8x16xbf16>
// CHECK:         tensor.dim %[[T]]
// CHECK:         %[[E:.*]] = tensor.extract %[[T]][%{{.*}}, %{{.*}}] : tensor<8x16xbf16>
// CHECK:         arith.extf %[[E]] : bf16 to f32
// CHECK:         %[[V:.*]] = tensor.expand_shape %[[W]] {{.*}} : tensor<16x16xbf16> into tensor<16x2x8xbf16>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[V]] : tensor<4x16xbf16>, tensor<16x2x8xbf16>)
// CHECK-NEXT:    ^bb0(%[[A:.*]]: bf16, %[[B:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT:      %[[AW:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-NEXT:      %[[BW:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT:      arith.mulf %[[AW]], %[[BW]] : f32
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[H]] : tensor<4x16xbf16>, tensor<16x16xbf16>)
// CHECK-NOT:     linalg.matmul
// CHECK:         %[[M:.*]] = tfm.weight "mixed" : tensor<8x16xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[X]], %[[M]] : tensor<4x16xbf16>, tensor<8x16xf32>)
// CHECK:       func.func @other
// CHECK:         tfm.weight "table" : tensor<8x16xbf16>
// CHECK:         tfm.weight "mixed" : tensor<8x16xf32>
module attributes {tfm.precision = bf16, tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {
func.func @gpu_storage(%x: tensor<4x16xf32>, %i: index) -> (tensor<4x2x8xf32>, tensor<4x16xf32>, f32, index) {
  %w = tfm.weight "w" : tensor<16x16xf32>
  %h = tfm.weight "head" : tensor<16x16xf32>
  %t = tfm.weight "table" : tensor<8x16xf32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %t, %c0 : tensor<8x16xf32>
  %v = tensor.extract %t[%i, %c0] : tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2x8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x2x8xf32>) -> tensor<4x2x8xf32>
  %w3 = tensor.expand_shape %w [[0], [1, 2]] output_shape [16, 2, 8] : tensor<16x16xf32> into tensor<16x2x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, h, d, k) -> (m, k)>, affine_map<(m, h, d, k) -> (k, h, d)>, affine_map<(m, h, d, k) -> (m, h, d)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w3 : tensor<4x16xf32>, tensor<16x2x8xf32>) outs(%acc : tensor<4x2x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x2x8xf32>
  %e2 = tensor.empty() : tensor<4x16xf32>
  %acc2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %o = linalg.matmul ins(%x, %h : tensor<4x16xf32>, tensor<16x16xf32>) outs(%acc2 : tensor<4x16xf32>) -> tensor<4x16xf32>
  %m = tfm.weight "mixed" : tensor<8x16xf32>
  %e3 = tensor.empty() : tensor<4x8xf32>
  %acc3 = linalg.fill ins(%z : f32) outs(%e3 : tensor<4x8xf32>) -> tensor<4x8xf32>
  %mm = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %m : tensor<4x16xf32>, tensor<8x16xf32>) outs(%acc3 : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  return %y, %o, %v, %n : tensor<4x2x8xf32>, tensor<4x16xf32>, f32, index
}
func.func @other(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %t = tfm.weight "table" : tensor<8x16xf32>
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %t : tensor<4x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %m = tfm.weight "mixed" : tensor<8x16xf32>
  %mt = tensor.empty() : tensor<16x8xf32>
  %mtr = linalg.transpose ins(%m : tensor<8x16xf32>) outs(%mt : tensor<16x8xf32>) permutation = [1, 0]
  %r = linalg.matmul ins(%x, %mtr : tensor<4x16xf32>, tensor<16x8xf32>) outs(%acc : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
}

// -----

// On a GPU target, a rounded activation that only generic contractions
// read is stored in 16 bits: its rounding yields the truncation into a
// bf16 tensor and the contraction widens it at the top of its body (the
// same values: widening is exact). Inside a loop (a tiled attention's),
// the rounding keeps f32 storage.
// CHECK-LABEL: func.func @gpu_activation
// CHECK:         %[[A:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16xf32>)
// CHECK:           math.tanh
// CHECK:         %[[E:.*]] = tensor.empty() : tensor<4x16xbf16>
// CHECK:         %[[R:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x16xf32>) outs(%[[E]] : tensor<4x16xbf16>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[T:.*]] = arith.truncf %[[IN]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[T]] : bf16
// CHECK:         linalg.generic {{.*}} ins(%[[R]], %{{.*}} : tensor<4x16xbf16>, tensor<8x16xbf16>)
// CHECK-NEXT:    ^bb0(%[[AB:.*]]: bf16, %[[WB:.*]]: bf16, %{{.*}}: f32):
// CHECK-DAG:       arith.extf %[[AB]] : bf16 to f32
// CHECK-DAG:       arith.extf %[[WB]] : bf16 to f32
// CHECK:         scf.for
// CHECK:           linalg.generic {{.*}} outs(%{{.*}} : tensor<4x16xf32>)
// CHECK:             arith.truncf
// CHECK-NEXT:        arith.extf
module attributes {tfm.precision = bf16, tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {
func.func @gpu_activation(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %z = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4x16xf32>
  %a = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<4x16xf32>
  %w = tfm.weight "proj" : tensor<8x16xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %acc = linalg.fill ins(%z : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%a, %w : tensor<4x16xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %c: f32):
    %m = arith.mulf %p, %q : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = scf.for %i = %c0 to %c1 step %c1 iter_args(%it = %acc) -> (tensor<4x8xf32>) {
    %b = linalg.generic {indexing_maps = [affine_map<(m, k) -> (m, k)>, affine_map<(m, k) -> (m, k)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x16xf32>) outs(%e0 : tensor<4x16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %t = math.exp %in : f32
      linalg.yield %t : f32
    } -> tensor<4x16xf32>
    %v = tfm.weight "inner" : tensor<8x16xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%b, %v : tensor<4x16xf32>, tensor<8x16xf32>) outs(%it : tensor<4x8xf32>) {
    ^bb0(%p: f32, %q: f32, %c: f32):
      %m = arith.mulf %p, %q : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    } -> tensor<4x8xf32>
    scf.yield %r : tensor<4x8xf32>
  }
  return %y, %l : tensor<4x8xf32>, tensor<4x8xf32>
}
}

// -----

// On a GPU target, a tile that a loop nest builds from a slice of a
// top-level tensor is rounded where that tensor is computed, and stored
// there in 16 bits: a full K block (the slice itself), a short V block (the
// slice padded into a staging tile: the copy becomes a widening generic) and
// the Q tile (an elementwise scaling of the slice: the scaling moves to top
// level, before the rounding, so the tile holds the same numbers). A heads'
// transpose becomes the rounding's indexing. The in-loop roundings stay
// (they round rounded values).
// CHECK:       #[[$PERM:.*]] = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
// CHECK-LABEL: func.func @gpu_attention_tiles
// CHECK-SAME:    (%[[QP:.*]]: tensor<8x2x4xf32>, %[[K:.*]]: tensor<2x8x4xf32>, %[[V:.*]]: tensor<2x8x4xf32>
// CHECK:         %[[V16:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xbf16>)
// CHECK:         %[[K16:.*]] = linalg.generic {{.*}} ins(%[[K]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xbf16>)
// CHECK:         %[[QS:.*]] = linalg.generic {indexing_maps = [#[[$PERM]], #{{.*}}], {{.*}} ins(%[[QP]] : tensor<8x2x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>)
// CHECK:           math.sqrt
// CHECK:         %[[Q16:.*]] = linalg.generic {{.*}} ins(%[[QS]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xbf16>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.truncf
// CHECK:         scf.forall
// CHECK:           tensor.extract_slice %[[Q16]]{{.*}} to tensor<?x4xbf16>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<?x4xbf16>) outs(%{{.*}} : tensor<?x4xf32>)
// CHECK-NEXT:      ^bb0(%[[E:.*]]: bf16, %{{.*}}: f32):
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[E]] : bf16 to f32
// CHECK-NEXT:        linalg.yield %[[W]] : f32
// CHECK:           tensor.extract_slice %[[K16]]{{.*}} to tensor<4x4xbf16>
// CHECK:           tensor.extract_slice %[[V16]]{{.*}} to tensor<?x4xbf16>
// CHECK:           linalg.generic {{.*}} ins(%{{.*}} : tensor<?x4xbf16>) outs(%{{.*}} : tensor<?x4xf32>)
// The scores, computed in the loop, keep their in-loop rounding.
// CHECK:           %[[S:.*]] = linalg.matmul
// CHECK:           linalg.generic {{.*}} ins(%[[S]] : tensor<4x4xf32>) outs(%{{.*}} : tensor<4x4xf32>)
// CHECK-NEXT:      ^bb0
// CHECK-NEXT:        arith.truncf
// CHECK-NOT:     math.sqrt
module attributes {tfm.precision = bf16, tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {
func.func @gpu_attention_tiles(%qp: tensor<8x2x4xf32>, %k: tensor<2x8x4xf32>, %v: tensor<2x8x4xf32>, %n: index) -> tensor<2x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %eq = tensor.empty() : tensor<2x8x4xf32>
  %q = linalg.transpose ins(%qp : tensor<8x2x4xf32>) outs(%eq : tensor<2x8x4xf32>) permutation = [1, 0, 2]
  %out = tensor.empty() : tensor<2x4x4xf32>
  %r = scf.forall (%h) in (2) shared_outs(%o = %out) -> (tensor<2x4x4xf32>) {
    // Q: a scaled slice padded into a filled tile.
    %qslice = tensor.extract_slice %q[%h, 0, 0] [1, %n, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<?x4xf32>
    %e0 = tensor.empty() : tensor<4x4xf32>
    %qtile0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %qdst = tensor.extract_slice %qtile0[0, 0] [%n, 4] [1, 1] : tensor<4x4xf32> to tensor<?x4xf32>
    %scaled = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%qslice : tensor<?x4xf32>) outs(%qdst : tensor<?x4xf32>) {
    ^bb0(%in: f32, %out_: f32):
      %c = arith.constant 2.0 : f32
      %s = math.sqrt %c : f32
      %m = arith.mulf %in, %s : f32
      linalg.yield %m : f32
    } -> tensor<?x4xf32>
    %qtile = tensor.insert_slice %scaled into %qtile0[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<4x4xf32>
    // K: a full block; V: a short block padded into a staging tile.
    %kt = tensor.extract_slice %k[%h, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<4x4xf32>
    %vslice = tensor.extract_slice %v[%h, 4, 0] [1, %n, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<?x4xf32>
    %vtile = tensor.insert_slice %vslice into %qtile0[0, 0] [%n, 4] [1, 1] : tensor<?x4xf32> into tensor<4x4xf32>
    %s0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%qtile, %kt : tensor<4x4xf32>, tensor<4x4xf32>) outs(%s0 : tensor<4x4xf32>) -> tensor<4x4xf32>
    %pv = linalg.matmul ins(%s, %vtile : tensor<4x4xf32>, tensor<4x4xf32>) outs(%s0 : tensor<4x4xf32>) -> tensor<4x4xf32>
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %pv into %o[%h, 0, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf32> into tensor<2x4x4xf32>
    }
  }
  return %r : tensor<2x4x4xf32>
}
}

// -----

// Attention on tensor cores (#tfm.gpu_flash_attention, put on here by hand)
// reads its Q, K and V in 16 bits: each f32 input is truncated once (one
// linalg.generic each, shared by the ops that read it), where it is
// computed, and the op takes the bf16 tensors, its result staying f32. A
// heads' transpose (linalg.transpose) is folded into the truncation's
// indexing map, which reads the projection itself. An op on the other
// lowering keeps its f32 inputs. A second run finds nothing left to
// narrow.
// CHECK:       #[[$ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK:       #[[$HEADS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func.func @flash_inputs
// CHECK-SAME:    (%[[QP:.*]]: tensor<?x16x8x64xf32>, %[[K:.*]]: tensor<?x2x16x64xf32>, %[[VP:.*]]: tensor<?x16x2x64xf32>)
// CHECK:         %[[KE:.*]] = tensor.empty(%{{.*}}) : tensor<?x2x16x64xbf16>
// CHECK:         %[[K16:.*]] = linalg.generic {indexing_maps = [#[[$ID]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[K]] : tensor<?x2x16x64xf32>) outs(%[[KE]] : tensor<?x2x16x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[KIN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[KT:.*]] = arith.truncf %[[KIN]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[KT]] : bf16
// CHECK:         %[[Q:.*]] = linalg.transpose ins(%[[QP]]
// CHECK:         %[[QE:.*]] = tensor.empty(%{{.*}}) : tensor<?x8x16x64xbf16>
// CHECK:         %[[Q16:.*]] = linalg.generic {indexing_maps = [#[[$HEADS]], #[[$ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[QP]] : tensor<?x16x8x64xf32>) outs(%[[QE]] : tensor<?x8x16x64xbf16>)
// CHECK-NEXT:    ^bb0(%[[QIN:.*]]: f32, %{{.*}}: bf16):
// CHECK-NEXT:      %[[QT:.*]] = arith.truncf %[[QIN]] : f32 to bf16
// CHECK-NEXT:      linalg.yield %[[QT]] : bf16
// CHECK:         %[[V:.*]] = linalg.transpose ins(%[[VP]]
// CHECK:         %[[V16:.*]] = linalg.generic {indexing_maps = [#[[$HEADS]], #[[$ID]]], {{.*}} ins(%[[VP]] : tensor<?x16x2x64xf32>) outs(%{{.*}} : tensor<?x2x16x64xbf16>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.truncf %{{.*}} : f32 to bf16
// CHECK:         %[[O1:.*]] = tfm.attention %[[Q16]], %[[K16]], %[[V16]] {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 16, warps = 4>} : tensor<?x8x16x64xbf16>, tensor<?x2x16x64xbf16>, tensor<?x2x16x64xbf16> -> tensor<?x8x16x64xf32>
// CHECK:         %[[O2:.*]] = tfm.attention %[[Q16]], %[[K16]], %[[V16]] {{.*}}#tfm.gpu_flash_attention<{{.*}}>} : tensor<?x8x16x64xbf16>, tensor<?x2x16x64xbf16>, tensor<?x2x16x64xbf16> -> tensor<?x8x16x64xf32>
// CHECK:         %[[O3:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {{.*}}#tfm.attention_untiled} : tensor<?x8x16x64xf32>, tensor<?x2x16x64xf32>, tensor<?x2x16x64xf32> -> tensor<?x8x16x64xf32>
// CHECK:         return %[[O1]], %[[O2]], %[[O3]]
// TWICE-LABEL: func.func @flash_inputs
// TWICE-COUNT-3: arith.truncf
// TWICE-NOT:     arith.truncf
// TWICE:         tfm.attention {{.*}} : tensor<?x8x16x64xbf16>, tensor<?x2x16x64xbf16>, tensor<?x2x16x64xbf16> -> tensor<?x8x16x64xf32>
module attributes {tfm.precision = bf16, tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {
func.func @flash_inputs(%qp: tensor<?x16x8x64xf32>, %k: tensor<?x2x16x64xf32>, %vp: tensor<?x16x2x64xf32>) -> (tensor<?x8x16x64xf32>, tensor<?x8x16x64xf32>, tensor<?x8x16x64xf32>) {
  %c0 = arith.constant 0 : index
  %b = tensor.dim %qp, %c0 : tensor<?x16x8x64xf32>
  %eq = tensor.empty(%b) : tensor<?x8x16x64xf32>
  %q = linalg.transpose ins(%qp : tensor<?x16x8x64xf32>) outs(%eq : tensor<?x8x16x64xf32>) permutation = [0, 2, 1, 3]
  %ev = tensor.empty(%b) : tensor<?x2x16x64xf32>
  %v = linalg.transpose ins(%vp : tensor<?x16x2x64xf32>) outs(%ev : tensor<?x2x16x64xf32>) permutation = [0, 2, 1, 3]
  %o1 = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 16, warps = 4>} : tensor<?x8x16x64xf32>, tensor<?x2x16x64xf32>, tensor<?x2x16x64xf32> -> tensor<?x8x16x64xf32>
  %o2 = tfm.attention %q, %k, %v {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 16, warps = 4>} : tensor<?x8x16x64xf32>, tensor<?x2x16x64xf32>, tensor<?x2x16x64xf32> -> tensor<?x8x16x64xf32>
  %o3 = tfm.attention %q, %k, %v {scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_untiled} : tensor<?x8x16x64xf32>, tensor<?x2x16x64xf32>, tensor<?x2x16x64xf32> -> tensor<?x8x16x64xf32>
  return %o1, %o2, %o3 : tensor<?x8x16x64xf32>, tensor<?x8x16x64xf32>, tensor<?x8x16x64xf32>
}
}

// -----

// In f16 (the option's precision, for a module that has none) the same:
// f16 inputs; without a 16-bit precision, nothing.
// CHECK-LABEL: func.func @flash_f16
// CHECK-NOT:     arith.truncf
// CHECK:         tfm.attention {{.*}} : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32> -> tensor<1x4x32x16xf32>
// OPTION-LABEL: func.func @flash_f16
// OPTION-SAME:    (%[[Q:.*]]: tensor<1x4x32x16xf32>, %[[KV:.*]]: tensor<1x4x32x16xf32>)
// OPTION:         %[[KV16:.*]] = linalg.generic {{.*}} ins(%[[KV]] : tensor<1x4x32x16xf32>) outs(%{{.*}} : tensor<1x4x32x16xf16>)
// OPTION:           arith.truncf %{{.*}} : f32 to f16
// OPTION:         %[[Q16:.*]] = linalg.generic {{.*}} ins(%[[Q]] : tensor<1x4x32x16xf32>) outs(%{{.*}} : tensor<1x4x32x16xf16>)
// OPTION:           arith.truncf %{{.*}} : f32 to f16
// OPTION:         tfm.attention %[[Q16]], %[[KV16]], %[[KV16]] {{.*}} : tensor<1x4x32x16xf16>, tensor<1x4x32x16xf16>, tensor<1x4x32x16xf16> -> tensor<1x4x32x16xf32>
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_90", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {
func.func @flash_f16(%q: tensor<1x4x32x16xf32>, %kv: tensor<1x4x32x16xf32>) -> tensor<1x4x32x16xf32> {
  %o = tfm.attention %q, %kv, %kv {scale = 0.25 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32> -> tensor<1x4x32x16xf32>
  return %o : tensor<1x4x32x16xf32>
}
}

// -----

// A contraction in a branch of an scf.if (the untiled side of a tiled
// attention's runtime branch on Tk) rounds its inputs at the start of that
// branch, not where they are defined: a step whose branch goes the other
// way rounds nothing (a decode step would otherwise round its whole KV
// cache). A contraction in a loop keeps its rounding outside the loop.
// CHECK-LABEL: func.func @branch
// CHECK-SAME: (%[[A:[^:]*]]: tensor<4x16xf32>, %[[B:[^:]*]]: tensor<16x8xf32>, %[[C:[^:]*]]: i1)
// CHECK-NOT: arith.truncf
// CHECK: scf.if %[[C]]
// CHECK-DAG: %[[RA:.*]] = linalg.generic {{.*}} ins(%[[A]] : tensor<4x16xf32>)
// CHECK-DAG: %[[RB:.*]] = linalg.generic {{.*}} ins(%[[B]] : tensor<16x8xf32>)
// CHECK: linalg.matmul ins(%[[RA]], %[[RB]]
// CHECK: } else {
// CHECK-NOT: arith.truncf
// CHECK: }
// CHECK-LABEL: func.func @loop
// CHECK: %[[RA:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<4x16xf32>)
// CHECK: arith.truncf
// CHECK: scf.for
// CHECK-NOT: arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.matmul ins(%[[RA]],
module attributes {tfm.precision = bf16} {
func.func @branch(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %c: i1) -> tensor<4x8xf32> {
  %r = scf.if %c -> (tensor<4x8xf32>) {
    %zero = arith.constant 0.0 : f32
    %e = tensor.empty() : tensor<4x8xf32>
    %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
    %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %m : tensor<4x8xf32>
  } else {
    %e = tensor.empty() : tensor<4x8xf32>
    scf.yield %e : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
func.func @loop(%a: tensor<4x16xf32>, %b: tensor<16x8xf32>, %acc: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%x = %acc) -> (tensor<4x8xf32>) {
    %m = linalg.matmul ins(%a, %b : tensor<4x16xf32>, tensor<16x8xf32>) outs(%x : tensor<4x8xf32>) -> tensor<4x8xf32>
    scf.yield %m : tensor<4x8xf32>
  }
  return %r : tensor<4x8xf32>
}
}

// -----

// Keys of a bf16 KV cache (-tfm-narrow-kv-cache) read by an f32 query: the
// f32 input is rounded as for an f32 contraction, the bf16 one is already
// in the precision and stays as it is. An f16 input under bf16 is not the
// precision: that contraction is left alone.
// CHECK-LABEL: func.func @cached_keys
// CHECK: %[[RQ:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<4x16xf32>)
// CHECK:   arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.generic {{.*}} ins(%[[RQ]], %arg1 : tensor<4x16xf32>, tensor<8x16xbf16>)
// CHECK: linalg.generic {{.*}} ins(%arg0, %arg2 : tensor<4x16xf32>, tensor<8x16xf16>)
module attributes {tfm.precision = bf16} {
func.func @cached_keys(%q: tensor<4x16xf32>, %k: tensor<8x16xbf16>, %kh: tensor<8x16xf16>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %k : tensor<4x16xf32>, tensor<8x16xbf16>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: bf16, %acc: f32):
    %bw = arith.extf %b : bf16 to f32
    %p = arith.mulf %a, %bw : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j, d) -> (i, d)>, affine_map<(i, j, d) -> (j, d)>, affine_map<(i, j, d) -> (i, j)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%q, %kh : tensor<4x16xf32>, tensor<8x16xf16>) outs(%f : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f16, %acc: f32):
    %bw = arith.extf %b : f16 to f32
    %p = arith.mulf %a, %bw : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %s, %t : tensor<4x8xf32>, tensor<4x8xf32>
}
}

// -----

// On a CPU target whose key blocks run the f32 kernels, a K or V block that
// the query-block loop reads again (its slice does not depend on that
// loop's %qb, which runs twice) is rounded once, where its tensor is
// computed, and its in-loop rounding goes; the tensor stays f32. The Q
// block, read once (it depends on %qb), and the scores, computed in the
// loop, keep their in-loop rounding.
// CHECK-LABEL: func.func @cpu_key_blocks
// CHECK-SAME:    (%[[Q:.*]]: tensor<2x8x4xf32>, %[[K:.*]]: tensor<2x8x4xf32>
// CHECK:         %[[KR:.*]] = linalg.generic {{.*}} ins(%[[K]] : tensor<2x8x4xf32>) outs(%{{.*}} : tensor<2x8x4xf32>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      arith.truncf
// CHECK-NEXT:      arith.extf
// CHECK:         scf.forall (%[[H:[a-z0-9_]+]], %[[QB:[a-z0-9_]+]]) in (2, 2)
// CHECK:           %[[QT:.*]] = tensor.extract_slice %[[Q]][%[[H]], %[[QB]], 0]
// CHECK:           %[[QR:.*]] = linalg.generic {{.*}} ins(%[[QT]] : tensor<4x4xf32>)
// CHECK:           scf.for %[[J:[a-z0-9_]+]] =
// CHECK:             %[[KT:.*]] = tensor.extract_slice %[[KR]][%[[H]], %[[J]], 0]
// CHECK-NOT:         arith.truncf
// CHECK:             %[[S:.*]] = linalg.matmul {{.*}} ins(%[[QR]], %[[KT]] :
// CHECK:             linalg.generic {{.*}} ins(%[[S]] : tensor<4x4xf32>)
// CHECK-NEXT:        ^bb0
// CHECK-NEXT:          arith.truncf
// INLOOP-LABEL: func.func @cpu_key_blocks
// INLOOP:         scf.forall
// INLOOP:           scf.for
// INLOOP:             %[[KT:.*]] = tensor.extract_slice %arg1
// INLOOP:             linalg.generic {{.*}} ins(%[[KT]] : tensor<4x4xf32>)
// INLOOP-NEXT:        ^bb0
// INLOOP-NEXT:          arith.truncf
module attributes {tfm.precision = bf16, tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 524288, threads = 2>} {
func.func @cpu_key_blocks(%q: tensor<2x8x4xf32>, %k: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %out = tensor.empty() : tensor<2x8x4xf32>
  %e0 = tensor.empty() : tensor<4x4xf32>
  %s0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.forall (%h, %qb) in (2, 2) shared_outs(%o = %out) -> (tensor<2x8x4xf32>) {
    %qt = tensor.extract_slice %q[%h, %qb, 0] [1, 4, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<4x4xf32>
    %acc = scf.for %j = %c0 to %c8 step %c4 iter_args(%a = %s0) -> (tensor<4x4xf32>) {
      %kt = tensor.extract_slice %k[%h, %j, 0] [1, 4, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<4x4xf32>
      %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%qt, %kt : tensor<4x4xf32>, tensor<4x4xf32>) outs(%s0 : tensor<4x4xf32>) -> tensor<4x4xf32>
      %pv = linalg.matmul ins(%s, %kt : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.yield %pv : tensor<4x4xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %acc into %o[%h, %qb, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf32> into tensor<2x8x4xf32>
    }
  }
  return %r : tensor<2x8x4xf32>
}
}

// -----

// A decode step's one query block (a loop of one trip) reads each K block
// once: its rounding stays in the loop.
// CHECK-LABEL: func.func @cpu_decode_blocks
// CHECK-NOT:     arith.truncf
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             %[[KT:.*]] = tensor.extract_slice %arg1
// CHECK:             linalg.generic {{.*}} ins(%[[KT]] : tensor<4x4xf32>)
// CHECK-NEXT:        ^bb0
// CHECK-NEXT:          arith.truncf
module attributes {tfm.precision = bf16, tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 524288, threads = 2>} {
func.func @cpu_decode_blocks(%q: tensor<2x1x4xf32>, %k: tensor<2x8x4xf32>) -> tensor<2x1x4xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %out = tensor.empty() : tensor<2x1x4xf32>
  %e0 = tensor.empty() : tensor<1x4xf32>
  %s0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<1x4xf32>) -> tensor<1x4xf32>
  %r = scf.forall (%h, %qb) in (2, 1) shared_outs(%o = %out) -> (tensor<2x1x4xf32>) {
    %qt = tensor.extract_slice %q[%h, %qb, 0] [1, 1, 4] [1, 1, 1] : tensor<2x1x4xf32> to tensor<1x4xf32>
    %acc = scf.for %j = %c0 to %c8 step %c4 iter_args(%a = %s0) -> (tensor<1x4xf32>) {
      %kt = tensor.extract_slice %k[%h, %j, 0] [1, 4, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<4x4xf32>
      %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%qt, %kt : tensor<1x4xf32>, tensor<4x4xf32>) outs(%s0 : tensor<1x4xf32>) -> tensor<1x4xf32>
      %pv = linalg.matmul ins(%s, %kt : tensor<1x4xf32>, tensor<4x4xf32>) outs(%a : tensor<1x4xf32>) -> tensor<1x4xf32>
      scf.yield %pv : tensor<1x4xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %acc into %o[%h, %qb, 0] [1, 1, 4] [1, 1, 1] : tensor<1x4xf32> into tensor<2x1x4xf32>
    }
  }
  return %r : tensor<2x1x4xf32>
}
}

// -----

// A KV cache (here: a row appended to it at top level) is sized for the
// longest context: rounding it at top level would round all of it at
// every step, so its blocks keep their in-loop rounding.
// CHECK-LABEL: func.func @cpu_cache_blocks
// CHECK:         %[[CACHE:.*]] = tensor.insert_slice
// CHECK-NOT:     arith.truncf
// CHECK:         scf.forall
// CHECK:           scf.for
// CHECK:             %[[KT:.*]] = tensor.extract_slice %[[CACHE]]
// CHECK:             linalg.generic {{.*}} ins(%[[KT]] : tensor<4x4xf32>)
// CHECK-NEXT:        ^bb0
// CHECK-NEXT:          arith.truncf
module attributes {tfm.precision = bf16, tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 524288, threads = 2>} {
func.func @cpu_cache_blocks(%q: tensor<2x8x4xf32>, %cache: tensor<2x8x4xf32>, %row: tensor<2x1x4xf32>, %at: index) -> tensor<2x8x4xf32> {
  %z = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %k = tensor.insert_slice %row into %cache[0, %at, 0] [2, 1, 4] [1, 1, 1] : tensor<2x1x4xf32> into tensor<2x8x4xf32>
  %out = tensor.empty() : tensor<2x8x4xf32>
  %e0 = tensor.empty() : tensor<4x4xf32>
  %s0 = linalg.fill ins(%z : f32) outs(%e0 : tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = scf.forall (%h, %qb) in (2, 2) shared_outs(%o = %out) -> (tensor<2x8x4xf32>) {
    %qt = tensor.extract_slice %q[%h, %qb, 0] [1, 4, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<4x4xf32>
    %acc = scf.for %j = %c0 to %c8 step %c4 iter_args(%a = %s0) -> (tensor<4x4xf32>) {
      %kt = tensor.extract_slice %k[%h, %j, 0] [1, 4, 4] [1, 1, 1] : tensor<2x8x4xf32> to tensor<4x4xf32>
      %s = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%qt, %kt : tensor<4x4xf32>, tensor<4x4xf32>) outs(%s0 : tensor<4x4xf32>) -> tensor<4x4xf32>
      %pv = linalg.matmul ins(%s, %kt : tensor<4x4xf32>, tensor<4x4xf32>) outs(%a : tensor<4x4xf32>) -> tensor<4x4xf32>
      scf.yield %pv : tensor<4x4xf32>
    }
    scf.forall.in_parallel {
      tensor.parallel_insert_slice %acc into %o[%h, %qb, 0] [1, 4, 4] [1, 1, 1] : tensor<4x4xf32> into tensor<2x8x4xf32>
    }
  }
  return %r : tensor<2x8x4xf32>
}
}
