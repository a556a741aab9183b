//===- Passes.td - tfm Transforms passes -------------------*- tablegen -*-===//
//
// tfm -> tfm rewrites. Each pass states its rewrite as `a => b`, then what it
// matches exactly and what it leaves alone.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TRANSFORMS_PASSES_TD
#define TFM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def FuseAttentionPass : Pass<"tfm-fuse-attention"> {
  let summary = "Raise matmul-scale-mask-softmax-matmul chains into tfm.attention";
  let description = [{
    `matmul(softmax(mask(scale * matmul(Q, Kᵀ) + alibi + bias)), V) => tfm.attention(Q, K, V)`

    The pass anchors on every `tfm.matmul %p, %v` whose left operand is a
    `tfm.softmax` (a *candidate*) and walks the chain backwards:

    1. `P = tfm.softmax(X) {axis = 3}` on rank-4 scores `[B, H, Tq, Tk]`:
       the softmax must run over the key (last) axis.
    2. Mask and bias layers on `X`, in any order, each at most once:
       - `tfm.masked_fill %x, %m {value = v}` with `v = -inf`, or
         `v <= -1e4` when nothing is added after it, where `%m = tfm.make_mask %s key_lengths(%len) <kind>`
         is built over the same scores (its `%s` is a value of this chain, or
         has the same fully static type): gives `mask = kind`, `window`
         and `key_lengths`;
       - `tfm.add %x, tfm.alibi_bias(%s, %slopes)`: gives `alibi(%slopes)`;
       - `tfm.add %x, %b` for any other `%b`: gives `bias(%b)`.
    3. Scales on the scores: `tfm.scale {factor = c}`,
       `arith.mulf` by a splat constant `c` (either side), `arith.divf` by a
       splat constant `c` (factor `1/c`); any number of them.
    4. `S = tfm.matmul(Q, Kᵀ)` where `Kᵀ` is `tfm.transpose %k [0, 1, 3, 2]`
       or the matmul has `transpose_rhs`. Scales on `Q`, and on `K` before or
       after the transpose, are folded into the attention scale as well.
    5. If `K` and `V` are both `tfm.repeat_kv` with the same `repeats`, the
       un-repeated tensors become the attention's K and V (grouped-query
       attention, no materialized copies).

    The scale of the `tfm.attention` is the product of all scale factors.
    Every intermediate (scores, scaled and masked scores, probabilities,
    the transpose and the scales) must have no users outside the chain
    (a `tfm.make_mask` or `tfm.alibi_bias` that reads only the scores' shape
    counts as part of the chain); the matched ops are erased, and a
    `tfm.repeat_kv` that becomes dead too.

    Anything else is left alone and counted as a rejected candidate by
    reason: a softmax over another axis, an intermediate with other users,
    a mask that is not a `tfm.make_mask` over these scores, a fill value
    that is not very negative, a scale that is not a splat constant, or any
    other structure (a rank other than 4, `V` transposed, two masks, a
    scale applied after the mask). With `report-rejections` each rejected
    candidate also gets a remark saying why.

    A filled value of `-1e4` or below is treated like `-inf`: the results
    agree except on a query row whose keys are all masked, where the fused
    op yields zeros (the unfused chain would average all of `V`).

    Example (the frontend's unfused attention):

    ```mlir
    %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x8x?x64xf32>) -> tensor<?x8x64x?xf32>
    %s = tfm.matmul %q, %kt : (tensor<?x8x?x64xf32>, tensor<?x8x64x?xf32>) -> tensor<?x8x?x?xf32>
    %s2 = tfm.scale %s {factor = 0.125 : f64} : tensor<?x8x?x?xf32>
    %m = tfm.make_mask %s2 key_lengths(%len : tensor<?xi32>) <causal> : tensor<?x8x?x?xf32> -> tensor<?x8x?x?xi1>
    %s3 = tfm.masked_fill %s2, %m {value = 0xFFF0000000000000 : f64} : tensor<?x8x?x?xf32>, tensor<?x8x?x?xi1>
    %p = tfm.softmax %s3 {axis = 3 : i64} : tensor<?x8x?x?xf32>
    %o = tfm.matmul %p, %v : (tensor<?x8x?x?xf32>, tensor<?x8x?x64xf32>) -> tensor<?x8x?x64xf32>
    ```

    becomes

    ```mlir
    %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>)
           {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64}
         : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32> -> tensor<?x8x?x64xf32>
    ```
  }];
  let dependentDialects = ["::mlir::tfm::TfmDialect"];
  let options = [
    Option<"reportRejections", "report-rejections", "bool",
           /*default=*/"false",
           "Emit a remark on each rejected candidate saying why it was left alone">,
  ];
  let statistics = [
    Statistic<"numFused", "fused", "Attention chains fused into tfm.attention">,
    Statistic<"numRejectedSoftmaxAxis", "rejected-softmax-axis",
              "Candidates rejected: softmax not over the key (last) axis">,
    Statistic<"numRejectedOtherUses", "rejected-other-uses",
              "Candidates rejected: an intermediate result has users outside the chain">,
    Statistic<"numRejectedMask", "rejected-mask",
              "Candidates rejected: a mask or ALiBi bias is not a tfm.make_mask/tfm.alibi_bias provably over these scores">,
    Statistic<"numRejectedFillValue", "rejected-fill-value",
              "Candidates rejected: masked_fill value is neither -inf nor <= -1e4, or finite with a bias added after it">,
    Statistic<"numRejectedScale", "rejected-scale",
              "Candidates rejected: a scale is not a finite splat constant">,
    Statistic<"numRejectedStructure", "rejected-structure",
              "Candidates rejected: the chain is not matmul, scale, mask/bias, softmax, matmul">,
  ];
}

