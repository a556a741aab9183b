//===- Compile.cpp - a tfm module to any emitted artifact -----------------===//
//
// compileModule(): the MLIR pipeline for the phase as steps of one pass
// each (Pipeline.cpp), run step by step (IR dumps, progress, --stop-after,
// an input that continues from a later phase), then the back half:
// translation to LLVM IR, the middle-end, machine code and the link.
//
//===----------------------------------------------------------------------===//

#include "tfm/Compiler/Compile.h"
#include "tfm/Codegen/Common/Target.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/Target/LLVMEmitter.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/Timing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

using namespace mlir;

namespace tfm {

//===----------------------------------------------------------------------===//
// Dumps and progress
//===----------------------------------------------------------------------===//

namespace {

/// The --dump-ir-dir folder: `NN-<step>.<ext>` per step and `index.txt`.
/// Nothing time- or address-dependent goes in, so two runs of one compile
/// give identical folders.
class DumpFolder {
public:
  DumpFolder(std::string dir, size_t totalSteps)
      : dir(std::move(dir)),
        width(std::max<size_t>(2, std::to_string(totalSteps).size())) {}

  /// Creates the folder and removes the files of an earlier dump.
  LogicalResult prepare(std::string &error) {
    if (std::error_code ec = llvm::sys::fs::create_directories(dir)) {
      error = "cannot create the dump folder '" + dir + "': " + ec.message();
      return failure();
    }
    std::error_code ec;
    for (llvm::sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
         it.increment(ec)) {
      llvm::StringRef name = llvm::sys::path::filename(it->path());
      if (name == "index.txt" || isDumpName(name))
        llvm::sys::fs::remove(it->path());
    }
    return success();
  }

  std::string fileName(size_t index, llvm::StringRef step,
                       llvm::StringRef ext) const {
    std::string number = std::to_string(index);
    if (number.size() < width)
      number.insert(0, width - number.size(), '0');
    return number + "-" + sanitize(step) + "." + ext.str();
  }

  LogicalResult write(llvm::StringRef name, llvm::StringRef contents,
                      std::string &error) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_Text);
    if (ec) {
      error = "cannot write '" + std::string(path) + "': " + ec.message();
      return failure();
    }
    os << contents;
    return success();
  }

  /// One line per step for index.txt.
  void record(size_t index, llvm::StringRef file, llvm::StringRef status,
              llvm::StringRef step) {
    std::string number = std::to_string(index);
    if (number.size() < width)
      number.insert(0, width - number.size(), '0');
    index_ += llvm::formatv("{0}  {1,-8} {2,-40} {3}\n", number, status,
                            file, step)
                  .str();
  }

  LogicalResult writeIndex(llvm::StringRef header, std::string &error) {
    return write("index.txt", header.str() + index_, error);
  }

private:
  static bool isDumpName(llvm::StringRef name) {
    size_t digits = name.find_first_not_of("0123456789");
    return digits != 0 && digits != llvm::StringRef::npos &&
           name[digits] == '-' &&
           (name.ends_with(".mlir") || name.ends_with(".ll") ||
            name.ends_with(".s"));
  }
  static std::string sanitize(llvm::StringRef s) {
    std::string out;
    for (char c : s)
      out.push_back(llvm::isAlnum(c) || c == '-' || c == '_' || c == '.'
                        ? c
                        : '_');
    return out;
  }

  std::string dir;
  size_t width;
  std::string index_;
};

/// `[i/N] step` on stderr, rewritten in place.
class Progress {
public:
  Progress(bool enabled, size_t total) : enabled(enabled), total(total) {}
  ~Progress() { clear(); }
  void step(llvm::StringRef name) {
    if (!enabled)
      return;
    ++current;
    llvm::errs() << "\r\x1b[K[" << current << "/" << total << "] " << name;
    llvm::errs().flush();
    shown = true;
  }
  void clear() {
    if (!shown)
      return;
    llvm::errs() << "\r\x1b[K";
    llvm::errs().flush();
    shown = false;
  }

private:
  bool enabled;
  size_t total;
  size_t current = 0;
  bool shown = false;
};

