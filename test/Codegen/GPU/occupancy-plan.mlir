// RUN: tfm-opt %s -split-input-file -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-contraction,tfm-gpu-tile-reduction,tfm-gpu-flash-attention))" | FileCheck %s

// Each kernel built from a schedule carries its planned occupancy, the
// blocks per multiprocessor that its planned registers per thread, its
// threads and its workgroup buffers allow on the module's #tfm.gpu_target
// (an sm_80's 64 Ki registers, 2048 threads, 32 blocks and 164 KiB of
// shared memory, 1 KiB of it reserved per block):
// - tensor cores, 128 x 128 tiles of 2 x 4 warps: a 64 x 32 warp tile,
//   64 accumulators + 2 x (16 + 8) fragment registers + 64 = 176 per
//   thread, 5632 per warp; 8 warps take 45056 of 65536: 1 block;
// - 64 x 64 tiles of 2 x 2 warps: 32 + 2 x (8 + 8) + 64 = 128, 4096 per
//   warp: 4 blocks of 4 warps by registers; 3 stages of 32-deep slices
//   take 24 KiB (+ 1 KiB): 6 by shared memory: 4 blocks;
// - the same tiles 64 deep: 32 + 4 x (8 + 8) + 64 = 160 registers, 3
//   blocks by registers; 48 KiB (+ 1 KiB) of slices: 3 by shared memory.
// CHECK-LABEL: func.func @mma_plans
// CHECK:         gpu.launch
// CHECK-SAME:      in (%{{.*}} = %c256{{[_0-9]*}},
// CHECK:         } {tfm.blocks_per_sm = 1 : i64}
// CHECK:         gpu.launch
// CHECK-SAME:      in (%{{.*}} = %c128{{[_0-9]*}},
// CHECK:         } {tfm.blocks_per_sm = 4 : i64}
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%{{.*}} : memref<192x64xbf16, #gpu.address_space<workgroup>>
// CHECK:         } {tfm.blocks_per_sm = 3 : i64}
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108, opt_in_shared_memory_bytes = 166912, shared_memory_per_multiprocessor = 167936>} {
func.func @mma_plans(%a: memref<?x96xbf16>, %b: memref<200x96xbf16>, %c: memref<?x200xf32>, %d: memref<?x200xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>, small = <block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>, min_blocks = 108>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%d : memref<?x200xf32>)
  return
}
}

// -----

// The SIMT GEMM: 4 x 4 outputs, 4 + 4 operands + 64 = 88 registers, 2816
// per warp; 4 warps take 11264: 5 blocks, on this sm_86 as on an sm_80
// (its 6 KiB of slices allow 14 in 100 KiB, its 128 threads 12 in 1536).
// CHECK-LABEL: func.func @simt_plan
// CHECK:         gpu.launch
// CHECK-SAME:      threads(%{{.*}}) in (%{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c8{{[_0-9]*}},
// CHECK:         } {tfm.blocks_per_sm = 5 : i64}
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_86", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 84, shared_memory_per_multiprocessor = 102400, max_threads_per_multiprocessor = 1536, max_blocks_per_multiprocessor = 16>} {
func.func @simt_plan(%a: memref<?x40xf32>, %b: memref<40x64xf32>, %c: memref<?x64xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x64xf32>) outs(%c : memref<?x64xf32>)
  return
}
}

// -----

// A row kernel is planned at 64 registers: a warp of them takes 2048, so
// registers allow 32 blocks of one warp, 16 of two; sm_86's 16 blocks per
// multiprocessor then bind for the one-warp kernel. The FlashAttention-2
// kernel at 255 registers: 8192 per warp, two blocks of 4 warps.
// CHECK-LABEL: func.func @row_and_flash_plans
// CHECK:         gpu.launch
// CHECK:         } {tfm.blocks_per_sm = 16 : i64}
// CHECK:         gpu.launch
// CHECK:         } {tfm.blocks_per_sm = 16 : i64}
// CHECK:         gpu.launch
// CHECK:         } {tfm.blocks_per_sm = 2 : i64, tfm.lowering_config = #tfm.gpu_flash_attention<
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_86", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 82, shared_memory_per_multiprocessor = 102400, max_threads_per_multiprocessor = 1536, max_blocks_per_multiprocessor = 16>} {
func.func @row_and_flash_plans(%x: memref<4x?xf32>, %o: memref<4xf32>,
    %q: memref<?x8x?x64xbf16>, %k: memref<?x2x?x64xbf16>, %v: memref<?x2x?x64xbf16>, %out: memref<?x8x?x64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>, affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x?xf32>) outs(%o : memref<4xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 32>} {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [affine_map<(r, k) -> (r, k)>, affine_map<(r, k) -> (r)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x?xf32>) outs(%o : memref<4xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_reduction<threads = 64>} {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  }
  tfm.attention_kernel %q, %k, %v into %out {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.gpu_flash_attention<block_q = 16, heads = 4, block_k = 32, warps = 4>} : memref<?x8x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x8x?x64xf32>
  return
}
}

// -----

// Without a #tfm.gpu_target there is no plan.
// CHECK-LABEL: func.func @no_target
// CHECK:         gpu.launch
// CHECK-NOT:     tfm.blocks_per_sm
func.func @no_target(%a: memref<?x40xf32>, %b: memref<40x64xf32>, %c: memref<?x64xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x64xf32>) outs(%c : memref<?x64xf32>)
  return
}
