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

#include <optional>

namespace mlir::tfm {

/// The width in f32 of a contraction's register tile on `target`: two
/// vectors (the rule -tfm-cpu-configure sizes `nr` by, and the panel
/// granule of -tfm-pack-weights).
int64_t registerTileWidth(CpuTargetAttr target);

/// Whether `op` is a fill whose one use is the init of another
/// non-contraction linalg op of its block (the accumulator of a layer
/// norm's mean, say): with threads it is not split by itself, the blocks
/// of that op fill their own slices.
bool initializesOther(linalg::LinalgOp op);

} // namespace mlir::tfm

#endif // TFM_LIB_CODEGEN_CPU_CONTRACTION_H