bool hasTfmOps(ModuleOp module) {
  return module
      .walk([](Operation *op) {
        return isa<mlir::tfm::TfmDialect>(op->getDialect())
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

std::string printModule(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, OpPrintingFlags());
  os << "\n";
  return text;
}

/// The text of the `tfm_model_manifest` global (without its NUL).
FailureOr<std::string> readManifest(ModuleOp module) {
  auto global = module.lookupSymbol<LLVM::GlobalOp>(mlir::tfm::abi::kManifestSymbol);
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

/// Runs one compile: the MLIR steps, then the back end.
class Compilation {
public:
  Compilation(ModuleOp module, const CompileOptions &options, EmitPhase phase,
              llvm::StringRef outputPath)
      : module(module), options(options), phase(phase),
        outputPath(outputPath) {}

  LogicalResult run();

private:
  LogicalResult runMLIRSteps(llvm::ArrayRef<PipelineStep> steps);
  LogicalResult runBackend();
  LogicalResult checkKernelsLink();
  LogicalResult writePtxFiles();
  LogicalResult writeText(llvm::StringRef text);
  LogicalResult fail(const llvm::Twine &message) {
    if (progress)
      progress->clear();
    return module.emitError(message);
  }
  /// Writes a back-end dump file (when dumping).
  LogicalResult dumpBackend(llvm::StringRef step, llvm::StringRef ext,
                            llvm::StringRef text);
  TimingScope nestTimer(llvm::StringRef name) {
    return options.timing ? options.timing->nest(name.str()) : TimingScope();
  }

  ModuleOp module;
  const CompileOptions &options;
  EmitPhase phase;
  llvm::StringRef outputPath;

  std::unique_ptr<DumpFolder> dump;
  std::unique_ptr<Progress> progress;
  size_t stepIndex = 0;
  bool stopped = false;
};

LogicalResult Compilation::dumpBackend(llvm::StringRef step,
                                       llvm::StringRef ext,
                                       llvm::StringRef text) {
  if (!dump)
    return success();
  std::string error;
  std::string file = dump->fileName(stepIndex, step, ext);
  dump->record(stepIndex, file, "changed", step);
  if (failed(dump->write(file, text, error)))
    return fail(error);
  return success();
}

LogicalResult Compilation::runMLIRSteps(llvm::ArrayRef<PipelineStep> steps) {
  MLIRContext *context = module.getContext();
  std::string lastText;
  std::optional<OperationFingerPrint> lastPrint;
  if (dump) {
    lastText = printModule(module);
    lastPrint.emplace(module);
    std::string error, file = dump->fileName(0, "input", "mlir");
    dump->record(0, file, "input", "(frontend output)");
    if (failed(dump->write(file, lastText, error)))
      return fail(error);
  }
  bool tfmLevel = options.inspectTfmLevel && hasTfmOps(module);

  for (const PipelineStep &step : steps) {
    ++stepIndex;
    progress->step(step.pass);
    if (tfmLevel)
      options.inspectTfmLevel(module);
    if (options.inspectGpuKernels && step.pass == "gpu-module-to-binary")
      options.inspectGpuKernels(module);

    PassManager pm(context, ModuleOp::getOperationName());
    std::string parseError;
    llvm::raw_string_ostream es(parseError);
    if (failed(parsePassPipeline(step.text, pm, es)))
      return fail("cannot build the pipeline step '" + step.text +
                  "': " + parseError);
    if (options.configurePassManager)
      options.configurePassManager(pm);
    // One timer per step (pass timers are keyed by the pass object, and
    // every step has its own).
    TimingScope stepTimer =
        options.timing
            ? options.timing->nest(&step, [&] { return step.pass; })
            : TimingScope();
    if (options.timing)
      pm.enableTiming(stepTimer);

    if (failed(pm.run(module))) {
      progress->clear();
      std::string where;
      if (dump) {
        // The IR as it was just before the failing pass.
        std::string error;
        std::string file = dump->fileName(stepIndex, step.pass, "failed.mlir");
        dump->record(stepIndex, file, "FAILED", step.text);
        (void)dump->write(file,
                          "// Input of step " + std::to_string(stepIndex) +
                              ", '" + step.text + "', which failed.\n" +
                              lastText,
                          error);
        (void)dump->writeIndex("", error);
        llvm::SmallString<256> p(options.dumpIRDir);
        llvm::sys::path::append(p, file);
        where = "; its input IR is in '" + std::string(p) + "'";
      }
      return module.emitError("pass '")
             << step.pass << "' (step " << stepIndex << " of the pipeline) "
             << "failed" << where;
    }

    if (dump) {
      OperationFingerPrint print(module);
      std::string text = print == *lastPrint ? lastText : printModule(module);
      bool changed = text != lastText;
      std::string error, file = dump->fileName(stepIndex, step.pass, "mlir");
      dump->record(stepIndex, file, changed ? "changed" : "-", step.text);
      if (failed(dump->write(file, text, error)))
        return fail(error);
      lastText = std::move(text);
      lastPrint.emplace(print);
    }
    if (tfmLevel && !hasTfmOps(module))
      tfmLevel = false;
    if (options.inspectGpuSchedules && step.pass == "tfm-gpu-configure")
      options.inspectGpuSchedules(module);
  }
  if (tfmLevel)
    options.inspectTfmLevel(module);
  return success();
}

LogicalResult Compilation::writeText(llvm::StringRef text) {
  std::error_code ec;
  llvm::ToolOutputFile out(outputPath, ec, llvm::sys::fs::OF_Text);
  if (ec)
    return fail("cannot write '" + outputPath + "': " + ec.message());
  out.os() << text;
  out.keep();
  return success();
}

LogicalResult Compilation::run() {
  module.getContext()->appendDialectRegistry([] {
    DialectRegistry registry;
    registerCompilerDialects(registry);
    return registry;
  }());

  // The target, stated once, when the pipeline starts: every pass that
  // sizes anything reads it. (--emit=tfm, the frontend's output, has none;
  // an input module that states one keeps it.)
  if (phase != EmitPhase::Tfm && !module->hasAttr(mlir::tfm::kTargetAttr)) {
    if (options.gpu)
      mlir::tfm::setTarget(module, *options.gpu);
    else
      mlir::tfm::setTarget(module, options.target);
  }
  // Likewise the precision (f32 is the absence of the attribute).
  if (phase != EmitPhase::Tfm && options.precision != "f32" &&
      !module->hasAttr(mlir::tfm::kPrecisionAttr)) {
    mlir::Type type =
        mlir::tfm::getPrecisionType(module.getContext(), options.precision);
    if (!type)
      return module.emitError("precision '")
             << options.precision << "' is not f32, bf16 or f16";
    module->setAttr(mlir::tfm::kPrecisionAttr, mlir::TypeAttr::get(type));
  }

  std::string error;
  FailureOr<std::vector<PipelineStep>> steps =
      getPipelineSteps(module.getContext(), options, phase, error);
  if (failed(steps))
    return module.emitError(error);

  // --stop-after: cut the pipeline after that step.
  std::vector<std::string> backend = getBackendSteps(phase);
  if (!options.stopAfter.empty()) {
    size_t cut = 0;
    llvm::StringRef stop = options.stopAfter;
    unsigned number;
    if (!stop.getAsInteger(10, number)) {
      if (number == 0 || number > steps->size())
        return module.emitError("--stop-after=")
               << stop << ": the pipeline for --emit=" << emitPhaseName(phase)
               << " has steps 1 to " << steps->size();
      cut = number;
    } else {
      auto it = llvm::find_if(
          *steps, [&](const PipelineStep &s) { return s.pass == stop; });
      if (it == steps->end())
        return module.emitError("--stop-after=")
               << stop << ": no such pass in the pipeline for --emit="
               << emitPhaseName(phase) << " (tfmc --list-pipeline shows it)";
      cut = it - steps->begin() + 1;
    }
    steps->resize(cut);
    backend.clear();
    stopped = true;
  }

  progress =
      std::make_unique<Progress>(options.progress,
                                 steps->size() + backend.size());
  if (!options.dumpIRDir.empty()) {
    dump = std::make_unique<DumpFolder>(options.dumpIRDir,
                                        steps->size() + backend.size());
    if (failed(dump->prepare(error)))
      return module.emitError(error);
  }

  auto finish = [&](LogicalResult result) -> LogicalResult {
    if (progress)
      progress->clear();
    if (dump && succeeded(result)) {
      std::string header =
          "# tfmc --dump-ir-dir: the IR after each step, in pipeline order.\n"
          "# step, whether it changed the IR, file, step as a pipeline.\n";
      if (failed(dump->writeIndex(header, error)))
        return module.emitError(error);
    }
    return result;
  };

  if (failed(runMLIRSteps(*steps)))
    return finish(failure());
  if (!stopped && options.gpu && !options.gpuEmulate &&
      failed(checkKernelsLink()))
    return finish(failure());
  if (!stopped && phase == EmitPhase::Ptx)
    return finish(writePtxFiles());
  if (stopped || isMLIRPhase(phase)) {
    if (phase == EmitPhase::So && outputPath == "-" && !stopped)
      return finish(module.emitError("a shared library cannot be written "
                                     "to stdout"));
    return finish(writeText(printModule(module)));
  }
  return finish(runBackend());
}

/// The PTX of every kernel module (gpu.binary objects in `isa` format).
static SmallVector<std::pair<std::string, std::string>>
collectPtx(ModuleOp module) {
  SmallVector<std::pair<std::string, std::string>> out;
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute a : binary.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      if (object && object.getFormat() == gpu::CompilationTarget::Assembly)
        out.emplace_back(binary.getSymName().str(),
                         object.getObject().getValue().str());
    }
  });
  return out;
}

