//===- SpecParser.cpp - tfm spec JSON to ModelConfig ----------------------===//
//
// Reads the tfm spec format (docs/spec.md, docs/spec.schema.json). Every
// field is type- and range-checked where it is read; unknown fields are
// errors; cross-field rules are checked last, so each message names the
// field at fault by its JSON path.
//
//===----------------------------------------------------------------------===//

#include "JsonReader.h"
#include "tfm/Frontend/Frontend.h"

#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

using namespace llvm;
using namespace tfm::detail;
using mlir::tfm::Activation;
using mlir::tfm::MaskKind;

namespace tfm {
namespace {

constexpr StringLiteral kFormat = "tfm-spec/1";

const StringRef kMasks[] = {"causal", "bidirectional", "sliding_window"};
const StringRef kActivations[] = {"relu", "gelu",   "gelu_tanh",
                                  "silu", "swiglu", "geglu"};

MaskKind parseMask(StringRef name) {
  return StringSwitch<MaskKind>(name)
      .Case("causal", MaskKind::causal)
      .Case("sliding_window", MaskKind::sliding_window)
      .Default(MaskKind::none);
}

Activation parseActivation(StringRef name) {
  return StringSwitch<Activation>(name)
      .Case("relu", Activation::relu)
      .Case("gelu", Activation::gelu)
      .Case("gelu_tanh", Activation::gelu_tanh)
      .Case("silu", Activation::silu)
      .Case("swiglu", Activation::swiglu)
      .Default(Activation::geglu);
}

/// The attention and ffn choices a layer starts from, with the JSON path of
/// the field that set each (for messages about the merged result).
struct LayerDefaults {
  MaskKind mask;
  int64_t window = 0;
  std::string windowPath;
  LayerConfig ffn;
};

class SpecParser {
public:
  SpecParser(StringRef path) : errors(path) {}

  Expected<ModelConfig> parse(StringRef text);

private:
  void readNorm(ObjectReader &root);
  void readEmbedding(ObjectReader &root);
  void readPositions(ObjectReader &root);
  void readHead(ObjectReader &root);
  /// Reads `attention` and `ffn` of the root into the defaults of a stack
  /// whose default mask is `mask`.
  void readLayerDefaults(ObjectReader &root, MaskKind mask);
  /// Expands `count` layers from the defaults and the overrides in
  /// `container[key]` (an array of at most `count` objects).
  std::vector<LayerConfig> readLayers(ObjectReader &container, StringRef key,
                                      int64_t count, MaskKind stackMask);

