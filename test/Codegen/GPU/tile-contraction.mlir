// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-contraction))" | FileCheck %s
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -pass-pipeline="builtin.module(func.func(tfm-gpu-tile-contraction{fuse-bias=false}))" | FileCheck %s --check-prefix=NOFUSE

// A batched matmul with a transposed right-hand side (attention's QK^T):
// blocks x over n tiles, y over m tiles, z over the batch; 16 x 8 threads;
// two padded workgroup slices; per 16-deep k step: copy, barrier, 16
// register accumulators updated by FMAs from shared memory, barrier;
// guarded stores.
// CHECK-LABEL: func.func @qkt
// CHECK-SAME:    (%[[Q:.*]]: memref<2x?x40xf32>, %[[K:.*]]: memref<2x?x40xf32>, %[[S:.*]]: memref<2x?x?xf32>)
// CHECK-DAG:     %[[M:.*]] = memref.dim %[[Q]], %c1
// CHECK-DAG:     %[[N:.*]] = memref.dim %[[K]], %c1
// CHECK-DAG:     %[[GX:.*]] = arith.ceildivui %[[N]], %c64
// CHECK-DAG:     %[[GY:.*]] = arith.ceildivui %[[M]], %c32
// CHECK-DAG:     %[[GZ:.*]] = arith.muli %c1{{.*}}, %c2
// CHECK:         gpu.launch blocks(%[[BX:.*]], %[[BY:.*]], %[[BZ:.*]]) in (%{{.*}} = %[[GX]], %{{.*}} = %[[GY]], %{{.*}} = %[[GZ]])
// CHECK-SAME:      threads(%[[TX:.*]], %[[TY:.*]], %{{.*}}) in (%{{.*}} = %c16{{[_0-9]*}}, %{{.*}} = %c8{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK-SAME:      workgroup(%[[AS:.*]] : memref<16x33xf32, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<16x65xf32, #gpu.address_space<workgroup>>)
// CHECK:           %[[B:.*]] = arith.remui %[[BZ]], %c2
// CHECK-COUNT-16:  memref.load %[[S]][%[[B]],
// CHECK:           %[[R:.*]]:16 = scf.for %[[KT:.*]] = %c0{{.*}} to %c40{{.*}} step %c16{{.*}} iter_args
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-4:     memref.store %{{.*}}, %[[BS]]
// CHECK:             gpu.barrier
// CHECK:             scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c1{{.*}} iter_args
// CHECK-COUNT-4:       memref.load %[[AS]]
// CHECK-COUNT-4:       memref.load %[[BS]]
// CHECK-COUNT-16:      math.fma
// CHECK:             gpu.barrier
// CHECK:           scf.if
// CHECK-NEXT:        memref.store %[[R]]#0, %[[S]]
// CHECK-NOT:     linalg.
func.func @qkt(%q: memref<2x?x40xf32>, %k: memref<2x?x40xf32>, %s: memref<2x?x?xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                   affine_map<(b, m, n, k) -> (b, n, k)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%q, %k : memref<2x?x40xf32>, memref<2x?x40xf32>) outs(%s : memref<2x?x?xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_contraction<block_m = 32, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>} {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %r = arith.addf %c, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Staging reads neighbouring elements of each operand's innermost
// dimension with neighbouring threads: A [m, k] by k (element % 16), B
// [k, n] by n (element % 64). f16 operands are widened as they are staged;
// out-of-range elements are selected to 0 after a clamped load.
// CHECK-LABEL: func.func @layouts
// CHECK:         gpu.launch
// CHECK:           scf.for
// CHECK:             %[[E:.*]] = arith.addi %{{.*}}, %c0
// CHECK:             arith.remui %[[E]], %c16
// CHECK:             arith.minui
// CHECK:             %[[AV:.*]] = memref.load %arg0
// CHECK-NEXT:        arith.select %{{.*}}, %[[AV]], %cst
// CHECK:             arith.remui %{{.*}}, %c64
// CHECK:             %[[BV:.*]] = memref.load %arg1
// CHECK-NEXT:        %[[W:.*]] = arith.extf %[[BV]] : f16 to f32
// CHECK-NEXT:        arith.select %{{.*}}, %[[W]], %cst
func.func @layouts(%a: memref<?x40xf32>, %b: memref<40x70xf16>, %c: memref<?x70xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %b : memref<?x40xf32>, memref<40x70xf16>) outs(%c : memref<?x70xf32>)
  return
}

