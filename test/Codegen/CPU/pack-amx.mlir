// RUN: tfm-opt %s -tfm-pack-amx -split-input-file | FileCheck %s
// RUN: tfm-opt %s -tfm-pack-amx -split-input-file -mlir-pass-statistics 2>&1 >/dev/null | FileCheck %s --check-prefix=STATS

// An in_out weight W[k, n] (K = 64, N = 80) read by a rank-3 contraction on
// a bf16 module for a CPU with AMX: the activation is converted to bf16
// once and seen as [.., K/2, 2]; W is copied once (tfm.prepare) into the
// VNNI layout Wp[N/16, K/2, 16, 2] = bf16(W[2kp + t, 16nb + r]) of its
// first 64 columns (a multiple of 32); the contraction reads both in bf16
// and accumulates in f32 on the output seen as [.., N/16, 16]; the last 16
// columns stay an f32 contraction on a slice of W. The module now needs
// AMX at run time.
// CHECK-DAG: #[[VNNI:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3, d0, d2)>
// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5)>
// CHECK-DAG: #[[B:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3, d4, d5)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d4)>
// CHECK: module attributes {tfm.cpu_features = ["amx-bf16"]
// CHECK-LABEL: func @in_out
// CHECK: %[[XBF:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<?x?x64xf32>) outs(%{{.*}} : tensor<?x?x64xbf16>)
// CHECK: arith.truncf %{{.*}} : f32 to bf16
// CHECK: %[[W:.*]] = tfm.weight "w" : tensor<64x80xf32>
// CHECK: %[[W64:.*]] = tensor.extract_slice %[[W]][0, 0] [64, 64] [1, 1]
// CHECK: %[[W4:.*]] = tensor.expand_shape %[[W64]] {{\[\[}}0, 1], [2, 3]] output_shape [32, 2, 4, 16]
// CHECK: %[[WP:.*]] = linalg.generic {indexing_maps = [#[[VNNI]], #{{.*}}], {{.*}} ins(%[[W4]] : tensor<32x2x4x16xf32>) outs(%{{.*}} : tensor<4x32x16x2xbf16>) attrs = {tfm.prepare = "w:amx[n=1]"}
// CHECK: arith.truncf
// CHECK: %[[X4:.*]] = tensor.expand_shape %[[XBF]] {{\[\[}}0], [1], [2, 3]] {{.*}} into tensor<?x?x32x2xbf16>
// CHECK: %[[ACC64:.*]] = tensor.extract_slice %arg1[0, 0, 0] [%{{.*}}, %{{.*}}, 64]
// CHECK: %[[ACC4:.*]] = tensor.expand_shape %[[ACC64]] {{\[\[}}0], [1], [2, 3]] {{.*}} into tensor<?x?x4x16xf32>
// CHECK: %[[G:.*]] = linalg.generic {indexing_maps = [#[[A]], #[[B]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel", "reduction"]} ins(%[[X4]], %[[WP]] : tensor<?x?x32x2xbf16>, tensor<4x32x16x2xbf16>) outs(%[[ACC4]] : tensor<?x?x4x16xf32>)
// CHECK-NEXT: ^bb0(%[[IA:.*]]: bf16, %[[IB:.*]]: bf16, %[[O:.*]]: f32):
// CHECK-NEXT: %[[EA:.*]] = arith.extf %[[IA]] : bf16 to f32
// CHECK-NEXT: %[[EB:.*]] = arith.extf %[[IB]] : bf16 to f32
// CHECK-NEXT: %[[M:.*]] = arith.mulf %[[EA]], %[[EB]]
// CHECK-NEXT: arith.addf %[[O]], %[[M]]
// CHECK: %[[G2:.*]] = tensor.collapse_shape %[[G]] {{\[\[}}0], [1], [2, 3]] : tensor<?x?x4x16xf32> into tensor<?x?x64xf32>
// CHECK: %[[INS:.*]] = tensor.insert_slice %[[G2]] into %arg1[0, 0, 0]
// CHECK: %[[REST:.*]] = tensor.extract_slice %[[INS]][0, 0, 64] [%{{.*}}, %{{.*}}, 16]
// CHECK: %[[WREST:.*]] = tensor.extract_slice %{{.*}}[0, 64] [64, 16] [1, 1] : tensor<64x80xf32> to tensor<64x16xf32>
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[WREST]] : tensor<?x?x64xf32>, tensor<64x16xf32>) outs(%[[REST]] : tensor<?x?x16xf32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[INS]][0, 0, 64]
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention    - Attention key-block contractions put in AMX form
// STATS-NEXT: (S) 1 amx-contractions - Contractions put in AMX form
// STATS-NEXT: (S) 1 amx-weights      - VNNI-packed bf16 weight layouts made
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS-NEXT: (S) 2 amx-contractions
// STATS-NEXT: (S) 1 amx-weights
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS-NEXT: (S) 1 amx-contractions
// STATS-NEXT: (S) 1 amx-weights
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w", "v"], tfm.target = #amx} {
  func.func @in_out(%x: tensor<?x?x64xf32>, %acc: tensor<?x?x80xf32>) -> tensor<?x?x80xf32> {
    %w = tfm.weight "w" : tensor<64x80xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(b, t, n, k) -> (b, t, k)>, affine_map<(b, t, n, k) -> (k, n)>, affine_map<(b, t, n, k) -> (b, t, n)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x?x64xf32>, tensor<64x80xf32>) outs(%acc : tensor<?x?x80xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x?x80xf32>
    return %r : tensor<?x?x80xf32>
  }
}

