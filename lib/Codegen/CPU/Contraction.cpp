//===- Contraction.cpp - the GEMM view of a linalg op ---------------------===//

#include "Contraction.h"

using namespace mlir;
using namespace mlir::tfm;

int64_t mlir::tfm::registerTileWidth(CpuTargetAttr target) {
  return 2 * std::max<int64_t>(1, target.getVectorBits() / 32);
}

std::optional<GemmDims> mlir::tfm::classifyContraction(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
    return std::nullopt;
  // The register kernel is an f32 vector.contract: mixed-precision operands
  // (an f16 K or V widened inside the contraction) stay loops.
  for (OpOperand &operand : op->getOpOperands())
    if (!getElementTypeOrSelf(operand.get().getType()).isF32())
      return std::nullopt;
  return inferGemmDims(op);
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

