// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-configure))" | FileCheck %s
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{fuse-rows=false}))" | FileCheck %s --check-prefix=FUSE-OFF
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-configure{tensor-cores=false}))" | FileCheck %s --check-prefix=SIMT

// 64 x 64 tiles of 256 threads (4 x 4 outputs each); 32-row tiles for a
// few rows, and where 64-row tiles would leave multiprocessors idle
// (512 x 768: 96 tiles of 64 rows < 108 SMs). Where the rows are unknown,
// the columns decide: 64-row tiles for 8192 columns (128 column tiles),
// 32-row ones for 96 columns (2 column tiles per 64 rows).
// CHECK-LABEL: func.func @tiles
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @tiles(%a: memref<?x64xf32>, %b: memref<64x96xf32>, %c: memref<?x96xf32>,
                 %a2: memref<11x64xf32>, %c2: memref<11x96xf32>,
                 %a3: memref<512x768xf32>, %b3: memref<768x768xf32>, %c3: memref<512x768xf32>,
                 %a4: memref<1024x768xf32>, %c4: memref<1024x768xf32>,
                 %b5: memref<64x8192xf32>, %c5: memref<?x8192xf32>) {
  linalg.matmul ins(%a, %b : memref<?x64xf32>, memref<64x96xf32>) outs(%c : memref<?x96xf32>)
  linalg.matmul ins(%a, %b5 : memref<?x64xf32>, memref<64x8192xf32>) outs(%c5 : memref<?x8192xf32>)
  linalg.matmul ins(%a2, %b : memref<11x64xf32>, memref<64x96xf32>) outs(%c2 : memref<11x96xf32>)
  linalg.matmul ins(%a3, %b3 : memref<512x768xf32>, memref<768x768xf32>) outs(%c3 : memref<512x768xf32>)
  linalg.matmul ins(%a4, %b3 : memref<1024x768xf32>, memref<768x768xf32>) outs(%c4 : memref<1024x768xf32>)
  return
}
}

// -----

// Only f32-accumulating float contractions on buffers are configured:
// not an elementwise op, an integer matmul, or ops on tensors.
// CHECK-LABEL: func.func @others
// CHECK-NOT:   tfm.lowering_config
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @others(%a: memref<8x8xf32>, %i: memref<8x8xi32>, %t: tensor<8x8xf32>) -> tensor<8x8xf32> {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x8xf32>) {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  }
  linalg.matmul ins(%i, %i : memref<8x8xi32>, memref<8x8xi32>) outs(%i : memref<8x8xi32>)
  %r = linalg.matmul ins(%t, %t : tensor<8x8xf32>, tensor<8x8xf32>) outs(%t : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
}

// -----

// A CPU target (or none): nothing for the GPU to decide.
// CHECK-LABEL: func.func @cpu
// CHECK-NOT:   tfm.lowering_config
func.func @cpu(%a: memref<8x8xf32>) {
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  return
}

// -----

// The staging buffers must fit the target's shared memory.
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 1024, multiprocessors = 108>} {
func.func @small_smem(%a: memref<8x8xf32>) {
  // expected-error @+1 {{no GEMM tile fits the target's 1024 threads and 1024 bytes of shared memory per block}}
  linalg.matmul ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  return
}
}

// -----

// Row reductions: a block per output element, threads by the row length
// (a power of two, from a warp to 256; 256 when the length is dynamic).
// CHECK-LABEL: func.func @reductions
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 256>
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 64>
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 32>
// CHECK:  tfm.lowering_config = #tfm.gpu_reduction<threads = 256>
// A payload that is not `combine(out, f(in))` (out used twice) stays loops.
// CHECK-NOT: tfm.lowering_config
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @reductions(%d: memref<4x?xf32>, %s: memref<4x37xf32>, %t: memref<4x3xf32>, %l: memref<4x3000xf32>, %o: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%d : memref<4x?xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%s : memref<4x37xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.maximumf %in, %out : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%t : memref<4x3xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    %a = arith.addf %out, %e : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%l : memref<4x3000xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.minnumf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]} ins(%s : memref<4x37xf32>) outs(%o : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %p = arith.mulf %out, %in : f32
    %a = arith.addf %out, %p : f32
    linalg.yield %a : f32
  }
  return
}
}

