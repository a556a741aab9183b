//===- Passes.h - tfm Conversion passes -------------------------*- C++ -*-===//
//
// Conversions out of the tfm dialect and the entry-ABI materialization; see
// Passes.td for each pass's contract.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CONVERSION_PASSES_H
#define TFM_CONVERSION_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "tfm/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Conversion/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFM_CONVERSION_PASSES_H
