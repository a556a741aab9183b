//===- Passes.td - GPU code generation passes --------------*- tablegen -*-===//
//
// The NVIDIA target's passes between bufferized loops and the upstream GPU
// lowering (convert-parallel-loops-to-gpu, gpu-kernel-outlining,
// convert-gpu-to-nvvm, gpu-to-llvm, gpu-module-to-binary). Contracts in the
// style of the Conversion passes: input, output, untouched, errors.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_GPU_PASSES_TD
#define TFM_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUBufferizeAttentionPass : Pass<"tfm-gpu-bufferize-attention", "func::FuncOp"> {
  let summary = "Put each tfm.attention with a #tfm.gpu_flash_attention on buffers";
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::tensor::TensorDialect"];
  let description = [{
    `%o = tfm.attention %q, %k, %v {tfm.lowering_config =
    #tfm.gpu_flash_attention<...>} => %out = memref.alloc;
    tfm.attention_kernel %qb, %kb, %vb into %out {...};
    %o = bufferization.to_tensor %out restrict writable`

    Runs on tensors, right before one-shot bufferization: the operands
    are read through `bufferization.to_buffer` (identity layouts: the
    16-bit Q, K and V that `-tfm-apply-precision` stored are fresh
    tensors), the result is a fresh buffer, and the configuration moves to
    the `tfm.attention_kernel`, whose declared reads and write let
    bufferization and its deallocation place the buffers' lifetimes around
    it. `-tfm-gpu-flash-attention` builds its kernel after bufferization.
  }];
  let statistics = [
    Statistic<"numBufferized", "bufferized", "tfm.attention ops put on buffers">,
  ];
}

def GPUFlashAttentionPass : Pass<"tfm-gpu-flash-attention", "func::FuncOp"> {
  let summary = "Build each tfm.attention_kernel into a FlashAttention-2 kernel on tensor cores";
  let dependentDialects = ["::mlir::gpu::GPUDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::vector::VectorDialect"];
  let description = [{
    `tfm.attention_kernel %q, %k, %v into %out {tfm.lowering_config =
    #tfm.gpu_flash_attention<...>} => gpu.launch blocks(query blocks, K/V
    heads x head groups, B) threads(32 x warps) workgroup(K buffer, V
    buffer[, Q buffer]) { ... }`

    **The kernel.** Block (x, y, z) takes queries `q0 = x * block_q` on of
    batch element z, and `heads` query heads of K/V head `y / (G / heads)`.
    Its rows are (query, head) pairs, query-major; warp w owns R =
    `row_tiles` tiles of 16 rows, rows 16Rw to 16R(w + 1) - 1, and every K
    or V fragment it loads serves its R tiles (R = 2 halves the `ldmatrix`
    per `mma.sync`). In order:
    - Q: the block's rows (zeros past `Tq` and past `D` up to a multiple of
      16) are staged with 16-byte `cp.async` copies: with `q_shared` into
      a buffer of their own, from which each warp loads its Q fragments
      (`ldmatrix` x4, one per 16 of `D` and row tile) at every key block;
      without, into the K buffer, from which each warp loads them into
      registers once, where they stay.
    - The key range, computed by every thread alike from the block ids,
      `offsets` and `key_lengths`, exactly as `-tfm-tile-sram` computes
      it: keys before the first any row sees (sliding window) and from the
      last any row sees on (causal, window, padding) are not visited; the
      key blocks in between that every row sees whole are not masked.
    - Key loop, `block_k` keys per iteration, K and V blocks in two stages:
      block i + 1 is put in flight (cp.async, zeros past the key range)
      before `wait_group 1` and a barrier make block i visible. S = Q K^T
      by `mma.sync` m16n8k16 (B fragments by `ldmatrix` x4, two 8-key
      fragments each, per 16 of `D`); S times scale * log2(e), plus the
      bias (in log2 units, as `-tfm-tile-sram` adds it) and minus the
      ALiBi penalty; in a masked block, -inf where the key is hidden.
      Without a bias or ALiBi (and a positive scale) S stays unscaled: the
      row maximum below is taken over the raw scores and scaled once, and
      `P = exp2(fma(S, scale, -m'))`. Online softmax in
      registers: the row maximum over the lane's elements and its quad (xor
      shuffles 1 and 2), `m' = max(m, rowmax)` (m starts at -FLT_MAX, so a
      row masked so far gets 0 weights, never NaN), `alpha = exp2(m -
      m')`, `P = exp2(S - m')`, the lane's row sums `l = l alpha + sum P`,
      O times alpha. P's score fragments, rounded to 16 bits, are P V's A
      fragments (the C layout of two 8-key fragments is the A layout of one
      16-key step): no shared memory. V's B fragments come from `ldmatrix`
      x4 `.trans` (V is staged key-major). A barrier ends the iteration
      (the next one's copies overwrite this stage).
    - `wait_group 0` (the last block's copies), the row sums over the quad,
      `O / l` (0 where `l = 0`: a row with no visible key) stored with
      guards (rows past `Tq`, columns past `Dv`).

    Each thread's copies per stage are whole: `block_k * D' / 8` and
    `block_k * Dv' / 8` (`D'`, `Dv'` padded to 16) multiples of the
    threads; `-tfm-configure-attention` chooses so.

    **Errors** (naming the op): no `#tfm.gpu_flash_attention`; Q, K, V
    not all bf16 or all f16, or not rank 4; dynamic head counts or sizes,
    sizes not multiples of 8, rows not contiguous and 8-aligned; `heads`
    not dividing the group; copies not whole per thread.
  }];
  let statistics = [
    Statistic<"numKernels", "kernels",
              "tfm.attention_kernel ops built into tensor-core kernels">,
  ];
}

