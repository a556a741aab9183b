// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536 threads=1},func.func(tfm-cpu-configure{elementwise=true},tfm-tile-and-vectorize))' -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,SERIAL
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536 threads=2},func.func(tfm-cpu-configure{elementwise=true parallel-rows=8},tfm-tile-and-vectorize))' -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefixes=CHECK,PARALLEL
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536 threads=1},func.func(tfm-cpu-configure{elementwise=true contractions=0},tfm-tile-and-vectorize))' -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NOGEMM
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GEMMONLY
// Without the flag, no report.
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=512 vector-registers=32 l1-bytes=4096 l2-bytes=65536 threads=1},func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' -o /dev/null 2>&1 | count 0
// The names and descriptions printed here are those of Passes.td, as the
// generated reference shows them.
// RUN: FileCheck %s --check-prefix=DOC --input-file=%tfm_src/docs/reference/Passes/TfmCodegenCPUPasses.md

// The counters of -tfm-tile-and-vectorize over one module, on a function
// pipeline (MLIR runs copies of the pass on several threads; their counts
// add up). On a target with vector-bits=512, 32 registers, l1-bytes=4096
// and l2-bytes=65536, -tfm-cpu-configure schedules NR = 32, MR = 8,
// KC = 16, NC = 512, so
//
// - @matmul_static (16x32x32): 1 contraction, one 8x32 register tile
//   (k cache tiles of 16, m tiles of 8 divide evenly): 1 vectorized op;
// - @matmul_transposed_b (B read as B[n, k]): 1 contraction, 1 packed
//   operand; its kernel tile and the pack's 16x16 transpose tile: 2;
// - @elementwise_exp (4x64): 1 vectorized tile of 32 lanes;
// - @elementwise_dynamic: dynamic innermost loop, left alone: 0;
// - @matmul_row_remainder (20 rows): 1 contraction; an 8-row tile and the
//   peeled 4-row remainder: 2;
// - @batched (attention's QK^T, keys read as B[n, k]): 1 contraction,
//   1 packed operand; kernel and pack tiles: 2;
// - @decode_scores (a one-row Q K^T in a loop, keys read as B[n, k]): 1
//   contraction with the dot-product kernel, whose vector ops are built
//   as they are, not vectorized from linalg: 0.
//
// Total: 5 contractions, 1 dot kernel, 2 packed operands, 8 vectorized ops. With two
// threads and parallel-rows=8, the three 2-d matmuls get one scf.forall
// of 8-row blocks each and @batched one over its batch and heads (no row
// blocks under it): 4 parallel loops (@decode_scores is in a loop: not
// split, still the dot kernel). The packs are not split (a KC of 16
// is one block of 2*VL = 32 rows of k). Of the other ops, @elementwise_dynamic
// is split into row blocks (its row count is dynamic): 1 parallel op;
// @elementwise_exp (2 KiB) is one block of l1-bytes, so it stays serial.
// -tfm-cpu-configure schedules the 5 contractions and the 2 other ops.
// Without contractions only the exp tile is vectorized; without elementwise
// everything but it is.

// CHECK-LABEL: Pass statistics report
// CHECK-NEXT: ===---
// CHECK-NEXT: {{^}}SetTargetPass
// CHECK-NEXT: {{^}}'func.func' Pipeline
// CHECK-NEXT: {{^  }}CpuConfigurePass
// CHECK-NEXT: {{^    }}(S) 5 contractions - Contractions given a schedule
// CHECK-NEXT: {{^    }}(S) 2 other-ops    - Other linalg ops given a schedule
// CHECK-NEXT: {{^  }}TileAndVectorizePass
// CHECK-NEXT: {{^    }}(S) 5 contractions    - Contractions tiled for registers and caches
// CHECK-NEXT: {{^    }}(S) 1 dot-kernels     - Contractions given the dot-product kernel (B read in place)
// CHECK-NEXT: {{^    }}(S) 2 packed-operands - Contraction operands packed (transposed) per cache tile
// SERIAL-NEXT: {{^    }}(S) 0 parallel-loops  - scf.forall loops made for threads (contractions, packing)
// PARALLEL-NEXT: {{^    }}(S) 4 parallel-loops  - scf.forall loops made for threads (contractions, packing)
// SERIAL-NEXT: {{^    }}(S) 0 parallel-ops    - Other linalg ops split into scf.forall row blocks for threads
// PARALLEL-NEXT: {{^    }}(S) 1 parallel-ops    - Other linalg ops split into scf.forall row blocks for threads
// CHECK-NEXT: {{^    }}(S) 8 vectorized-ops  - Tiles vectorized
// CHECK-NOT: (S)

