//===- TfmToLinalg.cpp - lower tfm ops to linalg on tensors ---------------===//
//
// Every tfm op except tfm.weight becomes linalg structured ops on tensors in
// destination-passing style. Arithmetic happens in f32 whatever the element
// type of the operands; a value is narrowed to the result type once, at the
// end. Dynamic (batch, sequence) sizes are read with tensor.dim.
//
//===----------------------------------------------------------------------===//

#include "tfm/Conversion/Passes.h"
#include "tfm/Conversion/TfmToLinalg/TfmToLinalg.h"
#include "tfm/IR/TfmBuildUtils.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/DialectConversion.h"

#include <cassert>
#include <cmath>

#define DEBUG_TYPE "convert-tfm-to-linalg"

namespace mlir::tfm {
#define GEN_PASS_DEF_CONVERTTFMTOLINALGPASS
#include "tfm/Conversion/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

using utils::IteratorType;
using BodyFn = function_ref<Value(OpBuilder &, Location, ValueRange)>;

//===----------------------------------------------------------------------===//
// Scalar helpers (cstF32, cstIndex, toF32, indexToF32: tfm/IR/TfmBuildUtils.h)
//===----------------------------------------------------------------------===//

Value cstF64(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}

/// Narrows an f32 scalar to `type` (no-op for f32).
Value fromF32(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return arith::TruncFOp::create(b, loc, type, v);
}

/// An integer tensor element (i32/i64) as an index.
Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

/// An index as f64 (through i64).
Value indexToF64(OpBuilder &b, Location loc, Value v) {
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), i);
}

/// min(max(v, lo), hi) on indices.
Value clampIndex(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  Value t = arith::MaxSIOp::create(b, loc, v, lo);
  return arith::MinSIOp::create(b, loc, t, hi);
}

/// `c ? x : 0` where x = 0 must win even when x is NaN or inf.
Value selectOrZero(OpBuilder &b, Location loc, Value c, Value x) {
  return arith::SelectOp::create(b, loc, c, x, cstF32(b, loc, 0.0));
}

//===----------------------------------------------------------------------===//
// Tensor helpers
//===----------------------------------------------------------------------===//

RankedTensorType rankedType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

SmallVector<OpFoldResult> sizesOf(OpBuilder &b, Location loc, Value v) {
  return tensor::getMixedSizes(b, loc, v);
}

Value empty(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
            Type elementType) {
  return tensor::EmptyOp::create(b, loc, sizes, elementType);
}

/// An f32 tensor of `sizes` filled with `value`.
Value filledF32(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                double value) {
  Value e = empty(b, loc, sizes, b.getF32Type());
  return linalg::FillOp::create(b, loc, cstF32(b, loc, value), e)
      .getResult(0);
}

SmallVector<IteratorType> parallel(unsigned n) {
  return SmallVector<IteratorType>(n, IteratorType::parallel);
}

/// The map of an operand of type `type` read at the iteration point of a
/// `numDims`-dimensional parallel space whose trailing dimensions line up
/// with the operand's (numpy-style): a static size-1 operand dimension
/// against an iteration dimension that is not known to be 1 is broadcast.
AffineMap broadcastMap(MLIRContext *ctx, RankedTensorType type,
                       ArrayRef<OpFoldResult> iterSizes) {
  unsigned numDims = iterSizes.size();
  unsigned rank = type.getRank();
  SmallVector<AffineExpr> exprs;
  for (unsigned i = 0; i < rank; ++i) {
    unsigned d = numDims - rank + i;
    std::optional<int64_t> iterSize = getConstantIntValue(iterSizes[d]);
    if (type.getDimSize(i) == 1 && iterSize != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(d, ctx));
  }
  return AffineMap::get(numDims, 0, exprs, ctx);
}

/// A parallel linalg.generic over `sizes` producing an `elementType` tensor;
/// `body` gets the scalars of `inputs` (read through `maps`) and returns the
/// value to store.
Value elementwise(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                  Type elementType, ValueRange inputs, ArrayRef<AffineMap> maps,
                  BodyFn body) {
  Value init = empty(b, loc, sizes, elementType);
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(b.getMultiDimIdentityMap(sizes.size()));
  auto op = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, inputs, ValueRange{init}, allMaps,
      parallel(sizes.size()),
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value v = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, v);
      });
  return op.getResult(0);
}

/// Elementwise over a tensor shaped like `x`, reading `x` with the identity.
Value mapTensor(OpBuilder &b, Location loc, Value x, Type elementType,
                function_ref<Value(OpBuilder &, Location, Value)> fn) {
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
  AffineMap id = b.getMultiDimIdentityMap(sizes.size());
  return elementwise(b, loc, sizes, elementType, x, id,
                     [&](OpBuilder &nb, Location nloc, ValueRange a) {
                       return fn(nb, nloc, a[0]);
                     });
}

/// Converts a float tensor to `elementType` (no-op when it already is).
Value castElements(OpBuilder &b, Location loc, Value x, Type elementType) {
  if (rankedType(x).getElementType() == elementType)
    return x;
  return mapTensor(b, loc, x, elementType,
                   [&](OpBuilder &nb, Location nloc, Value v) {
                     return fromF32(nb, nloc, toF32(nb, nloc, v), elementType);
                   });
}

/// Sums `x` (any float type) over its last dimension into an f32 tensor of
/// rank - 1; `fn` maps each element (as f32, with the row's values from
/// `rowInputs`) before it is added.
Value reduceLast(OpBuilder &b, Location loc, Value x, ValueRange rowInputs,
                 function_ref<Value(OpBuilder &, Location, Value, ValueRange)>
                     fn) {
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
  unsigned rank = sizes.size();
  SmallVector<OpFoldResult> rowSizes(sizes.begin(), sizes.end() - 1);
  Value acc = filledF32(b, loc, rowSizes, 0.0);
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap row = id.dropResult(rank - 1);
  SmallVector<AffineMap> maps{id};
  SmallVector<Value> inputs{x};
  for (Value r : rowInputs) {
    inputs.push_back(r);
    maps.push_back(row);
  }
  maps.push_back(row);
  SmallVector<IteratorType> iters = parallel(rank - 1);
  iters.push_back(IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, inputs, ValueRange{acc}, maps,
             iters,
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value v = fn(nb, nloc, toF32(nb, nloc, args[0]),
                            args.slice(1, rowInputs.size()));
               Value s = arith::AddFOp::create(nb, nloc, args.back(), v);
               linalg::YieldOp::create(nb, nloc, s);
             })
      .getResult(0);
}

