//===- FuseElementwise.cpp - elementwise fusion that keeps GEMMs GEMMs ----===//
//
// -tfm-fuse-elementwise: upstream's elementwise fusion
// (-linalg-fuse-elementwise-ops) with one rule added: nothing is fused into
// a contraction. Upstream fuses any single-use elementwise producer into its
// consumer; for a matmul whose input is, say, LayerNorm's normalization,
// that turns the matmul into a generic that recomputes the normalization
// (an rsqrt included) for every multiply-add and is no contraction any more,
// so -tfm-tile-and-vectorize cannot give it a GEMM schedule and it runs as
// scalar loops, two orders of magnitude slower.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "tfm-fuse-elementwise"

namespace mlir::tfm {
#define GEN_PASS_DEF_FUSEELEMENTWISEPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct FuseElementwisePass
    : tfm::impl::FuseElementwisePassBase<FuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Upstream's default: the producer has no other use. Added: the
    // consumer is no contraction.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      if (!producer || !producer->hasOneUse())
        return false;
      auto consumer = dyn_cast<linalg::LinalgOp>(fused->getOwner());
      return !(consumer && linalg::isaContractionOpInterface(consumer));
    };
    // Added for reshapes: one that splits off a last dimension of fewer
    // than 8 elements (the bf16 pairs of an AMX operand, [M, K/2, 2]) is
    // not moved through an elementwise op, which would then be vectorized
    // along that dimension.
    linalg::ControlFusionFn reshapeControl = [control](OpOperand *fused) {
      if (auto expand = dyn_cast<tensor::ExpandShapeOp>(fused->getOwner())) {
        int64_t last = expand.getResultType().getShape().back();
        if (!ShapedType::isDynamic(last) && last < 8)
          return false;
      }
      return control(fused);
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, reshapeControl);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    ctx->getLoadedDialect<linalg::LinalgDialect>()->getCanonicalizationPatterns(
        patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
