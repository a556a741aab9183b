// RUN: tfm-opt %s -split-input-file -tfm-gpu-linalg-to-loops -mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// RUN: tfm-opt %s -split-input-file -tfm-gpu-linalg-to-loops=vector-width=1 | FileCheck %s --check-prefix=SCALAR

// A bias add over [?, 768] rows: four consecutive columns per iteration
// (the loop over them steps by 4), 16-byte vector loads of x and the bias,
// the add on vectors, one 16-byte vector store.
// CHECK-LABEL: func.func @bias_add
// CHECK-SAME:    (%[[X:.*]]: memref<?x768xf32>, %[[B:.*]]: memref<768xf32>, %[[Y:.*]]: memref<?x768xf32>)
// CHECK:         scf.parallel (%[[I:.*]], %[[J:.*]]) = (%c0{{.*}}, %c0{{.*}}) to (%{{.*}}, %c768{{.*}}) step (%c1{{.*}}, %c4{{.*}})
// CHECK:           %[[XV:.*]] = vector.load %[[X]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<?x768xf32>, vector<4xf32>
// CHECK:           %[[BV:.*]] = vector.load %[[B]][%[[J]]] {alignment = 16 : i64} : memref<768xf32>, vector<4xf32>
// CHECK:           %[[S:.*]] = arith.addf %[[XV]], %[[BV]] : vector<4xf32>
// CHECK:           vector.store %[[S]], %[[Y]][%[[I]], %[[J]]] {alignment = 16 : i64} : memref<?x768xf32>, vector<4xf32>
// SCALAR-LABEL: func.func @bias_add
// SCALAR-NOT:   vector.
// SCALAR:       memref.load
func.func @bias_add(%x: memref<?x768xf32>, %b: memref<768xf32>, %y: memref<?x768xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : memref<?x768xf32>, memref<768xf32>) outs(%y : memref<?x768xf32>) {
  ^bb0(%in: f32, %bj: f32, %out: f32):
    %s = arith.addf %in, %bj : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A per-row scale (read once, broadcast), a constant and a captured scalar
// (broadcast), a 16-bit weight (8-byte loads of 4 elements, widened on
// vectors), GELU-like math on vectors.
// CHECK-LABEL: func.func @broadcasts
// CHECK:         scf.parallel
// CHECK-DAG:       %[[XV:.*]] = vector.load %{{.*}} {alignment = 16 : i64} : memref<8x64xf32>, vector<4xf32>
// CHECK-DAG:       %[[S:.*]] = memref.load %{{.*}} : memref<8xf32>
// CHECK-DAG:       %[[W:.*]] = vector.load %{{.*}} {alignment = 8 : i64} : memref<64xbf16>, vector<4xbf16>
// CHECK:           %[[WF:.*]] = arith.extf %[[W]] : vector<4xbf16> to vector<4xf32>
// CHECK:           %[[SV:.*]] = vector.broadcast %[[S]] : f32 to vector<4xf32>
// CHECK:           arith.mulf %[[XV]], %[[SV]] : vector<4xf32>
// CHECK:           math.tanh %{{.*}} : vector<4xf32>
// CHECK:           vector.broadcast %{{.*}} : f32 to vector<4xf32>
// CHECK:           vector.store
func.func @broadcasts(%x: memref<8x64xf32>, %s: memref<8xf32>, %w: memref<64xbf16>, %c: f32, %y: memref<8x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x, %s, %w : memref<8x64xf32>, memref<8xf32>, memref<64xbf16>) outs(%y : memref<8x64xf32>) {
  ^bb0(%in: f32, %si: f32, %wj: bf16, %out: f32):
    %wf = arith.extf %wj : bf16 to f32
    %a = arith.mulf %in, %si : f32
    %b = arith.mulf %a, %wf : f32
    %t = math.tanh %b : f32
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %t, %half : f32
    %r = arith.addf %h, %c : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// What stays one element per iteration: a row length 4 does not divide;
// a transposed input (not contiguous along the columns); a payload that
// reads the column index; rows at an offset of 2 elements (a view whose
// 4-element runs are not 16-byte aligned); a single vector in all.
// CHECK-LABEL: func.func @scalar
// CHECK-NOT:   vector.
func.func @scalar(%a: memref<8x30xf32>, %t: memref<64x8xf32>, %y: memref<8x64xf32>, %big: memref<8x66xf32>, %one: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x30xf32>) {
  ^bb0(%out: f32):
    %s = arith.addf %out, %out : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%t : memref<64x8xf32>) outs(%y : memref<8x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%y : memref<8x64xf32>) {
  ^bb0(%out: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %f = arith.sitofp %ji : i64 to f32
    linalg.yield %f : f32
  }
  %v = memref.subview %big[0, 2] [8, 64] [1, 1] : memref<8x66xf32> to memref<8x64xf32, strided<[66, 1], offset: 2>>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%v : memref<8x64xf32, strided<[66, 1], offset: 2>>) {
  ^bb0(%out: f32):
    %s = arith.addf %out, %out : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>], iterator_types = ["parallel"]} outs(%one : memref<4xf32>) {
  ^bb0(%out: f32):
    %s = arith.addf %out, %out : f32
    linalg.yield %s : f32
  }
  return
}

// One statistics report per split: the first two ops vectorized, none of
// the five in the last split.
// STATS: (S) 1 vectorized-ops
// STATS: (S) 1 vectorized-ops
// STATS: (S) 5 lowered-ops
// STATS-NEXT: (S) 0 register-reductions
// STATS-NEXT: (S) 0 vectorized-ops