// -----

// An out_in weight W[n, k] (a named matmul_transpose_b-style generic) whose
// activation two contractions read: one conversion to bf16 for both, and
// Wp[nb, kp, r, t] = bf16(W[16nb + r, 2kp + t]).
// CHECK-DAG: #[[VNNI2:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
// CHECK-LABEL: func @out_in_shared
// CHECK-COUNT-1: arith.truncf %{{.*}} : f32 to bf16
// CHECK: tfm.prepare = "v:amx[n=0]"
// CHECK-NOT: ins(%arg0 : tensor<?x32xf32>) outs(%{{.*}} : tensor<?x32xbf16>)
// CHECK: return
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["v"], tfm.target = #amx} {
  func.func @out_in_shared(%x: tensor<?x32xf32>, %acc: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>) {
    %v = tfm.weight "v" : tensor<64x32xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %v : tensor<?x32xf32>, tensor<64x32xf32>) outs(%acc : tensor<?x64xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x64xf32>
    %r2 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %v : tensor<?x32xf32>, tensor<64x32xf32>) outs(%r : tensor<?x64xf32>) {
    ^bb0(%a: f32, %b: f32, %c: f32):
      %m = arith.mulf %a, %b : f32
      %s = arith.addf %c, %m : f32
      linalg.yield %s : f32
    }  -> tensor<?x64xf32>
    return %r, %r2 : tensor<?x64xf32>, tensor<?x64xf32>
  }
}

// -----

// A static block of a weight (GPT-2's fused QKV weight, read as three
// blocks): the block is prepared, under a name that says which.
// CHECK-LABEL: func @block
// CHECK: %[[W:.*]] = tfm.weight "qkv" : tensor<64x96xf32>
// CHECK: %[[B:.*]] = tensor.extract_slice %[[W]][0, 32] [64, 32] [1, 1] : tensor<64x96xf32> to tensor<64x32xf32>
// CHECK: tensor.expand_shape %[[B]]
// CHECK: tfm.prepare = "qkv[0:64,32:64]:amx[n=1]"
// CHECK-NOT: tfm.prepare
// CHECK: return
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["qkv"], tfm.target = #amx} {
  func.func @block(%x: tensor<?x64xf32>, %acc: tensor<?x32xf32>) -> tensor<?x32xf32> {
    %w = tfm.weight "qkv" : tensor<64x96xf32>
    %k = tensor.extract_slice %w[0, 32] [64, 32] [1, 1] : tensor<64x96xf32> to tensor<64x32xf32>
    %r = linalg.matmul ins(%x, %k : tensor<?x64xf32>, tensor<64x32xf32>) outs(%acc : tensor<?x32xf32>) -> tensor<?x32xf32>
    return %r : tensor<?x32xf32>
  }
}

// -----

// A CPU with AMX and AVX512-BF16 (every Sapphire Rapids): the tiles, whose
// few last rows of a block may run on AVX512-BF16's dot products
// (-tfm-cpu-configure's tail_dot_rows): the module needs both.
// CHECK: module attributes {tfm.cpu_features = ["amx-bf16", "avx512bf16"]
// CHECK-LABEL: func @both
// CHECK: tfm.prepare = "w:amx[n=1]"
#both = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+avx512bf16,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #both} {
  func.func @both(%x: tensor<?x64xf32>, %acc: tensor<?x64xf32>) -> tensor<?x64xf32> {
    %w = tfm.weight "w" : tensor<64x64xf32>
    %r = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %r : tensor<?x64xf32>
  }
}

// -----