/// Gives `v` the type `type` (a tensor.cast when only static information
/// differs).
Value fitType(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

//===----------------------------------------------------------------------===//
// Activations
//===----------------------------------------------------------------------===//

/// The scalar activation `kind` of an f32 value; gated kinds use their gate
/// function (silu for swiglu, gelu for geglu).
Value activate(OpBuilder &b, Location loc, Activation kind, Value x) {
  switch (kind) {
  case Activation::relu:
    return arith::MaximumFOp::create(b, loc, x, cstF32(b, loc, 0.0));
  case Activation::gelu:
  case Activation::geglu: {
    // x/2 (1 + erf(x / sqrt 2))
    Value t = arith::MulFOp::create(b, loc, x, cstF32(b, loc, M_SQRT1_2));
    Value e = math::ErfOp::create(b, loc, t);
    Value one = arith::AddFOp::create(b, loc, e, cstF32(b, loc, 1.0));
    Value h = arith::MulFOp::create(b, loc, x, cstF32(b, loc, 0.5));
    return arith::MulFOp::create(b, loc, h, one);
  }
  case Activation::gelu_tanh: {
    // x/2 (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Value x3 = arith::MulFOp::create(
        b, loc, arith::MulFOp::create(b, loc, x, x), x);
    Value inner = arith::AddFOp::create(
        b, loc, x, arith::MulFOp::create(b, loc, x3, cstF32(b, loc, 0.044715)));
    Value t = math::TanhOp::create(
        b, loc,
        arith::MulFOp::create(b, loc, inner,
                              cstF32(b, loc, std::sqrt(2.0 / M_PI))));
    Value one = arith::AddFOp::create(b, loc, t, cstF32(b, loc, 1.0));
    Value h = arith::MulFOp::create(b, loc, x, cstF32(b, loc, 0.5));
    return arith::MulFOp::create(b, loc, h, one);
  }
  case Activation::silu:
  case Activation::swiglu: {
    // x / (1 + exp(-x))
    Value n = arith::NegFOp::create(b, loc, x);
    Value e = math::ExpOp::create(b, loc, n);
    Value d = arith::AddFOp::create(b, loc, e, cstF32(b, loc, 1.0));
    return arith::DivFOp::create(b, loc, x, d);
  }
  case Activation::tanh:
    return math::TanhOp::create(b, loc, x);
  }
  llvm_unreachable("unknown activation");
}

bool isGated(Activation kind) {
  return kind == Activation::swiglu || kind == Activation::geglu;
}

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
                           Value weight, Value bias, WeightLayout layout) {
  MLIRContext *ctx = b.getContext();
  RankedTensorType xType = rankedType(x);
  RankedTensorType wType = rankedType(weight);
  // The verifiers guarantee a rank-2 weight, an input of rank >= 1 and a
  // rank-1 bias whose sizes agree with the weight wherever both are static;
  // the lowering needs those sizes static.
  assert(wType.getRank() == 2 && xType.getRank() >= 1 &&
         "verified projection: rank-2 weight, input of rank >= 1");
  if (!wType.hasStaticShape())
    return op->emitOpError("expects a static 2-D weight, got ") << wType;
  bool outIn = layout == WeightLayout::out_in;
  int64_t in = outIn ? wType.getDimSize(1) : wType.getDimSize(0);
  int64_t out = outIn ? wType.getDimSize(0) : wType.getDimSize(1);
  if (xType.getShape().back() != in)
    return op->emitOpError("lowering needs a static input feature size (")
           << in << ", the weight's input size), got " << xType;
  if (bias) {
    RankedTensorType bType = rankedType(bias);
    if (bType.getDimSize(0) != out)
      return op->emitOpError("lowering needs a static bias size (")
             << out << ", the weight's output size), got " << bType;
  }

  unsigned rank = xType.getRank();
  SmallVector<OpFoldResult> accSizes = sizesOf(b, loc, x);
  accSizes.back() = b.getIndexAttr(out);
  Value acc;
  if (bias) {
    AffineMap cols =
        AffineMap::get(rank, 0, {getAffineDimExpr(rank - 1, ctx)}, ctx);
    acc = elementwise(b, loc, accSizes, b.getF32Type(), bias, cols,
                      [](OpBuilder &nb, Location nloc, ValueRange a) {
                        return toF32(nb, nloc, a[0]);
                      });
  } else {
    acc = filledF32(b, loc, accSizes, 0.0);
  }

  // Loops: leading..., o, i.
  SmallVector<AffineExpr> lead;
  for (unsigned d = 0; d + 1 < rank; ++d)
    lead.push_back(getAffineDimExpr(d, ctx));
  AffineExpr o = getAffineDimExpr(rank - 1, ctx);
  AffineExpr i = getAffineDimExpr(rank, ctx);
  SmallVector<AffineExpr> xe(lead), ye(lead);
  xe.push_back(i);
  ye.push_back(o);
  SmallVector<AffineMap> maps{
      AffineMap::get(rank + 1, 0, xe, ctx),
      AffineMap::get(rank + 1, 0, outIn ? ArrayRef<AffineExpr>{o, i}
                                        : ArrayRef<AffineExpr>{i, o},
                     ctx),
      AffineMap::get(rank + 1, 0, ye, ctx)};
  if (rank == 2) {
    auto mm = linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                       ValueRange{x, weight}, ValueRange{acc});
    if (outIn) {
      SmallVector<Attribute> attrs;
      for (AffineMap m : maps)
        attrs.push_back(AffineMapAttr::get(m));
      mm.setIndexingMapsAttr(b.getArrayAttr(attrs));
    }
    return mm.getResult(0);
  }
  SmallVector<IteratorType> iters = parallel(rank);
  iters.push_back(IteratorType::reduction);
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ValueRange{x, weight},
             ValueRange{acc}, maps, iters,
             [](OpBuilder &nb, Location l, ValueRange a) {
               Value p = arith::MulFOp::create(nb, l, toF32(nb, l, a[0]),
                                               toF32(nb, l, a[1]));
               linalg::YieldOp::create(
                   nb, l, Value(arith::AddFOp::create(nb, l, a[2], p)));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// ALiBi distance (the mask rule is tfm::buildKeyVisible, TfmBuildUtils.h)
//===----------------------------------------------------------------------===//

/// `|i + off - j|` as f32: the ALiBi distance.
Value alibiDistance(OpBuilder &b, Location loc, Value i, Value j, Value off) {
  Value pos = arith::AddIOp::create(b, loc, i, off);
  Value d = indexToF32(b, loc, arith::SubIOp::create(b, loc, pos, j));
  return math::AbsFOp::create(b, loc, d);
}

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

struct EmbeddingLowering : TfmLowering<EmbeddingOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(EmbeddingOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value ids = op.getIds(), table = op.getTable();
    RankedTensorType tType = rankedType(table);
    if (tType.isDynamicDim(1))
      return op.emitOpError("lowering needs a static embedding size (table "
                            "dim 1), got ")
             << tType;
    unsigned rank = rankedType(ids).getRank();
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, ids);
    sizes.push_back(b.getIndexAttr(tType.getDimSize(1)));
    AffineMap idMap = b.getMultiDimIdentityMap(rank + 1).dropResult(rank);
    Value lastRow = arith::SubIOp::create(
        b, loc, tensor::DimOp::create(b, loc, table, 0), cstIndex(b, loc, 1));
    return elementwise(
        b, loc, sizes, tType.getElementType(), ids, idMap,
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          // The runtime rejects ids outside [0, V); the clamp only keeps a
          // caller that skipped validation from reading out of bounds.
          Value row = clampIndex(nb, nloc, toIndex(nb, nloc, a[0]),
                                 cstIndex(nb, nloc, 0), lastRow);
          Value col = linalg::IndexOp::create(nb, nloc, rank);
          return tensor::ExtractOp::create(nb, nloc, table,
                                           ValueRange{row, col});
        });
  }
};

