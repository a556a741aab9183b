// RUN: tfm-opt %s -split-input-file -tfm-gpu-bufferize-attention | FileCheck %s --check-prefix=BUF
// RUN: tfm-opt %s -split-input-file -tfm-gpu-flash-attention | FileCheck %s

// FlashAttention-2 on tensor cores, in two passes: -tfm-gpu-bufferize-attention
// puts a tfm.attention that carries a #tfm.gpu_flash_attention on buffers
// (a tfm.attention_kernel, before one-shot bufferization), and
// -tfm-gpu-flash-attention builds each tfm.attention_kernel into a
// gpu.launch (after it). Each pass leaves the other's input alone. What
// -tfm-gpu-flash-attention refuses: flash-attention-errors.mlir.

// Every operand is read through a read-only bufferization.to_buffer with
// an identity layout, the result is a fresh buffer (its dynamic sizes: B
// and Tq from Q), and the configuration moves to the tfm.attention_kernel
// with the mask, window and scale; the result is that buffer as a
// restricted, writable tensor. An op with another configuration stays.
// BUF-LABEL: func.func @bufferize
// BUF-SAME:    (%[[Q:[a-z0-9]+]]: tensor<?x8x?x64xbf16>, %[[K:[a-z0-9]+]]: tensor<?x2x?x64xbf16>, %[[V:[a-z0-9]+]]: tensor<?x2x?x32xbf16>, %[[LEN:[a-z0-9]+]]: tensor<?xi32>, %[[OFF:[a-z0-9]+]]: tensor<?xi32>, %[[S:[a-z0-9]+]]: tensor<8xf32>, %[[B:[a-z0-9]+]]: tensor<?x8x?x?xf32>)
// BUF-DAG:     %[[C0:.*]] = arith.constant 0 : index
// BUF-DAG:     %[[C2:.*]] = arith.constant 2 : index
// BUF-DAG:     %[[BSZ:.*]] = tensor.dim %[[Q]], %[[C0]] : tensor<?x8x?x64xbf16>
// BUF-DAG:     %[[TQ:.*]] = tensor.dim %[[Q]], %[[C2]] : tensor<?x8x?x64xbf16>
// BUF:         %[[OUT:.*]] = memref.alloc(%[[BSZ]], %[[TQ]]) : memref<?x8x?x32xf32>
// BUF-DAG:     %[[QB:.*]] = bufferization.to_buffer %[[Q]] read_only : tensor<?x8x?x64xbf16> to memref<?x8x?x64xbf16>
// BUF-DAG:     %[[KB:.*]] = bufferization.to_buffer %[[K]] read_only : tensor<?x2x?x64xbf16> to memref<?x2x?x64xbf16>
// BUF-DAG:     %[[VB:.*]] = bufferization.to_buffer %[[V]] read_only : tensor<?x2x?x32xbf16> to memref<?x2x?x32xbf16>
// BUF-DAG:     %[[LENB:.*]] = bufferization.to_buffer %[[LEN]] read_only : tensor<?xi32> to memref<?xi32>
// BUF-DAG:     %[[OFFB:.*]] = bufferization.to_buffer %[[OFF]] read_only : tensor<?xi32> to memref<?xi32>
// BUF-DAG:     %[[SB:.*]] = bufferization.to_buffer %[[S]] read_only : tensor<8xf32> to memref<8xf32>
// BUF-DAG:     %[[BB:.*]] = bufferization.to_buffer %[[B]] read_only : tensor<?x8x?x?xf32> to memref<?x8x?x?xf32>
// BUF:         tfm.attention_kernel %[[QB]], %[[KB]], %[[VB]] key_lengths(%[[LENB]] : memref<?xi32>) offsets(%[[OFFB]] : memref<?xi32>) alibi(%[[SB]] : memref<8xf32>) bias(%[[BB]] : memref<?x8x?x?xf32>) into %[[OUT]]
// BUF-SAME:      {mask = #tfm.mask<sliding_window>, scale = 1.250000e-01 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 64, warps = 4>, window = 128 : i64}
// BUF-SAME:      : memref<?x8x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x32xbf16>, memref<?x8x?x32xf32>
// BUF:         %[[R:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<?x8x?x32xf32> to tensor<?x8x?x32xf32>
// BUF:         %[[OTHER:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {{.*}}#tfm.attention_untiled
// BUF:         return %[[R]], %[[OTHER]]
// The kernel pass has nothing to do on tensors.
// CHECK-LABEL: func.func @bufferize
// CHECK-NOT:     gpu.launch
// CHECK:         tfm.attention {{.*}}#tfm.gpu_flash_attention
// CHECK:         tfm.attention {{.*}}#tfm.attention_untiled
func.func @bufferize(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x32xbf16>, %len: tensor<?xi32>, %off: tensor<?xi32>, %s: tensor<8xf32>, %b: tensor<?x8x?x?xf32>) -> (tensor<?x8x?x32xf32>, tensor<?x8x?x32xf32>) {
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) offsets(%off : tensor<?xi32>) alibi(%s : tensor<8xf32>) bias(%b : tensor<?x8x?x?xf32>) {mask = #tfm.mask<sliding_window>, window = 128 : i64, scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 64, warps = 4>} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16> -> tensor<?x8x?x32xf32>
  %o2 = tfm.attention %q, %k, %v {scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_untiled} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x32xbf16> -> tensor<?x8x?x32xf32>
  return %o, %o2 : tensor<?x8x?x32xf32>, tensor<?x8x?x32xf32>
}

