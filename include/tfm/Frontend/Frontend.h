//===- Frontend.h - model description to tfm IR -----------------*- C++ -*-===//
//
// The frontend reads a model description (a tfm spec, a Hugging Face
// config.json, or a Hugging Face model folder), checks the weights against
// it when there are any, and builds the tfm dialect module of the model's
// forward pass (docs/architecture.md fixes its shape).
//
// Every error is an llvm::Error whose message names the file and the field
// (as a JSON path such as `layers[2].attention.window`, or line:col for
// malformed JSON) or the tensor.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_FRONTEND_FRONTEND_H
#define TFM_FRONTEND_FRONTEND_H

#include "tfm/Frontend/ModelConfig.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace tfm {

/// Parses a tfm spec (docs/spec.md) from `text`; `path` names it in messages.
llvm::Expected<ModelConfig> parseSpec(llvm::StringRef text,
                                      llvm::StringRef path);

/// Parses a Hugging Face config.json from `text`. `weightNames`, when given,
/// are the tensors of the checkpoint; they pick the tensor-name prefix
/// ("model.", "transformer.", "bert." or none) that the checkpoint uses.
llvm::Expected<ModelConfig>
parseHFConfig(llvm::StringRef text, llvm::StringRef path,
              const std::vector<llvm::StringRef> *weightNames = nullptr);

/// The model types parseHFConfig accepts, comma separated.
llvm::StringRef supportedHFModelTypes();

class WeightSet;

/// Checks that `weights` holds exactly the tensors `config` reads, with the
/// expected shapes and a float dtype (config.dtype when set). Every problem
/// is reported (one error per tensor), before any IR is built.
llvm::Error checkWeights(const ModelConfig &config, const WeightSet &weights,
                         llvm::StringRef weightsPath);

struct BuildOptions {
  /// Emit the unfused attention (transpose, matmul, scale, make_mask,
  /// masked_fill, softmax, matmul) instead of tfm.attention.
  bool noFuse = false;
  /// Also build the generation step `@step` (docs/architecture.md,
  /// "Generation"): decoders with an LM head only.
  bool generation = false;
};

/// Whether a generation step can be built for `config`: a decoder with an
/// LM head whose every layer is causal (or sliding-window); the error says
/// which part is not.
llvm::Error checkGeneration(const ModelConfig &config);

/// Builds the tfm module of the forward pass. The result is verified by the
/// caller.
mlir::OwningOpRef<mlir::ModuleOp> buildModule(mlir::MLIRContext &context,
                                              const ModelConfig &config,
                                              const BuildOptions &options);

/// A loaded model: its config and the weights file or folder checked
/// against it (empty when there are none).
struct LoadedModel {
  ModelConfig config;
  std::string weightsPath;
};

/// Loads MODEL: a spec .json file, an HF config.json, or an HF model folder
/// (config.json + *.safetensors). `weightsPath` (optional) names a
/// safetensors file or folder; for a folder MODEL its own safetensors are
/// used. Weights, when present, are checked before this returns.
llvm::Expected<LoadedModel> loadModel(llvm::StringRef modelPath,
                                      llvm::StringRef weightsPath);

} // namespace tfm

#endif // TFM_FRONTEND_FRONTEND_H
