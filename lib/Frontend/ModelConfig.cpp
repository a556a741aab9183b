//===- ModelConfig.cpp - weight schemes and cross-field checks ------------===//
//
// The tensor names and stored shapes of every parameter, per weight scheme
// (tfm spec, GPT-2, BERT, LLaMA-style), and the checks every ModelConfig
// passes whatever its source.
//
//===----------------------------------------------------------------------===//

#include "tfm/Frontend/ModelConfig.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;
using mlir::tfm::Activation;
using mlir::tfm::MaskKind;
using mlir::tfm::WeightLayout;

namespace tfm {

StringRef ModelConfig::outputKind() const {
  switch (head) {
  case HeadKind::None:
    return outputKindName(OutputKind::Hidden);
  case HeadKind::Classifier:
    return outputKindName(OutputKind::Classes);
  case HeadKind::Lm:
  case HeadKind::MaskedLm:
    return outputKindName(OutputKind::Logits);
  }
  llvm_unreachable("unknown head");
}

namespace {

TensorRef tensor(const Twine &name, ArrayRef<int64_t> shape) {
  TensorRef ref;
  ref.name = name.str();
  ref.shape.assign(shape.begin(), shape.end());
  return ref;
}

/// A PyTorch nn.Linear: weight [out, in], bias [out].
LinearRef linear(const Twine &name, int64_t in, int64_t out, bool bias) {
  LinearRef ref;
  ref.weight = tensor(name + ".weight", {out, in});
  if (bias)
    ref.bias = tensor(name + ".bias", {out});
  return ref;
}

/// A norm over `size` features (d_model, or head_dim for per-head norms).
NormRef norm(const ModelConfig &config, const Twine &name, int64_t size) {
  NormRef ref;
  ref.weight = tensor(name + ".weight", {size});
  if (config.norm.kind == NormKind::LayerNorm && config.norm.bias)
    ref.bias = tensor(name + ".bias", {size});
  return ref;
}

NormRef norm(const ModelConfig &config, const Twine &name) {
  return norm(config, name, config.dModel);
}

const LayerConfig &layerConfig(const ModelConfig &config, Stack stack,
                               int64_t index) {
  return stack == Stack::Encoder ? config.encoderLayers[index]
                                 : config.decoderLayers[index];
}

LayerParams specLayer(const ModelConfig &config, Stack stack, int64_t index) {
  const LayerConfig &layer = layerConfig(config, stack, index);
  std::string base;
  if (config.arch == Architecture::EncoderDecoder)
    base = stack == Stack::Encoder ? "encoder." : "decoder.";
  base += "layers." + std::to_string(index);
  int64_t d = config.dModel, qDim = config.numHeads * config.headDim,
          kvDim = config.numKvHeads * config.headDim, f = layer.ffnHidden;
  LayerParams p;
  p.path = base;
  p.attnNorm = norm(config, base + ".attn_norm");
  p.q = linear(base + ".attn.q", d, qDim, config.qkvBias);
  p.k = linear(base + ".attn.k", d, kvDim, config.qkvBias);
  p.v = linear(base + ".attn.v", d, kvDim, config.qkvBias);
  p.o = linear(base + ".attn.o", qDim, d, config.outBias);
  if (config.arch == Architecture::EncoderDecoder && stack == Stack::Decoder) {
    p.crossNorm = norm(config, base + ".cross_attn_norm");
    p.crossQ = linear(base + ".cross_attn.q", d, qDim, config.qkvBias);
    p.crossK = linear(base + ".cross_attn.k", d, kvDim, config.qkvBias);
    p.crossV = linear(base + ".cross_attn.v", d, kvDim, config.qkvBias);
    p.crossO = linear(base + ".cross_attn.o", qDim, d, config.outBias);
  }
  p.ffnNorm = norm(config, base + ".ffn_norm");
  p.up = linear(base + ".ffn.up", d, f, layer.ffnBias);
  if (mlir::tfm::isGated(layer.activation))
    p.gate = linear(base + ".ffn.gate", d, f, layer.ffnBias);
  p.down = linear(base + ".ffn.down", f, d, layer.ffnBias);
  return p;
}

/// GPT-2: Conv1D weights stored [in, out]; q, k, v fused in c_attn.
LayerParams gpt2Layer(const ModelConfig &config, int64_t index) {
  const LayerConfig &layer = config.decoderLayers[index];
  std::string base = config.prefix + "h." + std::to_string(index);
  int64_t d = config.dModel, f = layer.ffnHidden;
  auto conv1d = [&](const Twine &name, int64_t in, int64_t out) {
    LinearRef ref;
    ref.weight = tensor(name + ".weight", {in, out});
    ref.bias = tensor(name + ".bias", {out});
    ref.layout = WeightLayout::in_out;
    return ref;
  };
  LayerParams p;
  p.path = "h." + std::to_string(index);
  p.attnNorm = norm(config, base + ".ln_1");
  LinearRef fused = conv1d(base + ".attn.c_attn", d, 3 * d);
  LinearRef *parts[] = {&p.q, &p.k, &p.v};
  for (int i = 0; i < 3; ++i) {
    *parts[i] = fused;
    parts[i]->weight.sliceDim = 1;
    parts[i]->weight.sliceOffset = i * d;
    parts[i]->weight.sliceSize = d;
    parts[i]->bias->sliceDim = 0;
    parts[i]->bias->sliceOffset = i * d;
    parts[i]->bias->sliceSize = d;
  }
  p.o = conv1d(base + ".attn.c_proj", d, d);
  p.ffnNorm = norm(config, base + ".ln_2");
  p.up = conv1d(base + ".mlp.c_fc", d, f);
  p.down = conv1d(base + ".mlp.c_proj", f, d);
  return p;
}

/// The tensor names (under layer `i`'s path) of a BERT-like encoder layer:
/// biased q, k, v, o and FFN projections and two LayerNorms.
struct EncoderLayerNames {
  StringRef layers; ///< "encoder.layer", "transformer.layer"
  StringRef q, k, v, o, attnNorm, up, down, ffnNorm;
  bool qkvBias = true;
};

LayerParams encoderLayer(const ModelConfig &config, int64_t index,
                         const EncoderLayerNames &n) {
  const LayerConfig &layer = config.encoderLayers[index];
  std::string path = (n.layers + "." + Twine(index)).str();
  std::string base = config.prefix + path + ".";
  int64_t d = config.dModel, inner = config.numHeads * config.headDim,
          f = layer.ffnHidden;
  LayerParams p;
  p.path = path;
  p.q = linear(base + n.q, d, inner, n.qkvBias);
  p.k = linear(base + n.k, d, inner, n.qkvBias);
  p.v = linear(base + n.v, d, inner, n.qkvBias);
  p.o = linear(base + n.o, inner, d, true);
  p.attnNorm = norm(config, base + n.attnNorm);
  p.up = linear(base + n.up, d, f, true);
  p.down = linear(base + n.down, f, d, true);
  p.ffnNorm = norm(config, base + n.ffnNorm);
  return p;
}

/// BERT and RoBERTa (post-norm: attnNorm follows the attention).
LayerParams bertLayer(const ModelConfig &config, int64_t index) {
  return encoderLayer(config, index,
                      {"encoder.layer", "attention.self.query",
                       "attention.self.key", "attention.self.value",
                       "attention.output.dense", "attention.output.LayerNorm",
                       "intermediate.dense", "output.dense",
                       "output.LayerNorm"});
}

LayerParams llamaLayer(const ModelConfig &config, int64_t index) {
  const LayerConfig &layer = config.decoderLayers[index];
  std::string base = config.prefix + "layers." + std::to_string(index);
  int64_t d = config.dModel, qDim = config.numHeads * config.headDim,
          kvDim = config.numKvHeads * config.headDim, f = layer.ffnHidden;
  LayerParams p;
  p.path = "layers." + std::to_string(index);
  p.attnNorm = norm(config, base + ".input_layernorm");
  p.q = linear(base + ".self_attn.q_proj", d, qDim, config.qkvBias);
  p.k = linear(base + ".self_attn.k_proj", d, kvDim, config.qkvBias);
  p.v = linear(base + ".self_attn.v_proj", d, kvDim, config.qkvBias);
  p.o = linear(base + ".self_attn.o_proj", qDim, d, config.outBias);
  if (config.qkNorm) {
    p.qNorm = norm(config, base + ".self_attn.q_norm", config.headDim);
    p.kNorm = norm(config, base + ".self_attn.k_norm", config.headDim);
  }
  p.ffnNorm = norm(config, base + ".post_attention_layernorm");
  p.up = linear(base + ".mlp.up_proj", d, f, layer.ffnBias);
  if (mlir::tfm::isGated(layer.activation))
    p.gate = linear(base + ".mlp.gate_proj", d, f, layer.ffnBias);
  p.down = linear(base + ".mlp.down_proj", f, d, layer.ffnBias);
  return p;
}

/// Rows [offset, offset + size) of `ref` along dim 0: a part of a fused
/// out_in weight or of its bias, read in place.
LinearRef rows(const LinearRef &ref, int64_t offset, int64_t size) {
  LinearRef part = ref;
  part.weight.sliceDim = 0;
  part.weight.sliceOffset = offset;
  part.weight.sliceSize = size;
  if (part.bias) {
    part.bias->sliceDim = 0;
    part.bias->sliceOffset = offset;
    part.bias->sliceSize = size;
  }
  return part;
}

/// Phi-3: LLaMA's layer with q, k and v fused in qkv_proj (q rows, then k,
/// then v) and gate and up fused in gate_up_proj (gate rows first).
LayerParams phi3Layer(const ModelConfig &config, int64_t index) {
  const LayerConfig &layer = config.decoderLayers[index];
  std::string base = config.prefix + "layers." + std::to_string(index);
  int64_t d = config.dModel, qDim = config.numHeads * config.headDim,
          kvDim = config.numKvHeads * config.headDim, f = layer.ffnHidden;
  LayerParams p;
  p.path = "layers." + std::to_string(index);
  p.attnNorm = norm(config, base + ".input_layernorm");
  LinearRef qkv =
      linear(base + ".self_attn.qkv_proj", d, qDim + 2 * kvDim, false);
  p.q = rows(qkv, 0, qDim);
  p.k = rows(qkv, qDim, kvDim);
  p.v = rows(qkv, qDim + kvDim, kvDim);
  p.o = linear(base + ".self_attn.o_proj", qDim, d, false);
  p.ffnNorm = norm(config, base + ".post_attention_layernorm");
  LinearRef gateUp = linear(base + ".mlp.gate_up_proj", d, 2 * f, false);
  p.gate = rows(gateUp, 0, f);
  p.up = rows(gateUp, f, f);
  p.down = linear(base + ".mlp.down_proj", f, d, false);
  return p;
}

/// T5: block i of a stack holds layer.0 (self-attention), for the decoder
/// layer.1 (cross-attention, "EncDecAttention"), then the FFN
/// ("DenseReluDense": wi, or wi_0 (gate) and wi_1 (up) when gated; wo).
LayerParams t5Layer(const ModelConfig &config, Stack stack, int64_t index) {
  const LayerConfig &layer = layerConfig(config, stack, index);
  bool decoder = stack == Stack::Decoder;
  std::string path = std::string(decoder ? "decoder" : "encoder") + ".block." +
                     std::to_string(index);
  std::string base = config.prefix + path;
  int64_t d = config.dModel, inner = config.numHeads * config.headDim,
          f = layer.ffnHidden;
  auto attention = [&](const std::string &name, LinearRef &q, LinearRef &k,
                       LinearRef &v, LinearRef &o) {
    q = linear(name + ".q", d, inner, false);
    k = linear(name + ".k", d, inner, false);
    v = linear(name + ".v", d, inner, false);
    o = linear(name + ".o", inner, d, false);
  };
  LayerParams p;
  p.path = path;
  p.attnNorm = norm(config, base + ".layer.0.layer_norm");
  attention(base + ".layer.0.SelfAttention", p.q, p.k, p.v, p.o);
  int ffnIndex = 1;
  if (decoder && config.arch == Architecture::EncoderDecoder) {
    p.crossNorm = norm(config, base + ".layer.1.layer_norm");
    p.crossQ.emplace();
    p.crossK.emplace();
    p.crossV.emplace();
    p.crossO.emplace();
    attention(base + ".layer.1.EncDecAttention", *p.crossQ, *p.crossK,
              *p.crossV, *p.crossO);
    ffnIndex = 2;
  }
  std::string ffn = base + ".layer." + std::to_string(ffnIndex);
  p.ffnNorm = norm(config, ffn + ".layer_norm");
  if (mlir::tfm::isGated(layer.activation)) {
    p.gate = linear(ffn + ".DenseReluDense.wi_0", d, f, false);
    p.up = linear(ffn + ".DenseReluDense.wi_1", d, f, false);
  } else {
    p.up = linear(ffn + ".DenseReluDense.wi", d, f, false);
  }
  p.down = linear(ffn + ".DenseReluDense.wo", f, d, false);
  return p;
}

/// DistilBERT: post-norm like BERT, its own names.
LayerParams distilbertLayer(const ModelConfig &config, int64_t index) {
  return encoderLayer(config, index,
                      {"transformer.layer", "attention.q_lin",
                       "attention.k_lin", "attention.v_lin",
                       "attention.out_lin", "sa_layer_norm", "ffn.lin1",
                       "ffn.lin2", "output_layer_norm"});
}

/// ViT: BERT-like names with the norms before each block
/// (layernorm_before, layernorm_after).
LayerParams vitLayer(const ModelConfig &config, int64_t index) {
  EncoderLayerNames names{
      "encoder.layer",           "attention.attention.query",
      "attention.attention.key", "attention.attention.value",
      "attention.output.dense",  "layernorm_before",
      "intermediate.dense",      "output.dense",
      "layernorm_after"};
  names.qkvBias = config.qkvBias;
  return encoderLayer(config, index, names);
}

} // namespace

LayerParams getLayerParams(const ModelConfig &config, Stack stack,
                           int64_t index) {
  switch (config.scheme) {
  case WeightScheme::Spec:
    return specLayer(config, stack, index);
  case WeightScheme::GPT2:
    return gpt2Layer(config, index);
  case WeightScheme::Bert:
  case WeightScheme::Roberta:
    return bertLayer(config, index);
  case WeightScheme::Llama:
    return llamaLayer(config, index);
  case WeightScheme::Phi3:
    return phi3Layer(config, index);
  case WeightScheme::T5:
    return t5Layer(config, stack, index);
  case WeightScheme::ViT:
    return vitLayer(config, index);
  case WeightScheme::DistilBert:
    return distilbertLayer(config, index);
  }
  llvm_unreachable("unknown weight scheme");
}

ModelParams getModelParams(const ModelConfig &config) {
  int64_t v = config.vocabSize, d = config.dModel;
  const std::string &p = config.prefix;
  ModelParams m;
  switch (config.scheme) {
  case WeightScheme::Spec: {
    m.tokens = tensor("embed.tokens", {v, d});
    if (config.positions == PositionKind::Learned)
      m.positions = tensor("embed.positions", {config.maxSeqLen, d});
    if (config.tokenTypes > 0)
      m.tokenTypes = tensor("embed.token_types", {config.tokenTypes, d});
    if (config.embeddingNorm)
      m.embedNorm = norm(config, "embed.norm");
    if (config.finalNorm) {
      bool encDec = config.arch == Architecture::EncoderDecoder;
      if (config.arch != Architecture::Decoder)
        m.encoderFinalNorm =
            norm(config, encDec ? "encoder.final_norm" : "final_norm");
      if (config.arch != Architecture::Encoder)
        m.decoderFinalNorm =
            norm(config, encDec ? "decoder.final_norm" : "final_norm");
    }
    if (config.head == HeadKind::Lm && !config.tieEmbeddings)
      m.lmHead = linear("lm_head", d, v, false);
    if (config.head == HeadKind::Lm && config.lmHeadBias)
      m.lmHeadBias = tensor("lm_head.bias", {v});
    if (config.head == HeadKind::Classifier) {
      if (config.pooler)
        m.pooler = linear("pooler", d, d, true);
      m.classifier =
          linear("classifier", d, config.numClasses, config.classifierBias);
    }
    break;
  }
  case WeightScheme::GPT2:
    m.tokens = tensor(p + "wte.weight", {v, d});
    m.positions = tensor(p + "wpe.weight", {config.maxSeqLen, d});
    m.decoderFinalNorm = norm(config, p + "ln_f");
    if (config.head == HeadKind::Lm && !config.tieEmbeddings)
      m.lmHead = linear("lm_head", d, v, false);
    if (config.head == HeadKind::Classifier)
      m.classifier = linear("score", d, config.numClasses, false);
    break;
  case WeightScheme::Bert:
  case WeightScheme::Roberta:
  case WeightScheme::DistilBert: {
    // BERT's embedding names (RoBERTa's positions start at positionOffset;
    // DistilBERT has no token types); each family's own heads.
    m.tokens = tensor(p + "embeddings.word_embeddings.weight", {v, d});
    m.positions = tensor(p + "embeddings.position_embeddings.weight",
                         {config.maxSeqLen + config.positionOffset, d});
    if (config.tokenTypes > 0)
      m.tokenTypes = tensor(p + "embeddings.token_type_embeddings.weight",
                            {config.tokenTypes, d});
    m.embedNorm = norm(config, p + "embeddings.LayerNorm");
    // The pooler (BERT's, RoBERTa's classifier.dense + tanh, DistilBERT's
    // pre_classifier + relu) and classifier; the masked-LM transform, norm,
    // decoder bias and, untied (DistilBERT), decoder.
    struct HeadNames {
      std::string pooler, classifier, mlmTransform, mlmNorm, lmHeadBias,
          lmHead;
    };
    HeadNames names =
        config.scheme == WeightScheme::Bert
            ? HeadNames{p + "pooler.dense", "classifier",
                        "cls.predictions.transform.dense",
                        "cls.predictions.transform.LayerNorm",
                        "cls.predictions.bias", ""}
        : config.scheme == WeightScheme::Roberta
            ? HeadNames{"classifier.dense", "classifier.out_proj",
                        "lm_head.dense", "lm_head.layer_norm", "lm_head.bias",
                        ""}
            : HeadNames{"pre_classifier", "classifier", "vocab_transform",
                        "vocab_layer_norm", "vocab_projector.bias",
                        "vocab_projector"};
    if (config.head == HeadKind::Classifier) {
      m.pooler = linear(names.pooler, d, d, true);
      m.classifier = linear(names.classifier, d, config.numClasses, true);
    }
    if (config.head == HeadKind::MaskedLm) {
      m.mlmTransform = linear(names.mlmTransform, d, d, true);
      m.mlmNorm = norm(config, names.mlmNorm);
      if (!config.tieEmbeddings)
        m.lmHead = linear(names.lmHead, d, v, false);
      m.lmHeadBias = tensor(names.lmHeadBias, {v});
    }
    break;
  }
  case WeightScheme::T5: {
    // One embedding shared by both stacks; each stack's relative position
    // table lives in its first block.
    m.tokens = tensor(p + "shared.weight", {v, d});
    auto table = [&](StringRef stack) {
      return tensor(p + stack +
                        ".block.0.layer.0.SelfAttention.relative_attention_"
                        "bias.weight",
                    {config.relativeBuckets, config.numHeads});
    };
    if (config.arch != Architecture::Decoder) {
      m.encoderPositionBias = table("encoder");
      m.encoderFinalNorm = norm(config, p + "encoder.final_layer_norm");
    }
    if (config.arch != Architecture::Encoder) {
      m.decoderPositionBias = table("decoder");
      m.decoderFinalNorm = norm(config, p + "decoder.final_layer_norm");
    }
    if (config.head == HeadKind::Lm && !config.tieEmbeddings)
      m.lmHead = linear("lm_head", d, v, false);
    break;
  }
  case WeightScheme::ViT: {
    const ImageConfig &image = *config.image;
    LinearRef patches;
    patches.weight = tensor(p + "embeddings.patch_embeddings.projection.weight",
                            {d, image.channels, image.patch, image.patch});
    patches.bias =
        tensor(p + "embeddings.patch_embeddings.projection.bias", {d});
    m.patchEmbed = patches;
    m.classToken = tensor(p + "embeddings.cls_token", {1, 1, d});
    m.positions = tensor(p + "embeddings.position_embeddings",
                         {1, image.patches() + 1, d});
    m.encoderFinalNorm = norm(config, p + "layernorm");
    if (config.head == HeadKind::Classifier)
      m.classifier = linear("classifier", d, config.numClasses, true);
    break;
  }
  case WeightScheme::Llama:
  case WeightScheme::Phi3:
    m.tokens = tensor(p + "embed_tokens.weight", {v, d});
    m.decoderFinalNorm = norm(config, p + "norm");
    if (config.head == HeadKind::Lm && !config.tieEmbeddings)
      m.lmHead = linear("lm_head", d, v, false);
    if (config.head == HeadKind::Classifier)
      m.classifier = linear("score", d, config.numClasses, false);
    break;
  }
  return m;
}

std::vector<TensorRef> getExpectedTensors(const ModelConfig &config) {
  std::vector<TensorRef> result;
  StringSet<> seen;
  auto add = [&](const TensorRef &ref) {
    if (!seen.insert(ref.name).second)
      return;
    TensorRef stored = ref;
    stored.sliceDim = -1;
    result.push_back(std::move(stored));
  };
  auto addOpt = [&](const std::optional<TensorRef> &ref) {
    if (ref)
      add(*ref);
  };
  auto addLinear = [&](const std::optional<LinearRef> &ref) {
    if (ref) {
      add(ref->weight);
      addOpt(ref->bias);
    }
  };
  auto addNorm = [&](const std::optional<NormRef> &ref) {
    if (ref) {
      add(ref->weight);
      addOpt(ref->bias);
    }
  };

  ModelParams m = getModelParams(config);
  addOpt(m.tokens);
  addLinear(m.patchEmbed);
  addOpt(m.classToken);
  addOpt(m.positions);
  addOpt(m.tokenTypes);
  addNorm(m.embedNorm);
  auto addStack = [&](Stack stack, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      LayerParams l = getLayerParams(config, stack, i);
      addNorm(l.attnNorm);
      for (const LinearRef *lin : {&l.q, &l.k, &l.v, &l.o})
        addLinear(*lin);
      addNorm(l.qNorm);
      addNorm(l.kNorm);
      addNorm(l.crossNorm);
      for (const auto *lin : {&l.crossQ, &l.crossK, &l.crossV, &l.crossO})
        addLinear(*lin);
      addNorm(l.ffnNorm);
      addLinear(l.up);
      addLinear(l.gate);
      addLinear(l.down);
    }
  };
  addOpt(m.encoderPositionBias);
  addOpt(m.decoderPositionBias);
  addStack(Stack::Encoder, config.encoderLayers.size());
  addNorm(m.encoderFinalNorm);
  addStack(Stack::Decoder, config.decoderLayers.size());
  addNorm(m.decoderFinalNorm);
  addLinear(m.mlmTransform);
  addNorm(m.mlmNorm);
  addLinear(m.lmHead);
  addOpt(m.lmHeadBias);
  addLinear(m.pooler);
  addLinear(m.classifier);
  return result;
}

