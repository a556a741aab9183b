//===- Driver.cpp - the tfmc driver library -------------------------------===//
//
// MODEL ─► runFrontend (load, check weights, build, verify) ─► compileModule
// (the pipeline up to --emit, step by step) ─► output. Diagnostics name the
// model file and the op's place in the model (the frontend's NameLocs such
// as "layers.3.attn"), never a dump of the module.
//
//===----------------------------------------------------------------------===//

#include "tfm/Compiler/Driver.h"
#include "tfm/Codegen/Common/Target.h"
#include "tfm/Compiler/Diagnostics.h"
#include "tfm/Compiler/Report.h"
#include "tfm/Frontend/Frontend.h"
#include "tfm/Support/Manifest.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Target/LLVMEmitter.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/AsmState.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

using namespace mlir;
namespace cl = llvm::cl;

namespace tfm {

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

/// Whether the user gave MLIR option `name` on the command line.
bool optionGiven(llvm::StringRef name) {
  auto &options = cl::getRegisteredOptions();
  auto it = options.find(name);
  return it != options.end() && it->second->getNumOccurrences() > 0;
}

struct DriverCLOptions {
  cl::OptionCategory category{"tfmc options"};
  cl::OptionCategory inspect{"tfmc inspection options"};

  cl::opt<std::string> input{cl::Positional, cl::desc("<model>"),
                             cl::value_desc(
                                 "tfm spec .json, HF config.json or HF model "
                                 "folder, or a .mlir --emit output to "
                                 "continue"),
                             cl::cat(category)};
  cl::opt<std::string> output{
      "o",
      cl::desc("Output file ('-' for stdout; required for --emit=obj and "
               "so; --emit=so also writes the .h beside it)"),
      cl::value_desc("filename"), cl::init("-"), cl::cat(category)};
  cl::opt<EmitPhase> emit{
      "emit", cl::desc("Run the phases up to this one and write its result"),
      cl::init(EmitPhase::So),
      cl::values(
          clEnumValN(EmitPhase::Tfm, "tfm", "tfm dialect (frontend output)"),
          clEnumValN(EmitPhase::Linalg, "linalg", "linalg on tensors"),
          clEnumValN(EmitPhase::LLVMDialect, "llvm-dialect",
                     "MLIR LLVM dialect"),
          clEnumValN(EmitPhase::Ptx, "ptx",
                     "--target=nvptx: one .ptx per kernel in the folder -o "
                     "names"),
          clEnumValN(EmitPhase::LLVMIR, "llvm-ir",
                     "LLVM IR after the middle-end"),
          clEnumValN(EmitPhase::Asm, "asm", "target assembly"),
          clEnumValN(EmitPhase::Obj, "obj", "object file"),
          clEnumValN(EmitPhase::So, "so",
                     "shared library and C header (default)")),
      cl::cat(category)};
  cl::opt<bool> noFuse{"no-fuse",
                       cl::desc("Unfused attention end to end: the frontend "
                                "emits transpose, matmul, scale, make_mask, "
                                "masked_fill, softmax, matmul instead of "
                                "tfm.attention, and the pipeline lowers them "
                                "op by op (no -tfm-fuse-attention)"),
                       cl::init(false), cl::cat(category)};
  cl::opt<bool> generation{
      "generation",
      cl::desc("Also compile the generation step of a decoder (KV cache, "
               "prefill and decode; the tfm_session_* functions of the C "
               "ABI and tfm-run --prompt-ids)"),
      cl::init(false), cl::cat(category)};
  cl::opt<bool> noPackWeights{
      "no-pack-weights",
      cl::desc("Read GEMM weights as stored instead of packing them into "
               "panels once per model instance (no -tfm-pack-weights): "
               "less memory, slower GEMMs"),
      cl::init(false), cl::cat(category)};
  cl::opt<std::string> weights{
      "weights",
      cl::desc("safetensors file or folder to check the model against (a "
               "model folder uses its own)"),
      cl::value_desc("path"), cl::init(""), cl::cat(category)};
  cl::opt<bool> embedWeights{
      "embed-weights",
      cl::desc("Embed the weights (--weights, or the model folder's "
               "safetensors file) in the library"),
      cl::init(false), cl::cat(category)};
  cl::opt<std::string> target{
      "target",
      cl::desc("What runs the model: cpu (default) or nvptx (NVIDIA GPUs, "
               "launched from the host CPU)"),
      cl::value_desc("cpu|nvptx"), cl::init("cpu"), cl::cat(category)};
  cl::opt<std::string> gpuArch{
      "gpu-arch",
      cl::desc("--target=nvptx: the GPU architecture, sm_80 (default), "
               "sm_86, sm_89, sm_90 or sm_90a"),
      cl::value_desc("sm_XX"), cl::init(""), cl::cat(category)};
  cl::opt<std::string> cudaPath{
      "cuda-path",
      cl::desc("--target=nvptx: the CUDA toolkit (ptxas, libdevice; "
               "default: $CUDA_ROOT, $CUDA_HOME, $CUDA_PATH, then "
               "/usr/local/cuda)"),
      cl::value_desc("dir"), cl::init(""), cl::cat(category)};
  cl::opt<bool> gpuEmulate{
      "gpu-emulate",
      cl::desc("--target=nvptx: run the GPU pipeline's kernels on the host "
               "(each launch as loops over its blocks and threads) instead "
               "of on a GPU; for checking and debugging kernels without "
               "one"),
      cl::init(false), cl::cat(category)};
  cl::opt<std::string> precision{
      "precision",
      cl::desc("Precision of GEMM and attention inputs: f32 (default), "
               "bf16 or f16; accumulation, norms, softmax statistics and "
               "the residual stream stay f32"),
      cl::value_desc("f32|bf16|f16"), cl::init("f32"), cl::cat(category)};
  cl::opt<std::string> targetTriple{
      "target-triple", cl::desc("LLVM target triple (default: the host's)"),
      cl::value_desc("triple"), cl::init(""), cl::cat(category)};
  cl::opt<std::string> targetCPU{
      "target-cpu",
      cl::desc("LLVM CPU name, e.g. znver4 (default: the host's, or "
               "'generic' for another triple)"),
      cl::value_desc("cpu"), cl::init(""), cl::cat(category)};
  cl::opt<unsigned> threads{
      "target-threads",
      cl::desc("Hardware threads the generated code may use (the thread "
               "count itself is the run time's); 1: single-threaded code, "
               "no libomp (default: this machine's, also when "
               "cross-compiling)"),
      cl::value_desc("n"), cl::init(0), cl::cat(category)};

