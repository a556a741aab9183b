//===- Driver.h - the tfmc driver library -----------------------*- C++ -*-===//
//
// What tfmc does, as a library: load a model (frontend), lower it up to the
// requested phase (tfm/Compiler/Compile.h) and write the result, with the
// inspection tools around it (IR dumps, --list-pipeline, --report).
// tools/tfmc is a thin main over tfmcMain(); tests and other tools can call
// the pieces directly.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_COMPILER_DRIVER_H
#define TFM_COMPILER_DRIVER_H

#include "tfm/Compiler/Compile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mlir {
class MLIRContext;
class TimingScope;
enum class PassDisplayMode; // mlir/Pass/PassManager.h
} // namespace mlir

namespace tfm {

/// What --report prints.
enum class ReportFormat { None, Table, Json };

struct DriverOptions {
  /// MODEL: a tfm spec, an HF config.json, or an HF model folder.
  std::string inputPath;
  /// `-` is stdout (not for --emit=obj or so).
  std::string outputPath = "-";
  EmitPhase emit = EmitPhase::So;
  /// Unfused attention end to end: the frontend emits the unfused chain
  /// and the pipeline runs without -tfm-fuse-attention, so the chain is
  /// lowered op by op.
  bool noFuse = false;
  /// Also compile the generation step (`_mlir_ciface_step`, the session
  /// functions of the C ABI): decoders with an LM head.
  bool generation = false;
  /// GEMM weights read as stored: no -tfm-pack-weights, no prepared
  /// tensors (less memory per instance, slower GEMMs).
  bool noPackWeights = false;
  /// A safetensors file or folder to check the model against.
  std::string weightsPath;
  /// Embed the weights (from weightsPath or the model folder) in the
  /// library.
  bool embedWeights = false;
  /// "cpu" (the default) or "nvptx" (NVIDIA GPUs; the host is the CPU
  /// target below).
  std::string target = "cpu";
  /// --gpu-arch (default sm_80) and --cuda-path (default: CUDA_ROOT,
  /// CUDA_HOME, CUDA_PATH, then /usr/local/cuda when it holds ptxas).
  std::string gpuArch;
  std::string cudaPath;
  /// --gpu-emulate: the GPU kernels, run on the host (tfm-gpu-emulate).
  bool gpuEmulate = false;
  /// --precision: f32, bf16 or f16 (CompileOptions::precision).
  std::string precision = "f32";
  /// LLVM target triple and CPU; empty: the host's.
  std::string targetTriple;
  std::string targetCPU;
  /// --target-threads: hardware threads the generated code may use; 1 compiles
  /// single-threaded code (no libomp). 0: the compiling machine's, for the
  /// host and for another target alike.
  unsigned threads = 0;
  /// See CompileOptions.
  std::string passPipeline;
  std::vector<std::string> passOptions;
  std::string stopAfter;
  std::string dumpIRDir;
  /// Print the pipeline for the target and phase instead of compiling.
  bool listPipeline = false;
  /// The per-kernel report (on stdout with -o FILE, else on stderr).
  ReportFormat report = ReportFormat::None;
  /// Sequence length of the report; 0: the model's max_seq_len.
  int64_t reportSeq = 0;
  /// No progress output.
  bool quiet = false;
  /// Print the counters of tfm's passes in this layout at the end, for an
  /// LLVM whose own pass statistics are compiled out (tfmcMain sets it from
  /// -mlir-pass-statistics; see tfm/Transforms/PassStatistics.h).
  std::optional<mlir::PassDisplayMode> passStatistics;
};

/// Exit codes of tfmc.
enum class ExitCode : int {
  Success = 0,
  /// The model, its weights, a pass or the output failed; the messages say
  /// which file, field, tensor, pass or op.
  Error = 1,
  /// Bad command line.
  Usage = 2,
};

/// Loads, checks and builds the tfm module of the model, verified. Errors
/// are printed to stderr; returns null on failure. Timers nest into
/// `timing` when given; `loadedWeightsPath` receives the weights file or
/// folder that was checked (empty when there were none).
mlir::OwningOpRef<mlir::ModuleOp>
runFrontend(mlir::MLIRContext &context, const DriverOptions &options,
            mlir::TimingScope *timing = nullptr,
            std::string *loadedWeightsPath = nullptr);

/// The target that `options` asks for: the host, or the given triple and
/// CPU with the CPU's features. Errors go to `error`.
mlir::FailureOr<mlir::tfm::TargetDescription>
resolveTarget(const DriverOptions &options, std::string &error);

/// The GPU that `options` asks for (--target=nvptx, --gpu-arch,
/// --cuda-path), or none for --target=cpu. Errors go to `error`.
mlir::FailureOr<std::optional<mlir::tfm::GpuTargetDescription>>
resolveGpuTarget(const DriverOptions &options, std::string &error);

/// Runs the frontend and the phases up to `options.emit`, writing the
/// result to `options.outputPath`.
mlir::LogicalResult compile(mlir::MLIRContext &context,
                            const DriverOptions &options);

/// Registers tfmc's own command-line options. Call before parsing the
/// command line; then getDriverOptionsFromCL() reads them.
void registerDriverCLOptions();
DriverOptions getDriverOptionsFromCL();

/// The whole tool: registers options (tfmc's and MLIR's instrumentation
/// options), parses the command line, compiles. Returns an ExitCode.
int tfmcMain(int argc, char **argv);

} // namespace tfm

#endif // TFM_COMPILER_DRIVER_H
