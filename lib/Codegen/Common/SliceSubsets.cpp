//===- SliceSubsets.cpp - cheap subset equivalence of tensor slices -------===//
//
// See tfm/Codegen/Common/SliceSubsets.h.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/SliceSubsets.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Interfaces/SubsetOpInterface.h"
#include "mlir/Interfaces/ValueBoundsOpInterface.h"

using namespace mlir;

namespace {

/// Whether two offsets (sizes, strides) are equal as the IR states them:
/// one SSA value or equal constants (true), different constants (false),
/// or not settled without analysis (nullopt).
std::optional<bool> equalAsWritten(OpFoldResult a, OpFoldResult b) {
  if (a == b)
    return true;
  std::optional<int64_t> ca = getConstantIntValue(a);
  std::optional<int64_t> cb = getConstantIntValue(b);
  if (ca && cb)
    return *ca == *cb;
  return std::nullopt;
}

/// Whether `a` and `b` are the same slice as the IR states them (nullopt:
/// not settled without analysis).
std::optional<bool> sameSliceAsWritten(const HyperrectangularSlice &a,
                                       const HyperrectangularSlice &b) {
  bool settled = true;
  auto compare = [&](ArrayRef<OpFoldResult> x, ArrayRef<OpFoldResult> y) {
    for (auto [u, v] : llvm::zip_equal(x, y)) {
      std::optional<bool> equal = equalAsWritten(u, v);
      if (equal && !*equal)
        return false;
      settled &= equal.has_value();
    }
    return true;
  };
  if (!compare(a.getMixedOffsets(), b.getMixedOffsets()) ||
      !compare(a.getMixedSizes(), b.getMixedSizes()) ||
      !compare(a.getMixedStrides(), b.getMixedStrides()))
    return false;
  if (settled)
    return true;
  return std::nullopt;
}

/// MLIR's SubsetOpInterface model of a tensor slice op, with the shortcut.
template <typename SliceOp>
struct SliceSubsetModel
    : public SubsetOpInterface::ExternalModel<SliceSubsetModel<SliceOp>,
                                              SliceOp> {
  FailureOr<HyperrectangularSlice>
  getAccessedHyperrectangularSlice(Operation *op) const {
    auto slice = cast<SliceOp>(op);
    return HyperrectangularSlice(slice.getMixedOffsets(), slice.getMixedSizes(),
                                 slice.getMixedStrides());
  }

  bool operatesOnEquivalentSubset(
      Operation *op, SubsetOpInterface candidate,
      function_ref<bool(Value, Value)> equivalenceFn) const {
    FailureOr<HyperrectangularSlice> other =
        candidate.getAccessedHyperrectangularSlice();
    if (failed(other) ||
        !equivalenceFn(cast<SubsetOpInterface>(op).getTensorContainer(),
                       candidate.getTensorContainer()))
      return false;
    HyperrectangularSlice slice = *getAccessedHyperrectangularSlice(op);
    if (std::optional<bool> same = sameSliceAsWritten(slice, *other))
      return *same;
    FailureOr<bool> equivalent = ValueBoundsConstraintSet::areEquivalentSlices(
        op->getContext(), slice, *other);
    return succeeded(equivalent) && *equivalent;
  }
  // operatesOnDisjointSubset: MLIR's (the interface's default).
};

} // namespace

void mlir::tfm::registerSliceSubsetModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, tensor::TensorDialect *) {
    tensor::ExtractSliceOp::attachInterface<
        SliceSubsetModel<tensor::ExtractSliceOp>>(*ctx);
    tensor::InsertSliceOp::attachInterface<
        SliceSubsetModel<tensor::InsertSliceOp>>(*ctx);
    tensor::ParallelInsertSliceOp::attachInterface<
        SliceSubsetModel<tensor::ParallelInsertSliceOp>>(*ctx);
  });
}
