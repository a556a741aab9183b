//===- ApplyPrecision.cpp - 16-bit GEMM and attention inputs --------------===//
//
// -tfm-apply-precision: with a bf16 or f16 precision, every input of every
// contraction is rounded to it (weights once, by the runtime, when a model
// instance is created; activations where they are computed), while all
// arithmetic stays f32. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Contraction.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_APPLYPRECISIONPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The tfm.weight `v` reads, looking through views and casts; null if
/// none.
WeightOp weightBehind(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto w = dyn_cast<WeightOp>(def))
      return w;
    if (isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
            tensor::CollapseShapeOp, tensor::CastOp>(def)) {
      v = def->getOperand(0);
      continue;
    }
    return {};
  }
  return {};
}

struct ApplyPrecisionPass
    : tfm::impl::ApplyPrecisionPassBase<ApplyPrecisionPass> {
  using Base::Base;
  ApplyPrecisionPass(const ApplyPrecisionPass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FloatType type;
    if (auto stated = module->getAttrOfType<TypeAttr>(kPrecisionAttr)) {
      type = dyn_cast<FloatType>(stated.getValue());
    } else if (!precision.empty() && precision != "f32") {
      type = dyn_cast_or_null<FloatType>(
          getPrecisionType(&getContext(), precision));
      if (!type) {
        module.emitError("-tfm-apply-precision: precision '")
            << precision << "' is not f32, bf16 or f16";
        return signalPassFailure();
      }
      module->setAttr(kPrecisionAttr, TypeAttr::get(type));
    }
    if (!type || type.isF32())
      return;
    if (!type.isBF16() && !type.isF16()) {
      module.emitError("-tfm-apply-precision: the module's ")
          << kPrecisionAttr << " is " << type << ", not bf16 or f16";
      return signalPassFailure();
    }

    SmallVector<linalg::LinalgOp> contractions;
    module.walk([&](linalg::LinalgOp op) {
      if (classifyContraction(op))
        contractions.push_back(op);
    });
    IRRewriter rw(&getContext());
    llvm::StringMap<bool> roundedNames;
    DenseMap<Value, Value> rounded;
    for (linalg::LinalgOp op : contractions) {
      for (OpOperand *input : op.getDpsInputOperands()) {
        if (WeightOp w = weightBehind(input->get())) {
          roundedNames[w.getName()] = true;
          continue;
        }
        Value &r = rounded[input->get()];
        if (!r)
          r = round(rw, input->get(), type);
        input->set(r);
      }
    }
    // The runtime rounds these tensors once, when a model instance is
    // created.
    if (!roundedNames.empty()) {
      SmallVector<StringRef> names;
      for (auto &entry : roundedNames)
        names.push_back(entry.getKey());
      llvm::sort(names);
      Builder b(&getContext());
      module->setAttr(kRoundedWeightsAttr, b.getStrArrayAttr(names));
    }
    weights += roundedNames.size();
  }

  /// `v` rounded to `type` and widened back, right after its definition.
  Value round(IRRewriter &rw, Value v, FloatType type) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointAfterValue(v);
    Location loc = v.getLoc();
    auto tensorType = cast<RankedTensorType>(v.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rw, loc, v);
    Value init = tensor::EmptyOp::create(rw, loc, sizes,
                                         tensorType.getElementType());
    AffineMap id = rw.getMultiDimIdentityMap(tensorType.getRank());
    SmallVector<utils::IteratorType> parallel(tensorType.getRank(),
                                              utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rw, loc, tensorType, ValueRange{v}, ValueRange{init},
        ArrayRef<AffineMap>{id, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value narrow = arith::TruncFOp::create(b, l, type, args[0]);
          linalg::YieldOp::create(
              b, l, ValueRange{arith::ExtFOp::create(b, l, args[1].getType(),
                                                     narrow)});
        });
    ++roundedInputs;
    return generic.getResult(0);
  }

  PassStatistic roundedInputs{
      this, numRounded, "rounded-inputs",
      "Activation inputs of contractions rounded at run time"};
  PassStatistic weights{this, numWeights, "rounded-weights",
                        "Weight names rounded when the model is created"};
};

} // namespace
