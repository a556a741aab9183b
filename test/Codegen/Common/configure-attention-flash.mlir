// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90' -tfm-configure-attention | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_90a' -tfm-configure-attention | FileCheck %s
// Without mma.sync on 16-bit inputs (sm_75), or with the option off, no op
// gets the tensor-core kernel: each keeps the schedule it had before.
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_75' -tfm-configure-attention | FileCheck %s --check-prefix=NO-TC --implicit-check-not=gpu_flash_attention
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=tensor-cores=false | FileCheck %s --check-prefix=NO-TC --implicit-check-not=gpu_flash_attention
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// RUN: tfm-opt %s -split-input-file -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=tensor-cores=false -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS-OFF

// The tensor-core (FlashAttention-2) schedule of -tfm-configure-attention:
// on an sm_80+ target with a 16-bit precision, an op whose head sizes are
// multiples of 8 gets #tfm.gpu_flash_attention: 4 warps of two 16-row
// tiles (row_tiles = 2, 128 (query, head) rows), Q in a shared-memory
// buffer of its own (q_shared); `heads` the largest divisor of the group G
// dividing 128, `block_q` = 128 / heads; `block_k` the largest of 64, 32,
// 16 (at most a static Tk rounded up to 16) whose buffers fit the shared
// memory a block can opt into (2 x (128 x (D' + 8) + 2 block_k x (D' + 8)
// + 2 block_k x (Dv' + 8)) bytes) and whose accumulators, row_tiles x
// (block_k + Dv') / 2 per thread, are at most 160; with no such key block,
// one row tile per warp.

// The NO-TC runs configure every op of this file without tensor cores,
// but the last one, configured by hand.
// NO-TC-COUNT-16: tfm.lowering_config = #tfm.attention_
// NO-TC-LABEL: func.func @configured
// NO-TC: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 16, warps = 4>

// The `flash` statistic counts the ops given the tensor-core kernel, per
// input (-split-input-file): 9 and 2 in the first two, the D = 256 op of
// the third, none in the others but the last (the op configured by hand
// is not counted).
// STATS:      (S) 0 configured   - tfm.attention ops given tiles
// STATS-NEXT: (S) 9 flash        - tfm.attention ops given the tensor-core kernel
// STATS-NEXT: (S) 0 kept-untiled
// STATS:      (S) 0 configured
// STATS-NEXT: (S) 2 flash
// STATS-NEXT: (S) 0 kept-untiled
// STATS:      (S) 2 configured
// STATS-NEXT: (S) 1 flash
// STATS-NEXT: (S) 0 kept-untiled
// STATS:      (S) 1 configured
// STATS-NEXT: (S) 0 flash
// STATS:      (S) 1 configured
// STATS-NEXT: (S) 0 flash
// STATS:      (S) 0 configured
// STATS-NEXT: (S) 0 flash
// STATS-NEXT: (S) 0 kept-untiled
// STATS:      (S) 0 configured
// STATS-NEXT: (S) 2 flash
// STATS-NEXT: (S) 0 kept-untiled
// STATS-NOT:  (S)
// With tensor-cores=false the first input's ops are tiled or kept untiled
// (short keys), and no input counts any.
// STATS-OFF:      (S) 5 configured
// STATS-OFF-NEXT: (S) 0 flash
// STATS-OFF-NEXT: (S) 4 kept-untiled
// STATS-OFF-NOT:  (S) {{[1-9][0-9]*}} flash