struct SinusoidalPositionLowering : TfmLowering<SinusoidalPositionOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(SinusoidalPositionOp op,
                         PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xType = rankedType(x);
    if (xType.isDynamicDim(2))
      return op.emitOpError("lowering needs a static model size (input dim "
                            "2), got ")
             << xType;
    int64_t dim = xType.getDimSize(2);
    MLIRContext *ctx = b.getContext();
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
    // table[t, d] (computed in f64: t * freq grows large).
    SmallVector<OpFoldResult> tSizes{sizes[1], sizes[2]};
    Value table = elementwise(
        b, loc, tSizes, b.getF32Type(), {}, {},
        [&](OpBuilder &nb, Location nloc, ValueRange) -> Value {
          Value t = indexToF64(nb, nloc, linalg::IndexOp::create(nb, nloc, 0));
          Value d = linalg::IndexOp::create(nb, nloc, 1);
          Value two = cstIndex(nb, nloc, 2);
          Value pair = arith::DivUIOp::create(nb, nloc, d, two);
          Value even = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::eq,
              arith::RemUIOp::create(nb, nloc, d, two), cstIndex(nb, nloc, 0));
          // freq = 10000^(-2i/D) = exp(-2i * ln(10000) / D)
          Value e = arith::MulFOp::create(
              nb, nloc, indexToF64(nb, nloc, pair),
              cstF64(nb, nloc, -2.0 * std::log(10000.0) / double(dim)));
          Value angle = arith::MulFOp::create(
              nb, nloc, t, math::ExpOp::create(nb, nloc, e));
          Value s = math::SinOp::create(nb, nloc, angle);
          Value c = math::CosOp::create(nb, nloc, angle);
          Value v = arith::SelectOp::create(nb, nloc, even, s, c);
          return arith::TruncFOp::create(nb, nloc, nb.getF32Type(), v);
        });
    AffineExpr bd, td, dd;
    bindDims(ctx, bd, td, dd);
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(3),
                                AffineMap::get(3, 0, {td, dd}, ctx)};
    Type et = xType.getElementType();
    return elementwise(b, loc, sizes, et, ValueRange{x, table}, maps,
                       [&](OpBuilder &nb, Location nloc, ValueRange a) {
                         Value s = arith::AddFOp::create(
                             nb, nloc, toF32(nb, nloc, a[0]), a[1]);
                         return fromF32(nb, nloc, s, et);
                       });
  }
};

struct LearnedPositionLowering : TfmLowering<LearnedPositionOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LearnedPositionOp op,
                         PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), table = op.getTable();
    RankedTensorType xType = rankedType(x);
    assert(xType.getRank() == 3 && rankedType(table).getRank() == 2 &&
           "verified tfm.learned_position: x [B, T, D], table [P, D]");
    MLIRContext *ctx = b.getContext();
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
    // Only the first T rows of the table take part.
    SmallVector<OpFoldResult> offsets(2, b.getIndexAttr(0));
    SmallVector<OpFoldResult> strides(2, b.getIndexAttr(1));
    SmallVector<OpFoldResult> sliceSizes{sizes[1], sizes[2]};
    Value rows = tensor::ExtractSliceOp::create(b, loc, table, offsets,
                                                sliceSizes, strides);
    AffineExpr bd, td, dd;
    bindDims(ctx, bd, td, dd);
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(3),
                                AffineMap::get(3, 0, {td, dd}, ctx)};
    Type et = xType.getElementType();
    return elementwise(b, loc, sizes, et, ValueRange{x, rows}, maps,
                       [&](OpBuilder &nb, Location nloc, ValueRange a) {
                         Value s = arith::AddFOp::create(
                             nb, nloc, toF32(nb, nloc, a[0]),
                             toF32(nb, nloc, a[1]));
                         return fromF32(nb, nloc, s, et);
                       });
  }
};

struct RopeLowering : TfmLowering<RopeOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(RopeOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xType = rankedType(x);
    if (xType.isDynamicDim(3))
      return op.emitOpError("lowering needs a static head size (input dim "
                            "3), got ")
             << xType;
    int64_t dim = xType.getDimSize(3);
    // Verified: rotary_dim is even, > 0 and <= D (D itself even when absent);
    // theta and scaling_factor are finite and > 0.
    int64_t rot = op.getRotaryDim() ? int64_t(*op.getRotaryDim()) : dim;
    assert(rot >= 0 && rot <= dim && rot % 2 == 0 &&
           "verified tfm.rope: even rotary_dim within the head size");
    int64_t half = rot / 2;
    bool interleaved = op.getStyle() == RopeStyle::interleaved;
    double theta = op.getTheta().convertToDouble();
    double scaling = op.getScalingFactor().convertToDouble();
    MLIRContext *ctx = b.getContext();
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);

    // cos/sin tables [T, D]: feature d's angle uses its pair index; features
    // at and beyond rotary_dim get cos = 1, sin = 0 (pass through).
    SmallVector<OpFoldResult> tSizes{sizes[2], sizes[3]};
    Value cosInit = empty(b, loc, tSizes, b.getF32Type());
    Value sinInit = empty(b, loc, tSizes, b.getF32Type());
    AffineMap id2 = b.getMultiDimIdentityMap(2);
    auto tables = linalg::GenericOp::create(
        b, loc, TypeRange{cosInit.getType(), sinInit.getType()}, ValueRange{},
        ValueRange{cosInit, sinInit}, SmallVector<AffineMap>{id2, id2},
        parallel(2), [&](OpBuilder &nb, Location nloc, ValueRange) {
          Value t = linalg::IndexOp::create(nb, nloc, 0);
          Value d = linalg::IndexOp::create(nb, nloc, 1);
          Value pair =
              interleaved
                  ? Value(arith::DivUIOp::create(nb, nloc, d,
                                                 cstIndex(nb, nloc, 2)))
                  : Value(arith::RemUIOp::create(nb, nloc, d,
                                                 cstIndex(nb, nloc, half)));
          // angle = (t / scaling) * theta^(-2 pair / R), in f64.
          Value pos = arith::DivFOp::create(nb, nloc, indexToF64(nb, nloc, t),
                                            cstF64(nb, nloc, scaling));
          Value e = arith::MulFOp::create(
              nb, nloc, indexToF64(nb, nloc, pair),
              cstF64(nb, nloc, -2.0 * std::log(theta) / double(rot)));
          Value angle = arith::MulFOp::create(
              nb, nloc, pos, math::ExpOp::create(nb, nloc, e));
          Value c = arith::TruncFOp::create(
              nb, nloc, nb.getF32Type(), math::CosOp::create(nb, nloc, angle));
          Value s = arith::TruncFOp::create(
              nb, nloc, nb.getF32Type(), math::SinOp::create(nb, nloc, angle));
          Value rotated = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::ult, d, cstIndex(nb, nloc, rot));
          c = arith::SelectOp::create(nb, nloc, rotated, c,
                                      cstF32(nb, nloc, 1.0));
          s = arith::SelectOp::create(nb, nloc, rotated, s,
                                      cstF32(nb, nloc, 0.0));
          linalg::YieldOp::create(nb, nloc, ValueRange{c, s});
        });
    Value cosT = tables.getResult(0), sinT = tables.getResult(1);

    AffineExpr bd, hd, td, dd;
    bindDims(ctx, bd, hd, td, dd);
    AffineMap tdMap = AffineMap::get(4, 0, {td, dd}, ctx);
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(4), tdMap, tdMap};
    Type et = xType.getElementType();
    return elementwise(
        b, loc, sizes, et, ValueRange{x, cosT, sinT}, maps,
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          Value d = linalg::IndexOp::create(nb, nloc, 3);
          Value zero = cstIndex(nb, nloc, 0);
          // The partner feature and the sign of its sin term.
          Value partner, first;
          if (interleaved) {
            Value two = cstIndex(nb, nloc, 2);
            first = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::eq,
                arith::RemUIOp::create(nb, nloc, d, two), zero);
            Value up = arith::AddIOp::create(nb, nloc, d, cstIndex(nb, nloc, 1));
            Value down =
                arith::SubIOp::create(nb, nloc, d, cstIndex(nb, nloc, 1));
            partner = arith::SelectOp::create(nb, nloc, first, up, down);
          } else {
            first = arith::CmpIOp::create(nb, nloc, arith::CmpIPredicate::ult,
                                          d, cstIndex(nb, nloc, half));
            Value up =
                arith::AddIOp::create(nb, nloc, d, cstIndex(nb, nloc, half));
            Value down =
                arith::SubIOp::create(nb, nloc, d, cstIndex(nb, nloc, half));
            partner = arith::SelectOp::create(nb, nloc, first, up, down);
          }
          Value rotated = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::ult, d, cstIndex(nb, nloc, rot));
          partner = arith::SelectOp::create(nb, nloc, rotated, partner, d);
          Value bi = linalg::IndexOp::create(nb, nloc, 0);
          Value hi = linalg::IndexOp::create(nb, nloc, 1);
          Value ti = linalg::IndexOp::create(nb, nloc, 2);
          Value xp = toF32(nb, nloc,
                           tensor::ExtractOp::create(
                               nb, nloc, x, ValueRange{bi, hi, ti, partner}));
          Value xs = toF32(nb, nloc, a[0]);
          Value sinTerm = arith::MulFOp::create(nb, nloc, xp, a[2]);
          Value negSin = arith::NegFOp::create(nb, nloc, sinTerm);
          Value rotatedTerm =
              arith::SelectOp::create(nb, nloc, first, negSin, sinTerm);
          Value r = arith::AddFOp::create(
              nb, nloc, arith::MulFOp::create(nb, nloc, xs, a[1]), rotatedTerm);
          return fromF32(nb, nloc, r, et);
        });
  }
};

