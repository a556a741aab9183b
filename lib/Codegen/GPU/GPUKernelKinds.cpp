//===- GPUKernelKinds.cpp - which linalg ops each GPU kernel takes --------===//

#include "GPUKernelKinds.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::tfm;

static bool hasProjectedPermutationMaps(linalg::LinalgOp op) {
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation();
  });
}

std::optional<GemmDims> mlir::tfm::matchGpuContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  std::optional<GemmDims> g = inferGemmDims(op);
  if (!g)
    return std::nullopt;
  if (!getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32())
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type =
        dyn_cast<FloatType>(getElementTypeOrSelf(input->get().getType()));
    if (!type || type.getWidth() > 32)
      return std::nullopt;
  }
  if (!hasProjectedPermutationMaps(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d : g->unit)
    if (iterators[d] != utils::IteratorType::parallel)
      return std::nullopt;
  return g;
}

/// The identity of `combiner` on `type`, if it is a combiner the kernel
/// knows.
static TypedAttr identityOf(Operation *combiner, FloatType type) {
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  if (isa<arith::AddFOp>(combiner))
    return FloatAttr::get(type, APFloat::getZero(sem));
  if (isa<arith::MulFOp>(combiner))
    return FloatAttr::get(type, APFloat::getOne(sem));
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getInf(sem));
  return {};
}

std::optional<RowReduction>
mlir::tfm::matchGpuRowReduction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || !hasProjectedPermutationMaps(op) ||
      matchGpuContraction(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> dim;
  for (auto [d, it] : llvm::enumerate(iterators)) {
    if (it != utils::IteratorType::reduction)
      continue;
    if (dim)
      return std::nullopt; // more than one reduction loop
    dim = d;
  }
  OpOperand *init = op.getDpsInitOperand(0);
  if (!dim || op.getMatchingIndexingMap(init).isFunctionOfDim(*dim))
    return std::nullopt;
  auto type = dyn_cast<FloatType>(getElementTypeOrSelf(init->get().getType()));
  if (!type)
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getBlock() != &body ||
      combiner->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combiner)
    return std::nullopt;
  TypedAttr identity = identityOf(combiner, type);
  if (!identity)
    return std::nullopt;
  RowReduction r;
  r.dim = *dim;
  r.combiner = combiner;
  r.outOperand = combiner->getOperand(0) == out ? 0 : 1;
  r.identity = identity;
  // The other operand must not be the output too (out + out).
  if (combiner->getOperand(1 - r.outOperand) == out)
    return std::nullopt;
  return r;
}

SmallVector<Value> mlir::tfm::inlinePayload(OpBuilder &b, linalg::LinalgOp op,
                                 ValueRange args, ValueRange ivs) {
  Block &body = op->getRegion(0).front();
  IRMapping map;
  map.map(body.getArguments(), args);
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(map.lookupOrDefault(v));
  return yielded;
}


std::pair<gpu::LaunchOp, OpBuilder>
mlir::tfm::createKernelLaunch(OpBuilder &b, Location loc, ArrayRef<Value> grid,
                              ArrayRef<Value> block,
                              TypeRange workgroupBuffers) {
  auto launch = gpu::LaunchOp::create(
      b, loc, grid[0], grid[1], grid[2], block[0], block[1], block[2],
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroupBuffers);
  Block &body = launch.getBody().front();
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  if (body.empty() || !isa<gpu::TerminatorOp>(body.back()))
    gpu::TerminatorOp::create(inner, loc);
  inner.setInsertionPoint(body.getTerminator());
  return {launch, inner};
}

Value mlir::tfm::viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}