  cl::opt<std::string> passPipeline{
      "pass-pipeline",
      cl::desc("Run this MLIR pass pipeline instead of the built-in one "
               "(textual form, e.g. 'builtin.module(convert-tfm-to-linalg,"
               "cse)')"),
      cl::value_desc("pipeline"), cl::init(""), cl::cat(inspect)};
  cl::list<std::string> passOptions{
      "pass-option",
      cl::desc("Set an option of a pass of the pipeline, on every step that "
               "runs it (repeatable), e.g. "
               "'tfm-gpu-configure:mma-large=128,128,32,2,2,4' (the options "
               "are the ones --list-pipeline prints)"),
      cl::value_desc("pass:option=value"), cl::cat(inspect)};
  cl::opt<bool> listPipeline{
      "list-pipeline",
      cl::desc("Print the pipeline for the target and --emit phase, one "
               "step per line with its options, and exit"),
      cl::init(false), cl::cat(inspect)};
  cl::opt<std::string> dumpIRDir{
      "dump-ir-dir",
      cl::desc("Write the IR after every step to DIR (00-input.mlir, "
               "01-<pass>.mlir, ..., the .ll and .s files) with index.txt"),
      cl::value_desc("dir"), cl::init(""), cl::cat(inspect)};
  cl::opt<ReportFormat> report{
      "report", cl::ValueOptional,
      cl::desc("Print FLOPs, minimum bytes, tiles, fast-memory footprint and "
               "a roofline estimate of every attention and GEMM kernel (on "
               "stdout; on stderr when the output goes to stdout)"),
      cl::init(ReportFormat::None),
      cl::values(clEnumValN(ReportFormat::Table, "", "as a table"),
                 clEnumValN(ReportFormat::Table, "table", "as a table"),
                 clEnumValN(ReportFormat::Json, "json", "as JSON")),
      cl::cat(inspect)};
  cl::opt<int64_t> reportSeq{
      "report-seq",
      cl::desc("Sequence length of --report (default: the model's "
               "max_seq_len); batch 1"),
      cl::value_desc("n"), cl::init(0), cl::cat(inspect)};
  cl::opt<bool> quiet{"quiet",
                      cl::desc("No [i/N] progress lines on stderr"),
                      cl::init(false), cl::cat(inspect)};
};

llvm::ManagedStatic<DriverCLOptions> clOptions;

/// --stop-after. libLLVM already registers an option of that name (the
/// codegen pipeline's, a cl::opt<std::string>); tfmc reuses it, documented
/// for tfmc, and never runs codegen when it is set.
cl::opt<std::string> *stopAfterOption() {
  static cl::opt<std::string> *option = [] {
    auto &registered = cl::getRegisteredOptions();
    auto it = registered.find("stop-after");
    cl::opt<std::string> *opt =
        it != registered.end()
            ? static_cast<cl::opt<std::string> *>(it->second)
            : new cl::opt<std::string>("stop-after", cl::init(""));
    opt->setDescription("Stop after this pass (its first occurrence, or a "
                        "step number of --list-pipeline) and write the IR");
    opt->setValueStr("pass");
    opt->setHiddenFlag(cl::NotHidden);
    opt->addCategory(clOptions->inspect);
    return opt;
  }();
  return option;
}

/// The safetensors file to embed: --weights, or the one file of a model
/// folder.
FailureOr<std::string> weightsFileToEmbed(const DriverOptions &options,
                                          llvm::StringRef loadedWeights) {
  if (loadedWeights.empty()) {
    reportError("--embed-weights needs weights: pass --weights FILE or an HF "
                "model folder");
    return failure();
  }
  if (!llvm::sys::fs::is_directory(loadedWeights))
    return loadedWeights.str();
  std::vector<std::string> files;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(loadedWeights, ec), end;
       it != end && !ec; it.increment(ec))
    if (llvm::StringRef(it->path()).ends_with(".safetensors"))
      files.push_back(it->path());
  if (files.size() != 1) {
    reportError(loadedWeights + ": --embed-weights embeds one safetensors "
                                "file, and this folder has " +
                llvm::Twine(files.size()));
    return failure();
  }
  return files.front();
}

} // namespace

