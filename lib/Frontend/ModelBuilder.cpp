//===- ModelBuilder.cpp - ModelConfig to the tfm module -------------------===//
//
// Builds `func.func @forward` of docs/architecture.md: embeddings, the layer
// stacks (pre- or post-norm, self-attention, cross-attention for
// encoder-decoder models, FFN), final norms and the head. Attention is one
// tfm.attention op, or with BuildOptions::noFuse the unfused chain that
// -tfm-fuse-attention raises. Every op carries a NameLoc such as
// "layers.3.attn" whose child is the model file's location.
//
//===----------------------------------------------------------------------===//

#include "tfm/Frontend/Frontend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Location.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace tfm {
namespace {

/// What a generation step threads through the layers: each sequence's
/// position offset and new-token count, and the KV cache
/// [B, L, 2, Hkv, C, Dh] as it is updated layer by layer.
struct StepState {
  Value offsets, lengths;
  Value cache;
  int64_t layer = 0;
  /// Encoder-decoder models: the cross-attention keys and values that
  /// @encode wrote ([B, L, 2, Hkv, S, Dh]) and each source's length.
  Value cross, sourceLengths;
  /// The function's cache argument, whose dims every slice of the chain
  /// uses.
  Value root;
};

class ModelBuilder {
public:
  ModelBuilder(MLIRContext &context, const ModelConfig &config,
               const BuildOptions &options)
      : context(context), config(config), options(options), b(&context),
        fileLoc(FileLineColLoc::get(&context, config.sourcePath, 1, 1)),
        f32(Float32Type::get(&context)) {}

  OwningOpRef<ModuleOp> build();

private:
  Location loc(const Twine &name) {
    return NameLoc::get(StringAttr::get(&context, name), fileLoc);
  }
  /// tensor<?x?x`dim`xf32>: [B, T, dim] activations (T is `tokens`).
  RankedTensorType seqType(int64_t dim) {
    return RankedTensorType::get({ShapedType::kDynamic, tokens, dim}, f32);
  }
  /// tensor<?x`heads`x?x`dim`xf32>: [B, H, T, Dh].
  RankedTensorType headsType(int64_t heads, int64_t dim) {
    return RankedTensorType::get({ShapedType::kDynamic, heads, tokens, dim},
                                 f32);
  }

  Value weight(const TensorRef &ref);
  Value optWeight(const std::optional<TensorRef> &ref) {
    return ref ? weight(*ref) : Value();
  }
  Value linear(Value x, const LinearRef &ref, int64_t outDim, Location l);
  Value norm(Value x, const NormRef &ref, Location l);
  Value add(Value x, Value y, Location l) {
    return AddOp::create(b, l, x.getType(), x, y);
  }

  Value embed(Value ids, const ModelParams &params, Value offsets = {});
  /// Image models: patches, the [CLS] token and learned positions.
  Value embedImage(Value pixels, const ModelParams &params);
  /// `@forward` of an image model: pixels [B, C, H, W] in.
  void buildImageForward(ModuleOp module);
  Value attention(Value xq, Value xkv, const LinearRef &q, const LinearRef &k,
                  const LinearRef &v, const LinearRef &o,
                  const std::optional<NormRef> &qNorm,
                  const std::optional<NormRef> &kNorm, MaskKind mask,
                  int64_t window, Value keyLengths, bool selfAttention,
                  const Twine &name, StepState *step = nullptr);
  /// Appends `kh` and `vh` to layer `step.layer` of the cache and returns
  /// that layer's keys and values, the cache's whole capacity.
  std::pair<Value, Value> appendToCache(Value kh, Value vh, StepState &step,
                                        Location l);
  /// Layer `layer`'s keys (half 0) or values (half 1) of a
  /// [B, L, 2, Hkv, C, Dh] cache: [B, Hkv, C, Dh], sized by the dims of
  /// `root`, the argument the cache's chain of appends starts at (dims of
  /// the chain would be proven equal pass after pass).
  Value cacheHalf(Value cache, Value root, int64_t layer, int64_t half,
                  Location l);
  /// The [B, L, 2, Hkv, ?, Dh] cache type of the decoder stack.
  RankedTensorType cacheType();
  Value attentionCore(Value qh, Value kh, Value vh, MaskKind mask,
                      int64_t window, Value keyLengths, Value slopes,
                      Value bias, Location l);
  /// The factor on attention scores.
  llvm::APFloat attentionScale() const {
    return llvm::APFloat(config.attentionScale.value_or(
        1.0 / std::sqrt(double(config.headDim))));
  }
  /// T5: the [B, H, T, keys] relative position bias of `stack`'s
  /// self-attention, computed once for all its layers.
  Value stackPositionBias(Value x, Stack stack, const StepState *step);
  /// The input of the LM head, scaled where the family does (T5).
  Value headInput(Value x);
  Value ffn(Value x, const LayerParams &p, const LayerConfig &layer,
            Location l);
  /// Runs the layers of `stack`; `memory`/`memoryLengths` are the encoder
  /// output for cross-attention.
  Value runStack(Value x, Stack stack, Value lengths, Value memory,
                 Value memoryLengths, StepState *step = nullptr);
  /// `@forward` and, with BuildOptions::generation, `@step`.
  void buildForward(ModuleOp module);
  /// `@step` (T dynamic) or `@decode` (T = 1).
  void buildStep(ModuleOp module, StringRef name, int64_t tokens);
  /// `@encode`: the encoder, then every decoder layer's cross-attention
  /// keys and values, written into the cross cache.
  void buildEncode(ModuleOp module);
  /// Starts a generation function: its values are its own.
  void beginFunction(int64_t tokens);
  Value head(Value x, Value lengths, const ModelParams &params);

