//===- GPUMergeKernelModules.cpp - one gpu.module per model ---------------===//
//
// -tfm-gpu-merge-kernel-modules: gpu-kernel-outlining gives every kernel a
// gpu.module of its own; this pass moves every kernel into one module, so
// that the NVVM lowering, libdevice linking, ptxas and the driver's module
// load run once per model instead of once per kernel.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUMERGEKERNELMODULESPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct GPUMergeKernelModulesPass
    : mlir::tfm::impl::GPUMergeKernelModulesPassBase<
          GPUMergeKernelModulesPass> {
  using Base::Base;
  GPUMergeKernelModulesPass(const GPUMergeKernelModulesPass &other)
      : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernelModules(
        module.getOps<gpu::GPUModuleOp>());
    if (kernelModules.size() < 2)
      return;
    for (gpu::GPUModuleOp m : kernelModules)
      if (m.getTargetsAttr() != kernelModules.front().getTargetsAttr() ||
          m.getOffloadingHandlerAttr())
        return; // modules meant to differ stay apart

    // The merged module takes the first one's place and attributes.
    SymbolTable top(module);
    OpBuilder b(kernelModules.front());
    auto merged = gpu::GPUModuleOp::create(b, kernelModules.front().getLoc(),
                                           moduleName,
                                           kernelModules.front().getTargetsAttr());
    top.insert(merged); // unique among the top-level symbols
    SymbolTable inside(merged);

    // Launches name their kernel @module::@kernel.
    DenseMap<std::pair<StringAttr, StringAttr>, StringAttr> moved;
    for (gpu::GPUModuleOp m : kernelModules) {
      for (Operation &op :
           llvm::make_early_inc_range(m.getBody()->without_terminator())) {
        auto symbol = dyn_cast<SymbolOpInterface>(&op);
        StringAttr old = symbol ? symbol.getNameAttr() : StringAttr();
        op.remove();
        if (symbol) {
          // Unique in the merged module (renamed on a clash).
          StringAttr name = inside.insert(&op);
          moved[{m.getNameAttr(), old}] = name;
        } else {
          merged.getBody()->getOperations().insert(
              merged.getBody()->getTerminator()->getIterator(), &op);
        }
      }
      ++mergedModules;
    }
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = moved.find(
          {launch.getKernelModuleName(), launch.getKernelName()});
      if (it == moved.end())
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          merged.getNameAttr(), {FlatSymbolRefAttr::get(it->second)}));
    });
    for (gpu::GPUModuleOp m : kernelModules)
      m.erase();
  }

  tfm::PassStatistic mergedModules{this, numMerged, "merged-modules",
                                   "Kernel modules merged into one"};
};

} // namespace