/// The ALiBi slopes of Press et al. for `n` heads (the reference
/// implementation's closest-power-of-two rule).
void alibiSlopes(int64_t n, SmallVectorImpl<double> &out) {
  auto powerOfTwo = [](int64_t m, SmallVectorImpl<double> &s) {
    double start = std::exp2(-8.0 / double(m));
    for (int64_t i = 0; i < m; ++i)
      s.push_back(std::pow(start, double(i + 1)));
  };
  int64_t p = 1;
  while (p * 2 <= n)
    p *= 2;
  powerOfTwo(p, out);
  if (p == n)
    return;
  SmallVector<double> twice;
  alibiSlopes(2 * p, twice);
  for (int64_t i = 0; i < n - p; ++i)
    out.push_back(twice[2 * i]);
}

struct AlibiSlopesLowering : TfmLowering<AlibiSlopesOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(AlibiSlopesOp op, PatternRewriter &b) const override {
    RankedTensorType type = cast<RankedTensorType>(op.getResult().getType());
    assert(type.getRank() == 1 && type.hasStaticShape() &&
           type.getDimSize(0) >= 1 &&
           "verified tfm.alibi_slopes: static [H] result with H > 0");
    SmallVector<double> slopes;
    alibiSlopes(type.getDimSize(0), slopes);
    SmallVector<APFloat> values;
    for (double s : slopes) {
      APFloat v(s);
      bool lost;
      v.convert(cast<FloatType>(type.getElementType()).getFloatSemantics(),
                APFloat::rmNearestTiesToEven, &lost);
      values.push_back(v);
    }
    return Value(arith::ConstantOp::create(
        b, op.getLoc(), DenseElementsAttr::get(type, values)));
  }
};

struct LayerNormLowering : TfmLowering<LayerNormOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LayerNormOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xType = rankedType(x);
    if (xType.isDynamicDim(xType.getRank() - 1))
      return op.emitOpError("lowering needs a static normalized size (the "
                            "input's last dim), got ")
             << xType;
    unsigned rank = xType.getRank();
    double invD = 1.0 / double(xType.getShape().back());
    double eps = op.getEps().convertToDouble();
    // Two passes (mean, then centred variance) for accuracy.
    Value sum = reduceLast(b, loc, x, {},
                           [](OpBuilder &, Location, Value v, ValueRange) {
                             return v;
                           });
    Value sq = reduceLast(
        b, loc, x, sum,
        [&](OpBuilder &nb, Location nloc, Value v, ValueRange row) -> Value {
          Value mean =
              arith::MulFOp::create(nb, nloc, row[0], cstF32(nb, nloc, invD));
          Value c = arith::SubFOp::create(nb, nloc, v, mean);
          return arith::MulFOp::create(nb, nloc, c, c);
        });
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap row = id.dropResult(rank - 1);
    AffineMap last = AffineMap::get(
        rank, 0, {getAffineDimExpr(rank - 1, b.getContext())}, b.getContext());
    SmallVector<Value> inputs{x, sum, sq, op.getGamma()};
    SmallVector<AffineMap> maps{id, row, row, last};
    if (op.getBeta()) {
      inputs.push_back(op.getBeta());
      maps.push_back(last);
    }
    Type et = xType.getElementType();
    return elementwise(
        b, loc, sizesOf(b, loc, x), et, inputs, maps,
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          Value mean =
              arith::MulFOp::create(nb, nloc, a[1], cstF32(nb, nloc, invD));
          Value var =
              arith::MulFOp::create(nb, nloc, a[2], cstF32(nb, nloc, invD));
          Value inv = math::RsqrtOp::create(
              nb, nloc,
              arith::AddFOp::create(nb, nloc, var, cstF32(nb, nloc, eps)));
          Value c = arith::SubFOp::create(nb, nloc, toF32(nb, nloc, a[0]), mean);
          Value y = arith::MulFOp::create(
              nb, nloc, arith::MulFOp::create(nb, nloc, c, inv),
              toF32(nb, nloc, a[3]));
          if (a.size() > 4)
            y = arith::AddFOp::create(nb, nloc, y, toF32(nb, nloc, a[4]));
          return fromF32(nb, nloc, y, et);
        });
  }
};

struct RmsNormLowering : TfmLowering<RmsNormOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(RmsNormOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xType = rankedType(x);
    if (xType.isDynamicDim(xType.getRank() - 1))
      return op.emitOpError("lowering needs a static normalized size (the "
                            "input's last dim), got ")
             << xType;
    unsigned rank = xType.getRank();
    double invD = 1.0 / double(xType.getShape().back());
    double eps = op.getEps().convertToDouble();
    Value sq = reduceLast(b, loc, x, {},
                          [](OpBuilder &nb, Location nloc, Value v,
                             ValueRange) -> Value {
                            return arith::MulFOp::create(nb, nloc, v, v);
                          });
    AffineMap id = b.getMultiDimIdentityMap(rank);
    AffineMap row = id.dropResult(rank - 1);
    AffineMap last = AffineMap::get(
        rank, 0, {getAffineDimExpr(rank - 1, b.getContext())}, b.getContext());
    Type et = xType.getElementType();
    return elementwise(
        b, loc, sizesOf(b, loc, x), et, ValueRange{x, sq, op.getGamma()},
        {id, row, last},
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          Value ms =
              arith::MulFOp::create(nb, nloc, a[1], cstF32(nb, nloc, invD));
          Value inv = math::RsqrtOp::create(
              nb, nloc,
              arith::AddFOp::create(nb, nloc, ms, cstF32(nb, nloc, eps)));
          Value y = arith::MulFOp::create(
              nb, nloc,
              arith::MulFOp::create(nb, nloc, toF32(nb, nloc, a[0]), inv),
              toF32(nb, nloc, a[2]));
          return fromF32(nb, nloc, y, et);
        });
  }
};

struct AddLowering : TfmLowering<AddOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(AddOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value lhs = op.getLhs();
    unsigned rank = rankedType(lhs).getRank();
    AffineMap id = b.getMultiDimIdentityMap(rank);
    Type et = rankedType(lhs).getElementType();
    return elementwise(b, loc, sizesOf(b, loc, lhs), et,
                       ValueRange{lhs, op.getRhs()}, {id, id},
                       [&](OpBuilder &nb, Location nloc, ValueRange a) {
                         Value s = arith::AddFOp::create(
                             nb, nloc, toF32(nb, nloc, a[0]),
                             toF32(nb, nloc, a[1]));
                         return fromF32(nb, nloc, s, et);
                       });
  }
};