void registerDriverCLOptions() {
  *clOptions;
  stopAfterOption();
}

DriverOptions getDriverOptionsFromCL() {
  DriverOptions options;
  options.inputPath = clOptions->input;
  options.outputPath = clOptions->output;
  options.emit = clOptions->emit;
  options.noFuse = clOptions->noFuse;
  options.generation = clOptions->generation;
  options.noPackWeights = clOptions->noPackWeights;
  options.weightsPath = clOptions->weights;
  options.embedWeights = clOptions->embedWeights;
  options.target = clOptions->target;
  options.gpuArch = clOptions->gpuArch;
  options.cudaPath = clOptions->cudaPath;
  options.gpuEmulate = clOptions->gpuEmulate;
  options.precision = clOptions->precision;
  options.targetTriple = clOptions->targetTriple;
  options.targetCPU = clOptions->targetCPU;
  options.threads = clOptions->threads;
  options.passPipeline = clOptions->passPipeline;
  options.passOptions.assign(clOptions->passOptions.begin(),
                             clOptions->passOptions.end());
  options.stopAfter = stopAfterOption()->getValue();
  options.dumpIRDir = clOptions->dumpIRDir;
  options.listPipeline = clOptions->listPipeline;
  options.report = clOptions->report;
  options.reportSeq = clOptions->reportSeq;
  options.quiet = clOptions->quiet;
  return options;
}

