//===- FeedForwardOps.cpp - projections, FFNs to linalg -------------------===//
//
// The tfm-to-linalg lowerings of the ops of dialects/tfm/IR/FeedForwardOps.cpp.
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

struct LinearLowering : TfmLowering<LinearOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LinearOp op, PatternRewriter &b) const override {
    FailureOr<Value> y = linearF32(b, op.getLoc(), op, op.getInput(),
                                   op.getWeight(), op.getBias(), op.getLayout());
    if (failed(y))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, op.getLoc(), *y, et);
  }
};

struct MatmulLowering : TfmLowering<MatmulOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(MatmulOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    unsigned rank = rankedType(lhs).getRank();
    assert(rank >= 2 && rankedType(rhs).getRank() == rank &&
           "verified tfm.matmul: operands of equal rank >= 2");
    bool tr = op.getTransposeRhs();
    SmallVector<OpFoldResult> lSizes = sizesOf(b, loc, lhs);
    SmallVector<OpFoldResult> rSizes = sizesOf(b, loc, rhs);
    SmallVector<OpFoldResult> outSizes(lSizes.begin(), lSizes.end() - 1);
    outSizes.push_back(tr ? rSizes[rank - 2] : rSizes[rank - 1]);
    Value acc = filledF32(b, loc, outSizes, 0.0);
    // Loops: batch..., m, n, k.
    unsigned nb = rank - 2, numLoops = rank + 1;
    SmallVector<AffineExpr> batch;
    for (unsigned i = 0; i < nb; ++i)
      batch.push_back(getAffineDimExpr(i, ctx));
    AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
               k = getAffineDimExpr(nb + 2, ctx);
    auto mapOf = [&](AffineExpr a, AffineExpr c) {
      SmallVector<AffineExpr> e(batch);
      e.push_back(a);
      e.push_back(c);
      return AffineMap::get(numLoops, 0, e, ctx);
    };
    SmallVector<AffineMap> maps{mapOf(m, k), tr ? mapOf(n, k) : mapOf(k, n),
                                mapOf(m, n)};
    SmallVector<IteratorType> iters = parallel(rank);
    iters.push_back(IteratorType::reduction);
    Value y = mulAccF32(b, loc, lhs, rhs, acc, maps, iters);
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, loc, y, et);
  }
};

struct FfnLowering : TfmLowering<FfnOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(FfnOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Activation kind = op.getActivation();
    WeightLayout layout = op.getLayout();
    bool gated = isGated(kind);
    assert(gated == bool(op.getGateWeight()) &&
           "verified tfm.ffn: a gate weight exactly for swiglu and geglu");
    FailureOr<Value> up = linearF32(b, loc, op, op.getInput(),
                                    op.getUpWeight(), op.getUpBias(), layout);
    if (failed(up))
      return failure();
    Value hidden;
    if (gated) {
      FailureOr<Value> gate =
          linearF32(b, loc, op, op.getInput(), op.getGateWeight(),
                    op.getGateBias(), layout);
      if (failed(gate))
        return failure();
      unsigned rank = rankedType(*up).getRank();
      AffineMap id = b.getMultiDimIdentityMap(rank);
      hidden = elementwise(
          b, loc, sizesOf(b, loc, *up), b.getF32Type(), ValueRange{*gate, *up},
          {id, id}, [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
            return arith::MulFOp::create(nb, nloc,
                                         activate(nb, nloc, kind, a[0]), a[1]);
          });
    } else {
      hidden = mapTensor(b, loc, *up, b.getF32Type(),
                         [&](OpBuilder &nb, Location nloc, Value v) {
                           return activate(nb, nloc, kind, v);
                         });
    }
    FailureOr<Value> down = linearF32(b, loc, op, hidden, op.getDownWeight(),
                                      op.getDownBias(), layout);
    if (failed(down))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, loc, *down, et);
  }
};

} // namespace

void mlir::tfm::lowering::populateFeedForwardLowerings(RewritePatternSet &patterns) {
  patterns.add<LinearLowering, MatmulLowering, FfnLowering>(patterns.getContext());
}