def GPUMapAttentionPass : Pass<"tfm-gpu-map-attention", "func::FuncOp"> {
  let summary = "Run each SRAM-tiled attention loop nest as a grid of CTAs with its tiles in shared memory";
  let description = [{
    `scf.forall (b, n, qb) {#tfm.attention_tiling} { tile allocs; linalg
    tile ops; scf.for key blocks { ... } } => gpu.launch blocks(qb, n, b)
    threads(T) workgroup(tiles) { tile ops spread over the threads, a
    barrier after each }`

    The mapping half of attention on a GPU: `-tfm-tile-sram` built the
    online-softmax loop nest (the CPU's, with tiles that
    `-tfm-configure-attention` sized for the target's shared memory); this
    pass runs one forall iteration per CTA.

    **Input invariant.** Bufferized IR (before `-tfm-expand-memref-copy`)
    in which each tiled attention is an `scf.forall` over (batch, K/V head,
    query block; canonicalization drops the loops of one iteration), with
    the tiles as static `memref.alloc`s in its body. Every forall of the
    function is taken: `-tfm-tile-sram`'s are the only ones on the GPU
    pipeline, and canonicalization may have dropped the
    `#tfm.attention_tiling` they carry (kept on the launch when present).

    **Output.** One `gpu.launch` per forall: blocks x over its last loop
    (query blocks), y over the one before (K/V heads), z over the first
    (the batch); the induction variables become block ids; T threads (256,
    at most the target's `max_threads_per_block`). Every tile buffer becomes a workgroup
    attribution (its views follow into the workgroup address space; its
    deallocation goes); a buffer that only holds the zeros another one is
    copied from is not allocated: the copies become fills. Every linalg op
    and copy in the body (also in the key-block loops) becomes a loop
    nest whose parallel iterations are spread over the threads (iteration
    t, t + T, t + 2T, ... of the row-major order, so neighbouring threads
    take neighbouring elements of the innermost dimension), its reductions
    accumulated in registers, followed by a `gpu.barrier`: each tile op
    sees the previous one complete, and the key loops (whose bounds every
    thread computes alike from the block ids and key lengths) end on a
    barrier. A fill right before a tile op that computes every element of
    the filled tile (the scores' zeros before `Q K^T`, the block maximum's
    `-inf` before the row maximum) is folded into it as its initial value.
    Scalar index arithmetic stays as it is, computed by every thread.

    **Untouched.** Other ops; modules whose target is not a GPU.

    **Errors.** A tiled attention forall whose bounds do not start at 0
    with step 1, a tile buffer of dynamic shape, tiles that exceed the
    target's `shared_memory_bytes`, or an op in the body that is neither a
    linalg op, a copy, a pure scalar or view op, a load, nor an `scf.for`
    of those.
  }];
  let statistics = [
    Statistic<"numMapped", "mapped", "Tiled attention loop nests mapped to CTAs">,
    Statistic<"numTileOps", "tile-ops", "Tile ops spread over a CTA's threads">,
    Statistic<"numFoldedFills", "folded-fills", "Fills folded into the tile op after them">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUConfigurePass : Pass<"tfm-gpu-configure", "func::FuncOp"> {
  let summary = "Choose the GPU schedule of each contraction from the target";
  let description = [{
    `linalg contraction => linalg contraction {tfm.lowering_config =
    #tfm.gpu_contraction<block_m, block_n, block_k, thread_m, thread_n>}`

    Configuration only: what `-tfm-gpu-tile-contraction` does with each op
    is decided here, from the module's `#tfm.gpu_target`, and recorded on
    the op.

    **Input invariant.** Bufferized linalg ops in a host function of a
    module whose target is a GPU.

    **Output.** Each contraction on buffers (two inputs, a
    multiply-accumulate payload, f32 output, float inputs of at most 32
    bits, projected-permutation indexing maps, no reduction loop besides
    its `k`) gets `#tfm.gpu_contraction`: 4 x 4 outputs per thread, 16
    threads across `n` (coalesced stores), 16 along `m` (64 x 64 tiles of
    256 threads), `block_k` = 16. When the grid of 64-row tiles (known
    statically) has fewer blocks than the target's multiprocessors, or `m`
    is at most 32, tiles are 32 rows (128 threads). The staging buffers
    must fit the target's `shared_memory_bytes` and the threads its
    `max_threads_per_block`.

    A contraction whose inputs are both bf16 or both f16 (under
    `--precision`, the weights and the activations the GEMMs read are
    stored in 16 bits) on an sm_80+ target gets `#tfm.gpu_mma` instead:
    tensor cores (`mma.sync` m16n8k16, f32 accumulation). Where both
    operands can be staged with 16-byte `cp.async` copies (contiguous
    along `k` or along their own rows, rows aligned to 8 elements:
    `isAsyncCopyable`), two schedules: 128 x 128 x 32 tiles of 2 x 4
    warps in 3 stages (48 KiB) for a problem with a wave of them (the
    target's multiprocessors), else 64 x 64 tiles of 2 x 2 warps in 3
    stages (32 rows where a static `m` is at most 32), 64 deep (48 KiB) on
    sm_90 and 32 deep (24 KiB) on sm_80 to sm_89, where ptxas takes too
    many registers for 64-deep slices (docs/gpu.md, "Occupancy"), chosen
    here for static extents and at run time otherwise
    (`#tfm.gpu_mma_choice`); without `cp.async`, the small tiles in one
    padded stage. A schedule must fit the target's threads per block and
    the shared memory a block may opt into (`opt_in_shared_memory_bytes`;
    past 48 KiB, `-tfm-gpu-dynamic-shared-memory` moves the buffers to
    dynamic shared memory). Options `mma-large` and `mma-small` (six
    numbers: `block_m,block_n,block_k,warps_m,warps_n,stages`) replace the
    two schedules and `mma-min-blocks` the grid size from which the large
    one runs; a malformed schedule is an error, a large one that does not
    fit a warning (the small one runs). `tensor-cores=false` keeps the
    SIMT schedule.

    Each row reduction on buffers (one reduction loop, one float output,
    a payload `out = combine(out, f(ins))` with `combine` one of addf,
    mulf, maximumf, maxnumf, minimumf, minnumf: a norm's sums, softmax's
    maximum and sum) gets `#tfm.gpu_reduction<threads>`: the row length
    rounded up to a power of two, at least a warp (32) and at most 256
    (also when the length is dynamic). The ops after it that can run in
    the same block per row (`findRowKernel`: further reductions of the same
    rows and length that read earlier statistics at their own row, and at
    most one all-parallel op of the same rows that ends the kernel, with
    the ops in between independent of them) get `tfm.row_kernel_stage`
    1, 2, ..., and the reduction's `stages` counts them: a layer norm's
    mean, variance and normalization become one kernel, RMSNorm's two
    ops one, softmax's three one. `fuse-rows=false` keeps one kernel per
    reduction.

    **Untouched.** Other linalg ops (they become one-thread-per-output
    loops, `-tfm-gpu-linalg-to-loops`), ops on tensors, modules without a
    GPU target.
  }];
  let statistics = [
    Statistic<"numMmaConfigured", "mma-contractions",
              "Contractions given a tensor-core schedule">,
    Statistic<"numConfigured", "contractions",
              "Contractions given a shared-memory GEMM schedule">,
    Statistic<"numReductions", "reductions",
              "Row reductions given a block per row">,
    Statistic<"numFusedOps", "row-kernel-stages",
              "Ops run in the block-per-row kernel of a reduction before "
              "them">,
  ];
  let options = [
    Option<"fuseRows", "fuse-rows", "bool", /*default=*/"true",
           "Run the ops after a row reduction on its rows in its kernel">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "Give contractions of 16-bit inputs a tensor-core schedule "
           "(sm_80+)">,
    ListOption<"mmaLarge", "mma-large", "int64_t",
               "The large tensor-core schedule instead of the built-in one: "
               "block_m,block_n,block_k,warps_m,warps_n,stages">,
    ListOption<"mmaSmall", "mma-small", "int64_t",
               "The small tensor-core schedule instead of the built-in one "
               "(same six numbers)">,
    Option<"mmaMinBlocks", "mma-min-blocks", "int64_t", /*default=*/"0",
           "Blocks of large tiles from which the large schedule runs (0: "
           "the target's multiprocessors)">,
  ];
}

def GPUTileContractionPass : Pass<"tfm-gpu-tile-contraction", "func::FuncOp"> {
  let summary = "Lower configured contractions to block-tiled GEMM kernels with shared memory";
  let description = [{
    `linalg contraction {#tfm.gpu_contraction} => gpu.launch workgroup(As,
    Bs) { scf.for k-tile { stage A, B; gpu.barrier; scf.for kk { FMA };
    gpu.barrier } }`

    **Input invariant.** Linalg ops on buffers that carry
    `#tfm.gpu_contraction` (`-tfm-gpu-configure`).

    **Output.** Each becomes one `gpu.launch`: blocks x over `n` tiles,
    y over `m` tiles, z over the product of the other (batch) loops; threads
    x over `n`, y over `m`. Each block holds two workgroup buffers (the
    `block_k` x `block_m` slice of A and `block_k` x `block_n` slice of B,
    converted to f32, rows padded by one element against bank conflicts).
    For each `block_k` step the block's threads copy both slices in
    cooperatively (neighbouring threads read neighbouring elements of the
    operand's innermost dimension; out-of-range elements read as 0), wait
    at a barrier, accumulate their `thread_m` x `thread_n` outputs (rows
    `ty + i * threads_y`, columns `tx + j * threads_x`: conflict-free shared
    reads, coalesced global stores) in registers, and wait again before the
    next copy. The output's initial values are read once before the loop
    and the results written once after it, guarded at the edges. Workgroup
    memory is a launch attribution, never a `memref.alloc` in a kernel
    (which MLIR lowers to a per-thread `malloc`).

    A contraction with `#tfm.gpu_mma` (both inputs bf16 or both f16) runs
    on tensor cores: one block of `warps_m` x `warps_n` warps (threads in
    x) per output tile, grid as above. Its workgroup buffers hold the
    `block_m` x `block_k` slice of A and the `block_n` x `block_k` slice of
    B in 16 bits, `k` contiguous, rows padded by 8 elements (the fragment
    reads of the 8 rows of a group fall in distinct banks); with one stage
    the copies are as above, without conversion. With two stages (one
    pair of slices per stage) the copies are `nvgpu.device_async_copy`s of
    8 elements (16 bytes, `cp.async.cg`; fewer elements read at the end of
    `k`, none past the rows, the rest zero-filled): slice 0 is put in
    flight before the `k` loop, and each iteration puts the next slice in
    flight into the other stage, commits it as a group, waits for all
    groups but that one (`cp.async.wait_group 1`), and after the barrier
    multiplies the current stage. Per 16-deep step each warp loads its
    fragments with `nvgpu.ldmatrix` (x4 for a 16 x 16 piece of A, x2 for an
    8 x 16 piece of B: lane l names row l mod 8 of 8 x 8 matrix l / 8),
    which hands them over in the layout of PTX's `mma.sync` m16n8k16 (lane
    4g + t: A's rows g and g + 8 at k = 2t, 2t + 1 and 2t + 8, 2t + 9; B's
    column g at the same k), and issues one `nvgpu.mma.sync` per 16 x 8
    fragment of its sub-tile; the accumulators (`vector<2x2xf32>` per fragment: rows
    g and g + 8, columns 2t, 2t + 1) start from the output's values and
    are stored once, guarded, after the last slice. `-tfm-gpu-lower-mma`
    turns the products into `nvvm.mma.sync`; the emulation
    (`-tfm-gpu-emulate`) runs them across the 32 lanes of each warp.

    **The bias.** A contraction whose output is filled right before it by
    a broadcast (a `linalg.generic` of parallel loops that yields its one
    input, read through a projected permutation, into the whole output:
    a linear layer's bias) starts its accumulators from the broadcast's
    input instead, and the broadcast goes: one kernel and one pass over
    the output fewer per linear layer (option `fuse-bias`, default on).
    A `linalg.fill` right before it (the zeros of a projection without
    bias) goes the same way: the accumulators start from its value.
    Nothing that touches memory runs between the two (views, index
    arithmetic and allocations may), so no other op sees the output's
    intermediate values. A broadcast that is a row kernel's stage or has a
    schedule of its own stays.

    **The epilogue.** The elementwise op right after a contraction that
    reads its output (a `linalg.generic` of parallel loops over the
    output's dimensions reading it through the identity: an activation
    such as GELU, the residual add after a projection, a conversion to 16
    bits, or several of them fused by `-tfm-fuse-elementwise`) runs in the
    kernel's stores instead: each thread applies the op's payload to the
    results it holds, reads the op's other inputs at the same element, and
    stores into the op's output (through its map: a permutation), and the
    op goes, with the output buffer when nothing else uses it: one kernel
    and one write and read of the output fewer (option `fuse-epilogue`,
    default on). Legal when nothing that touches memory runs between the
    two, the payload has no memory effects, the op reads no other part of
    the output and reads its own output only at the element it writes, the
    contraction does not read the op's output, and the output is the op's
    own or dies with it. A row kernel's stage or an op with a schedule of
    its own stays.

    **Untouched.** Ops without `#tfm.gpu_contraction` or `#tfm.gpu_mma`.

    **Errors.** A configured op that is not such a contraction; a
    `#tfm.gpu_mma` op whose inputs are not both bf16 or both f16.
  }];
  let options = [
    Option<"fuseBias", "fuse-bias", "bool", /*default=*/"true",
           "Start a contraction's accumulators from the broadcast or fill "
           "that fills its output right before it (a bias, zeros), and drop "
           "it">,
    Option<"fuseEpilogues", "fuse-epilogue", "bool", /*default=*/"true",
           "Apply the elementwise op right after a contraction that reads "
           "its output (activation, residual add, conversion) in the "
           "kernel's stores, and drop the op">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Contractions lowered to GEMM kernels">,
    Statistic<"numMmaKernels", "mma-kernels",
              "Contractions lowered to tensor-core GEMM kernels">,
    Statistic<"numFusedBroadcasts", "fused-broadcasts",
              "Broadcasts and fills into a contraction's output read as its "
              "initial values instead">,
    Statistic<"numFusedEpilogues", "fused-epilogues",
              "Elementwise ops after a contraction applied by its kernel's "
              "stores">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def GPUTileReductionPass : Pass<"tfm-gpu-tile-reduction", "func::FuncOp"> {
  let summary = "Lower configured row reductions, with the ops fused after them, to one block per row";
  let description = [{
    `linalg reduction {#tfm.gpu_reduction<T, stages = S>}; ...; the S - 1
    ops marked tfm.row_kernel_stage => gpu.launch blocks(rows) threads(T)
    { per stage: fold every T-th element; shuffles in each warp, one
    shared slot per warp, barrier; every thread holds the total }`

    **Input invariant.** Linalg ops on buffers that carry
    `#tfm.gpu_reduction` (`-tfm-gpu-configure`), and the ops after them it
    marked with `tfm.row_kernel_stage`.

    **Output.** Each configured reduction and its stages become one
    `gpu.launch`, where the last stage was, with one block per row (block
    x enumerates the rows, the last index fastest) and T threads. Thread
    t handles elements t, t + T, t + 2T, ... of the row in every stage
    (coalesced when the row is the buffers' innermost dimension). A
    reduction stage folds them with the op's payload from the combiner's
    identity; the warp combines its lanes with a butterfly of xor
    shuffles, lane 0 of each warp writes the warp's total to its slot in
    a workgroup buffer, and after one barrier every thread combines the
    slots in order and folds the total into the output's initial value:
    every thread holds the statistic, which later stages read from that
    register, and thread 0 writes it to the output. The all-parallel stage
    computes and writes its elements. When the row length is static and
    at most 16 T, each thread keeps its elements of every input in
    registers, loaded once for all stages (the reduction loops are
    unrolled; a row that does not fill the last register clamps its load
    and discards it). Where the row length is a multiple of 4 and every
    buffer along the row has it as its last, contiguous dimension over
    aligned runs of 4 (`hasAlignedRows`), thread t takes 4 consecutive
    elements at 4t, 4(t + T), ...: 128-bit `vector.load`s, and the
    all-parallel stage's results go out in one `vector.store` per 4. The
    combination order differs from a sequential loop's (floating-point
    sums round differently).

    **Untouched.** Ops without `#tfm.gpu_reduction` or a stage mark.

    **Errors.** A configured op that is not such a reduction; stages that
    are not the ops its kernel can run (`findRowKernel`); a stage mark
    that follows no configured reduction.
  }];
  let statistics = [
    Statistic<"numKernels", "kernels", "Row reductions lowered to block-per-row kernels">,
    Statistic<"numStages", "fused-stages", "Ops after a reduction run in its kernel">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def GPULinalgToLoopsPass : Pass<"tfm-gpu-linalg-to-loops"> {
  let summary = "Lower linalg ops on buffers to parallel loops that reduce in registers";
  let description = [{
    `linalg op => scf.parallel (parallel dims) { acc = load out; scf.for
    (reduction dims) iter_args(acc) { payload }; store acc }`

    **Input invariant.** Linalg ops with pure buffer semantics.

    **Output.** Each op whose outputs are indexed by parallel dimensions
    only (every linalg reduction: matmuls, norms' sums, softmax's max and
    sum) becomes one `scf.parallel` over its parallel dimensions, in their
    order; its reduction dimensions become `scf.for` loops inside, outermost
    first, that carry the output values as `iter_args`. Each output element
    is read once before the loops (when the payload reads it) and written
    once after them. A payload's `linalg.index` becomes the loop's
    induction variable. An op with no parallel dimension gets a
    one-iteration `scf.parallel`.

    Upstream's `convert-linalg-to-parallel-loops` reads and writes the
    output element at every reduction step instead; on a GPU that is a
    global-memory round trip per multiply-add.

    **Register rows.** With `rows-per-thread` = R > 1, a reduction that has
    a parallel dimension some input does not depend on (a GEMM's rows `m`,
    which `B[k, n]` does not use; attention's query positions) gives each
    iteration R consecutive values of the innermost such dimension other
    than the innermost parallel one: R accumulators, and that input read
    once per reduction step for all R. The loop over that dimension steps by
    R; a row past the end is computed on the last row's (clamped, in-bounds)
    data and not stored.

    **Vectors.** With `vector-width` = W > 1, an all-parallel op computes W
    consecutive elements per iteration when it can (`vectorLoop`): along
    the loop that indexes the output's last dimension, whose static extent
    W divides; every buffer indexed by that loop has it as its last index,
    with a unit stride and the offset and other strides multiples of W
    (aligned W-element runs); other inputs are read once and broadcast;
    the payload is elementwise-mappable arith and math ops (and constants)
    that do not read that loop's index. The loads and stores are
    `vector.load`/`vector.store` of W elements with W elements' alignment
    (for f32 and W = 4, the 128-bit `ld.global.v4.f32` and
    `st.global.v4.f32`), the payload runs on vectors. Other ops keep one
    element per iteration.

    **Untouched.** Linalg ops on tensors and ops whose outputs are indexed by
    a reduction dimension (left for `convert-linalg-to-parallel-loops`).
  }];
  let options = [
    Option<"rowsPerThread", "rows-per-thread", "unsigned", /*default=*/"8",
           "Consecutive rows of a reduction computed by one iteration (8 "
           "measured fastest of 1, 4, 8 on an H100, docs/performance.md)">,
    Option<"vectorWidth", "vector-width", "int64_t", /*default=*/"4",
           "Consecutive elements of an elementwise op computed by one "
           "iteration with vector loads and stores (4: 128-bit f32 accesses)">,
  ];
  let statistics = [
    Statistic<"numLowered", "lowered-ops", "linalg ops lowered to loop nests">,
    Statistic<"numReductions", "register-reductions",
              "Of them, reductions accumulating in a register">,
    Statistic<"numVectorized", "vectorized-ops",
              "Of them, elementwise ops computing vectors of consecutive "
              "elements">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def GPUCacheAppendPass : Pass<"tfm-gpu-cache-append", "func::FuncOp"> {
  let summary = "Run a KV cache append's loop over sequences as one parallel loop nest";
  let description = [{
    `scf.for %b {tfm.independent_iterations} { offset, rows of %b; memref.copy
    (subview %update[%b, 0, 0, 0][1, H, rows, D]), (subview %cache[...]) }
    => scf.parallel (%b, %z, %h, %t, %d) to (B, 1, H, T, D) { offset, rows of
    %b; if %t < rows: cache[...] = update[...] }`

    The generation step appends each sequence's new keys and values to its
    slice of the KV cache at its own offset (`tfm.cache_append`, lowered by
    `-tfm-to-linalg` into a loop over the sequences that inserts each one's
    rows). Bufferized, that loop would be a one-thread kernel on a GPU
    (`-tfm-gpu-distribute` wraps host loops that touch memory); this pass
    runs it as one loop nest over every element of the update, which
    `-tfm-gpu-distribute` spreads over blocks and threads.

    **Input invariant.** Bufferized IR, before `-tfm-expand-memref-copy`.
    Loops marked `tfm.independent_iterations` (by the lowering of
    `tfm.cache_append`: sequence `b` writes rows of slice `b` only) carry no
    values and end with a copy from a same-rank subview of a buffer defined
    above the loop: a `memref.copy`, or (into a 16-bit cache,
    `-tfm-narrow-kv-cache`) a `linalg.generic` with one input, one output,
    identity maps, parallel loops and a pure body that reads only the input
    element (`arith.truncf`); every other op of the body only reads.

    **Output.** One `scf.parallel` over the loop's range and every dimension
    of the copy's source view: a static size, or the viewed buffer's size
    where the view starts at 0 (the update's rows). The body's other ops are
    cloned into it (each thread reads its sequence's offset and count), and
    the element is copied where every dynamic index lies inside the view,
    through the generic's body when the copy converts it.

    **Errors.** A marked loop of any other form (it names what is missing).
  }];
  let statistics = [
    Statistic<"numAppends", "appends", "Loops over sequences run as one parallel nest">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUDistributePass : Pass<"tfm-gpu-distribute", "func::FuncOp"> {
  let summary = "Map every top-level parallel loop nest of a host function to GPU blocks and threads";
  let description = [{
    `scf.parallel (i0, ..., in) => scf.parallel (block) { scf.parallel (thread) }`
    with `#gpu.loop_dim_map` mappings that `convert-parallel-loops-to-gpu`
    turns into a `gpu.launch`.

    **Input invariant.** A bufferized host function (the entry or
    `@tfm_prepare`) whose computations are `scf.parallel` loop nests, as
    `-tfm-gpu-linalg-to-loops` leaves them: one nest per linalg op,
    the op's parallel dimensions in the `scf.parallel`, its reduction
    dimensions as `scf.for` loops inside. Copies were expanded into loops
    (`-tfm-expand-memref-copy{all}`).

    **Output.** Every `scf.parallel` directly in the function body is
    collapsed into one dimension (row-major, so the innermost dimension of
    the op is the fastest-varying one and neighbouring threads touch
    neighbouring elements: coalesced accesses), then tiled by
    `threads-per-block`: the outer loop maps to `block_x`, the inner one to
    `thread_x`. A nest with fewer iterations than `threads-per-block` (known
    statically) gets that many threads, rounded up to a whole warp. A body
    of reduction loops runs sequentially in its thread.

    Any other top-level op that reads or writes memory (a stray
    `memref.load`/`memref.store`, an `scf.for` or `scf.if` around them) is
    wrapped into a one-iteration `scf.parallel` that becomes a one-thread
    kernel: the host never touches device memory. Ops of the `llvm`
    dialect (reads of the host weights table) stay on the host.

    **Untouched.** Nested `scf.parallel` ops (they run sequentially inside
    their kernel), allocations, views and metadata ops.

    **Errors.** A top-level op that touches memory and whose results are used
    outside it (it cannot become a kernel), or a nest whose tiling fails.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"256",
           "Threads of one block (a multiple of 32, at most 1024)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Parallel loop nests mapped to a grid of blocks">,
    Statistic<"numWrapped", "host-ops-wrapped",
              "Top-level memory ops wrapped into one-thread kernels">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUDeviceMemoryPass : Pass<"tfm-gpu-device-memory", "ModuleOp"> {
  let summary = "Allocate the host functions' buffers in device memory";
  let description = [{
    `memref.alloc / memref.dealloc (host) => gpu.alloc async / gpu.dealloc async`

    **Input invariant.** Host functions whose kernels are `gpu.launch` ops
    (after `convert-parallel-loops-to-gpu`); every buffer they allocate is
    read and written only by those kernels.

    **Output.** Each `memref.alloc` outside a `gpu.launch` becomes a
    `gpu.alloc async` ordered after a `gpu.wait async` and followed by a
    `gpu.wait` on its token; each `memref.dealloc` likewise becomes a
    `gpu.dealloc async`. `gpu-to-llvm` lowers them to `mgpuMemAlloc` and
    `mgpuMemFree` on the stream that `mgpuStreamCreate` gives, which the tfm
    runtime makes the model instance's one stream (allocation is
    stream-ordered, from a pool that keeps freed memory: no synchronization
    per buffer).

    A `memref.get_global` on the host that a kernel reads (a constant table
    such as LongRoPE's inverse frequencies) names the host's copy: passed
    to the kernel, it is a host address, an illegal address on the device.
    Each `gpu.launch` that reads it gets its own `memref.get_global` (and
    the views of it) at the top of its body (`sinkOperationsIntoLaunchOp`),
    and `gpu-kernel-outlining` copies the global into the kernel module
    (device memory, loaded with the module). The index `arith.constant`s a
    kernel uses go in the same way (not into attention CTAs, where the
    folded tile loops made ptxas spill): MLIR 22's outlining would pass
    them as kernel parameters (sinking is upstream's separate
    `gpu-launch-sink-index-computations`), and inside the kernel ptxas
    folds them (GPT-2 small's kernels: 39.4 -> 28.6 ms on an H200 together
    with the 32-row GEMM tiles, docs/performance.md).

    **Untouched.** Kernel bodies, `memref.alloca`, views.

    **Errors.** A `memref.alloc` inside a `gpu.launch` in the default memory
    space: lowered, it would become a per-thread `malloc` of device heap
    (MLIR's known trap); workgroup buffers must be kernel attributions. A
    kernel that reads a global that is not constant (the host's copy and
    the device's would diverge).
  }];
  let statistics = [
    Statistic<"numAllocs", "device-allocs", "Host allocations moved to device memory">,
    Statistic<"numGlobals", "kernel-globals", "Constant globals read inside a kernel instead of from the host">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUEmulatePass : Pass<"tfm-gpu-emulate", "ModuleOp"> {
  let summary = "Run GPU kernels on the host: blocks as loops, threads as loops cut at barriers";
  let description = [{
    `gpu.launch blocks(g) threads(t) { A; gpu.barrier; B } => scf.for bz,
    by, bx { scf.for tz, ty, tx { A }; scf.for tz, ty, tx { B } }`

    The host build of a GPU pipeline (`tfmc --target=nvptx --gpu-emulate`):
    the kernels are the ones the NVIDIA build compiles, already distributed
    over blocks and threads, and run on the CPU with the launch's ids and
    sizes bound to loop variables and bounds. Buffers stay in host memory
    (no `-tfm-gpu-device-memory`). A wrong index, a missing bounds guard, a
    wrong grid size or a missing barrier shows as a numeric difference from
    the reference. The manifest's `"device"` becomes `"cpu"`: the runtime
    treats the library as a CPU model.

    **Barriers.** Each block's body is cut at every `gpu.barrier` into
    segments; a segment runs for all threads of the block (thread loops z,
    y, x) before the next starts, which is what a barrier guarantees. A
    barrier inside an `scf.for` whose bounds are uniform keeps that loop
    outside the thread loops and cuts its body; its loop-carried values are
    per thread. A per-thread value used after the segment that defines it
    is kept in a scratch buffer with one slot per thread; uniform values
    (from block ids, sizes, constants and values defined above the launch,
    through pure ops) are computed once per block outside the thread loops.

    **Warps.** A warp is 32 consecutive linear thread ids. A
    `gpu.shuffle` (width 32), an `nvgpu.ldmatrix` and an `nvgpu.mma.sync`
    cut the body like a barrier, then run as one thread loop in which each
    thread reads the other lanes' values from their scratch slots: the
    shuffle takes its source lane's value (xor, down, up, idx; out of the
    warp or the block: its own, `valid` false); ldmatrix (x1, x2, x4) gives
    lane 4g + t elements 2t and 2t + 1 of the row whose indices lane 8i + g
    holds, for each matrix i (transposed: element g of the rows lanes
    8i + 2t and 8i + 2t + 1 name); the m16n8k16 product (bf16 or f16 fragments,
    f32 accumulator) computes the thread's four elements of D = A B + C
    from the fragments of the lanes that hold A's and B's elements in
    PTX's layout, products exact in f32, summed in k order onto C. The
    products are one private function per fragment type,
    `@tfm_emulated_mma_m16n8k16_<type>` (`no_inline`), that every product
    calls with its lanes' fragments: inlined, they made most of an
    emulated library's code.

    **Functions.** The host code of each launch becomes a private function
    of its own, named after the model op like a GPU kernel and marked
    `tfm.emulated_kernel`, called where the launch was with the values the
    launch read from above as arguments (constants copied in): launches of
    equal kernels call equal functions, which `-tfm-gpu-dedup-kernels`
    merges. (It is outlined after the emulation: which loads are uniform
    depends on which buffers may alias, which the launch's function knows.)

    **Workgroup memory.** Each workgroup attribution becomes a host buffer
    for the launch, filled with NaN at the start of every block: a read of
    shared memory that no thread of the block wrote shows as NaN.

    **cp.async.** Each `nvgpu.device_async_copy` is done when its thread
    issues it (the elements past `srcElements` zero); groups and waits go.
    The barrier after the wait makes the copies visible, as on the GPU.

    **Limits, reported as errors naming the op.** A barrier, shuffle,
    matrix load or product inside any other op than such an `scf.for`, or
    in a loop whose bounds may differ between threads; a shuffle of another
    width; a product of another shape or type, a 32-bit matrix load, either in a block that is not a constant number of whole
    warps; any other `gpu` op; private attributions,
    clusters, async tokens; a workgroup buffer used by anything other than
    loads and stores.
  }];
  let statistics = [
    Statistic<"numEmulated", "emulated-launches",
              "gpu.launch ops turned into host loop nests">,
    Statistic<"numSegments", "thread-segments",
              "Thread loop nests (one more per barrier a kernel passes)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::func::FuncDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUOutlineKernelsPass : Pass<"tfm-gpu-outline-kernels", "ModuleOp"> {
  let summary = "Outline every gpu.launch into a kernel named after its model op, with its planned occupancy";
  let description = [{
    `gpu.launch ... {tfm.blocks_per_sm = 2} loc("layers.0.attn.q"(...)) =>
    gpu.module @layers_0_attn_q { gpu.func @layers_0_attn_q() kernel
    attributes {tfm.blocks_per_sm = 2, ...} }`

    Upstream's `gpu-kernel-outlining`, which this pass runs, calls every
    kernel `<function>_kernel` and drops the launch's attributes. Here each
    launch first takes the model name of its location (the frontend names
    every op, e.g. `layers.0.attn.q`) as a C identifier made unique among
    the module's symbols (`_1`, `_2`, ... for the second and later kernels
    of one op; `<function>_kernel` for a launch without a name), as its
    kernel's and kernel module's names: profiles, `tfmc --emit=ptx` files
    and the runtime's errors then say which op a kernel belongs to. A
    launch's planned occupancy (`tfm.blocks_per_sm`, the blocks per
    multiprocessor its schedule's register plan and shared memory allow,
    set where the kernel was built) stays on its kernel, through NVVM
    lowering, for `tfmc --report` to compare with the registers `ptxas`
    allocated. It is not passed to `ptxas` as `.minnctapersm`: held to the
    budget, `ptxas` spilled in kernels that fit without spills when free.
  }];
  let dependentDialects = [
    "::mlir::cf::ControlFlowDialect",
    "::mlir::gpu::GPUDialect",
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "gpu.launch ops outlined">,
    Statistic<"numPlanned", "planned-kernels",
              "Kernels that keep a planned occupancy">,
  ];
}

def GPUMergeKernelModulesPass : Pass<"tfm-gpu-merge-kernel-modules", "ModuleOp"> {
  let summary = "Move every outlined kernel into one gpu.module";
  let description = [{
    `gpu.module @a { gpu.func @a } gpu.module @b { gpu.func @b } =>
    gpu.module @tfm_kernels { gpu.func @a gpu.func @b }`

    `gpu-kernel-outlining` gives every kernel a module of its own; NVVM
    lowering, libdevice linking, `ptxas` and the driver's module load then
    run once per kernel (hundreds for a GPT-2). After `-tfm-gpu-outline-kernels`,
    this pass moves every kernel module's contents into one module (named
    by `module-name`, made unique among the top-level symbols) in place of
    the first, and points every `gpu.launch_func` at it. Kernel names stay
    (one that would clash is made unique and its launches follow).

    **Untouched.** A module with fewer than two kernel modules, or whose
    kernel modules have different targets or an offloading handler.
  }];
  let options = [
    Option<"moduleName", "module-name", "std::string",
           /*default=*/"\"tfm_kernels\"",
           "Name of the merged kernel module">,
  ];
  let statistics = [
    Statistic<"numMerged", "merged-modules", "Kernel modules merged into one">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUDedupKernelsPass : Pass<"tfm-gpu-dedup-kernels", "ModuleOp"> {
  let summary = "Keep one kernel of each distinct code; launches of copies run it";
  let description = [{
    `gpu.func @layers_0_ffn_1 {B} gpu.func @layers_1_ffn_1 {B} =>
    gpu.func @layers_N_ffn_1 {B}` (both launches name it)

    The layers of a Transformer repeat the same ops on tensors of the same
    shapes, so most kernels of a model are copies of its first layer's (a
    32-layer LLaMA: about 1,100 kernels, a few dozen distinct). Kernels of
    one `gpu.module` that are equal up to their names and their ops'
    locations (same attributes, block sizes, workgroup buffers, body) become
    one: every `gpu.launch_func` of a copy launches the first, and the
    copies go. NVVM lowering, LLVM, `ptxas` and the driver's module load
    then see each kernel once. The emulation's host functions
    (`tfm.emulated_kernel`, made by `-tfm-gpu-emulate`) are merged the same
    way.

    **Names.** A kept kernel takes the names of the kernels it stands for
    with each run of digits that differs between them replaced by `N`
    (`layers_0_attn_q_1`, `layers_1_attn_q_1` -> `layers_N_attn_q_1`); when
    they differ otherwise (the q and k projections of one shape), the first
    name.

    Runs after `-tfm-gpu-merge-kernel-modules`, on the kernels of each
    module; where every kernel has a module of its own (`tfmc
    --emit=ptx`), modules of one kernel and the same targets are compared,
    and a copy's module goes with it (the kept one takes the shared name
    too).
  }];
  let statistics = [
    Statistic<"numMerged", "merged-kernels",
              "Kernels whose launches now run an equal kernel">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUCheckKernelsPass : Pass<"tfm-gpu-check-kernels", "ModuleOp"> {
  let summary = "Fail unless every kernel is outlined and the host touches no device memory";
  let description = [{
    A check after `gpu-kernel-outlining`: host functions may hold
    `gpu.launch_func`, `gpu.alloc`/`gpu.dealloc`/`gpu.wait`, index
    arithmetic, memref views and metadata, and `llvm` dialect ops (the host
    weights table); any `memref.load`, `memref.store`, `vector` transfer or
    leftover `gpu.launch` outside a `gpu.module` is reported, naming the op,
    and the pass fails; so is a `gpu.launch_func` given a host
    `memref.get_global` (the kernel would read host memory). Without it
    such an op would segfault at run time (a host read of a device
    pointer) or stop the device (`CUDA_ERROR_ILLEGAL_ADDRESS`).
  }];
}

def GPULowerMmaPass : Pass<"tfm-gpu-lower-mma"> {
  let summary = "Lower 16-bit nvgpu.mma.sync m16n8k16 to nvvm.mma.sync, bf16 included";
  let description = [{
    `nvgpu.mma.sync(A: vector<4x2xT>, B: vector<2x2xT>, C: vector<2x2xf32>)
    {mmaShape = [16, 8, 16]} => nvvm.mma.sync A[4 regs] B[2 regs] C[4 x f32]
    {layoutA = row, layoutB = col}` for T = bf16 or f16.

    MLIR 22's `convert-nvgpu-to-nvvm` cannot deduce PTX types for bf16
    operands, so tfm lowers the tensor-core GEMM's warp products itself,
    before `convert-gpu-to-nvvm`: each pair of A's and B's fragments is one
    32-bit register (an `i32` for bf16, as `nvvm.mma.sync` takes it; a
    `vector<2xf16>` for f16), the accumulator four f32 registers, and the
    result struct's four f32 become the `vector<2x2xf32>` again. PTX:
    `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32` (sm_80+).

    **Input invariant.** Kernel code (a `gpu.module` or `gpu.launch` body)
    before `convert-gpu-to-nvvm`.

    **Untouched.** Other `nvgpu.mma.sync` shapes and types (upstream's
    `convert-nvgpu-to-nvvm` takes those), everything else.
  }];
  let statistics = [
    Statistic<"numLowered", "lowered", "nvgpu.mma.sync ops lowered to nvvm.mma.sync">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def GPUDynamicSharedMemoryPass
    : Pass<"tfm-gpu-dynamic-shared-memory", "ModuleOp"> {
  let summary = "Move a kernel's workgroup buffers past 48 KiB to dynamic shared memory";
  let description = [{
    `gpu.func @k() workgroup(%a : memref<4096xbf16, 3>, %b : ...) kernel
    => gpu.func @k() kernel { %d = gpu.dynamic_shared_memory; %a =
    memref.view %d[0][] ...; %b = memref.view %d[8192][] ... }` and
    `gpu.launch_func @m::@k ... => gpu.launch_func @m::@k ...
    dynamic_shared_memory_size %c8192_plus_b`

    A block may have 48 KiB of static shared memory (the target's
    `shared_memory_bytes`); past that it must use dynamic shared memory,
    up to what the architecture lets a kernel opt into
    (`opt_in_shared_memory_bytes`: 163 KiB on sm_80, 99 KiB on sm_86 and
    sm_89, 227 KiB on sm_90). The tensor-core GEMM's deeper pipelines and
    larger tiles (`#tfm.gpu_mma` with more than 48 KiB of stages) need it.
    Each kernel whose statically shaped workgroup attributions add up to
    more than `shared_memory_bytes` gets one `gpu.dynamic_shared_memory`
    and a `memref.view` of it per attribution, at offsets rounded up to
    128 bytes, in attribution order; the attributions are removed, and
    every `gpu.launch_func` of the kernel passes the total as its dynamic
    shared memory size (an i32 constant). The runtime's
    `mgpuLaunchKernel` raises the kernel's
    `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES` before the first
    launch that needs more than 48 KiB.

    Kernels within the static limit keep their attributions: static shared
    memory costs no opt-in and its size is known to ptxas. The emulator
    (`--gpu-emulate`) runs before this pass and never sees the views.

    **Input invariant.** Outlined kernels (`gpu.module`s) and their
    launches, with the module's `#tfm.gpu_target`.

    **Untouched.** Kernels within the static limit, a kernel with a
    buffer of dynamic shape or non-identity layout, modules without a GPU
    target.

    **Errors.** Buffers beyond the target's `opt_in_shared_memory_bytes`.
  }];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels given dynamic shared memory">,
    Statistic<"numLaunches", "launches",
              "Launches given their kernel's dynamic shared memory size">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

def GPUAlignSharedPass : Pass<"tfm-gpu-align-shared"> {
  let summary = "Give every kernel's workgroup buffers 16-byte alignment";
  let description = [{
    `gpu.func workgroup(%b : memref<...>) => gpu.func workgroup(%b :
    memref<...> {llvm.align = 16})`

    `ldmatrix` row addresses and 16-byte `cp.async` destinations (the
    tensor-core GEMM's slices) must be 16-byte aligned, and the rows of the
    slices are multiples of 16 bytes; the buffers themselves would get
    their element type's alignment (`.shared .align 2` for bf16), which
    leaves their placement to ptxas. `convert-gpu-to-nvvm` gives each
    buffer the `llvm.align` of its attribution. An attribution that states
    a larger alignment keeps it.

    **Input invariant.** Outlined kernels (`gpu.func` in `gpu.module`s),
    before `convert-gpu-to-nvvm`.
  }];
  let statistics = [
    Statistic<"numAligned", "aligned", "Workgroup buffers given 16-byte alignment">,
  ];
}

#endif // TFM_CODEGEN_GPU_PASSES_TD