// MHA (G = 1), D = 64: one head per block, 128 queries; 64-key blocks
// (55296 bytes, 128 accumulators).
// CHECK-LABEL: func.func @mha_d64
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2, q_shared = true>
// GQA, G = 4, D = 128 (LLaMA-2 70B, LLaMA-3 8B): the group's 4 heads share
// each K/V block, 32 queries of each; 64-key blocks would need 192
// accumulators, 32-key ones 160 (69632 bytes).
// CHECK-LABEL: func.func @gqa4_d128
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 32, heads = 4, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>
// G = 8: 8 heads of 16 queries.
// CHECK-LABEL: func.func @gqa8_d64
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 8, block_k = 64, warps = 4, row_tiles = 2, q_shared = true>
// G = 3: no divisor of 3 but 1 divides 128: one head per block.
// CHECK-LABEL: func.func @gqa3_d64
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2, q_shared = true>
// G = 6: 2 heads (the largest divisor of 6 dividing 128), 64 queries.
// CHECK-LABEL: func.func @gqa6_d64
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 2, block_k = 64, warps = 4, row_tiles = 2, q_shared = true>
// D = 8 (padded to 16 in shared memory).
// CHECK-LABEL: func.func @d8
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2, q_shared = true>
// A static Tk caps block_k, rounded up to 16: 20 keys -> 32, 8 keys -> 16,
// 40 keys -> 48, which is no candidate: 32. The default untiled-max-keys
// (256) does not keep these untiled: the tensor-core kernel comes first.
// CHECK-LABEL: func.func @short_keys
// CHECK: tfm.attention {{.*}}tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>
// CHECK: tfm.attention {{.*}}tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 16, warps = 4, row_tiles = 2, q_shared = true>
// CHECK: tfm.attention {{.*}}tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>
module attributes {tfm.precision = bf16} {
func.func @mha_d64(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}
func.func @gqa4_d128(%q: tensor<?x32x?x128xf32>, %k: tensor<?x8x?x128xf32>, %v: tensor<?x8x?x128xf32>) -> tensor<?x32x?x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.088388347648318 : f64} : tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32> -> tensor<?x32x?x128xf32>
  return %o : tensor<?x32x?x128xf32>
}
func.func @gqa8_d64(%q: tensor<?x32x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>) -> tensor<?x32x?x64xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x32x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32> -> tensor<?x32x?x64xf32>
  return %o : tensor<?x32x?x64xf32>
}
func.func @gqa3_d64(%q: tensor<?x12x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}
func.func @gqa6_d64(%q: tensor<?x12x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}
func.func @d8(%q: tensor<?x4x?x8xf32>, %k: tensor<?x4x?x8xf32>, %v: tensor<?x4x?x8xf32>) -> tensor<?x4x?x8xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.35355339059327373 : f64} : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32> -> tensor<?x4x?x8xf32>
  return %o : tensor<?x4x?x8xf32>
}
func.func @short_keys(%q: tensor<?x4x?x64xf32>, %k20: tensor<?x4x20x64xf32>, %k8: tensor<?x4x8x64xf32>, %k40: tensor<?x4x40x64xf32>) -> (tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>) {
  %o1 = tfm.attention %q, %k20, %k20 {scale = 0.125 : f64} : tensor<?x4x?x64xf32>, tensor<?x4x20x64xf32>, tensor<?x4x20x64xf32> -> tensor<?x4x?x64xf32>
  %o2 = tfm.attention %q, %k8, %k8 {scale = 0.125 : f64} : tensor<?x4x?x64xf32>, tensor<?x4x8x64xf32>, tensor<?x4x8x64xf32> -> tensor<?x4x?x64xf32>
  %o3 = tfm.attention %q, %k40, %k40 {scale = 0.125 : f64} : tensor<?x4x?x64xf32>, tensor<?x4x40x64xf32>, tensor<?x4x40x64xf32> -> tensor<?x4x?x64xf32>
  return %o1, %o2, %o3 : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>
}
}

// -----

// f16 chooses as bf16 does.
// CHECK-LABEL: func.func @f16_mha_d64
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 64, warps = 4, row_tiles = 2, q_shared = true>
// CHECK-LABEL: func.func @f16_gqa4_d128
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 32, heads = 4, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>
module attributes {tfm.precision = f16} {
func.func @f16_mha_d64(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}
func.func @f16_gqa4_d128(%q: tensor<?x32x?x128xf32>, %k: tensor<?x8x?x128xf32>, %v: tensor<?x8x?x128xf32>) -> tensor<?x32x?x128xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.088388347648318 : f64} : tensor<?x32x?x128xf32>, tensor<?x8x?x128xf32>, tensor<?x8x?x128xf32> -> tensor<?x32x?x128xf32>
  return %o : tensor<?x32x?x128xf32>
}
}

// -----