/// Whether the input is MLIR text (an `--emit` output) instead of a model.
static bool isMLIRInput(llvm::StringRef path) {
  return path.ends_with(".mlir");
}

FailureOr<EmitPhase> inputPhaseOf(ModuleOp module, llvm::StringRef path) {
  bool tfmOps = false, onlyLLVM = true;
  module.getBody()->walk([&](Operation *op) {
    // tfm.weight stays until the entry ABI: linalg modules have it too.
    if (isa<mlir::tfm::TfmDialect>(op->getDialect()) &&
        !isa<mlir::tfm::WeightOp>(op))
      tfmOps = true;
    // What -tfm-check-llvm-legal lets through: the llvm and omp dialects,
    // and the GPU pipeline's embedded binaries.
    if (!isa<LLVM::LLVMDialect, omp::OpenMPDialect>(op->getDialect()) &&
        !isa<gpu::BinaryOp>(op))
      onlyLLVM = false;
  });
  if (tfmOps || module.getBody()->empty())
    return EmitPhase::Tfm;
  if (onlyLLVM)
    return EmitPhase::LLVMDialect;
  // After -tfm-materialize-entry the module has its weights table; the
  // --emit=linalg output (the end of the pipeline's prefix) does not.
  if (!module->hasAttr(mlir::tfm::abi::kWeightsAttr))
    return EmitPhase::Linalg;
  reportError(path.str() +
              ": the module is between --emit phases (the entry ABI is "
              "materialized but it is not the LLVM dialect yet): tfmc "
              "continues from an --emit=tfm, --emit=linalg or "
              "--emit=llvm-dialect output");
  return failure();
}