// -----

// The schedule belongs to contractions.
func.func @not_contraction(%a: memref<8x8xf32>) {
  // expected-error @+1 {{carries #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4> but is not a contraction the GEMM kernel takes}}
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} outs(%a : memref<8x8xf32>)
      attrs = {tfm.lowering_config = #tfm.gpu_contraction<block_m = 64, block_n = 64, block_k = 16, thread_m = 4, thread_n = 4>} {
  ^bb0(%o: f32):
    %d = arith.addf %o, %o : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// Copies must divide evenly among the threads.
func.func @uneven(%a: memref<8x8xf32>) {
  // expected-error @+1 {{the staged slices (8x16, 16x12) are not a whole number of loads for 6 threads}}
  linalg.matmul {tfm.lowering_config = #tfm.gpu_contraction<block_m = 8, block_n = 12, block_k = 16, thread_m = 4, thread_n = 4>}
      ins(%a, %a : memref<8x8xf32>, memref<8x8xf32>) outs(%a : memref<8x8xf32>)
  return
}

// -----

// #tfm.gpu_mma: tensor cores. 2 x 2 warps (128 threads in x); 16-bit
// slices of 64 rows x 32 k (a row padded to 40) for A [m, k] and B, which
// is [k, n] here (staged transposed, k innermost); the accumulators (2 x 4
// fragments of 16 x 8 per warp, 2 x 2 f32 per lane) start from the output;
// per 32-deep slice: copy, barrier, per 16-deep step the warp's fragments
// (ldmatrix x4: each 16 x 16 of A, each pair of 8 x 16 B fragments,
// split in two) and 8 mma.sync m16n8k16, barrier; guarded stores.
// CHECK-LABEL: func.func @mma
// CHECK:         gpu.launch
// CHECK-SAME:      threads(%[[TX:.*]], %{{.*}}, %{{.*}}) in (%{{.*}} = %c128{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}}, %{{.*}} = %c1{{[_0-9]*}})
// CHECK-SAME:      workgroup(%[[AS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<64x40xbf16, #gpu.address_space<workgroup>>)
// CHECK-DAG:       %[[WARP:.*]] = arith.divui %[[TX]], %c32
// CHECK-DAG:       %[[LANE:.*]] = arith.remui %[[TX]], %c32
// CHECK-COUNT-8:   vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK:           %[[R:.*]]:8 = scf.for %{{.*}} = %c0{{.*}} to %c96{{.*}} step %c32{{.*}} iter_args
// CHECK-COUNT-16:    memref.store %{{.*}}, %[[AS]]
// CHECK-COUNT-16:    memref.store %{{.*}}, %[[BS]]
// CHECK:             gpu.barrier
// CHECK-COUNT-2:     nvgpu.ldmatrix %[[AS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:             %[[PAIR:.*]] = nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<64x40xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-NEXT:        vector.extract_strided_slice %[[PAIR]] {offsets = [0, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xbf16> to vector<2x2xbf16>
// CHECK-NEXT:        vector.extract_strided_slice %[[PAIR]] {offsets = [2, 0], sizes = [2, 2], strides = [1, 1]} : vector<4x2xbf16> to vector<2x2xbf16>
// CHECK:             nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK-COUNT-8:     nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK-COUNT-2:     nvgpu.ldmatrix %[[AS]]
// CHECK-COUNT-2:     nvgpu.ldmatrix %[[BS]]
// CHECK-COUNT-8:     nvgpu.mma.sync
// CHECK:             gpu.barrier
// CHECK:           vector.extract %[[R]]#0[0, 0]
// CHECK:           scf.if
// CHECK-NEXT:        memref.store
// CHECK-NOT:     linalg.
func.func @mma(%a: memref<?x96xbf16>, %b: memref<96x200xbf16>, %c: memref<?x200xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2>}
      ins(%a, %b : memref<?x96xbf16>, memref<96x200xbf16>) outs(%c : memref<?x200xf32>)
  return
}

// -----

// Three stages (cp.async pipeline): slices 0 and 1 go in flight before
// the loop (16-byte copies: 2 per thread for A's 64 x 32 and B's 64 x 32,
// k contiguous in both) into stages 0 and 1. Each iteration waits until at
// most one group is pending (its slice has landed), a barrier, then puts
// slice i + 2 in flight into stage (i + 2) mod 3 (8 elements, fewer at the
// end of k, none past the rows) and multiplies stage i mod 3 (rows offset
// by stage x 64): one barrier per slice. Rows are not padded but
// XOR-swizzled: 4 chunks of 8 per 32-element row, chunk c ^ ((row / 2) mod
// 4), in the copies' destinations and in ldmatrix's addresses.
// CHECK-LABEL: func.func @mma_async
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[AS:.*]] : memref<192x32xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<192x32xbf16, #gpu.address_space<workgroup>>)
// CHECK:           arith.select
// CHECK:           %[[ROW:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %c2{{.*}} = arith.constant 2
// CHECK-NEXT:      %[[HALF:.*]] = arith.divui %[[ROW]], %c2
// CHECK:           %[[PHASE:.*]] = arith.remui %[[HALF]], %c4
// CHECK:           %[[CHUNK:.*]] = arith.divui %{{.*}}, %c8
// CHECK:           %[[SW:.*]] = arith.xori %[[CHUNK]], %[[PHASE]]
// CHECK:           %[[COL:.*]] = arith.muli %[[SW]], %c8
// CHECK:           nvgpu.device_async_copy %arg0[{{.*}}], %[[AS]][%[[ROW]], %[[COL]]], 8, %{{.*}} {bypassL1}
// CHECK:           nvgpu.device_async_copy %arg0[{{.*}}], %[[AS]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK-COUNT-2:   nvgpu.device_async_copy %arg1[{{.*}}], %[[BS]][{{.*}}], 8, %{{.*}} {bypassL1}
// CHECK:           %[[FIRST:.*]] = nvgpu.device_async_create_group
// CHECK-COUNT-4:   nvgpu.device_async_copy
// CHECK:           %[[SECOND:.*]] = nvgpu.device_async_create_group
// CHECK:           scf.for %[[KT:.*]] = %c0{{.*}} to %c96{{.*}} step %c32{{.*}} iter_args
// CHECK:             %[[SLICE:.*]] = arith.divui %[[KT]], %c32
// CHECK:             %[[CUR:.*]] = arith.remui %[[SLICE]], %c3
// CHECK:             nvgpu.device_async_wait %[[SECOND]] {numGroups = 1 : i32}
// CHECK-NEXT:        gpu.barrier
// CHECK:             %[[NEXT0:.*]] = arith.addi %[[SLICE]], %c2
// CHECK:             arith.remui %[[NEXT0]], %c3
// CHECK-COUNT-2:     nvgpu.device_async_copy %arg0
// CHECK-COUNT-2:     nvgpu.device_async_copy %arg1
// CHECK:             nvgpu.device_async_create_group
// CHECK:             arith.muli %[[CUR]], %c64
// CHECK-NOT:         gpu.barrier
// CHECK:             arith.xori
// CHECK:             nvgpu.ldmatrix %[[AS]]
// CHECK-NOT:         gpu.barrier
// CHECK-COUNT-16:    nvgpu.mma.sync
// CHECK-NOT:         gpu.barrier
// CHECK:             scf.yield
// CHECK:           nvgpu.device_async_wait %{{.*}} {numGroups = 0 : i32}
// CHECK-NOT:     linalg.
func.func @mma_async(%a: memref<?x96xbf16>, %b: memref<200x96xbf16>, %c: memref<?x200xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  return
}

