// The multithreaded pipeline (a target with threads) computes what the
// single-threaded one does: GEMMs split into row blocks (scf.forall ->
// OpenMP), and a tiled attention whose batch x head x
// query-block loop runs on the OpenMP team, each run with 1 and 2 threads.
// GEMM inputs are small integers, so every sum is exact whatever the
// blocking; the attention's iterations compute the same thing on any thread.
//
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=1 vector-bits=256 l1-bytes=4096 l2-bytes=16384},tfm-lower-to-llvm{attention-untiled-max-keys=0})' \
// RUN:   | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.serial
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{threads=2 vector-bits=256 l1-bytes=4096 l2-bytes=16384},tfm-lower-to-llvm{attention-untiled-max-keys=0 parallel-rows=16 parallel-cols=16})' > %t.par.mlir
// RUN: FileCheck %s --check-prefix=OMP < %t.par.mlir
// RUN: env OMP_NUM_THREADS=1 %mlir_runner < %t.par.mlir | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.par1
// RUN: env OMP_NUM_THREADS=2 %mlir_runner < %t.par.mlir | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.par2
// RUN: diff %t.serial %t.par1
// RUN: diff %t.serial %t.par2
// RUN: FileCheck %s < %t.par2

// Two GEMMs (blocks of 16 rows by 16 columns inside each cache tile: over
// a dynamic M of 150, and over the 50 rows of each batch index; NC = 64
// over N = 70 (four column blocks, then one of 6) and
// KC = 32 over K = 40 leave remainder tiles, each with its own loops; the
// packing of the out_in weight is split across threads too), one tiled
// attention (batch x head x query block), and the row blocks of the
// elementwise ops around them: 14 parallel loops.
// OMP-COUNT-14: omp.parallel
// OMP-NOT: omp.parallel

func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// v[i, j] = ((i * a + j * b) mod m) - c, an exact small integer.
func.func @ints2(%r: index, %c: index, %a: index, %b: index, %m: index, %off: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%r, %c) : tensor<?x?xf32>
  %v = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ia = arith.muli %i, %a : index
    %jb = arith.muli %j, %b : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %m : index
    %d = arith.subi %q, %off : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %v : tensor<?x?xf32>
}

// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [150, 70]
// CHECK-NEXT: {{^}}{{\[\[}}5,   -2,   5,   5,   -9,
// CHECK-LABEL: Unranked Memref{{.*}}rank = 3 offset = 0 sizes = [3, 50, 70]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 4 offset = 0 sizes = [2, 4, 37, 8]
func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c40 = arith.constant 40 : index
  %c70 = arith.constant 70 : index
  %c150 = arith.constant 150 : index
  %x0 = func.call @ints2(%c150, %c40, %c7, %c3, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = tensor.cast %x0 : tensor<?x?xf32> to tensor<?x40xf32>
  %w0 = func.call @ints2(%c70, %c40, %c5, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w = tensor.cast %w0 : tensor<?x?xf32> to tensor<70x40xf32>

  // out_in weight (packed per block), 2-D, dynamic rows.
  %y1 = tfm.linear %x, %w : (tensor<?x40xf32>, tensor<70x40xf32>) -> tensor<?x70xf32>
  %u1 = tensor.cast %y1 : tensor<?x70xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  // Rank 3 [3, 50, 40], dynamic batch and sequence.
  %x3e = tensor.expand_shape %x [[0, 1], [2]] output_shape [3, 50, 40] : tensor<?x40xf32> into tensor<?x50x40xf32>
  %x3 = tensor.cast %x3e : tensor<?x50x40xf32> to tensor<?x?x40xf32>
  %y3 = tfm.linear %x3, %w : (tensor<?x?x40xf32>, tensor<70x40xf32>) -> tensor<?x?x70xf32>
  %u3 = tensor.cast %y3 : tensor<?x?x70xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()

  // Causal attention with padding, B = 2, H = 4, T = 37, D = 8: scaled
  // integers as Q, K, V.
  %c16 = arith.constant 16 : index
  %c296 = arith.constant 296 : index
  %q0 = func.call @ints2(%c296, %c16, %c3, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %qk = tensor.cast %q0 : tensor<?x?xf32> to tensor<296x16xf32>
  %qs = tensor.extract_slice %qk[0, 0] [296, 8] [1, 1] : tensor<296x16xf32> to tensor<296x8xf32>
  %vs = tensor.extract_slice %qk[0, 8] [296, 8] [1, 1] : tensor<296x16xf32> to tensor<296x8xf32>
  %q1 = tensor.expand_shape %qs [[0, 1, 2], [3]] output_shape [2, 4, 37, 8] : tensor<296x8xf32> into tensor<2x4x37x8xf32>
  %v1 = tensor.expand_shape %vs [[0, 1, 2], [3]] output_shape [2, 4, 37, 8] : tensor<296x8xf32> into tensor<2x4x37x8xf32>
  %q = tensor.cast %q1 : tensor<2x4x37x8xf32> to tensor<?x4x?x8xf32>
  %v = tensor.cast %v1 : tensor<2x4x37x8xf32> to tensor<?x4x?x8xf32>
  %lens = arith.constant dense<[37, 20]> : tensor<2xi32>
  %lensd = tensor.cast %lens : tensor<2xi32> to tensor<?xi32>
  %a = tfm.attention %q, %q, %v key_lengths(%lensd : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32> -> tensor<?x4x?x8xf32>
  %u4 = tensor.cast %a : tensor<?x4x?x8xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()
  return
}
