//===- LLVMEmitter.h - LLVM dialect to IR, object and assembly --*- C++ -*-===//
//
// The in-process back half of the compiler: translation of an LLVM-dialect
// module to an llvm::Module for a target, LLVM's middle-end pipeline, and
// machine-code emission through a TargetMachine.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_LLVMEMITTER_H
#define TFM_TARGET_LLVMEMITTER_H

#include "tfm/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Support/CodeGen.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>

namespace llvm {
class LLVMContext;
class Module;
class TargetMachine;
} // namespace llvm

namespace mlir::tfm {

/// A TargetMachine for `target` (position-independent code, optimization
/// level 3). Initializes LLVM's targets on first use. Errors name the
/// triple and go to `error`.
std::unique_ptr<llvm::TargetMachine>
createTargetMachine(const TargetDescription &target, std::string &error);

/// Translates a module that holds only the llvm dialect to LLVM IR, and sets
/// the triple and data layout of `machine`. Reports failures on `module`.
std::unique_ptr<llvm::Module> translateToLLVMIR(ModuleOp module,
                                                llvm::LLVMContext &context,
                                                llvm::TargetMachine &machine);

/// Runs LLVM's default middle-end pipeline at `optLevel` (0..3) in process,
/// with the target's cost model.
LogicalResult optimizeLLVMModule(llvm::Module &module,
                                 llvm::TargetMachine &machine,
                                 unsigned optLevel);

/// Emits `module` as an object file or assembly to `os`.
LogicalResult emitMachineCode(llvm::Module &module,
                              llvm::TargetMachine &machine,
                              llvm::CodeGenFileType kind,
                              llvm::raw_pwrite_stream &os, std::string &error);

} // namespace mlir::tfm

#endif // TFM_TARGET_LLVMEMITTER_H