// -----

// #tfm.gpu_mma_choice: both kernels, the large one where its grid
// (ceil(m / 128) x ceil(200 / 128) blocks) reaches min_blocks.
// CHECK-LABEL: func.func @mma_choice
// CHECK:         %[[M:.*]] = memref.dim %arg0, %c0
// CHECK:         %[[TM:.*]] = arith.ceildivui %[[M]], %c128
// CHECK:         %[[TN:.*]] = arith.ceildivui %c200{{.*}}, %c128
// CHECK:         %[[BLOCKS:.*]] = arith.muli %[[TM]], %[[TN]]
// CHECK:         %[[LARGE:.*]] = arith.cmpi uge, %[[BLOCKS]], %c132
// CHECK:         scf.if %[[LARGE]] {
// CHECK:           gpu.launch
// CHECK-SAME:        in (%{{.*}} = %c256{{[_0-9]*}},
// CHECK-SAME:        workgroup(%{{.*}} : memref<384x32xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<384x32xbf16, #gpu.address_space<workgroup>>)
// CHECK:         } else {
// CHECK:           gpu.launch
// CHECK-SAME:        in (%{{.*}} = %c128{{[_0-9]*}},
// CHECK-SAME:        workgroup(%{{.*}} : memref<192x32xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<192x32xbf16, #gpu.address_space<workgroup>>)
// CHECK:         }
// CHECK-NOT:     linalg.
func.func @mma_choice(%a: memref<?x96xbf16>, %b: memref<200x96xbf16>, %c: memref<?x200xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4, stages = 3>, small = <block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>, min_blocks = 132>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  return
}