  JsonErrors errors;
  ModelConfig config;
  LayerDefaults defaults;
  bool maskIsExplicit = false;
};

void SpecParser::readNorm(ObjectReader &root) {
  const json::Object *object = root.getObject("norm", /*required=*/true);
  if (!object)
    return;
  ObjectReader norm(errors, object, root.fieldPath("norm"));
  if (auto kind = norm.getEnum("kind", true, {"layernorm", "rmsnorm"}))
    config.norm.kind =
        *kind == "rmsnorm" ? NormKind::RmsNorm : NormKind::LayerNorm;
  config.norm.eps = norm.getEpsilon("eps", false)
                        .value_or(1e-5);
  bool defaultBias = config.norm.kind == NormKind::LayerNorm;
  config.norm.bias = norm.getBool("bias", false).value_or(defaultBias);
  if (config.norm.bias && config.norm.kind == NormKind::RmsNorm)
    norm.error("bias", "rmsnorm has no bias");
  if (auto placement = norm.getEnum("placement", false, {"pre", "post"}))
    config.preNorm = *placement == "pre";
  norm.finish();
}

void SpecParser::readEmbedding(ObjectReader &root) {
  const json::Object *object = root.getObject("embedding", false);
  if (!object)
    return;
  ObjectReader embedding(errors, object, root.fieldPath("embedding"));
  if (auto scale = embedding.getEnum("scale", false, {"none", "sqrt_d_model"}))
    config.embedScale = *scale == "sqrt_d_model";
  config.embeddingNorm = embedding.getBool("norm", false).value_or(false);
  config.tokenTypes =
      embedding.getInt("token_types", false, 0, limits::kMaxTokenTypes)
          .value_or(0);
  embedding.finish();
}

void SpecParser::readPositions(ObjectReader &root) {
  const json::Object *object = root.getObject("positions", true);
  if (!object)
    return;
  ObjectReader positions(errors, object, root.fieldPath("positions"));
  std::optional<std::string> kind = positions.getEnum(
      "kind", true, {"none", "sinusoidal", "learned", "rope", "alibi"});
  if (!kind)
    return;
  config.positions = StringSwitch<PositionKind>(*kind)
                         .Case("sinusoidal", PositionKind::Sinusoidal)
                         .Case("learned", PositionKind::Learned)
                         .Case("rope", PositionKind::Rope)
                         .Case("alibi", PositionKind::Alibi)
                         .Default(PositionKind::None);
  if (config.positions == PositionKind::Rope) {
    config.ropeTheta =
        positions.getNumber("theta", false, 1.0, 1e12, true).value_or(10000.0);
    config.ropeScaling =
        positions.getNumber("scaling_factor", false, 0.0, 1e6, true)
            .value_or(1.0);
    if (auto style =
            positions.getEnum("style", false, {"rotate_half", "interleaved"}))
      config.ropeStyle = *style == "interleaved"
                             ? mlir::tfm::RopeStyle::interleaved
                             : mlir::tfm::RopeStyle::rotate_half;
    config.rotaryDim =
        positions.getInt("rotary_dim", false, 1, limits::kMaxHeadDim)
            .value_or(0);
  }
  // Rope parameters on another kind are unknown fields.
  positions.finish();
}

void SpecParser::readHead(ObjectReader &root) {
  const json::Object *object = root.getObject("head", true);
  if (!object)
    return;
  ObjectReader head(errors, object, root.fieldPath("head"));
  std::optional<std::string> kind =
      head.getEnum("kind", true, {"lm", "classifier", "none"});
  if (!kind)
    return;
  if (*kind == "lm") {
    config.head = HeadKind::Lm;
    config.lmHeadBias = head.getBool("bias", false).value_or(false);
  } else if (*kind == "classifier") {
    config.head = HeadKind::Classifier;
    if (config.arch == Architecture::EncoderDecoder)
      head.error("kind", "an encoder_decoder model has an lm head or none");
    if (auto classes =
            head.getInt("num_classes", true, 1, limits::kMaxClasses))
      config.numClasses = *classes;
    config.pooling = config.arch == Architecture::Encoder
                         ? mlir::tfm::Pooling::first
                         : mlir::tfm::Pooling::last;
    if (auto pooling = head.getEnum("pooling", false, {"first", "last"}))
      config.pooling = *pooling == "first" ? mlir::tfm::Pooling::first
                                           : mlir::tfm::Pooling::last;
    config.pooler = head.getBool("pooler", false).value_or(false);
    config.classifierBias = head.getBool("bias", false).value_or(true);
  } else {
    config.head = HeadKind::None;
  }
  head.finish();
}

void SpecParser::readLayerDefaults(ObjectReader &root, MaskKind mask) {
  defaults.mask = mask;
  if (const json::Object *object = root.getObject("attention", false)) {
    ObjectReader attention(errors, object, root.fieldPath("attention"));
    if (config.arch == Architecture::EncoderDecoder) {
      if (attention.has("mask"))
        attention.error("mask",
                        "not allowed for encoder_decoder models (the encoder "
                        "is bidirectional, the decoder causal; override per "
                        "layer in encoder.layers / decoder.layers)");
      if (attention.has("window"))
        attention.error("window", "not allowed for encoder_decoder models");
    } else {
      if (auto m = attention.getEnum("mask", false, kMasks)) {
        defaults.mask = parseMask(*m);
        maskIsExplicit = true;
      }
      if (auto w = attention.getInt("window", false, 1, limits::kMaxWindow)) {
        defaults.window = *w;
        defaults.windowPath = attention.fieldPath("window");
        if (defaults.mask != MaskKind::sliding_window)
          attention.error("window", "only allowed with mask \"sliding_window\"");
      } else if (defaults.mask == MaskKind::sliding_window) {
        attention.getInt("window", true, 1, limits::kMaxWindow);
      }
    }
    config.qkvBias = attention.getBool("qkv_bias", false).value_or(false);
    config.outBias = attention.getBool("out_bias", false).value_or(false);
    attention.finish();
  }
  if (const json::Object *object = root.getObject("ffn", true)) {
    ObjectReader ffn(errors, object, root.fieldPath("ffn"));
    if (auto hidden =
            ffn.getInt("hidden_size", true, 1, limits::kMaxFfnHidden))
      defaults.ffn.ffnHidden = *hidden;
    if (auto act = ffn.getEnum("activation", true, kActivations))
      defaults.ffn.activation = parseActivation(*act);
    defaults.ffn.ffnBias = ffn.getBool("bias", false).value_or(false);
    ffn.finish();
  }
}

std::vector<LayerConfig> SpecParser::readLayers(ObjectReader &container,
                                                StringRef key, int64_t count,
                                                MaskKind stackMask) {
  LayerConfig base = defaults.ffn;
  base.mask = config.arch == Architecture::EncoderDecoder ? stackMask
                                                          : defaults.mask;
  base.window = base.mask == MaskKind::sliding_window ? defaults.window : 0;
  std::vector<LayerConfig> layers(errors.failed() ? 0 : count, base);
  const json::Array *overrides = container.getArray(key, false);
  if (!overrides || errors.failed())
    return layers;
  std::string arrayPath = container.fieldPath(key);
  if (int64_t(overrides->size()) > count) {
    errors.report(arrayPath,
                  formatv("has {0} entries but the stack has {1} layers",
                          overrides->size(), count));
    return layers;
  }
  for (size_t i = 0; i < overrides->size(); ++i) {
    std::string path = indexPath(arrayPath, i);
    const json::Object *object = (*overrides)[i].getAsObject();
    if (!object) {
      errors.report(path,
                    "expected an object, got " + kindName((*overrides)[i]));
      return layers;
    }
    LayerConfig &layer = layers[i];
    ObjectReader entry(errors, object, path);
    if (const json::Object *attnObject = entry.getObject("attention", false)) {
      ObjectReader attention(errors, attnObject, entry.fieldPath("attention"));
      if (auto m = attention.getEnum("mask", false, kMasks)) {
        layer.mask = parseMask(*m);
        if (layer.mask != MaskKind::sliding_window)
          layer.window = 0;
      }
      if (auto w = attention.getInt("window", false, 1, limits::kMaxWindow)) {
        if (layer.mask != MaskKind::sliding_window)
          attention.error("window",
                          "only allowed with mask \"sliding_window\"");
        layer.window = *w;
      } else if (layer.mask == MaskKind::sliding_window && layer.window == 0) {
        attention.getInt("window", true, 1, limits::kMaxWindow);
      }
      attention.finish();
    }
    if (const json::Object *ffnObject = entry.getObject("ffn", false)) {
      ObjectReader ffn(errors, ffnObject, entry.fieldPath("ffn"));
      if (auto hidden =
              ffn.getInt("hidden_size", false, 1, limits::kMaxFfnHidden))
        layer.ffnHidden = *hidden;
      if (auto act = ffn.getEnum("activation", false, kActivations))
        layer.activation = parseActivation(*act);
      if (auto bias = ffn.getBool("bias", false))
        layer.ffnBias = *bias;
      ffn.finish();
    }
    entry.finish();
  }
  return layers;
}

Expected<ModelConfig> SpecParser::parse(StringRef text) {
  Expected<json::Value> value = parseJsonText(text, errors.getFile());
  if (!value)
    return value.takeError();
  const json::Object *object = value->getAsObject();
  if (!object) {
    errors.report("", "expected a JSON object at the top level, got " +
                          kindName(*value));
    return errors.takeError();
  }
  config.sourcePath = errors.getFile().str();
  config.scheme = WeightScheme::Spec;
  ObjectReader root(errors, object, "");

  if (auto format = root.getString("format", true))
    if (*format != kFormat)
      root.error("format", "unsupported format \"" + *format +
                               "\" (this build reads \"" + kFormat + "\")");
  root.getString("$schema", false);
  root.getString("description", false);
  if (auto name = root.getString("name", true)) {
    if (name->empty())
      root.error("name", "must not be empty");
    config.name = *name;
  }
  if (auto arch = root.getEnum("architecture", true,
                               {"encoder", "decoder", "encoder_decoder"}))
    config.arch = *parseArchitecture(*arch); // getEnum checked the spelling
  if (errors.failed())
    return errors.takeError();

  config.vocabSize =
      root.getInt("vocab_size", true, 1, limits::kMaxVocab).value_or(0);
  config.dModel = root.getInt("d_model", true, 1, limits::kMaxDModel).value_or(0);
  config.numHeads =
      root.getInt("num_heads", true, 1, limits::kMaxHeads).value_or(0);
  config.numKvHeads = root.getInt("num_kv_heads", false, 1, limits::kMaxHeads)
                          .value_or(config.numHeads);
  std::optional<int64_t> headDim =
      root.getInt("head_dim", false, 1, limits::kMaxHeadDim);
  config.maxSeqLen =
      root.getInt("max_seq_len", true, 1, limits::kMaxSeqLen).value_or(0);
  if (errors.failed())
    return errors.takeError();

  if (config.dModel % config.numHeads != 0 && !headDim)
    root.error("d_model",
               formatv("{0} is not divisible by num_heads ({1})",
                       config.dModel, config.numHeads));
  else if (config.numHeads % config.numKvHeads != 0)
    root.error("num_heads",
               formatv("{0} is not a multiple of num_kv_heads ({1})",
                       config.numHeads, config.numKvHeads));
  config.headDim = headDim.value_or(config.dModel / config.numHeads);
  if (headDim && *headDim * config.numHeads != config.dModel)
    root.error("head_dim",
               formatv("{0} * num_heads ({1}) = {2} does not equal d_model "
                       "({3})",
                       *headDim, config.numHeads, *headDim * config.numHeads,
                       config.dModel));

  config.dtype = "F32";
  if (auto dtype = root.getEnum("dtype", false, {"f32", "f16", "bf16"}))
    config.dtype = StringRef(*dtype).upper();

  readNorm(root);
  config.finalNorm = root.getBool("final_norm", false).value_or(config.preNorm);
  readEmbedding(root);
  readPositions(root);
  if (config.positions == PositionKind::Rope && config.rotaryDim &&
      config.rotaryDim > config.headDim)
    errors.report("positions.rotary_dim",
                  formatv("{0} exceeds head_dim ({1})", config.rotaryDim,
                          config.headDim));

  MaskKind stackDefault = config.arch == Architecture::Encoder
                              ? MaskKind::none
                              : MaskKind::causal;
  readLayerDefaults(root, stackDefault);
  if (errors.failed())
    return errors.takeError();

  if (config.arch == Architecture::EncoderDecoder) {
    if (root.has("num_layers"))
      root.error("num_layers", "use encoder_layers and decoder_layers for "
                               "encoder_decoder models");
    if (root.has("layers"))
      root.error("layers", "use encoder.layers and decoder.layers for "
                           "encoder_decoder models");
    int64_t encoderLayers =
        root.getInt("encoder_layers", true, 1, limits::kMaxLayers).value_or(0);
    int64_t decoderLayers =
        root.getInt("decoder_layers", true, 1, limits::kMaxLayers).value_or(0);
    for (auto [key, count, mask, out] :
         {std::make_tuple("encoder", encoderLayers, MaskKind::none,
                          &config.encoderLayers),
          std::make_tuple("decoder", decoderLayers, MaskKind::causal,
                          &config.decoderLayers)}) {
      const json::Object *stackObject = root.getObject(key, false);
      ObjectReader stack(errors, stackObject, root.fieldPath(key));
      *out = readLayers(stack, "layers", count, mask);
      stack.finish();
    }
  } else {
    for (StringRef key : {"encoder_layers", "decoder_layers", "encoder",
                          "decoder"})
      if (root.has(key))
        root.error(key, "only allowed for encoder_decoder models (use "
                        "num_layers and layers)");
    int64_t count =
        root.getInt("num_layers", true, 1, limits::kMaxLayers).value_or(0);
    std::vector<LayerConfig> layers =
        readLayers(root, "layers", count, stackDefault);
    if (config.arch == Architecture::Encoder)
      config.encoderLayers = std::move(layers);
    else
      config.decoderLayers = std::move(layers);
  }

  config.tieEmbeddings =
      root.getBool("tie_embeddings", false).value_or(false);
  readHead(root);
  if (config.tieEmbeddings && config.head != HeadKind::Lm && !errors.failed())
    root.error("tie_embeddings", "needs an lm head to tie to");
  root.finish();
  if (errors.failed())
    return errors.takeError();

  // Cross-field checks name the spec's spelling of each field.
  if (Error e = validateModelConfig(config, [](StringRef field) {
        return StringSwitch<std::string>(field)
            .Case("rotary_dim", "positions.rotary_dim")
            .Case("ffn_hidden_size", "ffn.hidden_size")
            .Case("window", "attention.window")
            .Case("token_types", "embedding.token_types")
            .Case("num_classes", "head.num_classes")
            .Default(field.str());
      }))
    return std::move(e);
  return std::move(config);
}

} // namespace

Expected<ModelConfig> parseSpec(StringRef text, StringRef path) {
  SpecParser parser(path);
  return parser.parse(text);
}

} // namespace tfm
