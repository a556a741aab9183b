//===- ApproximateMath.cpp - polynomial f32 math --------------------------===//
//
// -tfm-approximate-math: f32 math ops (scalar and vector) become MLIR's
// polynomial approximations, so that vectorized softmax, GELU and SiLU stay
// in vector registers instead of calling expf/erff/tanhf once per lane.
// math.exp2 (the tiled attention's softmax, whose scores are in log2 units)
// gets a shorter expansion of its own, see Exp2Approximation, and on an
// AVX-512 CPU a shorter one still, see Exp2OnAvx512.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

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

/// f32 `math.exp2` on vectors of 16·n lanes (or 8 with AVX512VL), on a CPU
/// with AVX512F and AVX512DQ => per 16 (8) lanes:
///
///   f = vreduceps(t, round to nearest even)   t - roundeven(t), in [-0.5, 0.5]
///   k = t - f                                 roundeven(t), exact
///   p = degree-6 polynomial of 2^f on [-0.5, 0.5] (Horner, 6 FMAs)
///   r = vscalefps(p, k)                       p * 2^k, rounded once
///
/// 9 instructions, against Exp2Approximation's 15 (its clamps, the integer
/// exponent's conversion, shift and add, and the multiply go). vscalefps
/// scales by any exponent and rounds once, so there is no range to clamp:
/// t = -inf gives f = 0, k = -inf, exactly 0 (a masked score's weight);
/// t <= -150 gives 0, t in (-150, -126) a denormal (not flushed), large t
/// +inf; NaN stays NaN (vreduceps passes it on). Relative error <= 8.4e-8
/// on [-0.5, 0.5] (f32 Horner with FMAs, measured on 2e5 points); the same
/// everywhere else in the normal range, the scaling being exact.
struct Exp2OnAvx512 : OpRewritePattern<math::Exp2Op> {
  Exp2OnAvx512(MLIRContext *ctx, bool vl)
      : OpRewritePattern(ctx, /*benefit=*/2), vl(vl) {}

  LogicalResult matchAndRewrite(math::Exp2Op op,
                                PatternRewriter &rw) const override {
    auto type = dyn_cast<VectorType>(op.getType());
    if (!type || type.getRank() != 1 || type.isScalable() ||
        !type.getElementType().isF32())
      return rw.notifyMatchFailure(op, "not a 1-D f32 vector");
    int64_t n = type.getNumElements();
    int64_t lanes = n % 16 == 0 ? 16 : (vl && n == 8 ? 8 : 0);
    if (lanes == 0)
      return rw.notifyMatchFailure(op, "not whole 512-bit (or 256-bit) lanes");
    Location loc = op.getLoc();
    auto chunk = VectorType::get({lanes}, rw.getF32Type());
    Type maskType = rw.getIntegerType(lanes);
    auto f = [&](double v) -> Value {
      return arith::ConstantOp::create(
          rw, loc,
          DenseElementsAttr::get(cast<ShapedType>(chunk),
                                 rw.getF32FloatAttr(static_cast<float>(v))));
    };
    auto i = [&](Type t, int64_t v) -> Value {
      return arith::ConstantOp::create(rw, loc, rw.getIntegerAttr(t, v));
    };
    bool wide = lanes == 16;
    StringRef reduce = wide ? "llvm.x86.avx512.mask.reduce.ps.512"
                            : "llvm.x86.avx512.mask.reduce.ps.256";
    StringRef scalef = wide ? "llvm.x86.avx512.mask.scalef.ps.512"
                            : "llvm.x86.avx512.mask.scalef.ps.256";
    // Fitted to 2^x on [-0.5, 0.5] with relative weights; the f32 values.
    static constexpr double coeffs[] = {1.0,
                                        0.6931471824645996,
                                        0.24022647738456726,
                                        0.055503323674201965,
                                        0.009618437848985195,
                                        0.0013398880837485194,
                                        0.00015353367780335248};
    Value allLanes = i(maskType, -1);
    Value zero = f(0.0);
    Value result = arith::ConstantOp::create(
        rw, loc,
        DenseElementsAttr::get(cast<ShapedType>(type),
                               rw.getF32FloatAttr(0.0f)));
    for (int64_t off = 0; off < n; off += lanes) {
      Value t = vector::ExtractStridedSliceOp::create(
          rw, loc, op.getOperand(), ArrayRef<int64_t>{off},
          ArrayRef<int64_t>{lanes}, ArrayRef<int64_t>{1});
      // imm8 = 0: round to nearest even, no fraction bits kept; 4: the
      // current rounding mode (the 512-bit forms' rounding operand).
      SmallVector<Value> reduceArgs{t, i(rw.getI32Type(), 0), zero, allLanes};
      if (wide)
        reduceArgs.push_back(i(rw.getI32Type(), 4));
      Value frac = LLVM::CallIntrinsicOp::create(
                       rw, loc, chunk, rw.getStringAttr(reduce), reduceArgs)
                       .getResult(0);
      Value k = arith::SubFOp::create(rw, loc, t, frac);
      Value p = f(coeffs[6]);
      for (int d = 5; d >= 0; --d)
        p = math::FmaOp::create(rw, loc, p, frac, f(coeffs[d]));
      SmallVector<Value> scalefArgs{p, k, zero, allLanes};
      if (wide)
        scalefArgs.push_back(i(rw.getI32Type(), 4));
      Value r = LLVM::CallIntrinsicOp::create(
                    rw, loc, chunk, rw.getStringAttr(scalef), scalefArgs)
                    .getResult(0);
      result = vector::InsertStridedSliceOp::create(
          rw, loc, r, result, ArrayRef<int64_t>{off}, ArrayRef<int64_t>{1});
    }
    rw.replaceOp(op, result);
    return success();
  }

  bool vl;
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
    // On an AVX-512 CPU (a CPU target: never a GPU module's code, nor the
    // host code of a GPU target, the emulation's included), its scaling.
    tfm::CpuTargetAttr target = tfm::getCpuTarget(getOperation());
    if (avx512Exp2 && target && target.hasFeature("avx512f") &&
        target.hasFeature("avx512dq"))
      patterns.add<Exp2OnAvx512>(&getContext(), target.hasFeature("avx512vl"));
    patterns.add<Exp2Approximation>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
