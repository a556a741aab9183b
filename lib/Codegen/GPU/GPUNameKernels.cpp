//===- GPUNameKernels.cpp - kernels named after the model's ops -----------===//
//
// -tfm-gpu-name-kernels: gpu-kernel-outlining calls every kernel
// `<function>_kernel`; this pass renames each outlined module and its kernel
// after the model location of the launch (the frontend's op names, e.g.
// `layers.0.attn.q` -> `layers_0_attn_q`), so that profiles, --emit=ptx
// files and the runtime's error messages say which op a kernel computes.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUNAMEKERNELSPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct GPUNameKernelsPass
    : mlir::tfm::impl::GPUNameKernelsPassBase<GPUNameKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    llvm::StringSet<> taken;
    for (Operation &op : *module.getBody())
      if (auto sym = dyn_cast<SymbolOpInterface>(&op))
        taken.insert(sym.getName());
    llvm::DenseSet<Operation *> renamed;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto kernelModule =
          symbols.lookup<gpu::GPUModuleOp>(launch.getKernelModuleName());
      if (!kernelModule || !renamed.insert(kernelModule).second)
        return;
      auto kernel = SymbolTable::lookupSymbolIn(kernelModule,
                                                launch.getKernelName());
      std::string base = mlir::tfm::kernelBaseName(launch.getLoc());
      if (!kernel || base.empty())
        return;
      // Unique among the module's top-level symbols: name, name_1, ...
      std::string name = base;
      for (unsigned i = 1; taken.contains(name); ++i)
        name = base + "_" + std::to_string(i);
      taken.insert(name);
      // Outlining gives every kernel module exactly one launch: rename
      // the module, its kernel and that launch's reference together.
      StringAttr newName = StringAttr::get(&getContext(), name);
      SymbolTable::setSymbolName(kernel, newName);
      SymbolTable::setSymbolName(kernelModule, newName);
      launch.setKernelAttr(SymbolRefAttr::get(
          newName, {FlatSymbolRefAttr::get(&getContext(), name)}));
    });
  }
};

} // namespace
