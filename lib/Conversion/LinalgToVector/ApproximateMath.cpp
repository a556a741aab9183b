//===- ApproximateMath.cpp - polynomial f32 math --------------------------===//
//
// -tfm-approximate-math: f32 math ops (scalar and vector) become MLIR's
// polynomial approximations, so that vectorized softmax, GELU and SiLU stay
// in vector registers instead of calling expf/erff/tanhf once per lane.
//
//===----------------------------------------------------------------------===//

#include "tfm/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tfm-approximate-math"

namespace mlir::tfm {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "tfm/Conversion/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

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
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
