//===- NormOps.cpp - normalization and elementwise ops --------------------===//
//
// tfm.layer_norm, tfm.rms_norm, tfm.scale (verifier and folder) and
// tfm.activation.
//
//===----------------------------------------------------------------------===//

#include "TfmVerify.h"
#include "tfm/IR/TfmOps.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;
using mlir::tfm::detail::ShapeVerifier;

namespace {
/// Common rules of the two norms: eps > 0, `input : [..., D]`, the
/// per-feature `name : [D]` parameters and a result typed like the input.
LogicalResult verifyNorm(Operation *op, double eps, RankedTensorType input,
                         ArrayRef<std::pair<StringRef, Value>> params,
                         RankedTensorType result) {
  if (!std::isfinite(eps) || eps <= 0)
    return op->emitOpError() << "'eps' must be finite and > 0, found " << eps;
  // The norms compute in f32: an eps that rounds to 0 there divides by
  // zero on an all-zero row.
  if (static_cast<float>(eps) == 0.0f)
    return op->emitOpError() << "'eps' (" << eps
                             << ") rounds to 0 in f32, the precision the "
                                "norm computes in";
  ShapeVerifier v(op);
  if (failed(v.minRank("input", input, 1, "[..., D]")))
    return failure();
  int64_t last = input.getRank() - 1;
  for (auto [name, value] : params) {
    if (!value)
      continue;
    auto type = cast<RankedTensorType>(value.getType());
    if (failed(v.rank(name, type, 1, "[D]")) ||
        failed(v.sameDim(name, type, 0, "D", "input", input, last)) ||
        failed(v.elementType(name, type, "input", input)))
      return failure();
  }
  if (result != input)
    return op->emitOpError() << "result type must equal the 'input' type: "
                                "expected "
                             << input << ", found " << result;
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// LayerNormOp, RmsNormOp
//===----------------------------------------------------------------------===//

LogicalResult LayerNormOp::verify() {
  return verifyNorm(*this, getEps().convertToDouble(), getInput().getType(),
                    {{"gamma", getGamma()}, {"beta", getBeta()}},
                    getResult().getType());
}

LogicalResult RmsNormOp::verify() {
  double offset = getGammaOffset().convertToDouble();
  if (!std::isfinite(offset))
    return emitOpError() << "'gamma_offset' must be finite, found " << offset;
  return verifyNorm(*this, getEps().convertToDouble(), getInput().getType(),
                    {{"gamma", getGamma()}}, getResult().getType());
}

//===----------------------------------------------------------------------===//
// ScaleOp
//===----------------------------------------------------------------------===//

LogicalResult ScaleOp::verify() {
  double factor = getFactor().convertToDouble();
  if (!std::isfinite(factor))
    return emitOpError() << "'factor' must be finite, found " << factor;
  return success();
}

OpFoldResult ScaleOp::fold(FoldAdaptor) {
  // x * 1.0 is x, bit for bit (also for -0.0, inf and NaN inputs).
  if (getFactor().isExactlyValue(1.0))
    return getInput();
  return {};
}

//===----------------------------------------------------------------------===//
// ActivationOp
//===----------------------------------------------------------------------===//

LogicalResult ActivationOp::verify() {
  Activation kind = getKind();
  if (isGated(kind))
    return emitOpError() << "'kind' " << stringifyActivation(kind)
                         << " is gated (it multiplies two projections) and "
                            "only exists on tfm.ffn; the elementwise kinds "
                            "are relu, gelu, gelu_tanh, silu and tanh";
  return success();
}
