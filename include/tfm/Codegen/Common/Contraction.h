//===- Contraction.h - the GEMM roles of a linalg contraction ---*- C++ -*-===//
//
// The one reading of "which loop is m, n, k" shared by the CPU schedule
// (-tfm-cpu-configure, -tfm-tile-and-vectorize, -tfm-pack-weights), the
// GPU's (-tfm-gpu-configure, -tfm-gpu-tile-contraction) and
// -tfm-apply-precision.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_CONTRACTION_H
#define TFM_CODEGEN_COMMON_CONTRACTION_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"

#include <optional>

namespace mlir::tfm {

/// The roles of the loops of a contraction: the `m`, `n`, `k` loops that
/// a GEMM kernel tiles, the operands read as A (has m) and B (has n), and
/// every other loop (batch, outer m/n/k), which kernels take one at a time.
struct GemmDims {
  unsigned m, n, k;
  unsigned a, b; // input operand numbers
  SmallVector<unsigned> unit;
};

/// The roles of `op`'s loops when it is a contraction (two inputs, one
/// output, a multiply-accumulate payload, tensors or buffers, any element
/// types) whose output's innermost dimension is an `n` dimension; none
/// otherwise.
std::optional<GemmDims> inferGemmDims(linalg::LinalgOp op);

/// inferGemmDims of a contraction on tensors whose operands and accumulator
/// are all f32: the GEMMs the CPU schedule vectorizes and the ones
/// -tfm-apply-precision rounds the inputs of; none otherwise.
std::optional<GemmDims> classifyContraction(linalg::LinalgOp op);

} // namespace mlir::tfm

#endif // TFM_CODEGEN_COMMON_CONTRACTION_H
