//===- OpenMP.cpp - scf.forall to OpenMP when the target has threads ------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CPUOPENMPPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct CpuOpenMPPass : tfm::impl::CpuOpenMPPassBase<CpuOpenMPPass> {
  using Base::Base;

  void runOnOperation() override {
    CpuTargetAttr target = getCpuTarget(getOperation());
    if (!target) {
      getOperation().emitError()
          << "-tfm-cpu-openmp: the module has no CPU target ('" << kTargetAttr
          << "' is missing or not #tfm.cpu_target)";
      return signalPassFailure();
    }
    if (target.getThreads() <= 1)
      return;
    OpPassManager pm(ModuleOp::getOperationName());
    pm.addPass(createForallToParallelLoopPass());
    pm.addPass(createConvertSCFToOpenMPPass());
    if (failed(runPipeline(pm, getOperation())))
      signalPassFailure();
  }
};

} // namespace
