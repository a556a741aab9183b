//===- GPUOutlineKernels.cpp - kernels named after the model's ops --------===//
//
// -tfm-gpu-outline-kernels: runs gpu-kernel-outlining with each launch's
// kernel named after the model location of the launch (the frontend's op
// names, e.g. `layers.0.attn.q` -> `layers_0_attn_q`), so that profiles,
// --emit=ptx files and the runtime's error messages say which op a kernel
// computes, and with each launch's planned occupancy (tfm.blocks_per_sm)
// kept on its kernel, which upstream's outlining would drop.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUOUTLINEKERNELSPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct GPUOutlineKernelsPass
    : mlir::tfm::impl::GPUOutlineKernelsPassBase<GPUOutlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    llvm::StringSet<> taken;
    for (Operation &op : *module.getBody())
      if (auto sym = dyn_cast<SymbolOpInterface>(&op))
        taken.insert(sym.getName());
    // Each kernel's planned blocks per multiprocessor, by the name of its
    // kernel module (which the kernel shares).
    llvm::StringMap<int64_t> plans;
    int64_t launches = 0;
    module.walk([&](gpu::LaunchOp launch) {
      ++launches;
      std::string base = mlir::tfm::kernelBaseName(launch.getLoc());
      if (base.empty()) {
        // Upstream's fallback name: the enclosing symbol's.
        auto parent = launch->getParentOfType<SymbolOpInterface>();
        base =
            ((parent ? parent.getName() : StringRef("gpu")) + "_kernel").str();
      }
      // Unique among the module's top-level symbols: name, name_1, ...
      std::string name = base;
      for (unsigned i = 1; taken.contains(name); ++i)
        name = base + "_" + std::to_string(i);
      taken.insert(name);
      auto symbol = FlatSymbolRefAttr::get(ctx, name);
      launch.setModuleAttr(symbol);
      launch.setFunctionAttr(symbol);
      if (auto plan =
              launch->getAttrOfType<IntegerAttr>(mlir::tfm::kBlocksPerSMAttr))
        plans[name] = plan.getInt();
    });
    OpPassManager outlining(ModuleOp::getOperationName());
    outlining.addPass(createGpuKernelOutliningPass());
    if (failed(runPipeline(outlining, module)))
      return signalPassFailure();
    // Each launch now names the kernel it was outlined into.
    SymbolTable symbols(module);
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto plan = plans.find(launch.getKernelModuleName().getValue());
      if (plan == plans.end())
        return;
      auto kernels = symbols.lookup<gpu::GPUModuleOp>(plan->first());
      auto kernel =
          kernels ? SymbolTable::lookupSymbolIn(kernels, launch.getKernelName())
                  : nullptr;
      if (!kernel || kernel->hasAttr(mlir::tfm::kBlocksPerSMAttr))
        return;
      kernel->setAttr(
          mlir::tfm::kBlocksPerSMAttr,
          IntegerAttr::get(IntegerType::get(ctx, 64), plan->second));
      ++numPlanned;
    });
    // Launches upstream's outlining leaves alone (not inside a symbol).
    int64_t left = 0;
    module.walk([&](gpu::LaunchOp) { ++left; });
    numKernels = launches - left;
  }
};

} // namespace
