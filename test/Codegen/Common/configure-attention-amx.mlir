// bf16 on a CPU with AMX or AVX512-BF16 (-tfm-pack-amx puts the key
// blocks' contractions on tiles or vector dot products): half of L2 and key
// blocks of 32 keys (the n of Q K^T's and the k of P V's kernels). In f32,
// or on a CPU with neither, an eighth of L2 and key blocks of whole
// vectors, as in configure-attention.mlir. A decode step's attention (a
// static Tq of 1) keeps the default untiled bound of 256 keys.
// RUN: tfm-opt %s -split-input-file -tfm-configure-attention | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-configure-attention=max-block-k=128 | FileCheck %s --check-prefix=CAP128

// A 1 MiB L2: 512 KiB for the tiles; D = 128, 8 heads per K/V head.
// CHECK-LABEL: func @amx
// CHECK: #tfm.attention_tiling<block_q = 64, block_k = 64, group = 2, footprint_bytes = {{[0-9]+}}, budget_bytes = 524288, untiled_max_keys = 31, rescale_threshold = 8>
// Short sequences: tiled from 32 keys up (the pass's default keeps up to
// 256 keys untiled, and still does below); a dynamic Tk branches at 31.
// CHECK-LABEL: func @amx_short
// CHECK: tfm.attention {{.*}}#tfm.attention_tiling<block_q = 128, block_k = 128
// CHECK: tfm.attention {{.*}}#tfm.attention_untiled
// CHECK-LABEL: func @amx_dynamic
// CHECK: untiled_max_keys = 31
// CHECK-LABEL: func @amx_d64
// CHECK: #tfm.attention_tiling<block_q = 128, block_k = 128, group = 1, footprint_bytes = {{[0-9]+}}, budget_bytes = 524288, untiled_max_keys = 31, rescale_threshold = 8>
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 1048576, threads = 2>
module attributes {tfm.precision = bf16, tfm.target = #amx} {
  func.func @amx(%q: tensor<1x16x?x128xf32>, %k: tensor<1x8x?x128xf32>, %v: tensor<1x8x?x128xf32>) -> tensor<1x16x?x128xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.08838834764831845 : f64} : tensor<1x16x?x128xf32>, tensor<1x8x?x128xf32>, tensor<1x8x?x128xf32> -> tensor<1x16x?x128xf32>
    return %o : tensor<1x16x?x128xf32>
  }
  func.func @amx_short(%q: tensor<1x12x128x64xf32>, %k: tensor<1x12x128x64xf32>, %v: tensor<1x12x128x64xf32>, %q2: tensor<1x12x16x64xf32>) -> (tensor<1x12x128x64xf32>, tensor<1x12x16x64xf32>) {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32>, tensor<1x12x128x64xf32> -> tensor<1x12x128x64xf32>
    %o2 = tfm.attention %q2, %q2, %q2 {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32>, tensor<1x12x16x64xf32> -> tensor<1x12x16x64xf32>
    return %o, %o2 : tensor<1x12x128x64xf32>, tensor<1x12x16x64xf32>
  }
  func.func @amx_dynamic(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
  func.func @amx_d64(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
}

// -----

// f32 on the same CPU: an eighth of L2; bf16 on a Zen 4 (AVX512-BF16, no
// AMX): as with AMX; bf16 on AVX-512 without BF16: an eighth of L2.
// CHECK-LABEL: func @f32
// CHECK: budget_bytes = 131072
// CHECK-LABEL: func @no_amx
// CHECK: #tfm.attention_tiling<block_q = 128, block_k = 128, group = 1, footprint_bytes = {{[0-9]+}}, budget_bytes = 524288, untiled_max_keys = 31, rescale_threshold = 8>
// CHECK-LABEL: func @decode
// CHECK: tfm.attention {{.*}}#tfm.attention_untiled
// CHECK: untiled_max_keys = 256, rescale_threshold = 8>
// CHECK-LABEL: func @no_bf16
// CHECK: #tfm.attention_tiling<block_q = 64, block_k = 32, group = 1, footprint_bytes = {{[0-9]+}}, budget_bytes = 131072, untiled_max_keys = 256, transposed_scores = true, rescale_threshold = 8>
#amx = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 1048576, threads = 2>
module attributes {tfm.target = #amx} {
  func.func @f32(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
}

// -----

#zen4 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver4", features = "+avx512f,+avx512bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 2>
module attributes {tfm.precision = bf16, tfm.target = #zen4} {
  func.func @no_amx(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
  func.func @decode(%q: tensor<?x12x1x64xf32>, %k: tensor<?x12x200x64xf32>, %v: tensor<?x12x200x64xf32>, %q2: tensor<?x12x1x64xf32>, %k2: tensor<?x12x?x64xf32>, %v2: tensor<?x12x?x64xf32>) -> (tensor<?x12x1x64xf32>, tensor<?x12x1x64xf32>) {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x1x64xf32>, tensor<?x12x200x64xf32>, tensor<?x12x200x64xf32> -> tensor<?x12x1x64xf32>
    %o2 = tfm.attention %q2, %k2, %v2 {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x1x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x1x64xf32>
    return %o, %o2 : tensor<?x12x1x64xf32>, tensor<?x12x1x64xf32>
  }
}

// -----

#v4 = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "x86-64-v4", features = "+avx512f", vector_bits = 512, vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 2>
module attributes {tfm.precision = bf16, tfm.target = #v4} {
  func.func @no_bf16(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
}

// -----

// On a 2 MiB L2 (1 MiB for the tiles), an op without a mask whose key
// blocks run on AMX tiles takes key blocks of up to 256 (max-block-k's
// default 0); a causal one, and AVX512-BF16's dot products, 128; an
// explicit max-block-k=128 caps all of them.
// CHECK-LABEL: func @amx_2m_unmasked
// CHECK: #tfm.attention_tiling<block_q = 128, block_k = 256, group = 1
// CHECK-LABEL: func @amx_2m_causal
// CHECK: #tfm.attention_tiling<block_q = 128, block_k = 128, group = 1
// Not where it was not measured: a GQA group (4 query heads per K/V
// head), a decode step (static Tq = 1: f32 kernels) and a static Tq under
// 32 keep 128.
// CHECK-LABEL: func @amx_2m_gqa
// CHECK: #tfm.attention_tiling<block_q = {{[0-9]+}}, block_k = {{[0-9]+}}, group = 4
// CHECK-NOT: block_k = 256
// CHECK-LABEL: func @amx_2m_decode
// CHECK: #tfm.attention_tiling<block_q = 1, block_k = 128,
// CHECK-LABEL: func @amx_2m_short_q
// CHECK: #tfm.attention_tiling<block_q = 8, block_k = 128,
// CAP128-LABEL: func @amx_2m_unmasked
// CAP128: #tfm.attention_tiling<block_q = 128, block_k = 128, group = 1
#amx2m = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "sapphirerapids", features = "+avx512f,+amx-tile,+amx-bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.target = #amx2m} {
  func.func @amx_2m_unmasked(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
  func.func @amx_2m_causal(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
  func.func @amx_2m_gqa(%q: tensor<1x16x?x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x?x64xf32>) -> tensor<1x16x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x16x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x16x?x64xf32>
    return %o : tensor<1x16x?x64xf32>
  }
  func.func @amx_2m_decode(%q: tensor<?x12x1x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x1x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<?x12x1x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x1x64xf32>
    return %o : tensor<?x12x1x64xf32>
  }
  func.func @amx_2m_short_q(%q: tensor<1x12x8x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x8x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x12x8x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x8x64xf32>
    return %o : tensor<1x12x8x64xf32>
  }
}

// -----

// CHECK-LABEL: func @dot_2m_unmasked
// CHECK: #tfm.attention_tiling<block_q = 128, block_k = 128, group = 1
#zen2m = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu", cpu = "znver5", features = "+avx512f,+avx512bf16", vector_bits = 512, vector_registers = 32, l1_bytes = 49152, l2_bytes = 2097152, threads = 2>
module attributes {tfm.precision = bf16, tfm.target = #zen2m} {
  func.func @dot_2m_unmasked(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>) -> tensor<1x12x?x64xf32> {
    %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
    return %o : tensor<1x12x?x64xf32>
  }
}
