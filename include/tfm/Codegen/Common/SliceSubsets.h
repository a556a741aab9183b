//===- SliceSubsets.h - cheap subset equivalence of slices -----*- C++ -*-===//
//
// Bufferization asks, for every tensor.insert_slice, whether the value it
// inserts was extracted from the same subset of the same tensor
// (SubsetOpInterface::operatesOnEquivalentSubset), and
// -eliminate-empty-tensors asks the same along each reverse use-def chain.
// MLIR 22's answer builds a ValueBoundsConstraintSet for every pair of
// offsets, sizes and strides, even two uses of one SSA value, and decides
// it with Presburger arithmetic: a quarter of tfmc's time on a tiny LLaMA
// (perf). These models answer from the IR when it settles the question
// (the same values or equal constants in every position: equivalent; two
// different constants in one: not) and ask the constraint set otherwise.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_SLICESUBSETS_H
#define TFM_CODEGEN_COMMON_SLICESUBSETS_H

namespace mlir {
class DialectRegistry;
namespace tfm {

/// Attaches SubsetOpInterface models with that shortcut to tensor's
/// extract_slice, insert_slice and parallel_insert_slice. Call it before
/// registerAllDialects/registerAllExtensions: an op keeps the first model
/// attached for an interface, and MLIR's own would take the place.
void registerSliceSubsetModels(DialectRegistry &registry);

} // namespace tfm
} // namespace mlir

#endif // TFM_CODEGEN_COMMON_SLICESUBSETS_H
