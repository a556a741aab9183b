//===- TfmOps.h - tfm operations --------------------------------*- C++ -*-===//

#ifndef TFM_IR_TFMOPS_H
#define TFM_IR_TFMOPS_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tfm/IR/TfmDialect.h"

#include "tfm/IR/TfmEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "tfm/IR/TfmAttrs.h.inc"

namespace mlir::tfm {
/// The gated kinds multiply act(gate(x)) by up(x) (tfm.ffn only).
inline bool isGated(Activation kind) {
  return kind == Activation::swiglu || kind == Activation::geglu ||
         kind == Activation::geglu_tanh;
}
} // namespace mlir::tfm

#define GET_OP_CLASSES
#include "tfm/IR/TfmOps.h.inc"

#endif // TFM_IR_TFMOPS_H
