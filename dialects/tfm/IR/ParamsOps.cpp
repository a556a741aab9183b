//===- ParamsOps.cpp - parameters, embeddings, positions ------------------===//
//
// Verifiers of tfm.weight, tfm.embedding and the positional encodings
// (tfm.sinusoidal_position, tfm.learned_position, tfm.rope,
// tfm.alibi_slopes).
//
//===----------------------------------------------------------------------===//

#include "TfmVerify.h"
#include "tfm/IR/TfmOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;
using mlir::tfm::detail::ShapeVerifier;

//===----------------------------------------------------------------------===//
// WeightOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOp::verify() {
  if (getName().empty())
    return emitOpError("'name' must not be empty: it names the tensor in the "
                       "weights file");
  RankedTensorType type = getResult().getType();
  if (!type.hasStaticShape())
    return emitOpError() << "weight '" << getName()
                         << "' must have a static shape, found " << type;
  return success();
}

//===----------------------------------------------------------------------===//
// EmbeddingOp
//===----------------------------------------------------------------------===//

LogicalResult EmbeddingOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType ids = getIds().getType(), table = getTable().getType(),
                   result = getResult().getType();
  if (failed(v.rank("ids", ids, 2, "[B, T]")) ||
      failed(v.rank("table", table, 2, "[V, D]")) ||
      failed(v.rank("result", result, 3, "[B, T, D]")) ||
      failed(v.sameDim("result", result, 0, "B", "ids", ids, 0)) ||
      failed(v.sameDim("result", result, 1, "T", "ids", ids, 1)) ||
      failed(v.sameDim("result", result, 2, "D", "table", table, 1)) ||
      failed(v.elementType("result", result, "table", table)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// SinusoidalPositionOp
//===----------------------------------------------------------------------===//

LogicalResult SinusoidalPositionOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType();
  if (failed(v.rank("input", input, 3, "[B, T, D]")) ||
      failed(v.perSequence("offsets", getOffsets(), "input", input)))
    return failure();
  int64_t d = input.getDimSize(2);
  if (!ShapedType::isDynamic(d) && d % 2 != 0)
    return emitOpError() << "'input' dim 2 (D) must be even (sin/cos pairs), "
                            "found "
                         << d;
  return success();
}

//===----------------------------------------------------------------------===//
// LearnedPositionOp
//===----------------------------------------------------------------------===//

LogicalResult LearnedPositionOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), table = getTable().getType(),
                   result = getResult().getType();
  if (failed(v.rank("input", input, 3, "[B, T, D]")) ||
      failed(v.rank("table", table, 2, "[P, D]")) ||
      failed(v.sameDim("table", table, 1, "D", "input", input, 2)) ||
      failed(v.elementType("table", table, "input", input)) ||
      failed(v.perSequence("offsets", getOffsets(), "input", input)))
    return failure();
  if (result != input)
    return emitOpError() << "result type must equal the 'input' type: "
                            "expected "
                         << input << ", found " << result;
  // With offsets, positions are offsets[b] + t: only the runtime knows
  // them.
  int64_t t = input.getDimSize(1), p = table.getDimSize(0);
  if (!getOffsets() && !ShapedType::isDynamic(t) && !ShapedType::isDynamic(p) && t > p)
    return emitOpError() << "'input' dim 1 (T) must not exceed 'table' dim 0 "
                            "(P, the number of learned positions): "
                         << t << " > " << p;
  return success();
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

LogicalResult RopeOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType();
  if (failed(v.rank("input", input, 4, "[B, H, T, D]")) ||
      failed(v.perSequence("offsets", getOffsets(), "input", input)))
    return failure();
  double theta = getTheta().convertToDouble();
  // theta <= 1 makes every frequency theta^(-2i/d) >= 1: no rotation is
  // slower than one radian per position, which no RoPE model means.
  if (!std::isfinite(theta) || theta <= 1)
    return emitOpError() << "'theta' must be finite and > 1, found " << theta;
  double scaling = getScalingFactor().convertToDouble();
  if (!std::isfinite(scaling) || scaling <= 0)
    return emitOpError() << "'scaling_factor' must be finite and > 0, found "
                         << scaling;
  int64_t d = input.getDimSize(3);
  if (IntegerAttr rotaryDim = getRotaryDimAttr()) {
    int64_t rd = rotaryDim.getInt();
    if (rd <= 0 || rd % 2 != 0)
      return emitOpError() << "'rotary_dim' must be even and > 0, found " << rd;
    if (!ShapedType::isDynamic(d) && rd > d)
      return emitOpError() << "'rotary_dim' must not exceed the head size "
                              "('input' dim 3): "
                           << rd << " > " << d;
    return success();
  }
  if (!ShapedType::isDynamic(d) && d % 2 != 0)
    return emitOpError() << "'input' dim 3 (D) must be even when "
                            "'rotary_dim' is absent (all features rotate in "
                            "pairs), found "
                         << d;
  return success();
}

//===----------------------------------------------------------------------===//
// AlibiSlopesOp
//===----------------------------------------------------------------------===//

LogicalResult AlibiSlopesOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType result = getResult().getType();
  if (failed(v.rank("result", result, 1, "[H]")))
    return failure();
  int64_t h = result.getDimSize(0);
  if (ShapedType::isDynamic(h) || h <= 0)
    return emitOpError() << "'result' dim 0 (H, the number of heads) must be "
                            "static and > 0, found "
                         << result;
  return success();
}