// A CPU with AVX512-BF16 and no AMX (Zen 4): the same packing, for
// -tfm-cpu-lower-amx's vector dot products; the module needs AVX512-BF16
// at run time.
// CHECK: module attributes {tfm.cpu_features = ["avx512bf16"]
// CHECK-LABEL: func @dot_products
// CHECK: tfm.prepare = "w:amx[n=1]"
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<?x32x2xbf16>, tensor<4x32x16x2xbf16>) outs(%{{.*}} : tensor<?x4x16xf32>)
#avx512 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #avx512} {
  func.func @dot_products(%x: tensor<?x64xf32>, %acc: tensor<?x64xf32>) -> tensor<?x64xf32> {
    %w = tfm.weight "w" : tensor<64x64xf32>
    %r = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %r : tensor<?x64xf32>
  }
}

// -----

// Left alone: a target with neither AMX nor AVX512-BF16 (the f32 register
// kernels run the rounded inputs), K not a multiple of 32, a weight the
// runtime does not round (f32 precision), and a contraction of two
// activations.
// CHECK-LABEL: func @no_amx
// CHECK-NOT: bf16
// CHECK: return
#avx2 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v3", features = "+avx2,+fma", vector_bits = 256, vector_registers = 16, l1_bytes = 32768, l2_bytes = 1048576, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"], tfm.target = #avx2} {
  func.func @no_amx(%x: tensor<?x64xf32>, %acc: tensor<?x64xf32>) -> tensor<?x64xf32> {
    %w = tfm.weight "w" : tensor<64x64xf32>
    %r = linalg.matmul ins(%x, %w : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %r : tensor<?x64xf32>
  }
}

// -----