def TileSramPass : Pass<"tfm-tile-sram"> {
  let summary = "Tile tfm.attention into a flash-attention loop nest sized for fast memory";
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
      scf.for %k0 = a to h step Bc   (masked: window head)
      scf.for %k0 = h to ub step Bc  (unmasked: whole blocks every row sees)
      scf.for %k0 = ub to d step Bc  (masked: causal diagonal, remainder)
        S    = Qs . K[b, n, k0 : k0+Bc, :]^T                     linalg.matmul
        S    = S + log2(e)*(bias - slope*|i+off-j|), masked -> -inf  linalg.generic
        mnew = max(m, rowmax(S)); S = exp2(S - mnew)
        alpha = exp2(m - mnew); l = l*alpha + rowsum(S); acc = acc*alpha + S . V[b, n, k0 : k0+Bc, :]
        m = mnew
      out[b, n*G : n*G+G, qb*Br : +Br, :] = l > 0 ? acc / l : 0
    } {tfm.tile = {block_q = Br, block_k = Bc, group = G, footprint_bytes, budget_bytes}}
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
    their (possibly short) K/V block into zeroed `[Bc, D]` buffers and apply
    the full visibility rule; unmasked blocks read K/V in place. Masked
    scores are `-inf` and the running max starts at the finite `-FLT_MAX`,
    so `exp2(-inf - -inf)` never happens and fully masked rows give 0.
    The row max uses `maxnumf` (it ignores a NaN score); a NaN score still
    propagates through `exp2` and the row sum into its row's output.

    Tile choice: `Bc` is a multiple of the f32 lanes of `vector-bits`, both
    are at most `max-block-q` / `max-block-k` (and the static `Tq` / `Tk`).
    Among powers of two the pass takes the largest score tile `Br*Bc` (ties:
    the larger `Br`, more reuse of each K/V block) whose working set fits
    `fast-memory-bytes`:

    `4*G*Br*D (Q) + 4*Bc*(D+Dv) (K, V block) + 4*G*Br*Bc (scores) + 4*G*Br*Dv (acc) + 16*G*Br (max, sum, block max, rescale) [+ e*G*Br*Bc (bias tile)]`

    where `e` is the byte size of the bias element type (Q, K and V
    tiles are f32 whatever the input type). If even `Br = 1`
    and `Bc` = one vector does not fit, the pass fails with an error naming
    the budget and what the smallest tile needs. Head counts and head sizes
    must be static; batch and sequence lengths may be dynamic.

    Cost model (`untiled-max-keys = N > 0`): short sequences are faster
    untiled on a CPU (the whole score matrix fits in cache and the tiles'
    padding is wasted work). An op with a static `Tk <= N` is left alone
    (marked `tfm.untiled`); with a dynamic `Tk` the pass emits
    `scf.if (Tk <= N) { tfm.attention {tfm.untiled} } else { loop nest }`.
    `convert-tfm-to-linalg` lowers the untiled op.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
  let options = [
    Option<"fastMemoryBytes", "fast-memory-bytes", "int64_t",
           /*default=*/"262144",
           "Bytes of fast memory one tile's working set may use (a share of "
           "the per-core L2 on CPUs, shared memory per block on GPUs)">,
    Option<"vectorBits", "vector-bits", "unsigned", /*default=*/"256",
           "Native vector width in bits: block_k is a multiple of its f32 lanes">,
    Option<"maxBlockQ", "max-block-q", "int64_t", /*default=*/"128",
           "Largest query block (rows per query head)">,
    Option<"maxBlockK", "max-block-k", "int64_t", /*default=*/"128",
           "Largest key block">,
    Option<"untiledMaxKeys", "untiled-max-keys", "int64_t", /*default=*/"0",
           "Cost model: attention over at most this many keys keeps the "
           "untiled lowering (statically, or by a runtime branch on Tk); "
           "0 tiles everything">,
  ];
  let statistics = [
    Statistic<"numTiled", "tiled", "tfm.attention ops tiled">,
    Statistic<"numKeptUntiled", "kept-untiled",
              "tfm.attention ops left untiled (static Tk <= untiled-max-keys)">,
  ];
}