// Not on tensor cores: head sizes that are not multiples of 8 (the kernel
// copies 16 bytes at a time), in Q/K or in V. They get the schedules they
// had before. D = 256 is: two row tiles would need 272 accumulators at
// 16-key blocks, so one tile per warp (64 rows), with 64-key blocks (160
// accumulators, 168960 bytes) where a block can opt into that much (sm_90:
// 227 KiB), else 32-key ones (103680 bytes; sm_80: 163 KiB).
// CHECK-LABEL: func.func @d36
// CHECK-NOT: gpu_flash_attention
// CHECK: tfm.lowering_config = #tfm.attention_tiling<
// CHECK-LABEL: func.func @dv36
// CHECK-NOT: gpu_flash_attention
// CHECK: tfm.lowering_config = #tfm.attention_tiling<
// CHECK-LABEL: func.func @d256
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = {{32|64}}, warps = 4, q_shared = true>
module attributes {tfm.precision = bf16} {
func.func @d36(%q: tensor<?x4x?x36xf32>, %k: tensor<?x4x?x36xf32>, %v: tensor<?x4x?x36xf32>) -> tensor<?x4x?x36xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x?x36xf32>, tensor<?x4x?x36xf32>, tensor<?x4x?x36xf32> -> tensor<?x4x?x36xf32>
  return %o : tensor<?x4x?x36xf32>
}
func.func @dv36(%q: tensor<?x4x?x64xf32>, %k: tensor<?x4x?x64xf32>, %v: tensor<?x4x?x36xf32>) -> tensor<?x4x?x36xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x?x64xf32>, tensor<?x4x?x64xf32>, tensor<?x4x?x36xf32> -> tensor<?x4x?x36xf32>
  return %o : tensor<?x4x?x36xf32>
}
func.func @d256(%q: tensor<?x4x?x256xf32>, %k: tensor<?x4x?x256xf32>, %v: tensor<?x4x?x256xf32>) -> tensor<?x4x?x256xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.0625 : f64} : tensor<?x4x?x256xf32>, tensor<?x4x?x256xf32>, tensor<?x4x?x256xf32> -> tensor<?x4x?x256xf32>
  return %o : tensor<?x4x?x256xf32>
}
}

// -----

// Nor at f32 precision, or without a precision (f32): the inputs are not
// rounded.
// CHECK-LABEL: func.func @f32_precision
// CHECK-NOT: gpu_flash_attention
// CHECK: tfm.lowering_config = #tfm.attention_tiling<
module attributes {tfm.precision = f32} {
func.func @f32_precision(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}
}

// -----

// CHECK-LABEL: func.func @no_precision
// CHECK-NOT: gpu_flash_attention
// CHECK: tfm.lowering_config = #tfm.attention_tiling<
func.func @no_precision(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}

// -----

// A configuration already on the op stands: the pass neither replaces it
// nor counts it.
// CHECK-LABEL: func.func @configured
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 16, warps = 4>
module attributes {tfm.precision = bf16} {
func.func @configured(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 16, warps = 4>} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}
}

// -----

// Only key blocks whose K and V blocks are a whole number of 16-byte copies
// for the 128 threads (block_k * D' / 8 a multiple of 128) are taken:
// D = 112 has none with two row tiles (64 keys: 176 accumulators; 32: 448
// copies; 16: 224) and takes one tile per warp with 64-key blocks (896
// copies, 88 accumulators); D = 32 against 16 static keys takes 32-key
// blocks (16 would be 64 copies).
// CHECK-LABEL: func.func @d112
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4, q_shared = true>
// CHECK-LABEL: func.func @d32_tk16
// CHECK: tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>
module attributes {tfm.precision = bf16} {
func.func @d112(%q: tensor<?x4x?x112xf32>, %k: tensor<?x4x?x112xf32>, %v: tensor<?x4x?x112xf32>) -> tensor<?x4x?x112xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x?x112xf32>, tensor<?x4x?x112xf32>, tensor<?x4x?x112xf32> -> tensor<?x4x?x112xf32>
  return %o : tensor<?x4x?x112xf32>
}
func.func @d32_tk16(%q: tensor<?x4x?x32xf32>, %k: tensor<?x4x16x32xf32>, %v: tensor<?x4x16x32xf32>) -> tensor<?x4x?x32xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x?x32xf32>, tensor<?x4x16x32xf32>, tensor<?x4x16x32xf32> -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}
}
