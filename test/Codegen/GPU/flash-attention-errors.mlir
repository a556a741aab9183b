// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-gpu-flash-attention

// What -tfm-gpu-flash-attention refuses (Passes.td), naming the op.
func.func @no_config(%q: memref<?x4x?x64xbf16>, %k: memref<?x4x?x64xbf16>, %v: memref<?x4x?x64xbf16>, %o: memref<?x4x?x64xf32>) {
  // expected-error @+1 {{'tfm.attention_kernel' op -tfm-gpu-flash-attention: has no tfm.lowering_config #tfm.gpu_flash_attention}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64} : memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xf32>
  return
}

// -----

func.func @other_config(%q: memref<?x4x?x64xbf16>, %k: memref<?x4x?x64xbf16>, %v: memref<?x4x?x64xbf16>, %o: memref<?x4x?x64xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: has no tfm.lowering_config #tfm.gpu_flash_attention}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_untiled} : memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xf32>
  return
}

// -----

func.func @f32_inputs(%q: memref<?x4x?x64xf32>, %k: memref<?x4x?x64xf32>, %v: memref<?x4x?x64xf32>, %o: memref<?x4x?x64xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4> needs Q, K and V all bf16 or all f16 (-tfm-apply-precision stores them so), found 'memref<?x4x?x64xf32>', 'memref<?x4x?x64xf32>', 'memref<?x4x?x64xf32>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x4x?x64xf32>, memref<?x4x?x64xf32>, memref<?x4x?x64xf32>, memref<?x4x?x64xf32>
  return
}

// -----

func.func @mixed_inputs(%q: memref<?x4x?x64xbf16>, %k: memref<?x4x?x64xf16>, %v: memref<?x4x?x64xbf16>, %o: memref<?x4x?x64xf32>) {
  // expected-error @+1 {{needs Q, K and V all bf16 or all f16 (-tfm-apply-precision stores them so), found 'memref<?x4x?x64xbf16>', 'memref<?x4x?x64xf16>', 'memref<?x4x?x64xbf16>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x4x?x64xbf16>, memref<?x4x?x64xf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xf32>
  return
}

// -----

func.func @rank(%q: memref<?x?x64xbf16>, %k: memref<?x4x?x64xbf16>, %v: memref<?x4x?x64xbf16>, %o: memref<?x?x64xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: needs rank-4 query, key, value and output buffers}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x?x64xf32>
  return
}

// -----

func.func @head_size(%q: memref<?x4x?x36xbf16>, %k: memref<?x4x?x36xbf16>, %v: memref<?x4x?x64xbf16>, %o: memref<?x4x?x64xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4> needs static head counts (query heads a multiple of K/V heads) and head sizes that are multiples of 8 (16-byte copies), found 'memref<?x4x?x36xbf16>' and 'memref<?x4x?x64xbf16>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x4x?x36xbf16>, memref<?x4x?x36xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xf32>
  return
}

// -----

func.func @value_head_size(%q: memref<?x4x?x64xbf16>, %k: memref<?x4x?x64xbf16>, %v: memref<?x4x?x20xbf16>, %o: memref<?x4x?x20xf32>) {
  // expected-error @+1 {{head sizes that are multiples of 8 (16-byte copies), found 'memref<?x4x?x64xbf16>' and 'memref<?x4x?x20xbf16>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x20xbf16>, memref<?x4x?x20xf32>
  return
}

// -----

func.func @dynamic_heads(%q: memref<?x?x?x64xbf16>, %k: memref<?x4x?x64xbf16>, %v: memref<?x4x?x64xbf16>, %o: memref<?x?x?x64xf32>) {
  // expected-error @+1 {{needs static head counts (query heads a multiple of K/V heads) and head sizes that are multiples of 8 (16-byte copies), found 'memref<?x?x?x64xbf16>' and 'memref<?x4x?x64xbf16>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x?x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x?x?x64xf32>
  return
}

// -----

// G = 3 query heads per K/V head: blocks of 4 heads would mix two groups.
func.func @heads_group(%q: memref<?x6x?x64xbf16>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %o: memref<?x6x?x64xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 64, warps = 4>: 'heads' must divide the 3 query heads of a K/V group}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 64, warps = 4>} : memref<?x6x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x6x?x64xf32>
  return
}

// -----

// A 16-key block of D = 16 is 32 copies of 16 bytes: not a whole number
// per thread for 128 threads.
func.func @copies(%q: memref<?x4x?x16xbf16>, %k: memref<?x4x?x16xbf16>, %v: memref<?x4x?x16xbf16>, %o: memref<?x4x?x16xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 16, warps = 4>: the Q tile and the K and V blocks (D = 16, Dv = 16) are not a whole number of 16-byte copies for 128 threads}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.25 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 16, warps = 4>} : memref<?x4x?x16xbf16>, memref<?x4x?x16xbf16>, memref<?x4x?x16xbf16>, memref<?x4x?x16xf32>
  return
}

// -----

// The V block alone: 32 keys of Dv = 48 are 192 copies.
func.func @value_copies(%q: memref<?x4x?x64xbf16>, %k: memref<?x4x?x64xbf16>, %v: memref<?x4x?x48xbf16>, %o: memref<?x4x?x48xf32>) {
  // expected-error @+1 {{the Q tile and the K and V blocks (D = 64, Dv = 48) are not a whole number of 16-byte copies for 128 threads}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 32, warps = 4>} : memref<?x4x?x64xbf16>, memref<?x4x?x64xbf16>, memref<?x4x?x48xbf16>, memref<?x4x?x48xf32>
  return
}

// -----

// Rows read with cp.async must be contiguous: K here takes every other
// element.
func.func @strided_rows(%q: memref<1x2x32x64xbf16>, %k: memref<1x2x32x64xbf16, strided<[8192, 4096, 128, 2]>>, %v: memref<1x2x32x64xbf16>, %o: memref<1x2x32x64xf32>) {
  // expected-error @+1 {{-tfm-gpu-flash-attention: #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4> copies rows of 8 elements with cp.async, which needs contiguous rows aligned to 8 elements, found 'memref<1x2x32x64xbf16, strided<[8192, 4096, 128, 2]>>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<1x2x32x64xbf16>, memref<1x2x32x64xbf16, strided<[8192, 4096, 128, 2]>>, memref<1x2x32x64xbf16>, memref<1x2x32x64xf32>
  return
}

// -----

// And aligned to 8 elements: a view at an unknown offset may not be.
func.func @unaligned_rows(%q: memref<?x2x?x64xbf16, strided<[?, ?, 64, 1], offset: ?>>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %o: memref<?x2x?x64xf32>) {
  // expected-error @+1 {{which needs contiguous rows aligned to 8 elements, found 'memref<?x2x?x64xbf16, strided<[?, ?, 64, 1], offset: ?>>'}}
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x2x?x64xbf16, strided<[?, ?, 64, 1], offset: ?>>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xf32>
  return
}