LogicalResult Compilation::checkKernelsLink() {
  // Without a toolkit there is no libdevice: a kernel that still calls one
  // of its functions would fail to load on the GPU, so fail here instead.
  if (!options.gpu->toolkit.empty())
    return success();
  for (auto &[name, ptx] : collectPtx(module)) {
    size_t at = llvm::StringRef(ptx).find("__nv_");
    if (at == llvm::StringRef::npos)
      continue;
    llvm::StringRef callee = llvm::StringRef(ptx).drop_front(at).take_until(
        [](char c) { return !(isalnum(c) || c == '_'); });
    // The kernel: the last entry declared before the call (a module holds
    // every kernel of the model).
    llvm::StringRef before = llvm::StringRef(ptx).take_front(at);
    size_t entry = before.rfind(".entry ");
    std::string kernel =
        entry == llvm::StringRef::npos
            ? name
            : before.drop_front(entry + 7).take_until([](char c) {
                return !(isalnum(c) || c == '_');
              }).str();
    return fail("kernel '" + kernel + "' calls the libdevice function '" +
                callee.str() +
                "', and no CUDA toolkit was found to link libdevice from "
                "(pass --cuda-path, or set CUDA_HOME)");
  }
  return success();
}

LogicalResult Compilation::writePtxFiles() {
  if (outputPath == "-")
    return fail("--emit=ptx writes one file per kernel: name a folder with "
                "-o DIR");
  if (std::error_code ec = llvm::sys::fs::create_directories(outputPath))
    return fail("cannot create the folder '" + outputPath +
                "': " + ec.message());
  auto kernels = collectPtx(module);
  if (kernels.empty())
    return fail("--emit=ptx: the module has no GPU kernel (compile with "
                "--target=nvptx)");
  for (auto &[name, ptx] : kernels) {
    llvm::SmallString<256> path(outputPath);
    llvm::sys::path::append(path, name + ".ptx");
    std::error_code ec;
    llvm::ToolOutputFile out(path, ec, llvm::sys::fs::OF_Text);
    if (ec)
      return fail("cannot write '" + std::string(path) + "': " +
                  ec.message());
    out.os() << ptx;
    out.keep();
  }
  return success();
}

