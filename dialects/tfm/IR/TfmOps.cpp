//===- TfmOps.cpp - tfm operation definitions -----------------------------===//
//
// The generated op classes. Verifiers, folders and helpers live beside this
// file, one file per op family: ParamsOps.cpp, NormOps.cpp,
// FeedForwardOps.cpp, AttentionOps.cpp, HeadsOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "tfm/IR/TfmOps.h"

using namespace mlir;
using namespace mlir::tfm;

#define GET_OP_CLASSES
#include "tfm/IR/TfmOps.cpp.inc"