// -----

func.func @mma_async_layout(%a: memref<64x36xbf16>, %b: memref<36x64xbf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{stages its operands with cp.async, which needs both contiguous along k or along their own rows, with rows aligned to 8 elements}}
  linalg.matmul {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 2>}
      ins(%a, %b : memref<64x36xbf16>, memref<36x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// B contiguous along n ([k, n], a weight stored [in, out]): staged k-major,
// a [3 x 32][64] tile, copied 8 n-elements at a time (fewer past the end
// of n, none past the end of k), chunks swizzled by the k row (8 chunks a
// row: chunk ^ (k mod 8)); its fragments come from ldmatrix .trans with
// each lane naming a k row.
// CHECK-LABEL: func.func @mma_k_major
// CHECK:         gpu.launch
// CHECK-SAME:      workgroup(%[[AS:.*]] : memref<192x32xbf16, #gpu.address_space<workgroup>>, %[[BS:.*]] : memref<96x64xbf16, #gpu.address_space<workgroup>>)
// CHECK:           nvgpu.device_async_copy %arg1[{{.*}}], %[[BS]][{{.*}}], 8, %{{.*}} {bypassL1} : memref<96x200xbf16> to memref<96x64xbf16, #gpu.address_space<workgroup>>
// CHECK:           scf.for
// CHECK:             nvgpu.ldmatrix %[[AS]][{{.*}}] {numTiles = 4 : i32, transpose = false}
// CHECK:             nvgpu.ldmatrix %[[BS]][{{.*}}] {numTiles = 4 : i32, transpose = true} : memref<96x64xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
func.func @mma_k_major(%a: memref<?x96xbf16>, %b: memref<96x200xbf16>, %c: memref<?x200xf32>) {
  linalg.matmul {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<96x200xbf16>) outs(%c : memref<?x200xf32>)
  return
}

// -----

// Three 8-column B fragments per warp (block_n = 24, one warp): after
// A's two x4, the first two B fragments from one ldmatrix x4, the last
// alone from an x2.
// CHECK-LABEL: func.func @mma_odd_fragments
// CHECK:         scf.for
// CHECK-COUNT-2:   nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<96x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK:           %[[PAIR:.*]] = nvgpu.ldmatrix %{{.*}} {numTiles = 4 : i32, transpose = false} : memref<72x32xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
// CHECK-NEXT:      vector.extract_strided_slice %[[PAIR]] {offsets = [0, 0]
// CHECK-NEXT:      vector.extract_strided_slice %[[PAIR]] {offsets = [2, 0]
// CHECK:           nvgpu.ldmatrix %{{.*}} {numTiles = 2 : i32, transpose = false} : memref<72x32xbf16, #gpu.address_space<workgroup>> -> vector<2x2xbf16>
// CHECK-COUNT-6:   nvgpu.mma.sync
func.func @mma_odd_fragments(%a: memref<?x96xbf16>, %b: memref<200x96xbf16>, %c: memref<?x200xf32>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 32, block_n = 24, block_k = 32, warps_m = 1, warps_n = 1, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  return
}

// -----

func.func @mma_types(%a: memref<64x64xf32>, %b: memref<64x64xbf16>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{#tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2> needs both inputs bf16 or both f16}}
  linalg.matmul {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2>}
      ins(%a, %b : memref<64x64xf32>, memref<64x64xbf16>) outs(%c : memref<64x64xf32>)
  return
}

// -----

// The fragments must tile the warps' sub-tiles.
// expected-error @+1 {{'block_m' must be a multiple of 16 x 'warps_m' and 'block_n' of 8 x 'warps_n'}}
func.func @mma_attr() attributes {x = #tfm.gpu_mma<block_m = 48, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2>} {
  return
}

// -----

// expected-error @+1 {{'block_k' must be a multiple of 16 (the fragments' k)}}
func.func @mma_attr_k() attributes {x = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 24, warps_m = 2, warps_n = 2>} {
  return
}

// -----

// expected-error @+1 {{'stages' must be 1 (synchronous copies) or 2 to 4 (a cp.async pipeline)}}
func.func @mma_attr_stages() attributes {x = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 5>} {
  return
}

// -----

// expected-error @+1 {{'large' must have larger output tiles than 'small'}}
func.func @mma_choice_attr() attributes {x = #tfm.gpu_mma_choice<large = <block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2>, small = <block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2>, min_blocks = 1>} {
  return
}

// -----

// expected-error @+1 {{'min_blocks' must be positive}}
func.func @mma_choice_blocks() attributes {x = #tfm.gpu_mma_choice<large = <block_m = 128, block_n = 128, block_k = 32, warps_m = 2, warps_n = 4>, small = <block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2>, min_blocks = 0>} {
  return
}

// -----

// A bias broadcast into the output right before the contraction (a linear
// layer's): the accumulators start from the bias, read by column (4 per
// 16 x 8 fragment, 2 x 4 fragments per warp of a 64 x 64 tile of 2 x 2
// warps), never from the output, and the broadcast goes (a view and an
// allocation between the two change nothing). The broadcast with a store
// between it and the contraction, or with a payload of its own, stays. With fuse-bias=false every broadcast stays.
// CHECK-LABEL: func.func @bias
// CHECK-SAME:    (%[[A:[a-z0-9]+]]: memref<?x96xbf16>, %[[B:[a-z0-9]+]]: memref<200x96xbf16>, %[[BIAS:[a-z0-9]+]]: memref<200xf32>, %[[C:[a-z0-9]+]]: memref<?x200xf32>)
// CHECK-NOT:     linalg.generic
// CHECK:         gpu.launch
// CHECK-COUNT-32: memref.load %[[BIAS]][%{{.*}}] : memref<200xf32>
// CHECK-NOT:     memref.load %[[C]]
// CHECK:         scf.for
// CHECK:         gpu.terminator
// Something between: the broadcast stays and the kernel reads the output.
// CHECK:         linalg.generic
// CHECK:         memref.store
// CHECK:         gpu.launch
// CHECK:         memref.load %[[C]]
// A payload that is more than the input: stays.
// CHECK:         linalg.generic
// CHECK:           arith.mulf
// CHECK:         gpu.launch
// CHECK:         memref.load %[[C]]
// A broadcast of a row of the output itself: the kernel would read it
// while other blocks write it. Stays.
// CHECK:         memref.subview %[[C]]
// CHECK:         linalg.generic
// CHECK:         gpu.launch
// CHECK:         memref.load %[[C]]
// NOFUSE-LABEL:  func.func @bias
// NOFUSE-COUNT-4: linalg.generic
// NOFUSE-NOT:    memref.load %arg2[
#bcast = affine_map<(d0, d1) -> (d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @bias(%a: memref<?x96xbf16>, %b: memref<200x96xbf16>, %bias: memref<200xf32>, %c: memref<?x200xf32>) {
  linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<200xf32>) outs(%c : memref<?x200xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %view = memref.expand_shape %b [[0, 1], [2]] output_shape [2, 100, 96] : memref<200x96xbf16> into memref<2x100x96xbf16>
  %scratch = memref.alloc() : memref<4xf32>
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<200xf32>) outs(%c : memref<?x200xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %zero = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  memref.store %zero, %c[%c0, %c0] : memref<?x200xf32>
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%bias : memref<200xf32>) outs(%c : memref<?x200xf32>) {
  ^bb0(%in: f32, %out: f32):
    %two = arith.mulf %in, %in : f32
    linalg.yield %two : f32
  }
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  %row = memref.subview %c[0, 0] [1, 200] [1, 1] : memref<?x200xf32> to memref<200xf32, strided<[1]>>
  linalg.generic {indexing_maps = [#bcast, #id], iterator_types = ["parallel", "parallel"]} ins(%row : memref<200xf32, strided<[1]>>) outs(%c : memref<?x200xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
      {tfm.lowering_config = #tfm.gpu_mma<block_m = 64, block_n = 64, block_k = 32, warps_m = 2, warps_n = 2, stages = 3>}
      ins(%a, %b : memref<?x96xbf16>, memref<200x96xbf16>) outs(%c : memref<?x200xf32>)
  return
}
