//===- Contraction.cpp - the GEMM roles of a linalg contraction -----------===//

#include "tfm/Codegen/Common/Contraction.h"

using namespace mlir;
using namespace mlir::tfm;

std::optional<GemmDims> mlir::tfm::inferGemmDims(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  FailureOr<linalg::ContractionDimensions> cd =
      linalg::inferContractionDims(op);
  if (failed(cd) || cd->m.empty() || cd->n.empty() || cd->k.empty())
    return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
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
  // The output's innermost dimension must be an n dimension: the kernels'
  // fast (vector, or neighbouring-thread) dimension.
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

std::optional<GemmDims> mlir::tfm::classifyContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
    return std::nullopt;
  // f32 only: the CPU's register kernel is an f32 vector.contract (mixed
  // operands, an f16 K or V widened inside the contraction, stay loops
  // there), and -tfm-apply-precision rounds f32 inputs.
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return std::nullopt;
  return inferGemmDims(op);
}
