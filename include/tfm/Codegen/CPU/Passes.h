//===- Passes.h - CPU codegen -----------------------------------*- C++ -*-===//
//
// The CPU target's own passes; see Passes.td for each pass's contract.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_CPU_PASSES_H
#define TFM_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "tfm/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Codegen/CPU/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFM_CODEGEN_CPU_PASSES_H
