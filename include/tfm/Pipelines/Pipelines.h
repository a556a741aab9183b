//===- Pipelines.h - named end-to-end pipelines -----------------*- C++ -*-===//
//
// Named pass pipelines from the tfm dialect to a target dialect. Each has an
// options struct and a builder function, and is registered once with the
// global pass registry by registerTfmPipelines().
//
//===----------------------------------------------------------------------===//

#ifndef TFM_PIPELINES_PIPELINES_H
#define TFM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace tfm {

/// Options of -tfm-lower-to-llvm.
struct TfmToLLVMPipelineOptions
    : public PassPipelineOptions<TfmToLLVMPipelineOptions> {
  PassOptions::Option<std::string> embedWeights{
      *this, "embed-weights",
      llvm::cl::desc("Weights file (safetensors) whose bytes are embedded as "
                     "tfm_embedded_weights"),
      llvm::cl::init("")};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse single-use elementwise linalg producers into "
                     "their consumers before bufferization"),
      llvm::cl::init(true)};
};

/// The stages of -tfm-lower-to-llvm, in order. `buildTfmToLLVMPipeline`
/// runs them all; a driver that must stop after linalg runs only the first.
///
/// 1. convert-tfm-to-linalg, tfm-materialize-entry (weights table,
///    out-param, manifest), canonicalize, cse;
/// 2. elementwise fusion on tensors (optional), one-shot bufferization
///    across function boundaries with identity layouts, buffer hoisting and
///    the deallocation pipeline;
/// 3. linalg to loops, canonicalize, cse, loop-invariant code motion;
/// 4. scf/affine/math/arith/index/memref/func/cf to the LLVM dialect,
///    reconcile-unrealized-casts;
/// 5. tfm-check-llvm-legal: fails naming any op outside the llvm dialect.
void buildTfmToLLVMPipeline(OpPassManager &pm,
                            const TfmToLLVMPipelineOptions &options);

/// Stage 1 alone: tfm to linalg on tensors (what `tfmc --emit=linalg`
/// shows). Does not materialize the entry ABI.
void buildTfmToLinalgPipeline(OpPassManager &pm);

/// Registers the named pipelines (-tfm-lower-to-llvm, ...) with the global
/// pass registry so that tfm-opt and --pass-pipeline can use them.
void registerTfmPipelines();

} // namespace tfm
} // namespace mlir

#endif // TFM_PIPELINES_PIPELINES_H
