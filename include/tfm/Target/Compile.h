//===- Compile.h - tfm module to any emitted artifact -----------*- C++ -*-===//
//
// One entry point for drivers: run the lowering up to the requested phase
// and write the artifact (IR text, object, assembly or shared library).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_COMPILE_H
#define TFM_TARGET_COMPILE_H

#include "tfm/Target/SharedLibrary.h"
#include "tfm/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>

namespace mlir {
class PassManager;
namespace tfm {

/// What to produce, in pipeline order: each kind runs every phase before it.
enum class EmitKind {
  Linalg,      ///< linalg on tensors (MLIR text), no entry ABI yet
  LLVMDialect, ///< the output of -tfm-lower-to-llvm (MLIR text)
  LLVMIR,      ///< LLVM IR text after the middle-end optimizer
  Asm,         ///< target assembly
  Obj,         ///< relocatable object file
  SharedLib,   ///< .so linked with the runtime, plus a C header beside it
};

/// Parses "linalg", "llvm-dialect", "llvm-ir", "asm", "obj", "so".
std::optional<EmitKind> parseEmitKind(llvm::StringRef name);
llvm::StringRef stringifyEmitKind(EmitKind kind);

struct CompileOptions {
  /// The CPU to compile for; hostTarget() by default.
  TargetDescription target = hostTarget();
  /// LLVM middle-end optimization level (0..3).
  unsigned optLevel = 3;
  /// Weights file whose bytes are embedded in the library (empty: none).
  std::string embedWeights;
  /// Fuse elementwise linalg ops before bufferization.
  bool fuseElementwise = true;
  /// Linking of EmitKind::SharedLib.
  LinkOptions link;
  /// For EmitKind::SharedLib: the header path (default: model.h beside the
  /// library; an empty string after setting `writeHeader = false` skips it).
  std::string headerPath;
  bool writeHeader = true;
  /// The runtime C ABI header copied into the model header (default: the
  /// source tree's include/tfm/Runtime/tfm_runtime.h).
  std::string runtimeHeader;
  /// Called on the pass manager before it runs, e.g. to enable
  /// --mlir-print-ir-after-all or timing.
  std::function<void(PassManager &)> configurePassManager;
};

/// Lowers `module` (a tfm module, transformed in place) as far as `kind`
/// requires and writes the result to `outputPath` ("-" is stdout, except for
/// SharedLib). Errors are reported as diagnostics on the module and return
/// failure.
LogicalResult compileModule(ModuleOp module, const CompileOptions &options,
                            EmitKind kind, llvm::StringRef outputPath);

/// As above, writing to a stream; `kind` must not be SharedLib.
LogicalResult compileModule(ModuleOp module, const CompileOptions &options,
                            EmitKind kind, llvm::raw_pwrite_stream &os);

} // namespace tfm
} // namespace mlir

#endif // TFM_TARGET_COMPILE_H