// -----

// Static shapes, no optional operand: the sizes of the result are static.
// BUF-LABEL: func.func @bufferize_static
// BUF-NOT:     tensor.dim
// BUF:         %[[OUT:.*]] = memref.alloc() : memref<2x4x16x64xf32>
// BUF:         tfm.attention_kernel %{{.*}}, %{{.*}}, %{{.*}} into %[[OUT]] {scale = 1.250000e-01 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<2x4x16x64xf16>, memref<2x4x16x64xf16>, memref<2x4x16x64xf16>, memref<2x4x16x64xf32>
// BUF:         bufferization.to_tensor %[[OUT]] restrict writable
func.func @bufferize_static(%q: tensor<2x4x16x64xf16>, %kv: tensor<2x4x16x64xf16>) -> tensor<2x4x16x64xf32> {
  %o = tfm.attention %q, %kv, %kv {scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16>, tensor<2x4x16x64xf16> -> tensor<2x4x16x64xf32>
  return %o : tensor<2x4x16x64xf32>
}

// -----

// The kernel of a GQA attention (8 query heads, 2 K/V heads: G = 4), all
// 4 heads of a group in one block of 16 queries, 32-key blocks, D = 64,
// causal. The grid: ceil(Tq / 16) query blocks, 2 K/V heads x 1 group of
// heads, B; 128 threads. Shared memory: the K buffer holds two 32-key
// blocks or the 64-row Q tile (64 rows), the V buffer two 32-key blocks;
// rows of 64 + 8 elements.
// CHECK-LABEL: func.func @gqa
// CHECK-SAME:    (%[[Q:.*]]: memref<?x8x?x64xbf16>, %[[K:.*]]: memref<?x2x?x64xbf16>, %[[V:.*]]: memref<?x2x?x64xbf16>, %[[O:.*]]: memref<?x8x?x64xf32>)
// CHECK-DAG:     %[[BSZ:.*]] = memref.dim %[[Q]], %c0
// CHECK-DAG:     %[[TQ:.*]] = memref.dim %[[Q]], %c2
// CHECK-DAG:     %[[C16:.*]] = arith.constant 16 : index
// CHECK:         %[[QBLOCKS:.*]] = arith.ceildivsi %[[TQ]], %[[C16]] : index
// CHECK-DAG:     %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG:     %[[C128:.*]] = arith.constant 128 : index
// CHECK:         gpu.launch blocks(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[QBLOCKS]], %{{.*}} = %[[C2]], %{{.*}} = %[[BSZ]])
// CHECK-SAME:      threads(%{{.*}}, %{{.*}}, %{{.*}}) in (%{{.*}} = %[[C128]], %{{.*}} = %c1{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK-SAME:      workgroup(%[[KT:.*]] : memref<64x72xbf16, #gpu.address_space<workgroup>>, %[[VT:.*]] : memref<64x72xbf16, #gpu.address_space<workgroup>>)
// Q: 64 rows x 8 copies of 16 bytes, 4 per thread, into the K buffer;
// then each warp's Q fragments (one ldmatrix x4 per 16 of D).
// CHECK-COUNT-4: nvgpu.device_async_copy %[[Q]][{{.*}}], %[[KT]][{{.*}}], 8, %{{.*}} {bypassL1} : memref<?x8x?x64xbf16> to memref<64x72xbf16, #gpu.address_space<workgroup>>
// CHECK:         %[[QG:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT:    nvgpu.device_async_wait %[[QG]] {numGroups = 0 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK-COUNT-4: nvgpu.ldmatrix %[[KT]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-NEXT:    gpu.barrier
// The first key block in flight: 2 copies of K and 2 of V per thread.
// CHECK-COUNT-2: nvgpu.device_async_copy %[[K]]
// CHECK-COUNT-2: nvgpu.device_async_copy %[[V]]
// CHECK:         %[[FIRST:.*]] = nvgpu.device_async_create_group
// The key loop: O (8 fragments of 16 x 8), 2 row maxima, 2 row sums.
// CHECK:         %[[LOOP:.*]]:12 = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c32{{.*}} iter_args({{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32, f32, f32) {
// The next block in flight, then this one waited for.
// CHECK-COUNT-2:   nvgpu.device_async_copy %[[K]]
// CHECK-COUNT-2:   nvgpu.device_async_copy %[[V]]
// CHECK:           %[[NEXT:.*]] = nvgpu.device_async_create_group
// CHECK-NEXT:      nvgpu.device_async_wait %[[NEXT]] {numGroups = 1 : i32}
// CHECK-NEXT:      gpu.barrier
// S = Q K^T: 2 ldmatrix of K (two 8-key fragments each) per 16 of D, 2
// products each.
// CHECK-NOT:       gpu.barrier
// CHECK-COUNT-8:   nvgpu.ldmatrix %[[KT]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK-NOT:       nvgpu.ldmatrix
// CHECK:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// Masked blocks (at the diagonal) only: -inf where the key is hidden.
// CHECK:           scf.if %{{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>) {
// CHECK:             arith.constant 0xFF800000 : f32
// CHECK:             scf.yield
// CHECK:           } else {
// CHECK:             scf.yield
// CHECK:           }
// Online softmax: the row maxima over each quad (xor 1, 2).
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:           arith.maximumf
// CHECK:           math.exp2
// CHECK:           gpu.shuffle  xor %{{.*}}, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:           gpu.shuffle  xor %{{.*}}, %c2_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:           arith.maximumf
// CHECK:           math.exp2
// O += P V: P rounded to bf16 in registers, V's fragments transposed.
// CHECK:           arith.truncf %{{.*}} : f32 to bf16
// CHECK:           vector.from_elements {{.*}} : vector<4x2xbf16>
// CHECK:           nvgpu.ldmatrix %[[VT]][{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<64x72xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:           nvgpu.mma.sync
// CHECK-COUNT-7:   nvgpu.ldmatrix %[[VT]][{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK-NOT:       nvgpu.ldmatrix
// CHECK-COUNT-2:   nvgpu.mma.sync
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield
// CHECK-NEXT:    }
// The last block's copies, the row sums over the quad, and 2 rows x 8
// fragments x 2 columns guarded stores.
// CHECK-NEXT:    nvgpu.device_async_wait %[[FIRST]] {numGroups = 0 : i32}
// CHECK:         gpu.shuffle  xor %[[LOOP]]#10, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK:         gpu.shuffle  xor
// CHECK:         arith.divf
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %{{.*}}, %[[O]][%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}] : memref<?x8x?x64xf32>
// CHECK-NEXT:    }
// CHECK:         gpu.shuffle  xor %[[LOOP]]#11, %c1_i32{{.*}}, %c32_i32{{.*}} : f32
// CHECK-COUNT-16: memref.store %{{.*}}, %[[O]]
// CHECK-NOT:     memref.store
// CHECK:         gpu.terminator
// CHECK-NEXT:  } {tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 32, warps = 4>}
// CHECK-NOT:   tfm.attention_kernel
func.func @gqa(%q: memref<?x8x?x64xbf16>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %o: memref<?x8x?x64xf32>) {
  tfm.attention_kernel %q, %k, %v into %o {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 32, warps = 4>} : memref<?x8x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x8x?x64xf32>
  return
}

