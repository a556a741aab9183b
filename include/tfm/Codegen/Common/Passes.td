//===- Passes.td - target-neutral codegen ------------------*- tablegen -*-===//
//
// Code generation that every target runs, each configured by the module's
// target: attention tiling, elementwise fusion, inline math, the checks and
// copies before the LLVM dialect. Contracts: input, output, untouched, errors.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_PASSES_TD
#define TFM_CODEGEN_COMMON_PASSES_TD

include "mlir/Pass/PassBase.td"

def SetTargetPass : Pass<"tfm-set-target", "ModuleOp"> {
  let summary = "State the host CPU as the module's target, unless it has one";
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let description = [{
    `module => module attributes {tfm.target = #tfm.cpu_target<...>}`

    Every pass that sizes or chooses anything reads the target from the
    module attribute `tfm.target`. `tfmc` sets it from `--target-triple`,
    `--target-cpu` and `--target-threads`; this pass, the first of
    `-tfm-lower-to-llvm`, gives a module without one the machine the
    compiler runs on (LLVM's host triple, CPU and features, cache sizes from
    sysfs, all hardware threads), so that `tfm-opt` runs compile code that
    runs where they are compiled. A module that has a target keeps it.
    With `gpu-chip`, the target is that NVIDIA GPU (`#tfm.gpu_target`), as
    the first pass of `-tfm-lower-to-nvvm`.

    The options change single facts of the host (0: the host's), for
    tests and experiments in `tfm-opt`: `-tfm-set-target='vector-bits=256
    l2-bytes=65536' -tfm-lower-to-llvm` compiles for a host with 256-bit
    vectors and a 64 KiB L2 (the pipeline's own `-tfm-set-target` then
    keeps that target).
  }];
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"0",
           "Widest f32 vector in bits">,
    Option<"vectorRegisters", "vector-registers", "unsigned", /*default=*/"0",
           "Architectural vector registers">,
    Option<"l1Bytes", "l1-bytes", "int64_t", /*default=*/"0",
           "Per-core L1 data cache in bytes">,
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"0",
           "Per-core L2 cache in bytes">,
    Option<"threads", "threads", "unsigned", /*default=*/"0",
           "Hardware threads (1: single-threaded code)">,
    Option<"gpuChip", "gpu-chip", "std::string", /*default=*/"",
           "An NVIDIA GPU target instead (#tfm.gpu_target): its compute "
           "capability, e.g. sm_90 (-tfm-lower-to-nvvm sets it)">,
    Option<"gpuFeatures", "gpu-features", "std::string", /*default=*/"",
           "With gpu-chip: the PTX features (empty: +ptx80)">,
  ];
}

