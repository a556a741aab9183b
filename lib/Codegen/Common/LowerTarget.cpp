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
    module.walk([](Operation *op) { op->removeAttr(kLoweringConfigAttr); });
  }
};

} // namespace