struct ScaleLowering : TfmLowering<ScaleOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(ScaleOp op, PatternRewriter &b) const override {
    double factor = op.getFactor().convertToDouble();
    Type et = rankedType(op.getInput()).getElementType();
    return mapTensor(b, op.getLoc(), op.getInput(), et,
                     [&](OpBuilder &nb, Location nloc, Value v) {
                       Value y = arith::MulFOp::create(
                           nb, nloc, toF32(nb, nloc, v),
                           cstF32(nb, nloc, factor));
                       return fromF32(nb, nloc, y, et);
                     });
  }
};

struct ActivationLowering : TfmLowering<ActivationOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(ActivationOp op, PatternRewriter &b) const override {
    Activation kind = op.getKind();
    assert(!isGated(kind) && "verified tfm.activation: not a gated kind");
    Type et = rankedType(op.getInput()).getElementType();
    return mapTensor(b, op.getLoc(), op.getInput(), et,
                     [&](OpBuilder &nb, Location nloc, Value v) {
                       Value y = activate(nb, nloc, kind, toF32(nb, nloc, v));
                       return fromF32(nb, nloc, y, et);
                     });
  }
};

struct LinearLowering : TfmLowering<LinearOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LinearOp op, PatternRewriter &b) const override {
    FailureOr<Value> y = linearF32(b, op.getLoc(), op, op.getInput(),
                                   op.getWeight(), op.getBias(), op.getLayout());
    if (failed(y))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, op.getLoc(), *y, et);
  }
};

struct MatmulLowering : TfmLowering<MatmulOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(MatmulOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value lhs = op.getLhs(), rhs = op.getRhs();
    unsigned rank = rankedType(lhs).getRank();
    assert(rank >= 2 && rankedType(rhs).getRank() == rank &&
           "verified tfm.matmul: operands of equal rank >= 2");
    bool tr = op.getTransposeRhs();
    SmallVector<OpFoldResult> lSizes = sizesOf(b, loc, lhs);
    SmallVector<OpFoldResult> rSizes = sizesOf(b, loc, rhs);
    SmallVector<OpFoldResult> outSizes(lSizes.begin(), lSizes.end() - 1);
    outSizes.push_back(tr ? rSizes[rank - 2] : rSizes[rank - 1]);
    Value acc = filledF32(b, loc, outSizes, 0.0);
    // Loops: batch..., m, n, k.
    unsigned nb = rank - 2, numLoops = rank + 1;
    SmallVector<AffineExpr> batch;
    for (unsigned i = 0; i < nb; ++i)
      batch.push_back(getAffineDimExpr(i, ctx));
    AffineExpr m = getAffineDimExpr(nb, ctx), n = getAffineDimExpr(nb + 1, ctx),
               k = getAffineDimExpr(nb + 2, ctx);
    auto mapOf = [&](AffineExpr a, AffineExpr c) {
      SmallVector<AffineExpr> e(batch);
      e.push_back(a);
      e.push_back(c);
      return AffineMap::get(numLoops, 0, e, ctx);
    };
    SmallVector<AffineMap> maps{mapOf(m, k), tr ? mapOf(n, k) : mapOf(k, n),
                                mapOf(m, n)};
    SmallVector<IteratorType> iters = parallel(rank);
    iters.push_back(IteratorType::reduction);
    Value y = linalg::GenericOp::create(
                  b, loc, TypeRange{acc.getType()}, ValueRange{lhs, rhs},
                  ValueRange{acc}, maps, iters,
                  [](OpBuilder &bb, Location l, ValueRange a) {
                    Value p = arith::MulFOp::create(bb, l, toF32(bb, l, a[0]),
                                                    toF32(bb, l, a[1]));
                    linalg::YieldOp::create(
                        bb, l, Value(arith::AddFOp::create(bb, l, a[2], p)));
                  })
                  .getResult(0);
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, loc, y, et);
  }
};

struct FfnLowering : TfmLowering<FfnOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(FfnOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Activation kind = op.getActivation();
    WeightLayout layout = op.getLayout();
    bool gated = isGated(kind);
    assert(gated == bool(op.getGateWeight()) &&
           "verified tfm.ffn: a gate weight exactly for swiglu and geglu");
    FailureOr<Value> up = linearF32(b, loc, op, op.getInput(),
                                    op.getUpWeight(), op.getUpBias(), layout);
    if (failed(up))
      return failure();
    Value hidden;
    if (gated) {
      FailureOr<Value> gate =
          linearF32(b, loc, op, op.getInput(), op.getGateWeight(),
                    op.getGateBias(), layout);
      if (failed(gate))
        return failure();
      unsigned rank = rankedType(*up).getRank();
      AffineMap id = b.getMultiDimIdentityMap(rank);
      hidden = elementwise(
          b, loc, sizesOf(b, loc, *up), b.getF32Type(), ValueRange{*gate, *up},
          {id, id}, [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
            return arith::MulFOp::create(nb, nloc,
                                         activate(nb, nloc, kind, a[0]), a[1]);
          });
    } else {
      hidden = mapTensor(b, loc, *up, b.getF32Type(),
                         [&](OpBuilder &nb, Location nloc, Value v) {
                           return activate(nb, nloc, kind, v);
                         });
    }
    FailureOr<Value> down = linearF32(b, loc, op, hidden, op.getDownWeight(),
                                      op.getDownBias(), layout);
    if (failed(down))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, loc, *down, et);
  }
};

/// Softmax of an f32 (or narrower) tensor along `axis`, as f32: a slice
/// whose entries are all -inf gives zeros.
Value softmaxF32(OpBuilder &b, Location loc, Value x, unsigned axis) {
  MLIRContext *ctx = b.getContext();
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
  unsigned rank = sizes.size();
  AffineMap id = b.getMultiDimIdentityMap(rank);
  AffineMap red = id.dropResult(axis);
  SmallVector<OpFoldResult> redSizes(sizes);
  redSizes.erase(redSizes.begin() + axis);
  SmallVector<IteratorType> iters = parallel(rank);
  iters[axis] = IteratorType::reduction;
  (void)ctx;

  Value maxInit = filledF32(b, loc, redSizes, -INFINITY);
  Value mx = linalg::GenericOp::create(
                 b, loc, TypeRange{maxInit.getType()}, ValueRange{x},
                 ValueRange{maxInit}, SmallVector<AffineMap>{id, red}, iters,
                 [](OpBuilder &nb, Location l, ValueRange a) {
                   linalg::YieldOp::create(
                       nb, l,
                       Value(arith::MaximumFOp::create(
                           nb, l, toF32(nb, l, a[0]), a[1])));
                 })
                 .getResult(0);
  // e = exp(x - max), 0 where the slice is all -inf.
  Value e = elementwise(
      b, loc, sizes, b.getF32Type(), ValueRange{x, mx}, {id, red},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value d = arith::SubFOp::create(nb, l, toF32(nb, l, a[0]), a[1]);
        Value ex = math::ExpOp::create(nb, l, d);
        Value live = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ONE,
                                           a[1], cstF32(nb, l, -INFINITY));
        return selectOrZero(nb, l, live, ex);
      });
  Value sumInit = filledF32(b, loc, redSizes, 0.0);
  Value sum = linalg::GenericOp::create(
                  b, loc, TypeRange{sumInit.getType()}, ValueRange{e},
                  ValueRange{sumInit}, SmallVector<AffineMap>{id, red}, iters,
                  [](OpBuilder &nb, Location l, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, l, Value(arith::AddFOp::create(nb, l, a[0], a[1])));
                  })
                  .getResult(0);
  return elementwise(
      b, loc, sizes, b.getF32Type(), ValueRange{e, sum}, {id, red},
      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value q = arith::DivFOp::create(nb, l, a[0], a[1]);
        Value pos = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::OGT,
                                          a[1], cstF32(nb, l, 0.0));
        return selectOrZero(nb, l, pos, q);
      });
}

