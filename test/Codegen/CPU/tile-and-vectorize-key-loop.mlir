// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=49152 l2-bytes=2097152 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s

// With `elementwise` off (the pipeline's default), the statically shaped
// ops inside a tiled attention's key loop (scf.for marked tfm.key_blocks by
// -tfm-tile-sram: the online softmax on the [Br, Bc] score tile) are still
// tiled and vectorized: rows by 1, Bc = 64 columns as two 32-lane vectors;
// the row max is one multi_reduction per row (not a loop over columns that
// LLVM would vectorize down the rows with gathers). The same ops outside
// such a loop, and dynamically shaped ones inside it, stay linalg.

// CHECK-LABEL: func.func @softmax_step
// Outside the key loop: untouched.
// CHECK:         linalg.generic
// CHECK:         scf.for
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:             vector.multi_reduction <maxnumf>, %{{.*}} [0] : vector<64xf32> to f32
// CHECK:           scf.for %{{.*}} = %c0 to %c16 step %c1
// CHECK:             scf.for %{{.*}} = %c0 to %c64 step %c32
// CHECK:               math.exp2 {{.*}} : vector<32xf32>
// A dynamic tile inside the loop stays a linalg.generic.
// CHECK:           linalg.generic
// CHECK:             math.exp2 {{.*}} : f32
// CHECK:         } {tfm.key_blocks = #tfm.key_blocks<full>}
#id = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @softmax_step(%s0: tensor<16x64xf32>, %m: tensor<16xf32>, %n: index,
                        %d: tensor<?x64xf32>) -> (tensor<16x64xf32>, tensor<?x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %outside = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%s0 : tensor<16x64xf32>) {
  ^bb0(%out: f32):
    %e = math.exp2 %out : f32
    linalg.yield %e : f32
  } -> tensor<16x64xf32>
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%s = %outside, %dd = %d) -> (tensor<16x64xf32>, tensor<?x64xf32>) {
    %bm = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
        ins(%s : tensor<16x64xf32>) outs(%m : tensor<16xf32>) {
    ^bb0(%in: f32, %out: f32):
      %x = arith.maxnumf %in, %out : f32
      linalg.yield %x : f32
    } -> tensor<16xf32>
    %p = linalg.generic {indexing_maps = [#row, #id], iterator_types = ["parallel", "parallel"]}
        ins(%bm : tensor<16xf32>) outs(%s : tensor<16x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %x = arith.subf %out, %in : f32
      %e = math.exp2 %x : f32
      linalg.yield %e : f32
    } -> tensor<16x64xf32>
    %dyn = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
        outs(%dd : tensor<?x64xf32>) {
    ^bb0(%out: f32):
      %e = math.exp2 %out : f32
      linalg.yield %e : f32
    } -> tensor<?x64xf32>
    scf.yield %p, %dyn : tensor<16x64xf32>, tensor<?x64xf32>
  } {tfm.key_blocks = #tfm.key_blocks<full>}
  return %r#0, %r#1 : tensor<16x64xf32>, tensor<?x64xf32>
}
