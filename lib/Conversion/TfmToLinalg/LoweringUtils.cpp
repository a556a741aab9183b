//===- LoweringUtils.cpp - shared pieces of the lowerings -----------------===//

#include "LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

namespace mlir::tfm::lowering {

Value cstF64(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(v));
}

Value fromF32(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return arith::TruncFOp::create(b, loc, type, v);
}

Value toIndex(OpBuilder &b, Location loc, Value v) {
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value indexToF64(OpBuilder &b, Location loc, Value v) {
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::SIToFPOp::create(b, loc, b.getF64Type(), i);
}

Value clampIndex(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  Value t = arith::MaxSIOp::create(b, loc, v, lo);
  return arith::MinSIOp::create(b, loc, t, hi);
}

Value selectOrZero(OpBuilder &b, Location loc, Value c, Value x) {
  return arith::SelectOp::create(b, loc, c, x, cstF32(b, loc, 0.0));
}

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

Value filledF32(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes,
                double value) {
  Value e = empty(b, loc, sizes, b.getF32Type());
  return linalg::FillOp::create(b, loc, cstF32(b, loc, value), e)
      .getResult(0);
}

SmallVector<IteratorType> parallel(unsigned n) {
  return SmallVector<IteratorType>(n, IteratorType::parallel);
}

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

Value mapTensor(OpBuilder &b, Location loc, Value x, Type elementType,
                function_ref<Value(OpBuilder &, Location, Value)> fn) {
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
  AffineMap id = b.getMultiDimIdentityMap(sizes.size());
  return elementwise(b, loc, sizes, elementType, x, id,
                     [&](OpBuilder &nb, Location nloc, ValueRange a) {
                       return fn(nb, nloc, a[0]);
                     });
}

Value castElements(OpBuilder &b, Location loc, Value x, Type elementType) {
  if (rankedType(x).getElementType() == elementType)
    return x;
  return mapTensor(b, loc, x, elementType,
                   [&](OpBuilder &nb, Location nloc, Value v) {
                     return fromF32(nb, nloc, toF32(nb, nloc, v), elementType);
                   });
}

Value reduceLast(OpBuilder &b, Location loc, Value x, ValueRange rowInputs,
                 function_ref<Value(OpBuilder &, Location, Value, ValueRange)>
                     fn,
                 FloatType accumulator) {
  SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
  unsigned rank = sizes.size();
  SmallVector<OpFoldResult> rowSizes(sizes.begin(), sizes.end() - 1);
  if (!accumulator)
    accumulator = b.getF32Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(accumulator, 0.0));
  Value acc = linalg::FillOp::create(
                  b, loc, zero, empty(b, loc, rowSizes, accumulator))
                  .getResult(0);
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
               Value v = toF32(nb, nloc, args[0]);
               if (accumulator.getWidth() > 32)
                 v = arith::ExtFOp::create(nb, nloc, accumulator, v);
               v = fn(nb, nloc, v, args.slice(1, rowInputs.size()));
               Value s = arith::AddFOp::create(nb, nloc, args.back(), v);
               linalg::YieldOp::create(nb, nloc, s);
             })
      .getResult(0);
}

Value fitType(OpBuilder &b, Location loc, Value v, Type type) {
  if (v.getType() == type)
    return v;
  return tensor::CastOp::create(b, loc, type, v);
}

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
  case Activation::gelu_tanh:
  case Activation::geglu_tanh: {
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

  // One token per sequence ([B, 1, D], a decode step): the sequences are
  // the rows of one rank-2 GEMM, which reads the weight once for all of
  // them, not once per sequence as the batch loop of the rank-3 form would.
  if (rank > 2 && llvm::all_of(xType.getShape().slice(1, rank - 2),
                               [](int64_t d) { return d == 1; })) {
    SmallVector<ReassociationIndices> rows(2);
    for (unsigned d = 0; d + 1 < rank; ++d)
      rows[0].push_back(d);
    rows[1].push_back(rank - 1);
    Value flat = tensor::CollapseShapeOp::create(b, loc, x, rows);
    FailureOr<Value> y = linearF32(b, loc, op, flat, weight, bias, layout);
    if (failed(y))
      return failure();
    SmallVector<int64_t> shape(xType.getShape());
    shape.back() = out;
    return Value(tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get(shape, b.getF32Type()), *y, rows,
        accSizes));
  }
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
  return mulAccF32(b, loc, x, weight, acc, maps, iters);
}

Value mulAccF32(OpBuilder &b, Location loc, Value lhs, Value rhs, Value acc,
                ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iters) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{acc.getType()}, ValueRange{lhs, rhs},
             ValueRange{acc}, maps, iters,
             [](OpBuilder &nb, Location l, ValueRange a) {
               Value p = arith::MulFOp::create(nb, l, toF32(nb, l, a[0]),
                                               toF32(nb, l, a[1]));
               linalg::YieldOp::create(
                   nb, l, Value(arith::AddFOp::create(nb, l, a[2], p)));
             })
      .getResult(0);
}

Value alibiDistance(OpBuilder &b, Location loc, Value i, Value j, Value off) {
  Value pos = arith::AddIOp::create(b, loc, i, off);
  Value d = indexToF32(b, loc, arith::SubIOp::create(b, loc, pos, j));
  return math::AbsFOp::create(b, loc, d);
}

} // namespace mlir::tfm::lowering
