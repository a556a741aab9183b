//===- NormOps.cpp - norms, adds, scales, activations to linalg -----------===//
//
// The tfm-to-linalg lowerings of the ops of dialects/tfm/IR/NormOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::lowering;

namespace {

Value cstF64(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}

/// 1 / sqrt(v) for an f64 `v`: sqrt and a division (both one PTX
/// instruction; math.rsqrt on f64 would need libdevice on the GPU).
Value reciprocalSqrtF64(OpBuilder &b, Location loc, Value v) {
  return arith::DivFOp::create(b, loc, cstF64(b, loc, 1.0),
                               math::SqrtOp::create(b, loc, v));
}

struct LayerNormLowering : TfmLowering<LayerNormOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LayerNormOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xType = rankedType(x);
    if (xType.isDynamicDim(xType.getRank() - 1))
      return op.emitOpError("lowering needs a static normalized size (the "
                            "input's last dim), got ")
             << xType;
    unsigned rank = xType.getRank();
    double invD = 1.0 / double(xType.getShape().back());
    double eps = op.getEps().convertToDouble();
    // Two passes (mean, then centred variance) for accuracy, both summed in
    // f64: neither can overflow for finite f32 input (N * FLT_MAX^2 <
    // DBL_MAX), so the output is finite whenever it is representable.
    FloatType f64 = b.getF64Type();
    Value sum = reduceLast(
        b, loc, x, {},
        [](OpBuilder &, Location, Value v, ValueRange) { return v; }, f64);
    Value sq = reduceLast(
        b, loc, x, sum,
        [&](OpBuilder &nb, Location nloc, Value v, ValueRange row) -> Value {
          Value mean =
              arith::MulFOp::create(nb, nloc, row[0], cstF64(nb, nloc, invD));
          Value c = arith::SubFOp::create(nb, nloc, v, mean);
          return arith::MulFOp::create(nb, nloc, c, c);
        },
        f64);
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap row = id.dropResult(rank - 1);
    AffineMap last = AffineMap::get(
        rank, 0, {getAffineDimExpr(rank - 1, b.getContext())}, b.getContext());
    SmallVector<Value> inputs{x, sum, sq, op.getGamma()};
    SmallVector<AffineMap> maps{id, row, row, last};
    if (op.getBeta()) {
      inputs.push_back(op.getBeta());
      maps.push_back(last);
    }
    Type et = xType.getElementType();
    return elementwise(
        b, loc, sizesOf(b, loc, x), et, inputs, maps,
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          // (x - mean) / sqrt(var + eps) in f64, then f32.
          Value mean =
              arith::MulFOp::create(nb, nloc, a[1], cstF64(nb, nloc, invD));
          Value var =
              arith::MulFOp::create(nb, nloc, a[2], cstF64(nb, nloc, invD));
          Value inv = reciprocalSqrtF64(
              nb, nloc,
              arith::AddFOp::create(nb, nloc, var, cstF64(nb, nloc, eps)));
          Value xv = arith::ExtFOp::create(nb, nloc, f64, toF32(nb, nloc, a[0]));
          Value c = arith::SubFOp::create(nb, nloc, xv, mean);
          Value n = arith::TruncFOp::create(
              nb, nloc, nb.getF32Type(), arith::MulFOp::create(nb, nloc, c, inv));
          Value y = arith::MulFOp::create(nb, nloc, n, toF32(nb, nloc, a[3]));
          if (a.size() > 4)
            y = arith::AddFOp::create(nb, nloc, y, toF32(nb, nloc, a[4]));
          return fromF32(nb, nloc, y, et);
        });
  }
};

