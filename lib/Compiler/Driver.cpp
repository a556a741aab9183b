//===- Driver.cpp - the tfmc driver library -------------------------------===//
//
// MODEL ─► runFrontend (load, check weights, build, verify) ─► phases up to
// --emit ─► output. The phases after `tfm` live in other libraries; each is
// one case in compile()'s switch once it exists.
//
//===----------------------------------------------------------------------===//

#include "tfm/Compiler/Driver.h"
#include "tfm/Frontend/Frontend.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "tfm/IR/TfmDialect.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace tfm {

llvm::StringRef emitPhaseName(EmitPhase phase) {
  switch (phase) {
  case EmitPhase::Tfm:
    return "tfm";
  case EmitPhase::Linalg:
    return "linalg";
  case EmitPhase::LLVMDialect:
    return "llvm-dialect";
  case EmitPhase::LLVMIR:
    return "llvm-ir";
  case EmitPhase::Asm:
    return "asm";
  case EmitPhase::Obj:
    return "obj";
  case EmitPhase::So:
    return "so";
  }
  llvm_unreachable("unknown phase");
}

std::optional<EmitPhase> parseEmitPhase(llvm::StringRef name) {
  for (EmitPhase phase :
       {EmitPhase::Tfm, EmitPhase::Linalg, EmitPhase::LLVMDialect,
        EmitPhase::LLVMIR, EmitPhase::Asm, EmitPhase::Obj, EmitPhase::So})
    if (emitPhaseName(phase) == name)
      return phase;
  return std::nullopt;
}

namespace {

void reportError(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "tfmc") << msg << "\n";
}

/// Prints every error of `err` on its own line.
void reportErrors(llvm::Error err) {
  llvm::handleAllErrors(std::move(err), [](const llvm::ErrorInfoBase &info) {
    reportError(info.message());
  });
}

LogicalResult writeModule(ModuleOp module, llvm::StringRef path) {
  std::string message;
  std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(path, &message);
  if (!file) {
    reportError(path + ": " + message);
    return failure();
  }
  module->print(file->os(), OpPrintingFlags());
  file->keep();
  return success();
}

struct DriverCLOptions {
  cl::opt<std::string> input{cl::Positional, cl::desc("<model>"),
                             cl::value_desc(
                                 "tfm spec .json, HF config.json or HF model "
                                 "folder")};
  cl::opt<std::string> output{"o", cl::desc("Output file ('-' for stdout)"),
                              cl::value_desc("filename"), cl::init("-")};
  cl::opt<EmitPhase> emit{
      "emit", cl::desc("Stop after this phase and write its result"),
      cl::init(EmitPhase::Tfm),
      cl::values(
          clEnumValN(EmitPhase::Tfm, "tfm", "tfm dialect (frontend output)"),
          clEnumValN(EmitPhase::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(EmitPhase::LLVMDialect, "llvm-dialect",
                     "MLIR LLVM dialect"),
          clEnumValN(EmitPhase::LLVMIR, "llvm-ir", "LLVM IR"),
          clEnumValN(EmitPhase::Asm, "asm", "target assembly"),
          clEnumValN(EmitPhase::Obj, "obj", "object file"),
          clEnumValN(EmitPhase::So, "so", "shared library and C header"))};
  cl::opt<bool> noFuse{"no-fuse",
                       cl::desc("Emit attention unfused (transpose, matmul, "
                                "scale, make_mask, masked_fill, softmax, "
                                "matmul) instead of tfm.attention"),
                       cl::init(false)};
  cl::opt<std::string> weights{
      "weights",
      cl::desc("safetensors file or folder to check the model against (a "
               "model folder uses its own)"),
      cl::value_desc("path"), cl::init("")};
};

llvm::ManagedStatic<DriverCLOptions> clOptions;

} // namespace

void registerDriverCLOptions() { *clOptions; }

DriverOptions getDriverOptionsFromCL() {
  DriverOptions options;
  options.inputPath = clOptions->input;
  options.outputPath = clOptions->output;
  options.emit = clOptions->emit;
  options.noFuse = clOptions->noFuse;
  options.weightsPath = clOptions->weights;
  return options;
}

OwningOpRef<ModuleOp> runFrontend(MLIRContext &context,
                                  const DriverOptions &options) {
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();

  TimingScope loadTimer = root.nest("load model and check weights");
  llvm::Expected<LoadedModel> model =
      loadModel(options.inputPath, options.weightsPath);
  loadTimer.stop();
  if (!model) {
    reportErrors(model.takeError());
    return nullptr;
  }

  TimingScope buildTimer = root.nest("build tfm IR");
  BuildOptions buildOptions;
  buildOptions.noFuse = options.noFuse;
  OwningOpRef<ModuleOp> module =
      buildModule(context, model->config, buildOptions);
  buildTimer.stop();

  TimingScope verifyTimer = root.nest("verify");
  if (failed(verify(*module))) {
    reportError(options.inputPath +
                ": internal error: the generated tfm IR does not verify (see "
                "the diagnostics above)");
    return nullptr;
  }
  return module;
}

LogicalResult compile(MLIRContext &context, const DriverOptions &options) {
  // Phases after `tfm` are wired here as their libraries land: build the
  // pipeline up to options.emit into a PassManager configured with
  // applyPassManagerCLOptions, run it, then print or emit the result.
  switch (options.emit) {
  case EmitPhase::Tfm:
    break;
  case EmitPhase::Linalg:
  case EmitPhase::LLVMDialect:
  case EmitPhase::LLVMIR:
  case EmitPhase::Asm:
  case EmitPhase::Obj:
  case EmitPhase::So:
    reportError("--emit=" + emitPhaseName(options.emit) +
                " is not available in this build");
    return failure();
  }

  OwningOpRef<ModuleOp> module = runFrontend(context, options);
  if (!module)
    return failure();
  return writeModule(*module, options.outputPath);
}

int tfmcMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerDriverCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "tfmc: compiles a Transformer model (tfm spec, Hugging Face "
          "config.json or model folder)\n",
          &llvm::errs()))
    return static_cast<int>(ExitCode::Usage);

  DriverOptions options = getDriverOptionsFromCL();
  if (options.inputPath.empty()) {
    reportError("no model given (usage: tfmc MODEL [--emit=PHASE] [-o "
                "FILE]; see --help)");
    return static_cast<int>(ExitCode::Usage);
  }

  DialectRegistry registry;
  registry.insert<mlir::tfm::TfmDialect, func::FuncDialect,
                  tensor::TensorDialect, arith::ArithDialect>();
  MLIRContext context(registry);
  if (failed(compile(context, options)))
    return static_cast<int>(ExitCode::Error);
  return static_cast<int>(ExitCode::Success);
}

} // namespace tfm