// CHECK-LABEL: func @left_alone
// CHECK-NOT: bf16
// CHECK: return
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["odd"], tfm.target = #amx} {
  func.func @left_alone(%x: tensor<?x48xf32>, %y: tensor<?x64xf32>, %z: tensor<64x64xf32>, %acc: tensor<?x64xf32>) -> (tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>) {
    %odd = tfm.weight "odd" : tensor<48x64xf32>
    %r1 = linalg.matmul ins(%x, %odd : tensor<?x48xf32>, tensor<48x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
    %unrounded = tfm.weight "unrounded" : tensor<64x64xf32>
    %r2 = linalg.matmul ins(%y, %unrounded : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
    %r3 = linalg.matmul ins(%y, %z : tensor<?x64xf32>, tensor<64x64xf32>) outs(%acc : tensor<?x64xf32>) -> tensor<?x64xf32>
    return %r1, %r2, %r3 : tensor<?x64xf32>, tensor<?x64xf32>, tensor<?x64xf32>
  }
}

// -----

// The key loop of a tiled attention: S = Q K^T reads the K block as
// K^T ([Bc, D] read (n, k)), acc += P V reads the V block as (k, n). The
// query tile is converted to bf16 once, before the loop; the K block is
// converted in the loop and its rows of bf16 pairs transposed 16 x 16 as
// 32-bit lanes; the V block's rows 2kp and 2kp + 1 interleaved as 16-bit
// lanes. A matmul outside a key loop (the untiled attention's, of two
// activations) stays as it is.
// CHECK-LABEL: func @key_loop
// CHECK: %[[QB:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<64x64xf32>) outs(%{{.*}} : tensor<64x64xbf16>)
// CHECK: scf.for
// CHECK: %[[KB:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x64xbf16>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4{{(_[0-9]+)?}} step
// CHECK-COUNT-16: vector.transfer_read %[[KB]]
// CHECK-COUNT-64: vector.shuffle
// CHECK-COUNT-16: vector.transfer_write {{.*}} : vector<32xbf16>, tensor<2x32x32xbf16>
// CHECK: %[[KP:.*]] = tensor.expand_shape {{.*}} into tensor<2x32x16x2xbf16>
// CHECK: %[[QA:.*]] = tensor.expand_shape %[[QB]] {{.*}} into tensor<64x32x2xbf16>
// CHECK: linalg.generic {{.*}} ins(%[[QA]], %[[KP]] : tensor<64x32x2xbf16>, tensor<2x32x16x2xbf16>) outs(%{{.*}} : tensor<64x2x16xf32>)
// CHECK: %[[VB:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<32x64xbf16>)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c16{{(_[0-9]+)?}} step
// CHECK-COUNT-4: vector.shuffle {{.*}} [0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23, 8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31] : vector<16xi16>, vector<16xi16>
// CHECK: %[[VP:.*]] = tensor.expand_shape {{.*}} into tensor<4x16x16x2xbf16>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[VP]] : tensor<64x16x2xbf16>, tensor<4x16x16x2xbf16>) outs(%{{.*}} : tensor<64x4x16xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// CHECK: linalg.matmul
// CHECK: return
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS-NEXT: (S) 1 amx-contractions
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS-NEXT: (S) 1 amx-contractions
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS: PackAmxPass
// STATS-NEXT: (S) 2 amx-attention
// STATS-NEXT: (S) 0 amx-contractions
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
module attributes {tfm.precision = bf16, tfm.target = #amx} {
  func.func @key_loop(%q: tensor<64x64xf32>, %k: tensor<512x64xf32>, %v: tensor<512x64xf32>, %s0: tensor<64x32xf32>, %acc0: tensor<64x64xf32>, %n: index, %x: tensor<64x512xf32>) -> (tensor<64x64xf32>, tensor<64x64xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %r:2 = scf.for %i = %c0 to %n step %c32 iter_args(%s = %s0, %acc = %acc0) -> (tensor<64x32xf32>, tensor<64x64xf32>) {
      %kb = tensor.extract_slice %k[%i, 0] [32, 64] [1, 1] : tensor<512x64xf32> to tensor<32x64xf32>
      %vb = tensor.extract_slice %v[%i, 0] [32, 64] [1, 1] : tensor<512x64xf32> to tensor<32x64xf32>
      %s1 = linalg.matmul indexing_maps = #qk ins(%q, %kb : tensor<64x64xf32>, tensor<32x64xf32>) outs(%s : tensor<64x32xf32>) -> tensor<64x32xf32>
      %acc1 = linalg.matmul ins(%s1, %vb : tensor<64x32xf32>, tensor<32x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
      scf.yield %s1, %acc1 : tensor<64x32xf32>, tensor<64x64xf32>
    } {tfm.key_blocks = #tfm.key_blocks<full>}
    %u = linalg.matmul ins(%x, %v : tensor<64x512xf32>, tensor<512x64xf32>) outs(%acc0 : tensor<64x64xf32>) -> tensor<64x64xf32>
    return %r#1, %u : tensor<64x64xf32>, tensor<64x64xf32>
  }
}

// -----

// In the attention's forall, a whole K block that is -tfm-apply-precision's
// rounding of a slice of a K tensor from outside the forall is read from
// that tensor converted to bf16 once, before the forall (not once per query
// block).
// CHECK-LABEL: func @key_block_converted_once
// CHECK: %[[KBF:.*]] = linalg.generic {{.*}} ins(%arg1 : tensor<4x512x64xf32>) outs(%{{.*}} : tensor<4x512x64xbf16>)
// CHECK: scf.forall
// CHECK: scf.for
// CHECK: tensor.extract_slice %[[KBF]][%{{.*}}, %{{.*}}, 0] [1, 32, 64] [1, 1, 1] : tensor<4x512x64xbf16> to tensor<32x64xbf16>
// CHECK: vector.transfer_read
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
#id = affine_map<(i, j) -> (i, j)>
module attributes {tfm.precision = bf16, tfm.target = #amx} {
  func.func @key_block_converted_once(%q: tensor<64x64xf32>, %k: tensor<4x512x64xf32>, %s0: tensor<4x64x32xf32>, %n: index) -> tensor<4x64x32xf32> {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %r = scf.forall (%h) in (4) shared_outs(%out = %s0) -> (tensor<4x64x32xf32>) {
      %s = tensor.extract_slice %out[%h, 0, 0] [1, 64, 32] [1, 1, 1] : tensor<4x64x32xf32> to tensor<64x32xf32>
      %l = scf.for %i = %c0 to %n step %c32 iter_args(%acc = %s) -> (tensor<64x32xf32>) {
        %kb = tensor.extract_slice %k[%h, %i, 0] [1, 32, 64] [1, 1, 1] : tensor<4x512x64xf32> to tensor<32x64xf32>
        %e = tensor.empty() : tensor<32x64xf32>
        %kr = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%kb : tensor<32x64xf32>) outs(%e : tensor<32x64xf32>) {
        ^bb0(%x: f32, %o: f32):
          %t = arith.truncf %x : f32 to bf16
          %w = arith.extf %t : bf16 to f32
          linalg.yield %w : f32
        } -> tensor<32x64xf32>
        %s1 = linalg.matmul indexing_maps = #qk ins(%q, %kr : tensor<64x64xf32>, tensor<32x64xf32>) outs(%acc : tensor<64x32xf32>) -> tensor<64x32xf32>
        scf.yield %s1 : tensor<64x32xf32>
      } {tfm.key_blocks = #tfm.key_blocks<full>}
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %l into %out[%h, 0, 0] [1, 64, 32] [1, 1, 1] : tensor<64x32xf32> into tensor<4x64x32xf32>
      }
    }
    return %r : tensor<4x64x32xf32>
  }
}

// -----

// Key loops left in f32: a query tile of fewer than 32 rows (a decode
// step's), and a head dimension that is no multiple of 32 (Q K^T's k).
// CHECK-LABEL: func @key_loop_left_alone
// CHECK-NOT: bf16
// CHECK: return
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
module attributes {tfm.precision = bf16, tfm.target = #amx} {
  func.func @key_loop_left_alone(%q: tensor<16x64xf32>, %k: tensor<512x64xf32>, %q2: tensor<64x48xf32>, %k2: tensor<512x48xf32>, %s0: tensor<16x32xf32>, %t0: tensor<64x32xf32>, %n: index) -> (tensor<16x32xf32>, tensor<64x32xf32>) {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %r:2 = scf.for %i = %c0 to %n step %c32 iter_args(%s = %s0, %t = %t0) -> (tensor<16x32xf32>, tensor<64x32xf32>) {
      %kb = tensor.extract_slice %k[%i, 0] [32, 64] [1, 1] : tensor<512x64xf32> to tensor<32x64xf32>
      %s1 = linalg.matmul indexing_maps = #qk ins(%q, %kb : tensor<16x64xf32>, tensor<32x64xf32>) outs(%s : tensor<16x32xf32>) -> tensor<16x32xf32>
      %kb2 = tensor.extract_slice %k2[%i, 0] [32, 48] [1, 1] : tensor<512x48xf32> to tensor<32x48xf32>
      %t1 = linalg.matmul indexing_maps = #qk ins(%q2, %kb2 : tensor<64x48xf32>, tensor<32x48xf32>) outs(%t : tensor<64x32xf32>) -> tensor<64x32xf32>
      scf.yield %s1, %t1 : tensor<16x32xf32>, tensor<64x32xf32>
    } {tfm.key_blocks = #tfm.key_blocks<full>}
    return %r#0, %r#1 : tensor<16x32xf32>, tensor<64x32xf32>
  }
}

// -----

// Without AMX, on AVX512-BF16 (a Zen 4), a key loop's two contractions take
// the same packed form, for -tfm-cpu-lower-amx's vector dot products; the
// module needs AVX512-BF16.
// CHECK: module attributes {tfm.cpu_features = ["avx512bf16"]
// CHECK-LABEL: func @key_loop_dot_products
// CHECK: scf.for
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x2x16xf32>)
// CHECK: linalg.generic {{.*}} outs(%{{.*}} : tensor<64x4x16xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
// STATS: PackAmxPass
// STATS-NEXT: (S) 1 amx-attention
// STATS: PackAmxPass
// STATS-NEXT: (S) 0 amx-attention
// STATS: PackAmxPass
// STATS-NEXT: (S) 2 amx-attention
// STATS-NEXT: (S) 0 amx-contractions
#avx512 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 2>
#qk = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
module attributes {tfm.precision = bf16, tfm.target = #avx512} {
  func.func @key_loop_dot_products(%q: tensor<64x64xf32>, %k: tensor<512x64xf32>, %v: tensor<512x64xf32>, %s0: tensor<64x32xf32>, %acc0: tensor<64x64xf32>, %n: index) -> tensor<64x64xf32> {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %r:2 = scf.for %i = %c0 to %n step %c32 iter_args(%s = %s0, %acc = %acc0) -> (tensor<64x32xf32>, tensor<64x64xf32>) {
      %kb = tensor.extract_slice %k[%i, 0] [32, 64] [1, 1] : tensor<512x64xf32> to tensor<32x64xf32>
      %vb = tensor.extract_slice %v[%i, 0] [32, 64] [1, 1] : tensor<512x64xf32> to tensor<32x64xf32>
      %s1 = linalg.matmul indexing_maps = #qk ins(%q, %kb : tensor<64x64xf32>, tensor<32x64xf32>) outs(%s : tensor<64x32xf32>) -> tensor<64x32xf32>
      %acc1 = linalg.matmul ins(%s1, %vb : tensor<64x32xf32>, tensor<32x64xf32>) outs(%acc : tensor<64x64xf32>) -> tensor<64x64xf32>
      scf.yield %s1, %acc1 : tensor<64x32xf32>, tensor<64x64xf32>
    } {tfm.key_blocks = #tfm.key_blocks<full>}
    return %r#1 : tensor<64x64xf32>
  }
}
