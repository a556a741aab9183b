//===- Contraction.cpp - the GEMM view of a linalg op ---------------------===//

#include "Contraction.h"

using namespace mlir;
using namespace mlir::tfm;

int64_t mlir::tfm::registerTileWidth(CpuTargetAttr target) {
  return 2 * std::max<int64_t>(1, target.getVectorBits() / 32);
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

