// Epilogues fused into the GPU's GEMM kernels (-tfm-gpu-tile-contraction,
// option fuse-epilogue): the elementwise op after a contraction runs in the
// kernel's stores. Run through the emulation, the kernels compute the CPU's
// numbers bit for bit (small-integer inputs: exact products and sums in f32,
// the same rounding to bf16). Cases, on tensor cores (bf16 operands) and on
// the SIMT kernel (an f32 operand):
//  1. an activation rounded to bf16 into a new buffer, using the column
//     index (linalg.index), the output buffer dropped;
//  2. a residual add written in place into the output (70 rows, dynamic);
//  3. a batched Q K^T whose epilogue stores it transposed ([b, n, m]) and
//     reads its own output's initial values (a mask);
//  4. SIMT: an epilogue whose contraction output is printed later, so the
//     kernel stores both;
//  5. two contractions, then their two epilogues (the second contraction's
//     epilogue runs in its kernel; the first's passes over it);
//  6. an op that reads the output at another element (a row's first
//     column): not an epilogue, it stays.
//
// RUN: tfm-opt %s -inline -symbol-dce -tfm-lower-to-llvm="vectorize=0" | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.cpu
// RUN: tfm-opt %s -inline -symbol-dce -tfm-set-target="gpu-chip=sm_80" -tfm-lower-to-nvvm="emulate=1" -mlir-pass-statistics 2> %t.stats | %mlir_runner | sed -e "s/base@ = 0x[0-9a-f]*//" > %t.gpu
// RUN: diff %t.cpu %t.gpu
// RUN: FileCheck %s < %t.gpu
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// STATS:      GPUTileContractionPass
// STATS-NEXT:   (S) 1 fused-broadcasts
// STATS-NEXT:   (S) 6 fused-epilogues
// STATS-NEXT:   (S) 1 kernels
// STATS-NEXT:   (S) 6 mma-kernels

// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [70, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 3 offset = 0 sizes = [2, 21, 9]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]
// CHECK-LABEL: Unranked Memref{{.*}}rank = 2 offset = 0 sizes = [11, 37]

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

func.func private @widen(%x: tensor<?x?xbf16>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = tensor.dim %x, %c0 : tensor<?x?xbf16>
  %c = tensor.dim %x, %c1 : tensor<?x?xbf16>
  %e = tensor.empty(%r, %c) : tensor<?x?xf32>
  %h = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<?x?xbf16>) outs(%e : tensor<?x?xf32>) {
  ^bb0(%in: bf16, %out: f32):
    %t = arith.extf %in : bf16 to f32
    linalg.yield %t : f32
  } -> tensor<?x?xf32>
  return %h : tensor<?x?xf32>
}

