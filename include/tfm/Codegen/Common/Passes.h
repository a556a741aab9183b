//===- Passes.h - target-neutral codegen ------------------------*- C++ -*-===//
//
// Code generation every target runs; see Passes.td for each pass's contract.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_PASSES_H
#define TFM_CODEGEN_COMMON_PASSES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/Pass.h"

namespace mlir::tfm {

#define GEN_PASS_DECL
#include "tfm/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "tfm/Codegen/Common/Passes.h.inc"

} // namespace mlir::tfm

#endif // TFM_CODEGEN_COMMON_PASSES_H
