//===- HFConfig.cpp - Hugging Face config.json to ModelConfig -------------===//
//
// Reads the config.json of a Hugging Face checkpoint for the model types
// gpt2, bert, llama, mistral and qwen2. Every field that changes the math is
// either honoured or, when its value is one tfm does not implement, an error
// naming it; fields without effect on the forward pass (token ids, dropout,
// initializer ranges, ...) are ignored. Missing fields take the defaults of
// the transformers configuration class.
//
//===----------------------------------------------------------------------===//

#include "JsonReader.h"
#include "tfm/Frontend/Frontend.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Regex.h"

#include <cmath>

using namespace llvm;
using namespace tfm::detail;
using mlir::tfm::Activation;
using mlir::tfm::MaskKind;

namespace tfm {

StringRef supportedHFModelTypes() {
  return "gpt2, bert, llama, mistral, qwen2";
}

namespace {

/// The last component of a hub id ("sentence-transformers/all-MiniLM-L6-v2")
/// or of a path in either separator style ("/models/minilm/",
/// "C:\\models\\minilm"); "" when there is none.
StringRef lastComponent(StringRef nameOrPath) {
  StringRef trimmed = nameOrPath.rtrim("/\\");
  StringRef base = trimmed.substr(trimmed.find_last_of("/\\") + 1);
  return base == "." || base == ".." ? StringRef() : base;
}

/// The model's name (tfm.model_name: the manifest, the model header, the
/// report), taken from the model rather than from its model_type, which
/// would call every BERT "bert". It is the last component of
/// `_name_or_path`, which transformers writes when it saves a checkpoint
/// (the hub id or the folder it was loaded from), when present and
/// non-empty; else the name of the folder that holds config.json; else, for
/// a config file under another name, that file's stem; `modelType` only
/// when even that is empty.
std::string hfModelName(std::optional<std::string> nameOrPath,
                        StringRef configPath, StringRef modelType) {
  if (nameOrPath)
    if (StringRef base = lastComponent(*nameOrPath); !base.empty())
      return base.str();
  SmallString<256> path(configPath);
  // "config.json" alone is a file of the current directory: name that.
  (void)sys::fs::make_absolute(path);
  sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  StringRef name = sys::path::filename(path) == "config.json"
                       ? sys::path::filename(sys::path::parent_path(path))
                       : sys::path::stem(path);
  if (StringRef base = lastComponent(name); !base.empty())
    return base.str();
  return modelType.str();
}

class HFParser {
public:
  HFParser(StringRef path, const std::vector<StringRef> *weightNames)
      : errors(path), weightNames(weightNames) {}

  Expected<ModelConfig> parse(StringRef text);

private:
  void parseGPT2(ObjectReader &root);
  void parseBert(ObjectReader &root);
  void parseLlamaFamily(ObjectReader &root, StringRef modelType);

  /// Picks the head from `architectures` (the first entry), given the
  /// suffixes that mean each head for this model type.
  void readArchitecture(ObjectReader &root, StringRef modelType,
                        ArrayRef<std::pair<StringRef, HeadKind>> known,
                        HeadKind fallback);
  void readNumClasses(ObjectReader &root);
  /// An activation name of transformers' ACT2FN; `gated` picks the gated
  /// FFN variant (LLaMA's MLP).
  std::optional<Activation> readActivation(ObjectReader &root, StringRef key,
                                           StringRef fallback, bool gated);
  /// Errors when `key` holds anything but `expected`.
  void requireBool(ObjectReader &root, StringRef key, bool expected);
  /// Picks the tensor-name prefix: the one the checkpoint uses when weights
  /// are given, else the one the head's model class uses.
  void pickPrefix(StringRef probe, StringRef withPrefix, bool defaultPrefixed);

