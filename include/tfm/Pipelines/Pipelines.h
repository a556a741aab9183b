//===- Pipelines.h - named end-to-end pipelines -----------------*- C++ -*-===//

#ifndef TFM_PIPELINES_PIPELINES_H
#define TFM_PIPELINES_PIPELINES_H

namespace mlir::tfm {

/// Registers the named pipelines (-tfm-lower-to-llvm, ...) with the global
/// pass registry so that tfm-opt and --pass-pipeline can use them.
void registerTfmPipelines();

} // namespace mlir::tfm

#endif // TFM_PIPELINES_PIPELINES_H
