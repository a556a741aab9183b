//===- CheckLLVMLegal.cpp - fail unless only the llvm dialect is left -----===//
//
// Conversion passes succeed while leaving illegal ops behind; this pass turns
// that into an error naming each leftover op, at the end of the pipeline
// instead of at translation time. OpenMP ops (the parallel loops of a
// multithreaded pipeline) are legal: they translate to LLVM IR directly
// (OpenMPIRBuilder), once -convert-openmp-to-llvm has converted their
// operand types.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringSet.h"

#define DEBUG_TYPE "tfm-check-llvm-legal"

namespace mlir::tfm {
#define GEN_PASS_DEF_CHECKLLVMLEGALPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct CheckLLVMLegalPass
    : tfm::impl::CheckLLVMLegalPassBase<CheckLLVMLegalPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    llvm::StringSet<> reported;
    bool ok = true;
    module.walk([&](Operation *op) {
      if (op == module.getOperation() ||
          isa<LLVM::LLVMDialect, omp::OpenMPDialect>(op->getDialect()))
        return;
      if (allowGpuBinaries && isa<gpu::BinaryOp, gpu::LaunchFuncOp>(op))
        return;
      ok = false;
      // One error per op kind keeps a large module's report readable.
      if (reported.insert(op->getName().getStringRef()).second)
        op->emitError("'")
            << op->getName()
            << "' is left after lowering to the LLVM dialect (only llvm.* "
               "and omp.* ops may remain); a conversion pass is missing or "
               "failed "
               "for it";
    });
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
