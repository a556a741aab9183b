//===- TfmBuildUtils.h - scalar IR shared by tfm lowerings ------*- C++ -*-===//
//
// Scalar IR that more than one lowering of tfm ops builds: constants, f32
// widening, and the key-visibility rule of the attention masks (the rule
// tfm.attention and tfm.make_mask state in TfmOps.td). convert-tfm-to-linalg
// and -tfm-tile-sram both build their masks here, so the rule is written
// once.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_IR_TFMBUILDUTILS_H
#define TFM_IR_TFMBUILDUTILS_H

#include "tfm/IR/TfmOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Value.h"

#include <cstdint>
#include <optional>

namespace mlir::tfm {

/// An f32 `arith.constant` (the value is rounded to f32).
Value cstF32(OpBuilder &b, Location loc, double v);

/// An index `arith.constant`.
Value cstIndex(OpBuilder &b, Location loc, int64_t v);

/// Widens a scalar float to f32 (no-op for f32).
Value toF32(OpBuilder &b, Location loc, Value v);

/// An index as f32 (through i64).
Value indexToF32(OpBuilder &b, Location loc, Value v);

/// log2(e): attention scores are kept in log2 units (the softmax uses
/// exp2).
constexpr double kLog2E = 1.4426950408889634;

/// An attention bias element `bias` (any float type) as f32 in log2 units
/// (times log2(e)). A finite bias that overflows there (|bias| > FLT_MAX /
/// log2(e), e.g. a "finfo.min" padding mask) stays finite (-FLT_MAX, or
/// FLT_MAX), so a row masked that way keeps its uniform weights as without
/// the scaling; an infinite bias stays infinite.
Value buildLog2Bias(OpBuilder &b, Location loc, Value bias);

/// One (query i, key j) pair of an attention score, in index values, for
/// buildKeyVisible. `position` and `distance` are optional: a caller that has
/// already built them passes them, otherwise they are built when the mask
/// kind needs them.
struct MaskPoint {
  /// The query row i (unused when `position` is given).
  Value query;
  /// The key column j.
  Value key;
  /// Tk - Tq, so that the last query lines up with the last key (unused
  /// when `position` is given).
  Value offset;
  /// The number of valid keys of the sequence (keys j >= keyLength are
  /// padding), or null without padding.
  Value keyLength;
  /// i + offset: the query's position among the keys, or null.
  Value position;
  /// position - j, or null.
  Value distance;
};

/// Builds the i1 that is true iff key j is visible to query i under `kind`
/// (`window` is the sliding window, required for sliding_window):
///   j < keyLength                        (if keyLength is given)
///   j <= i + offset                      (causal, sliding_window)
///   (i + offset) - j < window            (sliding_window)
/// combined with arith.andi in that order. With no condition (mask none, no
/// key length) it is the constant true.
Value buildKeyVisible(OpBuilder &b, Location loc, MaskKind kind,
                      std::optional<int64_t> window, const MaskPoint &point);

/// The keys a block of query rows visits in blocks of `blockK`, by the
/// rule above: its queries sit at key positions [q0 + offset, q0 + offset +
/// rows), and keys at or past `keyLength` are padding. Keys [begin, end)
/// are visible to some row; of the blocks from `begin` on, those in
/// [fullBegin, fullEnd) are visible whole to every row (no masking), the
/// ones before and after need the mask. -tfm-tile-sram's loop nest and
/// the GPU's FlashAttention kernel both iterate so.
struct KeyBlockRange {
  Value begin, fullBegin, fullEnd, end;
};
KeyBlockRange buildKeyBlockRange(OpBuilder &b, Location loc, MaskKind kind,
                                 std::optional<int64_t> window, Value q0,
                                 Value offset, Value rows, Value keyLength,
                                 int64_t blockK);

} // namespace mlir::tfm

#endif // TFM_IR_TFMBUILDUTILS_H