// -----

// A layer norm as bufferization leaves it: the mean's sum, a copy that
// zero-initializes the variance's buffer, the variance, the normalization.
// One kernel: the copy touches none of the first stage's buffers, so the
// sum moves down past it; the row extents agree through the allocations'
// sizes (read off %x). The op after the normalization reads %y, which the
// kernel writes, and is not a stage (an all-parallel stage ends a kernel).
// CHECK-LABEL: func.func @layer_norm
// CHECK:       linalg.generic
// CHECK-SAME:    tfm.lowering_config = #tfm.gpu_reduction<threads = 256, stages = 3>
// CHECK:       linalg.copy
// CHECK:       linalg.generic
// CHECK-SAME:    tfm.row_kernel_stage = 1
// CHECK:       linalg.generic
// CHECK-SAME:    tfm.row_kernel_stage = 2
// CHECK:       linalg.generic
// CHECK-NOT:     tfm.row_kernel_stage
// CHECK-NOT:     tfm.lowering_config
// CHECK-SAME:    ins(%[[Y:.*]] :
// FUSE-OFF-LABEL: func.func @layer_norm
// FUSE-OFF:       #tfm.gpu_reduction<threads = 256>
// FUSE-OFF-NOT:   tfm.row_kernel_stage
// FUSE-OFF:       #tfm.gpu_reduction<threads = 256>
// FUSE-OFF-NOT:   tfm.row_kernel_stage
#row = affine_map<(i, j) -> (i, j)>
#stat = affine_map<(i, j) -> (i)>
#col = affine_map<(i, j) -> (j)>
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @layer_norm(%x: memref<?x768xf32>, %g: memref<768xf32>, %zeros: memref<?xf32>, %z: memref<?x768xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?x768xf32>
  %sum = memref.alloc(%n) : memref<?xf32>
  %var = memref.alloc(%n) : memref<?xf32>
  %y = memref.alloc(%n) : memref<?x768xf32>
  %f = arith.constant 768.0 : f32
  linalg.copy ins(%zeros : memref<?xf32>) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]} ins(%x : memref<?x768xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.copy ins(%zeros : memref<?xf32>) outs(%var : memref<?xf32>)
  linalg.generic {indexing_maps = [#row, #stat, #stat], iterator_types = ["parallel", "reduction"]} ins(%x, %sum : memref<?x768xf32>, memref<?xf32>) outs(%var : memref<?xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %m = arith.divf %s, %f : f32
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %a = arith.addf %out, %d2 : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#row, #stat, #stat, #col, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %sum, %var, %g : memref<?x768xf32>, memref<?xf32>, memref<?xf32>, memref<768xf32>) outs(%y : memref<?x768xf32>) {
  ^bb0(%in: f32, %s: f32, %v: f32, %gj: f32, %out: f32):
    %m = arith.divf %s, %f : f32
    %r = math.rsqrt %v : f32
    %d = arith.subf %in, %m : f32
    %q = arith.mulf %d, %r : f32
    %w = arith.mulf %q, %gj : f32
    linalg.yield %w : f32
  }
  linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]} ins(%y, %var : memref<?x768xf32>, memref<?xf32>) outs(%z : memref<?x768xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %q = arith.mulf %in, %v : f32
    linalg.yield %q : f32
  }
  return
}
}

// -----