Error validateModelConfig(const ModelConfig &config,
                          function_ref<std::string(StringRef)> fieldName) {
  auto fail = [&](StringRef field, const Twine &msg) -> Error {
    return createStringError(inconvertibleErrorCode(),
                             config.sourcePath + ": " + fieldName(field) +
                                 ": " + msg);
  };
  auto inRange = [&](StringRef field, int64_t value, int64_t max) -> Error {
    if (value <= 0)
      return fail(field, formatv("must be positive, got {0}", value));
    if (value > max)
      return fail(field, formatv("{0} is out of range [1, {1}]", value, max));
    return Error::success();
  };
  if (config.image) {
    // Pixels in, no vocabulary; patches that tile the image.
    const ImageConfig &image = *config.image;
    if (Error e = inRange("num_channels", image.channels, 1 << 16))
      return e;
    if (Error e = inRange("image_size", image.height, 1 << 16))
      return e;
    if (Error e = inRange("image_size", image.width, 1 << 16))
      return e;
    if (Error e = inRange("patch_size", image.patch, 1 << 16))
      return e;
    if (image.height % image.patch != 0 || image.width % image.patch != 0)
      return fail("patch_size",
                  formatv("{0} does not tile the {1} x {2} image", image.patch,
                          image.height, image.width));
  } else if (Error e =
                 inRange("vocab_size", config.vocabSize, limits::kMaxVocab)) {
    return e;
  }
  if (Error e = inRange("d_model", config.dModel, limits::kMaxDModel))
    return e;
  if (Error e = inRange("num_heads", config.numHeads, limits::kMaxHeads))
    return e;
  if (Error e = inRange("num_kv_heads", config.numKvHeads, limits::kMaxHeads))
    return e;
  if (Error e = inRange("head_dim", config.headDim, limits::kMaxHeadDim))
    return e;
  if (Error e = inRange("max_seq_len", config.maxSeqLen, limits::kMaxSeqLen))
    return e;
  if (config.numHeads % config.numKvHeads != 0)
    return fail("num_heads",
                formatv("{0} is not a multiple of {1} ({2})", config.numHeads,
                        fieldName("num_kv_heads"), config.numKvHeads));
  if (config.scheme == WeightScheme::Spec ||
      config.scheme == WeightScheme::GPT2 ||
      config.scheme == WeightScheme::Bert ||
      config.scheme == WeightScheme::Roberta ||
      config.scheme == WeightScheme::DistilBert) {
    if (config.numHeads * config.headDim != config.dModel)
      return fail("head_dim",
                  formatv("{0} * {1} heads = {2} does not equal {3} ({4})",
                          config.headDim, config.numHeads,
                          config.numHeads * config.headDim,
                          fieldName("d_model"), config.dModel));
  }
  if (config.positions == PositionKind::Sinusoidal && config.dModel % 2 != 0)
    return fail("d_model",
                formatv("sinusoidal positions need an even size, got {0}",
                        config.dModel));
  if (config.positions == PositionKind::Rope) {
    int64_t rotary = config.rotaryDim ? config.rotaryDim : config.headDim;
    if (rotary > config.headDim)
      return fail("rotary_dim", formatv("{0} exceeds head_dim ({1})", rotary,
                                        config.headDim));
    if (rotary % 2 != 0)
      return fail(config.rotaryDim ? "rotary_dim" : "head_dim",
                  formatv("RoPE rotates feature pairs: needs an even size, "
                          "got {0}",
                          rotary));
  }
  if (config.positions == PositionKind::RelativeBias) {
    if (Error e = inRange("relative_buckets", config.relativeBuckets, 1 << 16))
      return e;
    // Exact buckets below n / 2 and log-spaced ones up to max_distance:
    // n is the whole table in a decoder, half of it (one direction) in an
    // encoder.
    int64_t nb = config.relativeBuckets;
    bool encoder = config.arch != Architecture::Decoder,
         decoder = config.arch != Architecture::Encoder;
    if ((encoder && (nb < 4 || nb % 2 != 0)) || nb < 2)
      return fail("relative_buckets",
                  formatv("{0} buckets are too few (an encoder needs an "
                          "even count >= 4, a decoder >= 2)",
                          nb));
    int64_t exact = decoder ? nb / 2 : nb / 4;
    if (config.relativeMaxDistance <= exact)
      return fail("relative_max_distance",
                  formatv("{0} must exceed the exact buckets ({1})",
                          config.relativeMaxDistance, exact));
  }
  if (config.attentionScale &&
      !(std::isfinite(*config.attentionScale) && *config.attentionScale > 0))
    return fail("attention_scale", "must be finite and > 0");
  if (config.tokenTypes > limits::kMaxTokenTypes)
    return fail("token_types", "too many token types");
  if (config.head == HeadKind::Classifier)
    if (Error e =
            inRange("num_classes", config.numClasses, limits::kMaxClasses))
      return e;
  if (config.arch != Architecture::Decoder && config.encoderLayers.empty())
    return fail("num_layers", "an encoder needs at least one layer");
  if (config.arch != Architecture::Encoder && config.decoderLayers.empty())
    return fail("num_layers", "a decoder needs at least one layer");
  if (config.encoderLayers.size() > size_t(limits::kMaxLayers) ||
      config.decoderLayers.size() > size_t(limits::kMaxLayers))
    return fail("num_layers",
                formatv("at most {0} layers are supported", limits::kMaxLayers));
  for (const auto *layers : {&config.encoderLayers, &config.decoderLayers})
    for (const LayerConfig &layer : *layers) {
      if (Error e = inRange("ffn_hidden_size", layer.ffnHidden,
                            limits::kMaxFfnHidden))
        return e;
      if (layer.mask == MaskKind::sliding_window)
        if (Error e = inRange("window", layer.window, limits::kMaxWindow))
          return e;
    }

  // Every size is bounded above, so each tensor's element count fits; the
  // total is summed with overflow checks anyway.
  int64_t total = 0;
  for (const TensorRef &ref : getExpectedTensors(config)) {
    std::optional<int64_t> count = int64_t(1);
    for (int64_t dim : ref.shape)
      if (count)
        count = checkedMul(*count, dim);
    std::optional<int64_t> sum = count ? checkedAdd(total, *count) : count;
    if (!sum || *sum > limits::kMaxParameters)
      return fail("d_model",
                  formatv("the model has more than {0} parameters",
                          limits::kMaxParameters));
    total = *sum;
  }
  return Error::success();
}

} // namespace tfm