def PackWeightsPass : Pass<"tfm-pack-weights", "ModuleOp"> {
  let summary = "Give the weights of contractions a panel-major layout, prepared once per model instance";
  let description = [{
    `C[.., n] += A[.., k] * W[k, n] (or W[n, k]) => C[.., nb, r] += A[.., k] * Wp[nb, k, r]`,
    `Wp = pack(W)` marked `tfm.prepare`

    Runs on linalg on tensors (after `-convert-tfm-to-linalg`). A linalg
    contraction (f32, two inputs, one init, no `linalg.index`) whose input
    is a rank-2 `tfm.weight` `W` is rewritten to read a packed copy `Wp` of
    shape `[N / P, K, P]`: panel `nb` holds columns `nb*P .. nb*P+P-1` of
    every row `k`, so each `KC x P` block the register kernels of
    `-tfm-tile-and-vectorize` stream is contiguous (an unpacked `W[k, n]`
    is read at a stride of `N` floats, a page every row or two; an unpacked
    `W[n, k]` is transposed on every call). `P` is the widest multiple of
    `panel` that divides `N - N mod panel` and is at most `max-panel`: the
    `P / panel` register tiles of a panel reuse each block of `A` from L1.
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

    Left alone: weights with fewer than `panel` columns, `[K, N]` weights
    whose packed columns are one panel (already panel-major), other element
    types, and contractions that read no weight (attention's `Q.Kᵀ` and
    `P.V`).
  }];
  let options = [
    Option<"panel", "panel", "int64_t", /*default=*/"32",
           "Panel granule in f32 lanes: the register tile's width (two "
           "vectors); every panel width is a multiple of it">,
    Option<"maxPanel", "max-panel", "int64_t", /*default=*/"0",
           "Widest panel (a multiple of panel; 0: panel)">,
  ];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::tfm::TfmDialect",
  ];
  let statistics = [
    Statistic<"numPackedContractions", "packed-contractions",
              "Contractions rewritten to read a packed weight">,
    Statistic<"numPackedWeights", "packed-weights",
              "Packed weight layouts made (one per weight name and layout)">,
  ];
}

def OutlinePreparePass : Pass<"tfm-outline-prepare", "ModuleOp"> {
  let summary = "Move the weight computations marked tfm.prepare into @tfm_prepare, run once per model instance";
  let description = [{
    `%p = op(weights) {tfm.prepare = "name"} in @forward => %p = tfm.weight "name" prepared`
    `+ func @tfm_prepare() -> (tensor..) { %p = op(weights) ; return %p }`

    In the function marked `tfm.entry`, every op carrying the string
    attribute `tfm.prepare` (made by `-tfm-pack-weights`) is computed once,
    when a model instance is created, instead of on every call: the op and
    the ops it reads (which may only be `tfm.weight`, constants,
    `tensor.empty`, reshapes and other side-effect-free ops on those) are
    cloned into a new function `@tfm_prepare` (attribute `tfm.prepare`)
    that returns the prepared tensors in order; in the entry, the op's
    result becomes `tfm.weight "<name>" prepared` and the op is erased
    (with whatever it read that nothing else uses).
    `-tfm-materialize-entry` then gives each prepared tensor a slot of the
    weights table after the file weights, lists it in the manifest's
    `prepared` field, and turns `@tfm_prepare` into
    `void _mlir_ciface_tfm_prepare(void *const *weights)`, which writes the
    prepared slots from the file weights.

    Errors: a marked op with more than one result, inside a loop, reading
    a value that is not computed from weights alone, or two ops with one
    name and different types.
  }];
  let dependentDialects = ["::mlir::tfm::TfmDialect", "::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numOutlined", "outlined", "Tensors moved into @tfm_prepare">,
  ];
}

#endif // TFM_TRANSFORMS_PASSES_TD