func.func private @print(%x: tensor<?x?xf32>) {
  %u = tensor.cast %x : tensor<?x?xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
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
  %c4 = arith.constant 4 : index
  %c40 = arith.constant 40 : index
  %c42 = arith.constant 42 : index
  %c70 = arith.constant 70 : index
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %two = arith.constant 2.0 : f32
  %three = arith.constant 3.0 : f32
  %big = arith.constant -1000.0 : f32

  %xf = call @values(%c70, %c40, %c7, %c3, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x = call @bf16(%xf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %xs = tensor.cast %x : tensor<?x?xbf16> to tensor<?x40xbf16>
  %wf = call @values(%c37, %c40, %c5, %c1, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w = call @bf16(%wf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %ws = tensor.cast %w : tensor<?x?xbf16> to tensor<37x40xbf16>
  %rows = tensor.dim %xs, %c0 : tensor<?x40xbf16>
  // A distinct [37, 40] bf16 weight per case (equal ones would be merged).
  %w2f = call @values(%c37, %c40, %c3, %c1, %c5, %c2) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w2b = call @bf16(%w2f) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %w2 = tensor.cast %w2b : tensor<?x?xbf16> to tensor<37x40xbf16>
  %w4f = call @values(%c37, %c40, %c1, %c2, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w4b = call @bf16(%w4f) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %w4 = tensor.cast %w4b : tensor<?x?xbf16> to tensor<37x40xbf16>
  %waf = call @values(%c37, %c40, %c2, %c3, %c9, %c4) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %wab = call @bf16(%waf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %wa = tensor.cast %wab : tensor<?x?xbf16> to tensor<37x40xbf16>
  %wbf = call @values(%c37, %c40, %c5, %c2, %c9, %c4) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %wbb = call @bf16(%wbf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %wb = tensor.cast %wbb : tensor<?x?xbf16> to tensor<37x40xbf16>
  %w6f = call @values(%c37, %c40, %c7, %c5, %c11, %c5) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %w6b = call @bf16(%w6f) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %w6 = tensor.cast %w6b : tensor<?x?xbf16> to tensor<37x40xbf16>

  // 1. max(y, 0) * 0.5 + column, rounded to bf16.
  %e1 = tensor.empty(%rows) : tensor<?x37xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %y1 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%xs, %ws : tensor<?x40xbf16>, tensor<37x40xbf16>) outs(%z1 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %h1e = tensor.empty(%rows) : tensor<?x37xbf16>
  %h1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y1 : tensor<?x37xf32>) outs(%h1e : tensor<?x37xbf16>) {
  ^bb0(%in: f32, %out: bf16):
    %r = arith.maximumf %in, %zero : f32
    %s = arith.mulf %r, %half : f32
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i64
    %jf = arith.sitofp %ji : i64 to f32
    %t = arith.addf %s, %jf : f32
    %b = arith.truncf %t : f32 to bf16
    linalg.yield %b : bf16
  } -> tensor<?x37xbf16>
  %h1d = tensor.cast %h1 : tensor<?x37xbf16> to tensor<?x?xbf16>
  %p1 = call @widen(%h1d) : (tensor<?x?xbf16>) -> tensor<?x?xf32>
  call @print(%p1) : (tensor<?x?xf32>) -> ()

  // 2. res + 2 y, in place.
  %resf = call @values(%c70, %c37, %c3, %c1, %c9, %c5) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %res = tensor.cast %resf : tensor<?x?xf32> to tensor<?x37xf32>
  %e2 = tensor.empty(%rows) : tensor<?x37xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %y2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%xs, %w2 : tensor<?x40xbf16>, tensor<37x40xbf16>) outs(%z2 : tensor<?x37xf32>) -> tensor<?x37xf32>
  %r2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%res : tensor<?x37xf32>) outs(%y2 : tensor<?x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.mulf %out, %two : f32
    %t = arith.addf %in, %d : f32
    linalg.yield %t : f32
  } -> tensor<?x37xf32>
  %r2d = tensor.cast %r2 : tensor<?x37xf32> to tensor<?x?xf32>
  call @print(%r2d) : (tensor<?x?xf32>) -> ()

  // 3. Q K^T of 2 heads, stored [b, n, m], masked where n > m + 3 through
  //    its own initial values.
  %qf = call @values(%c9, %c40, %c3, %c2, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %q = call @bf16(%qf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %qs = tensor.cast %q : tensor<?x?xbf16> to tensor<9x40xbf16>
  %kf = call @values(%c42, %c40, %c5, %c3, %c9, %c4) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %k = call @bf16(%kf) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %ks = tensor.cast %k : tensor<?x?xbf16> to tensor<42x40xbf16>
  %q2 = tensor.expand_shape %qs [[0, 1], [2]] output_shape [1, 9, 40] : tensor<9x40xbf16> into tensor<1x9x40xbf16>
  %qb = tensor.concat dim(0) %q2, %q2 : (tensor<1x9x40xbf16>, tensor<1x9x40xbf16>) -> tensor<2x9x40xbf16>
  %kb = tensor.expand_shape %ks [[0, 1], [2]] output_shape [2, 21, 40] : tensor<42x40xbf16> into tensor<2x21x40xbf16>
  // The mask first: an op that wrote the epilogue's output in between
  // would keep the epilogue out of the kernel.
  %mask0 = tensor.empty() : tensor<2x21x9xf32>
  %mask = linalg.generic {indexing_maps = [affine_map<(b, n, m) -> (b, n, m)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(%mask0 : tensor<2x21x9xf32>) {
  ^bb0(%out: f32):
    %n = linalg.index 1 : index
    %m = linalg.index 2 : index
    %m3 = arith.addi %m, %c3 : index
    %far = arith.cmpi ugt, %n, %m3 : index
    %v = arith.select %far, %big, %zero : f32
    linalg.yield %v : f32
  } -> tensor<2x21x9xf32>
  %e3 = tensor.empty() : tensor<2x9x21xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x9x21xf32>) -> tensor<2x9x21xf32>
  %s3 = linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%qb, %kb : tensor<2x9x40xbf16>, tensor<2x21x40xbf16>) outs(%z3 : tensor<2x9x21xf32>) {
  ^bb0(%a: bf16, %b: bf16, %acc: f32):
    %aw = arith.extf %a : bf16 to f32
    %bw = arith.extf %b : bf16 to f32
    %p = arith.mulf %aw, %bw : f32
    %t = arith.addf %acc, %p : f32
    linalg.yield %t : f32
  } -> tensor<2x9x21xf32>
  %t3 = linalg.generic {indexing_maps = [affine_map<(b, n, m) -> (b, m, n)>, affine_map<(b, n, m) -> (b, n, m)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%s3 : tensor<2x9x21xf32>) outs(%mask : tensor<2x21x9xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.addf %in, %out : f32
    linalg.yield %t : f32
  } -> tensor<2x21x9xf32>
  %u3 = tensor.cast %t3 : tensor<2x21x9xf32> to tensor<*xf32>
  call @printMemrefF32(%u3) : (tensor<*xf32>) -> ()

  // 4. SIMT (an f32 operand): 3 y - row, and y itself printed after.
  %x11f = call @values(%c11, %c40, %c3, %c5, %c7, %c3) : (index, index, index, index, index, index) -> tensor<?x?xf32>
  %x11 = tensor.cast %x11f : tensor<?x?xf32> to tensor<11x40xf32>
  %e4 = tensor.empty() : tensor<11x37xf32>
  %z4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %y4 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x11, %w4 : tensor<11x40xf32>, tensor<37x40xbf16>) outs(%z4 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %g4e = tensor.empty() : tensor<11x37xf32>
  %g4 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%y4 : tensor<11x37xf32>) outs(%g4e : tensor<11x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %ii = arith.index_cast %i : index to i64
    %if = arith.sitofp %ii : i64 to f32
    %s = arith.mulf %in, %three : f32
    %t = arith.subf %s, %if : f32
    linalg.yield %t : f32
  } -> tensor<11x37xf32>
  %g4d = tensor.cast %g4 : tensor<11x37xf32> to tensor<?x?xf32>
  call @print(%g4d) : (tensor<?x?xf32>) -> ()
  %y4d = tensor.cast %y4 : tensor<11x37xf32> to tensor<?x?xf32>
  call @print(%y4d) : (tensor<?x?xf32>) -> ()

  // 5. Two projections of the same rows, then both epilogues.
  %x11b = call @bf16(%x11f) : (tensor<?x?xf32>) -> tensor<?x?xbf16>
  %x11s = tensor.cast %x11b : tensor<?x?xbf16> to tensor<11x40xbf16>
  %e5 = tensor.empty() : tensor<11x37xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %ya = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x11s, %wa : tensor<11x40xbf16>, tensor<37x40xbf16>) outs(%z5 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %e6 = tensor.empty() : tensor<11x37xf32>
  %z6 = linalg.fill ins(%zero : f32) outs(%e6 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %yb = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x11s, %wb : tensor<11x40xbf16>, tensor<37x40xbf16>) outs(%z6 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %ga0 = tensor.empty() : tensor<11x37xf32>
  %ga = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%ya : tensor<11x37xf32>) outs(%ga0 : tensor<11x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.mulf %in, %half : f32
    linalg.yield %t : f32
  } -> tensor<11x37xf32>
  %gb0 = tensor.empty() : tensor<11x37xf32>
  %gb = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%yb : tensor<11x37xf32>) outs(%gb0 : tensor<11x37xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = arith.subf %zero, %in : f32
    linalg.yield %t : f32
  } -> tensor<11x37xf32>
  %gad = tensor.cast %ga : tensor<11x37xf32> to tensor<?x?xf32>
  call @print(%gad) : (tensor<?x?xf32>) -> ()
  %gbd = tensor.cast %gb : tensor<11x37xf32> to tensor<?x?xf32>
  call @print(%gbd) : (tensor<?x?xf32>) -> ()

  // 6. y - y[i, 0]: reads another element of the output.
  %e7 = tensor.empty() : tensor<11x37xf32>
  %z7 = linalg.fill ins(%zero : f32) outs(%e7 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %y7 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x11s, %w6 : tensor<11x40xbf16>, tensor<37x40xbf16>) outs(%z7 : tensor<11x37xf32>) -> tensor<11x37xf32>
  %y7c = tensor.extract_slice %y7[0, 0] [11, 1] [1, 1] : tensor<11x37xf32> to tensor<11xf32>
  %g70 = tensor.empty() : tensor<11x37xf32>
  %g7 = linalg.generic {indexing_maps = [#id2, affine_map<(i, j) -> (i)>, #id2], iterator_types = ["parallel", "parallel"]} ins(%y7, %y7c : tensor<11x37xf32>, tensor<11xf32>) outs(%g70 : tensor<11x37xf32>) {
  ^bb0(%in: f32, %first: f32, %out: f32):
    %t = arith.subf %in, %first : f32
    linalg.yield %t : f32
  } -> tensor<11x37xf32>
  %g7d = tensor.cast %g7 : tensor<11x37xf32> to tensor<?x?xf32>
  call @print(%g7d) : (tensor<?x?xf32>) -> ()
  return
}
}
