//===- TfmToLinalg.h - tfm to linalg conversion -----------------*- C++ -*-===//
//
// Patterns that lower every tfm op except tfm.weight to linalg, tensor, arith
// and math ops on tensors (destination-passing style, f32 accumulation).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
#define TFM_CONVERSION_TFMTOLINALG_TFMTOLINALG_H

namespace mlir {
class RewritePatternSet;
namespace tfm {

/// Adds one pattern per tfm op (all but tfm.weight) that replaces the op by
/// its linalg implementation. A pattern that cannot lower its op (for example
/// a dynamic model dimension) reports why with emitOpError and fails to
/// match.
void populateTfmToLinalgConversionPatterns(RewritePatternSet &patterns);

} // namespace tfm
} // namespace mlir

#endif // TFM_CONVERSION_TFMTOLINALG_TFMTOLINALG_H