struct SoftmaxLowering : TfmLowering<SoftmaxOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(SoftmaxOp op, PatternRewriter &b) const override {
    Value x = op.getInput();
    int64_t axis = static_cast<int64_t>(op.getAxis());
    assert(axis >= 0 && axis < rankedType(x).getRank() &&
           "verified tfm.softmax: axis in range");
    Value y = softmaxF32(b, op.getLoc(), x, axis);
    return castElements(b, op.getLoc(), y, rankedType(x).getElementType());
  }
};

struct AttentionLowering : TfmLowering<AttentionOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(AttentionOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
    RankedTensorType qT = rankedType(q), kT = rankedType(k), vT = rankedType(v);
    int64_t hq = qT.getDimSize(1), hkv = kT.getDimSize(1);
    int64_t d = qT.getDimSize(3), dv = vT.getDimSize(3);
    // Verified: rank-4 operands whose head counts and sizes agree where
    // static, Hkv > 0 and Hq % Hkv == 0 (when static), a positive 'window'
    // exactly for sliding_window. The lowering needs them all static.
    if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) ||
        ShapedType::isDynamic(d) || ShapedType::isDynamic(dv) ||
        kT.isDynamicDim(3) || vT.isDynamicDim(1))
      return op.emitOpError("head counts and head sizes must be static");
    assert(hkv >= 1 && hq % hkv == 0 && kT.getDimSize(3) == d &&
           vT.getDimSize(1) == hkv &&
           "verified tfm.attention: consistent static heads");
    MaskKind kind = op.getMask();
    int64_t group = hq / hkv;
    std::optional<int64_t> window;
    if (op.getWindow())
      window = static_cast<int64_t>(*op.getWindow());
    double scale = op.getScale().convertToDouble();

    SmallVector<OpFoldResult> qS = sizesOf(b, loc, q), kS = sizesOf(b, loc, k);
    OpFoldResult bsz = qS[0], tq = qS[2], tk = kS[2];
    OpFoldResult hkvA = b.getIndexAttr(hkv), gA = b.getIndexAttr(group);

    // Query heads regrouped as [B, Hkv, G, Tq, D]: head h = n * G + g reads
    // K/V head n through plain indexing maps.
    auto qgType = RankedTensorType::get(
        {qT.getDimSize(0), hkv, group, qT.getDimSize(2), d},
        qT.getElementType());
    Value qg = tensor::ExpandShapeOp::create(
        b, loc, qgType, q,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}},
        SmallVector<OpFoldResult>{bsz, hkvA, gA, tq, b.getIndexAttr(d)});

    AffineExpr eb, en, eg, ei, ej, ed;
    bindDims(ctx, eb, en, eg, ei, ej, ed);
    // scores[b,n,g,i,j] = sum_d q[b,n,g,i,d] * k[b,n,j,d]
    SmallVector<OpFoldResult> sSizes{bsz, hkvA, gA, tq, tk};
    Value sInit = filledF32(b, loc, sSizes, 0.0);
    SmallVector<AffineMap> qkMaps{
        AffineMap::get(6, 0, {eb, en, eg, ei, ed}, ctx),
        AffineMap::get(6, 0, {eb, en, ej, ed}, ctx),
        AffineMap::get(6, 0, {eb, en, eg, ei, ej}, ctx)};
    SmallVector<IteratorType> qkIters = parallel(5);
    qkIters.push_back(IteratorType::reduction);
    Value scores =
        linalg::GenericOp::create(
            b, loc, TypeRange{sInit.getType()}, ValueRange{qg, k},
            ValueRange{sInit}, qkMaps, qkIters,
            [](OpBuilder &nb, Location l, ValueRange a) {
              Value p = arith::MulFOp::create(nb, l, toF32(nb, l, a[0]),
                                              toF32(nb, l, a[1]));
              linalg::YieldOp::create(
                  nb, l, Value(arith::AddFOp::create(nb, l, a[2], p)));
            })
            .getResult(0);

    // Scale, bias, ALiBi and the structured mask in one elementwise op.
    AffineExpr sb, sn, sg, si, sj;
    bindDims(ctx, sb, sn, sg, si, sj);
    AffineExpr zero = getAffineConstantExpr(0, ctx);
    SmallVector<Value> inputs{scores};
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(5)};
    int biasIdx = -1, slopeIdx = -1, lenIdx = -1;
    if (Value bias = op.getBias()) {
      RankedTensorType bT = rankedType(bias);
      // Verified: rank 4 with dim 1 equal to Hq where static.
      if (bT.isDynamicDim(1))
        return op.emitOpError("lowering needs a static bias head dimension "
                              "(bias dim 1), got ")
               << bT;
      auto pick = [&](int64_t size, AffineExpr e) {
        return size == 1 ? zero : e;
      };
      int64_t bh = bT.getDimSize(1);
      if (bh == 1) {
        maps.push_back(AffineMap::get(
            5, 0,
            {pick(bT.getDimSize(0), sb), zero, pick(bT.getDimSize(2), si),
             pick(bT.getDimSize(3), sj)},
            ctx));
      } else {
        assert(bh == hq && "verified tfm.attention: bias dim 1 is Hq");
        SmallVector<OpFoldResult> bS = sizesOf(b, loc, bias);
        auto bgType = RankedTensorType::get(
            {bT.getDimSize(0), hkv, group, bT.getDimSize(2), bT.getDimSize(3)},
            bT.getElementType());
        bias = tensor::ExpandShapeOp::create(
            b, loc, bgType, bias,
            SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}},
            SmallVector<OpFoldResult>{bS[0], hkvA, gA, bS[2], bS[3]});
        maps.push_back(AffineMap::get(
            5, 0,
            {pick(bT.getDimSize(0), sb), sn, sg, pick(bT.getDimSize(2), si),
             pick(bT.getDimSize(3), sj)},
            ctx));
      }
      biasIdx = inputs.size();
      inputs.push_back(bias);
    }
    if (Value slopes = op.getAlibiSlopes()) {
      RankedTensorType sT = rankedType(slopes);
      // Verified: rank 1 with size Hq where static.
      if (sT.isDynamicDim(0))
        return op.emitOpError("lowering needs a static alibi_slopes size (")
               << hq << ", the query heads), got " << sT;
      slopes = tensor::ExpandShapeOp::create(
          b, loc, RankedTensorType::get({hkv, group}, sT.getElementType()),
          slopes, SmallVector<ReassociationIndices>{{0, 1}});
      slopeIdx = inputs.size();
      inputs.push_back(slopes);
      maps.push_back(AffineMap::get(5, 0, {sn, sg}, ctx));
    }
    if (Value lens = op.getKeyLengths()) {
      lenIdx = inputs.size();
      inputs.push_back(lens);
      maps.push_back(AffineMap::get(5, 0, {sb}, ctx));
    }
    Value off = arith::SubIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, tk),
        getValueOrCreateConstantIndexOp(b, loc, tq));
    Value masked = elementwise(
        b, loc, sSizes, b.getF32Type(), inputs, maps,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value s = arith::MulFOp::create(nb, l, a[0], cstF32(nb, l, scale));
          if (biasIdx >= 0)
            s = arith::AddFOp::create(nb, l, s, toF32(nb, l, a[biasIdx]));
          Value i = linalg::IndexOp::create(nb, l, 3);
          Value j = linalg::IndexOp::create(nb, l, 4);
          if (slopeIdx >= 0) {
            Value pen = arith::MulFOp::create(nb, l, toF32(nb, l, a[slopeIdx]),
                                              alibiDistance(nb, l, i, j, off));
            s = arith::SubFOp::create(nb, l, s, pen);
          }
          Value len = lenIdx >= 0 ? toIndex(nb, l, a[lenIdx]) : Value();
          if (kind == MaskKind::none && !len)
            return s;
          Value vis = buildKeyVisible(nb, l, kind, window,
                                      MaskPoint{i, j, off, len, {}, {}});
          return arith::SelectOp::create(nb, l, vis, s,
                                         cstF32(nb, l, -INFINITY));
        });

    // Row max, exponentials (0 for rows that see no key) and row sums.
    AffineMap id5 = b.getMultiDimIdentityMap(5);
    AffineMap row5 = id5.dropResult(4);
    SmallVector<IteratorType> redIters = parallel(4);
    redIters.push_back(IteratorType::reduction);
    SmallVector<OpFoldResult> rSizes{bsz, hkvA, gA, tq};
    Value mxInit = filledF32(b, loc, rSizes, -INFINITY);
    Value mx = linalg::GenericOp::create(
                   b, loc, TypeRange{mxInit.getType()}, ValueRange{masked},
                   ValueRange{mxInit}, SmallVector<AffineMap>{id5, row5},
                   redIters,
                   [](OpBuilder &nb, Location l, ValueRange a) {
                     linalg::YieldOp::create(
                         nb, l,
                         Value(arith::MaximumFOp::create(nb, l, a[0], a[1])));
                   })
                   .getResult(0);
    Value p = elementwise(
        b, loc, sSizes, b.getF32Type(), ValueRange{masked, mx}, {id5, row5},
        [](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value ex = math::ExpOp::create(
              nb, l, arith::SubFOp::create(nb, l, a[0], a[1]));
          Value live = arith::CmpFOp::create(nb, l, arith::CmpFPredicate::ONE,
                                             a[1], cstF32(nb, l, -INFINITY));
          return selectOrZero(nb, l, live, ex);
        });
    Value lInit = filledF32(b, loc, rSizes, 0.0);
    Value l = linalg::GenericOp::create(
                  b, loc, TypeRange{lInit.getType()}, ValueRange{p},
                  ValueRange{lInit}, SmallVector<AffineMap>{id5, row5},
                  redIters,
                  [](OpBuilder &nb, Location lc, ValueRange a) {
                    linalg::YieldOp::create(
                        nb, lc,
                        Value(arith::AddFOp::create(nb, lc, a[0], a[1])));
                  })
                  .getResult(0);

    // o[b,n,g,i,e] = sum_j p[b,n,g,i,j] * v[b,n,j,e]   (loops b,n,g,i,e,j)
    AffineExpr ob, on, og, oi, oe, oj;
    bindDims(ctx, ob, on, og, oi, oe, oj);
    SmallVector<OpFoldResult> oSizes{bsz, hkvA, gA, tq, b.getIndexAttr(dv)};
    Value oInit = filledF32(b, loc, oSizes, 0.0);
    SmallVector<AffineMap> pvMaps{
        AffineMap::get(6, 0, {ob, on, og, oi, oj}, ctx),
        AffineMap::get(6, 0, {ob, on, oj, oe}, ctx),
        AffineMap::get(6, 0, {ob, on, og, oi, oe}, ctx)};
    Value o = linalg::GenericOp::create(
                  b, loc, TypeRange{oInit.getType()}, ValueRange{p, v},
                  ValueRange{oInit}, pvMaps, qkIters,
                  [](OpBuilder &nb, Location lc, ValueRange a) {
                    Value m = arith::MulFOp::create(nb, lc, a[0],
                                                    toF32(nb, lc, a[1]));
                    linalg::YieldOp::create(
                        nb, lc, Value(arith::AddFOp::create(nb, lc, a[2], m)));
                  })
                  .getResult(0);

    // Normalize; a row with no visible key has l = 0 and yields 0.
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    Value out = elementwise(
        b, loc, oSizes, et, ValueRange{o, l}, {id5, row5},
        [&](OpBuilder &nb, Location lc, ValueRange a) -> Value {
          Value qv = arith::DivFOp::create(nb, lc, a[0], a[1]);
          Value pos = arith::CmpFOp::create(nb, lc, arith::CmpFPredicate::OGT,
                                            a[1], cstF32(nb, lc, 0.0));
          return fromF32(nb, lc, selectOrZero(nb, lc, pos, qv), et);
        });
    return Value(tensor::CollapseShapeOp::create(
        b, loc, out, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}));
  }
};

