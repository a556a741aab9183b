//===- Passes.td - tfm Conversion passes -------------------*- tablegen -*-===//
//
// Conversions out of the tfm dialect, documented as contracts: what the input
// must look like, what the output is, and what stays untouched.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// TfmToLinalg
//===----------------------------------------------------------------------===//

def ConvertTfmToLinalgPass : Pass<"convert-tfm-to-linalg", "ModuleOp"> {
  let summary = "Lower tfm ops (except tfm.weight) to linalg, tensor, arith and math";
  let description = [{
    `tfm.* => linalg.generic / linalg.matmul / linalg.transpose + tensor + arith + math`

    **Input invariant.** Ranked tensors of f32 (f16 and bf16 are accepted and
    widened to f32 inside every computation). Model dimensions (hidden size,
    head count, head size, vocabulary, classes) are static; batch and
    sequence dimensions may be dynamic. Any other dialect already in the
    module (func, tensor, arith, linalg, ...) is left as it is.

    **Output.** Every tfm op except `tfm.weight` is replaced by linalg
    structured ops on tensors in destination-passing style: each result is
    computed into a `tensor.empty` whose dynamic sizes come from `tensor.dim`
    of the operands, reductions accumulate in f32 (`linalg.fill` of the
    neutral element, then a reduction `linalg.generic`), and a value is
    narrowed to the result element type only once, at the end.

    - `tfm.linear`, `tfm.lm_head`, `tfm.ffn` and the classifier head collapse
      the leading dimensions and use `linalg.matmul` (with `indexing_maps`
      transposing an `out_in` weight in place: weights are never copied), the
      bias broadcast into the accumulator.
    - `tfm.attention` computes the scores explicitly: query heads are
      regrouped as `[B, Hkv, G, Tq, D]` (a free `tensor.expand_shape`), so
      query head `h = n * G + g` reads K/V head `n` through a plain indexing
      map; repeats of K/V are never materialized. Scale, additive bias,
      ALiBi and the structured mask (causal with offset `Tk - Tq`, sliding
      window, key lengths) are applied in one elementwise op that writes
      `-inf` where a key is hidden; the softmax subtracts the row max, and a
      row whose keys are all hidden yields zeros (never NaN). Tiling with
      online softmax is `-tfm-tile-sram`'s job, before this pass.
    - `tfm.softmax` gives zeros for a slice of `-inf`.
    - `tfm.alibi_slopes` folds to a constant.

    **Untouched.** `tfm.weight` (see `-tfm-materialize-entry`), function
    signatures, and ops of other dialects.

    **Errors.** An op whose operands break the op's contract in a way the
    lowering depends on (a dynamic model dimension, `sliding_window` without
    `window`, a gated activation on `tfm.activation`) is reported with
    `emitOpError` and the pass fails.

    ```mlir
    // before
    %y = tfm.scale %x {factor = 0.5 : f64} : tensor<?x64xf32>
    // after
    %c0 = arith.constant 0 : index
    %d0 = tensor.dim %x, %c0 : tensor<?x64xf32>
    %e = tensor.empty(%d0) : tensor<?x64xf32>
    %y = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %h = arith.constant 5.000000e-01 : f32
      %m = arith.mulf %in, %h : f32
      linalg.yield %m : f32
    } -> tensor<?x64xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Entry ABI
//===----------------------------------------------------------------------===//

def MaterializeEntryPass : Pass<"tfm-materialize-entry", "ModuleOp"> {
  let summary = "Turn tfm.weight into weights-table loads and @forward into the C entry ABI";
  let description = [{
    `tfm.weight "n" => llvm.load (weights[i]) + memref descriptor + bufferization.to_tensor`,
    `func @forward(inputs) -> R => func @forward(!llvm.ptr, inputs, memref<R>)`

    Implements the lowering contract of docs/architecture.md for the function
    marked `tfm.entry`:

    - a leading `!llvm.ptr` argument is added: the table of weight pointers.
      Every distinct `tfm.weight` name gets one slot, in order of first
      appearance (in the entry, then in `@tfm_prepare`), and every prepared
      tensor (a result of `@tfm_prepare`, read in the entry as
      `tfm.weight "name" prepared`) one of the slots after them, in
      `@tfm_prepare`'s result order; `tfm.weight` ops are replaced by a load of the slot and a
      memref descriptor (contiguous, row-major, static shape) built with
      `llvm` ops and cast to the memref type with
      `builtin.unrealized_conversion_cast` (the casts vanish in
      `reconcile-unrealized-casts` after `finalize-memref-to-llvm`), then
      `bufferization.to_tensor restrict`;
    - the table order is written to the module attribute `tfm.weights`, an
      array of `{name, shape}` dictionaries, and that of the prepared slots
      to `tfm.prepared`;
    - `@tfm_prepare` (made by `-tfm-outline-prepare`, or here with an empty
      body when there is none, so that every library exports it) gets the
      same table argument, writes each result into its prepared slot with
      `bufferization.materialize_in_destination`, returns nothing and
      carries `llvm.emit_c_interface`:
      `void _mlir_ciface_tfm_prepare(void *const *weights)`, which the
      runtime calls once per model instance;
    - the tensor result becomes a trailing out-parameter memref (identity
      layout) written with `bufferization.materialize_in_destination`; the
      function returns nothing and carries `llvm.emit_c_interface`; input
      tensors are marked `bufferization.writable = false` so generated code
      never writes into the caller's buffers;
    - the global `tfm_model_manifest` (NUL-terminated JSON,
      `"format": "tfm-manifest/1"`) is emitted from the module attributes
      `tfm.model_name`, `tfm.architecture`, `tfm.vocab_size`,
      `tfm.max_seq_len`, `tfm.output`, the result's static trailing
      dimensions, the weight table and (when there are any) the prepared
      tensors;
    - with `embed-weights=<file>`, the bytes of that file become
      `tfm_embedded_weights` (64-byte aligned) and their count
      `tfm_embedded_weights_size` (i64).

    **Kernel entries.** With the module attribute
    `tfm.architecture = "kernel"` the entry is a single op or fragment (what
    `tfm-bench` and tests compile), not a model: its inputs may be any
    ranked tensors, in any number; it gets the same weights table (possibly
    unused), `bufferization.writable = false` inputs, out-parameter and
    `llvm.emit_c_interface`, but no manifest, and no other model attribute
    is needed. Its C signature is
    `void _mlir_ciface_<name>(void *const *weights, <input descriptors>...,
    <output descriptor>)`. A kernel cannot be loaded by the runtime
    (`tfm_model_create` needs a manifest).

    **Input invariant.** `tfm.weight` ops appear only in the entry function
    and (not prepared) in `@tfm_prepare`, each with a static f32 shape, one
    shape per name; a prepared one names a result of `@tfm_prepare` (its
    `tfm.name`) of the same type; the entry returns one
    ranked tensor. A module without a `tfm.entry` function is left
    unchanged (unless it contains `tfm.weight`, which is an error: nothing
    else can provide the data).
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"cpu\"",
           "Where the generated code runs, written to the manifest's "
           "\"device\" field: cpu, or cuda (the weights table, inputs and "
           "output hold device pointers; the runtime drives the kernels)">,
    Option<"embedWeights", "embed-weights", "std::string", /*default=*/"",
           "Path of a weights file (safetensors) whose bytes are embedded "
           "as tfm_embedded_weights">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
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
    (`-tfm-gpu-distribute` maps the loops to blocks and threads).
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

//===----------------------------------------------------------------------===//
// Final check
//===----------------------------------------------------------------------===//

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

//===----------------------------------------------------------------------===//
// CPU code generation: linalg on tensors to vector code
//===----------------------------------------------------------------------===//

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

def TileAndVectorizePass : Pass<"tfm-tile-and-vectorize", "func::FuncOp"> {
  let summary = "Tile linalg ops on tensors for registers and caches, then vectorize them";
  let description = [{
    `linalg contraction => scf.for nest (cache tiles, packed B, register tiles) + vector.contract`,
    `other linalg op => scf.for over vector-sized tiles + vector ops`,
    with `parallel` inside an `scf.forall` of row blocks

    Runs on linalg on tensors (after elementwise fusion, before
    bufferization). Every tile size comes from the options, which the
    pipeline derives from the `TargetDescription` (vector width, register
    count, L1 and L2 sizes); the pass holds no machine constants.

    **Contractions** (any `linalg` op that `isaContractionOpInterface`
    accepts, f32 accumulator, whose output's innermost dimension is an `n`
    dimension: `linalg.matmul`, the rank-3 projections, attention's `QKᵀ`
    and `PV`). With `VL = vector-bits / 32`, `NR = 2·VL`,
    `MR = min(8, (vector-registers - 4) / 2)` (the `MR×NR` accumulator uses
    `2·MR` registers), `KC = l1-bytes / 2 / (4·NR)` and
    `NC = l2-bytes / 2 / (4·KC)` (multiple of `NR`):

    1. batch dimensions, and all but the innermost `m`, `n`, `k` dimension,
       are tiled by 1; `n` by `NC`, `k` by `KC` (cache tiles); unit
       dimensions are dropped, giving a plain `C[m,n] += A[m,k]·B[k,n]`;
    2. a `B` read as `B[n,k]` (an `out_in` weight, the keys of `QKᵀ`) is
       packed once per cache tile into a `KC×NC` buffer (`linalg.transpose`,
       itself vectorized as `VL×VL` blocks), so the kernel reads `B` rows
       contiguously; the buffer has a static size and is hoisted out of the
       loops by bufferization;
    3. register tiles `MR × NR × 1`; the `k` loop is innermost;
    4. vectorization to `vector.contract` (lowered to outer products / FMAs
       by `convert-vector-to-llvm`); the accumulator's `transfer_read` and
       `transfer_write` are hoisted out of the `k` loop, so it lives in
       registers for the whole `KC` panel.

    With `parallel`, a contraction that no loop encloses is split for
    threads: its outer parallel dimensions of `B` (batch dimensions, outer
    `n` dimensions such as heads or the panels of a packed weight) by an
    `scf.forall` of one index per iteration, together with its rows in
    blocks of `4·MC` (so that a few panels do not leave threads idle);
    otherwise, inside every cache tile and after `B` is packed,
    its rows by an `scf.forall` of `MC` rows (`parallel-rows`, default
    `4·MR`), and the packing itself by an `scf.forall` of `2·VL` rows of
    `k`. Every iteration writes a disjoint block (of the result or of the
    packed buffer) and allocates its own temporaries; the packed `B` tile
    is written before the row blocks and only read by them. The reduction
    over `k` stays in order inside an iteration, so results do not depend
    on the number of threads. Nothing is split inside another `scf.forall`
    (the tiled attention's contractions). `-tfm-lower-to-llvm` turns the
    foralls into OpenMP worksharing loops.

    With `parallel`, every **other linalg op** that no loop encloses (layer
    and RMS norm reductions, bias broadcasts, GELU, residual adds,
    transposes, RoPE, the embedding gather, fills; whatever `elementwise`
    says) is split too: its outer parallel loops, those that index every
    result as a plain dimension (all parallel loops but the innermost: batch
    × tokens, batch × heads × tokens), become an `scf.forall` of row
    blocks. The innermost loop and the reduction loops stay whole in a
    block, so a block computes whole rows and writes its own slice of every
    result. With `R` the bytes of one row (every operand over the loops not
    split; a dynamic extent counts as 1), a block holds
    `ceil(B / R)` rows, `B` = `parallel-block-bytes` (default `l1-bytes`),
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
    each block fills its own slice. Then, with
    `elementwise`, the op in the block is tiled and vectorized as below.

    ```mlir
    // before: a layer norm's mean over [B, T, 768] (B, T dynamic)
    %m = linalg.generic {iterator_types = ["parallel", "parallel", "reduction"]}
        ins(%x : tensor<?x?x768xf32>) outs(%acc : tensor<?x?xf32>) ...
    // after (l1-bytes = 32768: rows of 768·4 + 4 bytes, 11 per block)
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
    broadcasts; with `elementwise`, or whatever `elementwise` says when the
    op is statically shaped and inside a tiled attention's key loop, an
    `scf.for` marked `tfm.key_blocks`: the online softmax on the score
    tile) with a static innermost loop: every other loop is tiled by
    1, the innermost by `2·VL` or `VL` when that divides it, or left whole
    when it is at most `2·VL` or a reduction of at most `l1-bytes / 16`
    bytes; then unit dimensions are dropped and the tile vectorized
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
    // after (sketch, vector-bits=512)
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
  let options = [
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"512",
           "Width of a native f32 vector register in bits">,
    Option<"vectorRegisters", "vector-registers", "unsigned",
           /*default=*/"32", "Number of architectural vector registers">,
    Option<"l1Bytes", "l1-bytes", "int64_t", /*default=*/"32768",
           "Per-core L1 data cache size in bytes">,
    Option<"l2Bytes", "l2-bytes", "int64_t", /*default=*/"1048576",
           "Per-core L2 cache size in bytes">,
    Option<"contractions", "contractions", "bool", /*default=*/"true",
           "Tile and vectorize contractions">,
    Option<"elementwise", "elementwise", "bool", /*default=*/"true",
           "Tile and vectorize the other linalg ops">,
    Option<"parallel", "parallel", "bool", /*default=*/"false",
           "Split top-level linalg ops into scf.forall loops for "
           "multithreading: contractions (batch and head dimensions, row "
           "blocks in each cache tile, the packing) and every other op "
           "(row blocks of its outer parallel loops)">,
    Option<"parallelRows", "parallel-rows", "int64_t", /*default=*/"0",
           "Rows (m) per parallel block of a contraction (0: 4 register "
           "tiles, 4·MR)">,
    Option<"parallelBlockBytes", "parallel-block-bytes", "int64_t",
           /*default=*/"0",
           "Least data (bytes of its operands) per parallel row block of a "
           "non-contraction op (0: l1-bytes)">,
  ];
  let statistics = [
    Statistic<"numContractions", "contractions",
              "Contractions tiled for registers and caches">,
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
    `t >= 128` gives `+inf`, NaN stays NaN.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::math::MathDialect",
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
    scalar max-and-NaN-blend steps for a row of 32 scores).

    The pattern set holds no `vector.shape_cast` lowering and no
    canonicalization: together they do not terminate.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // TFM_CONVERSION_PASSES_TD
