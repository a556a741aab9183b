// The GPU's tensor-core GEMM kernels (#tfm.gpu_mma: mma.sync m16n8k16 on
// 16-bit operands staged in shared memory), run through the emulation,
// compute the CPU's numbers bit for bit: every input is a small integer
// (exact in bf16 and f16), so every product and partial sum is exact in
// f32 whatever the order. The shapes exercise the kernel's edges: 70 rows
// (32-row tiles: two full, one of 6), 11 rows (one partial tile), 37, 130
// and 136 columns (partial 64- and 128-column tiles, partial 8-column
// fragments), K = 40 against block_k = 32 (one full slice, then 8 and
// zeros), K = 72 (three slices); operands staged by the 3-stage cp.async
// pipeline in XOR-swizzled rows (16-byte copies that zero-fill past the
// end of the contiguous dimension and read nothing past the other):
// k-innermost ([n, k] weights, Q K^T), and k-major ([k, n] weights, an A
// stored [k, m]: ldmatrix .trans); rows of 130 or 37 elements (not 8-aligned):
// one padded stage of element copies. Batch loops on grid z, bf16 and f16,
// and a bias as the accumulators' initial values. A contraction with an
// f32 input keeps the SIMT kernel. A second GPU build states a target with
// one multiprocessor, where every pipelined contraction takes the 128 x 128
// tiles of 2 x 4 warps.
//
// RUN: tfm-opt %s -inline -symbol-dce -tfm-lower-to-llvm="vectorize=0" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.cpu
// RUN: tfm-opt %s -inline -symbol-dce -tfm-set-target="gpu-chip=sm_80" -tfm-lower-to-nvvm="emulate=1" -mlir-pass-statistics 2> %t.stats | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu
// RUN: sed -e 's/^module {/module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 1>} {/' %s | tfm-opt -inline -symbol-dce -tfm-lower-to-nvvm="emulate=1" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu64
// RUN: diff %t.cpu %t.gpu
// RUN: diff %t.cpu %t.gpu64
// RUN: FileCheck %s < %t.gpu
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// STATS:      GPUConfigurePass
// STATS-NEXT:   (S) 1 contractions
// STATS-NEXT:   (S) 6 mma-contractions
// STATS:      GPUTileContractionPass
// STATS-NEXT:   (S) 6 fused-broadcasts
// STATS-NEXT:   (S) 0 fused-epilogues
// STATS-NEXT:   (S) 1 kernels
// STATS-NEXT:   (S) 6 mma-kernels

// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 130]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 3 offset = 0 sizes = [2, 9, 21]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 136]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [72, 136]

#id2 = affine_map<(i, j) -> (i, j)>
module {
func.func private @printMemrefF32(tensor<*xf32>) attributes {llvm.emit_c_interface}

// v[i, j] = ((i * a + j * b) mod m) - c, an exact small integer.
func.func private @values(%rows: index, %cols: index, %a: index, %b: index, %m: index, %c: index) -> tensor<?x?xf32> {
  %e = tensor.empty(%rows, %cols) : tensor<?x?xf32>
  %v = linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]} outs(%e : tensor<?x?xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %ia = arith.muli %i, %a : index
    %jb = arith.muli %j, %b : index
    %s = arith.addi %ia, %jb : index
    %q = arith.remui %s, %m : index
    %d = arith.subi %q, %c : index
    %di = arith.index_cast %d : index to i64
    %f = arith.sitofp %di : i64 to f32
    linalg.yield %f : f32
  } -> tensor<?x?xf32>
  return %v : tensor<?x?xf32>
}

func.func private @bf16(%x: tensor<?x?xf32>) -> tensor<?x?xbf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%r, %c) : tensor<?x?xbf16>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %t = arith.truncf %in : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<?x?xbf16>
  return %h : tensor<?x?xbf16>
}