def LowerTargetPass : Pass<"tfm-lower-target", "ModuleOp"> {
  let summary = "Replace the module's #tfm.cpu_target by LLVM's own module attribute";
  let description = [{
    `module attributes {tfm.target = #tfm.cpu_target<triple = T, cpu = C, features = F, ...>} => module attributes {llvm.target_triple = T}, llvm.func {target_cpu = C, target_features = F}`

    The end of `-tfm-lower-to-llvm`: once nothing reads the target, the
    module says it the way the LLVM dialect does, so the result is plain
    LLVM dialect that any MLIR tool (`mlir-runner`, `mlir-translate`)
    parses without the tfm dialect. Every function defined in the module
    gets the target's CPU and features (`target_cpu`, `target_features`:
    LLVM's `"target-cpu"` and `"target-features"`), so the LLVM IR states
    what its intrinsics need (AVX-512's `vscalefps`, AMX tiles) and `llc`
    compiles it for that CPU whatever its own default.
    `tfm.lowering_config` attributes left on ops go too. A
    `#tfm.gpu_target` (the end of `-tfm-lower-to-nvvm`, whose kernels carry
    their own `#nvvm.target`) is removed. A module
    without a tfm target is left alone.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def NarrowKvCachePass : Pass<"tfm-narrow-kv-cache", "ModuleOp"> {
  let summary = "Store the KV cache of the generation steps in the model's 16-bit precision";
  let description = [{
    `func @step(..., %cache: tensor<?xLx2xHx?xDxf32>) => func @step(..., %cache: tensor<?xLx2xHx?xDxbf16>)`

    With a bf16 or f16 precision (the module's `tfm.precision`), every
    attention reads its keys and values rounded to it (`-tfm-apply-precision`
    rounds them where they are read). A generation step reads the whole
    cache that way at every step, so the cache can hold the rounded values
    instead: each `tfm.cache_append` rounds the rows it writes, once, and
    the attention reads 16-bit keys and values and widens them. Half the
    cache's memory, half the bytes a decode step streams, and no rounding of
    the cache per step; the same numbers.

    **Input.** tfm-level IR (before `-tfm-tile-sram`): a KV cache is a
    function argument that a `tfm.cache_append` writes, or whose slices a
    `tfm.attention` reads as keys or values (an encoder-decoder step's cross
    cache), through chains of `tfm.cache_append` and `tensor.extract_slice`.

    **Output.** Each such argument, each value of its chains, and the
    function result it is returned as, has the precision's element type;
    the function type follows. `tfm-materialize-entry` states the element
    type in the manifest's `"kv_cache"` (`"storage"`), and the runtime sizes
    the session's cache by it.

    **Untouched.** Modules without a 16-bit precision; functions without a
    cache; everything with `narrow=false` (an f32 cache at a 16-bit
    precision, as before this pass: to compare, or to keep a cache that
    other code reads in f32).

    **Errors.** A cache value read by anything else (the pass cannot tell
    that reader wants rounded values) fails the pass, naming the reader.
  }];
  let options = [
    Option<"narrow", "narrow", "bool", /*default=*/"true",
           "Store the cache in the module's 16-bit precision (false: keep "
           "it f32)">,
  ];
  let statistics = [
    Statistic<"numNarrowed", "narrowed-caches",
              "KV cache arguments stored in 16 bits">,
  ];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
}

def ApplyPrecisionPass : Pass<"tfm-apply-precision", "ModuleOp"> {
  let summary = "Round every GEMM and attention input to the model's precision (bf16, f16)";
  let description = [{
    `linalg contraction(x, W) => linalg contraction(round(x), W)` where
    `round` is an elementwise `truncf` + `extf` pair, and `W`'s name joins
    the module's `tfm.rounded_weights`.

    The precision is the module's `tfm.precision` (a type: `bf16` or `f16`;
    tfmc's `--precision`), else the `precision` option, which then becomes
    the module's attribute. With `f32` (or neither) the pass changes
    nothing.

    **Input invariant.** Linalg on tensors, after `convert-tfm-to-linalg`:
    every GEMM of the model (projections, FFNs, heads, attention's `Q K^T`
    and `P V`, also inside the tiled attention nest) is a linalg
    contraction with f32 operands.

    **Output.** Each input of each such contraction is rounded to the
    precision; accumulation, norms, softmax statistics and the residual
    stream stay f32 (the values a 16-bit GEMM would see, computed exactly
    in f32):
    - a `tfm.weight` read (directly or through views) has its name listed
      in the module's `tfm.rounded_weights`, so that the runtime rounds its
      values once when a model instance is created (the manifest's
      `"round"`); a weight that other ops read too (a tied embedding
      table) is rounded for them as well, as a 16-bit checkpoint would be;
    - any other input gets a `linalg.generic` that rounds it (one per
      value and block, shared by the contractions that read it), which
      elementwise fusion merges into its producer. It goes right after the
      value, except for a contraction in a branch of an `scf.if` below the
      value (the untiled side of a tiled attention's runtime branch on
      `Tk`): there it goes at the start of that branch, so that a step
      that takes the other branch rounds nothing (a decode step rounded
      its whole KV cache, every step, before: 218 against 24 ms per
      batch-8 GPT-2 step with a 2048-token cache). Loops keep it outside.

    On a GPU target (`#tfm.gpu_target`), a rounded weight that is read only
    by `linalg.generic` inputs, `tensor.extract` (an embedding lookup) and
    `tensor.dim`, directly or through `tensor` views, is also *stored* in
    16 bits: its `tfm.weight` (in every function that reads it) gets the
    16-bit element type, each generic widens it with `arith.extf` at the
    top of its body, each extract after it. The manifest's `"storage"` then
    asks the runtime to hand the code 16-bit elements: half the device
    memory, and half the bytes each GEMM reads, for the same values (the
    GEMM kernel widens them while it stages them). Likewise each rounded
    activation computed at a function's top level (a projection's or the
    FFN's input, the LM head's) whose readers take 16 bits in the same way:
    its rounding yields the truncation into a 16-bit tensor and the readers
    widen, so the buffer between producer and GEMM holds 16-bit elements
    (after fusion, the producer writes them).

    Inside a loop nest (the tiled attention's), an input tile built from a
    slice of a top-level tensor X is rounded at X instead, so that X is
    stored in 16 bits the same way: a K block (the slice), a short K or V
    block (the slice padded into a staging tile; the padding copy becomes a
    generic that widens), and the Q tile (an elementwise function of the
    slice, the softmax scaling, padded into a tile: the function moves to
    top level, before the rounding, so every tile holds the numbers it held
    before). When X is a `linalg.transpose` (the heads' layout), the
    top-level rounding reads the transpose's input through the permutation:
    one kernel reads the f32 projection and writes the 16-bit heads. The
    in-loop rounding stays and rounds rounded values (canonicalization
    folds it to a widening). Tiles computed from in-loop values (the
    probabilities) keep their in-loop rounding.

    On a CPU target whose attention key blocks run the f32 kernels (f16,
    or bf16 without AMX-BF16 or AVX512-BF16), the same move is made for a
    tile that some loop around it reads again (option `cpu-tile-roundings`,
    on by default): no offset or size of its slice depends on a loop that
    runs more than once (the query blocks around a K or V block), so X is
    rounded once, stays f32, and the in-loop rounding goes. A decode
    step's single query block keeps its in-loop rounding (each block read
    once), and so does a block of a KV cache (X a slice of a larger tensor,
    or one with a slice inserted: sized for the longest context, it would
    be rounded whole at every step). Zen 3 (AVX2), one thread, against the
    in-loop rounding: 1.02-1.08x on bf16 attention at D = 64 and 128, T =
    512 and 2048, causal T = 512 0.97-0.99x (docs/performance.md).

    **Untouched.** Ops that are not contractions; contractions with other
    element types; on a CPU target, the weights' f32 storage (the CPU's
    register kernels take f32 panels).
  }];
  let options = [
    Option<"precision", "precision", "std::string", /*default=*/"\"\"",
           "f32, bf16 or f16 (when the module states none)">,
    Option<"cpuTileRoundings", "cpu-tile-roundings", "bool",
           /*default=*/"true",
           "CPU: round a tile that some loop reads again (a K or V block, "
           "once per query block) once, where its tensor is computed">,
  ];
  let statistics = [
    Statistic<"numRounded", "rounded-inputs",
              "Activation inputs of contractions rounded at run time">,
    Statistic<"numWeights", "rounded-weights",
              "Weight names rounded when the model is created">,
    Statistic<"numStored", "stored-weights",
              "Weight names stored in 16 bits (GPU targets)">,
    Statistic<"numStoredActivations", "stored-activations",
              "Rounded activations stored in 16 bits (GPU targets)">,
    Statistic<"numHoistedTiles", "hoisted-tiles",
              "Tiles read from a top-level tensor rounded there">,
  ];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ConfigureAttentionPass : Pass<"tfm-configure-attention"> {
  let summary = "Choose the tiles of each tfm.attention for the module's target";
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let description = [{
    `tfm.attention => tfm.attention {tfm.lowering_config = #tfm.attention_tiling<...>}`

    The configuration half of attention tiling (`-tfm-tile-sram` is the
    other): for each `tfm.attention` without a `tfm.lowering_config` it
    picks the query block `Br` and key block `Bc` from the module's target.
    The target gives the fast memory one tile's working set may use (CPU:
    an eighth of the per-core L2, but at least 128 KiB on an L2 of 512 KiB
    or more for an op with query tiles (not a static `Tq` of 1), `Bc` a
    multiple of the f32 lanes of a vector; GPU: the shared memory of one
    block, `Bc` a multiple of a warp, 32; option `budget-bytes` overrides
    either). On Zen 3's 512 KiB L2, L2 / 8 gave D = 128 tiles of 32 x 16
    (two AVX2 vectors of keys), whose online softmax's per-block costs ran
    1.02-1.13x slower than the 64 x 32 of 128 KiB in f32 and 1.05-1.22x in
    bf16; L2 / 2 lost 12 % at causal T = 512, and decode steps ran
    0.93-0.98x with the larger budget (docs/performance.md). Among powers
    of two up to `max-block-q` / `max-block-k` (and the static `Tq` /
    `Tk`) the pass takes the largest score tile `Br*Bc` whose working set
    fits (ties: on a CPU without
    16-bit key-block kernels, the squarer `[G*Br, Bc]` tile, whose longer
    key block halves the online softmax's steps per row and whose taller
    query block halves the K/V reads per row: Zen 5, D = 64, 64 x 64 ran
    1.05-1.13x 128 x 32; then, and on a GPU, the larger `Br`, more reuse
    of each K/V block):

    `4*G*Br*D (Q) + 4*Bc*(D+Dv) (K, V block) + 4*G*Br*Bc (scores) + 4*G*Br*Dv (acc) + 16*G*Br (max, sum, block max, rescale) [+ e*G*Br*Bc (bias tile)]`

    where `G` is the query heads per K/V head and `e` the byte size of the
    bias element type (Q, K and V tiles are f32 whatever the input type).
    When the module's `tfm.precision` is 16-bit, the contraction inputs are
    rounded into tiles of their own: `4*G*Br*D (rounded Q) + 4*G*Br*Bc
    (rounded P) + 4*Bc*(D+Dv) (rounded K, V block)` more.

    On a GPU target, an op that no tile fits (a block has 48 KiB: large
    heads in large GQA groups at 16 bits) gets `#tfm.attention_untiled`
    instead of an error: its GEMM and row-reduction kernels need no such
    budget.

    On a CPU whose key blocks run the f32 kernels (not AMX or AVX512-BF16
    under a bf16 precision), an op whose query block `G*Br` is a multiple
    of the vector's f32 lanes (not a decode step's static `Tq` of 1) gets
    `transposed_scores` (option `transposed-scores`, on by default): per
    key block `Sᵀ = K·Qᵀ`, so the register kernel broadcasts K's rows as
    they are (no transpose of each K block into a panel) and the row max
    and sum are vector ops down the key rows. Zen 4, one core, D = 64 and
    128, T = 512-2048: 1.01-1.04x (docs/performance.md).

    On every CPU, an op gets `rescale_threshold` = `rescale-threshold`
    (default 8): the online softmax's conditional rescaling (see
    `-tfm-tile-sram`). GPU targets keep 0 (every key block rescales: a
    branch on all rows of a block would be a block-wide vote there).

    Cost model (`untiled-max-keys = N > 0`): short sequences are faster
    untiled on a CPU (the whole score matrix fits in cache and the tiles'
    padding is wasted work). An op with a static `Tk <= N` gets
    `#tfm.attention_untiled` (it stays whole); with a dynamic `Tk` the
    configuration records `untiled_max_keys = N`, and `-tfm-tile-sram`
    branches on `Tk`. With bf16 on a CPU with AMX or AVX512-BF16, `N` is at
    most 31 (and the budget half of L2, key blocks of 32): the tiled
    attention's products run on tiles or vector dot products there
    (`-tfm-pack-amx`, query tiles of 32 rows or more), the untiled one's do
    not, and the tiled one was 1.4-7x faster from 32 keys up on AMX, 3.5x
    at 128 keys on Zen 4. An op with a static `Tq` of 1 (decode: query
    tiles of fewer than 32 rows, f32 kernels either way) keeps `N`. With
    AMX, an op without a mask (a `Tq` that is dynamic or at least 32, one
    query head per K/V head) takes key blocks of up to 256 when
    `max-block-k` is 0, its default (no diagonal blocks to waste, and
    half the online softmax's per-block costs: +7-9% on AMX; causal lost
    4%); 128 otherwise.

    Tensor cores (GPU): on an sm_80+ target whose module precision is bf16
    or f16, an op whose head sizes `D` and `Dv` are multiples of 8 gets
    `#tfm.gpu_flash_attention` instead (with option `tensor-cores`, default
    on), which `-tfm-gpu-flash-attention` builds into a FlashAttention-2
    kernel: 4 warps of two 16-row tiles each (`row_tiles = 2`), Q's
    fragments read from a shared-memory buffer of its own (`q_shared`); the
    128 rows are (query, head) pairs of `heads` query heads of one K/V
    group, `heads` the largest divisor of `G` that divides 128 (the group
    shares each K/V block), `block_q = 128 / heads`; `block_k` the largest
    of 64, 32, 16 (and at most the static `Tk` rounded up to 16, unless
    none is) whose buffers fit the shared memory a block can opt into (past
    48 KiB, `-tfm-gpu-dynamic-shared-memory` moves them to dynamic shared
    memory), whose K and V blocks are a whole number of 16-byte copies for
    the 128 threads (`block_k * D' / 8`, `D'` the head size padded to 16)
    and whose f32 accumulators, `row_tiles * (block_k + Dv') / 2` per
    thread, are at most 160 (so ptxas needs no spills: D = 128 takes
    32-key blocks); with none, one row tile per warp, and with none
    either, the op is tiled as without tensor cores. Measured on an H200:
    0.74 -> 0.85 of PyTorch SDPA's flash backend against 4 warps of one
    tile with Q in registers (docs/performance.md). Option `gpu-flash`
    (`warps,row_tiles,max_block_k[,q_shared]`) sets the block instead,
    with no accumulator cap.

    Split-K decode (CPU): an op with a static `Tq` of 1 (the `@decode`
    step of a generation library) whose K/V heads are fewer than the
    target's threads gets `key_splits = ceil(threads / Hkv)` (option
    `decode-key-splits`; 1 turns it off): `-tfm-tile-sram` then splits each
    sequence's keys over that many parallel ranges of whole key blocks
    (`ceil(key_splits / B)` at batch `B`) and merges their partial
    softmaxes, so that one sequence of an MQA or GQA model keeps every
    thread busy. On a GPU only `decode-key-splits` > 1 splits: such an op
    is tiled (attention CTAs over its key ranges, mapped by
    `-tfm-gpu-map-attention`) instead of taking the tensor-core kernel,
    whose grid has one CTA per (sequence, K/V head) at `Tq = 1`. Checked in
    emulation, not yet timed on a device, hence not the default.

    Errors: a module without a target; on a CPU, an op whose smallest legal
    tile (`Br = 1`, `Bc` = one vector) does not fit (the message names the
    budget and what that tile needs); dynamic head counts or head sizes.
  }];
  let options = [
    Option<"maxBlockQ", "max-block-q", "int64_t", /*default=*/"128",
           "Largest query block (rows per query head)">,
    Option<"maxBlockK", "max-block-k", "int64_t", /*default=*/"0",
           "Largest key block (0: 128, and 256 for an op without a mask "
           "whose key blocks run on AMX tiles: a Tq that is dynamic or at "
           "least 32, one query head per K/V head)">,
    Option<"budgetBytes", "budget-bytes", "int64_t", /*default=*/"0",
           "Fast memory one tile's working set may use, in bytes, instead "
           "of the target's rule (0: the target's)">,
    Option<"untiledMaxKeys", "untiled-max-keys", "int64_t", /*default=*/"256",
           "Cost model: attention over at most this many keys keeps the "
           "untiled lowering (statically, or by a runtime branch on Tk; "
           "measured crossover, docs/passes.md); 0 tiles everything">,
    Option<"tensorCores", "tensor-cores", "bool", /*default=*/"true",
           "GPU: the FlashAttention-2 tensor-core kernel for 16-bit Q, K, "
           "V on sm_80+ (#tfm.gpu_flash_attention)">,
    ListOption<"gpuFlash", "gpu-flash", "int64_t",
               "GPU: the tensor-core kernel's block instead of the built-in "
               "one: warps,row_tiles,max_block_k[,q_shared] (its buffers may "
               "use the dynamic shared memory a block can opt into)">,
    Option<"decodeKeySplits", "decode-key-splits", "int64_t",
           /*default=*/"0",
           "Static Tq = 1: key ranges per sequence and K/V head at batch 1 "
           "(split-K); 0 chooses ceil(threads / K/V heads) on a CPU with "
           "more threads than K/V heads (no split on a GPU), 1 turns it "
           "off; on a GPU a value > 1 runs such ops as tiled CTAs, one per "
           "key range, instead of the tensor-core kernel">,
    Option<"transposedScores", "transposed-scores", "bool",
           /*default=*/"true",
           "CPU f32 key blocks: scores transposed (Sᵀ = K·Qᵀ), for query "
           "blocks of G*Br rows a multiple of the vector lanes "
           "(#tfm.attention_tiling's transposed_scores)">,
    Option<"rescaleThreshold", "rescale-threshold", "int64_t",
           /*default=*/"8",
           "CPU: a row's running max moves only when a key block's max "
           "exceeds it by more than this (log2 units, 0 to 64), and the "
           "accumulator is rescaled only in key blocks where one moved "
           "(#tfm.attention_tiling's rescale_threshold; 0: every block "
           "rescales)">,
  ];
  let statistics = [
    Statistic<"numConfigured", "configured", "tfm.attention ops given tiles">,
    Statistic<"numFlash", "flash", "tfm.attention ops given the tensor-core kernel">,
    Statistic<"numKeptUntiled", "kept-untiled",
              "tfm.attention ops left untiled (static Tk <= untiled-max-keys, or no tile fits a GPU block)">,
  ];
}

def TileSramPass : Pass<"tfm-tile-sram"> {
  let summary = "Tile tfm.attention into a flash-attention loop nest, as configured";
  let description = [{
    `tfm.attention(Q, K, V) => scf.forall (b, kv head, query block) { scf.for key blocks { online softmax } }`

    Every `tfm.attention` becomes a loop nest over `Br x Bc` tiles in which
    the `Tq x Tk` score matrix never exists: per query block the scores of
    one key block at a time live in a `[G*Br, Bc]` tile (`G = Hq / Hkv`
    query heads of one K/V head share it), and the softmax is computed
    online with a running row max `m`, a running row sum `l` and an f32
    accumulator `acc` that are rescaled by `exp2(m_old - m_new)` per key
    block (scores are kept in log2 units, so every exponential is an `exp2`); the output is `acc / l` (0 where `l = 0`, a row that sees no key).

    ```
    scf.forall (%b, %n, %qb) in (B, Hkv, ceil(Tq / Br)) shared_outs(%out) {
      Qs  = scale*log2(e) * Q[b, n*G : n*G+G, qb*Br : +Br, :] (f32, zero padded, [G*Br, D])
      a, h, ub, d = key bounds of this query block               (see below)
      scf.for %k0 = a to h step Bc   {tfm.key_blocks = #tfm.key_blocks<window_head>}  masked
      scf.for %k0 = h to ub step Bc  {tfm.key_blocks = #tfm.key_blocks<full>}         unmasked
      scf.for %k0 = ub to d step Bc  {tfm.key_blocks = #tfm.key_blocks<diagonal>}     masked
                                     (or <remainder>: the last partial block, no mask)
        S    = Qs . K[b, n, k0 : k0+Bc, :]^T                     linalg.matmul
        S    = S + log2(e)*(bias - slope*|i+off-j|), masked -> -inf  linalg.generic
        mnew = max(m, rowmax(S)); S = exp2(S - mnew)
        alpha = exp2(m - mnew); l = l*alpha + rowsum(S); acc = acc*alpha + S . V[b, n, k0 : k0+Bc, :]
        m = mnew
      out[b, n*G : n*G+G, qb*Br : +Br, :] = l > 0 ? acc / l : 0
    } {tfm.lowering_config = #tfm.attention_tiling<block_q = Br, block_k = Bc, group = G, ...>}
    ```

    With `off = Tk - Tq`, rows `i` of the block and `len = key_lengths[b]`
    clamped to `[0, Tk]` (else `Tk`), the key bounds are:

    - `none`: every block in `[0, len)` unmasked except the remainder;
    - `causal`: `d = min(len, q0 + bq + off)`, whole blocks up to the first
      row's diagonal `q0 + off + 1` unmasked, the diagonal blocks masked;
      blocks above the diagonal are never loaded;
    - `sliding_window`: additionally `a = max(0, q0 + off - window + 1)`, so
      blocks left of the window are never loaded, and the blocks holding the
      window's left edge are masked.

    Padding (`key_lengths`) only shortens the key loops. Masked blocks copy
    their (possibly short) K/V block into zeroed `[Bc, D]` f32 buffers and
    apply the full visibility rule; unmasked blocks read K/V in place (a
    16-bit K/V block under a 16-bit Q is widened into the f32 buffer
    instead; under an f32 Q, a KV cache stored in 16 bits, the contractions
    read the 16-bit block and widen it themselves). Masked
    scores are `-inf` and the running max starts at the finite `-FLT_MAX`,
    so `exp2(-inf - -inf)` never happens and fully masked rows give 0.
    The row max uses `maxnumf` (it ignores a NaN score); a NaN score still
    propagates through `exp2` and the row sum into its row's output.

    With `rescale_threshold = τ > 0` (the CPU's choice), the step is
    `grow = bm > m + τ` per row (`bm` the block's row max), `mnew = grow ?
    bm : m`, `alpha = grow ? exp2(m - bm) : 1`, and `acc = acc * alpha`
    runs only when `min(alpha) < 1` over the block's rows (an `scf.if`):
    the weights `exp2(S - mnew)` are at most `2^τ`, the sum and the
    accumulator share the stale max, so `acc / l` is the same softmax. After
    the first block a row's max rarely grows by 2^τ, so the accumulator's
    pass over `[G*Br, Dv]` runs in few key blocks instead of every one.

    With `transposed_scores` (the CPU's choice, see
    `-tfm-configure-attention`), the score tile is `Sᵀ [Bc, G*Br]`:
    `Qsᵀ [D, G*Br]` is transposed once per query block, each key block
    computes `Sᵀ = K[b, n, k0 : k0+Bc, :] . Qsᵀ` (a plain `linalg.matmul`
    whose A, the K block, is read in place), the mask's loops run over
    `[Bc, G, Br]`, the row max and row sum reduce over `Sᵀ`'s rows (the
    keys: one vector `max`/`add` per row of keys, no reduction across
    lanes), and `acc += (Pᵀ)ᵀ . V` reads `Pᵀ` as a transposed A. A 16-bit
    K block is then widened into its buffer (only a contraction's B may
    stay 16-bit). The accumulator and the output are as above.

    Tile sizes are each op's `#tfm.attention_tiling` (from
    `-tfm-configure-attention`, or written by hand); an op without one (or
    with `#tfm.attention_untiled`) is left alone and `convert-tfm-to-linalg`
    lowers it whole. With `untiled_max_keys = N` and a dynamic `Tk`, the
    pass emits `scf.if (Tk <= N) { tfm.attention {tfm.lowering_config =
    #tfm.attention_untiled} } else { loop nest }`. The pass
    decides nothing: the same configuration gives the same loop nest on
    every target, and a GPU maps the `scf.forall` to blocks. Head counts and
    head sizes must be static; batch and sequence lengths may be dynamic.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tfm::TfmDialect",
  ];
  let statistics = [
    Statistic<"numTiled", "tiled", "tfm.attention ops tiled">,
  ];
}

def FuseElementwisePass : Pass<"tfm-fuse-elementwise"> {
  let summary = "Fuse elementwise linalg ops, but never into a contraction";
  let description = [{
    `elementwise producer (one use) + elementwise consumer => one linalg.generic`,
    `elementwise producer + contraction => unchanged`

    Upstream's `-linalg-fuse-elementwise-ops` (the same patterns: producer
    fusion, reshape propagation by expansion, constant folding, with its
    default rule that the producer has no other use), plus one rule:
    nothing is fused into an op that `isaContractionOpInterface` accepts.
    Upstream fuses, for instance, LayerNorm's normalization into the next
    projection; the result recomputes the normalization (an `rsqrt`
    included) for every multiply-add, and is no longer a contraction, so
    `-tfm-tile-and-vectorize` cannot schedule it as a GEMM: it runs as
    scalar loops. Reductions (softmax sums, norms) still absorb their
    elementwise producers.
  }];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def ApproximateMathPass : Pass<"tfm-approximate-math"> {
  let summary = "Replace f32 exp, erf, tanh, log (and friends) by polynomial approximations";
  let description = [{
    `math.exp / math.erf / math.tanh / ... (f32, scalar or vector) => arith + FMA polynomials`

    `convert-math-to-llvm` turns `math.exp` on a vector into one call of
    `expf` per lane, and `convert-math-to-libm` does the same for `erf` and
    `tanh`: the vectorized softmax, GELU and SiLU would be scalar again. This
    pass applies MLIR's polynomial approximations
    (`populateMathPolynomialApproximationPatterns`, the same ones as
    Eigen/XNNPACK; errors of a few ulp) to f32 math ops, scalar and vector,
    so they stay in vector registers. f64 ops are left alone.

    `math.exp2` (f32; the tiled attention's softmax, whose scores are in
    log2 units) gets a shorter expansion of tfm's own, about 14 vector
    instructions: clamp to [-127, 128], `k = roundeven(min(t, 127))`, a
    degree-6 polynomial of `t - k` fitted on [-0.5, 1], times `2^k` built
    from the exponent bits. Relative error at most 1.4e-7; `t <= -127`
    gives exactly 0 (a masked score's `-inf` stays a zero weight),
    `t >= 128` gives `+inf`, NaN stays NaN. An f32 `math.exp2` that allows
    approximate functions (`fastmath<afn>`: the tensor-core attention's
    softmax, whose probabilities are rounded to 16 bits anyway) inside a
    `gpu.module` becomes `llvm.nvvm.ex2.approx.ftz.f` instead: one MUFU
    instruction (`ex2.approx.ftz.f32`, at most 2 ulp; `-inf` gives 0). On
    the host (and so in `--gpu-emulate`) it takes the polynomial.

    On a CPU target with AVX512F and AVX512DQ (`avx512-exp2`, default on),
    an f32 `math.exp2` on a vector of 16·n lanes (or 8 with AVX512VL) takes
    9 instructions per 16 lanes instead: `f = vreduceps(t)` (`t -
    roundeven(t)`, in [-0.5, 0.5]), `k = t - f`, a degree-6 polynomial of
    `f` fitted on [-0.5, 0.5], and `vscalefps(p, k)` (`p * 2^k`, rounded
    once, for any `k`: no clamps). Relative error at most 8.4e-8 in the
    normal range; `-inf` and `t <= -150` give 0, `t` in (-150, -126) a
    denormal, large `t` `+inf`, NaN stays NaN. Scalars and other widths
    take the polynomial above.
  }];
  let options = [
    Option<"avx512Exp2", "avx512-exp2", "bool", /*default=*/"true",
           "On an AVX-512 CPU target (AVX512F and AVX512DQ): f32 vector "
           "exp2 through vreduceps and vscalefps">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ExpandMemRefCopyPass : Pass<"tfm-expand-memref-copy"> {
  let summary = "Turn memref.copy between non-contiguous buffers into linalg.copy";
  let description = [{
    `memref.copy %a, %b (a or b strided, non-contiguous) => linalg.copy ins(%a) outs(%b)`

    `finalize-memref-to-llvm` copies contiguous buffers (identity layout, or
    a static row-major shape) with a `memcpy` and every other buffer with a
    call to `memrefCopy`, a function of MLIR's C runner utilities that a
    model library does not link (the tiled attention copies dynamically
    sized key and value blocks out of strided views). This pass rewrites
    those copies into `linalg.copy`, which `convert-linalg-to-loops` turns
    into loops, so a generated object needs libc and libm only. Contiguous
    copies are left alone, unless `all` is set: the GPU pipeline expands
    every copy, since a copy between device buffers must run in a kernel
    (`-tfm-gpu-distribute` maps the loops to blocks and threads); so does a
    module whose target is a GPU (`#tfm.gpu_target`).
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "Expand contiguous copies too (for targets where the host cannot "
           "touch the buffers)">,
  ];
  let statistics = [
    Statistic<"numExpanded", "expanded-copies",
              "memref.copy ops rewritten into linalg.copy">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

def FreeAfterLastUsePass : Pass<"tfm-free-after-last-use", "func::FuncOp"> {
  let summary = "Move each buffer's deallocation up to right after its last use";
  let description = [{
    `%b = memref.alloc ...; ... last use of %b or a view of it ...; <other ops>;
    memref.dealloc %b` => the dealloc right after that last use.

    Ownership-based buffer deallocation frees a buffer at the end of the
    block that allocated it, so every activation of a forward pass or a
    generation step stays allocated until the entry function returns: a
    LLaMA-shaped step over 1520 new tokens held about 1.2 GB of
    activations (12 layers of them) where one layer's are live at a time,
    and its first call faulted all of it in (docs/performance.md). This
    pass moves each `memref.dealloc` of a `memref.alloc` in the same block
    to right after the last op of that block that uses the buffer or any
    of its aliases (`BufferViewFlowAnalysis`: views, casts, values through
    region branches), a use inside a nested region counting as its
    ancestor's. The runtime's allocator (lib/Runtime/Alloc.cpp) then hands
    a freed layer's buffers to the next layer, which asks for the same
    sizes.

    **Untouched.** A dealloc in another block than its alloc (conditional
    ones: a buffer whose ownership is decided at run time), a buffer with
    an alias used outside that block, and one whose address leaves the
    memref type (`memref.extract_aligned_pointer_as_index`, ops of the
    `llvm` dialect), which the analysis cannot follow.
  }];
  let statistics = [
    Statistic<"numMoved", "moved-deallocs",
              "Deallocations moved up to their buffer's last use">,
  ];
}

def CheckLLVMLegalPass : Pass<"tfm-check-llvm-legal", "ModuleOp"> {
  let summary = "Fail unless only the llvm and omp dialects (and builtin.module) are left";
  let description = [{
    Conversion passes succeed while leaving illegal ops behind; the failure
    would only show at translation to LLVM IR, far from its cause. This pass
    ends `-tfm-lower-to-llvm`: it reports every op that is neither in the
    `llvm` dialect, nor in the `omp` dialect (parallel loops, which the
    OpenMP translation turns into outlined functions and libomp calls), nor
    a `builtin.module`, by name and location, and fails. With
    `allow-gpu-binaries` (the GPU pipeline), `gpu.binary` (the embedded
    kernels) and `gpu.launch_func` on LLVM operands may remain too: the
    LLVM IR translation turns them into the module's kernel images and
    `mgpu*` runtime calls.
  }];
  let options = [
    Option<"allowGpuBinaries", "allow-gpu-binaries", "bool",
           /*default=*/"false",
           "Also accept gpu.binary and gpu.launch_func (GPU targets)">,
  ];
}

#endif // TFM_CODEGEN_COMMON_PASSES_TD
