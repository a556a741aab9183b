//===- Compile.h - a tfm module to any emitted artifact ---------*- C++ -*-===//
//
// The orchestration of a compile: the emission phases in order, the MLIR
// pass pipeline that leads to each (lib/Pipelines builds it), and the back
// half (LLVM IR, middle-end, machine code, link) from lib/Target.
//
// The pipeline runs one pass at a time (a nested pass such as
// `func.func(cse)` is its own step), so that every step can be numbered,
// dumped, timed, reported as progress and stopped after.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_COMPILER_COMPILE_H
#define TFM_COMPILER_COMPILE_H

#include "tfm/Target/SharedLibrary.h"
#include "tfm/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
class OpPassManager;
class PassManager;
class TimingScope;
} // namespace mlir

namespace tfm {

/// The phases of a compile, in pipeline order. `--emit=P` runs every phase
/// up to P and writes P's result.
enum class EmitPhase {
  Tfm,         ///< tfm dialect, the frontend's output (no pass has run)
  Linalg,      ///< linalg on tensors (the tfm-to-linalg pipeline)
  LLVMDialect, ///< the LLVM dialect (-tfm-lower-to-llvm)
  Ptx,         ///< GPU targets: one .ptx file per kernel in a folder
  LLVMIR,      ///< LLVM IR text after LLVM's middle-end optimizer
  Asm,         ///< target assembly
  Obj,         ///< relocatable object file
  So,          ///< shared library linked with the runtime, plus a C header
};

/// Every phase, in order.
llvm::ArrayRef<EmitPhase> allEmitPhases();
/// The `--emit=` spelling of a phase ("tfm", "llvm-dialect", ..., "so").
llvm::StringRef emitPhaseName(EmitPhase phase);
/// Whether the phase's result is MLIR text (tfm, linalg, llvm-dialect).
bool isMLIRPhase(EmitPhase phase);

struct CompileOptions {
  /// The CPU to compile for; the host by default.
  mlir::tfm::TargetDescription target = mlir::tfm::hostTarget();
  /// The phase the input module is at (an `--emit=tfm|linalg|llvm-dialect`
  /// output given back to tfmc): the pipeline steps up to the end of that
  /// phase are not run again.
  EmitPhase inputPhase = EmitPhase::Tfm;
  /// Set: the kernels run on this NVIDIA GPU (-tfm-lower-to-nvvm) and
  /// `target` is the host that launches them.
  std::optional<mlir::tfm::GpuTargetDescription> gpu;
  /// With `gpu`: the host build of the same kernels (-tfm-lower-to-nvvm
  /// emulate=true): a library that runs them on the CPU.
  bool gpuEmulate = false;
  /// The precision of GEMM and attention inputs: "f32", "bf16" or "f16"
  /// (the module's tfm.precision, stated when the pipeline starts;
  /// -tfm-apply-precision).
  std::string precision = "f32";
  /// LLVM middle-end optimization level (0..3).
  unsigned optLevel = 3;
  /// Weights file (safetensors) whose bytes are embedded in the library
  /// (empty: none).
  std::string embedWeights;
  /// Fuse elementwise linalg ops before bufferization.
  bool fuseElementwise = true;
  /// Raise unfused attention chains into tfm.attention
  /// (-tfm-fuse-attention). Off: every chain is lowered op by op, as the
  /// frontend wrote it (tfmc --no-fuse).
  bool fuseAttention = true;
  /// Pack contraction weights into panels once per model instance
  /// (-tfm-pack-weights; off: GEMMs read the weights as stored).
  bool packWeights = true;
  /// Heap buffers through the runtime's allocator (kept between calls);
  /// off for code that does not link the runtime (tfm-bench's kernels).
  bool runtimeAllocator = true;
  /// Linking of EmitPhase::So.
  mlir::tfm::LinkOptions link;
  /// For EmitPhase::So: the header path (default: the library path with `.h`, beside the
  /// library); `writeHeader = false` skips it.
  std::string headerPath;
  bool writeHeader = true;
  /// The runtime C ABI header copied into the model header (default: the
  /// runtime's, see RuntimeLink.h).
  std::string runtimeHeader;

