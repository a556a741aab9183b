//===- HFConfig.cpp - Hugging Face config.json to ModelConfig -------------===//
//
// Reads the config.json of a Hugging Face checkpoint for the model types
// of supportedHFModelTypes(). Every field that changes the math is
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

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace tfm::detail;
using mlir::tfm::Activation;
using mlir::tfm::MaskKind;

namespace tfm {

StringRef supportedHFModelTypes() {
  return "gpt2, bert, roberta, distilbert, llama, mistral, qwen2, qwen3, "
         "gemma, phi3, t5, vit";
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
  void parseBert(ObjectReader &root, StringRef modelType);
  void parseLlamaFamily(ObjectReader &root, StringRef modelType);
  void parseT5(ObjectReader &root);
  void parseViT(ObjectReader &root);
  void parseDistilBert(ObjectReader &root);
  /// An image or patch size: one integer, or [height, width].
  std::optional<std::pair<int64_t, int64_t>>
  readSize2D(ObjectReader &root, StringRef key, int64_t fallback);
  /// RoPE base, partial rotation and scaling (rope_scaling of transformers
  /// 4.x, rope_parameters of 5.x): default, linear, llama3, yarn, longrope.
  void readRope(ObjectReader &root, StringRef modelType);
  /// Errors when `key` holds anything but null: a feature tfm does not
  /// implement (`what` says which).
  void rejectIfSet(ObjectReader &root, StringRef key, StringRef what);

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
  /// head_dim = d_model / num_heads (config.dModel, config.numHeads, read
  /// from `dKey` and `headsKey`); false, with the error on `dKey`, when they
  /// do not divide.
  bool headDimFromDModel(ObjectReader &root, StringRef dKey,
                         StringRef headsKey);
  /// The layer of a BERT-like encoder: bidirectional, biased FFN of
  /// `ffnKey` (default `ffnDefault`) features and activation `actKey`.
  LayerConfig encoderLayer(ObjectReader &root, StringRef ffnKey,
                           int64_t ffnDefault, StringRef actKey);
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

bool HFParser::headDimFromDModel(ObjectReader &root, StringRef dKey,
                                 StringRef headsKey) {
  if (config.dModel % config.numHeads != 0) {
    root.error(dKey, formatv("{0} is not divisible by {1} ({2})", config.dModel,
                             headsKey, config.numHeads));
    return false;
  }
  config.headDim = config.dModel / config.numHeads;
  return true;
}

LayerConfig HFParser::encoderLayer(ObjectReader &root, StringRef ffnKey,
                                   int64_t ffnDefault, StringRef actKey) {
  LayerConfig layer;
  layer.mask = MaskKind::none;
  layer.ffnHidden =
      root.getInt(ffnKey, false, 1, limits::kMaxFfnHidden).value_or(ffnDefault);
  layer.ffnBias = true;
  if (auto act = readActivation(root, actKey, "gelu", false))
    layer.activation = *act;
  return layer;
}

void HFParser::rejectIfSet(ObjectReader &root, StringRef key, StringRef what) {
  if (root.has(key) && !root.isNull(key))
    root.error(key, what + " is not supported by tfm");
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
              .Cases({"gelu_new", "gelu_pytorch_tanh"}, Activation::geglu_tanh)
              .Default(std::nullopt);
  else
    act = StringSwitch<std::optional<Activation>>(name)
              .Case("relu", Activation::relu)
              .Case("gelu", Activation::gelu)
              .Cases({"gelu_new", "gelu_pytorch_tanh"}, Activation::gelu_tanh)
              .Cases({"silu", "swish"}, Activation::silu)
              .Default(std::nullopt);
  if (!act)
    root.error(key, "activation \"" + name +
                        "\" is not supported (supported: " +
                        (gated ? "silu, swish, gelu, gelu_new, "
                                 "gelu_pytorch_tanh"
                               : "relu, gelu, gelu_new, gelu_pytorch_tanh, "
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
  if (!headDimFromDModel(root, "n_embd", "n_head"))
    return;
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

void HFParser::parseBert(ObjectReader &root, StringRef modelType) {
  bool isRoberta = modelType == "roberta";
  fieldNames = {{"d_model", "hidden_size"},
                {"num_heads", "num_attention_heads"},
                {"num_kv_heads", "num_attention_heads"},
                {"head_dim", "hidden_size"},
                {"max_seq_len", "max_position_embeddings"},
                {"num_layers", "num_hidden_layers"},
                {"ffn_hidden_size", "intermediate_size"},
                {"num_classes", "num_labels"},
                {"token_types", "type_vocab_size"}};
  config.scheme = isRoberta ? WeightScheme::Roberta : WeightScheme::Bert;
  config.arch = Architecture::Encoder;
  config.vocabSize = root.getInt("vocab_size", false, 1, limits::kMaxVocab)
                         .value_or(isRoberta ? 50265 : 30522);
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
  if (isRoberta) {
    // Position ids start after the padding row: token t reads row
    // pad_token_id + 1 + t (RoBERTa's create_position_ids_from_input_ids
    // for sequences without pad tokens inside them).
    int64_t pad =
        root.getInt("pad_token_id", false, 0, limits::kMaxSeqLen).value_or(1);
    if (errors.failed())
      return;
    if (pad + 1 >= config.maxSeqLen) {
      root.error("max_position_embeddings",
                 formatv("{0} leaves no positions after pad_token_id + 1 "
                         "({1})",
                         config.maxSeqLen, pad + 1));
      return;
    }
    config.positionOffset = pad + 1;
    config.maxSeqLen -= pad + 1;
  }
  if (!headDimFromDModel(root, "hidden_size", "num_attention_heads"))
    return;
  LayerConfig layer =
      encoderLayer(root, "intermediate_size", 3072, "hidden_act");
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
  std::string cls = isRoberta ? "Roberta" : "Bert";
  readArchitecture(root, modelType,
                   {{cls + "Model", HeadKind::None},
                    {cls + "ForSequenceClassification", HeadKind::Classifier},
                    {cls + "ForMaskedLM", HeadKind::MaskedLm}},
                   HeadKind::None);
  if (config.head == HeadKind::Classifier) {
    readNumClasses(root);
    config.pooling = mlir::tfm::Pooling::first;
    config.pooler = true;
  }
  if (config.head == HeadKind::MaskedLm) {
    config.tieEmbeddings = true;
    // BertLMPredictionHead applies hidden_act; RobertaLMHead always gelu.
    config.mlmActivation = isRoberta ? Activation::gelu : layer.activation;
  }
  pickPrefix("embeddings.word_embeddings.weight",
             isRoberta ? "roberta." : "bert.", config.head != HeadKind::None);
  std::string prefix = config.prefix;
  HeadKind head = config.head;
  config.isIgnorableTensor = [prefix, head, isRoberta](StringRef name) {
    StringRef decoder =
        isRoberta ? "lm_head.decoder." : "cls.predictions.decoder.";
    if (name == (decoder + "weight").str() || name == (decoder + "bias").str())
      return head == HeadKind::MaskedLm; // tied to the embedding / bias
    if (!name.consume_front(prefix))
      return false;
    // A buffer, and the pooler that BertModel has but does not output.
    return name == "embeddings.position_ids" ||
           name == "embeddings.token_type_ids" ||
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
  bool isLlama = modelType == "llama", isMistral = modelType == "mistral",
       isQwen2 = modelType == "qwen2", isQwen3 = modelType == "qwen3",
       isGemma = modelType == "gemma", isPhi3 = modelType == "phi3";
  bool isQwen = isQwen2 || isQwen3;
  // The defaults of each transformers configuration class.
  config.scheme = isPhi3 ? WeightScheme::Phi3 : WeightScheme::Llama;
  config.arch = Architecture::Decoder;
  config.vocabSize = root.getInt("vocab_size", false, 1, limits::kMaxVocab)
                         .value_or(isQwen    ? 151936
                                   : isGemma ? 256000
                                   : isPhi3  ? 32064
                                             : 32000);
  config.dModel = root.getInt("hidden_size", false, 1, limits::kMaxDModel)
                      .value_or(isGemma || isPhi3 ? 3072 : 4096);
  config.numHeads =
      root.getInt("num_attention_heads", false, 1, limits::kMaxHeads)
          .value_or(isGemma ? 16 : 32);
  config.numKvHeads =
      root.getInt("num_key_value_heads", false, 1, limits::kMaxHeads)
          .value_or(isMistral ? 8 : config.numHeads);
  int64_t layers =
      root.getInt("num_hidden_layers", false, 1, limits::kMaxLayers)
          .value_or(isGemma ? 28 : 32);
  config.maxSeqLen =
      root.getInt("max_position_embeddings", false, 1, limits::kMaxSeqLen)
          .value_or(isMistral ? 4096 * 32
                    : isQwen  ? 32768
                    : isGemma ? 8192
                    : isPhi3  ? 4096
                              : 2048);
  if (errors.failed())
    return;
  if (auto headDim = root.getInt("head_dim", false, 1, limits::kMaxHeadDim)) {
    config.headDim = *headDim;
  } else if (errors.failed()) {
    return;
  } else if (isQwen3 || isGemma) {
    // Fields of their configuration classes, independent of hidden_size.
    config.headDim = isQwen3 ? 128 : 256;
  } else if (!headDimFromDModel(root, "hidden_size", "num_attention_heads")) {
    return;
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
          .value_or(isMistral ? 14336
                    : isQwen  ? 22016
                    : isGemma ? 24576
                    : isPhi3  ? 8192
                              : 11008);
  if (isGemma) {
    // Gemma's MLP is GeGLU with the tanh GELU whatever the spelling:
    // transformers turns its released configs' "gelu" into
    // gelu_pytorch_tanh; 4.x configs may say so in hidden_activation.
    StringRef key =
        root.has("hidden_activation") && !root.isNull("hidden_activation")
            ? "hidden_activation"
            : "hidden_act";
    std::string name = root.getString(key, false).value_or("gelu_pytorch_tanh");
    if (name == "gelu" || name == "gelu_pytorch_tanh" || name == "gelu_new")
      layer.activation = Activation::geglu_tanh;
    else
      root.error(key, "activation \"" + name +
                          "\" is not supported for gemma (supported: gelu, "
                          "gelu_new, gelu_pytorch_tanh)");
  } else if (auto act = readActivation(root, "hidden_act", "silu",
                                       /*gated=*/true)) {
    layer.activation = *act;
  }
  if (isLlama) {
    config.qkvBias = config.outBias =
        root.getBool("attention_bias", false).value_or(false);
    layer.ffnBias = root.getBool("mlp_bias", false).value_or(false);
  } else if (isQwen3 || isGemma) {
    config.qkvBias = config.outBias =
        root.getBool("attention_bias", false).value_or(false);
    requireBool(root, "mlp_bias", false);
  } else {
    // Mistral and Phi-3 have no biases; Qwen2 has them on q, k and v.
    config.qkvBias = isQwen2;
    config.outBias = false;
    requireBool(root, "attention_bias", config.qkvBias);
    requireBool(root, "mlp_bias", false);
  }
  config.qkNorm = isQwen3;
  if (isGemma) {
    requireBool(root, "use_bidirectional_attention", false);
    // Gemma 2's additions, should a config carry them.
    rejectIfSet(root, "attn_logit_softcapping",
                "soft-capping of attention scores (Gemma 2)");
    rejectIfSet(root, "final_logit_softcapping",
                "soft-capping of the logits (Gemma 2)");
    rejectIfSet(root, "query_pre_attn_scalar",
                "a query scale other than head_dim^-0.5 (Gemma 2)");
  }

  // Sliding windows: Mistral and Phi-3 apply `sliding_window` (Mistral's
  // default 4096, Phi-3's none; null for none) to every layer; Qwen2/3
  // only with use_sliding_window, to layers at and beyond
  // max_window_layers; `layer_types` overrides these.
  std::optional<int64_t> window;
  if (isMistral || isQwen || isPhi3) {
    if (!root.isNull("sliding_window")) {
      std::optional<int64_t> value =
          root.getInt("sliding_window", false, 1, limits::kMaxWindow);
      if (value || !isPhi3)
        window = value.value_or(4096);
    }
  } else if (root.has("sliding_window")) {
    root.error("sliding_window",
               "is not supported for model_type \"" + modelType + "\"");
  }
  std::vector<bool> sliding(layers,
                            (isMistral || isPhi3) && window.has_value());
  if (isQwen) {
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
      root.getEpsilon("rms_norm_eps", false).value_or(isPhi3 ? 1e-5 : 1e-6);
  // Gemma's RMSNorm multiplies by (1 + w); its embeddings by sqrt(d).
  config.norm.gammaOffset = isGemma ? 1.0 : 0.0;
  config.embedScale = isGemma;
  config.preNorm = true;
  config.finalNorm = true;
  config.positions = PositionKind::Rope;
  config.ropeStyle = mlir::tfm::RopeStyle::rotate_half;
  readRope(root, modelType);

  config.tieEmbeddings =
      root.getBool("tie_word_embeddings", false).value_or(isGemma);
  std::string cls = isLlama     ? "Llama"
                    : isMistral ? "Mistral"
                    : isQwen2   ? "Qwen2"
                    : isQwen3   ? "Qwen3"
                    : isGemma   ? "Gemma"
                                : "Phi3";
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

void HFParser::parseT5(ObjectReader &root) {
  fieldNames = {{"d_model", "d_model"},
                {"num_heads", "num_heads"},
                {"num_kv_heads", "num_heads"},
                {"head_dim", "d_kv"},
                {"max_seq_len", "n_positions"},
                {"num_layers", "num_layers"},
                {"ffn_hidden_size", "d_ff"},
                {"relative_buckets", "relative_attention_num_buckets"},
                {"relative_max_distance", "relative_attention_max_distance"}};
  config.scheme = WeightScheme::T5;
  config.vocabSize =
      root.getInt("vocab_size", false, 1, limits::kMaxVocab).value_or(32128);
  config.dModel =
      root.getInt("d_model", false, 1, limits::kMaxDModel).value_or(512);
  config.headDim =
      root.getInt("d_kv", false, 1, limits::kMaxHeadDim).value_or(64);
  config.numHeads =
      root.getInt("num_heads", false, 1, limits::kMaxHeads).value_or(8);
  config.numKvHeads = config.numHeads;
  int64_t encoderLayers =
      root.getInt("num_layers", false, 1, limits::kMaxLayers).value_or(6);
  int64_t decoderLayers =
      root.getInt("num_decoder_layers", false, 1, limits::kMaxLayers)
          .value_or(encoderLayers);
  // Relative positions have no table limit; n_positions (old configs)
  // bounds the compiled length, else T5's 512.
  config.maxSeqLen =
      root.getInt("n_positions", false, 1, limits::kMaxSeqLen).value_or(512);
  config.relativeBuckets =
      root.getInt("relative_attention_num_buckets", false, 1, 1 << 16)
          .value_or(32);
  config.relativeMaxDistance = root.getInt("relative_attention_max_distance",
                                           false, 1, limits::kMaxSeqLen)
                                   .value_or(128);
  if (errors.failed())
    return;

  // feed_forward_proj: "ACT" or "gated-ACT"; "gated-gelu" means the tanh
  // GELU (T5 v1.1, Flan-T5). Configs saved by transformers also hold the
  // derived dense_act_fn and is_gated_act, which win.
  std::string proj =
      root.getString("feed_forward_proj", false).value_or("relu");
  StringRef projRef = proj;
  bool gated = projRef.consume_front("gated-");
  std::string act = proj == "gated-gelu" ? "gelu_new" : projRef.str();
  if (auto saved = root.getString("dense_act_fn", false))
    act = *saved;
  if (auto saved = root.getBool("is_gated_act", false))
    gated = *saved;
  if (errors.failed())
    return;
  std::optional<Activation> activation;
  if (gated)
    activation =
        StringSwitch<std::optional<Activation>>(act)
            .Case("gelu", Activation::geglu)
            .Cases({"gelu_new", "gelu_pytorch_tanh"}, Activation::geglu_tanh)
            .Cases({"silu", "swish"}, Activation::swiglu)
            .Default(std::nullopt);
  else
    activation =
        StringSwitch<std::optional<Activation>>(act)
            .Case("relu", Activation::relu)
            .Case("gelu", Activation::gelu)
            .Cases({"gelu_new", "gelu_pytorch_tanh"}, Activation::gelu_tanh)
            .Cases({"silu", "swish"}, Activation::silu)
            .Default(std::nullopt);
  if (!activation) {
    root.error("feed_forward_proj",
               "\"" + proj +
                   "\" is not supported (supported: relu, gelu, gelu_new, "
                   "silu, gated-gelu, gated-silu)");
    return;
  }
  LayerConfig encoderLayer;
  encoderLayer.mask = MaskKind::none;
  encoderLayer.ffnHidden =
      root.getInt("d_ff", false, 1, limits::kMaxFfnHidden).value_or(2048);
  encoderLayer.activation = *activation;
  encoderLayer.ffnBias = false;
  LayerConfig decoderLayer = encoderLayer;
  decoderLayer.mask = MaskKind::causal;

  config.norm.kind = NormKind::RmsNorm;
  config.norm.bias = false;
  config.norm.eps = root.getEpsilon("layer_norm_epsilon", false).value_or(1e-6);
  config.preNorm = true;
  config.finalNorm = true;
  config.positions = PositionKind::RelativeBias;
  // T5 folds 1 / sqrt(d_kv) into its initialization: scores are unscaled.
  config.attentionScale = 1.0;
  requireBool(root, "is_decoder", false);

  readArchitecture(root, "t5",
                   {{"T5ForConditionalGeneration", HeadKind::Lm},
                    {"T5Model", HeadKind::None},
                    {"T5EncoderModel", HeadKind::None}},
                   HeadKind::Lm);
  bool encoderOnly = false;
  if (const json::Array *archs = root.getArray("architectures", false))
    encoderOnly = !archs->empty() &&
                  (*archs)[0].getAsString() == StringRef("T5EncoderModel");
  config.arch =
      encoderOnly ? Architecture::Encoder : Architecture::EncoderDecoder;
  config.encoderLayers = uniformLayers(encoderLayers, encoderLayer);
  if (!encoderOnly)
    config.decoderLayers = uniformLayers(decoderLayers, decoderLayer);
  // The head: a checkpoint that stores lm_head.weight (T5 1.1, Flan-T5)
  // uses it, else the shared embedding (T5 1.0); without weights to look
  // at, tie_word_embeddings says which. The decoder output is scaled by
  // d_model^-0.5 where scale_decoder_outputs (transformers 5) or
  // tie_word_embeddings (4.x) says so.
  bool tieFlag = root.getBool("tie_word_embeddings", false).value_or(true);
  bool scale = root.getBool("scale_decoder_outputs", false).value_or(tieFlag);
  bool tied = tieFlag;
  if (weightNames)
    tied = !llvm::is_contained(*weightNames, StringRef("lm_head.weight"));
  config.tieEmbeddings = tied && config.head == HeadKind::Lm;
  if (scale && config.head == HeadKind::Lm)
    config.headInputScale = 1.0 / std::sqrt(double(config.dModel));
  config.prefix = "";
  HeadKind head = config.head;
  config.isIgnorableTensor = [head, encoderOnly](StringRef name) {
    // Copies of shared.weight, and what a checkpoint holds beyond the
    // model class that reads it. A tied head never ignores an
    // lm_head.weight: compiled from config.json alone, a checkpoint with
    // its own head is an error, not a silently different model.
    return name == "encoder.embed_tokens.weight" ||
           name == "decoder.embed_tokens.weight" ||
           (name == "lm_head.weight" && head != HeadKind::Lm) ||
           (encoderOnly && name.starts_with("decoder."));
  };
}

std::optional<std::pair<int64_t, int64_t>>
HFParser::readSize2D(ObjectReader &root, StringRef key, int64_t fallback) {
  constexpr int64_t kMax = 1 << 16;
  if (const json::Value *value = root.getValue(key)) {
    if (const json::Array *pair = value->getAsArray()) {
      std::string path = root.fieldPath(key);
      if (pair->size() != 2) {
        errors.report(path, formatv("has {0} entries, expected 2 ([height, "
                                    "width])",
                                    pair->size()));
        return std::nullopt;
      }
      int64_t hw[2];
      for (int i = 0; i < 2; ++i) {
        // Integers only: getAsUINT64 refuses 16.0.
        std::optional<uint64_t> v = (*pair)[i].getAsUINT64();
        if (!v || *v < 1 || *v > uint64_t(kMax)) {
          errors.report(indexPath(path, i),
                        formatv("expected an integer in [1, {0}]", kMax));
          return std::nullopt;
        }
        hw[i] = *v;
      }
      return std::make_pair(hw[0], hw[1]);
    }
  }
  std::optional<int64_t> n = root.getInt(key, false, 1, kMax);
  if (errors.failed())
    return std::nullopt;
  return std::make_pair(n.value_or(fallback), n.value_or(fallback));
}

void HFParser::parseDistilBert(ObjectReader &root) {
  fieldNames = {{"d_model", "dim"},
                {"num_heads", "n_heads"},
                {"num_kv_heads", "n_heads"},
                {"head_dim", "dim"},
                {"max_seq_len", "max_position_embeddings"},
                {"num_layers", "n_layers"},
                {"ffn_hidden_size", "hidden_dim"},
                {"num_classes", "num_labels"}};
  config.scheme = WeightScheme::DistilBert;
  config.arch = Architecture::Encoder;
  config.vocabSize =
      root.getInt("vocab_size", false, 1, limits::kMaxVocab).value_or(30522);
  config.dModel =
      root.getInt("dim", false, 1, limits::kMaxDModel).value_or(768);
  config.numHeads =
      root.getInt("n_heads", false, 1, limits::kMaxHeads).value_or(12);
  config.numKvHeads = config.numHeads;
  int64_t layers =
      root.getInt("n_layers", false, 1, limits::kMaxLayers).value_or(6);
  config.maxSeqLen =
      root.getInt("max_position_embeddings", false, 1, limits::kMaxSeqLen)
          .value_or(512);
  if (errors.failed())
    return;
  if (!headDimFromDModel(root, "dim", "n_heads"))
    return;
  LayerConfig layer =
      encoderLayer(root, "hidden_dim", 4 * config.dModel, "activation");
  config.encoderLayers = uniformLayers(layers, layer);
  // DistilBERT's LayerNorms all use 1e-12, not a config field.
  config.norm.kind = NormKind::LayerNorm;
  config.norm.eps = 1e-12;
  config.norm.bias = true;
  config.preNorm = false;
  config.finalNorm = false;
  config.embeddingNorm = true;
  // Learned positions; with sinusoidal_pos_embds the table holds sinusoids,
  // stored like any other weight, so it is read the same way.
  config.positions = PositionKind::Learned;
  config.qkvBias = config.outBias = true;
  readArchitecture(
      root, "distilbert",
      {{"DistilBertModel", HeadKind::None},
       {"DistilBertForSequenceClassification", HeadKind::Classifier},
       {"DistilBertForMaskedLM", HeadKind::MaskedLm}},
      HeadKind::None);
  if (config.head == HeadKind::Classifier) {
    readNumClasses(root);
    config.pooling = mlir::tfm::Pooling::first;
    config.pooler = true;
    config.poolerActivation = Activation::relu;
  }
  if (config.head == HeadKind::MaskedLm) {
    // The decoder (vocab_projector) is the token embedding when tied; a
    // checkpoint that stores its own is read, as transformers reads it.
    config.tieEmbeddings =
        root.getBool("tie_word_embeddings", false).value_or(true);
    if (weightNames)
      config.tieEmbeddings = !llvm::is_contained(
          *weightNames, StringRef("vocab_projector.weight"));
    config.mlmActivation = layer.activation;
  }
  pickPrefix("embeddings.word_embeddings.weight", "distilbert.",
             config.head != HeadKind::None);
  // A tied decoder compiled from config.json alone never ignores a stored
  // vocab_projector.weight: a checkpoint with its own is an error, not a
  // silently different model.
  config.isIgnorableTensor = [](StringRef) { return false; };
}

void HFParser::parseViT(ObjectReader &root) {
  fieldNames = {{"d_model", "hidden_size"},
                {"num_heads", "num_attention_heads"},
                {"num_kv_heads", "num_attention_heads"},
                {"head_dim", "hidden_size"},
                {"max_seq_len", "image_size"},
                {"num_layers", "num_hidden_layers"},
                {"ffn_hidden_size", "intermediate_size"},
                {"num_classes", "num_labels"}};
  config.scheme = WeightScheme::ViT;
  config.arch = Architecture::Encoder;
  config.vocabSize = 0;
  config.dModel =
      root.getInt("hidden_size", false, 1, limits::kMaxDModel).value_or(768);
  config.numHeads =
      root.getInt("num_attention_heads", false, 1, limits::kMaxHeads)
          .value_or(12);
  config.numKvHeads = config.numHeads;
  int64_t layers =
      root.getInt("num_hidden_layers", false, 1, limits::kMaxLayers)
          .value_or(12);
  ImageConfig image;
  image.channels = root.getInt("num_channels", false, 1, 1 << 16).value_or(3);
  std::optional<std::pair<int64_t, int64_t>> size =
      readSize2D(root, "image_size", 224);
  std::optional<std::pair<int64_t, int64_t>> patch =
      readSize2D(root, "patch_size", 16);
  if (errors.failed() || !size || !patch)
    return;
  if (patch->first != patch->second) {
    root.error("patch_size", formatv("{0} x {1} patches are not supported "
                                     "(square patches only)",
                                     patch->first, patch->second));
    return;
  }
  image.height = size->first;
  image.width = size->second;
  image.patch = patch->first;
  if (image.height % image.patch != 0 || image.width % image.patch != 0) {
    root.error("patch_size",
               formatv("{0} does not tile the {1} x {2} image (image_size)",
                       image.patch, image.height, image.width));
    return;
  }
  config.image = image;
  // The [CLS] token and one token per patch.
  config.maxSeqLen = image.patches() + 1;
  if (!headDimFromDModel(root, "hidden_size", "num_attention_heads"))
    return;
  LayerConfig layer =
      encoderLayer(root, "intermediate_size", 3072, "hidden_act");
  config.encoderLayers = uniformLayers(layers, layer);
  config.norm.kind = NormKind::LayerNorm;
  config.norm.bias = true;
  config.norm.eps = root.getEpsilon("layer_norm_eps", false).value_or(1e-12);
  config.preNorm = true;
  config.finalNorm = true;
  config.positions = PositionKind::Learned;
  config.qkvBias = root.getBool("qkv_bias", false).value_or(true);
  config.outBias = true;
  readArchitecture(root, "vit",
                   {{"ViTForImageClassification", HeadKind::Classifier},
                    {"ViTModel", HeadKind::None}},
                   HeadKind::None);
  if (config.head == HeadKind::Classifier) {
    readNumClasses(root);
    config.pooling = mlir::tfm::Pooling::first;
  }
  pickPrefix("embeddings.cls_token", "vit.", config.head != HeadKind::None);
  std::string prefix = config.prefix;
  config.isIgnorableTensor = [prefix](StringRef name) {
    // ViTModel's pooler, which last_hidden_state does not go through.
    return name.consume_front(prefix) && name.starts_with("pooler.dense.");
  };
}

void HFParser::readRope(ObjectReader &root, StringRef modelType) {
  config.ropeTheta =
      root.getNumber("rope_theta", false, 1.0, 1e12, true).value_or(10000.0);
  std::optional<double> partial =
      root.getNumber("partial_rotary_factor", false, 0.0, 1.0, true);
  // rope_scaling (4.x) and rope_parameters (5.x); the latter also holds
  // rope_theta and partial_rotary_factor. The scaling's parameters are
  // read once both are known.
  std::optional<ObjectReader> scaling;
  std::string type = "default";
  StringRef typeKey;
  for (StringRef key : {"rope_scaling", "rope_parameters"}) {
    const json::Object *object = root.getObject(key, false);
    if (!object)
      continue;
    ObjectReader rope(errors, object, root.fieldPath(key), /*strict=*/false,
                      /*nullIsAbsent=*/true);
    if (auto theta = rope.getNumber("rope_theta", false, 1.0, 1e12, true))
      config.ropeTheta = *theta;
    if (auto factor =
            rope.getNumber("partial_rotary_factor", false, 0.0, 1.0, true))
      partial = factor;
    StringRef tk = rope.has("rope_type") ? "rope_type" : "type";
    if (auto t = rope.getString(tk, false)) {
      type = *t;
      typeKey = tk;
      scaling.emplace(rope);
    } else if (rope.has("factor")) {
      scaling.emplace(rope);
    }
  }
  if (errors.failed())
    return;
  if (partial)
    config.rotaryDim = int64_t(std::lround(config.headDim * *partial));
  // Phi-3's configuration class reads its older names as LongRoPE.
  if (modelType == "phi3" && (type == "su" || type == "yarn"))
    type = "longrope";
  if (type == "default")
    return;
  ObjectReader &rope = *scaling;
  int64_t dim = config.rotaryDim ? config.rotaryDim : config.headDim;
  if (dim % 2 != 0)
    return; // validateModelConfig names the odd size.
  double theta = config.ropeTheta;
  std::vector<double> base(dim / 2);
  for (int64_t i = 0; i < dim / 2; ++i)
    base[i] = std::pow(theta, -double(2 * i) / double(dim));
  auto originalMax = [&]() -> int64_t {
    // Phi-3 keeps the pretraining length beside max_position_embeddings;
    // it wins over the scaling's own, as in transformers.
    if (auto n = root.getInt("original_max_position_embeddings", false, 1,
                             limits::kMaxSeqLen))
      return *n;
    return rope
        .getInt("original_max_position_embeddings", false, 1,
                limits::kMaxSeqLen)
        .value_or(config.maxSeqLen);
  };
  if (type == "linear") {
    config.ropeScaling =
        rope.getNumber("factor", true, 0.0, 1e6, true).value_or(1.0);
    return;
  }
  RopeFrequencies freqs;
  if (type == "llama3") {
    double factor = rope.getNumber("factor", true, 0.0, 1e6, true).value_or(1);
    double low =
        rope.getNumber("low_freq_factor", true, 0.0, 1e6, true).value_or(1);
    double high =
        rope.getNumber("high_freq_factor", true, 0.0, 1e6, true).value_or(4);
    double context = double(originalMax());
    if (errors.failed())
      return;
    if (!(high > low)) {
      rope.error("high_freq_factor",
                 formatv("{0} must exceed low_freq_factor ({1})",
                         llvm::json::Value(high), llvm::json::Value(low)));
      return;
    }
    // Long wavelengths are interpolated by `factor`, short ones kept, the
    // band between blended (Llama 3.1).
    double lowWavelen = context / low, highWavelen = context / high;
    for (double f : base) {
      double wavelen = 2 * M_PI / f;
      if (wavelen > lowWavelen) {
        freqs.invFreq.push_back(f / factor);
      } else if (wavelen < highWavelen) {
        freqs.invFreq.push_back(f);
      } else {
        double smooth = (context / wavelen - low) / (high - low);
        freqs.invFreq.push_back((1 - smooth) * f / factor + smooth * f);
      }
    }
  } else if (type == "yarn") {
    double factor = rope.getNumber("factor", true, 0.0, 1e6, true).value_or(1);
    std::optional<double> attention =
        rope.getNumber("attention_factor", false, 0.0, 1e6, true);
    std::optional<double> mscale =
        rope.getNumber("mscale", false, 0.0, 1e6, false);
    std::optional<double> mscaleAllDim =
        rope.getNumber("mscale_all_dim", false, 0.0, 1e6, false);
    double betaFast =
        rope.getNumber("beta_fast", false, 0.0, 1e6, true).value_or(32);
    double betaSlow =
        rope.getNumber("beta_slow", false, 0.0, 1e6, true).value_or(1);
    bool truncate = rope.getBool("truncate", false).value_or(true);
    double context = double(originalMax());
    if (errors.failed())
      return;
    auto getMscale = [](double scale, double m) {
      return scale <= 1 ? 1.0 : 0.1 * m * std::log(scale) + 1.0;
    };
    if (attention)
      freqs.attentionFactor = *attention;
    else if (mscale && *mscale != 0 && mscaleAllDim && *mscaleAllDim != 0)
      freqs.attentionFactor =
          getMscale(factor, *mscale) / getMscale(factor, *mscaleAllDim);
    else
      freqs.attentionFactor = getMscale(factor, 1.0);
    // Pairs that rotate more than beta_fast times over the original context
    // keep their frequency (extrapolation), those under beta_slow are
    // interpolated by `factor`, with a linear ramp between (YaRN).
    auto correctionDim = [&](double rotations) {
      return double(dim) * std::log(context / (rotations * 2 * M_PI)) /
             (2 * std::log(theta));
    };
    double lowDim = correctionDim(betaFast), highDim = correctionDim(betaSlow);
    if (truncate) {
      lowDim = std::floor(lowDim);
      highDim = std::ceil(highDim);
    }
    lowDim = std::max(lowDim, 0.0);
    highDim = std::min(highDim, double(dim - 1));
    if (lowDim == highDim)
      highDim += 0.001;
    for (auto [i, f] : llvm::enumerate(base)) {
      double ramp =
          std::clamp((double(i) - lowDim) / (highDim - lowDim), 0.0, 1.0);
      double extrapolation = 1 - ramp;
      freqs.invFreq.push_back(f / factor * (1 - extrapolation) +
                              f * extrapolation);
    }
  } else if (type == "longrope") {
    int64_t original = originalMax();
    std::optional<double> factor =
        rope.getNumber("factor", false, 0.0, 1e6, true);
    std::optional<double> attention =
        rope.getNumber("attention_factor", false, 0.0, 1e6, true);
    auto readFactors = [&](StringRef key, std::vector<double> &out) {
      const json::Array *list = rope.getArray(key, true);
      if (!list)
        return;
      std::string path = rope.fieldPath(key);
      if (int64_t(list->size()) != dim / 2) {
        errors.report(path, formatv("has {0} entries, expected {1} (one per "
                                    "rotated pair of head_dim * "
                                    "partial_rotary_factor = {2})",
                                    list->size(), dim / 2, dim));
        return;
      }
      for (auto [i, value] : llvm::enumerate(*list)) {
        std::optional<double> v = value.getAsNumber();
        if (!v || !std::isfinite(*v) || *v <= 0) {
          errors.report(indexPath(path, i), "expected a positive number");
          return;
        }
        out.push_back(base[i] / *v);
      }
    };
    readFactors("short_factor", freqs.invFreq);
    readFactors("long_factor", freqs.longInvFreq);
    if (errors.failed())
      return;
    double f = factor.value_or(double(config.maxSeqLen) / double(original));
    freqs.attentionFactor = attention.value_or(
        f <= 1.0 ? 1.0
                 : std::sqrt(1 + std::log(f) / std::log(double(original))));
    freqs.longAfter = original;
    // transformers' Phi-3 recomputes its cache when a sequence crosses
    // original_max_position_embeddings; other families keep the keys
    // cached before it (rotated with the short factors).
    freqs.recomputePastLongAfter = modelType == "phi3";
  } else {
    rope.error(typeKey.empty() ? StringRef("rope_type") : typeKey,
               "\"" + type +
                   "\" is not supported (supported: default, linear, "
                   "llama3, yarn, longrope)");
    return;
  }
  config.ropeFrequencies = std::move(freqs);
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
  else if (*modelType == "bert" || *modelType == "roberta")
    parseBert(root, *modelType);
  else if (*modelType == "distilbert")
    parseDistilBert(root);
  else if (is_contained({"llama", "mistral", "qwen2", "qwen3", "gemma", "phi3"},
                        *modelType))
    parseLlamaFamily(root, *modelType);
  else if (*modelType == "t5")
    parseT5(root);
  else if (*modelType == "vit")
    parseViT(root);
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
