//===- TfmVerify.h - shape checks shared by tfm verifiers -------*- C++ -*-===//
//
// Internal to dialects/tfm/IR: helpers that check ranks, dimensions and
// element types of an op's operands and results and report violations as
// `'<operand>' dim <i> (<name>) must equal <source>: expected E, found F`.
// A dynamic dimension (`?`) is compatible with anything.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_IR_TFMVERIFY_H
#define TFM_IR_TFMVERIFY_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

namespace mlir::tfm::detail {

/// True if two dimension sizes may denote the same size at run time.
inline bool dimsCompatible(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b) || a == b;
}

/// Checks the operands and results of one op. Every method emits an op error
/// naming the value, the dimension and the expected and found sizes, and
/// returns failure, when the check fails.
class ShapeVerifier {
public:
  explicit ShapeVerifier(Operation *op) : op(op) {}

  /// `type` has exactly `rank` dimensions; `layout` describes them, e.g.
  /// "[B, Hq, Tq, D]".
  LogicalResult rank(StringRef name, ShapedType type, int64_t rank,
                     StringRef layout);

  /// `type` has at least `rank` dimensions.
  LogicalResult minRank(StringRef name, ShapedType type, int64_t rank,
                        StringRef layout);

  /// Dimension `idx` of `type` (called `dimName`) is compatible with
  /// `expected`, which comes from `source` (used in the message). A dynamic
  /// `expected` accepts anything.
  LogicalResult dim(StringRef name, ShapedType type, int64_t idx,
                    StringRef dimName, int64_t expected, const Twine &source);

  /// Dimension `idx` of `type` is compatible with dimension `otherIdx` of
  /// `other` (the value called `otherName`).
  LogicalResult sameDim(StringRef name, ShapedType type, int64_t idx,
                        StringRef dimName, StringRef otherName,
                        ShapedType other, int64_t otherIdx);

  /// `type` has the element type of `ref` (the value called `refName`).
  LogicalResult elementType(StringRef name, ShapedType type, StringRef refName,
                            ShapedType ref);

  /// Every dimension of `type` is compatible with the same dimension of
  /// `ref`, and the ranks agree.
  LogicalResult sameShape(StringRef name, ShapedType type, StringRef refName,
                          ShapedType ref);

  /// An optional per-sequence operand (`offsets`, `key_lengths`): absent,
  /// or `[B]` with B dimension 0 of `ref`.
  LogicalResult perSequence(StringRef name, Value v, StringRef refName,
                            ShapedType ref);

private:
  Operation *op;
};

} // namespace mlir::tfm::detail

#endif // TFM_IR_TFMVERIFY_H
