//===- TfmOps.cpp - tfm operation verifiers ---------------------------===//

#include "tfm/IR/TfmOps.h"

using namespace mlir;
using namespace mlir::tfm;

LogicalResult WeightOp::verify() { return success(); }
LogicalResult EmbeddingOp::verify() { return success(); }
LogicalResult SinusoidalPositionOp::verify() { return success(); }
LogicalResult LearnedPositionOp::verify() { return success(); }
LogicalResult RopeOp::verify() { return success(); }
LogicalResult AlibiSlopesOp::verify() { return success(); }
LogicalResult LayerNormOp::verify() { return success(); }
LogicalResult RmsNormOp::verify() { return success(); }
LogicalResult ScaleOp::verify() { return success(); }
LogicalResult ActivationOp::verify() { return success(); }
LogicalResult LinearOp::verify() { return success(); }
LogicalResult MatmulOp::verify() { return success(); }
LogicalResult FfnOp::verify() { return success(); }
LogicalResult AttentionOp::verify() { return success(); }
LogicalResult SplitHeadsOp::verify() { return success(); }
LogicalResult MergeHeadsOp::verify() { return success(); }
LogicalResult TransposeOp::verify() { return success(); }
LogicalResult SoftmaxOp::verify() { return success(); }
LogicalResult MakeMaskOp::verify() { return success(); }
LogicalResult MaskedFillOp::verify() { return success(); }
LogicalResult AlibiBiasOp::verify() { return success(); }
LogicalResult RepeatKvOp::verify() { return success(); }
LogicalResult LmHeadOp::verify() { return success(); }
LogicalResult ClassifierHeadOp::verify() { return success(); }
int64_t AttentionOp::getGroupSize() {
  return getQuery().getType().getDimSize(1) / getKey().getType().getDimSize(1);
}

#define GET_OP_CLASSES
#include "tfm/IR/TfmOps.cpp.inc"
