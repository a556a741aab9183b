//===- Passes.td - CPU codegen -----------------------------*- tablegen -*-===//
//
// The CPU target's passes: GEMM weight packing, cache/register tiling,
// vectorization and threads, vector lowering.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_CPU_PASSES_TD
#define TFM_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def PackWeightsPass : Pass<"tfm-pack-weights", "ModuleOp"> {
  let summary = "Give the weights of contractions a panel-major layout, prepared once per model instance";
  let description = [{
    `C[.., n] += A[.., k] * W[k, n] (or W[n, k]) => C[.., nb, r] += A[.., k] * Wp[nb, k, r]`,
    `Wp = pack(W)` marked `tfm.prepare`

    Runs on linalg on tensors (after `-convert-tfm-to-linalg`). A linalg
    contraction (f32, two inputs, one init, no `linalg.index`) whose input
    is a rank-2 `tfm.weight` `W`, or a static unit-stride block of one (a
    fused QKV weight read as three blocks: the packed copy's name then says
    which block, `W[r0:r1,c0:c1]:packed[..]`), is rewritten to read a packed copy `Wp` of
    shape `[N / P, K, P]`: panel `nb` holds columns `nb*P .. nb*P+P-1` of
    every row `k`, so each `KC x P` block the register kernels of
    `-tfm-tile-and-vectorize` stream is contiguous (an unpacked `W[k, n]`
    is read at a stride of `N` floats, a page every row or two; an unpacked
    `W[n, k]` is transposed on every call). `P` is the widest multiple of
    `panel` that divides `N - N mod panel` and is at most `max-panel`
    (default: `panel`, one register tile). One tile wide, each register
    tile streams its `KC x P` strip of `B` contiguously, keeps it in L1
    while it runs every row block of `A` (the order of Goto's GEMM), and
    `-tfm-cpu-prefetch` can run ahead of it; wider panels let `P / panel`
    register tiles reuse each block of `A` from L1, but each tile then
    reads a slice of a `P`-element row per `k` step, a stride that the
    cache sets and the hardware prefetchers serve badly (f32 panels of 8
    tiles, 1 KiB rows: a batch-8 decode step 2x slower, though prefill
    GEMMs of 4096 rows ran 10 % faster with them; docs/performance.md).
    The output's `N` must be static. The weight's map must
    be `(k, n)` or `(n, k)` with `n` a parallel loop that is the innermost
    dimension of the output and that the other input does not use, and `k`
    a reduction loop. The output is expanded to `[.., N / P, P]` and
    collapsed back; the new loop `r` is the innermost.

    `Wp` is one `linalg.generic` copy of the weight (through
    `tensor.expand_shape`) per weight name and layout, inserted at the
    start of the function and marked with the discardable attribute
    `tfm.prepare = "<weight name>:packed[n=<dim of N>,panel=<P>]"`, which
    `-tfm-outline-prepare` moves into `@tfm_prepare`: the copy is made once
    when a model instance is created, never per call.

    When `N` is not a multiple of `panel` (an LM head over a 50257-token
    vocabulary), the first `N - N mod panel` columns are packed and the op
    is split: the packed part writes those columns of the init, and a copy
    of the op on the remaining (fewer than `panel`) columns, reading a
    slice of `W` as stored, writes the rest (`tensor.extract_slice` /
    `insert_slice`).

    With a 16-bit precision (the module's `tfm.precision`, bf16 or f16),
    the panels of a weight that the runtime rounds to it (listed in
    `tfm.rounded_weights` by `-tfm-apply-precision`) are stored in that
    type (`sixteen-bit-panels`): the same values in half the bytes, which
    the register kernels widen as they load them, so a decode step, whose
    GEMMs stream every weight once, reads half the memory. The name then
    ends in `:packed[n=..,panel=..,bf16]` (or `f16`: only for a target with
    F16C, which converts f16 in hardware). A target with AMX or
    AVX512-BF16 has already taken these contractions (`-tfm-pack-amx`).

    Left alone: weights with fewer than `panel` columns, `[K, N]` weights
    whose packed columns are one panel (already panel-major) and stay f32,
    other element types, and contractions that read no weight (attention's
    `Q.Kᵀ` and `P.V`).
  }];
  let options = [
    Option<"panel", "panel", "int64_t", /*default=*/"0",
           "Panel granule in f32 lanes; every panel width is a multiple of "
           "it (0: the register tile's width on the module's target, two "
           "vectors)">,
    Option<"maxPanel", "max-panel", "int64_t", /*default=*/"0",
           "Widest panel (a multiple of panel; 0: one, panel itself)">,
    Option<"sixteenBitPanels", "sixteen-bit-panels", "bool", /*default=*/"true",
           "Store the panels of weights rounded to the module's 16-bit "
           "precision in that type">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tfm::TfmDialect",
  ];
  let statistics = [
    Statistic<"numPackedContractions", "packed-contractions",
              "Contractions rewritten to read a packed weight">,
    Statistic<"numPackedWeights", "packed-weights",
              "Packed weight layouts made (one per weight name and layout)">,
    Statistic<"numSixteenBitWeights", "sixteen-bit-weights",
              "Packed weight layouts stored in 16 bits">,
  ];
}

def PackAmxPass : Pass<"tfm-pack-amx", "ModuleOp"> {
  let summary = "Put bf16 contractions that read a weight in AMX form: bf16 activations, a VNNI-packed weight prepared once per model instance";
  let description = [{
    `C[.., n] += A[.., k] * W[k, n] (or W[n, k]) =>`
    `C[m, nb, r] += ext(Abf[m, kp, t]) * ext(Wp[nb, kp, r, t])`,
    `Abf = bf16(A)` as `[M, K/2, 2]`, `Wp = vnni(bf16(W))` marked `tfm.prepare`

    Runs on linalg on tensors after `-tfm-apply-precision`, before
    `-tfm-pack-weights`, and only when the module's `tfm.precision` is bf16
    and its `#tfm.cpu_target` has the `amx-tile` and `amx-bf16` features, or
    `avx512bf16` (then `-tfm-cpu-lower-amx` runs vector dot products).
    A contraction (f32, two inputs, one init, no `linalg.index`) whose
    input is a rank-2 `tfm.weight` `W` that the runtime rounds to bf16
    (`tfm.rounded_weights`), or a static unit-stride block of one (a fused
    QKV weight read as three blocks; the prepared copy's name then says
    which block, `W[r0:r1,c0:c1]:amx[n=..]`), read as `(k, n)` or
    `(n, k)`, with the other
    input read as `A[rows.., k]` for the output `C[rows.., n]` (the rows
    parallel loops), static `K` a multiple of 32 and static `N` of at least
    32, becomes a bf16 x bf16 -> f32 `linalg.generic` with loops
    `(m, nb, kp, r, t)`: the rows collapsed into `m`; `A` converted to bf16
    once (one conversion per activation, however many weights it meets) and
    seen as `[M, K/2, 2]`; `W` copied once per model instance into
    `Wp[N/16, K/2, 16, 2]` (bf16), the layout of AMX's B tile (each tile row
    holds 16 columns of a pair of rows of `W`, so the 16 x 32 B tile of
    every 32-step of `k` is 1 KiB of contiguous memory); `C` seen as
    `[M, N/16, 16]`. Rounding `A` and `W` to bf16 is what
    `-tfm-apply-precision` asked for already: the values do not change,
    the storage does (half the bytes of every weight a GEMM streams).

    When `N` is not a multiple of 32 (an LM head over a 50257-token
    vocabulary), the first `N - N mod 32` columns take the AMX form, and the
    op itself (f32, rounded inputs) computes the rest on a slice of `W`.

    The module's `tfm.cpu_features` gains `"amx-bf16"`: the manifest then
    asks the runtime to check the CPU and to enable the tile state before
    the library runs. `-tfm-cpu-configure` schedules the AMX form
    (`#tfm.cpu_amx_contraction`), `-tfm-cpu-lower-amx` lowers it.

    The two contractions of a tiled attention's key block
    (`-tfm-tile-sram`: `linalg.matmul` ops in an `scf.for` marked
    `tfm.key_blocks`), `S = Q K^T` on `[M, D] x [Bc, D]` and
    `acc += P V` on `[M, Bc] x [Bc, Dv]`, take the same form with the K or
    V block in the place of `W`: the query tile is converted to bf16 once
    per query block, the probabilities once per key block; a whole K or V
    block that rounds a slice of a tensor from outside the attention's
    `scf.forall` is read from that tensor converted once (a short block,
    copied into a zeroed buffer, is converted in the loop); the blocks are
    copied into the VNNI layout in the key loop (`Kp[Bc/16, D/2, 16, 2]`,
    `Vp[Dv/16, Bc/2, 16, 2]`), so that both products run on tiles.
    The same limits apply: `D` and `Bc` multiples of 32 (else the block's
    contraction stays f32), the last `Dv mod 32` columns of `P V` in f32;
    and a query tile of at least 32 rows (`M`: a decode step's tile of one
    query per K/V head group keeps the f32 kernels, which do less work for
    a few rows than 32-row tile kernels after the same packing).
    `-tfm-configure-attention` gives such attention larger tiles (half of
    L2, key blocks of 32). Without AMX the key blocks take the same packed
    form, for `vdpbf16ps` (Zen 4, 12 heads, D = 64, one core: 142-156
    against 83-85 GFLOP/s for the f32 kernels on rounded inputs).

    Left alone: every other precision or target (the f32 register kernels
    run with the rounded inputs), contractions that read neither a weight
    nor a key block (the untiled attention's batched products), `K` not a
    multiple of 32.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tfm::TfmDialect",
    "::mlir::vector::VectorDialect",
  ];
  let statistics = [
    Statistic<"numAmxContractions", "amx-contractions",
              "Contractions put in AMX form">,
    Statistic<"numAmxWeights", "amx-weights",
              "VNNI-packed bf16 weight layouts made">,
    Statistic<"numAmxAttention", "amx-attention",
              "Attention key-block contractions put in AMX form">,
  ];
}

def CpuConfigurePass : Pass<"tfm-cpu-configure", "func::FuncOp"> {
  let summary = "Choose the CPU schedule of every linalg op for the module's target";
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let description = [{
    `linalg op => linalg op {tfm.lowering_config = #tfm.cpu_contraction<...> | #tfm.cpu_elementwise<...>}`

    The configuration half of the CPU code generator (`-tfm-tile-and-vectorize`
    is the other). It reads the module's `#tfm.cpu_target` and records on
    each linalg op on tensors what that pass is to do with it:

    - a **contraction** the GEMM schedule takes (f32, output's innermost
      dimension an `n` dimension) gets `#tfm.cpu_contraction`: with
      `VL = vector_bits / 32`, `nr = 2·VL`,
      `mr = min(8, (vector_registers - 4) / 2)` (the `mr×nr` accumulator
      uses `2·mr` registers; option `register-rows` sets it, for A/B runs:
      12 and 14 rows measured no faster than 8 on AVX-512), `kc = l1_bytes / 2 / (4·nr)` and
      `nc = l2_bytes / 2 / (4·kc)` (a multiple of `nr`; options `cache-k`
      and `cache-cols` set either, for A/B runs); with more than one
      thread and no loop around it, `parallel_rows` = `parallel-rows`
      (default `4·mr`) and `parallel_cols` = `parallel-cols` (default
      `4·nr`; 0 keeps whole cache tiles), else 0 and 0; `dot` when it is
      not split for threads and is a plain `C[m, n] += A[m, k]·B[n, k]`
      with static sizes, `m ≤ dot-rows` (default `mr / 2`), and `n` and
      `k` multiples of `VL` (a
      decode step's `QKᵀ`: a transposing pack per key block would cost
      more than the GEMV);
    - a contraction in the AMX form of `-tfm-pack-amx` gets
      `#tfm.cpu_amx_contraction`: `cache_cols` such that the `K x
      cache_cols` bf16 block of the packed weight fills at most half of
      L2 and, with threads, there are at least two column blocks per
      thread (a decode step's few rows still split), a multiple of 32,
      then evened out: `N` in as many equal blocks as whole such budgets
      fit, each rounded up to 32 (a short last block cost 6-7 % on the
      AMX Xeon: 768 for `N` = 3072 on two threads, not 672);
      `k_block` such that 32 rows of bf16 A fill at most an eighth of L2
      (`l2_bytes / 512`: the accumulators go to C and back once per k
      block, which costs more than A's rows streaming from L2; measured
      with tiles on the AMX Xeon, and with AVX512-BF16 dot products on Zen
      4, where half of L1 ran 1.02-1.04x slower), a multiple of 32, at
      most K; `amx-cols` and
      `amx-k-block` set either for every AMX contraction instead (A/B
      runs: `tfm-bench --versus`); with tiles on a target that also has
      AVX512-BF16, `tail_dot_rows` = `amx-tail-dot-rows` (default 4): the
      rows after the last whole 32-row step, when at most that many (a
      decode step's few), run on vector dot products, which cost per row
      (measured: up to 4 rows they beat a 32-row tile kernel, at 8 they
      lose); with
      more than one thread and no loop around it, `parallel_rows` = 128
      (four 32-row kernels), else 0;
    - every **other op** gets `#tfm.cpu_elementwise` when it is to be
      vectorized (`elementwise`, or a statically shaped op inside a tiled
      attention's key loop, an `scf.for` carrying `#tfm.key_blocks`: the
      online softmax on the score tile) or split for threads (more than one
      thread, no loop around it, and not a fill that only initializes
      another op's result): `lanes = VL`, `whole_reduction = l1_bytes / 64`
      f32, `parallel_block_bytes` = `parallel-block-bytes` (default
      `l1_bytes`) or 0.

    Ops with an empty static loop get nothing. An existing configuration is
    replaced. Error: a module without a CPU target.
  }];
  let options = [
    Option<"contractions", "contractions", "bool", /*default=*/"true",
           "Schedule contractions">,
    Option<"elementwise", "elementwise", "bool", /*default=*/"false",
           "Vectorize the non-contraction linalg ops too (off by default: "
           "with many nested dynamic loops, bufferization's slice analysis "
           "makes compile time grow several-fold; LLVM's loop vectorizer "
           "takes those loops instead)">,
    Option<"registerRows", "register-rows", "int64_t", /*default=*/"0",
           "mr, the rows of every f32 register tile, 1 to 16 (0: from the "
           "vector registers, at most 8)">,
    Option<"parallelRows", "parallel-rows", "int64_t", /*default=*/"0",
           "Rows (m) per parallel block of a contraction (0: 4 register "
           "tiles, 4·mr)">,
    Option<"parallelCols", "parallel-cols", "int64_t", /*default=*/"-1",
           "Columns (n) per parallel block of a contraction, a multiple of "
           "nr (-1: 4 register tiles, 4·nr; 0: whole cache tiles)">,
    Option<"dotRows", "dot-rows", "int64_t", /*default=*/"-1",
           "Most rows (m) of a contraction that takes the dot-product "
           "kernel (-1: mr / 2; 0: none)">,
    Option<"parallelBlockBytes", "parallel-block-bytes", "int64_t",
           /*default=*/"0",
           "Least data (bytes of its operands) per parallel row block of a "
           "non-contraction op (0: l1_bytes)">,
    Option<"cacheK", "cache-k", "int64_t", /*default=*/"0",
           "kc of every f32 contraction, at most 2^20 (0: from L1)">,
    Option<"cacheCols", "cache-cols", "int64_t", /*default=*/"0",
           "nc of every f32 contraction, a multiple of nr, at most 2^20 (0: "
           "from L2 and kc)">,
    Option<"amxCols", "amx-cols", "int64_t", /*default=*/"0",
           "cache_cols of every AMX contraction, a multiple of 32 (0: from "
           "L2 and the threads)">,
    Option<"amxKBlock", "amx-k-block", "int64_t", /*default=*/"0",
           "k_block of every AMX contraction, a multiple of 32 (0: from L2; "
           "at most K either way)">,
    Option<"amxTailDotRows", "amx-tail-dot-rows", "int64_t",
           /*default=*/"4",
           "With AMX tiles and AVX512-BF16: the last rows of an AMX "
           "contraction after its whole 32-row steps, when at most this "
           "many (0 to 31; 0: none), on vector dot products instead of a "
           "32-row tile kernel">,
  ];
  let statistics = [
    Statistic<"numContractions", "contractions",
              "Contractions given a schedule">,
    Statistic<"numOthers", "other-ops", "Other linalg ops given a schedule">,
  ];
}

def CpuOpenMPPass : Pass<"tfm-cpu-openmp", "ModuleOp"> {
  let summary = "Turn scf.forall loops into OpenMP worksharing loops when the target has threads";
  let description = [{
    `scf.forall => scf.parallel => omp.parallel { omp.wsloop }` (with
    `threads` > 1 in the module's `#tfm.cpu_target`), else nothing: the
    foralls then run serially and the library needs no libomp.

    Every `scf.forall` of the CPU pipeline (the tiled attention's batch x
    K/V head x query block loop; the batch/head loops, row blocks and
    packing of contractions, the row blocks of other ops) writes disjoint
    blocks of buffers that exist before the loop and allocates its own
    tiles, so no iteration shares a written buffer and nothing reduces
    across iterations. The thread count is the calling thread's OpenMP
    setting (the runtime sets it per model instance). Runs upstream's
    `scf-forall-to-parallel` and `convert-scf-to-openmp`.
  }];
  let dependentDialects = [
    "::mlir::omp::OpenMPDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def TileAndVectorizePass : Pass<"tfm-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile linalg ops on tensors for registers and caches, then vectorize them";
  let description = [{
    `linalg contraction => scf.for nest (cache tiles, packed B, register tiles) + vector.contract`,
    `other linalg op => scf.for over vector-sized tiles + vector ops`,
    with threads inside an `scf.forall` of row blocks

    Runs on linalg on tensors (after elementwise fusion, before
    bufferization), on the ops that carry a `#tfm.cpu_contraction` or
    `#tfm.cpu_elementwise` (`-tfm-cpu-configure`); others are left alone.
    Every tile size and the choice of threads come from that
    configuration: the pass decides nothing and holds no machine constants.
    Below, `VL`, `MR`, `NR`, `KC`, `NC`, `MC` are the configuration's
    `lanes`, `mr`, `nr`, `kc`, `nc`, `parallel_rows`; "with threads" means
    `parallel_rows` > 0 (contractions) or `parallel_block_bytes` > 0 (other
    ops).

    **Contractions** (any `linalg` op that `isaContractionOpInterface`
    accepts, f32 accumulator, whose output's innermost dimension is an `n`
    dimension: `linalg.matmul`, the rank-3 projections, attention's `QKᵀ`
    and `PV`):

    1. batch dimensions, and all but the innermost `m`, `n`, `k` dimension,
       are tiled by 1; `n` by `NC`, `k` by `KC` (cache tiles); unit
       dimensions are dropped, giving a plain `C[m,n] += A[m,k]·B[k,n]`
       (a static `m` of 1 stays: a decode step's one-row `QKᵀ` and `PV`
       are GEMVs that still get the register kernel, `1 × NR` tiles);
    2. a `B` read as `B[n,k]` (an `out_in` weight, the keys of `QKᵀ`) is
       packed once per cache tile into a `KC×NC` f32 buffer (a transpose,
       itself vectorized as `VL×VL` blocks; a 16-bit `B`, a KV cache block
       read in place, is widened to f32 as it is packed), so the kernel
       reads `B` rows contiguously; the buffer has a static size and is
       hoisted out of the loops by bufferization;
    3. register tiles `MR × NR × 1`; the `k` loop is innermost;
    4. vectorization to `vector.contract` (lowered to outer products / FMAs
       by `convert-vector-to-llvm`); the accumulator's `transfer_read` and
       `transfer_write` are hoisted out of the `k` loop, so it lives in
       registers for the whole `KC` panel.

    A contraction whose configuration says `dot` (few static rows, `B` read
    as `B[n, k]`: a decode step's `QKᵀ`) takes the dot-product kernel at
    step 2 instead, when its cache tile is a static
    `C[m, n] += A[m, k]·B[n, k]` with `n` and `k` multiples of `VL`
    (otherwise the steps above): for each `VL` columns `n0` and each row
    `i`, `VL` vector accumulators over `k` in steps of `VL`
    (`acc_j += A[i, k:k+VL] · B[n0+j, k:k+VL]`, a `vector.fma` each, the
    rows of `B` read in place and a 16-bit one widened in registers), then
    a transpose-and-add tree (`log2 VL` levels of two shuffles and an add
    per pair of vectors) leaves the `VL` dot products in one vector, added
    to `C[i, n0:n0+VL]`. No packed buffer.

    With threads, a contraction (one that no loop encloses) is split for
    threads: its outer parallel dimensions of `B` (batch dimensions, outer
    `n` dimensions such as heads or the panels of a packed weight) by an
    `scf.forall` of one index per iteration, together with its rows in
    blocks of `4·MC` (so that a few panels do not leave threads idle);
    otherwise, inside every cache tile and after `B` is packed,
    its rows by an `scf.forall` of `MC` rows, and the packing itself by an `scf.forall` of `2·VL` rows of
    `k`. Every iteration writes a disjoint block (of the result or of the
    packed buffer) and allocates its own temporaries; the packed `B` tile
    is written before the row blocks and only read by them. The reduction
    over `k` stays in order inside an iteration, so results do not depend
    on the number of threads. Nothing is split inside another `scf.forall`
    (the tiled attention's contractions). `-tfm-cpu-openmp` turns the
    foralls into OpenMP worksharing loops.

    With threads, every **other linalg op** (one that no loop encloses: layer
    and RMS norm reductions, bias broadcasts, GELU, residual adds,
    transposes, RoPE, the embedding gather, fills; vectorized or not) is
    split too: its outer parallel loops, those that index every
    result as a plain dimension (all parallel loops but the innermost: batch
    × tokens, batch × heads × tokens), become an `scf.forall` of row
    blocks. The innermost loop and the reduction loops stay whole in a
    block, so a block computes whole rows and writes its own slice of every
    result. With `R` the bytes of one row (every operand over the loops not
    split; a dynamic extent counts as 1), a block holds
    `ceil(B / R)` rows, `B` = `parallel_block_bytes`,
    gathered from the innermost split loop outwards: a static loop the rows
    cover stays whole, a longer one is cut into blocks of at least the rows
    still needed (a divisor of its extent when one is at most twice that), a
    dynamic one is blocked by them (the loops outside it by 1). An op whose
    static extents make fewer than two blocks stays serial; with dynamic
    extents the number of blocks is known at run time only (one block
    still pays for a parallel region). An init that the op never reads
    (a `tensor.empty`) is first replaced by an input of the same type and
    indexing map that the op reads last and that another op computed (not
    a weight or an argument), so the blocks overwrite that input in place,
    as bufferization does for the op alone; a fill that only initializes
    the op's result (a reduction's accumulator) is not split by itself,
    each block fills its own slice. Then, with `vectorize`, the op in the
    block is tiled and vectorized as below.

    ```mlir
    // before: a layer norm's mean over [B, T, 768] (B, T dynamic)
    %m = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : tensor<?x?x768xf32>) outs(%acc : tensor<?x?xf32>) ...
    // after (parallel_block_bytes = 32768: rows of 768·4 + 4 bytes, 11 per block)
    %m = scf.forall (%b, %t) = (0, 0) to (%B, %T) step (1, 11)
        shared_outs(%o = %acc) -> (tensor<?x?xf32>) {
      %xs = tensor.extract_slice %x[%b, %t, 0] [1, %n, 768] [1, 1, 1] ...
      %r = linalg.generic ... ins(%xs ...) outs(...) -> tensor<1x?xf32>
      scf.forall.in_parallel {
        tensor.parallel_insert_slice %r into %o[%b, %t] [1, %n] [1, 1] ...
      }
    }
    ```

    Every loop whose tile is larger than 1 is **peeled**: the main loop has
    static full tiles, the remainder (dynamic batch × sequence sizes, a
    vocabulary that `NR` does not divide) is tiled again by 1 along its
    dynamic dimensions, so every vectorized op has a static shape and no
    masks are needed.

    **Other linalg ops** (elementwise, reductions, transposes, fills,
    broadcasts) with `vectorize` and a static innermost loop: every other
    loop is tiled by 1, the innermost by `2·VL` or `VL` when that divides
    it, or left whole when it is at most `2·VL` or a reduction of at most
    `whole_reduction` elements; then unit dimensions are dropped and the tile vectorized
    (`vector.multi_reduction` for reductions, `vector.gather` for
    data-dependent `tensor.extract`). These loops are not peeled, and ops
    with a dynamic innermost loop are left alone: peeling many nests with
    dynamic loops made compile time grow several-fold (affine
    simplification after peeling, bufferization's slice analysis); LLVM's
    loop vectorizer takes those loops. Ops the vectorizer rejects stay
    scalar and become loops later.

    ```mlir
    // before
    %c = linalg.matmul ins(%a, %b : tensor<?x768xf32>, tensor<768x768xf32>)
                       outs(%acc : tensor<?x768xf32>) -> tensor<?x768xf32>
    // after (sketch, lanes = 16: AVX-512)
    scf.for %k0 = %c0 to %c768 step %c192 ... {      // cache tile of k
      scf.for %m = %c0 to %mMain step %c8 ... {      // full register tiles
        scf.for %n = %c0 to %c768 step %c32 ... {
          %acc0 = vector.transfer_read ... : vector<8x32xf32>
          %r = scf.for %k = %c0 to %c192 step %c1 iter_args(%v = %acc0) {
            %a = vector.transfer_read ... : vector<8x1xf32>
            %b = vector.transfer_read ... : vector<1x32xf32>
            %d = vector.contract {...} %a, %b, %v
            scf.yield %d
          }
          vector.transfer_write %r, ...
      } }
      scf.for %m = %mMain to %M step %c8 ... { ... 1×32 tiles ... }  // remainder
    }
    ```
  }];
  let statistics = [
    Statistic<"numContractions", "contractions",
              "Contractions tiled for registers and caches">,
    Statistic<"numDot", "dot-kernels",
              "Contractions given the dot-product kernel (B read in place)">,
    Statistic<"numPacked", "packed-operands",
              "Contraction operands packed (transposed) per cache tile">,
    Statistic<"numVectorized", "vectorized-ops", "Tiles vectorized">,
    Statistic<"numParallel", "parallel-loops",
              "scf.forall loops made for threads (contractions, packing)">,
    Statistic<"numParallelOps", "parallel-ops",
              "Other linalg ops split into scf.forall row blocks for threads">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CpuLowerAmxPass : Pass<"tfm-cpu-lower-amx", "ModuleOp"> {
  let summary = "Lower contractions in AMX form to tile loads, tdpbf16ps and tile stores";
  let description = [{
    `linalg.generic {tfm.lowering_config = #tfm.cpu_amx_contraction<...>} => scf.forall/scf.for + amx.tile_load/tile_mulf/tile_store => LLVM`

    Runs after bufferization, before `convert-linalg-to-loops`, on the
    contractions `-tfm-pack-amx` put in AMX form (`C[m, nb, r] +=
    A[m, kp, t] * Wp[nb, kp, r, t]` on memrefs) that `-tfm-cpu-configure`
    scheduled. Each becomes: blocks of `parallel_rows` rows by
    `cache_cols` columns (an `scf.forall`, OpenMP's with threads; with
    `parallel_rows` = 0 one block of all rows); in a block, for every 32
    rows and every 32 columns, a kernel that loads its four 16 x 16 f32
    accumulators from `C`, runs the `k` loop (two 16 x 32 bf16 A tiles at
    `A`'s row stride, two 16 x 32 B tiles of `Wp`, four `amx.tile_mulf`)
    with the accumulators carried in tile registers, and stores them back.
    The last rows of a block (fewer than 32) go through a 32-row scratch:
    their `A` rows copied into a zeroed buffer, their `C` rows in and out;
    with `tail_dot_rows` > 0, when there are at most that many, they take
    the dot-product kernels below instead (read and written in place).

    **Without AMX** (`dot_products`, a CPU with AVX512-BF16): the same
    blocks and 32-row steps, in kernels of `f32` accumulators carried in
    registers through the `k` loop, one step per pair of `k`: a 64-byte
    row of `Wp` per 16-column tile (16 columns by the pair), and for each
    row its pair of `A` broadcast as one 32-bit element to every lane,
    multiplied by `x86vector.avx512.dot` (`vdpbf16ps`). A 32-row step runs
    kernels of 4 rows by `dot-tiles` tiles (default 6: 24 accumulators,
    six rows of `Wp` and the broadcast in 31 of the 32 registers; 10 loads
    per 24 products) while that many tiles of the block are left, then of
    8 rows by 2 tiles (16 accumulators; 10 loads per 16); its `k` loops are
    marked `tfm.cached_panel` (the step's kernels read each row of `Wp` in
    turn, all but the first from cache: `-tfm-cpu-prefetch` leaves them
    alone). The cost of these kernels grows with the rows they run, so a
    block's last rows (fewer than 32) run as kernels of 8 rows by 2 tiles
    and then one kernel of 4, 2 and 1 rows for each bit of the count
    left, reading `A` and `C` in place (a decode step's one row per
    sequence: one 1-row kernel per column pair); those stay on pairs, whose
    `Wp` comes from memory (six streams ran 7 % slower than two for one
    row on Zen 4). Measured on Zen 4 (docs/performance.md): six tiles
    1.01-1.06x over two on GPT-2's GEMMs at 512 rows, no prefetches in the
    whole steps 1.03x.

    `-tfm-cpu-convert-amx-to-llvm` converts the AMX ops later; the vector
    dot products go with the vector ops (`convert-vector-to-llvm`'s
    x86vector lowering).
  }];
  let dependentDialects = [
    "::mlir::amx::AMXDialect",
    "::mlir::vector::VectorDialect",
    "::mlir::x86vector::X86VectorDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
  let options = [
    Option<"dotTiles", "dot-tiles", "int64_t", /*default=*/"6",
           "Column tiles (16 columns each) per AVX512-BF16 dot-product "
           "kernel: 6 or 4 (kernels of 4 rows), 2 (of 8 rows)">,
  ];
  let statistics = [
    Statistic<"numLowered", "lowered", "Contractions lowered to AMX tiles">,
  ];
}

def CpuConvertAmxToLLVMPass : Pass<"tfm-cpu-convert-amx-to-llvm", "ModuleOp"> {
  let summary = "Convert AMX tile ops, and the scf loops that carry tiles, to LLVM";
  let description = [{
    `amx.tile_load/tile_mulf/tile_store => llvm.call_intrinsic "llvm.x86.*.internal"`,
    `scf.for iter_args(!amx.tile<..>) => scf.for iter_args(!llvm.x86_amx)`

    Runs just before `convert-scf-to-cf`. Upstream's
    `convert-vector-to-llvm{enable-amx}` converts the AMX ops but not the
    tiles that `-tfm-cpu-lower-amx`'s k loops carry in registers once
    `convert-scf-to-cf` has made them block arguments (`convert-cf-to-llvm`
    does not know the tile type); converting the loops' types with the ops
    (upstream's structural type conversion of `scf`) keeps them in tile
    registers. Not earlier: the intrinsic calls have unknown memory
    effects, and would keep the canonicalizer from inlining the
    `memref.alloca_scope` that OpenMP's lowering wraps loop bodies in
    (which must stay one block). LLVM's X86 back end places the tile
    configuration (`ldtilecfg`) in each function that uses tiles.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def CpuOutlineParallelPass : Pass<"tfm-cpu-outline-parallel", "ModuleOp"> {
  let summary = "Move each OpenMP parallel region of a function that has several into a function of its own";
  let description = [{
    `llvm.func @f { ... omp.parallel { R_i } ... } => llvm.func internal
    @f_parallel_i(captured) { omp.parallel { R_i } }` and `llvm.call
    @f_parallel_i(captured)` in its place

    Runs on the LLVM dialect, after `convert-openmp-to-llvm`, on every
    `llvm.func` with two or more top-level `omp.parallel` ops (an entry
    point runs one per kernel: 80 in the tiny LLaMA's decode step). The
    translation to LLVM IR outlines each parallel region with OpenMP's
    IRBuilder, whose `CodeExtractor` analyses the whole enclosing function
    once per region: quadratic in the kernels of an entry point, 28% of
    tfmc's time on examples/gpt-decoder.json. In a function of its own,
    each region's extraction sees that function only. The region runs as
    before (LLVM inlines the one call back).

    The new function takes the values the region uses that are defined
    above it, in order of first use, except constants
    (`llvm.mlir.constant`, `zero`, `undef`, `poison`, `addressof`), which are
    cloned into it. It is internal, named `<f>_parallel_<i>`.

    **Input invariant.** LLVM dialect; `omp.parallel` has no results.
    **Output.** No function with more than one top-level `omp.parallel`.
  }];
  let statistics = [
    Statistic<"numOutlined", "outlined", "omp.parallel regions moved into functions of their own">,
  ];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def ExpandBf16Pass : Pass<"tfm-expand-bf16", "ModuleOp"> {
  let summary = "f32 <-> bf16 conversions as integer ops on a CPU without AVX512-BF16";
  let description = [{
    `arith.truncf %x : f32 to bf16 => bits of %x rounded to nearest even,
    shifted right by 16` (and `arith.extf` the reverse), scalar or vector,
    by upstream's bf16 expansion patterns (`arith-expand{include-bf16}`),
    on a module whose `#tfm.cpu_target` lacks `avx512bf16`.

    Without AVX512-BF16, LLVM lowers a `fptrunc` to bf16 to a call of
    compiler-rt's `__truncsfbf2` per element, which no vectorizer undoes.
    Under `--precision=bf16` the rounded GEMM and attention inputs, the KV
    cache slices of a decode step included, are such conversions: a GPT-2
    decode step at 512 tokens on a Zen 1 took 93 ms at bf16 against 42 ms at
    f32 before this pass (docs/performance.md). As integer ops they
    vectorize like the rest of the kernel. The results are the same bits
    (round to nearest even; a NaN stays a quiet NaN).

    Runs after vectorization, before the LLVM conversion. A target with
    AVX512-BF16 keeps the conversions: LLVM emits `vcvtneps2bf16` for them,
    16 per instruction. A module without a CPU target is left alone.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LowerVectorOpsPass : Pass<"tfm-lower-vector-ops"> {
  let summary = "Lower vector.contract, multi_reduction, transpose and transfer permutations for the CPU";
  let description = [{
    `vector.contract => vector.outerproduct => vector.fma`,
    `vector.multi_reduction => vector.reduction`,
    `vector.transpose => shuffles`, `transfer with permutation => minor identity + broadcast/transpose`

    Runs after bufferization, before `convert-vector-to-scf` and
    `convert-vector-to-llvm`: the latter lowers contractions and transposes
    itself but not `vector.multi_reduction`, and scalarizing math after it
    would leave vector ops behind. Contractions become outer products (one
    broadcast FMA per row of the register tile), multi-reductions along the
    innermost dimension become `vector.reduction` (reassociated by
    `convert-vector-to-llvm`), transposes 16×16 shuffles. f32 min/max
    reductions (`maxnumf`, `maximumf`, ...) of a power-of-two length become
    a tree of vector min/max ops over halves: LLVM expands its min/max
    reduction intrinsics without `nnan` one lane at a time on x86 (32
    scalar max-and-NaN-blend steps for a row of 32 scores). A transpose
    whose one use widens it (`arith.extf`: a 16-bit K block packed as f32
    for `QKᵀ`) is widened first and transposed as f32: x86 has f32
    shuffles, and a 16-bit transpose was assembled lane by lane.

    The pattern set holds no `vector.shape_cast` lowering and no
    canonicalization: together they do not terminate.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def CpuPrefetchPass : Pass<"tfm-cpu-prefetch"> {
  let summary = "Prefetch the rows of B that the GEMM kernels stream";
  let description = [{
    `scf.for %k { vector.transfer_read %B[%k, ..] } => scf.for %k { memref.prefetch %B[min(%k + d, last), ..] ; vector.transfer_read .. }`

    Runs after bufferization and `-tfm-lower-vector-ops`, on the kernels'
    `k` loops: an `scf.for` that carries vectors only (the `MR x NR`
    accumulator of a register kernel of `-tfm-tile-and-vectorize`, the
    rows of a dot-product kernel of `-tfm-cpu-lower-amx`) or AMX tiles
    only (the four accumulators of its tile kernel). Every row of
    `B` that such a loop's body reads (not inside a nested region) gets a `memref.prefetch` (read, locality 3) of
    each of its cache lines `d = ceil(bytes-ahead / row bytes)` steps of
    the loop ahead (`d · step` rows), clamped to the last row: a
    `vector.transfer_read` (minor identity) or `vector.load` of one whole
    row (`[1, N]` or `[N]`, at least 32 bytes: not `A`'s few elements)
    along the innermost dimension of a row-major memref defined outside
    the loop, at indices of which one (not the innermost) is the
    induction variable, whose rows along that dimension are `N` elements
    apart (a panel's rows, each the next bytes; not a row of a wider
    buffer, a cache tile's packed `B` or a strided K/V block, where the
    next row is elsewhere), read directly or through a subview made in the
    loop (unit strides, read at its origin). Subviews made outside the
    loop that keep the rows contiguous (a `k` block of a panel) are looked
    through: the prefetches index the panel, so the last steps of a block
    fetch the next block's first rows, and the clamp is the panel's last
    row. In a one-row kernel (its accumulators `[1, N]` vectors: the
    `1 x NR` register kernel of a GEMV, such as a decode step's `P V`),
    whose `B` rows are each used once, rows of a wider buffer are taken
    too (the first `N` values of each row of a V block), `d` counted in
    the bytes from one row to the next. An `amx.tile_load` of a B tile (`Wp[tile, k pair, 16, 2]`) is
    such a read of `R` rows at once: one from a row-major memref defined
    outside the loop, at the induction variable along a dimension whose
    rows its tile rows are (its stride that dimension's, each tile row the
    whole row), the indices after it zero. Each of its `R` rows gets its
    lines prefetched, `d = ceil(bytes-ahead / (R · row bytes))` steps
    ahead, the first row clamped to the first of the last `R` (A's tiles,
    rows of `A` at `A`'s row stride, are not such reads). A memref of no
    more rows than `d · step` (static) gets none, and so does a loop
    marked `tfm.cached_panel` (a whole 32-row step's dot-product kernel of
    `-tfm-cpu-lower-amx`, whose rows of `Wp` come from cache).
    `bytes-ahead` = 0 inserts nothing; a negative value is an error. The
    default, 4 KiB (32 rows of an AVX-512 one-tile f32 panel), was
    measured on a Xeon with AVX-512 (2-8 KiB gave the same within the
    noise): a GPT-2 f32 decode step at batch 8 ran 2x faster with one-tile
    panels and the prefetches than with eight-tile panels and none,
    prefill of 512 rows 6 % faster (4096 rows: 10 % slower, the wider
    panels' reuse of `A`), batch 1 the same; a bf16 decode step on the AMX
    machine's dot products 11 % faster; with the tile kernels' `B` tiles
    too, a bf16 GPT-2 decode step at batch 8 (tile kernels) 1.23x and
    bf16 GEMMs of 512 rows 1.05-1.14x faster; with the V rows of one-row
    kernels, that step 1.02x (120 tokens) and 1.05x (1000) faster
    (docs/performance.md). The hardware
    prefetchers stop at 4 KiB pages; a kernel whose `B` strip comes from
    memory (a decode step streams every weight once) stalled on its loads
    without these.
  }];
  let options = [
    Option<"bytesAhead", "bytes-ahead", "int64_t", /*default=*/"4096",
           "Bytes of B ahead of the row read that are prefetched (0: none)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::memref::MemRefDialect",
  ];
  let statistics = [
    Statistic<"numPrefetches", "prefetches",
              "memref.prefetch ops inserted (one per cache line of a row)">,
  ];
}

def CpuUnrollKernelsPass : Pass<"tfm-cpu-unroll-kernels"> {
  let summary = "Unroll the vector kernels' k loops";
  let description = [{
    `scf.for %k step 1 { body(%k) } => scf.for %k step F { body(%k) .. body(%k + F - 1) }`

    Runs after `-tfm-cpu-prefetch`, on the `k` loops of the vector kernels:
    an `scf.for` that carries only vectors and whose body multiplies into
    them (`vector.contract`, `vector.fma`, `x86vector.avx512.dot`: the
    `MR x NR` accumulator of a register kernel of `-tfm-tile-and-vectorize`,
    a GEMV's dot kernel, the rows of a dot-product kernel of
    `-tfm-cpu-lower-amx`; not a vectorized row maximum or sum, whose loops
    unrolled made AMX attention 11 % slower at D = 128). Each is unrolled by
    `factor` (upstream's `loopUnrollByFactor`; a count that `factor` does
    not divide gets an epilogue loop), so that its loop control is paid
    once per `factor` steps (each copy keeps its own prefetch clamp: one
    shared per iteration measured within the noise on Zen 5); LLVM's loop
    unroller leaves these loops alone. A loop
    of fewer steps than `factor` (static) is left as it is, and so are the
    AMX tile kernels' loops (unrolled by 4, a bf16 GEMM ran 5 % slower).
    `factor` = 1 unrolls nothing; less is an error.

    Measured on the AMX Xeon (paired, `tfm-bench --versus`): f32 GEMMs of
    512 rows 1.03-1.14x, GPT-2 small f32 seq 512 1.04x on one thread
    (docs/performance.md).
  }];
  let options = [
    Option<"factor", "factor", "int64_t", /*default=*/"4",
           "Steps of a kernel's k loop per iteration after unrolling (1: "
           "none)">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
  ];
  let statistics = [
    Statistic<"numUnrolled", "unrolled", "Vector kernel k loops unrolled">,
  ];
}

#endif // TFM_CODEGEN_CPU_PASSES_TD
