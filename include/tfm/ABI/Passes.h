//===- Passes.h - model ABI passes ------------------------------*- C++ -*-===//
//
// The entry ABI of a compiled model, the same for every target; see Passes.td for each pass's contract.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_ABI_PASSES_H
#define TFM_ABI_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "tfm/ABI/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/ABI/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFM_ABI_PASSES_H
