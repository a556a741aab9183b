//===- Manifest.h - the model manifest: format, parser, writer --*- C++ -*-===//
//
// Every compiled model carries `const char tfm_model_manifest[]`, a compact
// JSON object (docs/architecture.md, "The manifest"):
//
//   {"format":"tfm-manifest/1","model_name":"tiny-gpt",
//    "architecture":"decoder","device":"cuda","precision":"bf16",
//    "vocab_size":64,
//    "max_seq_len":32,
//    "output":"logits","output_dims":[64],"inputs":["ids","lengths"],
//    "weights":[{"name":"embed.tokens","shape":[64,32],"round":"bf16"},
//               {"name":"l.0.q.weight","shape":[32,32],"round":"bf16",
//                "storage":"bf16"},...],
//    "prepared":[{"name":"l.0.q.weight:packed[n=0,panel=32]",...},...],
//    "cpu_features":["amx-bf16"],
//    "kv_cache":{"layers":2,"kv_heads":4,"head_dim":8,"storage":"bf16"}}
//
// "device" (optional, "cpu" when absent) says where the generated code runs:
// "cpu", or "cuda" for a library whose host code launches CUDA kernels
// through the mgpu* runtime calls (lib/Runtime/Cuda.cpp). "precision"
// (optional, "f32" when absent) is the precision of GEMM and attention
// inputs; a weight's "round" (optional) asks the runtime to round its
// values to bf16 or f16 when it binds them, and its "storage" (optional,
// the same as "round" when present) to hand the generated code that 16-bit
// type instead of f32 (GPU libraries: the weights only contractions and
// lookups read, -tfm-apply-precision). "prepared"
// (optional) lists the tensors that the library's tfm_prepare computes from
// the weights once per model instance (packed layouts; a 16-bit one has
// "storage" and its "round"). "cpu_features" (optional) lists CPU features
// the runtime checks and enables before the library runs. "kv_cache"
// (optional) says the library also exports the generation steps
// `_mlir_ciface_step` and `_mlir_ciface_decode` (and, with "cross": true,
// an encoder-decoder's `_mlir_ciface_encode`) and gives the shape of one
// sequence slot's KV cache (docs/architecture.md, "Generation") and, with
// "storage" (the model's 16-bit "precision"), its element type.
//
// This header is the one description of that format: the field names, the
// spellings of the architecture and output kinds, the struct both sides
// fill, the writer (Manifest::toJSON, used by -tfm-materialize-entry) and the
// validating parser (Manifest::parse, used by the runtime loader, the model
// header writer and tfm-bench).
//
// The writer and the enum spellings are inline: the compiler's conversion
// library writes manifests without linking TfmSupport, the archive that
// goes into every model library. The parser lives in Manifest.cpp.
// Depends on LLVMSupport only (the runtime is linked with a static copy).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_SUPPORT_MANIFEST_H
#define TFM_SUPPORT_MANIFEST_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tfm {

/// What a model is: the `tfm.architecture` module attribute and the
/// manifest's "architecture" field. It fixes the entry's inputs.
enum class Architecture { Encoder, Decoder, EncoderDecoder };

/// What the entry returns: [B, T, V] logits, [B, C] class logits or
/// [B, T, D] hidden states (`tfm.output`, the manifest's "output").
enum class OutputKind { Logits, Classes, Hidden };

/// "encoder", "decoder", "encoder_decoder".
inline llvm::StringRef architectureName(Architecture arch) {
  switch (arch) {
  case Architecture::Encoder:
    return "encoder";
  case Architecture::Decoder:
    return "decoder";
  case Architecture::EncoderDecoder:
    return "encoder_decoder";
  }
  llvm_unreachable("unknown architecture");
}

/// The inverse of architectureName; nullopt for any other string.
inline std::optional<Architecture> parseArchitecture(llvm::StringRef name) {
  for (Architecture a : {Architecture::Encoder, Architecture::Decoder,
                         Architecture::EncoderDecoder})
    if (name == architectureName(a))
      return a;
  return std::nullopt;
}

/// "logits", "classes", "hidden".
inline llvm::StringRef outputKindName(OutputKind kind) {
  switch (kind) {
  case OutputKind::Logits:
    return "logits";
  case OutputKind::Classes:
    return "classes";
  case OutputKind::Hidden:
    return "hidden";
  }
  llvm_unreachable("unknown output kind");
}

/// The inverse of outputKindName; nullopt for any other string.
inline std::optional<OutputKind> parseOutputKind(llvm::StringRef name) {
  for (OutputKind k :
       {OutputKind::Logits, OutputKind::Classes, OutputKind::Hidden})
    if (name == outputKindName(k))
      return k;
  return std::nullopt;
}

