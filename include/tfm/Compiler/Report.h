//===- Report.h - per-kernel cost report (tfmc --report) --------*- C++ -*-===//
//
// For every attention and GEMM kernel of a tfm module (tfm.attention,
// tfm.linear, tfm.matmul, tfm.ffn, tfm.lm_head) at one sequence length and
// batch 1: FLOPs, the minimum bytes moved, the tiles a tiling pass chose
// (its #tfm.attention_tiling), the fast-memory footprint against the
// target's budget, and a roofline time estimate from the target's peak
// FLOP/s and memory bandwidth (TargetDescription).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_COMPILER_REPORT_H
#define TFM_COMPILER_REPORT_H

#include "tfm/Support/Flops.h"
#include "tfm/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tfm {

/// One kernel of the report.
struct KernelCost {
  /// "tfm.attention", "tfm.linear", ...
  std::string op;
  /// Where it is in the model ("layers.0.attn"), from the op's location.
  std::string location;
  /// The problem size, e.g. {{"B", 1}, {"Hq", 4}, ...} or M/K/N.
  std::vector<std::pair<std::string, int64_t>> dims;
  /// Extra facts: the attention mask, the FFN activation.
  std::string detail;
  /// Both FLOP conventions (tfm/Support/Flops.h): `opWork` (the report's
  /// "MFLOP" column and the roofline) and `multiplyAdds` (the "mul-add
  /// MFLOP" column, tfm-bench's convention).
  flops::Flops flops;
  /// Every operand read once and the result written once.
  double bytes = 0;
  /// The tiles from a #tfm.attention_tiling ({"block_q", 64}, ...); empty:
  /// untiled.
  std::vector<std::pair<std::string, int64_t>> tiles;
  /// Bytes that must stay in fast memory at once: the tile working set
  /// when tiled, else every operand, the result and the intermediates of
  /// one batch element and head.
  int64_t footprintBytes = 0;
  /// The fast-memory budget it is compared with (the tile's own budget
  /// when tiled, else the per-core L2).
  int64_t budgetBytes = 0;
  /// max(flops / peak, bytes / bandwidth), and which one bounds it.
  double seconds = 0;
  bool computeBound = false;
};

/// One GPU kernel with a schedule (a tiled attention's CTAs,
/// -tfm-gpu-map-attention; a shared-memory GEMM or a block-per-row
/// reduction of -tfm-gpu-configure), at the report's sizes.
struct GpuKernelCost {
  /// "attention", "attention-mma" and "gemm-mma" (tensor cores), "gemm" or
  /// "row-reduce".
  std::string kind;
  /// Where it is in the model (its op's location; the kernel's name after
  /// -tfm-gpu-outline-kernels is derived from it).
  std::string location;
  /// The schedule, as its attribute prints (`#tfm.gpu_contraction<...>`).
  std::string schedule;
  /// The problem: the attention's B, Hq, Hkv, Tq, Tk, D; M, N, K and batch
  /// for a GEMM; rows and length for a reduction.
  std::vector<std::pair<std::string, int64_t>> dims;
  int64_t grid[3] = {1, 1, 1};
  int64_t threadsPerBlock = 0;
  int64_t sharedMemoryBytes = 0;
  /// The attention's FLOPs (its tfm.attention's), 2 per multiply-add
  /// (GEMM) or 1 per element folded (reduction).
  double flops = 0;
  /// Every operand read once and the result written once.
  double bytes = 0;
  double seconds = 0;
  bool computeBound = false;
};

