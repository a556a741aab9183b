//===- LoweringUtils.h - shared pieces of the lowerings ---------*- C++ -*-===//
//
// The building blocks of the lowerings of lib/Conversion/TfmToLinalg (one
// file per op family, as dialects/tfm/IR/*Ops.cpp): scalar and tensor
// helpers, activations, the projection contraction, the ALiBi distance and
// the pattern base class. Private to this folder.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H
#define TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H

#include "tfm/IR/TfmBuildUtils.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm::lowering {

using utils::IteratorType;
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

//===----------------------------------------------------------------------===//
// Scalar helpers (cstF32, cstIndex, toF32, indexToF32: tfm/IR/TfmBuildUtils.h)
//===----------------------------------------------------------------------===//

Value cstF64(OpBuilder &b, Location loc, double v);

/// Narrows an f32 scalar to `type` (no-op for f32).
Value fromF32(OpBuilder &b, Location loc, Value v, Type type);

/// An integer tensor element (i32/i64) as an index.
Value toIndex(OpBuilder &b, Location loc, Value v);

/// An index as f64 (through i64).
Value indexToF64(OpBuilder &b, Location loc, Value v);

/// min(max(v, lo), hi) on indices.
Value clampIndex(OpBuilder &b, Location loc, Value v, Value lo, Value hi);

/// `c ? x : 0` where x = 0 must win even when x is NaN or inf.
Value selectOrZero(OpBuilder &b, Location loc, Value c, Value x);

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType rankedType(Value v);

SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value v);

Value empty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
            Type elementType);

/// An f32 tensor of `sizes` filled with `value`.
Value filledF32(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                double value);

SmallVector<IteratorType> parallel(unsigned n);

/// The map of an operand of type `type` read at the iteration point of a
/// `numDims`-dimensional parallel space whose trailing dimensions line up
/// with the operand's (numpy-style): a static size-1 operand dimension
/// against an iteration dimension that is not known to be 1 is broadcast.
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType type,
                       ArrayRef<OpFoldResult> iterSizes);

/// A parallel linalg.generic over `sizes` producing an `elementType` tensor;
/// `body` gets the scalars of `inputs` (read through `maps`) and returns the
/// value to store.
Value elementwise(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType, ValueRange inputs, ArrayRef<AffineMap> maps,
                  BodyFn body);

/// Elementwise over a tensor shaped like `x`, reading `x` with the identity.
Value mapTensor(OpBuilder &b, Location loc, Value x, Type elementType,
                function_ref<Value(OpBuilder &, Location, Value)> fn);

/// Converts a float tensor to `elementType` (no-op when it already is).
Value castElements(OpBuilder &b, Location loc, Value x, Type elementType);

/// Sums `x` (any float type) over its last dimension into a tensor of rank
/// - 1 whose elements are `accumulator` (f32 when null); `fn` maps each
/// element (as f32, or as the accumulator type when that is wider, with the
/// row's values from `rowInputs`) before it is added.
Value reduceLast(OpBuilder &b, Location loc, Value x, ValueRange rowInputs,
                 function_ref<Value(OpBuilder &, Location, Value, ValueRange)>
                     fn,
                 FloatType accumulator = nullptr);

/// Gives `v` the type `type` (a tensor.cast when only static information
/// differs).
Value fitType(OpBuilder &b, Location loc, Value v, Type type);

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// The scalar activation `kind` of an f32 value; gated kinds use their gate
/// function (silu for swiglu, gelu for geglu, gelu_tanh for geglu_tanh).
/// (mlir::tfm::isGated says which kinds are gated.)
Value activate(OpBuilder &b, Location loc, Activation kind, Value x);

//===----------------------------------------------------------------------===//
// Projections
//===----------------------------------------------------------------------===//

/// `x[..., I] . W + bias` as an f32 tensor `[..., O]`. A 2-D input is one
/// linalg.matmul; a higher-rank input is the same contraction as a
/// linalg.generic over its leading dimensions (no reshapes: a collapsed
/// dynamic batch x sequence dimension could not be expanded back on
/// buffers). An `out_in` weight is read transposed through the indexing maps,
/// never copied. The accumulator starts as the broadcast bias (or zero).
FailureOr<Value> linearF32(OpBuilder &b, Location loc, Operation *op, Value x,
                           Value weight, Value bias, WeightLayout layout);

//===----------------------------------------------------------------------===//
// ALiBi distance (the mask rule is tfm::buildKeyVisible, TfmBuildUtils.h)
//===----------------------------------------------------------------------===//

/// `|i + off - j|` as f32: the ALiBi distance.
Value alibiDistance(OpBuilder &b, Location loc, Value i, Value j, Value off);

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

/// Base class: `lower` builds the replacement value (or reports an error).
template <typename OpTy>
struct TfmLowering : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  virtual FailureOr<Value> lower(OpTy op, PatternRewriter &rewriter) const = 0;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const final {
    FailureOr<Value> v = lower(op, rewriter);
    if (failed(v))
      return failure();
    rewriter.replaceOp(
        op, fitType(rewriter, op.getLoc(), *v, op.getResult().getType()));
    return success();
  }
};

/// `acc[..] += f32(lhs[..]) * f32(rhs[..])` as one linalg.generic whose
/// operands are read through `maps` (lhs, rhs, acc) over `iters`: the
/// multiply-accumulate of every contraction that is not a plain
/// linalg.matmul (projections of rank > 2, batched matmuls, attention's
/// QK^T and PV).
Value mulAccF32(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc,
                ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iters);

/// The patterns of each op family (ParamsOps.cpp, NormOps.cpp,
/// FeedForwardOps.cpp, AttentionOps.cpp, HeadsOps.cpp).
void populateParamsLowerings(RewritePatternSet &patterns);
void populateNormLowerings(RewritePatternSet &patterns);
void populateFeedForwardLowerings(RewritePatternSet &patterns);
void populateAttentionLowerings(RewritePatternSet &patterns);
void populateHeadsLowerings(RewritePatternSet &patterns);

} // namespace mlir::tfm::lowering

#endif // TFM_LIB_CONVERSION_TFMTOLINALG_LOWERINGUTILS_H
