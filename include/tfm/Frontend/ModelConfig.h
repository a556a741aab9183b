//===- ModelConfig.h - what the frontend knows about a model ----*- C++ -*-===//
//
// A ModelConfig is the validated, source-independent description of a
// Transformer that the frontend builds IR from: a tfm spec (docs/spec.md) and
// a Hugging Face config.json both parse into one. It also fixes the tensor
// names and stored shapes of every parameter (the weight scheme), so that the
// weights check and the IR builder can never disagree about them.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_FRONTEND_MODELCONFIG_H
#define TFM_FRONTEND_MODELCONFIG_H

#include "tfm/IR/TfmOps.h"
#include "tfm/Support/Manifest.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tfm {

/// Where the tensor names come from.
enum class WeightScheme {
  Spec,       ///< tfm spec names (docs/architecture.md)
  GPT2,       ///< Hugging Face GPT-2 (Conv1D in_out weights, fused c_attn)
  Bert,       ///< Hugging Face BERT
  Llama,      ///< Hugging Face LLaMA, Mistral, Qwen2/3, Gemma
  Phi3,       ///< Hugging Face Phi-3 (fused qkv_proj and gate_up_proj)
  Roberta,    ///< Hugging Face RoBERTa (BERT names, its own heads)
  T5,         ///< Hugging Face T5 (encoder-decoder or encoder only)
  ViT,        ///< Hugging Face ViT (image classification, hidden states)
  DistilBert, ///< Hugging Face DistilBERT
};

enum class NormKind { LayerNorm, RmsNorm };
enum class PositionKind {
  None,
  Sinusoidal,
  Learned,
  Rope,
  Alibi,
  RelativeBias, ///< T5's bucketed bias, one table per stack
};
enum class HeadKind {
  None,       ///< hidden states [B, T, D]
  Lm,         ///< logits [B, T, V]
  Classifier, ///< classes [B, C]
  MaskedLm,   ///< BERT masked-LM head (dense, act, norm, tied decoder + bias)
};

struct NormConfig {
  NormKind kind = NormKind::LayerNorm;
  double eps = 1e-5;
  bool bias = true;
  /// RMSNorm's gain is gammaOffset + gamma (Gemma stores w for 1 + w).
  double gammaOffset = 0.0;
};

/// The image of a vision model: the entry takes pixels [B, channels,
/// height, width], cut into patch x patch squares, plus a [CLS] token.
struct ImageConfig {
  int64_t channels = 3;
  int64_t height = 224;
  int64_t width = 224;
  int64_t patch = 16;
  int64_t patches() const { return (height / patch) * (width / patch); }
};

/// RoPE frequencies of a scaled checkpoint (Llama 3, YaRN, LongRoPE): one
/// inverse frequency per rotated pair, and the factor on cos and sin.
struct RopeFrequencies {
  std::vector<double> invFreq;
  /// LongRoPE: the set used once offset + tokens exceeds longAfter.
  std::vector<double> longInvFreq;
  int64_t longAfter = 0;
  double attentionFactor = 1.0;
  /// Generation recomputes a sequence that grows past longAfter with the
  /// long factors (Phi-3's generate does; LLaMA's keeps the cached keys).
  bool recomputePastLongAfter = false;
};

/// Per-layer choices (the spec's `layers[i]` overrides land here).
struct LayerConfig {
  mlir::tfm::MaskKind mask = mlir::tfm::MaskKind::none;
  int64_t window = 0; ///< sliding_window only
  int64_t ffnHidden = 0;
  mlir::tfm::Activation activation = mlir::tfm::Activation::relu;
  bool ffnBias = false;
};

struct ModelConfig {
  /// The file the model came from (spec JSON or config.json); used in
  /// diagnostics and op locations.
  std::string sourcePath;
  std::string name;
  WeightScheme scheme = WeightScheme::Spec;
  /// Prefix of backbone tensors in HF checkpoints ("transformer.", "bert.",
  /// "model." or "").
  std::string prefix;
  Architecture arch = Architecture::Decoder;

  int64_t vocabSize = 0;
  int64_t dModel = 0;
  int64_t numHeads = 0;
  int64_t numKvHeads = 0;
  int64_t headDim = 0;
  int64_t maxSeqLen = 0;
  /// Required storage dtype of every weight ("F32", "F16", "BF16"); empty
  /// accepts any of the three.
  std::string dtype;

  NormConfig norm;
  bool preNorm = true;
  bool finalNorm = true;
  bool embeddingNorm = false;
  /// Multiply token embeddings by sqrt(d_model) (Vaswani et al.).
  bool embedScale = false;
  /// Learned positions start at this row of the table (RoBERTa:
  /// padding_idx + 1); the table has maxSeqLen + positionOffset rows.
  int64_t positionOffset = 0;
  /// Qwen3: RMSNorm of each head of q and k before RoPE.
  bool qkNorm = false;
  /// Vision models: pixels in, patches and a [CLS] token instead of token
  /// embeddings (vocabSize is 0).
  std::optional<ImageConfig> image;
  /// Rows of the token-type table (0: none). Row 0 is added to every token.
  int64_t tokenTypes = 0;

  PositionKind positions = PositionKind::None;
  double ropeTheta = 10000.0;
  double ropeScaling = 1.0;
  mlir::tfm::RopeStyle ropeStyle = mlir::tfm::RopeStyle::rotate_half;
  int64_t rotaryDim = 0; ///< 0: the whole head
  /// Set: explicit frequencies replace theta and ropeScaling.
  std::optional<RopeFrequencies> ropeFrequencies;
  /// RelativeBias: buckets of each stack's table, and the distance where
  /// the log-spaced buckets end.
  int64_t relativeBuckets = 32;
  int64_t relativeMaxDistance = 128;
  /// The factor on attention scores; unset: 1 / sqrt(head_dim). (T5: 1.)
  std::optional<double> attentionScale;
  /// The LM head's input is multiplied by this (T5 with a tied head:
  /// d_model^-0.5).
  double headInputScale = 1.0;