  JsonErrors errors;
  const std::vector<StringRef> *weightNames;
  ModelConfig config;
  /// The HF spelling of each logical field, for validateModelConfig.
  StringMap<std::string> fieldNames;
};

void HFParser::requireBool(ObjectReader &root, StringRef key, bool expected) {
  if (auto value = root.getBool(key, false))
    if (*value != expected)
      root.error(key, formatv("{0} is not supported by tfm (changes the "
                              "attention math)",
                              *value ? "true" : "false"));
}

void HFParser::readArchitecture(ObjectReader &root, StringRef modelType,
                                ArrayRef<std::pair<StringRef, HeadKind>> known,
                                HeadKind fallback) {
  config.head = fallback;
  const json::Array *archs = root.getArray("architectures", false);
  if (!archs || archs->empty())
    return;
  std::string path = indexPath(root.fieldPath("architectures"), 0);
  std::optional<StringRef> name = (*archs)[0].getAsString();
  if (!name) {
    errors.report(path, "expected a string, got " + kindName((*archs)[0]));
    return;
  }
  for (auto [className, head] : known)
    if (*name == className) {
      config.head = head;
      return;
    }
  std::string list;
  for (auto [className, head] : known)
    list += (list.empty() ? "" : ", ") + className.str();
  errors.report(path, "\"" + *name + "\" is not supported for model_type \"" +
                          modelType + "\" (supported: " + list + ")");
}

void HFParser::readNumClasses(ObjectReader &root) {
  config.numClasses = 2;
  if (const json::Object *labels = root.getObject("id2label", false))
    config.numClasses = labels->size();
  if (auto n = root.getInt("num_labels", false, 1, limits::kMaxClasses))
    config.numClasses = *n;
  if (config.numClasses < 1)
    root.error("id2label", "a classifier needs at least one label");
}

std::optional<Activation> HFParser::readActivation(ObjectReader &root,
                                                   StringRef key,
                                                   StringRef fallback,
                                                   bool gated) {
  std::string name = root.getString(key, false).value_or(fallback.str());
  if (errors.failed())
    return std::nullopt;
  std::optional<Activation> act;
  if (gated)
    act = StringSwitch<std::optional<Activation>>(name)
              .Cases({"silu", "swish"}, Activation::swiglu)
              .Case("gelu", Activation::geglu)
              .Default(std::nullopt);
  else
    act = StringSwitch<std::optional<Activation>>(name)
              .Case("relu", Activation::relu)
              .Case("gelu", Activation::gelu)
              .Cases({"gelu_new", "gelu_pytorch_tanh"}, Activation::gelu_tanh)
              .Cases({"silu", "swish"}, Activation::silu)
              .Default(std::nullopt);
  if (!act)
    root.error(key, "activation \"" + name + "\" is not supported (supported: " +
                        (gated ? "silu, swish, gelu" :
                                 "relu, gelu, gelu_new, gelu_pytorch_tanh, "
                                 "silu, swish") +
                        ")");
  return act;
}

void HFParser::pickPrefix(StringRef probe, StringRef withPrefix,
                          bool defaultPrefixed) {
  config.prefix = defaultPrefixed ? withPrefix.str() : "";
  if (!weightNames)
    return;
  std::string prefixed = (withPrefix + probe).str();
  for (StringRef name : *weightNames) {
    if (name == prefixed) {
      config.prefix = withPrefix.str();
      return;
    }
    if (name == probe) {
      config.prefix = "";
      return;
    }
  }
}

std::vector<LayerConfig> uniformLayers(int64_t count, const LayerConfig &l) {
  return std::vector<LayerConfig>(count, l);
}

void HFParser::parseGPT2(ObjectReader &root) {
  fieldNames = {{"d_model", "n_embd"},
                {"num_heads", "n_head"},
                {"num_kv_heads", "n_head"},
                {"head_dim", "n_embd"},
                {"max_seq_len", "n_positions"},
                {"num_layers", "n_layer"},
                {"ffn_hidden_size", "n_inner"},
                {"num_classes", "num_labels"}};
  config.scheme = WeightScheme::GPT2;
  config.arch = Architecture::Decoder;
  config.vocabSize =
      root.getInt("vocab_size", false, 1, limits::kMaxVocab).value_or(50257);
  config.maxSeqLen =
      root.getInt("n_positions", false, 1, limits::kMaxSeqLen).value_or(1024);
  config.dModel = root.getInt("n_embd", false, 1, limits::kMaxDModel).value_or(768);
  config.numHeads = root.getInt("n_head", false, 1, limits::kMaxHeads).value_or(12);
  config.numKvHeads = config.numHeads;
  int64_t layers =
      root.getInt("n_layer", false, 1, limits::kMaxLayers).value_or(12);
  if (errors.failed())
    return;
  if (config.dModel % config.numHeads != 0) {
    root.error("n_embd", formatv("{0} is not divisible by n_head ({1})",
                                 config.dModel, config.numHeads));
    return;
  }
  config.headDim = config.dModel / config.numHeads;
  LayerConfig layer;
  layer.mask = MaskKind::causal;
  layer.ffnHidden = root.getInt("n_inner", false, 1, limits::kMaxFfnHidden)
                        .value_or(4 * config.dModel);
  layer.ffnBias = true;
  if (auto act = readActivation(root, "activation_function", "gelu_new",
                                /*gated=*/false))
    layer.activation = *act;
  config.decoderLayers = uniformLayers(layers, layer);
  config.norm.kind = NormKind::LayerNorm;
  config.norm.eps = root.getEpsilon("layer_norm_epsilon", false)
                        .value_or(1e-5);
  config.norm.bias = true;
  config.preNorm = true;
  config.finalNorm = true;
  config.positions = PositionKind::Learned;
  config.qkvBias = config.outBias = true;
  requireBool(root, "scale_attn_weights", true);
  requireBool(root, "scale_attn_by_inverse_layer_idx", false);
  requireBool(root, "add_cross_attention", false);
  config.tieEmbeddings =
      root.getBool("tie_word_embeddings", false).value_or(true);
  readArchitecture(root, "gpt2",
                   {{"GPT2LMHeadModel", HeadKind::Lm},
                    {"GPT2Model", HeadKind::None},
                    {"GPT2ForSequenceClassification", HeadKind::Classifier}},
                   HeadKind::Lm);
  if (config.head != HeadKind::Lm)
    config.tieEmbeddings = false;
  if (config.head == HeadKind::Classifier) {
    readNumClasses(root);
    config.pooling = mlir::tfm::Pooling::last;
  }
  pickPrefix("wte.weight", "transformer.", config.head != HeadKind::None);
  std::string prefix = config.prefix;
  bool tied = config.tieEmbeddings;
  config.isIgnorableTensor = [prefix, tied](StringRef name) {
    // Causal-mask buffers that old GPT-2 checkpoints saved.
    static const Regex buffer("^h\\.[0-9]+\\.attn\\.(masked_)?bias$");
    return (name.consume_front(prefix) && buffer.match(name)) ||
           (tied && name == "lm_head.weight");
  };
}

void HFParser::parseBert(ObjectReader &root) {
  fieldNames = {{"d_model", "hidden_size"},
                {"num_heads", "num_attention_heads"},
                {"num_kv_heads", "num_attention_heads"},
                {"head_dim", "hidden_size"},
                {"max_seq_len", "max_position_embeddings"},
                {"num_layers", "num_hidden_layers"},
                {"ffn_hidden_size", "intermediate_size"},
                {"num_classes", "num_labels"},
                {"token_types", "type_vocab_size"}};
  config.scheme = WeightScheme::Bert;
  config.arch = Architecture::Encoder;
  config.vocabSize =
      root.getInt("vocab_size", false, 1, limits::kMaxVocab).value_or(30522);
  config.dModel =
      root.getInt("hidden_size", false, 1, limits::kMaxDModel).value_or(768);
  config.numHeads =
      root.getInt("num_attention_heads", false, 1, limits::kMaxHeads)
          .value_or(12);
  config.numKvHeads = config.numHeads;
  int64_t layers = root.getInt("num_hidden_layers", false, 1, limits::kMaxLayers)
                       .value_or(12);
  config.maxSeqLen =
      root.getInt("max_position_embeddings", false, 1, limits::kMaxSeqLen)
          .value_or(512);
  config.tokenTypes =
      root.getInt("type_vocab_size", false, 0, limits::kMaxTokenTypes)
          .value_or(2);
  if (errors.failed())
    return;
  if (config.dModel % config.numHeads != 0) {
    root.error("hidden_size",
               formatv("{0} is not divisible by num_attention_heads ({1})",
                       config.dModel, config.numHeads));
    return;
  }
  config.headDim = config.dModel / config.numHeads;
  LayerConfig layer;
  layer.mask = MaskKind::none;
  layer.ffnHidden =
      root.getInt("intermediate_size", false, 1, limits::kMaxFfnHidden)
          .value_or(3072);
  layer.ffnBias = true;
  if (auto act = readActivation(root, "hidden_act", "gelu", false))
    layer.activation = *act;
  config.encoderLayers = uniformLayers(layers, layer);
  config.norm.kind = NormKind::LayerNorm;
  config.norm.eps =
      root.getEpsilon("layer_norm_eps", false).value_or(1e-12);
  config.norm.bias = true;
  config.preNorm = false;
  config.finalNorm = false;
  config.embeddingNorm = true;
  config.positions = PositionKind::Learned;
  config.qkvBias = config.outBias = true;
  if (auto kind = root.getString("position_embedding_type", false))
    if (*kind != "absolute")
      root.error("position_embedding_type",
                 "\"" + *kind + "\" is not supported (supported: absolute)");
  requireBool(root, "is_decoder", false);
  requireBool(root, "add_cross_attention", false);
  readArchitecture(root, "bert",
                   {{"BertModel", HeadKind::None},
                    {"BertForSequenceClassification", HeadKind::Classifier},
                    {"BertForMaskedLM", HeadKind::MaskedLm}},
                   HeadKind::None);
  if (config.head == HeadKind::Classifier) {
    readNumClasses(root);
    config.pooling = mlir::tfm::Pooling::first;
    config.pooler = true;
  }
  if (config.head == HeadKind::MaskedLm) {
    config.tieEmbeddings = true;
    config.mlmActivation = layer.activation;
  }
  pickPrefix("embeddings.word_embeddings.weight", "bert.",
             config.head != HeadKind::None);
  std::string prefix = config.prefix;
  HeadKind head = config.head;
  config.isIgnorableTensor = [prefix, head](StringRef name) {
    if (name == "cls.predictions.decoder.weight" ||
        name == "cls.predictions.decoder.bias")
      return head == HeadKind::MaskedLm; // tied to the embedding / bias
    if (!name.consume_front(prefix))
      return false;
    // A buffer, and the pooler that BertModel has but does not output.
    return name == "embeddings.position_ids" ||
           (head != HeadKind::Classifier && name.starts_with("pooler.dense."));
  };
}

void HFParser::parseLlamaFamily(ObjectReader &root, StringRef modelType) {
  fieldNames = {{"d_model", "hidden_size"},
                {"num_heads", "num_attention_heads"},
                {"num_kv_heads", "num_key_value_heads"},
                {"max_seq_len", "max_position_embeddings"},
                {"num_layers", "num_hidden_layers"},
                {"ffn_hidden_size", "intermediate_size"},
                {"num_classes", "num_labels"},
                {"window", "sliding_window"},
                {"rotary_dim", "partial_rotary_factor"}};
  bool isMistral = modelType == "mistral", isQwen2 = modelType == "qwen2";
  config.scheme = WeightScheme::Llama;
  config.arch = Architecture::Decoder;
  config.vocabSize = root.getInt("vocab_size", false, 1, limits::kMaxVocab)
                         .value_or(isQwen2 ? 151936 : 32000);
  config.dModel =
      root.getInt("hidden_size", false, 1, limits::kMaxDModel).value_or(4096);
  config.numHeads =
      root.getInt("num_attention_heads", false, 1, limits::kMaxHeads)
          .value_or(32);
  config.numKvHeads =
      root.getInt("num_key_value_heads", false, 1, limits::kMaxHeads)
          .value_or(isMistral ? 8 : config.numHeads);
  int64_t layers =
      root.getInt("num_hidden_layers", false, 1, limits::kMaxLayers)
          .value_or(32);
  config.maxSeqLen =
      root.getInt("max_position_embeddings", false, 1, limits::kMaxSeqLen)
          .value_or(isMistral ? 4096 * 32 : isQwen2 ? 32768 : 2048);
  if (errors.failed())
    return;
  if (auto headDim = root.getInt("head_dim", false, 1, limits::kMaxHeadDim)) {
    config.headDim = *headDim;
  } else if (config.dModel % config.numHeads != 0) {
    root.error("hidden_size",
               formatv("{0} is not divisible by num_attention_heads ({1})",
                       config.dModel, config.numHeads));
    return;
  } else {
    config.headDim = config.dModel / config.numHeads;
  }
  if (config.numHeads % config.numKvHeads != 0) {
    root.error("num_attention_heads",
               formatv("{0} is not a multiple of num_key_value_heads ({1})",
                       config.numHeads, config.numKvHeads));
    return;
  }

  LayerConfig layer;
  layer.mask = MaskKind::causal;
  layer.ffnHidden =
      root.getInt("intermediate_size", false, 1, limits::kMaxFfnHidden)
          .value_or(isMistral ? 14336 : isQwen2 ? 22016 : 11008);
  if (auto act = readActivation(root, "hidden_act", "silu", /*gated=*/true))
    layer.activation = *act;
  if (modelType == "llama") {
    config.qkvBias = config.outBias =
        root.getBool("attention_bias", false).value_or(false);
    layer.ffnBias = root.getBool("mlp_bias", false).value_or(false);
  } else {
    config.qkvBias = isQwen2;
    config.outBias = false;
    requireBool(root, "attention_bias", config.qkvBias);
    requireBool(root, "mlp_bias", false);
  }

  // Sliding windows: Mistral applies `sliding_window` (default 4096, null
  // for none) to every layer; Qwen2 only with use_sliding_window, to layers
  // at and beyond max_window_layers; `layer_types` overrides both.
  std::optional<int64_t> window;
  if (isMistral || isQwen2) {
    if (!root.isNull("sliding_window"))
      window = root.getInt("sliding_window", false, 1, limits::kMaxWindow)
                   .value_or(4096);
  } else if (root.has("sliding_window")) {
    root.error("sliding_window",
               "is not supported for model_type \"" + modelType + "\"");
  }
  std::vector<bool> sliding(layers, isMistral && window.has_value());
  if (isQwen2) {
    bool use = root.getBool("use_sliding_window", false).value_or(false);
    int64_t first =
        root.getInt("max_window_layers", false, 0, limits::kMaxLayers)
            .value_or(28);
    for (int64_t i = 0; i < layers; ++i)
      sliding[i] = use && window && i >= first;
  }
  if (const json::Array *types = root.getArray("layer_types", false)) {
    std::string path = root.fieldPath("layer_types");
    if (int64_t(types->size()) != layers) {
      errors.report(path, formatv("has {0} entries, expected {1} "
                                  "(num_hidden_layers)",
                                  types->size(), layers));
      return;
    }
    for (int64_t i = 0; i < layers; ++i) {
      std::optional<StringRef> type = (*types)[i].getAsString();
      if (type == "full_attention") {
        sliding[i] = false;
      } else if (type == "sliding_attention" && window) {
        sliding[i] = true;
      } else {
        errors.report(indexPath(path, i),
                      type == "sliding_attention"
                          ? "sliding_attention needs a sliding_window"
                          : "expected \"full_attention\" or "
                            "\"sliding_attention\"");
        return;
      }
    }
  }
  for (int64_t i = 0; i < layers; ++i) {
    LayerConfig l = layer;
    if (sliding[i]) {
      l.mask = MaskKind::sliding_window;
      l.window = *window;
    }
    config.decoderLayers.push_back(l);
  }

  config.norm.kind = NormKind::RmsNorm;
  config.norm.bias = false;
  config.norm.eps =
      root.getEpsilon("rms_norm_eps", false).value_or(1e-6);
  config.preNorm = true;
  config.finalNorm = true;
  config.positions = PositionKind::Rope;
  config.ropeStyle = mlir::tfm::RopeStyle::rotate_half;
  config.ropeTheta = root.getNumber("rope_theta", false, 1.0, 1e12, true)
                         .value_or(isQwen2 ? 10000.0 : 10000.0);

  // rope_scaling (transformers 4.x) and rope_parameters (5.x): only the
  // default and linear kinds.
  for (StringRef key : {"rope_scaling", "rope_parameters"}) {
    const json::Object *object = root.getObject(key, false);
    if (!object)
      continue;
    ObjectReader rope(errors, object, root.fieldPath(key), /*strict=*/false,
                      /*nullIsAbsent=*/true);
    StringRef typeKey = rope.has("rope_type") ? "rope_type" : "type";
    std::string type = rope.getString(typeKey, false).value_or("default");
    if (type == "linear") {
      config.ropeScaling =
          rope.getNumber("factor", true, 0.0, 1e6, true).value_or(1.0);
    } else if (type != "default") {
      rope.error(typeKey, "\"" + type + "\" is not supported (supported: "
                                        "default, linear)");
    }
    if (auto theta = rope.getNumber("rope_theta", false, 1.0, 1e12, true))
      config.ropeTheta = *theta;
    if (auto factor = rope.getNumber("partial_rotary_factor", false, 0.0, 1.0,
                                     true))
      config.rotaryDim = int64_t(std::lround(config.headDim * *factor));
  }
  if (auto factor =
          root.getNumber("partial_rotary_factor", false, 0.0, 1.0, true))
    config.rotaryDim = int64_t(std::lround(config.headDim * *factor));

  config.tieEmbeddings =
      root.getBool("tie_word_embeddings", false).value_or(false);
  std::string cls = modelType == "llama"     ? "Llama"
                    : modelType == "mistral" ? "Mistral"
                                             : "Qwen2";
  std::string causal = cls + "ForCausalLM", model = cls + "Model",
              classifier = cls + "ForSequenceClassification";
  readArchitecture(root, modelType,
                   {{causal, HeadKind::Lm},
                    {model, HeadKind::None},
                    {classifier, HeadKind::Classifier}},
                   HeadKind::Lm);
  if (config.head != HeadKind::Lm)
    config.tieEmbeddings = false;
  if (config.head == HeadKind::Classifier) {
    readNumClasses(root);
    config.pooling = mlir::tfm::Pooling::last;
  }
  pickPrefix("embed_tokens.weight", "model.", config.head != HeadKind::None);
  std::string prefix = config.prefix;
  bool tied = config.tieEmbeddings;
  config.isIgnorableTensor = [prefix, tied](StringRef name) {
    static const Regex buffer(
        "^layers\\.[0-9]+\\.self_attn\\.rotary_emb\\.inv_freq$");
    return (name.consume_front(prefix) && buffer.match(name)) ||
           (tied && name == "lm_head.weight");
  };
}

Expected<ModelConfig> HFParser::parse(StringRef text) {
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
  ObjectReader root(errors, object, "", /*strict=*/false,
                    /*nullIsAbsent=*/true);
  std::optional<std::string> modelType = root.getString("model_type", true);
  if (!modelType)
    return errors.takeError();
  config.name = hfModelName(root.getString("_name_or_path", false),
                            errors.getFile(), *modelType);
  if (*modelType == "gpt2")
    parseGPT2(root);
  else if (*modelType == "bert")
    parseBert(root);
  else if (*modelType == "llama" || *modelType == "mistral" ||
           *modelType == "qwen2")
    parseLlamaFamily(root, *modelType);
  else
    root.error("model_type", "unsupported model_type \"" + *modelType +
                                 "\" (supported: " + supportedHFModelTypes() +
                                 ")");
  if (errors.failed())
    return errors.takeError();
  if (Error e = validateModelConfig(config, [&](StringRef field) {
        auto it = fieldNames.find(field);
        return it == fieldNames.end() ? field.str() : it->second;
      }))
    return std::move(e);
  return std::move(config);
}

} // namespace

Expected<ModelConfig> parseHFConfig(StringRef text, StringRef path,
                                    const std::vector<StringRef> *weightNames) {
  HFParser parser(path, weightNames);
  return parser.parse(text);
}

} // namespace tfm
