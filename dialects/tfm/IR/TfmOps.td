//===- TfmOps.td - tfm operations --------------------------*- tablegen -*-===//
//
// Ops are grouped by family; each group becomes a section of the generated
// dialect reference (docs/Dialects/TfmDialect.md).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_IR_TFMOPS_TD
#define TFM_IR_TFMOPS_TD

include "tfm/IR/TfmBase.td"
include "tfm/IR/TfmAttrs.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/CommonTypeConstraints.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Parameters and embeddings
//===----------------------------------------------------------------------===//

def Tfm_ParamsGroup : OpDocGroup {
  let summary = "Parameters and embeddings";
  let description = "Named model weights, token embeddings and positional encodings.";
}

let opDocGroup = Tfm_ParamsGroup in {

def Tfm_WeightOp : Tfm_Op<"weight", [Pure]> {
  let summary = "a named model parameter";
  let description = [{
    Produces the model parameter called `name`. The name is the tensor's name
    in the weights file (safetensors). Weights are immutable for the lifetime
    of a compiled model instance; two `tfm.weight` ops with one name denote
    the same tensor (tied embeddings read the embedding table twice). The
    name is not empty and the shape is static.

    With `prepared`, the tensor is not read from the file: it is computed
    from file weights once, when a model instance is created, by the
    library's `tfm_prepare` function (a packed layout of a weight, made by
    `-tfm-pack-weights` and outlined by `-tfm-outline-prepare`), and `name`
    names it in the manifest's `prepared` list.

    ```mlir
    %wq = tfm.weight "layers.0.attn.q.weight" : tensor<64x64xf32>
    %wp = tfm.weight "layers.0.attn.q.weight:packed[n=0,panel=32]" prepared
        : tensor<2x64x32xf32>
    ```
  }];
  let arguments = (ins StrAttr:$name, UnitAttr:$prepared);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$name (`prepared` $prepared^)? attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfm_EmbeddingOp : Tfm_Op<"embedding", [Pure]> {
  let summary = "token embedding lookup";
  let description = [{
    `result[b, t, :] = table[ids[b, t], :]` with `ids : [B, T]` integers and
    `table : [V, D]`; the result is `[B, T, D]`. Ids outside `[0, V)` are
    rejected by the runtime before the lookup runs.

    ```mlir
    %x = tfm.embedding %ids, %table
        : (tensor<?x?xi32>, tensor<100x64xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Tfm_IndexTensor:$ids, Tfm_FloatTensor:$table);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$ids `,` $table attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_PatchEmbedOp : Tfm_Op<"patch_embed", [Pure]> {
  let summary = "image patches to token embeddings (ViT)";
  let description = [{
    Cuts `pixels : [B, C, H, W]` into non-overlapping `P x P` patches
    (`weight : [D, C, P, P]`, `H` and `W` multiples of `P`), in row-major
    order of (patch row, patch column), and projects each:
    `result[b, n, d] = bias[d] + sum_{c,y,x} pixels[b, c, P r + y, P q + x]
    * weight[d, c, y, x]` for patch `n = r (W / P) + q`. This is the
    convolution with kernel = stride = P of Dosovitskiy et al. (2021); the
    result `[B, (H / P)(W / P), D]` is the image's token sequence.

    ```mlir
    %x = tfm.patch_embed %pixels, %w, %b
        : (tensor<?x3x224x224xf32>, tensor<768x3x16x16xf32>, tensor<768xf32>)
        -> tensor<?x196x768xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$pixels, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$pixels `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_PrependTokenOp : Tfm_Op<"prepend_token", [Pure]> {
  let summary = "a learned token before every sequence (ViT's [CLS])";
  let description = [{
    `result[b, 0, :] = token`, `result[b, 1 + t, :] = input[b, t, :]` for
    `input : [B, T, D]` and `token : [D]`; the result is `[B, T + 1, D]`.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$token);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $token attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_SinusoidalPositionOp : Tfm_Op<"sinusoidal_position", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "adds the fixed sinusoidal position encoding";
  let description = [{
    `result[b, t, 2i] = x[b, t, 2i] + sin(p / 10000^(2i/D))` and
    `result[b, t, 2i+1] = x[b, t, 2i+1] + cos(p / 10000^(2i/D))`
    for `x : [B, T, D]`, D even (Vaswani et al., 2017), where token `t` of
    sequence `b` sits at position `p = t`, or `p = offsets[b] + t` with
    `offsets : [B]` (a generation step appending to a KV cache).
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Optional<Tfm_IndexTensor>:$offsets);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`offsets` `(` $offsets^ `:` type($offsets) `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_LearnedPositionOp : Tfm_Op<"learned_position", [Pure]> {
  let summary = "adds a learned position embedding";
  let description = [{
    `result[b, t, :] = x[b, t, :] + table[p, :]` for `x : [B, T, D]` and
    `table : [P, D]`, where token `t` of sequence `b` sits at position
    `p = t` (T may not exceed P), or `p = offsets[b] + t` with
    `offsets : [B]` (each sequence's first position: a forward's
    `positions` input or a generation step's offsets). The runtime keeps
    the positions of valid tokens below `P`; the padding after a sequence
    can run past it (a left-padded row moved to column 0), and the lowering
    clamps `p` into the table, which those reads rely on.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$table,
                       Optional<Tfm_IndexTensor>:$offsets);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `,` $table (`offsets` `(` $offsets^ `)`)? attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def Tfm_RopeOp : Tfm_Op<"rope", [Pure, AllTypesMatch<["input", "result"]>, AttrSizedOperandSegments]> {
  let summary = "rotary position embedding";
  let description = [{
    Rotates feature pairs of `x : [B, H, T, D]` by position-dependent angles.
    For position `t` (divided by `scaling_factor`, linear scaling) and pair
    `i < R/2` where `R = rotary_dim` (default D):
    `angle = t * theta^(-2i/R)`,
    `(x1, x2) -> (x1 cos(angle) - x2 sin(angle), x2 cos(angle) + x1 sin(angle))`.
    `rotate_half` pairs feature `i` with `i + R/2` (GPT-NeoX, LLaMA);
    `interleaved` pairs `2i` with `2i+1` (GPT-J, the RoFormer paper).
    Features at and beyond `R` pass through unchanged. Token `t` of
    sequence `b` sits at position `t`, or at `offsets[b] + t` with
    `offsets : [B]` (a generation step appending to a KV cache).

    RoPE scaling of released checkpoints (Llama 3, YaRN, LongRoPE) changes
    each pair's frequency: `inv_freq` (`R/2` values) then replaces
    `theta^(-2i/R) / scaling_factor` (`scaling_factor` must be 1; `theta`
    stays the base the frequencies were derived from), and
    `attention_factor` multiplies cos and sin. LongRoPE's two sets:
    a sequence whose new tokens end past `long_after` uses `long_inv_freq`,
    others `inv_freq`. They end at `offsets[b] + lengths[b]` with
    `lengths : [B]` (a generation step's rows of different lengths), else
    at `offsets[b] + T`, else at `T` (a forward pass: the padded width
    decides for the whole batch, as in transformers).
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       Optional<Tfm_IndexTensor>:$offsets,
                       Optional<Tfm_IndexTensor>:$lengths,
                       F64Attr:$theta,
                       DefaultValuedAttr<F64Attr, "1.0">:$scaling_factor,
                       DefaultValuedAttr<Tfm_RopeStyleAttr, "::mlir::tfm::RopeStyle::rotate_half">:$style,
                       OptionalAttr<I64Attr>:$rotary_dim,
                       OptionalAttr<DenseF64ArrayAttr>:$inv_freq,
                       OptionalAttr<DenseF64ArrayAttr>:$long_inv_freq,
                       OptionalAttr<I64Attr>:$long_after,
                       DefaultValuedAttr<F64Attr, "1.0">:$attention_factor);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    (`lengths` `(` $lengths^ `:` type($lengths) `)`)? attr-dict `:` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_RelativePositionBiasOp : Tfm_Op<"relative_position_bias", [Pure]> {
  let summary = "bucketed relative position bias (T5)";
  let description = [{
    The additive attention bias of T5 (Raffel et al., 2020): for
    `table : [NB, H]` (one learned scalar per bucket and head),
    `result[b, h, i, j] = table[bucket(j - p), h]` where query `i` sits at
    position `p = i + (Tk - Tq)`, or `p = offsets[b] + i` with
    `offsets : [B]` (a generation step), as in `tfm.attention`. The result
    `[B, H, Tq, Tk]` has the sizes `batch`, `queries`, `keys`; it is the
    `bias` operand of `tfm.attention`.

    `bucket(r)`: with `bidirectional` (an encoder), `n = NB / 2`, keys after
    the query (`r > 0`) take buckets `[n, NB)` and `r = |r|`; otherwise
    `n = NB` and `r = max(-r, 0)` (later keys share bucket 0). Distances
    below `e = n / 2` have a bucket each; longer ones share log-spaced
    buckets: `e + floor(ln(r / e) / ln(max_distance / e) * (n - e))`,
    at most `n - 1`.

    ```mlir
    %bias = tfm.relative_position_bias %table [%b, %t, %t] {bidirectional, max_distance = 128 : i64}
        : tensor<32x8xf32> -> tensor<?x8x?x?xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$table, Index:$batch, Index:$queries,
                       Index:$keys, Optional<Tfm_IndexTensor>:$offsets,
                       UnitAttr:$bidirectional, I64Attr:$max_distance);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $table `[` $batch `,` $queries `,` $keys `]`
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)? attr-dict `:`
    type($table) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_AlibiSlopesOp : Tfm_Op<"alibi_slopes", [Pure]> {
  let summary = "the ALiBi head slopes";
  let description = [{
    Produces `[H]` slopes of Press et al. (2022): for H a power of two,
    `slope[h] = 2^(-8(h+1)/H)`; otherwise the slopes of the next lower power
    of two followed by every other slope of twice that many heads. The
    result is rank 1 with a static `H > 0`.

    ```mlir
    %slopes = tfm.alibi_slopes : tensor<8xf32>
    ```
  }];
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

} // opDocGroup

//===----------------------------------------------------------------------===//
// Normalization and elementwise
//===----------------------------------------------------------------------===//

def Tfm_NormGroup : OpDocGroup {
  let summary = "Normalization and elementwise";
  let description = "LayerNorm, RMSNorm, residual add, scaling and activations.";
}

let opDocGroup = Tfm_NormGroup in {

def Tfm_LayerNormOp : Tfm_Op<"layer_norm", [Pure]> {
  let summary = "layer normalization over the last dimension";
  let description = [{
    `result = (x - mean(x)) / sqrt(var(x) + eps) * gamma + beta`, with mean
    and (biased) variance over the last dimension of size D; `gamma` and the
    optional `beta` are `[D]`.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$gamma,
                       Optional<Tfm_FloatTensor>:$beta, F64Attr:$eps);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $gamma (`,` $beta^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_RmsNormOp : Tfm_Op<"rms_norm", [Pure]> {
  let summary = "root-mean-square normalization over the last dimension";
  let description = [{
    `result = x / sqrt(mean(x^2) + eps) * (gamma_offset + gamma)` over the
    last dimension; `gamma` is `[D]`. `gamma_offset` is 0 except for models
    that store the gain as a difference from 1 (Gemma: `1 + w`). The input
    may have any rank: Qwen3 normalizes each head of q and k
    (`[B, H, T, Dh]` with a `[Dh]` gamma).
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$gamma, F64Attr:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$gamma_offset);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $gamma attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_AddOp : Tfm_Op<"add", [Pure, Commutative, SameOperandsAndResultType]> {
  let summary = "elementwise add (residual connections, additive biases)";
  let description = [{
    `result = lhs + rhs`, elementwise, on operands of one type. Adding a
    `[B, H, Tq, Tk]` tensor to attention scores before the softmax is what
    `-tfm-fuse-attention` turns into the `bias` operand of `tfm.attention`.
  }];
  let arguments = (ins Tfm_FloatTensor:$lhs, Tfm_FloatTensor:$rhs);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` type($result)";
}

def Tfm_ScaleOp : Tfm_Op<"scale", [Pure, SameOperandsAndResultType]> {
  let summary = "multiplies by a constant";
  let description = [{
    `result = x * factor`, with a finite `factor`. Scaling by exactly 1.0
    folds away.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, F64Attr:$factor);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tfm_ActivationOp : Tfm_Op<"activation", [Pure, SameOperandsAndResultType]> {
  let summary = "elementwise activation function";
  let description = [{
    `relu(x) = max(x, 0)`, `gelu(x) = x/2 (1 + erf(x/sqrt 2))`,
    `gelu_tanh(x) = x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`,
    `silu(x) = x / (1 + exp(-x))`, `tanh`. The gated kinds (swiglu, geglu,
    geglu_tanh) only exist on `tfm.ffn`; the verifier rejects them here.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_ActivationAttr:$kind);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input $kind attr-dict `:` type($result)";
  let hasVerifier = 1;
}

} // opDocGroup

//===----------------------------------------------------------------------===//
// Projections and feed-forward
//===----------------------------------------------------------------------===//

def Tfm_FeedForwardGroup : OpDocGroup {
  let summary = "Projections and feed-forward";
  let description = "Linear layers, batched matmul and the FFN block.";
}

let opDocGroup = Tfm_FeedForwardGroup in {

def Tfm_LinearOp : Tfm_Op<"linear", [Pure]> {
  let summary = "affine projection of the last dimension";
  let description = [{
    `result[..., o] = sum_i x[..., i] * W(o, i) + bias[o]`, where `W(o, i)`
    is `weight[o, i]` for layout `out_in` (PyTorch nn.Linear) and
    `weight[i, o]` for `in_out` (GPT-2's Conv1D). The weight is used as
    stored; nothing is transposed at load time.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias,
                       DefaultValuedAttr<Tfm_WeightLayoutAttr, "::mlir::tfm::WeightLayout::out_in">:$layout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_MatmulOp : Tfm_Op<"matmul", [Pure]> {
  let summary = "batched matrix product";
  let description = [{
    `[..., M, K] x [..., K, N] -> [..., M, N]`, or with `transpose_rhs`
    `[..., M, K] x [..., N, K] -> [..., M, N]`. Both operands and the result
    have one rank (>= 2); leading (batch) dimensions must agree, there is no
    broadcasting.

    ```mlir
    %s = tfm.matmul %q, %k {transpose_rhs}
        : (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>) -> tensor<?x8x?x?xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$lhs, Tfm_FloatTensor:$rhs, UnitAttr:$transpose_rhs);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$lhs `,` $rhs attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_FfnOp : Tfm_Op<"ffn", [Pure, AttrSizedOperandSegments]> {
  let summary = "position-wise feed-forward block";
  let description = [{
    Ungated (`relu`, `gelu`, `gelu_tanh`, `silu`, `tanh`):
    `down(act(up(x)))`. Gated (`swiglu`, `geglu`, `geglu_tanh`):
    `down(act(gate(x)) * up(x))` with act = silu, gelu or gelu_tanh
    (Gemma's and T5's gated-gelu). Each projection is
    a `tfm.linear` with the op's layout and an optional bias: for `x : [..., D]`
    and layout `out_in`, `up_weight` and `gate_weight` are `[F, D]`,
    `down_weight` is `[D, F]` (transposed for `in_out`). `gate_weight` is
    present iff the activation is gated. The result has the type of `x`.

    ```mlir
    %y = tfm.ffn %x up(%wu) gate(%wg) down(%wd) <swiglu>
        : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>,
           tensor<64x256xf32>) -> tensor<?x?x64xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input,
                       Tfm_FloatTensor:$up_weight, Optional<Tfm_FloatTensor>:$up_bias,
                       Optional<Tfm_FloatTensor>:$gate_weight, Optional<Tfm_FloatTensor>:$gate_bias,
                       Tfm_FloatTensor:$down_weight, Optional<Tfm_FloatTensor>:$down_bias,
                       Tfm_ActivationAttr:$activation,
                       DefaultValuedAttr<Tfm_WeightLayoutAttr, "::mlir::tfm::WeightLayout::out_in">:$layout);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input `up` `(` $up_weight (`,` $up_bias^)? `)`
    (`gate` `(` $gate_weight^ `)`)? (`gate_bias` `(` $gate_bias^ `)`)?
    `down` `(` $down_weight (`,` $down_bias^)? `)`
    $activation attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

} // opDocGroup

//===----------------------------------------------------------------------===//
// Attention and masking
//===----------------------------------------------------------------------===//

def Tfm_AttentionGroup : OpDocGroup {
  let summary = "Attention and masking";
  let description = [{
    The fused attention op, and the unfused pieces (head split/merge,
    transpose, softmax, masks, K/V repetition) that `-tfm-fuse-attention`
    raises into it.
  }];
}

let opDocGroup = Tfm_AttentionGroup in {

def Tfm_AttentionOp : Tfm_Op<"attention", [Pure, AttrSizedOperandSegments]> {
  let summary = "scaled dot-product attention with a structured mask";
  let description = [{
    For `query : [B, Hq, Tq, D]`, `key : [B, Hkv, Tk, D]`,
    `value : [B, Hkv, Tk, Dv]` with `Hq` a multiple of `Hkv` (query head `h`
    reads K/V head `h / (Hq / Hkv)`: multi-head, grouped-query and
    multi-query attention without repeated K/V):

    `s[b,h,i,j] = scale * dot(query[b,h,i,:], key[b,g(h),j,:]) + bias[b,h,i,j]
                  - alibi[h] * |i + (Tk - Tq) - j|`
    `result[b,h,i,:] = sum_j softmax_j(s masked)[b,h,i,j] * value[b,g(h),j,:]`

    Key `j` is visible to query `i` (with `off = Tk - Tq`, so that the last
    query lines up with the last key; or, if `offsets : [B]` is given,
    `off = offsets[b]`: query `i` of sequence `b` is the token at position
    `offsets[b] + i` of a KV cache, as in a generation step) when
    - `mask = none`: always;
    - `mask = causal`: `j <= i + off`;
    - `mask = sliding_window`: `j <= i + off` and `i + off - j < window`
      (Hugging Face Mistral's convention: a query sees itself and the
      `window - 1` keys before it);
    and, if `key_lengths : [B]` is given, `j < key_lengths[b]` (padding).
    A query row with no visible key produces zeros, never NaN.

    Element types: Q, K and V have one; the result, `bias` and
    `alibi_slopes` have the same one, or, when Q, K and V are bf16 or f16,
    f32 (the inputs of a 16-bit precision rounded for tensor cores, the
    softmax and the sums in f32). K and V may also be bf16 or f16 under an
    f32 Q (and result): the keys and values of a KV cache stored in the
    model's precision (`-tfm-narrow-kv-cache`), widened as they are read.

    ```mlir
    %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>)
           {mask = #tfm.mask<causal>, scale = 0.125 : f64}
         : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32>
           -> tensor<?x8x?x64xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$query, Tfm_FloatTensor:$key, Tfm_FloatTensor:$value,
                       Optional<Tfm_IndexTensor>:$key_lengths,
                       Optional<Tfm_IndexTensor>:$offsets,
                       Optional<Tfm_FloatTensor>:$alibi_slopes,
                       Optional<Tfm_FloatTensor>:$bias,
                       F64Attr:$scale,
                       DefaultValuedAttr<Tfm_MaskKindAttr, "::mlir::tfm::MaskKind::none">:$mask,
                       OptionalAttr<I64Attr>:$window);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of query heads that share one K/V head.
    int64_t getGroupSize();
  }];
}

def Tfm_AttentionKernelOp : Tfm_Op<"attention_kernel", [AttrSizedOperandSegments]> {
  let summary = "tfm.attention on buffers, whose kernel a later pass builds";
  let description = [{
    `tfm.attention`'s computation (same operands, attributes and rule) with
    its operands in buffers and its result written into `output`, for an
    op whose kernel is built after bufferization: `-tfm-gpu-bufferize-attention`
    makes it from a `tfm.attention` that carries a
    `#tfm.gpu_flash_attention` (the configuration moves with it), and
    `-tfm-gpu-flash-attention` builds it into a `gpu.launch`. It reads its
    inputs and writes `output`, and nothing else, so bufferization's
    deallocation sees what the kernel will touch.

    ```mlir
    tfm.attention_kernel %q, %k, %v into %out {mask = #tfm.mask<causal>, scale = 0.125 : f64}
        : memref<?x8x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x2x?x64xbf16>, memref<?x8x?x64xf32>
    ```
  }];
  let arguments = (ins Arg<AnyMemRef, "", [MemRead]>:$query,
                       Arg<AnyMemRef, "", [MemRead]>:$key,
                       Arg<AnyMemRef, "", [MemRead]>:$value,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$key_lengths,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$offsets,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$alibi_slopes,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$bias,
                       Arg<AnyMemRef, "", [MemWrite]>:$output,
                       F64Attr:$scale,
                       DefaultValuedAttr<Tfm_MaskKindAttr, "::mlir::tfm::MaskKind::none">:$mask,
                       OptionalAttr<I64Attr>:$window);
  let assemblyFormat = [{
    $query `,` $key `,` $value
    (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)?
    (`offsets` `(` $offsets^ `:` type($offsets) `)`)?
    (`alibi` `(` $alibi_slopes^ `:` type($alibi_slopes) `)`)?
    (`bias` `(` $bias^ `:` type($bias) `)`)?
    `into` $output
    attr-dict `:` type($query) `,` type($key) `,` type($value) `,` type($output)
  }];
}

def Tfm_CacheAppendOp : Tfm_Op<"cache_append", [Pure, AllTypesMatch<["cache", "result"]>]> {
  let summary = "writes new keys or values into a KV cache";
  let description = [{
    For `update : [B, H, T, D]`, `offsets`, `lengths : [B]` and a cache
    `[B, I0, ..., Ik-1, H, C, D]` whose leading static dimensions after B
    are selected by `index = [i0, ..., ik-1]` (e.g. layer and key/value of
    the generation step's `[B, L, 2, H, C, D]` cache): the result is
    `cache` with
    `result[b, i0, ..., h, offsets[b] + t, :] = update[b, h, t, :]` for
    `0 <= t < lengths[b]`, the keys (or values) of the tokens a generation
    step appends to sequence `b`. `update` and `cache` have one element
    type, or `update` is f32 and `cache` bf16 or f16 (a KV cache stored in
    the model's precision, `-tfm-narrow-kv-cache`): the rows are then
    rounded to nearest even as they are written. Rows of `update` at and beyond
    `lengths[b]` (padding of a ragged batch) are not written. The runtime
    guarantees `offsets[b] + lengths[b] <= C`; the lowering clamps to it,
    so that no write leaves the cache.

    The op updates the whole cache value rather than a slice of it, so
    that a step's appends chain through one value and bufferization writes
    them into the caller's buffer in place.

    ```mlir
    %c2 = tfm.cache_append %k into %cache offsets(%off) lengths(%len)
        {index = array<i64: 3, 0>}
        : tensor<?x4x?x64xf32>, tensor<?xi32>, tensor<?xi32>
        -> tensor<?x12x2x4x?x64xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$update, Tfm_FloatTensor:$cache,
                       Tfm_IndexTensor:$offsets, Tfm_IndexTensor:$lengths,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$index);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $update `into` $cache `offsets` `(` $offsets `)` `lengths` `(` $lengths `)`
    attr-dict `:` type($update) `,` type($offsets) `,` type($lengths) `->` type($cache)
  }];
  let hasVerifier = 1;
}

def Tfm_SplitHeadsOp : Tfm_Op<"split_heads", [Pure]> {
  let summary = "[B, T, H*D] -> [B, H, T, D]";
  let description = [{
    `result[b, h, t, d] = x[b, t, h * D + d]` with `H = num_heads > 0`
    dividing the feature dimension.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, I64Attr:$num_heads);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_MergeHeadsOp : Tfm_Op<"merge_heads", [Pure]> {
  let summary = "[B, H, T, D] -> [B, T, H*D]";
  let description = "`result[b, t, h * D + d] = x[b, h, t, d]`, the inverse of `tfm.split_heads`.";
  let arguments = (ins Tfm_FloatTensor:$input);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_TransposeOp : Tfm_Op<"transpose", [Pure]> {
  let summary = "permutes dimensions";
  let description = [{
    `result[i_perm[0], ..., i_perm[n-1]] = x[i_0, ..., i_(n-1)]`: result dim
    `k` is input dim `permutation[k]`. The identity permutation folds away,
    and a transpose of a transpose folds into one.

    ```mlir
    %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x8x?x64xf32>) -> tensor<?x8x64x?xf32>
    ```
  }];
  let arguments = (ins Tfm_FloatTensor:$input, DenseI64ArrayAttr:$permutation);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input $permutation attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Tfm_SoftmaxOp : Tfm_Op<"softmax", [Pure, SameOperandsAndResultType]> {
  let summary = "softmax along one dimension";
  let description = [{
    `result = exp(x - max(x)) / sum(exp(x - max(x)))` along `axis`, with
    `0 <= axis < rank` (no negative axes). A slice whose entries are all
    -inf produces zeros.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tfm_MakeMaskOp : Tfm_Op<"make_mask", [Pure]> {
  let summary = "builds a boolean attention mask (true = blocked)";
  let description = [{
    For `scores : [B, H, Tq, Tk]` produces `i1 [B, H, Tq, Tk]` that is true
    where key `j` is NOT visible to query `i`, with the visibility rule of
    `tfm.attention` for `kind` and optional `key_lengths`. It is meant for
    `tfm.masked_fill` (PyTorch's masked_fill convention).
  }];
  let arguments = (ins Tfm_FloatTensor:$scores, Optional<Tfm_IndexTensor>:$key_lengths,
                       Tfm_MaskKindAttr:$kind, OptionalAttr<I64Attr>:$window);
  let results = (outs Tfm_BoolTensor:$result);
  let assemblyFormat = [{
    $scores (`key_lengths` `(` $key_lengths^ `:` type($key_lengths) `)`)? $kind
    attr-dict `:` type($scores) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tfm_MaskedFillOp : Tfm_Op<"masked_fill", [Pure, AllTypesMatch<["input", "result"]>]> {
  let summary = "replaces entries where a mask is true";
  let description = [{
    `result = mask ? value : x`, elementwise; `mask` has the shape of `x`
    and `value` is not NaN (-inf or a large negative number for attention).
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_BoolTensor:$mask, F64Attr:$value);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $mask attr-dict `:` type($input) `,` type($mask)";
  let hasVerifier = 1;
}

def Tfm_AlibiBiasOp : Tfm_Op<"alibi_bias", [Pure]> {
  let summary = "materializes the ALiBi additive bias";
  let description = [{
    For `scores : [B, H, Tq, Tk]` and `slopes : [H]`:
    `result[b,h,i,j] = -slopes[h] * |i + (Tk - Tq) - j|`, to be added to the
    scores (the unfused form of `tfm.attention`'s `alibi` operand).
  }];
  let arguments = (ins Tfm_FloatTensor:$scores, Tfm_FloatTensor:$slopes);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$scores `,` $slopes attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_RepeatKvOp : Tfm_Op<"repeat_kv", [Pure]> {
  let summary = "repeats each K/V head for a group of query heads";
  let description = [{
    `[B, Hkv, T, D] -> [B, Hkv*repeats, T, D]`, `result[:, h] = x[:, h / repeats]`
    with `repeats > 0` (Hugging Face's `repeat_kv`). One repeat folds away;
    `-tfm-fuse-attention` folds the repeat into GQA grouping.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, I64Attr:$repeats);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

} // opDocGroup

//===----------------------------------------------------------------------===//
// Heads
//===----------------------------------------------------------------------===//

def Tfm_HeadsGroup : OpDocGroup {
  let summary = "Heads";
  let description = "What turns the last hidden states into the model's output.";
}

let opDocGroup = Tfm_HeadsGroup in {

def Tfm_LmHeadOp : Tfm_Op<"lm_head", [Pure]> {
  let summary = "language-model head: hidden states to vocabulary logits";
  let description = [{
    `logits[b, t, v] = sum_d x[b, t, d] * weight[v, d] (+ bias[v])` with
    `weight : [V, D]`. With `tied`, the weight is the token embedding table.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Tfm_FloatTensor:$weight,
                       Optional<Tfm_FloatTensor>:$bias, UnitAttr:$tied);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = "$input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

def Tfm_ClassifierHeadOp : Tfm_Op<"classifier_head", [Pure, AttrSizedOperandSegments]> {
  let summary = "sequence classification head";
  let description = [{
    Picks one position per sequence (`first`: position 0, BERT's [CLS];
    `last`: position `lengths[b] - 1`, or T - 1 without lengths), applies the
    optional pooler `act(pooler_weight . p + pooler_bias)` with `act` the
    `pooler_activation` (tanh: BERT's pooler, RoBERTa's head; relu:
    DistilBERT's pre-classifier), then
    `logits[b, c] = sum_d p[b, d] * weight[c, d] + bias[c]`. Result `[B, C]`.
  }];
  let arguments = (ins Tfm_FloatTensor:$input, Optional<Tfm_IndexTensor>:$lengths,
                       Optional<Tfm_FloatTensor>:$pooler_weight, Optional<Tfm_FloatTensor>:$pooler_bias,
                       Tfm_FloatTensor:$weight, Optional<Tfm_FloatTensor>:$bias,
                       Tfm_PoolingAttr:$pooling,
                       DefaultValuedAttr<Tfm_ActivationAttr, "::mlir::tfm::Activation::tanh">:$pooler_activation);
  let results = (outs Tfm_FloatTensor:$result);
  let assemblyFormat = [{
    $input (`lengths` `(` $lengths^ `)`)?
    (`pooler` `(` $pooler_weight^ `)`)? (`pooler_bias` `(` $pooler_bias^ `)`)?
    `classifier` `(` $weight (`,` $bias^)? `)`
    $pooling attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

} // opDocGroup

#endif // TFM_IR_TFMOPS_TD