// What keeps ops out of a row kernel. In @written_between, an op between
// the sum and the variance writes %x, which the sum reads: the sum cannot
// move past it, so it is a kernel of its own; the variance starts the
// next kernel, with the normalization. In @other_row, the normalization
// reads the sum of row 0 for every row, and in @other_length it runs over
// 512 elements of rows the sum took 768 of: neither is a stage.
// CHECK-LABEL: func.func @written_between
// CHECK:       #tfm.gpu_reduction<threads = 256>
// CHECK:       linalg.fill
// CHECK:       #tfm.gpu_reduction<threads = 256, stages = 2>
// CHECK:       tfm.row_kernel_stage = 1
// CHECK-LABEL: func.func @other_row
// CHECK:       #tfm.gpu_reduction<threads = 256>
// CHECK-NOT:   tfm.row_kernel_stage
// CHECK-LABEL: func.func @other_length
// CHECK:       #tfm.gpu_reduction<threads = 256>
// CHECK-NOT:   tfm.row_kernel_stage
#row = affine_map<(i, j) -> (i, j)>
#stat = affine_map<(i, j) -> (i)>
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
func.func @written_between(%x: memref<4x768xf32>, %sum: memref<4xf32>, %var: memref<4xf32>, %y: memref<4x768xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x768xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.fill ins(%zero : f32) outs(%x : memref<4x768xf32>)
  linalg.generic {indexing_maps = [#row, #stat, #stat], iterator_types = ["parallel", "reduction"]} ins(%x, %sum : memref<4x768xf32>, memref<4xf32>) outs(%var : memref<4xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %d = arith.subf %in, %s : f32
    %a = arith.addf %out, %d : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#row, #stat, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %var : memref<4x768xf32>, memref<4xf32>) outs(%y : memref<4x768xf32>) {
  ^bb0(%in: f32, %v: f32, %out: f32):
    %q = arith.mulf %in, %v : f32
    linalg.yield %q : f32
  }
  return
}
func.func @other_row(%x: memref<4x768xf32>, %sum: memref<4xf32>, %y: memref<4x768xf32>) {
  linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x768xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#row, affine_map<(i, j) -> (0)>, #row], iterator_types = ["parallel", "parallel"]} ins(%x, %sum : memref<4x768xf32>, memref<4xf32>) outs(%y : memref<4x768xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %q = arith.mulf %in, %s : f32
    linalg.yield %q : f32
  }
  return
}
func.func @other_length(%x: memref<4x768xf32>, %sum: memref<4xf32>, %y: memref<4x512xf32>) {
  linalg.generic {indexing_maps = [#row, #stat], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x768xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %out, %in : f32
    linalg.yield %a : f32
  }
  linalg.generic {indexing_maps = [#stat, #row], iterator_types = ["parallel", "parallel"]} ins(%sum : memref<4xf32>) outs(%y : memref<4x512xf32>) {
  ^bb0(%s: f32, %out: f32):
    linalg.yield %s : f32
  }
  return
}
}

// -----

// Both inputs bf16 (or both f16) on sm_80+: tensor cores in a 3-stage
// cp.async pipeline where both operands are contiguous along k or along
// their own rows (here B is [k, n]: staged k-major), with rows of a
// multiple of 8 elements; 128 x 128 x 32 tiles of 2 x 4 warps where they
// make a wave (1024 x 768: 48 tiles on 8 SMs), else 64 x 64 x 64 tiles of
// 2 x 2 warps, 32 rows where a static m has no more. Mixed 16-bit types,
// an f32 input or an sm_75 target keep the SIMT schedule; so does
// tensor-cores=false.
// CHECK-LABEL: func.func @tensor_cores
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_mma<block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_mma<block_m = 32, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>}
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<
// CHECK:  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<
// Both operands k-contiguous: the same; rows of 36 elements: one stage,
// small tiles.
// CHECK:  linalg.matmul {{.*}}tfm.lowering_config = #tfm.gpu_mma<block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>}
// CHECK:  linalg.matmul {{.*}}tfm.lowering_config = #tfm.gpu_mma<block_m = 32, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2>}
// 128 x 128: one large tile for 8 SMs, so small ones (64 rows), in 3
// stages.
// CHECK:  linalg.matmul {{.*}}tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>}
// Rows known at run time: both, chosen by the large tiles' grid.
// CHECK:  linalg.matmul {{.*}}tfm.lowering_config = #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>, small = <block_m = 64, block_n = 64, block_k = 64, warps_m = 2, warps_n = 2, stages = 3>, min_blocks = 8>}
// SIMT-LABEL: func.func @tensor_cores
// SIMT-COUNT-8: #tfm.gpu_contraction<
// SIMT-NOT: #tfm.gpu_mma
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_90", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 8>} {
func.func @tensor_cores(%a: memref<1024x768xbf16>, %b: memref<768x768xbf16>, %c: memref<1024x768xf32>,
                        %h: memref<11x64xf16>, %hb: memref<64x96xf16>, %hc: memref<11x96xf32>,
                        %f: memref<11x64xf32>, %bb: memref<64x96xbf16>,
                        %o: memref<11x36xbf16>, %o2: memref<96x36xbf16>,
                        %s: memref<128x64xbf16>, %sc: memref<128x128xf32>,
                        %d: memref<?x768xbf16>, %dc: memref<?x768xf32>) {
  linalg.matmul ins(%a, %b : memref<1024x768xbf16>, memref<768x768xbf16>) outs(%c : memref<1024x768xf32>)
  linalg.matmul ins(%h, %hb : memref<11x64xf16>, memref<64x96xf16>) outs(%hc : memref<11x96xf32>)
  linalg.matmul ins(%f, %hb : memref<11x64xf32>, memref<64x96xf16>) outs(%hc : memref<11x96xf32>)
  linalg.matmul ins(%h, %bb : memref<11x64xf16>, memref<64x96xbf16>) outs(%hc : memref<11x96xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%a, %b : memref<1024x768xbf16>, memref<768x768xbf16>) outs(%c : memref<1024x768xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%o, %o2 : memref<11x36xbf16>, memref<96x36xbf16>) outs(%hc : memref<11x96xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%s, %s : memref<128x64xbf16>, memref<128x64xbf16>) outs(%sc : memref<128x128xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%d, %b : memref<?x768xbf16>, memref<768x768xbf16>) outs(%dc : memref<?x768xf32>)
  return
}
}