struct RmsNormLowering : TfmLowering<RmsNormOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(RmsNormOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xType = rankedType(x);
    if (xType.isDynamicDim(xType.getRank() - 1))
      return op.emitOpError("lowering needs a static normalized size (the "
                            "input's last dim), got ")
             << xType;
    unsigned rank = xType.getRank();
    double invD = 1.0 / double(xType.getShape().back());
    double eps = op.getEps().convertToDouble();
    double gammaOffset = op.getGammaOffset().convertToDouble();
    // The sum of squares in f64: it cannot overflow for finite f32 input
    // (N * FLT_MAX^2 < DBL_MAX), so the output is finite whenever it is
    // representable (an f32 sum overflows once |x| ~ 1e19).
    FloatType f64 = b.getF64Type();
    Value sq = reduceLast(
        b, loc, x, {},
        [](OpBuilder &nb, Location nloc, Value v, ValueRange) -> Value {
          return arith::MulFOp::create(nb, nloc, v, v);
        },
        f64);
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap row = id.dropResult(rank - 1);
    AffineMap last = AffineMap::get(
        rank, 0, {getAffineDimExpr(rank - 1, b.getContext())}, b.getContext());
    Type et = xType.getElementType();
    return elementwise(
        b, loc, sizesOf(b, loc, x), et, ValueRange{x, sq, op.getGamma()},
        {id, row, last},
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          // x / sqrt(mean(x^2) + eps) in f64, then f32.
          Value ms =
              arith::MulFOp::create(nb, nloc, a[1], cstF64(nb, nloc, invD));
          Value inv = reciprocalSqrtF64(
              nb, nloc,
              arith::AddFOp::create(nb, nloc, ms, cstF64(nb, nloc, eps)));
          Value xv =
              arith::ExtFOp::create(nb, nloc, f64, toF32(nb, nloc, a[0]));
          Value n =
              arith::TruncFOp::create(nb, nloc, nb.getF32Type(),
                                      arith::MulFOp::create(nb, nloc, xv, inv));
          Value gamma = toF32(nb, nloc, a[2]);
          if (gammaOffset != 0.0)
            gamma = arith::AddFOp::create(nb, nloc, gamma,
                                          cstF32(nb, nloc, gammaOffset));
          Value y = arith::MulFOp::create(nb, nloc, n, gamma);
          return fromF32(nb, nloc, y, et);
        });
  }
};

struct AddLowering : TfmLowering<AddOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(AddOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value lhs = op.getLhs();
    unsigned rank = rankedType(lhs).getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    Type et = rankedType(lhs).getElementType();
    return elementwise(b, loc, sizesOf(b, loc, lhs), et,
                       ValueRange{lhs, op.getRhs()}, {id, id},
                       [&](OpBuilder &nb, Location nloc, ValueRange a) {
                         Value s = arith::AddFOp::create(
                             nb, nloc, toF32(nb, nloc, a[0]),
                             toF32(nb, nloc, a[1]));
                         return fromF32(nb, nloc, s, et);
                       });
  }
};

struct ScaleLowering : TfmLowering<ScaleOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(ScaleOp op, PatternRewriter &b) const override {
    double factor = op.getFactor().convertToDouble();
    Type et = rankedType(op.getInput()).getElementType();
    return mapTensor(b, op.getLoc(), op.getInput(), et,
                     [&](OpBuilder &nb, Location nloc, Value v) {
                       Value y = arith::MulFOp::create(
                           nb, nloc, toF32(nb, nloc, v),
                           cstF32(nb, nloc, factor));
                       return fromF32(nb, nloc, y, et);
                     });
  }
};

struct ActivationLowering : TfmLowering<ActivationOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(ActivationOp op, PatternRewriter &b) const override {
    Activation kind = op.getKind();
    assert(!isGated(kind) && "verified tfm.activation: not a gated kind");
    Type et = rankedType(op.getInput()).getElementType();
    return mapTensor(b, op.getLoc(), op.getInput(), et,
                     [&](OpBuilder &nb, Location nloc, Value v) {
                       Value y = activate(nb, nloc, kind, toF32(nb, nloc, v));
                       return fromF32(nb, nloc, y, et);
                     });
  }
};

} // namespace

void mlir::tfm::lowering::populateNormLowerings(RewritePatternSet &patterns) {
  patterns.add<LayerNormLowering, RmsNormLowering, AddLowering, ScaleLowering, ActivationLowering>(patterns.getContext());
}
