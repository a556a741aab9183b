//===- Passes.h - tfm Transforms passes ------------------------------*- C++ -*-===//

#ifndef TFM_TRANSFORMS_PASSES_H
#define TFM_TRANSFORMS_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "tfm/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Transforms/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFM_TRANSFORMS_PASSES_H
