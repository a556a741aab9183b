//===- SetTarget.cpp - the target as a module attribute -------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/Common/Target.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmAttrNames.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_SETTARGETPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

CpuTargetAttr mlir::tfm::getCpuTargetAttr(MLIRContext *ctx,
                                          const TargetDescription &target) {
  return CpuTargetAttr::get(ctx, target.triple, target.cpu, target.features,
                            target.vectorBits, target.vectorRegisters,
                            target.l1Bytes, target.l2Bytes,
                            std::max(1u, target.threads));
}

TargetDescription mlir::tfm::getTargetDescription(CpuTargetAttr attr) {
  TargetDescription target;
  target.triple = attr.getTriple().str();
  target.cpu = attr.getCpu().str();
  target.features = attr.getFeatures().str();
  target.vectorBits = attr.getVectorBits();
  target.vectorRegisters = attr.getVectorRegisters();
  target.l1Bytes = attr.getL1Bytes();
  target.l2Bytes = attr.getL2Bytes();
  target.threads = attr.getThreads();
  target.peakFlopsPerCore = derivedPeakFlopsPerCore(target);
  target.memoryBandwidth = defaultMemoryBandwidth(target.threads);
  return target;
}

GpuTargetAttr mlir::tfm::getGpuTargetAttr(MLIRContext *ctx,
                                          const GpuTargetDescription &gpu) {
  return GpuTargetAttr::get(
      ctx, gpu.chip, gpu.features, gpu.maxThreadsPerBlock,
      gpu.sharedMemoryBytes, gpu.multiprocessors, gpu.optInSharedMemoryBytes,
      gpu.sharedMemoryPerMultiprocessor, gpu.maxThreadsPerMultiprocessor,
      gpu.maxBlocksPerMultiprocessor);
}

void mlir::tfm::setTarget(ModuleOp module, const TargetDescription &target) {
  module->setAttr(kTargetAttr,
                  getCpuTargetAttr(module.getContext(), target));
}

void mlir::tfm::setTarget(ModuleOp module, const GpuTargetDescription &gpu) {
  module->setAttr(kTargetAttr, getGpuTargetAttr(module.getContext(), gpu));
}

namespace {

struct SetTargetPass : tfm::impl::SetTargetPassBase<SetTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    if (getOperation()->hasAttr(kTargetAttr))
      return;
    if (!gpuChip.empty()) {
      GpuTargetDescription gpu = gpuTargetFor(gpuChip, /*toolkit=*/"");
      if (!gpuFeatures.empty())
        gpu.features = gpuFeatures;
      setTarget(getOperation(), gpu);
      return;
    }
    TargetDescription target = hostTarget();
    if (vectorBits)
      target.vectorBits = vectorBits;
    target.vectorRegisters =
        vectorRegisters ? unsigned(vectorRegisters)
                        : vectorRegistersFor(target.triple, target.vectorBits);
    if (l1Bytes > 0)
      target.l1Bytes = l1Bytes;
    if (l2Bytes > 0)
      target.l2Bytes = l2Bytes;
    if (threads)
      target.threads = threads;
    setTarget(getOperation(), target);
  }
};

} // namespace
