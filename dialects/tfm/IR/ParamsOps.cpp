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

//===----------------------------------------------------------------------===//
// PatchEmbedOp, PrependTokenOp
//===----------------------------------------------------------------------===//

LogicalResult PatchEmbedOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType pixels = getPixels().getType(),
                   weight = getWeight().getType(),
                   result = getResult().getType();
  if (failed(v.rank("pixels", pixels, 4, "[B, C, H, W]")) ||
      failed(v.rank("weight", weight, 4, "[D, C, P, P]")) ||
      failed(v.rank("result", result, 3, "[B, N, D]")) ||
      failed(v.sameDim("weight", weight, 1, "C", "pixels", pixels, 1)) ||
      failed(v.sameDim("result", result, 0, "B", "pixels", pixels, 0)) ||
      failed(v.sameDim("result", result, 2, "D", "weight", weight, 0)) ||
      failed(v.elementType("weight", weight, "pixels", pixels)) ||
      failed(v.elementType("result", result, "pixels", pixels)))
    return failure();
  if (Value bias = getBias()) {
    auto type = cast<RankedTensorType>(bias.getType());
    if (failed(v.rank("bias", type, 1, "[D]")) ||
        failed(v.sameDim("bias", type, 0, "D", "weight", weight, 0)) ||
        failed(v.elementType("bias", type, "pixels", pixels)))
      return failure();
  }
  // The patch grid must be static: the token count is part of the model.
  if (!weight.hasStaticShape() || pixels.isDynamicDim(2) ||
      pixels.isDynamicDim(3))
    return emitOpError() << "needs static patch and image sizes, found "
                         << pixels << " and " << weight;
  int64_t p = weight.getDimSize(2), h = pixels.getDimSize(2),
          w = pixels.getDimSize(3);
  if (weight.getDimSize(3) != p || p < 1)
    return emitOpError() << "'weight' must hold square patches [D, C, P, P], "
                            "found "
                         << weight;
  if (h % p != 0 || w % p != 0)
    return emitOpError() << "the image (" << h << " x " << w
                         << ") is not a whole number of " << p << " x " << p
                         << " patches";
  return v.dim("result", result, 1, "N", (h / p) * (w / p),
               "the patch grid (H / P)(W / P)");
}