  MLIRContext &context;
  const ModelConfig &config;
  const BuildOptions &options;
  OpBuilder b;
  Location fileLoc;
  Type f32;
  llvm::StringMap<Value> weights;
  Value slopes;
  /// The relative position bias of the stack being built (T5), or null.
  Value positionBias;
  /// The static token count of the function being built (the decode
  /// step's 1), or dynamic.
  int64_t tokens = ShapedType::kDynamic;
};

Value ModelBuilder::weight(const TensorRef &ref) {
  Value &stored = weights[ref.name];
  if (!stored) {
    auto type = RankedTensorType::get(ref.shape, f32);
    stored = WeightOp::create(b, loc(ref.name), type, ref.name);
  }
  if (!ref.isSlice())
    return stored;
  // A part of a fused tensor (GPT-2's c_attn): a static slice.
  int64_t rank = ref.shape.size();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes, strides(rank, b.getIndexAttr(1));
  for (int64_t dim : ref.shape)
    sizes.push_back(b.getIndexAttr(dim));
  offsets[ref.sliceDim] = b.getIndexAttr(ref.sliceOffset);
  sizes[ref.sliceDim] = b.getIndexAttr(ref.sliceSize);
  return tensor::ExtractSliceOp::create(b, loc(ref.name), stored, offsets,
                                        sizes, strides);
}

Value ModelBuilder::linear(Value x, const LinearRef &ref, int64_t outDim,
                           Location l) {
  Value w = weight(ref.weight);
  Value bias = ref.bias ? weight(*ref.bias) : Value();
  auto inType = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape(inType.getShape());
  shape.back() = outDim;
  return LinearOp::create(b, l, RankedTensorType::get(shape, f32), x, w, bias,
                          ref.layout);
}

Value ModelBuilder::norm(Value x, const NormRef &ref, Location l) {
  Value gamma = weight(ref.weight);
  llvm::APFloat eps(config.norm.eps);
  if (config.norm.kind == NormKind::RmsNorm)
    return RmsNormOp::create(b, l, x.getType(), x, gamma, eps,
                             llvm::APFloat(config.norm.gammaOffset));
  Value beta = ref.bias ? weight(*ref.bias) : Value();
  return LayerNormOp::create(b, l, x.getType(), x, gamma, beta, eps);
}

Value ModelBuilder::embed(Value ids, const ModelParams &params,
                          Value offsets) {
  int64_t d = config.dModel;
  Location l = loc("embed");
  Value table = weight(*params.tokens);
  Value x = EmbeddingOp::create(b, loc("embed.tokens"), seqType(d), ids, table);
  if (config.embedScale)
    x = ScaleOp::create(b, l, x.getType(), x,
                        llvm::APFloat(std::sqrt(double(d))));
  switch (config.positions) {
  case PositionKind::Sinusoidal:
    x = SinusoidalPositionOp::create(b, loc("embed.positions"), x.getType(), x,
                                     offsets);
    break;
  case PositionKind::Learned:
    // RoBERTa's first token reads row positionOffset (padding_idx + 1): the
    // caller passes it in `offsets` (the manifest's first_position).
    assert((offsets || !config.positionOffset) &&
           "a position table that starts past row 0 needs offsets");
    x = LearnedPositionOp::create(b, loc("embed.positions"), x.getType(), x,
                                  weight(*params.positions), offsets);
    break;
  case PositionKind::None:
  case PositionKind::Rope:  // applied to q and k in every self-attention
  case PositionKind::Alibi: // a bias inside every self-attention
  case PositionKind::RelativeBias: // T5's bucketed bias, likewise
    break;
  }
  if (params.tokenTypes) {
    // Every token has token type 0: look row 0 up for all [B, T] positions.
    Location tl = loc("embed.token_types");
    Value zero = arith::ConstantIntOp::create(b, tl, 0, 32);
    SmallVector<Value> dims;
    for (int64_t i = 0; i < 2; ++i)
      dims.push_back(tensor::DimOp::create(b, tl, ids, i));
    Value typeIds = tensor::SplatOp::create(
        b, tl, zero, RankedTensorType::get({ShapedType::kDynamic,
                                            ShapedType::kDynamic},
                                           b.getI32Type()),
        dims);
    Value types = EmbeddingOp::create(b, tl, seqType(d), typeIds,
                                      weight(*params.tokenTypes));
    x = add(x, types, tl);
  }
  if (params.embedNorm)
    x = norm(x, *params.embedNorm, loc("embed.norm"));
  return x;
}

Value ModelBuilder::embedImage(Value pixels, const ModelParams &params) {
  int64_t d = config.dModel, n = config.image->patches();
  auto dyn = ShapedType::kDynamic;
  Location l = loc("embed.patches");
  Value x = PatchEmbedOp::create(b, l, RankedTensorType::get({dyn, n, d}, f32),
                                 pixels, weight(params.patchEmbed->weight),
                                 weight(*params.patchEmbed->bias));
  // The [CLS] token and the position table are stored [1, 1, D] and
  // [1, N + 1, D]: their data viewed as [D] and [N + 1, D].
  Location cl = loc("embed.cls_token");
  Value token = tensor::CollapseShapeOp::create(
      b, cl, RankedTensorType::get({d}, f32), weight(*params.classToken),
      SmallVector<ReassociationIndices>{{0, 1, 2}});
  x = PrependTokenOp::create(b, cl, seqType(d), x, token);
  Location pl = loc("embed.positions");
  Value table = tensor::CollapseShapeOp::create(
      b, pl, RankedTensorType::get({n + 1, d}, f32), weight(*params.positions),
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
  return LearnedPositionOp::create(b, pl, x.getType(), x, table,
                                   /*offsets=*/Value());
}

void ModelBuilder::buildImageForward(ModuleOp module) {
  const ImageConfig &image = *config.image;
  auto dyn = ShapedType::kDynamic;
  auto pixelsType = RankedTensorType::get(
      {dyn, image.channels, image.height, image.width}, f32);
  // Every image has the same tokens: [CLS] and one per patch.
  tokens = image.patches() + 1;
  llvm::scope_exit restore([&] { tokens = ShapedType::kDynamic; });
  Type result =
      config.head == HeadKind::Classifier
          ? Type(RankedTensorType::get({dyn, config.numClasses}, f32))
          : Type(RankedTensorType::get({dyn, dyn, config.dModel}, f32));
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc("forward"), "forward",
                                   b.getFunctionType({pixelsType}, {result}));
  func->setAttr(mlir::tfm::abi::kEntryAttr, b.getUnitAttr());
  Block *body =
      b.createBlock(&func.getBody(), {}, {pixelsType}, {loc("pixels")});
  b.setInsertionPointToStart(body);
  ModelParams params = getModelParams(config);
  Value x = embedImage(body->getArgument(0), params);
  x = runStack(x, Stack::Encoder, /*lengths=*/Value(), Value(), Value());
  if (params.encoderFinalNorm)
    x = norm(x, *params.encoderFinalNorm, loc("final_norm"));
  Value out = head(x, /*lengths=*/Value(), params);
  // Hidden states leave with the entry ABI's dynamic sequence dimension.
  if (out.getType() != result)
    out = tensor::CastOp::create(b, loc("forward"), result, out);
  func::ReturnOp::create(b, loc("forward"), out);
}

Value ModelBuilder::attentionCore(Value qh, Value kh, Value vh, MaskKind mask,
                                  int64_t window, Value keyLengths, Value alibi,
                                  Value bias, Location l) {
  int64_t hq = config.numHeads, hkv = config.numKvHeads, dh = config.headDim;
  llvm::APFloat scale = attentionScale();
  IntegerAttr windowAttr =
      mask == MaskKind::sliding_window ? b.getI64IntegerAttr(window) : nullptr;
  RankedTensorType outType = headsType(hq, dh);
  if (!options.noFuse)
    return AttentionOp::create(b, l, outType, qh, kh, vh, keyLengths,
                               /*offsets=*/Value(), alibi, bias, scale, mask,
                               windowAttr);

  // Unfused: repeat_kv, transpose, matmul, scale, (alibi), mask, softmax,
  // matmul.
  if (hq != hkv) {
    kh = RepeatKvOp::create(b, l, outType, kh, uint64_t(hq / hkv));
    vh = RepeatKvOp::create(b, l, outType, vh, uint64_t(hq / hkv));
  }
  auto dyn = ShapedType::kDynamic;
  auto ktType = RankedTensorType::get({dyn, hq, dh, dyn}, f32);
  Value kt = TransposeOp::create(b, l, ktType, kh, ArrayRef<int64_t>{0, 1, 3, 2});
  auto scoresType = RankedTensorType::get({dyn, hq, dyn, dyn}, f32);
  Value s = MatmulOp::create(b, l, scoresType, qh, kt);
  s = ScaleOp::create(b, l, scoresType, s, scale);
  if (bias)
    s = add(s, bias, l);
  if (alibi) {
    Value bias = AlibiBiasOp::create(b, l, scoresType, s, alibi);
    s = add(s, bias, l);
  }
  auto maskType = RankedTensorType::get({dyn, hq, dyn, dyn}, b.getI1Type());
  Value m = MakeMaskOp::create(b, l, maskType, s, keyLengths, mask, windowAttr);
  s = MaskedFillOp::create(
      b, l, scoresType, s, m,
      llvm::APFloat::getInf(llvm::APFloat::IEEEdouble(), /*Negative=*/true));
  Value p = SoftmaxOp::create(b, l, scoresType, s, uint64_t(3));
  return MatmulOp::create(b, l, outType, p, vh);
}

Value ModelBuilder::attention(
    Value xq, Value xkv, const LinearRef &q, const LinearRef &k,
    const LinearRef &v, const LinearRef &o, const std::optional<NormRef> &qNorm,
    const std::optional<NormRef> &kNorm, MaskKind mask, int64_t window,
    Value keyLengths, bool selfAttention, const Twine &name, StepState *step) {
  int64_t hq = config.numHeads, hkv = config.numKvHeads, dh = config.headDim;
  std::string base = name.str();
  Location l = loc(base);
  // A generation step's cross-attention reads the keys and values @encode
  // cached; everything else projects its own.
  bool cachedCross = !selfAttention && step && step->cross;
  Value qp = linear(xq, q, hq * dh, loc(base + ".q"));
  Value kp, vp, kh, vh;
  if (!cachedCross) {
    kp = linear(xkv, k, hkv * dh, loc(base + ".k"));
    vp = linear(xkv, v, hkv * dh, loc(base + ".v"));
  }
  Value qh = SplitHeadsOp::create(b, l, headsType(hq, dh), qp, uint64_t(hq));
  if (!cachedCross) {
    kh = SplitHeadsOp::create(b, l, headsType(hkv, dh), kp, uint64_t(hkv));
    vh = SplitHeadsOp::create(b, l, headsType(hkv, dh), vp, uint64_t(hkv));
  }
  if (selfAttention && qNorm) {
    // Qwen3: each head of q and k is RMS-normalized before RoPE.
    qh = norm(qh, *qNorm, loc(base + ".q_norm"));
    kh = norm(kh, *kNorm, loc(base + ".k_norm"));
  }
  Value alibi;
  if (selfAttention && config.positions == PositionKind::Rope) {
    Location rl = loc(base + ".rope");
    IntegerAttr rotary =
        config.rotaryDim && config.rotaryDim != dh
            ? b.getI64IntegerAttr(config.rotaryDim)
            : nullptr;
    llvm::APFloat theta(config.ropeTheta), factor(config.ropeScaling);
    DenseF64ArrayAttr invFreq, longInvFreq;
    IntegerAttr longAfter;
    llvm::APFloat attentionFactor(1.0);
    if (const std::optional<RopeFrequencies> &f = config.ropeFrequencies) {
      invFreq = b.getDenseF64ArrayAttr(f->invFreq);
      if (!f->longInvFreq.empty()) {
        longInvFreq = b.getDenseF64ArrayAttr(f->longInvFreq);
        longAfter = b.getI64IntegerAttr(f->longAfter);
      }
      attentionFactor = llvm::APFloat(f->attentionFactor);
    }
    Value offsets = step ? step->offsets : Value();
    // LongRoPE picks its factors from where each row's new tokens end.
    Value rowLengths = step && longInvFreq ? step->lengths : Value();
    for (Value *heads : {&qh, &kh})
      *heads =
          RopeOp::create(b, rl, heads->getType(), *heads, offsets, rowLengths,
                         theta, factor, config.ropeStyle, rotary, invFreq,
                         longInvFreq, longAfter, attentionFactor);
  }
  if (selfAttention && config.positions == PositionKind::Alibi) {
    if (!slopes)
      slopes = AlibiSlopesOp::create(
          b, loc("alibi"), RankedTensorType::get({hq}, f32));
    alibi = slopes;
  }
  Value attn;
  Value bias = selfAttention ? positionBias : Value();
  if (cachedCross) {
    // Every source token is visible (mask none) up to the source's length.
    llvm::APFloat scale = attentionScale();
    attn = AttentionOp::create(
        b, l, headsType(hq, dh), qh,
        cacheHalf(step->cross, step->cross, step->layer, 0, l),
        cacheHalf(step->cross, step->cross, step->layer, 1, l),
        step->sourceLengths,
        /*offsets=*/Value(), /*alibi=*/Value(), /*bias=*/Value(), scale,
        MaskKind::none, /*window=*/nullptr);
  } else if (step) {
    // The new tokens attend to the cache: query i of sequence b sits at
    // position offsets[b] + i, and the causal (or window) mask alone bounds
    // what it sees to the tokens before it. Keys beyond a sequence's
    // length are visible only to padding rows, whose results nobody reads.
    auto [keys, values] = appendToCache(kh, vh, *step, l);
    IntegerAttr windowAttr = mask == MaskKind::sliding_window
                                 ? b.getI64IntegerAttr(window)
                                 : nullptr;
    attn = AttentionOp::create(b, l, headsType(hq, dh), qh, keys, values,
                               /*key_lengths=*/Value(), step->offsets, alibi,
                               bias, attentionScale(), mask, windowAttr);
  } else {
    attn = attentionCore(qh, kh, vh, mask, window, keyLengths, alibi, bias, l);
  }
  Value merged = MergeHeadsOp::create(b, l, seqType(hq * dh), attn);
  return linear(merged, o, config.dModel, loc(base + ".o"));
}

std::pair<Value, Value> ModelBuilder::appendToCache(Value kh, Value vh,
                                                    StepState &step,
                                                    Location l) {
  // Both appends update the whole cache value, and the attention reads
  // this layer's halves of the result: every read of an older cache value
  // comes before the in-place write that replaces it, so bufferization
  // updates the caller's buffer without a copy.
  Value cache = step.cache;
  Value updates[] = {kh, vh};
  for (auto [half, update] : llvm::enumerate(updates))
    cache = CacheAppendOp::create(
        b, l, cache.getType(), update, cache, step.offsets, step.lengths,
        ArrayRef<int64_t>{step.layer, static_cast<int64_t>(half)});
  step.cache = cache;
  return {cacheHalf(cache, step.root, step.layer, 0, l),
          cacheHalf(cache, step.root, step.layer, 1, l)};
}

Value ModelBuilder::cacheHalf(Value cache, Value root, int64_t layer,
                              int64_t half, Location l) {
  int64_t hkv = config.numKvHeads, dh = config.headDim;
  auto dyn = ShapedType::kDynamic;
  SmallVector<OpFoldResult> offsets{b.getIndexAttr(0), b.getIndexAttr(layer),
                                    b.getIndexAttr(half), b.getIndexAttr(0),
                                    b.getIndexAttr(0), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes{
      tensor::getMixedSize(b, l, root, 0), b.getIndexAttr(1),
      b.getIndexAttr(1), b.getIndexAttr(hkv),
      tensor::getMixedSize(b, l, root, 4), b.getIndexAttr(dh)};
  SmallVector<OpFoldResult> strides(6, b.getIndexAttr(1));
  return tensor::ExtractSliceOp::create(
      b, l, RankedTensorType::get({dyn, hkv, dyn, dh}, f32), cache, offsets,
      sizes, strides);
}

RankedTensorType ModelBuilder::cacheType() {
  auto dyn = ShapedType::kDynamic;
  int64_t layers = static_cast<int64_t>(config.decoderLayers.size());
  return RankedTensorType::get(
      {dyn, layers, 2, config.numKvHeads, dyn, config.headDim}, f32);
}

Value ModelBuilder::ffn(Value x, const LayerParams &p, const LayerConfig &layer,
                        Location l) {
  Value up = weight(p.up.weight);
  Value upBias = p.up.bias ? weight(*p.up.bias) : Value();
  Value gate = p.gate ? weight(p.gate->weight) : Value();
  Value gateBias = p.gate && p.gate->bias ? weight(*p.gate->bias) : Value();
  Value down = weight(p.down.weight);
  Value downBias = p.down.bias ? weight(*p.down.bias) : Value();
  return FfnOp::create(b, l, x.getType(), x, up, upBias, gate, gateBias, down,
                       downBias, layer.activation, p.up.layout);
}

Value ModelBuilder::runStack(Value x, Stack stack, Value lengths, Value memory,
                             Value memoryLengths, StepState *step) {
  const std::vector<LayerConfig> &layers =
      stack == Stack::Encoder ? config.encoderLayers : config.decoderLayers;
  positionBias = stackPositionBias(x, stack, step);
  llvm::scope_exit clearBias([&] { positionBias = Value(); });
  for (size_t i = 0; i < layers.size(); ++i) {
    const LayerConfig &layer = layers[i];
    LayerParams p = getLayerParams(config, stack, i);
    const std::string &base = p.path;
    if (step)
      step->layer = static_cast<int64_t>(i);
    auto selfAttn = [&](Value h) {
      return attention(h, h, p.q, p.k, p.v, p.o, p.qNorm, p.kNorm, layer.mask,
                       layer.window, lengths, /*selfAttention=*/true,
                       base + ".attn", step);
    };
    auto crossAttn = [&](Value h) {
      return attention(h, memory, *p.crossQ, *p.crossK, *p.crossV, *p.crossO,
                       std::nullopt, std::nullopt, MaskKind::none, 0,
                       memoryLengths,
                       /*selfAttention=*/false, base + ".cross_attn", step);
    };
    Location attnNormLoc = loc(base + ".attn_norm");
    Location crossNormLoc = loc(base + ".cross_attn_norm");
    Location ffnNormLoc = loc(base + ".ffn_norm");
    Location ffnLoc = loc(base + ".ffn");
    Location residual = loc(base + ".residual");
    if (config.preNorm) {
      x = add(x, selfAttn(norm(x, p.attnNorm, attnNormLoc)), residual);
      if (p.crossQ)
        x = add(x, crossAttn(norm(x, *p.crossNorm, crossNormLoc)), residual);
      x = add(x, ffn(norm(x, p.ffnNorm, ffnNormLoc), p, layer, ffnLoc),
              residual);
    } else {
      x = norm(add(x, selfAttn(x), residual), p.attnNorm, attnNormLoc);
      if (p.crossQ)
        x = norm(add(x, crossAttn(x), residual), *p.crossNorm, crossNormLoc);
      x = norm(add(x, ffn(x, p, layer, ffnLoc), residual), p.ffnNorm,
               ffnNormLoc);
    }
  }
  return x;
}

Value ModelBuilder::stackPositionBias(Value x, Stack stack,
                                      const StepState *step) {
  if (config.positions != PositionKind::RelativeBias)
    return Value();
  ModelParams params = getModelParams(config);
  const std::optional<TensorRef> &table = stack == Stack::Encoder
                                              ? params.encoderPositionBias
                                              : params.decoderPositionBias;
  Location l = loc(stack == Stack::Encoder ? "encoder.position_bias"
                                           : "decoder.position_bias");
  // The encoder sees both ways; the decoder's later keys are masked and
  // share one bucket.
  bool bidirectional = stack == Stack::Encoder;
  Value batch = tensor::DimOp::create(b, l, x, 0);
  Value queries = tensor::DimOp::create(b, l, x, 1);
  // A generation step's keys are the cache's slots.
  Value keys =
      step ? tensor::DimOp::create(b, l, step->root, 4).getResult() : queries;
  auto dyn = ShapedType::kDynamic;
  auto type = RankedTensorType::get({dyn, config.numHeads, tokens, dyn}, f32);
  return RelativePositionBiasOp::create(
      b, l, type, weight(*table), batch, queries, keys,
      step ? step->offsets : Value(), bidirectional,
      config.relativeMaxDistance);
}

Value ModelBuilder::headInput(Value x) {
  if (config.headInputScale == 1.0)
    return x;
  return ScaleOp::create(b, loc("lm_head"), x.getType(), x,
                         llvm::APFloat(config.headInputScale));
}

Value ModelBuilder::head(Value x, Value lengths, const ModelParams &params) {
  int64_t v = config.vocabSize, d = config.dModel;
  auto logitsType = RankedTensorType::get(
      {ShapedType::kDynamic, ShapedType::kDynamic, v}, f32);
  switch (config.head) {
  case HeadKind::None:
    return x;
  case HeadKind::Lm: {
    Location l = loc("lm_head");
    bool tied = !params.lmHead;
    Value w = tied ? weight(*params.tokens) : weight(params.lmHead->weight);
    x = headInput(x);
    return LmHeadOp::create(b, l, logitsType, x, w,
                            optWeight(params.lmHeadBias), tied);
  }
  case HeadKind::MaskedLm: {
    Location l = loc("mlm_head");
    Value h = linear(x, *params.mlmTransform, d, l);
    h = ActivationOp::create(b, l, h.getType(), h, config.mlmActivation);
    h = norm(h, *params.mlmNorm, l);
    // The decoder is the token embedding, unless the checkpoint has its own
    // (DistilBERT's untied vocab_projector).
    bool tied = !params.lmHead;
    Value w = tied ? weight(*params.tokens) : weight(params.lmHead->weight);
    return LmHeadOp::create(b, l, logitsType, h, w,
                            optWeight(params.lmHeadBias), tied);
  }
  case HeadKind::Classifier: {
    Location l = loc("classifier");
    auto type =
        RankedTensorType::get({ShapedType::kDynamic, config.numClasses}, f32);
    Value poolerW = params.pooler ? weight(params.pooler->weight) : Value();
    Value poolerB =
        params.pooler && params.pooler->bias ? weight(*params.pooler->bias)
                                             : Value();
    Value w = weight(params.classifier->weight);
    Value bias = optWeight(params.classifier->bias);
    return ClassifierHeadOp::create(b, l, type, x, lengths, poolerW, poolerB, w,
                                    bias, config.pooling,
                                    config.poolerActivation);
  }
  }
  llvm_unreachable("unknown head");
}

OwningOpRef<ModuleOp> ModelBuilder::build() {
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  (*module)->setAttr(kModelNameAttr, b.getStringAttr(config.name));
  (*module)->setAttr(kArchitectureAttr,
                     b.getStringAttr(architectureName(config.arch)));
  (*module)->setAttr(kVocabSizeAttr, b.getI64IntegerAttr(config.vocabSize));
  (*module)->setAttr(kMaxSeqLenAttr, b.getI64IntegerAttr(config.maxSeqLen));
  (*module)->setAttr(kOutputAttr, b.getStringAttr(config.outputKind()));
  if (config.positionOffset)
    (*module)->setAttr(kFirstPositionAttr,
                       b.getI64IntegerAttr(config.positionOffset));
  if (options.generation && config.ropeFrequencies &&
      config.ropeFrequencies->recomputePastLongAfter)
    (*module)->setAttr(kRecomputeAfterAttr,
                       b.getI64IntegerAttr(config.ropeFrequencies->longAfter));
  if (const std::optional<ImageConfig> &image = config.image) {
    (*module)->setAttr(
        kImageAttr,
        b.getDenseI64ArrayAttr({image->channels, image->height, image->width}));
    buildImageForward(*module);
    return module;
  }
  buildForward(*module);
  if (options.generation) {
    if (config.arch == Architecture::EncoderDecoder)
      buildEncode(*module);
    buildStep(*module, mlir::tfm::abi::kStepFunction, ShapedType::kDynamic);
    buildStep(*module, mlir::tfm::abi::kDecodeFunction, 1);
  }
  return module;
}

void ModelBuilder::buildForward(ModuleOp module) {
  auto dyn = ShapedType::kDynamic;
  auto idsType = RankedTensorType::get({dyn, dyn}, b.getI32Type());
  auto lengthsType = RankedTensorType::get({dyn}, b.getI32Type());
  bool encDec = config.arch == Architecture::EncoderDecoder;
  SmallVector<Type> inputs = {idsType, lengthsType};
  SmallVector<Location> argLocs = {loc(encDec ? "src" : "ids"),
                                   loc(encDec ? "src_lengths" : "lengths")};
  if (encDec) {
    inputs.append({idsType, lengthsType});
    argLocs.append({loc("tgt"), loc("tgt_lengths")});
  } else {
    // The position of each row's first token (left padding shifted out,
    // explicit position ids, RoBERTa's padding_idx + 1).
    inputs.push_back(lengthsType);
    argLocs.push_back(loc("positions"));
  }
  Type result;
  switch (config.head) {
  case HeadKind::None:
    result = seqType(config.dModel);
    break;
  case HeadKind::Lm:
  case HeadKind::MaskedLm:
    result = seqType(config.vocabSize);
    break;
  case HeadKind::Classifier:
    result = RankedTensorType::get({dyn, config.numClasses}, f32);
    break;
  }

  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, loc("forward"), "forward",
                                   b.getFunctionType(inputs, {result}));
  func->setAttr(mlir::tfm::abi::kEntryAttr, b.getUnitAttr());
  Block *body = b.createBlock(&func.getBody(), {}, inputs, argLocs);
  b.setInsertionPointToStart(body);

  ModelParams params = getModelParams(config);
  Value out;
  if (encDec) {
    Value src = body->getArgument(0), srcLengths = body->getArgument(1);
    Value tgt = body->getArgument(2), tgtLengths = body->getArgument(3);
    Value memory = runStack(embed(src, params), Stack::Encoder, srcLengths,
                            Value(), Value());
    if (params.encoderFinalNorm)
      memory = norm(memory, *params.encoderFinalNorm, loc("encoder.final_norm"));
    Value x = runStack(embed(tgt, params), Stack::Decoder, tgtLengths, memory,
                       srcLengths);
    if (params.decoderFinalNorm)
      x = norm(x, *params.decoderFinalNorm, loc("decoder.final_norm"));
    out = head(x, tgtLengths, params);
  } else {
    Value ids = body->getArgument(0), lengths = body->getArgument(1);
    Value positions = body->getArgument(2);
    Stack stack = config.arch == Architecture::Encoder ? Stack::Encoder
                                                       : Stack::Decoder;
    Value x = runStack(embed(ids, params, positions), stack, lengths, Value(),
                       Value());
    const std::optional<NormRef> &finalNorm = stack == Stack::Encoder
                                                  ? params.encoderFinalNorm
                                                  : params.decoderFinalNorm;
    if (finalNorm)
      x = norm(x, *finalNorm, loc("final_norm"));
    out = head(x, lengths, params);
  }
  func::ReturnOp::create(b, loc("forward"), out);
}

void ModelBuilder::beginFunction(int64_t tokens) {
  // Values are per function: the weights and slopes are read again.
  weights.clear();
  slopes = Value();
  this->tokens = tokens;
}

void ModelBuilder::buildStep(ModuleOp module, StringRef name,
                             int64_t tokens) {
  // The driver only asks for generation where it applies (checkGeneration).
  assert(config.arch != Architecture::Encoder && config.head == HeadKind::Lm &&
         "generation step of a model with a decoder and an LM head");
  bool encDec = config.arch == Architecture::EncoderDecoder;
  auto dyn = ShapedType::kDynamic;
  Type i32 = b.getI32Type();
  auto idsType = RankedTensorType::get({dyn, tokens}, i32);
  auto perSeqType = RankedTensorType::get({dyn}, i32);
  RankedTensorType cache = cacheType();
  auto logitsType = RankedTensorType::get({dyn, config.vocabSize}, f32);
  SmallVector<Type> inputs{idsType, perSeqType, perSeqType, cache};
  SmallVector<Location> argLocs{loc("ids"), loc("offsets"), loc("lengths"),
                                loc("cache")};
  if (encDec) {
    // The cross cache @encode wrote, read only, and the source lengths.
    inputs.append({cache, perSeqType});
    argLocs.append({loc("cross_cache"), loc("source_lengths")});
  }
  Location fl = loc(name);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(
      b, fl, name, b.getFunctionType(inputs, {logitsType, cache}));
  func->setAttr(mlir::tfm::abi::kEntryAttr, b.getUnitAttr());
  func.setArgAttr(3, mlir::tfm::abi::kInOutAttr, b.getI64IntegerAttr(1));
  Block *body = b.createBlock(&func.getBody(), {}, inputs, argLocs);
  b.setInsertionPointToStart(body);

  beginFunction(tokens);
  llvm::scope_exit restore([&] { this->tokens = ShapedType::kDynamic; });
  ModelParams params = getModelParams(config);
  StepState step;
  step.offsets = body->getArgument(1);
  step.lengths = body->getArgument(2);
  step.cache = step.root = body->getArgument(3);
  if (encDec) {
    step.cross = body->getArgument(4);
    step.sourceLengths = body->getArgument(5);
  }
  Value ids = body->getArgument(0);
  Value x = runStack(embed(ids, params, step.offsets), Stack::Decoder,
                     step.lengths, Value(), Value(), &step);
  if (params.decoderFinalNorm)
    x = norm(x, *params.decoderFinalNorm,
             loc(encDec ? "decoder.final_norm" : "final_norm"));
  // Only the last new token of each sequence needs logits.
  x = headInput(x);
  Location l = loc("lm_head");
  Value w =
      params.lmHead ? weight(params.lmHead->weight) : weight(*params.tokens);
  Value logits = ClassifierHeadOp::create(
      b, l, logitsType, x, step.lengths, /*pooler_weight=*/Value(),
      /*pooler_bias=*/Value(), w, optWeight(params.lmHeadBias), Pooling::last);
  func::ReturnOp::create(b, fl, ValueRange{logits, step.cache});
}

void ModelBuilder::buildEncode(ModuleOp module) {
  auto dyn = ShapedType::kDynamic;
  Type i32 = b.getI32Type();
  auto idsType = RankedTensorType::get({dyn, dyn}, i32);
  auto perSeqType = RankedTensorType::get({dyn}, i32);
  RankedTensorType cache = cacheType();
  StringRef name = mlir::tfm::abi::kEncodeFunction;
  Location fl = loc(name);
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(
      b, fl, name, b.getFunctionType({idsType, perSeqType, cache}, {cache}));
  func->setAttr(mlir::tfm::abi::kEntryAttr, b.getUnitAttr());
  func.setArgAttr(2, mlir::tfm::abi::kInOutAttr, b.getI64IntegerAttr(0));
  Block *body =
      b.createBlock(&func.getBody(), {}, {idsType, perSeqType, cache},
                    {loc("src"), loc("src_lengths"), loc("cross_cache")});
  b.setInsertionPointToStart(body);

  beginFunction(ShapedType::kDynamic);
  ModelParams params = getModelParams(config);
  Value src = body->getArgument(0), srcLengths = body->getArgument(1);
  Value cross = body->getArgument(2);
  Value memory = runStack(embed(src, params), Stack::Encoder, srcLengths,
                          Value(), Value());
  if (params.encoderFinalNorm)
    memory = norm(memory, *params.encoderFinalNorm, loc("encoder.final_norm"));
  // Every source starts at position 0 of its cross cache.
  Location zl = loc("cross_cache");
  Value zero = arith::ConstantIntOp::create(b, zl, 0, 32);
  Value batch = tensor::DimOp::create(b, zl, src, 0);
  Value starts = tensor::SplatOp::create(b, zl, zero, perSeqType,
                                         ValueRange{batch});
  int64_t hkv = config.numKvHeads, dh = config.headDim;
  for (size_t i = 0; i < config.decoderLayers.size(); ++i) {
    LayerParams p = getLayerParams(config, Stack::Decoder, i);
    std::string base = p.path + ".cross_attn";
    Location l = loc(base);
    const LinearRef *refs[] = {&*p.crossK, &*p.crossV};
    for (auto [half, ref] : llvm::enumerate(refs)) {
      Value proj = linear(memory, *ref, hkv * dh,
                          loc(base + (half ? ".v" : ".k")));
      Value heads = SplitHeadsOp::create(b, l, headsType(hkv, dh), proj,
                                         uint64_t(hkv));
      cross = CacheAppendOp::create(
          b, l, cache, heads, cross, starts, srcLengths,
          ArrayRef<int64_t>{static_cast<int64_t>(i),
                            static_cast<int64_t>(half)});
    }
  }
  func::ReturnOp::create(b, fl, ValueRange{cross});
}

} // namespace

llvm::Error checkGeneration(const ModelConfig &config) {
  auto fail = [](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  if (config.arch == Architecture::Encoder)
    return fail("the generation step needs a decoder; this model is an "
                "encoder");
  if (config.head != HeadKind::Lm)
    return fail(llvm::Twine("the generation step needs an LM head; this "
                            "model outputs ") +
                config.outputKind());
  // The decoder's layers (an encoder-decoder's encoder may see both ways).
  for (auto [i, layer] : llvm::enumerate(config.decoderLayers))
    if (layer.mask == MaskKind::none)
      return fail(llvm::Twine("layer ") + llvm::Twine(i) +
                  " is not causal: a cached token cannot attend to later "
                  "ones");
  return llvm::Error::success();
}

OwningOpRef<ModuleOp> buildModule(MLIRContext &context,
                                  const ModelConfig &config,
                                  const BuildOptions &options) {
  context.loadDialect<TfmDialect, func::FuncDialect, tensor::TensorDialect,
                      arith::ArithDialect>();
  ModelBuilder builder(context, config, options);
  return builder.build();
}

} // namespace tfm