// -----

// Before sm_90 the small tiles stage 32-deep slices (24 KiB): 64-deep ones
// took ptxas past their planned occupancy on sm_80 and into spills on
// sm_86 and sm_89 (docs/gpu.md, "Occupancy"); the large tiles are the
// same as on sm_90.
// CHECK-LABEL: func.func @ampere_small_tiles
// CHECK:  linalg.matmul {{.*}}tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
// CHECK:  linalg.matmul {{.*}}tfm.lowering_config = #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>, small = <block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>, min_blocks = 82>}
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_86", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 82, opt_in_shared_memory_bytes = 101376, shared_memory_per_multiprocessor = 102400, max_threads_per_multiprocessor = 1536, max_blocks_per_multiprocessor = 16>} {
func.func @ampere_small_tiles(%s: memref<128x64xbf16>, %sc: memref<128x128xf32>,
                              %d: memref<?x768xbf16>, %b: memref<768x768xbf16>, %dc: memref<?x768xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%s, %s : memref<128x64xbf16>, memref<128x64xbf16>) outs(%sc : memref<128x128xf32>)
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      ins(%d, %b : memref<?x768xbf16>, memref<768x768xbf16>) outs(%dc : memref<?x768xf32>)
  return
}
}

// -----

// CHECK-LABEL: func.func @turing
// CHECK:  #tfm.gpu_contraction<
module attributes {tfm.target = #tfm.gpu_target<chip = "sm_75", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 8>} {
func.func @turing(%a: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  linalg.matmul ins(%a, %a : memref<64x64xbf16>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}
}
