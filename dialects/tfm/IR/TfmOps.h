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

#define GET_OP_CLASSES
#include "tfm/IR/TfmOps.h.inc"

#endif // TFM_IR_TFMOPS_H