/// Where a model's generated code runs: the manifest's "device" field.
enum class Device { CPU, CUDA };

/// "cpu", "cuda".
inline llvm::StringRef deviceName(Device device) {
  switch (device) {
  case Device::CPU:
    return "cpu";
  case Device::CUDA:
    return "cuda";
  }
  llvm_unreachable("unknown device");
}

/// The inverse of deviceName; nullopt for any other string.
inline std::optional<Device> parseDevice(llvm::StringRef name) {
  for (Device d : {Device::CPU, Device::CUDA})
    if (name == deviceName(d))
      return d;
  return std::nullopt;
}

/// The precision of a model's GEMM and attention inputs (tfmc
/// --precision), and what the runtime rounds a weight to.
enum class Precision { F32, BF16, F16 };

/// "f32", "bf16", "f16".
inline llvm::StringRef precisionName(Precision precision) {
  switch (precision) {
  case Precision::F32:
    return "f32";
  case Precision::BF16:
    return "bf16";
  case Precision::F16:
    return "f16";
  }
  llvm_unreachable("unknown precision");
}

/// The inverse of precisionName; nullopt for any other string.
inline std::optional<Precision> parsePrecision(llvm::StringRef name) {
  for (Precision p : {Precision::F32, Precision::BF16, Precision::F16})
    if (name == precisionName(p))
      return p;
  return std::nullopt;
}

/// The entry's inputs, in argument order: ids, lengths, positions (the
/// position of each row's first token) or src, src_lengths, tgt,
/// tgt_lengths; for an image model (`image`), pixels. `positions` false:
/// the ids and lengths of an encoder or decoder built before the positions
/// input existed.
inline llvm::ArrayRef<llvm::StringLiteral>
entryInputs(Architecture arch, bool image = false, bool positions = true) {
  static constexpr llvm::StringLiteral kSingle[] = {"ids", "lengths",
                                                    "positions"};
  static constexpr llvm::StringLiteral kSeq2Seq[] = {"src", "src_lengths",
                                                     "tgt", "tgt_lengths"};
  static constexpr llvm::StringLiteral kPixels[] = {"pixels"};
  if (image)
    return kPixels;
  if (arch == Architecture::EncoderDecoder)
    return kSeq2Seq;
  return positions ? llvm::ArrayRef(kSingle)
                   : llvm::ArrayRef(kSingle).drop_back();
}

/// The input of an image model: float pixels [batch, channels, height,
/// width], row-major; every image is `tokens` tokens ([CLS] and one per
/// patch), which is also the model's max_seq_len.
struct ManifestImage {
  int64_t channels = 0;
  int64_t height = 0;
  int64_t width = 0;
  int64_t pixelsPerImage() const { return channels * height * width; }
};

/// The KV cache of one sequence slot of a generation session is
/// `T[layers][2][kv_heads][max_context][head_dim]` (index 0 keys, 1
/// values; T is float, or the 16-bit `storage`); a session's cache is `[slots]`
/// of those, slot-major, so the slots a step touches are one contiguous range.
struct ManifestKvCache {
  int64_t layers = 0;
  int64_t kvHeads = 0;
  int64_t headDim = 0;
  /// Encoder-decoder models: the library also exports `_mlir_ciface_encode`,
  /// which fills a cross-attention cache of the same shape per slot
  /// (capacity: the source length, up to max_seq_len) that the step reads.
  bool cross = false;
  /// When > 0: a slot that holds at most this many tokens and is appended
  /// past it is recomputed from its first token (the session keeps every
  /// slot's tokens). LongRoPE (Phi-3) changes every position's rotation
  /// there, as transformers' generate recomputes its cache.
  int64_t recomputeAfter = 0;
  /// The element type: f32, or the model's 16-bit precision when the
  /// library stores its cache in it (-tfm-narrow-kv-cache; "storage").
  Precision storage = Precision::F32;
  /// Elements per slot and cached position: layers * 2 * kv_heads *
  /// head_dim.
  int64_t elementsPerPosition() const { return layers * 2 * kvHeads * headDim; }
  /// Bytes of one element.
  int64_t elementBytes() const { return storage == Precision::F32 ? 4 : 2; }
};

/// One slot of the weights table.
struct ManifestWeight {
  /// The exact tensor name to look up in the weights file: the name of the
  /// `tfm.weight` op, which the frontend resolved against the checkpoint
  /// when it was given (HF prefixes, tied heads). The runtime looks up this
  /// name and no other.
  std::string name;
  /// The shape as stored in the file (e.g. [in, out] for GPT-2's Conv1D):
  /// the runtime never transposes, the generated code reads this layout.
  std::vector<int64_t> shape;
  /// The runtime rounds the weight's values to this precision (round to
  /// nearest even) when it binds them. F32: as read.
  Precision round = Precision::F32;
  /// The element type the generated code reads: F32, or the 16-bit type of
  /// `round` (the table then holds 2-byte elements).
  Precision storage = Precision::F32;
};