OwningOpRef<ModuleOp> runFrontend(MLIRContext &context,
                                  const DriverOptions &options,
                                  TimingScope *timing,
                                  std::string *loadedWeightsPath) {
  TimingScope root = timing ? timing->nest("frontend") : TimingScope();

  if (isMLIRInput(options.inputPath)) {
    if (options.generation) {
      reportError(options.inputPath +
                  ": --generation builds the generation step from a model "
                  "(spec, HF config or folder); an MLIR module keeps the "
                  "functions it has");
      return nullptr;
    }
    // IR given back: parsed (diagnostics name the file, line and column)
    // and verified, then the pipeline continues from its phase.
    TimingScope parseTimer = root.nest("parse");
    context.loadDialect<mlir::tfm::TfmDialect>();
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(options.inputPath, &context);
    if (!module) {
      reportError(options.inputPath + ": cannot be read as an MLIR module "
                                      "(see the diagnostics above)");
      return nullptr;
    }
    return module;
  }

  TimingScope loadTimer = root.nest("load model and check weights");
  llvm::Expected<LoadedModel> model =
      loadModel(options.inputPath, options.weightsPath);
  loadTimer.stop();
  if (!model) {
    reportErrors(model.takeError());
    return nullptr;
  }
  if (loadedWeightsPath)
    *loadedWeightsPath = model->weightsPath;

  TimingScope buildTimer = root.nest("build tfm IR");
  BuildOptions buildOptions;
  buildOptions.noFuse = options.noFuse;
  buildOptions.generation = options.generation;
  if (options.generation) {
    if (llvm::Error e = checkGeneration(model->config)) {
      reportError(options.inputPath + ": --generation: " +
                  llvm::toString(std::move(e)));
      return nullptr;
    }
  }
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

FailureOr<mlir::tfm::TargetDescription>
resolveTarget(const DriverOptions &options, std::string &error) {
  mlir::tfm::TargetDescription host = mlir::tfm::hostTarget();
  std::string triple = options.targetTriple.empty()
                           ? host.triple
                           : llvm::Triple::normalize(options.targetTriple);
  bool sameTriple = triple == llvm::Triple::normalize(host.triple);
  std::string cpu = !options.targetCPU.empty() ? options.targetCPU
                    : sameTriple               ? host.cpu
                                               : "generic";
  if (options.threads)
    host.threads = options.threads;
  if (sameTriple && cpu == host.cpu)
    return host;

  // Another machine: its CPU's own features, the documented defaults of
  // TargetDescription for the caches and clock, so that tile sizes do not
  // depend on the machine that compiles. Threads stay on (the count is the
  // run time's): cross-compiled code is multithreaded unless --target-threads=1.
  mlir::tfm::TargetDescription target;
  target.triple = triple;
  target.cpu = cpu;
  target.threads = host.threads;
  std::unique_ptr<llvm::TargetMachine> machine =
      mlir::tfm::createTargetMachine(target, error);
  if (!machine)
    return failure();
  const llvm::MCSubtargetInfo *sti = machine->getMCSubtargetInfo();
  if (cpu != "generic" && !sti->isCPUStringValid(cpu)) {
    error = "--target-cpu=" + cpu + " is not a CPU that LLVM knows for '" +
            triple + "'";
    return failure();
  }
  std::string features;
  for (const llvm::SubtargetFeatureKV &kv : sti->getAllProcessorFeatures())
    if (sti->getFeatureBits().test(kv.Value))
      features += (features.empty() ? "+" : ",+") + std::string(kv.Key);
  target.features = features;
  target.vectorBits = mlir::tfm::vectorBitsForFeatures(triple, features);
  target.vectorRegisters =
      mlir::tfm::vectorRegistersFor(triple, target.vectorBits);
  target.peakFlopsPerCore = mlir::tfm::derivedPeakFlopsPerCore(target);
  target.memoryBandwidth = mlir::tfm::defaultMemoryBandwidth(target.threads);
  return target;
}

/// A CUDA toolkit folder is usable when it has ptxas and libdevice.
static bool isCudaToolkit(llvm::StringRef dir) {
  llvm::SmallString<256> ptxas(dir), libdevice(dir);
  llvm::sys::path::append(ptxas, "bin", "ptxas");
  llvm::sys::path::append(libdevice, "nvvm", "libdevice", "libdevice.10.bc");
  return llvm::sys::fs::can_execute(ptxas) &&
         llvm::sys::fs::exists(libdevice);
}

FailureOr<std::optional<mlir::tfm::GpuTargetDescription>>
resolveGpuTarget(const DriverOptions &options, std::string &error) {
  if (!options.targetTriple.empty() &&
      llvm::Triple(options.targetTriple).isNVPTX()) {
    error = "--target-triple names the host CPU that launches the kernels; "
            "for NVIDIA GPUs use --target=nvptx --gpu-arch=sm_XX";
    return failure();
  }
  if (options.target == "cpu") {
    if (!options.gpuArch.empty() || !options.cudaPath.empty() ||
        options.gpuEmulate) {
      error = std::string(options.gpuEmulate        ? "--gpu-emulate"
                          : options.gpuArch.empty() ? "--cuda-path"
                                                    : "--gpu-arch") +
              " needs --target=nvptx";
      return failure();
    }
    return std::optional<mlir::tfm::GpuTargetDescription>();
  }
  if (options.target != "nvptx") {
    error = "--target=" + options.target +
            " is not a target tfm compiles for (cpu or nvptx)";
    return failure();
  }
  std::string chip = options.gpuArch.empty() ? "sm_80" : options.gpuArch;
  if (!llvm::is_contained(mlir::tfm::knownGpuChips(), chip)) {
    error = "--gpu-arch=" + chip + " is not a GPU architecture tfm knows "
            "(sm_80, sm_86, sm_89, sm_90, sm_90a)";
    return failure();
  }
  // The toolkit: the option, then the environment as MLIR's NVVM target
  // reads it, then the usual install folder. One that is named but unusable
  // is an error; none at all means PTX only.
  std::string toolkit;
  if (!options.cudaPath.empty()) {
    if (!isCudaToolkit(options.cudaPath)) {
      error = "--cuda-path=" + options.cudaPath +
              " is not a CUDA toolkit (no bin/ptxas or "
              "nvvm/libdevice/libdevice.10.bc)";
      return failure();
    }
    toolkit = options.cudaPath;
  } else {
    for (const char *var : {"CUDA_ROOT", "CUDA_HOME", "CUDA_PATH"}) {
      const char *value = std::getenv(var);
      if (!value || !*value)
        continue;
      if (!isCudaToolkit(value)) {
        error = std::string(var) + "=" + value +
                " is not a CUDA toolkit (no bin/ptxas or "
                "nvvm/libdevice/libdevice.10.bc)";
        return failure();
      }
      toolkit = value;
      break;
    }
    if (toolkit.empty() && isCudaToolkit("/usr/local/cuda"))
      toolkit = "/usr/local/cuda";
  }
  return std::optional<mlir::tfm::GpuTargetDescription>(
      mlir::tfm::gpuTargetFor(chip, toolkit));
}

namespace {

/// One line per pipeline step, then the back-end steps.
void printPipeline(llvm::raw_ostream &os, const DriverOptions &options,
                   const mlir::tfm::TargetDescription &target,
                   llvm::ArrayRef<PipelineStep> steps) {
  os << "# tfmc pipeline for --emit=" << emitPhaseName(options.emit)
     << ", target " << target.triple << " (cpu " << target.cpu << ")\n";
  os << "# step  pass (textual pipeline with every option)\n";
  size_t i = 0;
  for (const PipelineStep &step : steps)
    os << llvm::formatv("{0,4}  {1}\n", ++i, step.text);
  for (const std::string &step : getBackendSteps(options.emit)) {
    llvm::StringRef what =
        step == "translate-to-llvm-ir" ? "LLVM dialect to LLVM IR"
        : step == "llvm-opt"
            ? "LLVM middle-end (default pipeline, -O3)"
        : step == "codegen" ? "machine code (LLVM TargetMachine)"
                            : "shared library with the runtime, C header";
    os << llvm::formatv("{0,4}  {1}  ({2})\n", ++i, step, what);
  }
}

} // namespace

LogicalResult compile(MLIRContext &context, const DriverOptions &options) {
  DefaultTimingManager timing;
  applyDefaultTimingManagerCLOptions(timing);
  TimingScope root = timing.getRootScope();

  std::string error;
  FailureOr<mlir::tfm::TargetDescription> target =
      resolveTarget(options, error);
  if (failed(target)) {
    reportError(error);
    return failure();
  }

  FailureOr<std::optional<mlir::tfm::GpuTargetDescription>> gpu =
      resolveGpuTarget(options, error);
  if (failed(gpu)) {
    reportError(error);
    return failure();
  }

  if (!parsePrecision(options.precision)) {
    reportError("--precision=" + options.precision +
                " is not a precision tfm compiles for (f32, bf16 or f16)");
    return failure();
  }

  CompileOptions compileOptions;
  compileOptions.target = *target;
  compileOptions.gpu = *gpu;
  compileOptions.precision = options.precision;
  compileOptions.gpuEmulate = options.gpuEmulate;
  compileOptions.fuseAttention = !options.noFuse;
  compileOptions.packWeights = !options.noPackWeights;
  compileOptions.passPipeline = options.passPipeline;
  compileOptions.passOptions = options.passOptions;
  compileOptions.stopAfter = options.stopAfter;
  compileOptions.dumpIRDir = options.dumpIRDir;
  compileOptions.progress =
      !options.quiet && llvm::sys::Process::StandardErrIsDisplayed();
  // tfm's pass statistics: one report for the whole compile, summed over
  // the steps (each step is a pass manager of its own), printed whether the
  // compile succeeds or not, as MLIR prints its own.
  std::optional<mlir::tfm::PassStatisticsCollector> statistics;
  bool passesRan = false;
  if (options.passStatistics)
    statistics.emplace();
  llvm::scope_exit printStatistics([&] {
    if (statistics && passesRan)
      statistics->print(llvm::errs(), *options.passStatistics);
  });
  // MLIR's pass-manager options (--mlir-print-ir-*, --mlir-timing, ...)
  // are checked once up front: a combination MLIR refuses (module-scope IR
  // printing with threads) fails the compile with its message, instead of
  // being reported at every step of a compile that then succeeds.
  {
    PassManager probe(&context);
    if (failed(applyPassManagerCLOptions(probe)))
      return failure();
  }
  compileOptions.configurePassManager = [&](PassManager &pm) {
    // Checked by the probe above.
    (void)applyPassManagerCLOptions(pm);
    if (statistics)
      statistics->attach(pm);
    passesRan = true;
  };
  compileOptions.timing = &root;

  // An .mlir input lists the steps that remain for it: read it first.
  OwningOpRef<ModuleOp> listed;
  if (options.listPipeline && isMLIRInput(options.inputPath)) {
    listed = runFrontend(context, options, nullptr, nullptr);
    if (!listed)
      return failure();
    FailureOr<EmitPhase> phase = inputPhaseOf(*listed, options.inputPath);
    if (failed(phase))
      return failure();
    compileOptions.inputPhase = *phase;
  }
  if (options.listPipeline) {
    FailureOr<std::vector<PipelineStep>> steps =
        getPipelineSteps(&context, compileOptions, options.emit, error);
    if (failed(steps)) {
      reportError(error);
      return failure();
    }
    printPipeline(llvm::outs(), options, *target, *steps);
    return success();
  }

  std::string loadedWeights;
  OwningOpRef<ModuleOp> module =
      runFrontend(context, options, &root, &loadedWeights);
  if (!module)
    return failure();
  if (isMLIRInput(options.inputPath)) {
    FailureOr<EmitPhase> phase = inputPhaseOf(*module, options.inputPath);
    if (failed(phase))
      return failure();
    if (*phase > options.emit ||
        (*phase == options.emit && *phase != EmitPhase::Tfm)) {
      reportError(options.inputPath + ": the module is already at --emit=" +
                  emitPhaseName(*phase).str() + "; ask for a later phase "
                  "than that (--emit=" + emitPhaseName(options.emit).str() +
                  " was asked)");
      return failure();
    }
    compileOptions.inputPhase = *phase;
    // The module's own target, stated when its pipeline started, is the
    // one it continues with (its tiles were chosen for it).
    if (auto stated = module->getOperation()->getAttrOfType<
                      mlir::tfm::CpuTargetAttr>(mlir::tfm::kTargetAttr)) {
      if (!options.targetTriple.empty() || !options.targetCPU.empty() ||
          options.threads) {
        reportError(options.inputPath + ": the module states its target (" +
                    mlir::tfm::kTargetAttr.str() + ", cpu '" +
                    stated.getCpu().str() +
                    "'); --target-triple, --target-cpu and --target-threads "
                    "cannot change it (remove the attribute to compile the "
                    "module for another target)");
        return failure();
      }
      compileOptions.target = mlir::tfm::getTargetDescription(stated);
    }
  }
  if (options.embedWeights) {
    FailureOr<std::string> file = weightsFileToEmbed(options, loadedWeights);
    if (failed(file))
      return failure();
    compileOptions.embedWeights = *file;
  }

  std::optional<KernelCollector> kernels;
  if (options.report != ReportFormat::None) {
    kernels.emplace(*target, options.reportSeq, *gpu);
    compileOptions.inspectTfmLevel = [&](ModuleOp m) { kernels->observe(m); };
    compileOptions.inspectGpuSchedules = [&](ModuleOp m) {
      kernels->observeGpuSchedules(m);
    };
    compileOptions.inspectGpuKernels = [&](ModuleOp m) {
      kernels->observeGpuKernels(m);
    };
  }

  TimingScope compileTimer = root.nest("compile");
  compileOptions.timing = &compileTimer;
  if (failed(compileModule(*module, compileOptions, options.emit,
                           options.outputPath)))
    return failure();
  compileTimer.stop();

  if (kernels) {
    llvm::raw_ostream &os =
        options.outputPath == "-" ? llvm::errs() : llvm::outs();
    KernelReport report = kernels->report();
    if (options.report == ReportFormat::Json)
      printReportJson(os, report);
    else
      printReportTable(os, report);
  }
  return success();
}

int tfmcMain(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Passes first: --mlir-print-ir-before=<pass> checks names at parse time.
  registerCompilerPasses();
  registerDriverCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  registerAsmPrinterCLOptions();
  registerDefaultTimingManagerCLOptions();
  // --help lists tfmc's options and MLIR's instrumentation (-mlir-*, which
  // docs/user-guide.md describes); LLVM's hundreds of back-end options stay
  // usable and are listed by --help-hidden.
  static cl::OptionCategory mlirCategory("MLIR instrumentation options");
  for (auto &entry : cl::getRegisteredOptions())
    if (entry.first.starts_with("mlir-"))
      entry.second->addCategory(mlirCategory);
  stopAfterOption()->addCategory(clOptions->inspect);
  const cl::OptionCategory *shown[] = {&clOptions->category,
                                       &clOptions->inspect, &mlirCategory};
  for (auto &entry : cl::getRegisteredOptions()) {
    cl::Option *option = entry.second;
    bool ours = llvm::any_of(option->Categories, [&](cl::OptionCategory *c) {
      return llvm::is_contained(shown, c);
    });
    // Hidden, not removed: --help-hidden lists them.
    if (!ours && option->getOptionHiddenFlag() == cl::NotHidden &&
        entry.first != "help" && entry.first != "version")
      option->setHiddenFlag(cl::Hidden);
  }
  if (!cl::ParseCommandLineOptions(
          argc, argv,
          "tfmc: compiles a Transformer model (tfm spec, Hugging Face "
          "config.json or model folder, or a .mlir file tfmc emitted, which "
          "continues from its phase) to a shared library, or to any "
          "phase before it (--help-hidden also lists LLVM's options)\n",
          &llvm::errs()))
    return static_cast<int>(ExitCode::Usage);

  DriverOptions options = getDriverOptionsFromCL();
  // -mlir-pass-statistics where MLIR's own statistics are compiled out.
  options.passStatistics = mlir::tfm::takeOverPassStatisticsOption();
  if (options.inputPath.empty() && !options.listPipeline) {
    reportError("no model given (usage: tfmc MODEL [--emit=PHASE] [-o "
                "FILE]; see --help)");
    return static_cast<int>(ExitCode::Usage);
  }
  bool binary = options.emit == EmitPhase::Obj ||
                options.emit == EmitPhase::So || options.emit == EmitPhase::Ptx;
  if (binary && options.outputPath == "-" && options.stopAfter.empty() &&
      !options.listPipeline) {
    reportError("--emit=" + emitPhaseName(options.emit) +
                " writes a binary file: name it with -o FILE (or choose a "
                "text phase with --emit=tfm|linalg|llvm-dialect|llvm-ir|asm)");
    return static_cast<int>(ExitCode::Usage);
  }
  if (options.reportSeq < 0) {
    reportError("--report-seq must be positive");
    return static_cast<int>(ExitCode::Usage);
  }
  if (!options.passPipeline.empty() && options.emit == EmitPhase::Tfm) {
    reportError("--pass-pipeline needs a phase after tfm (--emit=linalg or "
                "later)");
    return static_cast<int>(ExitCode::Usage);
  }

  DialectRegistry registry;
  registerCompilerDialects(registry);
  MLIRContext context(registry);
  // Diagnostics name the model and the op's place in it; the op itself (or
  // the whole module) is not dumped unless asked for.
  if (!optionGiven("mlir-print-op-on-diagnostic"))
    context.printOpOnDiagnostic(false);
  ScopedDiagnosticHandler diagnostics(&context, printDiagnostic);

  if (failed(compile(context, options)))
    return static_cast<int>(ExitCode::Error);
  return static_cast<int>(ExitCode::Success);
}

} // namespace tfm
