//===- HeadsOps.cpp - LM and classifier heads to linalg -------------------===//
//
// The tfm-to-linalg lowerings of the ops of dialects/tfm/IR/HeadsOps.cpp.
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

struct LmHeadLowering : TfmLowering<LmHeadOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LmHeadOp op, PatternRewriter &b) const override {
    FailureOr<Value> y =
        linearF32(b, op.getLoc(), op, op.getInput(), op.getWeight(),
                  op.getBias(), WeightLayout::out_in);
    if (failed(y))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, op.getLoc(), *y, et);
  }
};

struct ClassifierHeadLowering : TfmLowering<ClassifierHeadOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(ClassifierHeadOp op,
                         PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value x = op.getInput();
    RankedTensorType xT = rankedType(x);
    if (xT.isDynamicDim(2))
      return op.emitOpError("lowering needs a static model size (input dim "
                            "2), got ")
             << xT;
    bool last = op.getPooling() == Pooling::last;
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    Value lastPos = arith::SubIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, s[1]),
        cstIndex(b, loc, 1));
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    Value lens = op.getLengths();
    if (last && lens) {
      inputs.push_back(lens);
      maps.push_back(AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    // pooled[b, d] = x[b, pos(b), d]
    Value pooled = elementwise(
        b, loc, {s[0], s[2]}, xT.getElementType(), inputs, maps,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value bi = linalg::IndexOp::create(nb, l, 0);
          Value di = linalg::IndexOp::create(nb, l, 1);
          Value pos = cstIndex(nb, l, 0);
          if (last && !a.empty()) {
            Value p = arith::SubIOp::create(nb, l, toIndex(nb, l, a[0]),
                                            cstIndex(nb, l, 1));
            pos = clampIndex(nb, l, p, cstIndex(nb, l, 0), lastPos);
          } else if (last) {
            pos = lastPos;
          }
          return tensor::ExtractOp::create(nb, l, x, ValueRange{bi, pos, di});
        });
    if (Value pw = op.getPoolerWeight()) {
      FailureOr<Value> p = linearF32(b, loc, op, pooled, pw,
                                     op.getPoolerBias(), WeightLayout::out_in);
      if (failed(p))
        return failure();
      Activation act = op.getPoolerActivation();
      pooled = mapTensor(b, loc, *p, b.getF32Type(),
                         [&](OpBuilder &nb, Location l, Value v) -> Value {
                           return activate(nb, l, act, v);
                         });
    }
    FailureOr<Value> y = linearF32(b, loc, op, pooled, op.getWeight(),
                                   op.getBias(), WeightLayout::out_in);
    if (failed(y))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, loc, *y, et);
  }
};

} // namespace

void mlir::tfm::lowering::populateHeadsLowerings(RewritePatternSet &patterns) {
  patterns.add<LmHeadLowering, ClassifierHeadLowering>(patterns.getContext());
}