func.func private @f16(%x: tensor<?x?xf32>) -> tensor<?x?xf16> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xf32>
  %c = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%r, %c) : tensor<?x?xf16>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x?xf32>) outs(%e : tensor<?x?xf16>) {
  ^bb0(%in: f32, %out: f16):
    %t = arith.truncf %in : f32 to f16
    linalg.yield %t : f16
  } -> tensor<?x?xf16>
  return %h : tensor<?x?xf16>
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c7 = arith.constant 7 : index
  %c9 = arith.constant 9 : index
  %c11 = arith.constant 11 : index
  %c37 = arith.constant 37 : index
  %c40 = arith.constant 40 : index
  %c42 = arith.constant 42 : index
  %c70 = arith.constant 70 : index
  %c72 = arith.constant 72 : index
  %c130 = arith.constant 130 : index
  %zero = arith.constant 0.0 : f32

  // 70 rows (dynamic) x 40, an [n, k] weight of 37 rows, a bias.
  %xf = call @values(%c70, %c40, %c7, %c3, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = call @bf16(%xf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %xs = tensor.cast %x : tensor<?x?xbf16> to tensor<?x40xbf16>
  %wf = call @values(%c37, %c40, %c5, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w = call @bf16(%wf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %ws = tensor.cast %w : tensor<?x?xbf16> to tensor<37x40xbf16>
  %bf = call @values(%c70, %c37, %c0, %c1, %c3, %c1) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %bias = tensor.cast %bf : tensor<?x?xf32> to tensor<?x37xf32>
  %y1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%xs, %ws : tensor<?x40xbf16>, tensor<37x40xbf16>) outs(%bias : tensor<?x37xf32>) -> tensor<?x37xf32>
  %u1 = tensor.cast %y1 : tensor<?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u1) : (tensor<*xf32>) -> ()

  // 11 rows (static) x 72, a [k, n] weight of 130 columns, f16.
  %af = call @values(%c11, %c72, %c3, %c2, %c9, %c5) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %a = call @f16(%af) : (tensor<?x?xf32>) -> tensor<?x?xf16>
  %as = tensor.cast %a : tensor<?x?xf16> to tensor<11x72xf16>
  %vf = call @values(%c72, %c130, %c3, %c2, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %v = call @f16(%vf) : (tensor<?x?xf32>) -> tensor<?x?xf16>
  %vs = tensor.cast %v : tensor<?x?xf16> to tensor<72x130xf16>
  %e2 = tensor.empty() : tensor<11x130xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<11x130xf32>) -> tensor<11x130xf32>
  %y2 = linalg.matmul ins(%as, %vs : tensor<11x72xf16>, tensor<72x130xf16>) outs(%z2 : tensor<11x130xf32>) -> tensor<11x130xf32>
  %u2 = tensor.cast %y2 : tensor<11x130xf32> to tensor<*xf32>
  call @printMemrefF32(%u2) : (tensor<*xf32>) -> ()

  // Batched Q K^T, bf16: [2, 9, 40] x [2, 21, 40]^T.
  %q1 = tensor.extract_slice %x[0, 0] [18, 40] [1, 1] : tensor<?x?xbf16> to tensor<18x40xbf16>
  %k1 = tensor.extract_slice %x[20, 0] [42, 40] [1, 1] : tensor<?x?xbf16> to tensor<42x40xbf16>
  %q2 = tensor.expand_shape %q1 [[0, 1], [2]] output_shape [2, 9, 40] : tensor<18x40xbf16> into tensor<2x9x40xbf16>
  %k2 = tensor.expand_shape %k1 [[0, 1], [2]] output_shape [2, 21, 40] : tensor<42x40xbf16> into tensor<2x21x40xbf16>
  %e3 = tensor.empty() : tensor<2x9x21xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x9x21xf32>) -> tensor<2x9x21xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%q2, %k2 : tensor<2x9x40xbf16>, tensor<2x21x40xbf16>) outs(%z3 : tensor<2x9x21xf32>) {
  ^bb0(%qa: bf16, %kb: bf16, %acc: f32):
    %qw = arith.extf %qa : bf16 to f32
    %kw = arith.extf %kb : bf16 to f32
    %p = arith.mulf %qw, %kw : f32
    %r = arith.addf %acc, %p : f32
    linalg.yield %r : f32
  } -> tensor<2x9x21xf32>
  %u3 = tensor.cast %s : tensor<2x9x21xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()

  // 11 rows (static) x 40, bf16, a [k, n] weight: 32-row tiles.
  %x11 = tensor.extract_slice %x[0, 0] [11, 40] [1, 1] : tensor<?x?xbf16> to tensor<11x40xbf16>
  %wt = tensor.extract_slice %v[0, 0] [40, 37] [1, 1] : tensor<?x?xf16> to tensor<40x37xf16>
  %wtf0 = tensor.empty() : tensor<40x37xbf16>
  %wtb = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%wt : tensor<40x37xf16>) outs(%wtf0 : tensor<40x37xbf16>) {
  ^bb0(%in: f16, %out: bf16):
    %w32 = arith.extf %in : f16 to f32
    %t = arith.truncf %w32 : f32 to bf16
    linalg.yield %t : bf16
  } -> tensor<40x37xbf16>
  %e4 = tensor.empty() : tensor<11x37xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %y4 = linalg.matmul ins(%x11, %wtb : tensor<11x40xbf16>, tensor<40x37xbf16>) outs(%z4 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %u4 = tensor.cast %y4 : tensor<11x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u4) : (tensor<*xf32>) -> ()

  // An f32 input: the SIMT kernel.
  %xd = tensor.cast %xf : tensor<?x?xf32> to tensor<?x40xf32>
  %e5 = tensor.empty(%c70) : tensor<?x37xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %y5 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%xd, %ws : tensor<?x40xf32>, tensor<37x40xbf16>) outs(%z5 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %u5 = tensor.cast %y5 : tensor<?x37xf32> to tensor<*xf32>
  call @printMemrefF32(%u5) : (tensor<*xf32>) -> ()

  // A [k, n] weight with rows of 136 (a multiple of 8): cp.async stages
  // it k-major, ldmatrix .trans reads it; 136 columns are a full and a
  // partial 128-column tile for the large schedule.
  %c136 = arith.constant 136 : index
  %kf = call @values(%c40, %c136, %c5, %c3, %c11, %c5) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %kn = call @bf16(%kf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %kns = tensor.cast %kn : tensor<?x?xbf16> to tensor<40x136xbf16>
  %e6 = tensor.empty() : tensor<70x136xf32>
  %z6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<70x136xf32>) -> tensor<70x136xf32>
  %x70 = tensor.cast %x : tensor<?x?xbf16> to tensor<70x40xbf16>
  %y6 = linalg.matmul ins(%x70, %kns : tensor<70x40xbf16>, tensor<40x136xbf16>) outs(%z6 : tensor<70x136xf32>) -> tensor<70x136xf32>
  %u6 = tensor.cast %y6 : tensor<70x136xf32> to tensor<*xf32>
  call @printMemrefF32(%u6) : (tensor<*xf32>) -> ()

  // Both k-major: A stored [k, m] (72 columns), B [k, n].
  %atf = call @values(%c40, %c72, %c7, %c2, %c9, %c5) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %at = call @bf16(%atf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %ats = tensor.cast %at : tensor<?x?xbf16> to tensor<40x72xbf16>
  %e7 = tensor.empty() : tensor<72x136xf32>
  %z7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<72x136xf32>) -> tensor<72x136xf32>
  %y7 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%ats, %kns : tensor<40x72xbf16>, tensor<40x136xbf16>) outs(%z7 : tensor<72x136xf32>) -> tensor<72x136xf32>
  %u7 = tensor.cast %y7 : tensor<72x136xf32> to tensor<*xf32>
  call @printMemrefF32(%u7) : (tensor<*xf32>) -> ()
  return
}
}
