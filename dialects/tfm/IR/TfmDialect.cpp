//===- TfmDialect.cpp - tfm dialect registration ---------------------------===//

#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::tfm;

#include "tfm/IR/TfmDialect.cpp.inc"
#include "tfm/IR/TfmEnums.cpp.inc"
#define GET_ATTRDEF_CLASSES
#include "tfm/IR/TfmAttrs.cpp.inc"

void TfmDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tfm/IR/TfmAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "tfm/IR/TfmOps.cpp.inc"
      >();
}
