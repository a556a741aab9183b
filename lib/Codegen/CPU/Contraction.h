//===- Contraction.h - the GEMM view of a linalg op -------------*- C++ -*-===//
//
// Shared by -tfm-cpu-configure (which decides what each op gets) and
// -tfm-tile-and-vectorize (which carries it out); classifyContraction is
// in tfm/Codegen/Common/Contraction.h.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_CPU_CONTRACTION_H
#define TFM_LIB_CODEGEN_CPU_CONTRACTION_H

#include "tfm/Codegen/Common/Contraction.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

#include <optional>
#include <string>

namespace mlir::tfm {

/// The contractions the CPU's GEMM schedule takes: classifyContraction's
/// (all f32), and those whose B is a 16-bit (bf16 or f16) tensor that the
/// payload only widens to f32 (the 16-bit panels of -tfm-pack-weights: a
/// register kernel widens each row of B it loads); none otherwise.
std::optional<GemmDims> classifyCpuContraction(linalg::LinalgOp op);

/// The width in f32 of a contraction's register tile on `target`: two
/// vectors (the rule -tfm-cpu-configure sizes `nr` by, and the panel
/// granule of -tfm-pack-weights).
int64_t registerTileWidth(CpuTargetAttr target);

/// Whether `loop` is the k loop of a vector kernel: it carries
/// accumulators, and only (fixed-length) vectors: an MR x NR register
/// kernel of -tfm-tile-and-vectorize, a dot-product kernel of
/// -tfm-cpu-lower-amx (-tfm-cpu-prefetch, -tfm-cpu-unroll-kernels).
bool isVectorKernelLoop(scf::ForOp loop);

/// Whether contraction `op` (loops `g`) is exactly
/// `C[m, n] += A[m, k] * B[n, k]`: three loops, B read with k innermost
/// (the form of a decode step's QK^T, which the dot-product kernel takes).
bool isPlainABt(linalg::LinalgOp op, const GemmDims &g);

/// Whether `op` is a fill whose one use is the init of another
/// non-contraction linalg op of its block (the accumulator of a layer
/// norm's mean, say): with threads it is not split by itself, the blocks
/// of that op fill their own slices.
bool initializesOther(linalg::LinalgOp op);

/// The part of a rank-2 `tfm.weight` that a contraction operand reads: the
/// weight itself, or a static unit-stride block of it (GPT-2's fused QKV
/// weight read as three blocks).
struct WeightBlock {
  WeightOp weight;
  int64_t offsets[2] = {0, 0};
  int64_t sizes[2] = {0, 0};

  /// Whether the block is the whole weight.
  bool whole();
  /// "" for the whole weight, else "[r0:r1,c0:c1]": appended to the weight's
  /// name in the names of prepared layouts of the block.
  std::string suffix();
  /// `weight` read again at the start of `builder`'s block, cut to the
  /// block with its dimension `dim` to its first `size` entries.
  Value read(OpBuilder &builder, Location loc, int64_t dim, int64_t size);
};

/// The weight block `v` is, if it is one (a rank-2 static weight that is
/// not a prepared tensor, or a static unit-stride rank-2 slice of one).
std::optional<WeightBlock> weightBlockOf(Value v);

/// `v`'s dimension `dim` cut to [offset, offset + size) (static size; the
/// other dimensions whole).
Value sliceN(OpBuilder &b, Location loc, Value v, int64_t dim, int64_t offset,
             int64_t size);

/// `src` written into `dest` from column `offset` of `dest`'s last
/// dimension (every other dimension whole).
Value insertN(OpBuilder &b, Location loc, Value src, Value dest,
              int64_t offset);

/// The last output columns [from, N) of contraction `op` (N its static
/// output width), written into `result`, which holds the other columns: a
/// clone of `op` on those columns of its init and of its weight input
/// `weightInput` (whose dimension `nDim` is N). Weight packings split off
/// the columns their layout does not cover this way.
Value remainderColumns(OpBuilder &b, linalg::LinalgOp op, unsigned weightInput,
                       unsigned nDim, int64_t from, Value result);

/// The operands of a contraction in the AMX form of -tfm-pack-amx:
/// `C[rows.., nb, r] += ext(A[rows.., kp, t]) * ext(Wp[nb, kp, r, t])`, A
/// and Wp bf16, C f32, loops (rows.., nb, kp, r, t), r of 16 and t of 2
/// static, one or more row loops.
struct AmxContraction {
  Value a, wp, c;
  int64_t rowDims;
};

/// `op`'s operands if it is a contraction in AMX form.
std::optional<AmxContraction> matchAmxContraction(linalg::LinalgOp op);

} // namespace mlir::tfm

#endif // TFM_LIB_CODEGEN_CPU_CONTRACTION_H