  bool qkvBias = false;
  bool outBias = false;
  bool tieEmbeddings = false;

  HeadKind head = HeadKind::None;
  bool lmHeadBias = false;
  int64_t numClasses = 0;
  mlir::tfm::Pooling pooling = mlir::tfm::Pooling::first;
  bool pooler = false;
  /// The pooler's activation (DistilBERT's pre-classifier: relu).
  mlir::tfm::Activation poolerActivation = mlir::tfm::Activation::tanh;
  bool classifierBias = true;
  /// Activation of the masked-LM head's transform.
  mlir::tfm::Activation mlmActivation = mlir::tfm::Activation::gelu;

  /// Layers of the encoder (encoder and encoder_decoder models) and of the
  /// decoder (decoder and encoder_decoder models).
  std::vector<LayerConfig> encoderLayers;
  std::vector<LayerConfig> decoderLayers;

  /// Tensors a checkpoint may hold that the model does not read (buffers
  /// such as GPT-2's attn.bias, duplicates of tied weights).
  std::function<bool(llvm::StringRef)> isIgnorableTensor;

  /// The `tfm.output` kind: "logits", "classes" or "hidden".
  llvm::StringRef outputKind() const;
};

/// One stored tensor, or a slice of one (GPT-2's fused c_attn holds q, k
/// and v side by side along `sliceDim`).
struct TensorRef {
  std::string name;
  llvm::SmallVector<int64_t> shape; ///< as stored in the weights file
  int64_t sliceDim = -1;
  int64_t sliceOffset = 0;
  int64_t sliceSize = 0;

  bool isSlice() const { return sliceDim >= 0; }
};

struct LinearRef {
  TensorRef weight;
  std::optional<TensorRef> bias;
  mlir::tfm::WeightLayout layout = mlir::tfm::WeightLayout::out_in;
};

struct NormRef {
  TensorRef weight;
  std::optional<TensorRef> bias;
};

/// Which stack a layer belongs to.
enum class Stack { Encoder, Decoder };

struct LayerParams {
  /// A short name for locations: "layers.3", "encoder.layers.0".
  std::string path;
  NormRef attnNorm;
  LinearRef q, k, v, o;
  /// Per-head norms of q and k ([head_dim] gains).
  std::optional<NormRef> qNorm, kNorm;
  std::optional<NormRef> crossNorm;
  std::optional<LinearRef> crossQ, crossK, crossV, crossO;
  NormRef ffnNorm;
  LinearRef up;
  std::optional<LinearRef> gate;
  LinearRef down;
};

struct ModelParams {
  /// The token embedding; absent for image models.
  std::optional<TensorRef> tokens;
  /// Image models: the patch projection ([D, C, P, P] weight, [D] bias)
  /// and the [CLS] token ([1, 1, D] as stored).
  std::optional<LinearRef> patchEmbed;
  std::optional<TensorRef> classToken;
  std::optional<TensorRef> positions; ///< learned positions
  std::optional<TensorRef> tokenTypes;
  /// RelativeBias tables [buckets, heads] of each stack.
  std::optional<TensorRef> encoderPositionBias, decoderPositionBias;
  std::optional<NormRef> embedNorm;
  std::optional<NormRef> encoderFinalNorm, decoderFinalNorm;
  std::optional<LinearRef> lmHead; ///< absent when tied
  std::optional<TensorRef> lmHeadBias;
  std::optional<LinearRef> pooler, classifier;
  std::optional<LinearRef> mlmTransform;
  std::optional<NormRef> mlmNorm;
};

/// The parameters of layer `index` of `stack`, named by `config.scheme`.
LayerParams getLayerParams(const ModelConfig &config, Stack stack,
                           int64_t index);
/// The model-level parameters (embeddings, final norms, heads).
ModelParams getModelParams(const ModelConfig &config);

/// Every distinct stored tensor the model reads, in a stable order
/// (embeddings, layers, final norms, heads).
std::vector<TensorRef> getExpectedTensors(const ModelConfig &config);

/// Checks the cross-field rules every config must satisfy whatever its
/// source (heads divide, sizes bounded, products do not overflow, ...).
/// `fieldName` maps a logical field ("d_model") to the spelling of the
/// source ("hidden_size" in an HF config) for the message.
llvm::Error
validateModelConfig(const ModelConfig &config,
                    llvm::function_ref<std::string(llvm::StringRef)> fieldName);

/// Upper bounds on sizes, so that every product of them fits in int64_t.
namespace limits {
constexpr int64_t kMaxVocab = int64_t(1) << 24;
constexpr int64_t kMaxDModel = int64_t(1) << 16;
constexpr int64_t kMaxHeads = 1024;
constexpr int64_t kMaxHeadDim = 4096;
constexpr int64_t kMaxFfnHidden = int64_t(1) << 20;
constexpr int64_t kMaxSeqLen = int64_t(1) << 24;
constexpr int64_t kMaxLayers = 1024;
constexpr int64_t kMaxClasses = int64_t(1) << 20;
constexpr int64_t kMaxTokenTypes = int64_t(1) << 16;
constexpr int64_t kMaxWindow = int64_t(1) << 24;
/// Total parameter elements (2^40, a trillion parameters).
constexpr int64_t kMaxParameters = int64_t(1) << 40;
} // namespace limits

} // namespace tfm

#endif // TFM_FRONTEND_MODELCONFIG_H
