//===- FeedForwardOps.cpp - projections and feed-forward ------------------===//
//
// Verifiers of tfm.linear, tfm.matmul and tfm.ffn.
//
//===----------------------------------------------------------------------===//

#include "TfmVerify.h"
#include "tfm/IR/TfmOps.h"

using namespace mlir;
using namespace mlir::tfm;
using mlir::tfm::detail::ShapeVerifier;

namespace {
/// Where the input and output features of a projection weight live.
struct WeightDims {
  int64_t in, out;
  const char *layout; // "[O, I]" or "[I, O]"
};

WeightDims weightDims(WeightLayout layout) {
  if (layout == WeightLayout::out_in)
    return {1, 0, "[O, I] for layout out_in"};
  return {0, 1, "[I, O] for layout in_out"};
}

/// Checks `name : [O, I]` (or `[I, O]`) against `input : [..., I]` and the
/// optional `biasName : [O]`.
LogicalResult verifyProjection(ShapeVerifier &v, WeightLayout layout,
                               StringRef name, RankedTensorType weight,
                               StringRef inputName, RankedTensorType input,
                               int64_t inputDim, StringRef biasName,
                               Value bias) {
  WeightDims dims = weightDims(layout);
  if (failed(v.rank(name, weight, 2, dims.layout)) ||
      failed(v.sameDim(name, weight, dims.in, "I, input features", inputName,
                       input, inputDim)) ||
      failed(v.elementType(name, weight, inputName, input)))
    return failure();
  if (!bias)
    return success();
  auto biasType = cast<RankedTensorType>(bias.getType());
  if (failed(v.rank(biasName, biasType, 1, "[O]")) ||
      failed(v.sameDim(biasName, biasType, 0, "O, output features", name,
                       weight, dims.out)) ||
      failed(v.elementType(biasName, biasType, inputName, input)))
    return failure();
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// LinearOp
//===----------------------------------------------------------------------===//

LogicalResult LinearOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), weight = getWeight().getType(),
                   result = getResult().getType();
  if (failed(v.minRank("input", input, 1, "[..., I]")))
    return failure();
  int64_t last = input.getRank() - 1;
  if (failed(verifyProjection(v, getLayout(), "weight", weight, "input", input,
                              last, "bias", getBias())))
    return failure();
  if (failed(v.rank("result", result, input.getRank(), "[..., O]")))
    return failure();
  for (int64_t i = 0; i < last; ++i)
    if (failed(v.sameDim("result", result, i, "", "input", input, i)))
      return failure();
  if (failed(v.sameDim("result", result, last, "O, output features", "weight",
                       weight, weightDims(getLayout()).out)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// MatmulOp
//===----------------------------------------------------------------------===//

LogicalResult MatmulOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType lhs = getLhs().getType(), rhs = getRhs().getType(),
                   result = getResult().getType();
  bool transposed = getTransposeRhs();
  if (failed(v.minRank("lhs", lhs, 2, "[..., M, K]")))
    return failure();
  int64_t rank = lhs.getRank();
  if (failed(v.rank("rhs", rhs, rank,
                    transposed ? "[..., N, K] with transpose_rhs, the rank "
                                 "of 'lhs'"
                               : "[..., K, N], the rank of 'lhs'")) ||
      failed(v.rank("result", result, rank, "[..., M, N], the rank of 'lhs'")))
    return failure();
  for (int64_t i = 0; i < rank - 2; ++i)
    if (failed(v.sameDim("rhs", rhs, i, "batch", "lhs", lhs, i)) ||
        failed(v.sameDim("result", result, i, "batch", "lhs", lhs, i)))
      return failure();
  int64_t kIdx = transposed ? rank - 1 : rank - 2;
  int64_t nIdx = transposed ? rank - 2 : rank - 1;
  if (failed(v.sameDim("rhs", rhs, kIdx, "K, contracting", "lhs", lhs,
                       rank - 1)) ||
      failed(v.sameDim("result", result, rank - 2, "M", "lhs", lhs,
                       rank - 2)) ||
      failed(v.sameDim("result", result, rank - 1, "N", "rhs", rhs, nIdx)) ||
      failed(v.elementType("rhs", rhs, "lhs", lhs)) ||
      failed(v.elementType("result", result, "lhs", lhs)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// FfnOp
//===----------------------------------------------------------------------===//

LogicalResult FfnOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), up = getUpWeight().getType(),
                   down = getDownWeight().getType(),
                   result = getResult().getType();
  Activation act = getActivation();
  bool gated = isGated(act);
  if (gated && !getGateWeight())
    return emitOpError() << "gated activation " << stringifyActivation(act)
                         << " requires 'gate_weight'";
  if (!gated && getGateWeight())
    return emitOpError() << "'gate_weight' is only allowed with a gated "
                            "activation (swiglu, geglu, geglu_tanh), found "
                         << stringifyActivation(act);
  if (getGateBias() && !getGateWeight())
    return emitOpError("'gate_bias' requires 'gate_weight'");

  if (failed(v.minRank("input", input, 1, "[..., D]")))
    return failure();
  int64_t last = input.getRank() - 1;
  WeightDims upDims = weightDims(getLayout());
  if (failed(verifyProjection(v, getLayout(), "up_weight", up, "input", input,
                              last, "up_bias", getUpBias())))
    return failure();
  if (Value gate = getGateWeight()) {
    auto gateType = cast<RankedTensorType>(gate.getType());
    if (failed(verifyProjection(v, getLayout(), "gate_weight", gateType,
                                "input", input, last, "gate_bias",
                                getGateBias())) ||
        failed(v.sameDim("gate_weight", gateType, upDims.out, "F, hidden",
                         "up_weight", up, upDims.out)))
      return failure();
  }
  // down: F -> D, with the same layout convention.
  if (failed(verifyProjection(v, getLayout(), "down_weight", down, "up_weight",
                              up, upDims.out, "down_bias", getDownBias())) ||
      failed(v.sameDim("down_weight", down, upDims.out, "O, output features",
                       "input", input, last)))
    return failure();
  if (result != input)
    return emitOpError() << "result type must equal the 'input' type: "
                            "expected "
                         << input << ", found " << result;
  return success();
}