struct SplitHeadsLowering : TfmLowering<SplitHeadsOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(SplitHeadsOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xT = rankedType(x);
    int64_t heads = static_cast<int64_t>(op.getNumHeads());
    // Verified: rank 3, num_heads > 0 dividing H*D where static.
    if (xT.isDynamicDim(2))
      return op.emitOpError("lowering needs a static H*D (input dim 2), got ")
             << xT;
    assert(heads >= 1 && xT.getDimSize(2) % heads == 0 &&
           "verified tfm.split_heads: num_heads divides H*D");
    int64_t hd = xT.getDimSize(2) / heads;
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    auto eT = RankedTensorType::get(
        {xT.getDimSize(0), xT.getDimSize(1), heads, hd}, xT.getElementType());
    Value e = tensor::ExpandShapeOp::create(
        b, loc, eT, x, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}},
        SmallVector<OpFoldResult>{s[0], s[1], b.getIndexAttr(heads),
                                  b.getIndexAttr(hd)});
    Value init = empty(b, loc,
                       {s[0], b.getIndexAttr(heads), s[1], b.getIndexAttr(hd)},
                       xT.getElementType());
    return linalg::TransposeOp::create(b, loc, e, init,
                                       ArrayRef<int64_t>{0, 2, 1, 3})
        .getResult()[0];
  }
};

struct MergeHeadsLowering : TfmLowering<MergeHeadsOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(MergeHeadsOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xT = rankedType(x);
    if (xT.isDynamicDim(1) || xT.isDynamicDim(3))
      return op.emitOpError("lowering needs static H and D (input dims 1 and "
                            "3), got ")
             << xT;
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    Value init = empty(b, loc, {s[0], s[2], s[1], s[3]}, xT.getElementType());
    Value t = linalg::TransposeOp::create(b, loc, x, init,
                                          ArrayRef<int64_t>{0, 2, 1, 3})
                  .getResult()[0];
    return Value(tensor::CollapseShapeOp::create(
        b, loc, t, SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}}));
  }
};

struct TransposeLowering : TfmLowering<TransposeOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(TransposeOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    ArrayRef<int64_t> perm = op.getPermutation();
    assert(perm.size() == static_cast<size_t>(rankedType(x).getRank()) &&
           "verified tfm.transpose: a permutation of the input's dims");
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    SmallVector<OpFoldResult> os;
    for (int64_t p : perm)
      os.push_back(s[p]);
    Value init = empty(b, loc, os, rankedType(x).getElementType());
    return linalg::TransposeOp::create(b, loc, x, init, perm).getResult()[0];
  }
};

