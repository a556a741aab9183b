//===- Passes.td - tfm dialect transforms ------------------*- tablegen -*-===//
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

#endif // TFM_TRANSFORMS_PASSES_TD