struct Manifest {
  /// The "format" field of every manifest this header reads and writes.
  static constexpr llvm::StringLiteral kFormatVersion = "tfm-manifest/1";

  /// The JSON field names, in the order toJSON writes them.
  struct Field {
    static constexpr llvm::StringLiteral kFormat = "format";
    static constexpr llvm::StringLiteral kModelName = "model_name";
    static constexpr llvm::StringLiteral kArchitecture = "architecture";
    /// Optional: "cpu" (the default, not written) or "cuda".
    static constexpr llvm::StringLiteral kDevice = "device";
    /// Optional: "f32" (the default, not written), "bf16" or "f16".
    static constexpr llvm::StringLiteral kPrecision = "precision";
    static constexpr llvm::StringLiteral kVocabSize = "vocab_size";
    static constexpr llvm::StringLiteral kMaxSeqLen = "max_seq_len";
    /// Optional: the position of a sequence's first token when the caller
    /// gives no position ids (RoBERTa: padding_idx + 1); 0, not written,
    /// otherwise.
    static constexpr llvm::StringLiteral kFirstPosition = "first_position";
    static constexpr llvm::StringLiteral kOutput = "output";
    static constexpr llvm::StringLiteral kOutputDims = "output_dims";
    static constexpr llvm::StringLiteral kInputs = "inputs";
    static constexpr llvm::StringLiteral kWeights = "weights";
    /// Optional: tensors computed from the weights at model creation.
    static constexpr llvm::StringLiteral kPrepared = "prepared";
    /// Optional: CPU features the runtime checks and enables at model
    /// creation (Manifest::cpuFeatures).
    static constexpr llvm::StringLiteral kCpuFeatures = "cpu_features";
    /// Fields of each element of "weights".
    static constexpr llvm::StringLiteral kWeightName = "name";
    static constexpr llvm::StringLiteral kWeightShape = "shape";
    /// Optional: "bf16" or "f16" (ManifestWeight::round).
    static constexpr llvm::StringLiteral kWeightRound = "round";
    /// Optional: "bf16" or "f16", equal to "round" (ManifestWeight::storage).
    static constexpr llvm::StringLiteral kWeightStorage = "storage";
    /// Optional: the generation step's cache (ManifestKvCache).
    static constexpr llvm::StringLiteral kKvCache = "kv_cache";
    static constexpr llvm::StringLiteral kCacheLayers = "layers";
    static constexpr llvm::StringLiteral kCacheKvHeads = "kv_heads";
    static constexpr llvm::StringLiteral kCacheHeadDim = "head_dim";
    /// Optional: true for encoder-decoder models (ManifestKvCache::cross).
    static constexpr llvm::StringLiteral kCacheCross = "cross";
    /// Optional: ManifestKvCache::recomputeAfter.
    static constexpr llvm::StringLiteral kCacheRecomputeAfter =
        "recompute_after";
    /// Optional: "bf16" or "f16", the model's "precision"
    /// (ManifestKvCache::storage).
    static constexpr llvm::StringLiteral kCacheStorage = "storage";
    /// Optional: image models (ManifestImage); their vocab_size is 0.
    static constexpr llvm::StringLiteral kImage = "image";
    static constexpr llvm::StringLiteral kImageChannels = "channels";
    static constexpr llvm::StringLiteral kImageHeight = "height";
    static constexpr llvm::StringLiteral kImageWidth = "width";
  };

  std::string modelName;
  Architecture architecture = Architecture::Decoder;
  /// Where the generated code runs. For Device::CUDA the weights table,
  /// the input and the output memrefs hold device pointers, and the runtime
  /// drives the kernels on one stream per model instance.
  Device device = Device::CPU;
  /// The precision of GEMM and attention inputs (tfmc --precision).
  Precision precision = Precision::F32;
  int64_t vocabSize = 0;
  int64_t maxSeqLen = 0;
  /// The position of a sequence's first token by default (Field::
  /// kFirstPosition); a sequence's positions lie in [firstPosition,
  /// firstPosition + maxSeqLen).
  int64_t firstPosition = 0;
  OutputKind output = OutputKind::Logits;
  /// The static trailing output dimension: V, C or D ("output_dims": [d]).
  int64_t outputDim = 0;
  /// The tensors read from the weights file, in the order of the weight
  /// table.
  std::vector<ManifestWeight> weights;
  /// The tensors the library's `tfm_prepare` computes from the weights when
  /// a model instance is created (packed layouts): the runtime allocates
  /// them and gives them the table slots after `weights`, in this order.
  std::vector<ManifestWeight> prepared;
  /// CPU features (LLVM's names) the generated code uses beyond what every
  /// CPU of its target has, which the runtime checks, and enables where
  /// the OS asks for it, when a model instance is created: "amx-bf16"
  /// (AMX tiles: Linux hands a process the tile state only on request).
  /// The only name known today; the parser refuses others.
  std::vector<std::string> cpuFeatures;
  /// Present when the library exports the generation step
  /// `_mlir_ciface_step` (decoders compiled with generation entries).
  std::optional<ManifestKvCache> kvCache;
  /// Present for image models, whose entry takes pixels (entryInputs).
  std::optional<ManifestImage> image;
  /// False for an encoder or decoder library built before the positions
  /// input (its "inputs" are ids and lengths): tools still read it, the
  /// runtime refuses to run it (every library carries its own runtime, so
  /// only a hand-made one can disagree).
  bool positionsInput = true;