// NOGEMM: {{^  }}TileAndVectorizePass
// NOGEMM-NEXT: (S) 0 contractions
// NOGEMM-NEXT: (S) 0 dot-kernels
// NOGEMM-NEXT: (S) 0 packed-operands
// NOGEMM-NEXT: (S) 0 parallel-loops
// NOGEMM-NEXT: (S) 0 parallel-ops
// NOGEMM-NEXT: (S) 1 vectorized-ops
// NOGEMM-NOT: (S)

// GEMMONLY: {{^  }}TileAndVectorizePass
// GEMMONLY-NEXT: (S) 5 contractions
// GEMMONLY-NEXT: (S) 1 dot-kernels
// GEMMONLY-NEXT: (S) 2 packed-operands
// GEMMONLY-NEXT: (S) 0 parallel-loops
// GEMMONLY-NEXT: (S) 0 parallel-ops
// GEMMONLY-NEXT: (S) 7 vectorized-ops
// GEMMONLY-NOT: (S)

// DOC: ### `-tfm-tile-and-vectorize`
// DOC: #### Statistics
// DOC: contractions    : Contractions tiled for registers and caches
// DOC-NEXT: dot-kernels     : Contractions given the dot-product kernel (B read in place)
// DOC-NEXT: packed-operands : Contraction operands packed (transposed) per cache tile
// DOC-NEXT: vectorized-ops  : Tiles vectorized
// DOC-NEXT: parallel-loops  : scf.forall loops made for threads (contractions, packing)
// DOC-NEXT: parallel-ops    : Other linalg ops split into scf.forall row blocks for threads

func.func @matmul_static(%a: tensor<16x32xf32>, %b: tensor<32x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

func.func @matmul_transposed_b(%a: tensor<16x32xf32>, %b: tensor<32x32xf32>, %c: tensor<16x32xf32>) -> tensor<16x32xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<16x32xf32>, tensor<32x32xf32>) outs(%c : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %r : tensor<16x32xf32>
}

func.func @elementwise_exp(%x: tensor<4x64xf32>, %y: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x64xf32>) outs(%y : tensor<4x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

func.func @elementwise_dynamic(%x: tensor<?x?xf32>, %y: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<?x?xf32>) outs(%y : tensor<?x?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<?x?xf32>
  return %r : tensor<?x?xf32>
}

func.func @matmul_row_remainder(%a: tensor<20x32xf32>, %b: tensor<32x32xf32>, %c: tensor<20x32xf32>) -> tensor<20x32xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<20x32xf32>, tensor<32x32xf32>) outs(%c : tensor<20x32xf32>) -> tensor<20x32xf32>
  return %r : tensor<20x32xf32>
}

func.func @batched(%q: tensor<?x4x16x32xf32>, %k: tensor<?x4x32x32xf32>, %s: tensor<?x4x16x32xf32>) -> tensor<?x4x16x32xf32> {
  %r = linalg.generic {indexing_maps = [affine_map<(b, h, i, j, d) -> (b, h, i, d)>, affine_map<(b, h, i, j, d) -> (b, h, j, d)>, affine_map<(b, h, i, j, d) -> (b, h, i, j)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : tensor<?x4x16x32xf32>, tensor<?x4x32x32xf32>) outs(%s : tensor<?x4x16x32xf32>) {
  ^bb0(%a: f32, %b: f32, %acc: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %acc, %m : f32
    linalg.yield %r : f32
  } -> tensor<?x4x16x32xf32>
  return %r : tensor<?x4x16x32xf32>
}

func.func @decode_scores(%q: tensor<1x32xf32>, %k: tensor<64x32xf32>, %s: tensor<1x64xf32>, %n: index) -> tensor<1x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %s) -> (tensor<1x64xf32>) {
    %m = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
        ins(%q, %k : tensor<1x32xf32>, tensor<64x32xf32>) outs(%acc : tensor<1x64xf32>) -> tensor<1x64xf32>
    scf.yield %m : tensor<1x64xf32>
  }
  return %r : tensor<1x64xf32>
}
