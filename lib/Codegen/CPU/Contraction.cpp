//===- Contraction.cpp - the GEMM view of a linalg op ---------------------===//

#include "Contraction.h"

using namespace mlir;
using namespace mlir::tfm;

int64_t mlir::tfm::registerTileWidth(CpuTargetAttr target) {
  return 2 * std::max<int64_t>(1, target.getVectorBits() / 32);
}

std::optional<GemmDims> mlir::tfm::classifyContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  OpOperand *init = op.getDpsInitOperand(0);
  if (!getElementTypeOrSelf(init->get().getType()).isF32())
    return std::nullopt;
  // The register kernel is an f32 vector.contract: mixed-precision operands
  // (an f16 K or V widened inside the contraction) stay loops.
  for (OpOperand *input : op.getDpsInputOperands())
    if (!getElementTypeOrSelf(input->get().getType()).isF32())
      return std::nullopt;
  FailureOr<linalg::ContractionDimensions> cd =
      linalg::inferContractionDims(op);
  if (failed(cd) || cd->m.empty() || cd->n.empty() || cd->k.empty())
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(init);
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto lastDim = [](AffineMap map, ArrayRef<unsigned> among)
      -> std::optional<unsigned> {
    for (AffineExpr e : llvm::reverse(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e))
        if (llvm::is_contained(among, d.getPosition()))
          return d.getPosition();
    return std::nullopt;
  };
  // The output's innermost dimension must be an n dimension: that is the
  // vector dimension of the kernel.
  auto outLast = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!outLast || !llvm::is_contained(cd->n, outLast.getPosition()))
    return std::nullopt;
  GemmDims g;
  g.n = outLast.getPosition();
  g.m = *lastDim(outMap, cd->m);
  AffineMap map0 = op.getMatchingIndexingMap(op.getDpsInputOperand(0));
  bool zeroIsA = map0.isFunctionOfDim(g.m);
  g.a = zeroIsA ? 0 : 1;
  g.b = zeroIsA ? 1 : 0;
  AffineMap aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(g.a));
  std::optional<unsigned> k = lastDim(aMap, cd->k);
  if (!k)
    return std::nullopt;
  g.k = *k;
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d)
    if (d != g.m && d != g.n && d != g.k)
      g.unit.push_back(d);
  return g;
}

bool mlir::tfm::initializesOther(linalg::LinalgOp op) {
  if (!isa<linalg::FillOp>(op.getOperation()) || !op->hasOneUse())
    return false;
  OpOperand &use = *op->getUses().begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return consumer && consumer->getBlock() == op->getBlock() &&
         consumer.hasPureTensorSemantics() && consumer.isDpsInit(&use) &&
         !classifyContraction(consumer);
}