  llvm::ArrayRef<llvm::StringLiteral> inputs() const {
    return entryInputs(architecture, image.has_value(), positionsInput);
  }

  /// Parses and validates a manifest. Every error starts with `origin` (the
  /// file or symbol the text came from) and names the field at fault:
  /// missing or mistyped fields, an unknown format, architecture, device or
  /// output kind, output_dims that are not one positive dimension (equal to
  /// vocab_size for logits), inputs that do not match the architecture,
  /// weights without a name or with a negative dimension, a name listed
  /// twice.
  static llvm::Expected<Manifest> parse(llvm::StringRef json,
                                        llvm::StringRef origin);

  /// The compact JSON text, fields in the order of Field (what the compiler
  /// embeds; parse reads it back). Optional fields at their default
  /// ("device": "cpu", an empty "prepared") are left out.
  std::string toJSON() const {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvm::json::OStream j(os);
    j.object([&] {
      j.attribute(Field::kFormat, kFormatVersion);
      j.attribute(Field::kModelName, modelName);
      j.attribute(Field::kArchitecture, architectureName(architecture));
      if (device != Device::CPU)
        j.attribute(Field::kDevice, deviceName(device));
      if (precision != Precision::F32)
        j.attribute(Field::kPrecision, precisionName(precision));
      j.attribute(Field::kVocabSize, vocabSize);
      j.attribute(Field::kMaxSeqLen, maxSeqLen);
      if (firstPosition != 0)
        j.attribute(Field::kFirstPosition, firstPosition);
      j.attribute(Field::kOutput, outputKindName(output));
      j.attributeArray(Field::kOutputDims, [&] { j.value(outputDim); });
      j.attributeArray(Field::kInputs, [&] {
        for (llvm::StringRef input : inputs())
          j.value(input);
      });
      if (image)
        j.attributeObject(Field::kImage, [&] {
          j.attribute(Field::kImageChannels, image->channels);
          j.attribute(Field::kImageHeight, image->height);
          j.attribute(Field::kImageWidth, image->width);
        });
      auto list = [&](llvm::StringRef field,
                      const std::vector<ManifestWeight> &entries) {
        j.attributeArray(field, [&] {
          for (const ManifestWeight &w : entries)
            j.object([&] {
              j.attribute(Field::kWeightName, w.name);
              j.attributeArray(Field::kWeightShape, [&] {
                for (int64_t d : w.shape)
                  j.value(d);
              });
              if (w.round != Precision::F32)
                j.attribute(Field::kWeightRound, precisionName(w.round));
              if (w.storage != Precision::F32)
                j.attribute(Field::kWeightStorage, precisionName(w.storage));
            });
        });
      };
      list(Field::kWeights, weights);
      if (!prepared.empty())
        list(Field::kPrepared, prepared);
      if (!cpuFeatures.empty())
        j.attributeArray(Field::kCpuFeatures, [&] {
          for (const std::string &f : cpuFeatures)
            j.value(f);
        });
      if (kvCache)
        j.attributeObject(Field::kKvCache, [&] {
          j.attribute(Field::kCacheLayers, kvCache->layers);
          j.attribute(Field::kCacheKvHeads, kvCache->kvHeads);
          j.attribute(Field::kCacheHeadDim, kvCache->headDim);
          if (kvCache->cross)
            j.attribute(Field::kCacheCross, true);
          if (kvCache->recomputeAfter > 0)
            j.attribute(Field::kCacheRecomputeAfter, kvCache->recomputeAfter);
          if (kvCache->storage != Precision::F32)
            j.attribute(Field::kCacheStorage, precisionName(kvCache->storage));
        });
    });
    return text;
  }
};

} // namespace tfm

#endif // TFM_SUPPORT_MANIFEST_H
