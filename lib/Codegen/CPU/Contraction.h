//===- Contraction.h - the GEMM view of a linalg op -------------*- C++ -*-===//
//
// Shared by -tfm-cpu-configure (which decides what each op gets) and
// -tfm-tile-and-vectorize (which carries it out).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_CPU_CONTRACTION_H
#define TFM_LIB_CODEGEN_CPU_CONTRACTION_H

#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::tfm {

/// The roles of the loops of a contraction: the `m`, `n`, `k` loops that
/// the kernel vectorizes, the operands read as A (has m) and B (has n), and
/// every other loop (batch, outer m/n/k), which is tiled by 1.
struct GemmDims {
  unsigned m, n, k;
  unsigned a, b; // input operand numbers
  SmallVector<unsigned> unit;
};

/// The width in f32 of a contraction's register tile on `target`: two
/// vectors (the rule -tfm-cpu-configure sizes `nr` by, and the panel
/// granule of -tfm-pack-weights).
int64_t registerTileWidth(CpuTargetAttr target);

/// The roles of `op`'s loops if the GEMM schedule takes it: a contraction
/// on tensors with f32 operands and accumulator whose output's innermost
/// dimension is an `n` dimension; none otherwise.
std::optional<GemmDims> classifyContraction(linalg::LinalgOp op);

/// Whether `op` is a fill whose one use is the init of another
/// non-contraction linalg op of its block (the accumulator of a layer
/// norm's mean, say): with threads it is not split by itself, the blocks
/// of that op fill their own slices.
bool initializesOther(linalg::LinalgOp op);

} // namespace mlir::tfm

#endif // TFM_LIB_CODEGEN_CPU_CONTRACTION_H
