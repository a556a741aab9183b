//===- AttentionShape.h - what attention tiling knows of an op --*- C++ -*-===//
//
// Shared by -tfm-configure-attention (which chooses tiles from it) and
// -tfm-tile-sram (which builds the loop nest for them).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_COMMON_ATTENTIONSHAPE_H
#define TFM_LIB_CODEGEN_COMMON_ATTENTIONSHAPE_H

#include "tfm/IR/TfmOps.h"

#include <cstdint>
#include <optional>

namespace mlir::tfm {

/// The static facts of one attention op that tiling depends on.
struct AttentionShape {
  int64_t group;     // G = Hq / Hkv
  int64_t headDim;   // D
  int64_t valueDim;  // Dv
  int64_t biasBytes; // bytes of a bias element, 0 without bias
  int64_t staticTq;  // Tq, or ShapedType::kDynamic
  int64_t staticTk;  // Tk, or ShapedType::kDynamic
  /// Whether -tfm-apply-precision rounds the contraction inputs (a 16-bit
  /// tfm.precision): P and the K/V blocks then have rounded copies.
  bool roundedInputs = false;
};

/// The shape of `op`, or an error on it (dynamic head counts or sizes,
/// query heads not a multiple of K/V heads).
FailureOr<AttentionShape> analyzeAttention(AttentionOp op);

/// Bytes of the working set of one query block while it visits one key
/// block (Passes.td, -tfm-configure-attention, gives the formula).
int64_t attentionFootprintBytes(const AttentionShape &s, int64_t blockQ,
                                int64_t blockK);

struct AttentionTiles {
  int64_t blockQ, blockK, footprint;
};

/// The largest score tile whose footprint fits `budget`, with the key
/// block a multiple of `lanes` and blocks at most `maxBlockQ` /
/// `maxBlockK` (and the static sequence lengths); none if even block_q =
/// 1, block_k = lanes does not fit. Ties: with `squareTies` (a CPU's f32
/// kernels) the squarer score tile (`G * block_q` rows against `block_k`:
/// rows per K/V block read against keys per online-softmax step), then
/// the larger query block (more reuse of each K/V block).
std::optional<AttentionTiles>
chooseAttentionTiles(const AttentionShape &s, int64_t budget, int64_t lanes,
                     int64_t maxBlockQ, int64_t maxBlockK,
                     bool squareTies = false);

} // namespace mlir::tfm

#endif // TFM_LIB_CODEGEN_COMMON_ATTENTIONSHAPE_H
