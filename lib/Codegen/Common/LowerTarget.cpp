//===- LowerTarget.cpp - the target in LLVM's terms -----------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_LOWERTARGETPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct LowerTargetPass : tfm::impl::LowerTargetPassBase<LowerTargetPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (isa_and_nonnull<GpuTargetAttr>(module->getAttr(kTargetAttr))) {
      module->removeAttr(kTargetAttr);
      return;
    }
    auto target = dyn_cast_or_null<CpuTargetAttr>(module->getAttr(kTargetAttr));
    if (!target)
      return;
    module->removeAttr(kTargetAttr);
    module->setAttr(LLVM::LLVMDialect::getTargetTripleAttrName(),
                    StringAttr::get(&getContext(), target.getTriple()));
    // Every defined function carries the CPU and its features, so that the
    // LLVM IR says what its intrinsics (AVX-512, AMX) need: llc or any
    // other back end then selects them whatever its own default CPU.
    StringAttr cpu = StringAttr::get(&getContext(), target.getCpu());
    auto features =
        LLVM::TargetFeaturesAttr::get(&getContext(), target.getFeatures());
    module.walk([&](LLVM::LLVMFuncOp func) {
      if (func.isExternal())
        return;
      if (!target.getCpu().empty())
        func.setTargetCpuAttr(cpu);
      if (!target.getFeatures().empty())
        func.setTargetFeaturesAttr(features);
    });
    module.walk([](Operation *op) { op->removeAttr(kLoweringConfigAttr); });
  }
};

} // namespace
