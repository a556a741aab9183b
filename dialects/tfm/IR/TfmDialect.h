//===- TfmDialect.h - tfm dialect -------------------------------*- C++ -*-===//

#ifndef TFM_IR_TFMDIALECT_H
#define TFM_IR_TFMDIALECT_H

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dialect.h"

#include "tfm/IR/TfmDialect.h.inc"

#endif // TFM_IR_TFMDIALECT_H
