//===- TfmAttrs.td - tfm attributes and enums --------------*- tablegen -*-===//

#ifndef TFM_IR_TFMATTRS_TD
#define TFM_IR_TFMATTRS_TD

include "tfm/IR/TfmBase.td"
include "mlir/IR/EnumAttr.td"

def Tfm_MaskKind : I32EnumAttr<"MaskKind", "structured attention mask", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"causal", 1>,
    I32EnumAttrCase<"sliding_window", 2>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_MaskKindAttr : EnumAttr<Tfm_Dialect, Tfm_MaskKind, "mask"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_Activation : I32EnumAttr<"Activation", "activation function", [
    I32EnumAttrCase<"relu", 0>,
    I32EnumAttrCase<"gelu", 1>,
    I32EnumAttrCase<"gelu_tanh", 2>,
    I32EnumAttrCase<"silu", 3>,
    I32EnumAttrCase<"swiglu", 4>,
    I32EnumAttrCase<"geglu", 5>,
    I32EnumAttrCase<"tanh", 6>,
    I32EnumAttrCase<"geglu_tanh", 7>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_ActivationAttr : EnumAttr<Tfm_Dialect, Tfm_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_WeightLayout : I32EnumAttr<"WeightLayout", "storage layout of a projection weight", [
    I32EnumAttrCase<"out_in", 0>,
    I32EnumAttrCase<"in_out", 1>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_WeightLayoutAttr : EnumAttr<Tfm_Dialect, Tfm_WeightLayout, "layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_RopeStyle : I32EnumAttr<"RopeStyle", "how RoPE pairs the features of a head", [
    I32EnumAttrCase<"rotate_half", 0>,
    I32EnumAttrCase<"interleaved", 1>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_RopeStyleAttr : EnumAttr<Tfm_Dialect, Tfm_RopeStyle, "rope_style"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_Pooling : I32EnumAttr<"Pooling", "which position a classifier head reads", [
    I32EnumAttrCase<"first", 0>,
    I32EnumAttrCase<"last", 1>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_PoolingAttr : EnumAttr<Tfm_Dialect, Tfm_Pooling, "pooling"> {
  let assemblyFormat = "`<` $value `>`";
}


//===----------------------------------------------------------------------===//
// Targets and kernel configuration
//
// The driver states the target once, as the module attribute `tfm.target`;
// configuration passes read it and record each decision on the op it is
// for, as `tfm.lowering_config`; the passes that transform read those and
// decide nothing themselves (docs/architecture.md, "Configuration").
//===----------------------------------------------------------------------===//

def Tfm_CpuTargetAttr : AttrDef<Tfm_Dialect, "CpuTarget"> {
  let mnemonic = "cpu_target";
  let summary = "The CPU a module is compiled for";
  let description = [{
    What LLVM needs to generate code (`triple`, `cpu`, `features`) and what
    kernel configuration sizes tiles from: the widest f32 vector
    (`vector_bits`), the architectural vector registers, the per-core L1
    data cache and L2 sizes in bytes, and the hardware threads generated code
    may use (1: single-threaded code, no OpenMP).

    ```mlir
    module attributes {tfm.target = #tfm.cpu_target<triple = "x86_64-unknown-linux-gnu",
        cpu = "znver4", features = "+avx512f,+fma", vector_bits = 512,
        vector_registers = 32, l1_bytes = 32768, l2_bytes = 1048576, threads = 16>}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"LLVM target triple">:$triple,
    StringRefParameter<"LLVM CPU name">:$cpu,
    StringRefParameter<"LLVM target features">:$features,
    "unsigned":$vector_bits,
    "unsigned":$vector_registers,
    "int64_t":$l1_bytes,
    "int64_t":$l2_bytes,
    "unsigned":$threads
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let extraClassDeclaration = [{
    /// Whether `features` enables `feature` (an LLVM feature name without
    /// its sign: "amx-bf16").
    bool hasFeature(::llvm::StringRef feature) const;
    /// Whether bf16 tile multiplications run (AMX-TILE and AMX-BF16).
    bool hasAmxBf16() const {
      return hasFeature("amx-tile") && hasFeature("amx-bf16");
    }
    /// Whether bf16 dot products run in vectors (AVX512-BF16's vdpbf16ps).
    bool hasAvx512Bf16() const {
      return hasFeature("avx512f") && hasFeature("avx512bf16");
    }
    /// Whether bf16 products run natively, on AMX tiles or AVX512-BF16
    /// dot products: -tfm-pack-amx takes a bf16 model's contractions then
    /// (else they run the f32 kernels on rounded values).
    bool hasBf16Products() const { return hasAmxBf16() || hasAvx512Bf16(); }
  }];
  let genVerifyDecl = 1;
}

def Tfm_GpuTargetAttr : AttrDef<Tfm_Dialect, "GpuTarget"> {
  let mnemonic = "gpu_target";
  let summary = "The NVIDIA GPU a module's kernels are compiled for";
  let description = [{
    The compute capability (`chip`, e.g. `sm_90`), the PTX features of the
    NVPTX back end, and the limits kernel configuration sizes kernels by:
    the most threads a block may have (`-tfm-gpu-distribute` and
    `-tfm-gpu-configure` check blocks against it), the static shared memory
    of one block (48 KiB on every architecture; more needs dynamic shared
    memory), the number of streaming multiprocessors (a grid with fewer
    blocks leaves SMs idle; the configuration takes smaller tiles then),
    and the shared memory a block may opt into as dynamic shared memory
    (`opt_in_shared_memory_bytes`, 0: none beyond the static 48 KiB; the
    tensor-core GEMM's deeper pipelines use it,
    `-tfm-gpu-dynamic-shared-memory`). What one multiprocessor holds at
    once bounds the blocks resident on it, the occupancy a kernel's
    schedule plans for (`tfm.blocks_per_sm`, set where the kernel is built
    from its schedule and checked by `tfmc --report`): its shared memory
    (`shared_memory_per_multiprocessor`, of which each resident block
    reserves 1 KiB more), threads and blocks (the defaults are sm_80's:
    164 KiB, 2048 and 32), and 64 Ki 32-bit registers (every sm_80+
    part). The host code that launches the kernels is compiled
    for the machine that runs the model (`tfmc`'s CPU target). Code
    generation for a GPU target puts the buffers the entry reads and writes
    on the device (`-tfm-materialize-entry` records device `cuda`, every
    copy becomes a kernel).

    ```mlir
    module attributes {tfm.target = #tfm.gpu_target<chip = "sm_90",
        features = "+ptx80", max_threads_per_block = 1024,
        shared_memory_bytes = 49152, multiprocessors = 132,
        opt_in_shared_memory_bytes = 232448>}
    ```
  }];
  let parameters = (ins
    StringRefParameter<"compute capability">:$chip,
    StringRefParameter<"PTX features">:$features,
    "int64_t":$max_threads_per_block,
    "int64_t":$shared_memory_bytes,
    "int64_t":$multiprocessors,
    DefaultValuedParameter<"int64_t", "0">:$opt_in_shared_memory_bytes,
    DefaultValuedParameter<"int64_t", "167936">:$shared_memory_per_multiprocessor,
    DefaultValuedParameter<"int64_t", "2048">:$max_threads_per_multiprocessor,
    DefaultValuedParameter<"int64_t", "32">:$max_blocks_per_multiprocessor
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The chip's compute capability as a number (`sm_86`: 86; 0 where
    /// `chip` has no number after `sm_`).
    unsigned getComputeCapability() const;
    /// Whether the chip has mma.sync m16n8k16 on bf16 and f16 inputs
    /// (sm_80 and newer): tfm's tensor-core kernels.
    bool hasHalfMmaSync() const { return getComputeCapability() >= 80; }
    /// The most shared memory one block may have: the opt-in limit of
    /// dynamic shared memory, or the static limit where that is larger or
    /// not stated.
    int64_t getMaxBlockSharedMemoryBytes() const {
      return std::max(getSharedMemoryBytes(), getOptInSharedMemoryBytes());
    }
    /// 32-bit registers of one multiprocessor (64 Ki on sm_80 to sm_90).
    static constexpr int64_t kRegistersPerMultiprocessor = 65536;
    /// Shared memory each resident block reserves beyond its own (sm_80+).
    static constexpr int64_t kReservedSharedMemoryPerBlock = 1024;
    /// The most blocks of `threads` threads at `registers` registers per
    /// thread that one multiprocessor's registers hold (allocated per warp
    /// in units of 256).
    static int64_t blocksByRegisters(int64_t threads, int64_t registers);
    /// The most blocks of `threads` threads, `sharedBytes` of shared memory
    /// and `registers` registers per thread one multiprocessor holds at
    /// once (registers are allocated per warp in units of 256); at least 1.
    int64_t blocksPerMultiprocessor(int64_t threads, int64_t sharedBytes,
                                    int64_t registers) const;
    /// The registers per thread that let `blocks` blocks of `threads`
    /// threads reside on one multiprocessor: a multiple of 8 below 256, or
    /// 255 (a thread's most).
    static int64_t registerBudget(int64_t threads, int64_t blocks);
  }];
}

def Tfm_KeyBlocks : I32EnumAttr<"KeyBlocks",
    "which key blocks a loop of a tiled attention visits", [
    I32EnumAttrCase<"full", 0>,
    I32EnumAttrCase<"diagonal", 1>,
    I32EnumAttrCase<"remainder", 2>,
    I32EnumAttrCase<"window_head", 3>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_KeyBlocksAttr : EnumAttr<Tfm_Dialect, Tfm_KeyBlocks, "key_blocks"> {
  let summary = "The role of a key-block loop of a tiled attention";
  let description = [{
    On each `scf.for` over key blocks that `-tfm-tile-sram` builds:
    `full` blocks need no mask, `diagonal` and `window_head` blocks cross
    the causal diagonal or the window's start and are masked, `remainder`
    is the last, partial block of an unmasked attention. Later passes
    (`-tfm-tile-and-vectorize`) find the online softmax by it.
  }];
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_AttentionTilingAttr : AttrDef<Tfm_Dialect, "AttentionTiling"> {
  let mnemonic = "attention_tiling";
  let summary = "How one tfm.attention is tiled for fast memory";
  let description = [{
    The decision of a configuration pass (`-tfm-configure-attention`) for
    one `tfm.attention`, which `-tfm-tile-sram` carries out: query blocks of
    `block_q` rows (times `group`, the query heads that share a K/V head),
    key blocks of `block_k`, whose working set is `footprint_bytes` of the
    target's `budget_bytes`. With `untiled_max_keys` > 0 and a dynamic key
    length, the tiled nest runs only when Tk exceeds it (a runtime branch to
    the untiled op). With `key_splits` > 1 (decode: a static Tq of 1 and
    `block_q` = 1), the visible keys of each (batch, K/V head) are split
    into that many ranges of whole key blocks, run in parallel, each with
    its own running max, sum and accumulator, which a partial-softmax
    combine merges after (split-K): a batch of one sequence then keeps more
    threads busy than it has K/V heads. With `transposed_scores`, each key
    block's scores are computed transposed, `Sᵀ[Bc, G*Br] = K·Qᵀ` (Q
    transposed once per query block), so that on a CPU the rows of K are
    the broadcast operand of the register kernel (no per-block transpose
    of K) and the online softmax's row max and sum run down the key rows,
    one vector instruction per `lanes` queries, with no reduction across
    lanes; `P·V` then reads `Pᵀ` as its transposed A. With
    `rescale_threshold` = τ > 0, the online softmax moves a row's running
    max only when a key block's max exceeds it by more than τ (log2 units:
    the block's weights are then at most 2^τ), and rescales the
    accumulator only for key blocks where some row's max moved
    (FlashAttention-4's conditional rescaling; exact, since the sum and the
    accumulator share the stale max); with 0 every block rescales. The
    tiled loop nest keeps the attribute, so reports and IR dumps show the
    choice.
  }];
  let parameters = (ins
    "int64_t":$block_q,
    "int64_t":$block_k,
    "int64_t":$group,
    "int64_t":$footprint_bytes,
    "int64_t":$budget_bytes,
    DefaultValuedParameter<"int64_t", "0">:$untiled_max_keys,
    DefaultValuedParameter<"int64_t", "1">:$key_splits,
    DefaultValuedParameter<"bool", "false">:$transposed_scores,
    DefaultValuedParameter<"int64_t", "0">:$rescale_threshold
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_AttentionUntiledAttr : AttrDef<Tfm_Dialect, "AttentionUntiled"> {
  let mnemonic = "attention_untiled";
  let summary = "One tfm.attention is kept whole, not tiled";
  let description = [{
    The decision of `-tfm-configure-attention` for an attention over at
    most `untiled-max-keys` keys (the whole score matrix fits in cache, and
    tiling would only add padding), or of `-tfm-tile-sram` for the untiled
    side of its runtime branch on `Tk`. Tiling passes leave such an op
    alone; `convert-tfm-to-linalg` lowers it whole.
  }];
}

def Tfm_CpuContractionAttr : AttrDef<Tfm_Dialect, "CpuContraction"> {
  let mnemonic = "cpu_contraction";
  let summary = "The CPU schedule of one contraction";
  let description = [{
    The decision of `-tfm-cpu-configure` for one linalg contraction, which
    `-tfm-tile-and-vectorize` carries out: register tiles of `mr` x `nr`
    (`nr` = two vectors of `lanes` f32), cache tiles of `kc` (k) x `nc`
    (n), and, with `parallel_rows` > 0, threads: blocks of that many rows
    (0: serial) by `parallel_cols` columns (a multiple of `nr`; 0: whole
    cache tiles), so that a contraction of few rows (a decode step's GEMMs,
    one row per sequence) still splits across threads.

    With `dot`, a contraction of a few static rows whose `B` is read as
    `B[n, k]` (a decode step's `QKᵀ`, whose `B` is a block of the KV cache)
    gets the dot-product kernel instead: `B` is not packed; `lanes` columns
    at a time, each row of `A` runs `lanes` accumulators of `lanes` f32
    partial sums over `k` (one FMA per column and `lanes` values of `k`,
    the rows of `B` read in place), and one transpose-and-add tree turns
    them into the `lanes` dot products.
  }];
  let parameters = (ins
    "int64_t":$lanes,
    "int64_t":$mr,
    "int64_t":$nr,
    "int64_t":$kc,
    "int64_t":$nc,
    "int64_t":$parallel_rows,
    "int64_t":$parallel_cols,
    DefaultValuedParameter<"bool", "false">:$dot
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_CpuAmxContractionAttr : AttrDef<Tfm_Dialect, "CpuAmxContraction"> {
  let mnemonic = "cpu_amx_contraction";
  let summary = "The CPU schedule of one bf16 contraction on AMX tiles";
  let description = [{
    The decision of `-tfm-cpu-configure` for a contraction that
    `-tfm-pack-amx` put in AMX form (bf16 `A[m, k/2, 2]` times a VNNI-packed
    `Wp[n/16, k/2, 16, 2]` into f32 `C[m, n/16, 16]`), which
    `-tfm-cpu-lower-amx` carries out after bufferization: a kernel of
    2 x 2 tiles of 16 x 16 f32 accumulators (32 rows by 32 columns) over
    k steps of 32, its four accumulators in tile registers for the whole
    k loop. The columns are swept in cache blocks of `cache_cols` (the
    block of `Wp` that each 32-row step reads stays in L2), and k in
    blocks of `k_block` (the 32 rows of A such a block reads stay in L1
    while every pair of column tiles reads them; the accumulators go back
    to C between blocks); with `parallel_rows` > 0, threads take blocks of
    that many rows by one cache block of columns (0: serial).

    With `dot_products` (a CPU with AVX512-BF16 and no AMX), the same
    loops run a kernel of vector dot products instead of tiles: each 32 x
    32 block as four kernels of 8 rows by two 16-column vectors of f32
    accumulators in registers over the whole k block, each step
    broadcasting a bf16 pair of A to every lane and multiplying it with a
    64-byte row of `Wp` by `vdpbf16ps`. The rows after the last whole
    32-row step (a decode step's one row per sequence) run in place as
    kernels of 8 rows while 8 are left, then at most one each of 4, 2 and
    1 rows.

    With `tail_dot_rows` > 0 (tiles, on a CPU that also has AVX512-BF16),
    those last rows take the dot-product kernels when there are at most
    that many (a decode step's few): tiles cost 32 rows whatever the count
    (through a zeroed scratch), dot products cost per row.
  }];
  let parameters = (ins
    "int64_t":$cache_cols,
    "int64_t":$k_block,
    "int64_t":$parallel_rows,
    DefaultValuedParameter<"bool", "false">:$dot_products,
    DefaultValuedParameter<"int64_t", "0">:$tail_dot_rows
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_CpuElementwiseAttr : AttrDef<Tfm_Dialect, "CpuElementwise"> {
  let mnemonic = "cpu_elementwise";
  let summary = "The CPU schedule of one linalg op that is not a contraction";
  let description = [{
    The decision of `-tfm-cpu-configure` for an elementwise op, reduction,
    transpose, fill or broadcast, which `-tfm-tile-and-vectorize` carries
    out: with `parallel_block_bytes` > 0, threads take row blocks of at
    least that many bytes (0: serial); with `vectorize`, the innermost loop
    is tiled by `lanes` or `2 * lanes` f32 and vectorized (a reduction of at
    most `whole_reduction` elements stays whole).
  }];
  let parameters = (ins
    "int64_t":$lanes,
    "int64_t":$whole_reduction,
    "int64_t":$parallel_block_bytes,
    "bool":$vectorize
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Tfm_GpuContractionAttr : AttrDef<Tfm_Dialect, "GpuContraction"> {
  let mnemonic = "gpu_contraction";
  let summary = "The GPU schedule of one contraction";
  let description = [{
    The decision of `-tfm-gpu-configure` for one linalg contraction, which
    `-tfm-gpu-tile-contraction` carries out: one block computes a
    `block_m` x `block_n` tile of the output, staging `block_k`-deep slices
    of both operands in shared memory; each of its
    (`block_m` / `thread_m`) x (`block_n` / `thread_n`) threads accumulates
    `thread_m` x `thread_n` outputs in registers.
  }];
  let parameters = (ins
    "int64_t":$block_m,
    "int64_t":$block_n,
    "int64_t":$block_k,
    "int64_t":$thread_m,
    "int64_t":$thread_n
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads of one block.
    int64_t getThreads() const {
      return (getBlockM() / getThreadM()) * (getBlockN() / getThreadN());
    }
    /// Bytes of the block's shared-memory staging buffers (f32, each row
    /// padded by one element against bank conflicts).
    int64_t getSharedMemoryBytes() const {
      return 4 * getBlockK() * (getBlockM() + 1 + getBlockN() + 1);
    }
  }];
}

def Tfm_GpuMmaAttr : AttrDef<Tfm_Dialect, "GpuMma"> {
  let mnemonic = "gpu_mma";
  let summary = "The tensor-core GEMM schedule of one contraction";
  let description = [{
    The decision of `-tfm-gpu-configure` for a contraction whose inputs are
    both bf16 or both f16 (f32 output) on an sm_80+ target, which
    `-tfm-gpu-tile-contraction` carries out with warp-level `mma.sync`
    m16n8k16 (f32 accumulation): one block computes a `block_m` x `block_n`
    tile of the output, staging `block_k`-deep slices of both operands in
    shared memory in 16 bits (`k` contiguous); its `warps_m` x `warps_n`
    warps each own a (`block_m` / `warps_m`) x (`block_n` / `warps_n`)
    sub-tile, 16 x 8 accumulator fragments of it per `mma.sync`.

    `stages` is the staging pipeline's depth. 1 copies each slice with
    loads and stores and waits for it; its rows are padded by 8 elements,
    which puts the 8 rows an `ldmatrix` phase reads in distinct banks.
    2 to 4 fill `stages` buffers with 16-byte `cp.async` copies (each
    operand contiguous along `k`, or along its own rows and then staged
    k-major and read with `ldmatrix .trans`; rows aligned to 8 elements):
    slices
    i + 1 to i + `stages` - 1 are in flight while the warps multiply
    slice i. Their rows are not padded but XOR-swizzled: the 16-byte chunk
    c of row r is stored at chunk c ^ ((r / (8 / p)) mod p), p =
    min(`block_k` / 8, 8), which spreads any 8 consecutive rows' chunk c
    over the 8 bank groups. 128 x 128 x 32 tiles in 3 stages then take
    exactly 48 KiB, a block's static shared memory; a schedule that takes
    more (up to the target's `opt_in_shared_memory_bytes`) runs from
    dynamic shared memory (`-tfm-gpu-dynamic-shared-memory`).
  }];
  let parameters = (ins
    "int64_t":$block_m,
    "int64_t":$block_n,
    "int64_t":$block_k,
    "int64_t":$warps_m,
    "int64_t":$warps_n,
    DefaultValuedParameter<"int64_t", "1">:$stages
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Threads of one block.
    int64_t getThreads() const { return 32 * getWarpsM() * getWarpsN(); }
    /// 16 x 8 x 16 fragments of a warp's sub-tile along m and n.
    int64_t getFragmentsM() const { return getBlockM() / getWarpsM() / 16; }
    int64_t getFragmentsN() const { return getBlockN() / getWarpsN() / 8; }
    /// Whether the staged rows are XOR-swizzled (cp.async stages) rather
    /// than padded.
    bool isSwizzled() const { return getStages() > 1; }
    /// Elements of a staged row: `block_k`, and a pad of 8 where the rows
    /// are not swizzled.
    int64_t getStagedRow() const {
      return getBlockK() + (isSwizzled() ? 0 : 8);
    }
    /// Bytes of the block's shared-memory staging buffers (16-bit, one
    /// pair per stage).
    int64_t getSharedMemoryBytes() const {
      return 2 * getStages() * getStagedRow() * (getBlockM() + getBlockN());
    }
  }];
}

def Tfm_GpuMmaChoiceAttr : AttrDef<Tfm_Dialect, "GpuMmaChoice"> {
  let mnemonic = "gpu_mma_choice";
  let summary = "Two tensor-core GEMM schedules, chosen at run time";
  let description = [{
    The decision of `-tfm-gpu-configure` for a tensor-core contraction whose
    output extents are known only at run time (the tokens of a call):
    `-tfm-gpu-tile-contraction` builds both kernels and launches `large`
    where its grid has at least `min_blocks` blocks (the target's
    multiprocessors: one full wave), `small` otherwise. Large tiles reuse
    each staged element over more outputs; small ones keep a small
    problem's blocks on every multiprocessor.
  }];
  let parameters = (ins
    "GpuMmaAttr":$large,
    "GpuMmaAttr":$small,
    "int64_t":$min_blocks
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The schedule launched for an output of `m` x `n` in `batch`
    /// batches.
    GpuMmaAttr select(int64_t m, int64_t n, int64_t batch) const {
      GpuMmaAttr l = getLarge();
      int64_t blocks = ((m + l.getBlockM() - 1) / l.getBlockM()) *
                       ((n + l.getBlockN() - 1) / l.getBlockN()) * batch;
      return blocks >= getMinBlocks() ? l : getSmall();
    }
  }];
}

def Tfm_GpuFlashAttentionAttr : AttrDef<Tfm_Dialect, "GpuFlashAttention"> {
  let mnemonic = "gpu_flash_attention";
  let summary = "The tensor-core (FlashAttention-2) schedule of one tfm.attention";
  let description = [{
    The decision of `-tfm-configure-attention` for a `tfm.attention` whose
    Q, K and V are rounded to bf16 or f16 (`--precision`) on an sm_80+
    target, which `-tfm-gpu-flash-attention` carries out: one block of
    `warps` warps per (`block_q` queries, `heads` query heads of one K/V
    group, batch element). The block's rows are its (query, head) pairs,
    query-major, `block_q` x `heads` = 16 x `warps` x `row_tiles` of them;
    warp `w` owns `row_tiles` tiles of 16 rows (rows 16 R w to 16 R (w + 1)
    - 1, R = `row_tiles`), holds their Q fragments, scores, running
    maximum and sum and output accumulators in registers, and computes S =
    Q K^T and O += P V with `mma.sync` m16n8k16 (f32 accumulation); each K
    and V fragment a warp loads from shared memory serves its R row tiles.
    With `q_shared`, Q stays in a shared-memory buffer of its own and each
    warp loads its Q fragments from there at every 16 of `D` of every key
    block (FlashAttention-2's choice, which leaves the registers to the
    output accumulators of long heads); without, they are loaded into
    registers once and Q is staged in the K buffer. K and V are
    staged in shared memory `block_k` keys at a time, two stages filled by
    `cp.async` (the next key block is in flight while the warps work on
    the current one). Head sizes are padded to multiples of 16 in shared
    memory, and each staged row by 8 more elements (16 bytes), which puts
    the rows of every `ldmatrix` in distinct banks.
  }];
  let parameters = (ins
    "int64_t":$block_q,
    "int64_t":$heads,
    "int64_t":$block_k,
    "int64_t":$warps,
    DefaultValuedParameter<"int64_t", "1">:$row_tiles,
    DefaultValuedParameter<"bool", "false">:$q_shared
  );
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Rows (query, head pairs) of one warp: 16 per row tile.
    int64_t getWarpRows() const { return 16 * getRowTiles(); }
    /// Rows (query, head pairs) of one block.
    int64_t getRows() const { return getWarpRows() * getWarps(); }
    int64_t getThreads() const { return 32 * getWarps(); }
    /// A head size padded to the fragments' 16.
    static int64_t getPaddedDim(int64_t d) { return (d + 15) / 16 * 16; }
    /// Elements of a staged row of head size `d` (padded, and 8 more).
    static int64_t getStagedRow(int64_t d) { return getPaddedDim(d) + 8; }
    /// Rows of the K buffer: two key blocks, or the Q tile staged there
    /// before the key loop if that is more (without `q_shared`).
    int64_t getKeyBufferRows() const {
      return getQShared() ? 2 * getBlockK()
                          : std::max<int64_t>(2 * getBlockK(), getRows());
    }
    /// Bytes of the block's shared memory (16-bit K and V buffers, and
    /// with `q_shared` the Q buffer) for head sizes `d` (Q, K) and `dv`
    /// (V).
    int64_t getSharedMemoryBytes(int64_t d, int64_t dv) const {
      return 2 * ((getKeyBufferRows() + (getQShared() ? getRows() : 0)) *
                      getStagedRow(d) +
                  2 * getBlockK() * getStagedRow(dv));
    }
  }];
}

def Tfm_GpuReductionAttr : AttrDef<Tfm_Dialect, "GpuReduction"> {
  let mnemonic = "gpu_reduction";
  let summary = "The GPU schedule of one row reduction and the ops fused with it";
  let description = [{
    The decision of `-tfm-gpu-configure` for one reduction (a norm's sums,
    softmax's maximum and sum), which `-tfm-gpu-tile-reduction` carries
    out: one block of `threads` threads (a power of two) per output
    element; each thread folds every `threads`-th element of the row, then
    the block combines the partial results (shuffles within each warp, one
    shared-memory slot per warp).

    `stages` counts the ops the kernel runs, this reduction first: the
    `stages - 1` ops after it in the block that carry
    `tfm.row_kernel_stage` 1, 2, ... read the rows this one reduces (a
    layer norm's variance and its normalization, softmax's sum and
    division) and run in the same block, which hands each statistic to
    the next stage in registers instead of through global memory.
  }];
  let parameters = (ins "int64_t":$threads,
                        DefaultValuedParameter<"int64_t", "1">:$stages);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // TFM_IR_TFMATTRS_TD
