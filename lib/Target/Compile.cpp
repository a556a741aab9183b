//===- Compile.cpp - tfm module to any emitted artifact -------------------===//

#include "tfm/Target/Compile.h"
#include "tfm/Pipelines/Pipelines.h"
#include "tfm/Target/LLVMEmitter.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mlir::tfm;

std::optional<EmitKind> mlir::tfm::parseEmitKind(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<EmitKind>>(name)
      .Case("linalg", EmitKind::Linalg)
      .Case("llvm-dialect", EmitKind::LLVMDialect)
      .Case("llvm-ir", EmitKind::LLVMIR)
      .Case("asm", EmitKind::Asm)
      .Case("obj", EmitKind::Obj)
      .Case("so", EmitKind::SharedLib)
      .Default(std::nullopt);
}

llvm::StringRef mlir::tfm::stringifyEmitKind(EmitKind kind) {
  switch (kind) {
  case EmitKind::Linalg:
    return "linalg";
  case EmitKind::LLVMDialect:
    return "llvm-dialect";
  case EmitKind::LLVMIR:
    return "llvm-ir";
  case EmitKind::Asm:
    return "asm";
  case EmitKind::Obj:
    return "obj";
  case EmitKind::SharedLib:
    return "so";
  }
  llvm_unreachable("unknown emit kind");
}

namespace {

/// Runs the MLIR part of the compiler: to linalg only, or all the way to the
/// LLVM dialect.
LogicalResult lowerModule(ModuleOp module, const CompileOptions &options,
                          EmitKind kind) {
  PassManager pm(module.getContext());
  if (kind == EmitKind::Linalg) {
    buildTfmToLinalgPipeline(pm);
  } else {
    TfmToLLVMPipelineOptions pipeline;
    pipeline.embedWeights = options.embedWeights;
    pipeline.fuseElementwise = options.fuseElementwise;
    buildTfmToLLVMPipeline(pm, pipeline);
  }
  if (options.configurePassManager)
    options.configurePassManager(pm);
  if (failed(pm.run(module)))
    return module.emitError("lowering to ")
           << (kind == EmitKind::Linalg ? "linalg" : "the LLVM dialect")
           << " failed (see the errors above)";
  return success();
}

/// The text of the `tfm_model_manifest` global (without its NUL).
FailureOr<std::string> readManifest(ModuleOp module) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>("tfm_model_manifest");
  auto value = global ? dyn_cast_or_null<StringAttr>(global.getValueOrNull())
                      : StringAttr();
  if (!value)
    return module.emitError("the lowered module has no tfm_model_manifest "
                            "string: is a function marked 'tfm.entry'?");
  std::string s = value.getValue().str();
  while (!s.empty() && s.back() == '\0')
    s.pop_back();
  return s;
}

/// Lowering + translation + middle-end: the llvm::Module of a tfm module.
std::unique_ptr<llvm::Module> buildLLVMModule(
    ModuleOp module, const CompileOptions &options, llvm::LLVMContext &ctx,
    std::unique_ptr<llvm::TargetMachine> &machine) {
  std::string error;
  machine = createTargetMachine(options.target, error);
  if (!machine) {
    module.emitError(error);
    return nullptr;
  }
  std::unique_ptr<llvm::Module> llvmModule =
      translateToLLVMIR(module, ctx, *machine);
  if (!llvmModule)
    return nullptr;
  if (failed(optimizeLLVMModule(*llvmModule, *machine, options.optLevel))) {
    module.emitError("LLVM's optimizer produced an invalid module");
    return nullptr;
  }
  return llvmModule;
}

} // namespace

LogicalResult mlir::tfm::compileModule(ModuleOp module,
                                       const CompileOptions &options,
                                       EmitKind kind,
                                       llvm::raw_pwrite_stream &os) {
  if (kind == EmitKind::SharedLib)
    return module.emitError("a shared library is written to a file, not a "
                            "stream");
  if (failed(lowerModule(module, options, kind)))
    return failure();
  if (kind == EmitKind::Linalg || kind == EmitKind::LLVMDialect) {
    module.print(os);
    os << "\n";
    return success();
  }
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> llvmModule =
      buildLLVMModule(module, options, ctx, machine);
  if (!llvmModule)
    return failure();
  if (kind == EmitKind::LLVMIR) {
    llvmModule->print(os, nullptr);
    return success();
  }
  std::string error;
  if (failed(emitMachineCode(*llvmModule, *machine,
                             kind == EmitKind::Asm
                                 ? llvm::CodeGenFileType::AssemblyFile
                                 : llvm::CodeGenFileType::ObjectFile,
                             os, error)))
    return module.emitError(error);
  return success();
}

LogicalResult mlir::tfm::compileModule(ModuleOp module,
                                       const CompileOptions &options,
                                       EmitKind kind,
                                       llvm::StringRef outputPath) {
  bool text = kind != EmitKind::Obj && kind != EmitKind::SharedLib;
  if (kind != EmitKind::SharedLib) {
    std::error_code ec;
    llvm::ToolOutputFile out(outputPath, ec,
                             text ? llvm::sys::fs::OF_Text
                                  : llvm::sys::fs::OF_None);
    if (ec)
      return module.emitError("cannot write '")
             << outputPath << "': " << ec.message();
    if (failed(compileModule(module, options, kind, out.os())))
      return failure();
    out.keep();
    return success();
  }

  // Shared library: object in a temporary file, link, header.
  if (outputPath == "-")
    return module.emitError("a shared library cannot be written to stdout");
  if (failed(lowerModule(module, options, kind)))
    return failure();
  FailureOr<std::string> manifest = readManifest(module);
  if (failed(manifest))
    return failure();
  llvm::LLVMContext ctx;
  std::unique_ptr<llvm::TargetMachine> machine;
  std::unique_ptr<llvm::Module> llvmModule =
      buildLLVMModule(module, options, ctx, machine);
  if (!llvmModule)
    return failure();

  llvm::SmallString<128> objectPath;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tfm-model", "o", fd, objectPath))
    return module.emitError("cannot create a temporary object file: ")
           << ec.message();
  llvm::FileRemover removeObject(objectPath);
  std::string error;
  {
    llvm::raw_fd_ostream objectStream(fd, /*shouldClose=*/true);
    if (failed(emitMachineCode(*llvmModule, *machine,
                               llvm::CodeGenFileType::ObjectFile, objectStream,
                               error)))
      return module.emitError(error);
    if (objectStream.has_error())
      return module.emitError("cannot write the object file '")
             << objectPath << "': " << objectStream.error().message();
  }
  if (failed(linkSharedLibrary(objectPath, outputPath, {}, options.link,
                               error)))
    return module.emitError(error);

  if (options.writeHeader) {
    std::string headerPath = options.headerPath;
    if (headerPath.empty()) {
      llvm::SmallString<256> p(llvm::sys::path::parent_path(outputPath));
      llvm::sys::path::append(p, "model.h");
      headerPath = std::string(p);
    }
    if (failed(writeModelHeader(*manifest, headerPath, options.runtimeHeader,
                                error)))
      return module.emitError(error);
  }
  return success();
}
