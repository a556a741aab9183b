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

struct KernelReport {
  std::string model;
  int64_t batch = 1;
  int64_t seq = 0;
  mlir::tfm::TargetDescription target;
  /// Peak FLOP/s (every thread) and memory bandwidth (bytes/s) used.
  double peakFlops = 0;
  double bandwidth = 0;
  std::vector<KernelCost> kernels;
};

/// Collects the kernels of a tfm module across the steps of a compile.
/// observe() is called with the module at every step while it holds tfm
/// ops; kernels that a tiling pass replaces by a loop nest carrying a
/// #tfm.attention_tiling (with the kernel's location) keep their costs and
/// gain the tiles, kernels that a pass fuses away are dropped.
class KernelCollector {
public:
  KernelCollector(mlir::tfm::TargetDescription target, int64_t seq)
      : target(std::move(target)), seq(seq) {}

  void observe(mlir::ModuleOp module);
  KernelReport report() const;

private:
  mlir::tfm::TargetDescription target;
  int64_t seq;
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