// -----

// MHA in f16, with every optional operand: one head of 64 queries per
// block, 64-key blocks; D = 32 and Dv = 40 (padded to 48 in the
// fragments): K buffer rows of 32 + 8, V buffer rows of 48 + 8. The key
// lengths and offsets are read per batch element (block z) before the
// key range, the ALiBi slope per head (block y) before the loop, the bias
// per score in the loop. The V copies read 8 elements, fewer at the end
// of a row (40 - column), none past it; stores are guarded by the column
// (< 40): 2 rows x 6 fragments x 2 columns.
// CHECK-LABEL: func.func @options
// CHECK-SAME:    (%[[Q:.*]]: memref<?x4x?x32xf16>, %[[K:.*]]: memref<?x4x?x32xf16>, %[[V:.*]]: memref<?x4x?x40xf16>, %[[LEN:.*]]: memref<?xi32>, %[[OFF:.*]]: memref<?xi64>, %[[S:.*]]: memref<4xf32>, %[[B:.*]]: memref<?x4x?x?xf32>, %[[O:.*]]: memref<?x4x?x40xf32>)
// CHECK:         %[[C64:.*]] = arith.constant 64 : index
// CHECK:         %[[QBLOCKS:.*]] = arith.ceildivsi %{{.*}}, %[[C64]] : index
// CHECK:         %[[C4:.*]] = arith.constant 4 : index
// CHECK:         gpu.launch blocks(%{{[a-z0-9]+}}, %[[BY:[a-z0-9]+]], %[[BZ:[a-z0-9]+]]) in (%{{[a-z0-9]+}} = %[[QBLOCKS]], %{{[a-z0-9]+}} = %[[C4]], %{{[a-z0-9]+}} = %{{[a-z0-9_]+}})
// CHECK-SAME:      workgroup(%[[KT:.*]] : memref<128x40xf16, #gpu.address_space<workgroup>>, %[[VT:.*]] : memref<128x56xf16, #gpu.address_space<workgroup>>)
// CHECK:         memref.load %[[OFF]][%[[BZ]]] : memref<?xi64>
// CHECK:         memref.load %[[LEN]][%[[BZ]]] : memref<?xi32>
// CHECK:         arith.constant 256 : index
// CHECK-COUNT-2: nvgpu.device_async_copy %[[Q]]{{.*}} : memref<?x4x?x32xf16> to memref<128x40xf16, #gpu.address_space<workgroup>>
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         gpu.barrier
// CHECK-COUNT-2: nvgpu.ldmatrix %[[KT]]{{.*}} -> vector<4x2xf16>
// CHECK:         gpu.barrier
// CHECK-COUNT-2: nvgpu.device_async_copy %[[K]]
// CHECK:         %[[C40:.*]] = arith.constant 40 : index
// CHECK:         %[[REST:.*]] = arith.subi %[[C40]], %{{.*}} : index
// CHECK:         %[[POS:.*]] = arith.maxsi %[[REST]], %{{.*}} : index
// CHECK:         %[[N:.*]] = arith.minsi %[[POS]], %{{.*}} : index
// CHECK:         %[[COUNT:.*]] = arith.select %{{.*}}, %[[N]], %{{.*}} : index
// CHECK:         nvgpu.device_async_copy %[[V]][{{.*}}], %[[VT]][{{.*}}], 8, %[[COUNT]] {bypassL1} : memref<?x4x?x40xf16> to memref<128x56xf16, #gpu.address_space<workgroup>>
// CHECK-COUNT-2: nvgpu.device_async_copy %[[V]]
// CHECK:         nvgpu.device_async_create_group
// CHECK:         memref.load %[[S]][%[[BY]]] : memref<4xf32>
// CHECK:         memref.load %[[S]][%[[BY]]] : memref<4xf32>
// CHECK:         scf.for
// CHECK-COUNT-5:   nvgpu.device_async_copy
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 1 : i32}
// CHECK-COUNT-8:   nvgpu.ldmatrix %[[KT]]{{.*}}transpose = false
// CHECK:           nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK:           memref.load %[[B]][%[[BZ]], %[[BY]], %{{.*}}, %{{.*}}] : memref<?x4x?x?xf32>
// CHECK:           math.copysign
// CHECK:           math.absf
// CHECK:           scf.if
// CHECK:           arith.truncf %{{.*}} : f32 to f16
// CHECK:           nvgpu.ldmatrix %[[VT]]{{.*}}transpose = true{{.*}} -> vector<4x2xf16>
// CHECK:           gpu.barrier
// CHECK-NEXT:      scf.yield
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         %[[C40S:.*]] = arith.constant 40 : index
// CHECK:         %[[INCOL:.*]] = arith.cmpi slt, %{{.*}}, %[[C40S]] : index
// CHECK:         %[[IN:.*]] = arith.andi %{{.*}}, %[[INCOL]] : i1
// CHECK:         scf.if %[[IN]] {
// CHECK-NEXT:      memref.store %{{.*}}, %[[O]][%[[BZ]], %[[BY]], %{{.*}}, %{{.*}}] : memref<?x4x?x40xf32>
// CHECK-COUNT-23: memref.store
// CHECK-NOT:     memref.store
// CHECK:       } {tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>}
func.func @options(%q: memref<?x4x?x32xf16>, %k: memref<?x4x?x32xf16>, %v: memref<?x4x?x40xf16>, %len: memref<?xi32>, %off: memref<?xi64>, %s: memref<4xf32>, %b: memref<?x4x?x?xf32>, %o: memref<?x4x?x40xf32>) {
  tfm.attention_kernel %q, %k, %v key_lengths(%len : memref<?xi32>) offsets(%off : memref<?xi64>) alibi(%s : memref<4xf32>) bias(%b : memref<?x4x?x?xf32>) into %o {mask = #tfm.mask<sliding_window>, window = 256 : i64, scale = 0.17677669529663687 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<?x4x?x32xf16>, memref<?x4x?x32xf16>, memref<?x4x?x40xf16>, memref<?x4x?x40xf32>
  return
}

// -----

// A 16-bit output (the inputs' type) is rounded when it is stored. D = 8:
// the buffers' rows are padded to 16 + 8 elements, and each 16-byte copy
// reads 8 elements of a row and zeros the other 8.
// CHECK-LABEL: func.func @half_output
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%{{.*}} : memref<128x24xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<128x24xbf16, #gpu.address_space<workgroup>>)
// CHECK:         scf.for
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK:         %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK:         scf.if
// CHECK-NEXT:      memref.store %[[R]], %{{.*}} : memref<1x2x100x8xbf16>
func.func @half_output(%q: memref<1x2x100x8xbf16>, %k: memref<1x2x300x8xbf16>, %v: memref<1x2x300x8xbf16>, %o: memref<1x2x100x8xbf16>) {
  tfm.attention_kernel %q, %k, %v into %o {scale = 0.35355339059327373 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 64, heads = 1, block_k = 64, warps = 4>} : memref<1x2x100x8xbf16>, memref<1x2x300x8xbf16>, memref<1x2x300x8xbf16>, memref<1x2x100x8xbf16>
  return
}

// -----

// Two 16-row tiles per warp, Q in shared memory (the built-in block): 128
// rows of one head, 32-key blocks, D = Dv = 32 (rows of 32 + 8). Q has a
// buffer of its own (128 rows; the K buffer holds two key blocks), staged
// once and never overwritten: no Q fragment is loaded before the key
// loop. The loop carries 2 x 4 output fragments and per lane row (2 per
// tile) a maximum and a sum. Per 16 of D it loads each tile's Q fragment,
// then each pair of 8-key K fragments once for both tiles (4 mma.sync);
// P V loads each pair of V fragments once for both tiles too.
// CHECK-LABEL: func.func @two_tiles_q_shared
// CHECK-SAME:    (%[[Q:[a-z0-9]+]]: memref<?x4x?x32xbf16>,
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[KT:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[VT:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[QT:.*]] : memref<128x40xbf16, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: nvgpu.device_async_copy %[[Q]][{{.*}}], %[[QT]][{{.*}}], 8
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NEXT:    gpu.barrier
// CHECK-NOT:     nvgpu.ldmatrix
// CHECK:         scf.for {{.*}} -> (vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, vector<2x2xf32>, f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK:           gpu.barrier
// CHECK-COUNT-2:   nvgpu.ldmatrix %[[QT]]
// CHECK-NOT:       nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[KT]]
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[KT]]
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[QT]]
// CHECK:           nvgpu.ldmatrix %[[QT]]
// CHECK:           nvgpu.ldmatrix %[[KT]]
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[KT]]
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK-NOT:       nvgpu.ldmatrix %[[QT]]
// CHECK-NOT:       nvgpu.ldmatrix %[[KT]]
// No bias or ALiBi: the scores stay unscaled; each probability is
// exp2(fma(s, scale, -max)), the maximum scaled once per row.
// CHECK-NOT:       math.exp2
// CHECK:           arith.mulf %{{.*}}, %{{.*}} : f32
// CHECK:           arith.maximumf
// CHECK-COUNT-4:   arith.negf
// CHECK:           math.fma %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      math.exp2
// CHECK:           nvgpu.ldmatrix %[[VT]]{{.*}}transpose = true
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[VT]]{{.*}}transpose = true
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[VT]]{{.*}}transpose = true
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK:           nvgpu.ldmatrix %[[VT]]{{.*}}transpose = true
// CHECK-COUNT-4:   nvgpu.mma.sync
// CHECK-NEXT:      gpu.barrier
// CHECK-NEXT:      scf.yield
// CHECK:         nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-COUNT-32: memref.store
// CHECK-NOT:     memref.store
// CHECK:         } {tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>}
func.func @two_tiles_q_shared(%q: memref<?x4x?x32xbf16>, %k: memref<?x4x?x32xbf16>, %v: memref<?x4x?x32xbf16>, %o: memref<?x4x?x32xf32>) {
  tfm.attention_kernel %q, %k, %v into %o {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 128, heads = 1, block_k = 32, warps = 4, row_tiles = 2, q_shared = true>} : memref<?x4x?x32xbf16>, memref<?x4x?x32xbf16>, memref<?x4x?x32xbf16>, memref<?x4x?x32xf32>
  return
}