/// What ptxas says one kernel uses (`ptxas -v`), with its launch's threads.
struct GpuKernelResources {
  std::string kernel;
  int64_t registers = 0;
  int64_t sharedMemoryBytes = 0;
  int64_t stackBytes = 0;
  int64_t spillStoreBytes = 0;
  int64_t spillLoadBytes = 0;
  /// Threads per block of its launch (0: not a constant).
  int64_t threadsPerBlock = 0;
  /// Blocks one multiprocessor holds as far as its 64 Ki registers go
  /// (registers allocated per warp in units of 256; 0 if unknown).
  int64_t blocksPerSMByRegisters = 0;
  /// The blocks per multiprocessor its schedule plans for
  /// (`tfm.blocks_per_sm`, createKernelLaunch) and the registers per thread
  /// that keep them resident (GpuTargetAttr::registerBudget); 0: no plan.
  int64_t plannedBlocksPerSM = 0;
  int64_t registerBudget = 0;
  bool overBudget() const {
    return plannedBlocksPerSM > 0 && registers > registerBudget;
  }
};

struct KernelReport {
  std::string model;
  int64_t batch = 1;
  int64_t seq = 0;
  mlir::tfm::TargetDescription target;
  /// Set for --target=nvptx: the roofline is the GPU's, and gpuKernels
  /// lists its scheduled kernels.
  std::optional<mlir::tfm::GpuTargetDescription> gpu;
  /// Peak FLOP/s (every thread, or the GPU) and memory bandwidth (bytes/s)
  /// used.
  double peakFlops = 0;
  double bandwidth = 0;
  std::vector<KernelCost> kernels;
  std::vector<GpuKernelCost> gpuKernels;
  /// Kernels of the GPU target without a schedule of their own: one
  /// thread per output element (elementwise ops, copies, small
  /// reductions), not listed one by one.
  int64_t gpuLoopKernels = 0;
  /// Whether the compile reached -tfm-gpu-configure (the kernels above are
  /// known only then).
  bool gpuScheduled = false;
  /// Every kernel's registers, shared memory, stack and spills from
  /// `ptxas -v` (with a CUDA toolkit, when the compile reached
  /// gpu-module-to-binary); otherwise empty and `gpuResourcesNote` says why.
  std::vector<GpuKernelResources> gpuResources;
  std::string gpuResourcesNote;
};

/// Collects the kernels of a tfm module across the steps of a compile.
/// observe() is called with the module at every step while it holds tfm
/// ops; kernels that a tiling pass replaces by a loop nest carrying a
/// #tfm.attention_tiling (with the kernel's location) keep their costs and
/// gain the tiles, kernels that a pass fuses away are dropped.
class KernelCollector {
public:
  KernelCollector(mlir::tfm::TargetDescription target, int64_t seq,
                  std::optional<mlir::tfm::GpuTargetDescription> gpu = {})
      : target(std::move(target)), gpu(std::move(gpu)), seq(seq) {}

  void observe(mlir::ModuleOp module);
  /// Reads the GPU kernels' schedules (the module after
  /// -tfm-gpu-configure).
  void observeGpuSchedules(mlir::ModuleOp module);
  /// Measures every kernel's resources with the toolkit's `ptxas -v` (the
  /// module just before gpu-module-to-binary: its PTX is made from a copy).
  void observeGpuKernels(mlir::ModuleOp module);
  KernelReport report() const;

private:
  /// The report's sequence length: the requested one, else the module's
  /// max_seq_len.
  void resolveSeq(mlir::ModuleOp module);

  mlir::tfm::TargetDescription target;
  std::optional<mlir::tfm::GpuTargetDescription> gpu;
  int64_t seq;
  std::vector<GpuKernelCost> gpuKernels;
  int64_t gpuLoopKernels = 0;
  bool gpuScheduled = false;
  std::vector<GpuKernelResources> gpuResources;
  std::string gpuResourcesNote =
      "not known yet (the compile stopped before gpu-module-to-binary)";
  std::string model;
  int64_t resolvedSeq = 0;
  std::vector<KernelCost> kernels;
};

/// Prints the report as an aligned table.
void printReportTable(llvm::raw_ostream &os, const KernelReport &report);
/// Prints the report as JSON (one object; docs/user-guide.md).
void printReportJson(llvm::raw_ostream &os, const KernelReport &report);

} // namespace tfm

#endif // TFM_COMPILER_REPORT_H