struct MakeMaskLowering : TfmLowering<MakeMaskOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(MakeMaskOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value scores = op.getScores();
    assert(rankedType(scores).getRank() == 4 &&
           "verified tfm.make_mask: [B, H, Tq, Tk] scores");
    // Verified: a positive 'window' exactly for sliding_window.
    MaskKind kind = op.getKind();
    std::optional<int64_t> window;
    if (op.getWindow())
      window = static_cast<int64_t>(*op.getWindow());
    SmallVector<OpFoldResult> s = sizesOf(b, loc, scores);
    Value off = arith::SubIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, s[3]),
        getValueOrCreateConstantIndexOp(b, loc, s[2]));
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    if (Value lens = op.getKeyLengths()) {
      inputs.push_back(lens);
      maps.push_back(AffineMap::get(4, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    return elementwise(
        b, loc, s, b.getI1Type(), inputs, maps,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value i = linalg::IndexOp::create(nb, l, 2);
          Value j = linalg::IndexOp::create(nb, l, 3);
          Value len = a.empty() ? Value() : toIndex(nb, l, a[0]);
          Value vis = buildKeyVisible(nb, l, kind, window,
                                      MaskPoint{i, j, off, len, {}, {}});
          Value t = arith::ConstantIntOp::create(nb, l, nb.getI1Type(), 1);
          return arith::XOrIOp::create(nb, l, vis, t);
        });
  }
};

struct MaskedFillLowering : TfmLowering<MaskedFillOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(MaskedFillOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), mask = op.getMask();
    RankedTensorType xT = rankedType(x), mT = rankedType(mask);
    assert(mT.getRank() == xT.getRank() &&
           "verified tfm.masked_fill: mask has the input's rank");
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    Type et = xT.getElementType();
    APFloat fill = op.getValue();
    bool lost;
    fill.convert(cast<FloatType>(et).getFloatSemantics(),
                 APFloat::rmNearestTiesToEven, &lost);
    AffineMap id = b.getMultiDimIdentityMap(s.size());
    return elementwise(
        b, loc, s, et, ValueRange{x, mask},
        {id, broadcastMap(b.getContext(), mT, s)},
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value f = arith::ConstantOp::create(nb, l, nb.getFloatAttr(et, fill));
          return arith::SelectOp::create(nb, l, a[1], f, a[0]);
        });
  }
};

struct AlibiBiasLowering : TfmLowering<AlibiBiasOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(AlibiBiasOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value scores = op.getScores();
    assert(rankedType(scores).getRank() == 4 &&
           "verified tfm.alibi_bias: [B, H, Tq, Tk] scores");
    SmallVector<OpFoldResult> s = sizesOf(b, loc, scores);
    Value off = arith::SubIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, s[3]),
        getValueOrCreateConstantIndexOp(b, loc, s[2]));
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return elementwise(
        b, loc, s, et, op.getSlopes(),
        AffineMap::get(4, 0, {getAffineDimExpr(1, ctx)}, ctx),
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value i = linalg::IndexOp::create(nb, l, 2);
          Value j = linalg::IndexOp::create(nb, l, 3);
          Value pen = arith::MulFOp::create(nb, l, toF32(nb, l, a[0]),
                                            alibiDistance(nb, l, i, j, off));
          return fromF32(nb, l, arith::NegFOp::create(nb, l, pen), et);
        });
  }
};

struct RepeatKvLowering : TfmLowering<RepeatKvOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(RepeatKvOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    RankedTensorType xT = rankedType(x);
    int64_t reps = static_cast<int64_t>(op.getRepeats());
    // Verified: rank 4, repeats > 0.
    assert(reps >= 1 && "verified tfm.repeat_kv: repeats > 0");
    if (xT.isDynamicDim(1))
      return op.emitOpError("lowering needs a static Hkv (input dim 1), got ")
             << xT;
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    Value init = empty(b, loc, {s[0], s[1], b.getIndexAttr(reps), s[2], s[3]},
                       xT.getElementType());
    Value bc = linalg::BroadcastOp::create(b, loc, x, init,
                                           ArrayRef<int64_t>{2})
                   .getResult()[0];
    return Value(tensor::CollapseShapeOp::create(
        b, loc, bc, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}, {4}}));
  }
};

struct LmHeadLowering : TfmLowering<LmHeadOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(LmHeadOp op, PatternRewriter &b) const override {
    FailureOr<Value> y =
        linearF32(b, op.getLoc(), op, op.getInput(), op.getWeight(),
                  op.getBias(), WeightLayout::out_in);
    if (failed(y))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, op.getLoc(), *y, et);
  }
};

struct ClassifierHeadLowering : TfmLowering<ClassifierHeadOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(ClassifierHeadOp op,
                         PatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    Value x = op.getInput();
    RankedTensorType xT = rankedType(x);
    if (xT.isDynamicDim(2))
      return op.emitOpError("lowering needs a static model size (input dim "
                            "2), got ")
             << xT;
    bool last = op.getPooling() == Pooling::last;
    SmallVector<OpFoldResult> s = sizesOf(b, loc, x);
    Value lastPos = arith::SubIOp::create(
        b, loc, getValueOrCreateConstantIndexOp(b, loc, s[1]),
        cstIndex(b, loc, 1));
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    Value lens = op.getLengths();
    if (last && lens) {
      inputs.push_back(lens);
      maps.push_back(AffineMap::get(2, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    // pooled[b, d] = x[b, pos(b), d]
    Value pooled = elementwise(
        b, loc, {s[0], s[2]}, xT.getElementType(), inputs, maps,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value bi = linalg::IndexOp::create(nb, l, 0);
          Value di = linalg::IndexOp::create(nb, l, 1);
          Value pos = cstIndex(nb, l, 0);
          if (last && !a.empty()) {
            Value p = arith::SubIOp::create(nb, l, toIndex(nb, l, a[0]),
                                            cstIndex(nb, l, 1));
            pos = clampIndex(nb, l, p, cstIndex(nb, l, 0), lastPos);
          } else if (last) {
            pos = lastPos;
          }
          return tensor::ExtractOp::create(nb, l, x, ValueRange{bi, pos, di});
        });
    if (Value pw = op.getPoolerWeight()) {
      FailureOr<Value> p = linearF32(b, loc, op, pooled, pw,
                                     op.getPoolerBias(), WeightLayout::out_in);
      if (failed(p))
        return failure();
      pooled = mapTensor(b, loc, *p, b.getF32Type(),
                         [](OpBuilder &nb, Location l, Value v) -> Value {
                           return math::TanhOp::create(nb, l, v);
                         });
    }
    FailureOr<Value> y = linearF32(b, loc, op, pooled, op.getWeight(),
                                   op.getBias(), WeightLayout::out_in);
    if (failed(y))
      return failure();
    Type et = cast<RankedTensorType>(op.getResult().getType()).getElementType();
    return castElements(b, loc, *y, et);
  }
};

//===----------------------------------------------------------------------===//
// Pass
//===----------------------------------------------------------------------===//

struct ConvertTfmToLinalgPass
    : tfm::impl::ConvertTfmToLinalgPassBase<ConvertTfmToLinalgPass> {
  using Base::Base;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addIllegalDialect<TfmDialect>();
    target.addLegalOp<WeightOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(ctx);
    populateTfmToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace

void mlir::tfm::populateTfmToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, SinusoidalPositionLowering,
               LearnedPositionLowering, RopeLowering, AlibiSlopesLowering,
               LayerNormLowering, RmsNormLowering, AddLowering, ScaleLowering,
               ActivationLowering, LinearLowering, MatmulLowering, FfnLowering,
               AttentionLowering, SplitHeadsLowering, MergeHeadsLowering,
               TransposeLowering, SoftmaxLowering, MakeMaskLowering,
               MaskedFillLowering, AlibiBiasLowering, RepeatKvLowering,
               LmHeadLowering, ClassifierHeadLowering>(patterns.getContext());
}
