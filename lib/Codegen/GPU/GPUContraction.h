//===- GPUContraction.h - contractions the GPU GEMM kernel takes -*- C++ -*-===//
//
// Shared by -tfm-gpu-configure (which chooses the tiles) and
// -tfm-gpu-tile-contraction (which builds the kernel).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_GPUCONTRACTION_H
#define TFM_LIB_CODEGEN_GPU_GPUCONTRACTION_H

#include "tfm/Codegen/Common/Contraction.h"

namespace mlir::tfm {

/// The GEMM roles of `op` when the shared-memory GEMM kernel takes it: a
/// contraction on buffers (inferGemmDims) with an f32 output, float inputs
/// of at most 32 bits, projected-permutation indexing maps and no
/// reduction loop other than `k`; none otherwise.
inline std::optional<GemmDims> matchGpuContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  std::optional<GemmDims> g = inferGemmDims(op);
  if (!g)
    return std::nullopt;
  if (!getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32())
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<FloatType>(getElementTypeOrSelf(input->get().getType()));
    if (!type || type.getWidth() > 32)
      return std::nullopt;
  }
  for (AffineMap map : op.getIndexingMapsArray())
    if (!map.isProjectedPermutation())
      return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d : g->unit)
    if (iterators[d] != utils::IteratorType::parallel)
      return std::nullopt;
  return g;
}

} // namespace mlir::tfm

#endif // TFM_LIB_CODEGEN_GPU_GPUCONTRACTION_H
