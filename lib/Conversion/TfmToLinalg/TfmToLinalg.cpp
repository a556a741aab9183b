//===- TfmToLinalg.cpp - lower tfm ops to linalg on tensors ---------------===//
//
// Every tfm op except tfm.weight becomes linalg structured ops on tensors in
// destination-passing style. Arithmetic happens in f32 whatever the element
// type of the operands; a value is narrowed to the result type once, at the
// end. Dynamic (batch, sequence) sizes are read with tensor.dim. The
// lowerings are one file per op family (ParamsOps.cpp, NormOps.cpp,
// FeedForwardOps.cpp, AttentionOps.cpp, HeadsOps.cpp, as in
// dialects/tfm/IR), their shared pieces in LoweringUtils.h; this file is the
// pass.
//
//===----------------------------------------------------------------------===//

#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "LoweringUtils.h"
#include "tfm/Conversion/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cassert>
#include <cmath>

#define DEBUG_TYPE "convert-tfm-to-linalg"

namespace mlir::tfm {
#define GEN_PASS_DEF_CONVERTTFMTOLINALGPASS
#include "tfm/Conversion/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct ConvertTfmToLinalgPass
    : tfm::impl::ConvertTfmToLinalgPassBase<ConvertTfmToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TfmDialect>();
    target.addLegalOp<WeightOp>();
    // Attention with the GPU's tensor-core schedule stays whole:
    // -tfm-gpu-flash-attention builds its kernel.
    target.addDynamicallyLegalOp<AttentionOp>([](AttentionOp op) {
      return isa_and_nonnull<GpuFlashAttentionAttr>(
          op->getAttr(kLoweringConfigAttr));
    });
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTfmToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      return signalPassFailure();
    foldCacheDims();
  }

  /// A generation step chains every layer's tfm.cache_append through one
  /// cache value; each becomes an scf.for that inserts into its iter_arg.
  /// A tensor.dim of such a loop's result is the dim of its init: folded
  /// here, so that the dims of the whole chain are those of the function's
  /// argument. Otherwise bufferization's subset analysis proves every size
  /// equal through the chain again and again (value bounds through each
  /// loop), which took minutes for GPT-2's 24 appends.
  void foldCacheDims() {
    SmallVector<tensor::DimOp> dims;
    getOperation()->walk([&](tensor::DimOp d) { dims.push_back(d); });
    for (tensor::DimOp d : dims) {
      Value source = d.getSource();
      while (auto result = dyn_cast<OpResult>(source)) {
        auto loop = dyn_cast<scf::ForOp>(result.getOwner());
        if (!loop)
          break;
        unsigned i = result.getResultNumber();
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        auto insert =
            yield.getOperand(i).getDefiningOp<tensor::InsertSliceOp>();
        if (!insert || insert.getDest() != loop.getRegionIterArg(i))
          break;
        source = loop.getInitArgs()[i];
      }
      if (source != d.getSource())
        d.getSourceMutable().assign(source);
    }
  }
};

} // namespace

void mlir::tfm::populateTfmToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  lowering::populateParamsLowerings(patterns);
  lowering::populateNormLowerings(patterns);
  lowering::populateFeedForwardLowerings(patterns);
  lowering::populateAttentionLowerings(patterns);
  lowering::populateHeadsLowerings(patterns);
}

