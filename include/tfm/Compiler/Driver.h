//===- Driver.h - the tfmc driver library -----------------------*- C++ -*-===//
//
// What tfmc does, as a library: load a model (frontend), then lower it up
// to the requested phase and write the result. tools/tfmc is a thin main
// over tfmcMain(); tests and other tools can call the pieces directly.
//
// Adding a phase: implement it in its library, then add one case to the
// switch in compile() (lib/Compiler/Driver.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_COMPILER_DRIVER_H
#define TFM_COMPILER_DRIVER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
} // namespace mlir

namespace llvm {
class raw_ostream;
} // namespace llvm

namespace tfm {

/// Emission phases, in pipeline order: `--emit=X` stops after X.
enum class EmitPhase {
  Tfm,         ///< tfm dialect, the frontend's output
  Linalg,      ///< after -convert-tfm-to-linalg
  LLVMDialect, ///< after the LLVM lowering pipeline
  LLVMIR,      ///< LLVM IR text
  Asm,         ///< target assembly
  Obj,         ///< object file
  So,          ///< shared library + C header
};

/// The `--emit=` spelling of a phase ("tfm", "llvm-dialect", ...).
llvm::StringRef emitPhaseName(EmitPhase phase);
std::optional<EmitPhase> parseEmitPhase(llvm::StringRef name);

struct DriverOptions {
  /// MODEL: a tfm spec, an HF config.json, or an HF model folder.
  std::string inputPath;
  /// `-` is stdout.
  std::string outputPath = "-";
  EmitPhase emit = EmitPhase::Tfm;
  /// Emit unfused attention (for -tfm-fuse-attention tests and comparisons).
  bool noFuse = false;
  /// A safetensors file or folder to check the model against.
  std::string weightsPath;
};

/// Exit codes of tfmc.
enum class ExitCode : int {
  Success = 0,
  /// The model, its weights or the output could not be processed; the
  /// messages say which file, field or tensor.
  Error = 1,
  /// Bad command line.
  Usage = 2,
};

/// Loads, checks and builds the tfm module of the model, verified. Errors
/// are printed to stderr; returns null on failure.
mlir::OwningOpRef<mlir::ModuleOp> runFrontend(mlir::MLIRContext &context,
                                              const DriverOptions &options);

/// Runs the frontend and the phases up to `options.emit`, writing the
/// result to `options.outputPath`.
mlir::LogicalResult compile(mlir::MLIRContext &context,
                            const DriverOptions &options);

/// Registers tfmc's own command-line options (`--emit`, `-o`, `--no-fuse`,
/// `--weights`, the MODEL positional). Call before parsing the command
/// line; then getDriverOptionsFromCL() reads them.
void registerDriverCLOptions();
DriverOptions getDriverOptionsFromCL();

/// The whole tool: registers options (tfmc's and MLIR's instrumentation
/// options), parses the command line, compiles. Returns an ExitCode.
int tfmcMain(int argc, char **argv);

} // namespace tfm

#endif // TFM_COMPILER_DRIVER_H