  /// Replaces the built-in MLIR pipeline (textual form, with or without the
  /// `builtin.module(...)` anchor).
  std::string passPipeline;
  /// Options set on the pipeline's passes, each "PASS:OPTION=VALUE" (every
  /// step of pass PASS gets OPTION=VALUE, replacing its own value).
  std::vector<std::string> passOptions;
  /// Stop after this pass and write the IR at that point instead of the
  /// phase's result: a pass argument (its first occurrence in the
  /// pipeline) or a step number as in the dump folder.
  std::string stopAfter;
  /// Folder for the numbered per-step IR dumps (empty: none); see
  /// docs/user-guide.md.
  std::string dumpIRDir;
  /// `[i/N] step` progress lines on stderr.
  bool progress = false;

  /// Called on every pass manager before it runs, e.g. to apply MLIR's
  /// command-line instrumentation (--mlir-print-ir-after-all, ...).
  std::function<void(mlir::PassManager &)> configurePassManager;
  /// When set, pass and back-end timers nest into this scope.
  mlir::TimingScope *timing = nullptr;
  /// Called with the module before every step while it still holds tfm ops
  /// (and once more at the end if it does): the last call sees the module
  /// after every tfm-level pass, where --report reads its kernels.
  std::function<void(mlir::ModuleOp)> inspectTfmLevel;
  /// Called with the module right after -tfm-gpu-configure (GPU targets):
  /// where --report reads each GPU kernel's schedule.
  std::function<void(mlir::ModuleOp)> inspectGpuSchedules;
  /// Called with the module just before gpu-module-to-binary (GPU targets):
  /// where --report measures each kernel's registers.
  std::function<void(mlir::ModuleOp)> inspectGpuKernels;
};

/// One step of the MLIR pipeline: a single pass, wrapped in the anchors it
/// nests under (`func.func(buffer-hoisting)`).
struct PipelineStep {
  /// The pass argument, e.g. "buffer-hoisting".
  std::string pass;
  /// The step as a textual pipeline, options included, e.g.
  /// "func.func(buffer-hoisting)" or "canonicalize{max-iterations=10 ...}".
  std::string text;
};

/// Registers what the compiler's passes need in a context (every upstream
/// dialect and extension, the tfm dialect, the LLVM IR translations).
void registerCompilerDialects(mlir::DialectRegistry &registry);
/// Registers every pass and pipeline the compiler can run (upstream, tfm)
/// with the global registry, so that pipelines can be parsed. Idempotent.
void registerCompilerPasses();

/// Builds the built-in MLIR pipeline that takes a tfm module to `phase`
/// (nothing for Tfm; the tfm-to-linalg pipeline for Linalg; the LLVM
/// lowering for every later phase).
void buildCompilerPipeline(mlir::OpPassManager &pm,
                           const CompileOptions &options, EmitPhase phase);

/// The pipeline for `phase` (options.passPipeline when set) as steps,
/// without those an input at options.inputPhase already went through.
/// Errors (an unparsable pipeline, an unregistered pass) go to `error`.
mlir::FailureOr<std::vector<PipelineStep>>
getPipelineSteps(mlir::MLIRContext *context, const CompileOptions &options,
                 EmitPhase phase, std::string &error);

/// The names of the steps after the MLIR pipeline that `phase` runs
/// ("translate-to-llvm-ir", "llvm-opt", "codegen", "link"), in order.
std::vector<std::string> getBackendSteps(EmitPhase phase);

/// Lowers `module` (a tfm module, transformed in place) as far as `phase`
/// requires and writes the result to `outputPath` ("-" is stdout, except
/// for So). Errors are reported as diagnostics (on the op that failed, else
/// on the module) and return failure.
mlir::LogicalResult compileModule(mlir::ModuleOp module,
                                  const CompileOptions &options,
                                  EmitPhase phase,
                                  llvm::StringRef outputPath);

} // namespace tfm

#endif // TFM_COMPILER_COMPILE_H
