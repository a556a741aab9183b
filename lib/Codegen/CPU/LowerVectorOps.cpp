//===- LowerVectorOps.cpp - vector ops the LLVM conversion does not take --===//
//
// -tfm-lower-vector-ops: contractions to outer products, multi-reductions
// to reductions, transposes to shuffles (widening moved before them),
// transfer permutations to minor identities, before convert-vector-to-scf /
// convert-vector-to-llvm; f32 min/max reductions to a tree of vector
// min/max.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tfm-lower-vector-ops"

namespace mlir::tfm {
#define GEN_PASS_DEF_LOWERVECTOROPSPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// `vector.reduction <maxnumf|minnumf|maximumf|minimumf>` of a 1-D f32
/// vector whose length is a power of two => a tree: the max of the two
/// halves, then of the halves of that, down to one lane. LLVM expands its
/// min/max reduction intrinsics without `nnan` (which these ops do not
/// have) one lane at a time on x86: 32 scalar max-and-NaN-blend steps for a
/// 32-lane row of the attention's scores, where the tree takes 5 vector
/// steps. The result is the same: these operations are associative and
/// commutative (up to the sign of a zero result).
struct TreeMinMaxReduction : OpRewritePattern<vector::ReductionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(vector::ReductionOp op,
                                PatternRewriter &rw) const override {
    VectorType vt = op.getSourceVectorType();
    if (vt.getRank() != 1 || vt.isScalable() ||
        !vt.getElementType().isF32())
      return rw.notifyMatchFailure(op, "not a fixed 1-D f32 vector");
    int64_t n = vt.getDimSize(0);
    if (n < 2 || !llvm::isPowerOf2_64(n))
      return rw.notifyMatchFailure(op, "length is not a power of two");
    vector::CombiningKind kind = op.getKind();
    if (kind != vector::CombiningKind::MAXNUMF &&
        kind != vector::CombiningKind::MINNUMF &&
        kind != vector::CombiningKind::MAXIMUMF &&
        kind != vector::CombiningKind::MINIMUMF)
      return rw.notifyMatchFailure(op, "not a min/max reduction");
    Location loc = op.getLoc();
    Value v = op.getVector();
    for (int64_t half = n / 2; half >= 1; half /= 2) {
      Value lo = vector::ExtractStridedSliceOp::create(
          rw, loc, v, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{half},
          ArrayRef<int64_t>{1});
      Value hi = vector::ExtractStridedSliceOp::create(
          rw, loc, v, ArrayRef<int64_t>{half}, ArrayRef<int64_t>{half},
          ArrayRef<int64_t>{1});
      v = vector::makeArithReduction(rw, loc, kind, lo, hi);
    }
    Value r = vector::ExtractOp::create(rw, loc, v, ArrayRef<int64_t>{0});
    if (Value acc = op.getAcc())
      r = vector::makeArithReduction(rw, loc, kind, r, acc);
    rw.replaceOp(op, r);
    return success();
  }
};

/// `arith.extf(vector.transpose(x))` => `vector.transpose(arith.extf(x))`:
/// a 16-bit block that a pack transposes as it widens (a KV cache block
/// read as the B of QK^T) is widened row by row first (a load and a
/// conversion per row) and transposed as f32, whose shuffles x86 has; a
/// transpose of 16-bit lanes was assembled element by element. Rooted at
/// the transpose, with a higher benefit than its lowering to shuffles.
struct WidenBeforeTranspose : OpRewritePattern<vector::TransposeOp> {
  WidenBeforeTranspose(MLIRContext *ctx)
      : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(vector::TransposeOp op,
                                PatternRewriter &rw) const override {
    if (!op->hasOneUse())
      return rw.notifyMatchFailure(op, "not one use");
    auto ext = dyn_cast<arith::ExtFOp>(*op->user_begin());
    if (!ext)
      return rw.notifyMatchFailure(op, "not widened");
    VectorType src = op.getSourceVectorType();
    auto wide =
        VectorType::get(src.getShape(), getElementTypeOrSelf(ext.getType()),
                        src.getScalableDims());
    rw.setInsertionPoint(ext);
    Value w = arith::ExtFOp::create(rw, ext.getLoc(), wide, op.getVector());
    rw.replaceOpWithNewOp<vector::TransposeOp>(ext, w, op.getPermutation());
    rw.eraseOp(op);
    return success();
  }
};

struct LowerVectorOpsPass
    : tfm::impl::LowerVectorOpsPassBase<LowerVectorOpsPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    vector::populateVectorContractLoweringPatterns(
        patterns, vector::VectorContractLowering::OuterProduct);
    vector::populateVectorOuterProductLoweringPatterns(patterns);
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
    vector::populateVectorTransposeLoweringPatterns(
        patterns, vector::VectorTransposeLowering::Shuffle16x16);
    vector::populateVectorTransferPermutationMapLoweringPatterns(patterns);
    vector::populateVectorBroadcastLoweringPatterns(patterns);
    patterns.add<TreeMinMaxReduction, WidenBeforeTranspose>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
