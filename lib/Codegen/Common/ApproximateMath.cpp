//===- ApproximateMath.cpp - polynomial f32 math --------------------------===//
//
// -tfm-approximate-math: f32 math ops (scalar and vector) become MLIR's
// polynomial approximations, so that vectorized softmax, GELU and SiLU stay
// in vector registers instead of calling expf/erff/tanhf once per lane.
// math.exp2 (the tiled attention's softmax, whose scores are in log2 units)
// gets a shorter expansion of its own, see Exp2Approximation.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tfm-approximate-math"

namespace mlir::tfm {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// f32 `math.exp2(t)` (scalar or vector) => `p(f) * 2^k`:
///
///   tc = clamp(t, -127, 128)      (selects: NaN passes through)
///   k  = roundeven(min(tc, 127))  in [-127, 127]
///   f  = tc - k                   in [-0.5, 1]
///   p  = degree-6 polynomial of 2^f on [-0.5, 1] (Horner, 6 FMAs)
///   2^k = bitcast((k + 127) << 23)
///
/// About 14 vector instructions, against about twice that for MLIR's
/// `math.exp` approximation (range reduction by ln 2 in two steps, a longer
/// polynomial and overflow/underflow selects). Relative error <= 1.4e-7
/// (measured in f32 on 2e5 points of [-0.5, 1]); t <= -127 gives exactly 0
/// (2^k's bit pattern is 0 for k = -127), so the -inf of a masked score is
/// 0 after exp2; t >= 128 gives +inf (2^127 * p(1) overflows); NaN stays
/// NaN (it passes the clamps and propagates through the polynomial).
struct Exp2Approximation : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rw) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return rw.notifyMatchFailure(op, "not f32");
    Location loc = op.getLoc();
    Type i32 = rw.getI32Type();
    Type intType = i32;
    if (auto vt = dyn_cast<VectorType>(type))
      intType = vt.clone(i32);
    auto f = [&](double v) -> Value {
      TypedAttr a = rw.getF32FloatAttr(static_cast<float>(v));
      if (auto vt = dyn_cast<VectorType>(type))
        a = DenseElementsAttr::get(cast<ShapedType>(vt), a);
      return arith::ConstantOp::create(rw, loc, a);
    };
    auto i = [&](int32_t v) -> Value {
      TypedAttr a = rw.getI32IntegerAttr(v);
      if (auto vt = dyn_cast<VectorType>(intType))
        a = DenseElementsAttr::get(cast<ShapedType>(vt), a);
      return arith::ConstantOp::create(rw, loc, a);
    };
    // x < lo ? lo : x and x > hi ? hi : x: one max/min instruction each on
    // x86 (whose max/min are exactly these selects), NaN kept.
    auto clampBelow = [&](Value x, Value lo) -> Value {
      Value lt =
          arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OLT, x, lo);
      return arith::SelectOp::create(rw, loc, lt, lo, x);
    };
    auto clampAbove = [&](Value x, Value hi) -> Value {
      Value gt =
          arith::CmpFOp::create(rw, loc, arith::CmpFPredicate::OGT, x, hi);
      return arith::SelectOp::create(rw, loc, gt, hi, x);
    };
    Value t = clampAbove(clampBelow(op.getOperand(), f(-127.0)), f(128.0));
    Value k = math::RoundEvenOp::create(rw, loc, clampAbove(t, f(127.0)));
    Value x = arith::SubFOp::create(rw, loc, t, k);
    // Fitted to 2^x on [-0.5, 1] with relative weights (see the comment
    // above); the coefficients are the f32 values used.
    static constexpr double coeffs[] = {
        1.0,                    0.6931470632553101,    0.24022795259952545,
        0.05550622195005417,    0.00960629340261221,   0.0013308186316862702,
        0.0001816386793507263};
    Value p = f(coeffs[6]);
    for (int n = 5; n >= 0; --n)
      p = math::FmaOp::create(rw, loc, p, x, f(coeffs[n]));
    Value ki = arith::FPToSIOp::create(rw, loc, intType, k);
    Value bits = arith::ShLIOp::create(
        rw, loc, arith::AddIOp::create(rw, loc, ki, i(127)), i(23));
    Value scale = arith::BitcastOp::create(rw, loc, type, bits);
    rw.replaceOpWithNewOp<arith::MulFOp>(op, p, scale);
    return success();
  }
};

/// f32 `math.exp2` marked `afn` (approximate functions allowed: the
/// tensor-core attention's softmax) inside a GPU kernel module =>
/// `llvm.nvvm.ex2.approx.ftz.f`, one MUFU instruction (`ex2.approx.ftz.f32`:
/// at most 2 ulp, -inf gives +0, NaN stays NaN) in place of the polynomial.
/// Elsewhere (the host, the emulation) the op takes the polynomial.
struct Exp2ApproxOnNvidia : OpRewritePattern<math::Exp2Op> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rw) const override {
    if (!op.getType().isF32() ||
        !bitEnumContainsAll(op.getFastmath(), arith::FastMathFlags::afn) ||
        !op->getParentOfType<gpu::GPUModuleOp>())
      return rw.notifyMatchFailure(op, "not an approximate f32 exp2 on a GPU");
    rw.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, op.getType(), rw.getStringAttr("llvm.nvvm.ex2.approx.ftz.f"),
        ValueRange{op.getOperand()});
    return success();
  }
};

struct ApproximateMathPass
    : tfm::impl::ApproximateMathPassBase<ApproximateMathPass> {
  using Base::Base;
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // The functions the lowering emits: exp (softmax, SiLU, sigmoid), erf
    // (GELU), tanh (GELU-tanh), log (log-softmax); expm1/log1p come along
    // with them. f32 expansions first (e.g. tanh through exp).
    auto wanted = [](StringRef name) {
      return llvm::is_contained(
          {math::ExpOp::getOperationName(), math::ErfOp::getOperationName(),
           math::TanhOp::getOperationName(), math::LogOp::getOperationName(),
           math::Log1pOp::getOperationName(),
           math::ExpM1Op::getOperationName(),
           math::Log2Op::getOperationName()},
          name);
    };
    populateMathF32ExpansionPatterns(patterns, wanted);
    populateMathPolynomialApproximationPatterns(patterns, wanted);
    // The device's instruction first, where the op allows it.
    patterns.add<Exp2ApproxOnNvidia>(&getContext(), /*benefit=*/2);
    patterns.add<Exp2Approximation>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