LogicalResult Compilation::runBackend() {
  if (phase == EmitPhase::So && outputPath == "-")
    return fail("a shared library cannot be written to stdout (use -o)");
  std::string manifest;
  if (phase == EmitPhase::So) {
    FailureOr<std::string> m = readManifest(module);
    if (failed(m))
      return failure();
    manifest = std::move(*m);
  }

  std::string error;
  std::unique_ptr<llvm::TargetMachine> machine =
      mlir::tfm::createTargetMachine(options.target, error);
  if (!machine)
    return fail(error);
  // The host code of a GPU target is launch glue, or (--gpu-emulate) the
  // kernels run to check their numerics: the optimizer's level below.
  if (options.gpu)
    machine->setOptLevel(llvm::CodeGenOptLevel::Less);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule;
  {
    ++stepIndex;
    progress->step("translate-to-llvm-ir");
    TimingScope timer = nestTimer("translate-to-llvm-ir");
    llvmModule = mlir::tfm::translateToLLVMIR(module, llvmContext, *machine);
    if (!llvmModule)
      return failure();
  }
  auto printLL = [&] {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    return text;
  };
  if (dump && failed(dumpBackend("translate-to-llvm-ir", "ll", printLL())))
    return failure();
  {
    ++stepIndex;
    progress->step("llvm-opt");
    TimingScope timer = nestTimer("llvm-opt");
    // On a GPU target the host code is launch glue (descriptors, arena
    // offsets, one call per kernel), whose cost is microseconds per launch
    // next to the kernels': O1 simplifies it, while O3 over a function
    // with a thousand launches took 74 of the 114 s that examples/
    // llama-decoder.json compiled in (44 s at O1). An emulated GPU build
    // (--gpu-emulate) runs the kernels on the host to check their
    // numerics, where speed does not matter: O3's SLP vectorizer alone took
    // 10 of the 26 s that LLVM spent on a two-layer decoder's emulated
    // kernels (10 s in all at O1).
    unsigned optLevel = options.optLevel;
    if (options.gpu)
      optLevel = std::min(optLevel, 1u);
    if (failed(mlir::tfm::optimizeLLVMModule(*llvmModule, *machine,
                                             optLevel)))
      return fail("LLVM's optimizer produced an invalid module");
  }
  if (dump && failed(dumpBackend("llvm-opt", "ll", printLL())))
    return failure();
  if (phase == EmitPhase::LLVMIR)
    return writeText(printLL());

  ++stepIndex;
  progress->step("codegen");
  if (dump) {
    // The assembly listing (from a copy: code generation changes the module).
    std::unique_ptr<llvm::Module> copy = llvm::CloneModule(*llvmModule);
    llvm::SmallString<0> text;
    llvm::raw_svector_ostream os(text);
    if (failed(mlir::tfm::emitMachineCode(
            *copy, *machine, llvm::CodeGenFileType::AssemblyFile, os, error)))
      return fail(error);
    if (failed(dumpBackend("codegen", "s", text)))
      return failure();
  }
  TimingScope codegenTimer = nestTimer("codegen");
  if (phase == EmitPhase::Asm || phase == EmitPhase::Obj) {
    bool asmText = phase == EmitPhase::Asm;
    std::error_code ec;
    llvm::ToolOutputFile out(outputPath, ec,
                             asmText ? llvm::sys::fs::OF_Text
                                     : llvm::sys::fs::OF_None);
    if (ec)
      return fail("cannot write '" + outputPath + "': " + ec.message());
    if (failed(mlir::tfm::emitMachineCode(
            *llvmModule, *machine,
            asmText ? llvm::CodeGenFileType::AssemblyFile
                    : llvm::CodeGenFileType::ObjectFile,
            out.os(), error)))
      return fail(error);
    out.keep();
    return success();
  }

  // Shared library: the object in a temporary file, the link, the header.
  llvm::SmallString<128> objectPath;
  int fd;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(
          "tfm-model", "o", fd, objectPath))
    return fail("cannot create a temporary object file: " + ec.message());
  llvm::FileRemover removeObject(objectPath);
  {
    llvm::raw_fd_ostream objectStream(fd, /*shouldClose=*/true);
    if (failed(mlir::tfm::emitMachineCode(*llvmModule, *machine,
                                          llvm::CodeGenFileType::ObjectFile,
                                          objectStream, error)))
      return fail(error);
    if (objectStream.has_error())
      return fail("cannot write the object file '" + objectPath +
                  "': " + objectStream.error().message());
  }
  codegenTimer.stop();

  ++stepIndex;
  progress->step("link");
  TimingScope linkTimer = nestTimer("link");
  mlir::tfm::LinkOptions link = options.link;
  // libomp only for code that calls it: none in the host code of a GPU
  // model, none for a target with one thread (-tfm-cpu-openmp left the
  // loops serial).
  if (llvm::none_of(llvmModule->functions(), [](const llvm::Function &f) {
        return f.getName().starts_with("__kmpc_");
      }))
    link.openMP = false;
  if (failed(mlir::tfm::linkSharedLibrary(objectPath, outputPath, link, error)))
    return fail(error);
  if (options.writeHeader) {
    std::string headerPath = options.headerPath;
    if (headerPath.empty()) {
      // model.so -> model.h, so that several models can share a folder.
      llvm::SmallString<256> p(outputPath);
      llvm::sys::path::replace_extension(p, ".h");
      headerPath = std::string(p);
    }
    if (failed(mlir::tfm::writeModelHeader(manifest, headerPath,
                                           options.runtimeHeader, error)))
      return fail(error);
  }
  return success();
}

} // namespace

LogicalResult compileModule(ModuleOp module,
                                 const CompileOptions &options,
                                 EmitPhase phase, llvm::StringRef outputPath) {
  return Compilation(module, options, phase, outputPath).run();
}

} // namespace tfm
