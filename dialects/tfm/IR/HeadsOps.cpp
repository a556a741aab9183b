//===- HeadsOps.cpp - output heads ----------------------------------------===//
//
// Verifiers of tfm.lm_head and tfm.classifier_head.
//
//===----------------------------------------------------------------------===//

#include "TfmVerify.h"
#include "tfm/IR/TfmOps.h"

using namespace mlir;
using namespace mlir::tfm;
using mlir::tfm::detail::ShapeVerifier;

//===----------------------------------------------------------------------===//
// LmHeadOp
//===----------------------------------------------------------------------===//

LogicalResult LmHeadOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), weight = getWeight().getType(),
                   result = getResult().getType();
  if (failed(v.minRank("input", input, 1, "[..., D]")) ||
      failed(v.rank("weight", weight, 2, "[V, D]")))
    return failure();
  int64_t last = input.getRank() - 1;
  if (failed(v.sameDim("weight", weight, 1, "D", "input", input, last)) ||
      failed(v.elementType("weight", weight, "input", input)))
    return failure();
  if (Value bias = getBias()) {
    auto type = cast<RankedTensorType>(bias.getType());
    if (failed(v.rank("bias", type, 1, "[V]")) ||
        failed(v.sameDim("bias", type, 0, "V", "weight", weight, 0)) ||
        failed(v.elementType("bias", type, "input", input)))
      return failure();
  }
  if (failed(v.rank("result", result, input.getRank(), "[..., V]")))
    return failure();
  for (int64_t i = 0; i < last; ++i)
    if (failed(v.sameDim("result", result, i, "", "input", input, i)))
      return failure();
  if (failed(v.sameDim("result", result, last, "V", "weight", weight, 0)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// ClassifierHeadOp
//===----------------------------------------------------------------------===//

LogicalResult ClassifierHeadOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), weight = getWeight().getType(),
                   result = getResult().getType();
  if (failed(v.rank("input", input, 3, "[B, T, D]")) ||
      failed(v.rank("weight", weight, 2, "[C, D]")) ||
      failed(v.sameDim("weight", weight, 1, "D", "input", input, 2)) ||
      failed(v.elementType("weight", weight, "input", input)))
    return failure();
  if (Value lengths = getLengths()) {
    auto type = cast<RankedTensorType>(lengths.getType());
    if (failed(v.rank("lengths", type, 1, "[B]")) ||
        failed(v.sameDim("lengths", type, 0, "B", "input", input, 0)))
      return failure();
  }
  if (getPoolerBias() && !getPoolerWeight())
    return emitOpError("'pooler_bias' requires 'pooler_weight'");
  if (isGated(getPoolerActivation()))
    return emitOpError() << "'pooler_activation' "
                         << stringifyActivation(getPoolerActivation())
                         << " is gated; a pooler applies an elementwise one";
  if (Value pooler = getPoolerWeight()) {
    auto type = cast<RankedTensorType>(pooler.getType());
    if (failed(v.rank("pooler_weight", type, 2, "[D, D]")) ||
        failed(v.sameDim("pooler_weight", type, 0, "D", "input", input, 2)) ||
        failed(v.sameDim("pooler_weight", type, 1, "D", "input", input, 2)) ||
        failed(v.elementType("pooler_weight", type, "input", input)))
      return failure();
  }
  if (Value poolerBias = getPoolerBias()) {
    auto type = cast<RankedTensorType>(poolerBias.getType());
    if (failed(v.rank("pooler_bias", type, 1, "[D]")) ||
        failed(v.sameDim("pooler_bias", type, 0, "D", "input", input, 2)) ||
        failed(v.elementType("pooler_bias", type, "input", input)))
      return failure();
  }
  if (Value bias = getBias()) {
    auto type = cast<RankedTensorType>(bias.getType());
    if (failed(v.rank("bias", type, 1, "[C]")) ||
        failed(v.sameDim("bias", type, 0, "C", "weight", weight, 0)) ||
        failed(v.elementType("bias", type, "input", input)))
      return failure();
  }
  if (failed(v.rank("result", result, 2, "[B, C]")) ||
      failed(v.sameDim("result", result, 0, "B", "input", input, 0)) ||
      failed(v.sameDim("result", result, 1, "C", "weight", weight, 0)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  return success();
}