LogicalResult PrependTokenOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), token = getToken().getType(),
                   result = getResult().getType();
  if (failed(v.rank("input", input, 3, "[B, T, D]")) ||
      failed(v.rank("token", token, 1, "[D]")) ||
      failed(v.rank("result", result, 3, "[B, T + 1, D]")) ||
      failed(v.sameDim("token", token, 0, "D", "input", input, 2)) ||
      failed(v.sameDim("result", result, 0, "B", "input", input, 0)) ||
      failed(v.sameDim("result", result, 2, "D", "input", input, 2)) ||
      failed(v.elementType("token", token, "input", input)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  int64_t t = input.getDimSize(1);
  return v.dim("result", result, 1, "T + 1",
               ShapedType::isDynamic(t) ? t : t + 1, "'input' dim 1 plus one");
}

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
      failed(v.perSequence("offsets", getOffsets(), "input", input)) ||
      failed(v.perSequence("lengths", getLengths(), "input", input)))
    return failure();
  if (getLengths() && !getOffsets())
    return emitOpError("'lengths' needs 'offsets' (the rows of a generation "
                       "step)");
  double theta = getTheta().convertToDouble();
  // theta <= 1 makes every frequency theta^(-2i/d) >= 1: no rotation is
  // slower than one radian per position, which no RoPE model means.
  if (!std::isfinite(theta) || theta <= 1)
    return emitOpError() << "'theta' must be finite and > 1, found " << theta;
  double scaling = getScalingFactor().convertToDouble();
  if (!std::isfinite(scaling) || scaling <= 0)
    return emitOpError() << "'scaling_factor' must be finite and > 0, found "
                         << scaling;
  double attentionFactor = getAttentionFactor().convertToDouble();
  if (!std::isfinite(attentionFactor) || attentionFactor <= 0)
    return emitOpError() << "'attention_factor' must be finite and > 0, found "
                         << attentionFactor;
  int64_t d = input.getDimSize(3);
  std::optional<int64_t> rotary;
  if (IntegerAttr rotaryDim = getRotaryDimAttr()) {
    int64_t rd = rotaryDim.getInt();
    if (rd <= 0 || rd % 2 != 0)
      return emitOpError() << "'rotary_dim' must be even and > 0, found " << rd;
    if (!ShapedType::isDynamic(d) && rd > d)
      return emitOpError() << "'rotary_dim' must not exceed the head size "
                              "('input' dim 3): "
                           << rd << " > " << d;
    rotary = rd;
  } else if (!ShapedType::isDynamic(d)) {
    if (d % 2 != 0)
      return emitOpError() << "'input' dim 3 (D) must be even when "
                              "'rotary_dim' is absent (all features rotate "
                              "in pairs), found "
                           << d;
    rotary = d;
  }
  // Explicit frequencies: one per rotated pair, finite and > 0.
  auto checkFrequencies =
      [&](StringRef name,
          std::optional<ArrayRef<double>> freqs) -> LogicalResult {
    if (!freqs)
      return success();
    if (rotary && int64_t(freqs->size()) != *rotary / 2)
      return emitOpError() << "'" << name << "' must hold one frequency per "
                           << "rotated pair (" << *rotary / 2 << "), found "
                           << freqs->size();
    for (auto [i, f] : llvm::enumerate(*freqs))
      if (!std::isfinite(f) || f <= 0)
        return emitOpError() << "'" << name << "'[" << i
                             << "] must be finite and > 0, found " << f;
    return success();
  };
  if (failed(checkFrequencies("inv_freq", getInvFreq())) ||
      failed(checkFrequencies("long_inv_freq", getLongInvFreq())))
    return failure();
  if (getInvFreq() && !getScalingFactor().isExactlyValue(1.0))
    return emitOpError("'scaling_factor' must be 1 with 'inv_freq' (the "
                       "frequencies already hold the scaling)");
  if (getLongInvFreq().has_value() != getLongAfter().has_value() ||
      (getLongInvFreq() && !getInvFreq()))
    return emitOpError("'long_inv_freq' and 'long_after' go together, and "
                       "need 'inv_freq' (the short set)");
  if (std::optional<uint64_t> after = getLongAfter();
      after && int64_t(*after) <= 0)
    return emitOpError() << "'long_after' must be > 0, found "
                         << int64_t(*after);
  return success();
}

//===----------------------------------------------------------------------===//
// RelativePositionBiasOp
//===----------------------------------------------------------------------===//

LogicalResult RelativePositionBiasOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType table = getTable().getType(), result = getResult().getType();
  if (failed(v.rank("table", table, 2, "[NB, H]")) ||
      failed(v.rank("result", result, 4, "[B, H, Tq, Tk]")) ||
      failed(v.sameDim("result", result, 1, "H", "table", table, 1)) ||
      failed(v.elementType("result", result, "table", table)))
    return failure();
  if (table.isDynamicDim(0))
    return emitOpError() << "'table' needs a static bucket count (dim 0), "
                            "found "
                         << table;
  if (Value offsets = getOffsets()) {
    auto type = cast<RankedTensorType>(offsets.getType());
    if (failed(v.rank("offsets", type, 1, "[B]")) ||
        failed(v.sameDim("offsets", type, 0, "B", "result", result, 0)))
      return failure();
  }
  // Each half (bidirectional) or the whole table splits into exact buckets
  // [0, e) and log-spaced ones [e, n): both need at least one.
  int64_t n = table.getDimSize(0) / (getBidirectional() ? 2 : 1);
  int64_t exact = n / 2;
  if (exact < 1 || (getBidirectional() && table.getDimSize(0) % 2 != 0))
    return emitOpError() << "'table' has " << table.getDimSize(0)
                         << " buckets; needs at least "
                         << (getBidirectional() ? "4, an even count" : "2")
                         << (getBidirectional() ? " (two directions)" : "");
  int64_t maxDistance = getMaxDistance();
  if (maxDistance <= exact)
    return emitOpError() << "'max_distance' (" << maxDistance
                         << ") must exceed the exact buckets (" << exact
                         << ") for the log-spaced ones to be defined";
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
