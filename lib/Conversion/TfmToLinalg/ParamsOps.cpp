//===- ParamsOps.cpp - embeddings, positions, RoPE to linalg --------------===//
//
// The tfm-to-linalg lowerings of the ops of dialects/tfm/IR/ParamsOps.cpp.
//
//===----------------------------------------------------------------------===//

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
using namespace mlir::tfm::lowering;

namespace {

/// The position of token `t` in a table over (b, t, ...) dims: `t`, or
/// `offsets[b] + t` when the op has offsets (`a` is the offsets element of
/// that generic, `tDim` the loop dimension of t).
Value positionOf(OpBuilder &b, Location loc, Value offset, unsigned tDim) {
  Value t = linalg::IndexOp::create(b, loc, tDim);
  if (!offset)
    return t;
  return arith::AddIOp::create(b, loc, toIndex(b, loc, offset), t);
}

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
    // table[t, d], or table[b, t, d] with offsets (computed in f64: t * freq
    // grows large).
    Value offsets = op.getOffsets();
    SmallVector<OpFoldResult> tSizes{sizes[1], sizes[2]};
    SmallVector<AffineMap> tMaps;
    if (offsets) {
      tSizes.insert(tSizes.begin(), sizes[0]);
      tMaps.push_back(AffineMap::get(3, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    unsigned tDim = offsets ? 1 : 0;
    Value table = elementwise(
        b, loc, tSizes, b.getF32Type(),
        offsets ? ValueRange{offsets} : ValueRange{}, tMaps,
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          Value t = indexToF64(
              nb, nloc, positionOf(nb, nloc, offsets ? a[0] : Value(), tDim));
          Value d = linalg::IndexOp::create(nb, nloc, tDim + 1);
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
    SmallVector<AffineMap> maps{
        b.getMultiDimIdentityMap(3),
        offsets ? b.getMultiDimIdentityMap(3)
                : AffineMap::get(3, 0, {td, dd}, ctx)};
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
    Type et = xType.getElementType();
    if (Value offsets = op.getOffsets()) {
      // Row offsets[b] + t of the table, clamped into it. Load-bearing: the
      // runtime keeps the positions of valid tokens below P, but the
      // padding columns after a sequence (a left-padded row moved to column
      // 0 by tfm_model_forward_masked) run past it; the clamp also keeps a
      // caller that skipped validation
      // from reading out of bounds.
      Value lastRow = arith::SubIOp::create(
          b, loc, tensor::DimOp::create(b, loc, table, 0), cstIndex(b, loc, 1));
      return elementwise(
          b, loc, sizes, et, ValueRange{x, offsets},
          {b.getMultiDimIdentityMap(3),
           AffineMap::get(3, 0, {getAffineDimExpr(0, ctx)}, ctx)},
          [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
            Value row = clampIndex(nb, nloc, positionOf(nb, nloc, a[1], 1),
                                   cstIndex(nb, nloc, 0), lastRow);
            Value col = linalg::IndexOp::create(nb, nloc, 2);
            Value p = tensor::ExtractOp::create(nb, nloc, table,
                                                ValueRange{row, col});
            Value s = arith::AddFOp::create(nb, nloc, toF32(nb, nloc, a[0]),
                                            toF32(nb, nloc, p));
            return fromF32(nb, nloc, s, et);
          });
    }
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
    double attentionFactor = op.getAttentionFactor().convertToDouble();
    MLIRContext *ctx = b.getContext();
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
    // Explicit frequencies (RoPE scaling): f64 constants [R/2], read by
    // pair index; LongRoPE's long set where offset + T > long_after.
    auto freqTable = [&](ArrayRef<double> freqs) -> Value {
      auto type =
          RankedTensorType::get({int64_t(freqs.size())}, b.getF64Type());
      return arith::ConstantOp::create(b, loc,
                                       DenseElementsAttr::get(type, freqs));
    };
    Value shortFreqs, longFreqs, longAfter, callTokens;
    if (std::optional<ArrayRef<double>> freqs = op.getInvFreq())
      shortFreqs = freqTable(*freqs);
    if (std::optional<ArrayRef<double>> freqs = op.getLongInvFreq()) {
      longFreqs = freqTable(*freqs);
      longAfter = cstIndex(b, loc, int64_t(*op.getLongAfter()));
      callTokens = getValueOrCreateConstantIndexOp(b, loc, sizes[2]);
    }

    // cos/sin tables [T, D], or [B, T, D] with offsets: feature d's angle
    // uses its pair index; features at and beyond rotary_dim get cos = 1,
    // sin = 0 (pass through).
    Value offsets = op.getOffsets();
    // Only LongRoPE's choice reads the rows' lengths.
    Value rowLengths = longFreqs ? op.getLengths() : Value();
    SmallVector<OpFoldResult> tSizes{sizes[2], sizes[3]};
    if (offsets)
      tSizes.insert(tSizes.begin(), sizes[0]);
    unsigned tRank = tSizes.size(), tDim = tRank - 2;
    Value cosInit = empty(b, loc, tSizes, b.getF32Type());
    Value sinInit = empty(b, loc, tSizes, b.getF32Type());
    AffineMap idT = b.getMultiDimIdentityMap(tRank);
    SmallVector<Value> tInputs;
    SmallVector<AffineMap> tMaps;
    if (offsets) {
      tInputs.push_back(offsets);
      tMaps.push_back(
          AffineMap::get(tRank, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    if (rowLengths) {
      tInputs.push_back(rowLengths);
      tMaps.push_back(
          AffineMap::get(tRank, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    tMaps.append({idT, idT});
    auto tables = linalg::GenericOp::create(
        b, loc, TypeRange{cosInit.getType(), sinInit.getType()}, tInputs,
        ValueRange{cosInit, sinInit}, tMaps, parallel(tRank),
        [&](OpBuilder &nb, Location nloc, ValueRange a) {
          Value t = positionOf(nb, nloc, offsets ? a[0] : Value(), tDim);
          Value d = linalg::IndexOp::create(nb, nloc, tDim + 1);
          Value pair =
              interleaved ? Value(arith::DivUIOp::create(nb, nloc, d,
                                                         cstIndex(nb, nloc, 2)))
                          : Value(arith::RemUIOp::create(
                                nb, nloc, d, cstIndex(nb, nloc, half)));
          Value angle;
          if (shortFreqs) {
            // angle = t * inv_freq[pair] (pass-through features of the
            // interleaved style read the last pair; their angle is unused).
            Value p = arith::MinUIOp::create(nb, nloc, pair,
                                             cstIndex(nb, nloc, half - 1));
            Value freq = tensor::ExtractOp::create(nb, nloc, shortFreqs, p);
            if (longFreqs) {
              Value end = arith::AddIOp::create(
                  nb, nloc,
                  offsets ? toIndex(nb, nloc, a[0]) : cstIndex(nb, nloc, 0),
                  rowLengths ? toIndex(nb, nloc, a[1]) : callTokens);
              Value isLong = arith::CmpIOp::create(
                  nb, nloc, arith::CmpIPredicate::ugt, end, longAfter);
              Value longFreq =
                  tensor::ExtractOp::create(nb, nloc, longFreqs, p);
              freq = arith::SelectOp::create(nb, nloc, isLong, longFreq, freq);
            }
            angle =
                arith::MulFOp::create(nb, nloc, indexToF64(nb, nloc, t), freq);
          } else {
            // angle = (t / scaling) * theta^(-2 pair / R), in f64.
            Value pos = arith::DivFOp::create(nb, nloc, indexToF64(nb, nloc, t),
                                              cstF64(nb, nloc, scaling));
            Value e = arith::MulFOp::create(
                nb, nloc, indexToF64(nb, nloc, pair),
                cstF64(nb, nloc, -2.0 * std::log(theta) / double(rot)));
            angle = arith::MulFOp::create(nb, nloc, pos,
                                          math::ExpOp::create(nb, nloc, e));
          }
          Value cosA = math::CosOp::create(nb, nloc, angle);
          Value sinA = math::SinOp::create(nb, nloc, angle);
          if (attentionFactor != 1.0) {
            Value f = cstF64(nb, nloc, attentionFactor);
            cosA = arith::MulFOp::create(nb, nloc, cosA, f);
            sinA = arith::MulFOp::create(nb, nloc, sinA, f);
          }
          Value c = arith::TruncFOp::create(nb, nloc, nb.getF32Type(), cosA);
          Value s = arith::TruncFOp::create(nb, nloc, nb.getF32Type(), sinA);
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
    AffineMap tdMap = offsets ? AffineMap::get(4, 0, {bd, td, dd}, ctx)
                              : AffineMap::get(4, 0, {td, dd}, ctx);
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

/// Patches as the rows of one GEMM: pixels [B, C, H, W] viewed as
/// [B, C, H/P, P, W/P, P], transposed to [B, H/P, W/P, C, P, P] and
/// collapsed to [B, N, C P P]; the weight [D, C, P, P] collapsed to
/// [D, C P P] is then an out_in projection.
struct PatchEmbedLowering : TfmLowering<PatchEmbedOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(PatchEmbedOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value pixels = op.getPixels(), weight = op.getWeight();
    RankedTensorType pType = rankedType(pixels), wType = rankedType(weight);
    // Verified: static C, H, W and square P dividing them.
    int64_t c = pType.getDimSize(1), h = pType.getDimSize(2),
            w = pType.getDimSize(3), p = wType.getDimSize(2),
            d = wType.getDimSize(0);
    int64_t hp = h / p, wp = w / p, k = c * p * p;
    Type et = pType.getElementType();
    Value batch = tensor::DimOp::create(b, loc, pixels, 0);
    auto dyn = ShapedType::kDynamic;
    Value grid = tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({dyn, c, hp, p, wp, p}, et), pixels,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}, {4, 5}},
        SmallVector<OpFoldResult>{batch, b.getIndexAttr(c), b.getIndexAttr(hp),
                                  b.getIndexAttr(p), b.getIndexAttr(wp),
                                  b.getIndexAttr(p)});
    Value init =
        empty(b, loc,
              {batch, b.getIndexAttr(hp), b.getIndexAttr(wp), b.getIndexAttr(c),
               b.getIndexAttr(p), b.getIndexAttr(p)},
              et);
    Value patches = linalg::TransposeOp::create(
                        b, loc, grid, init, ArrayRef<int64_t>{0, 2, 4, 1, 3, 5})
                        .getResult()[0];
    Value rows = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({dyn, hp * wp, k}, et), patches,
        SmallVector<ReassociationIndices>{{0}, {1, 2}, {3, 4, 5}});
    Value flatWeight = tensor::CollapseShapeOp::create(
        b, loc, RankedTensorType::get({d, k}, wType.getElementType()), weight,
        SmallVector<ReassociationIndices>{{0}, {1, 2, 3}});
    FailureOr<Value> y = linearF32(b, loc, op, rows, flatWeight, op.getBias(),
                                   WeightLayout::out_in);
    if (failed(y))
      return failure();
    return castElements(b, loc, *y,
                        rankedType(op.getResult()).getElementType());
  }
};

/// The token broadcast to [B, 1, D] at row 0, the input at rows 1...
struct PrependTokenLowering : TfmLowering<PrependTokenOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(PrependTokenOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput(), token = op.getToken();
    RankedTensorType xType = rankedType(x);
    Type et = xType.getElementType();
    SmallVector<OpFoldResult> sizes = sizesOf(b, loc, x);
    OpFoldResult rowsPlusOne =
        xType.isDynamicDim(1)
            ? OpFoldResult(arith::AddIOp::create(
                  b, loc, getValueOrCreateConstantIndexOp(b, loc, sizes[1]),
                  cstIndex(b, loc, 1)))
            : OpFoldResult(b.getIndexAttr(xType.getDimSize(1) + 1));
    Value init = empty(b, loc, {sizes[0], rowsPlusOne, sizes[2]}, et);
    MLIRContext *ctx = b.getContext();
    Value first = elementwise(
        b, loc, {sizes[0], b.getIndexAttr(1), sizes[2]}, et, token,
        AffineMap::get(3, 0, {getAffineDimExpr(2, ctx)}, ctx),
        [&](OpBuilder &nb, Location nloc, ValueRange a) { return a[0]; });
    SmallVector<OpFoldResult> zeros(3, b.getIndexAttr(0));
    SmallVector<OpFoldResult> ones(3, b.getIndexAttr(1));
    Value withToken = tensor::InsertSliceOp::create(
        b, loc, first, init, zeros,
        SmallVector<OpFoldResult>{sizes[0], b.getIndexAttr(1), sizes[2]}, ones);
    SmallVector<OpFoldResult> after{b.getIndexAttr(0), b.getIndexAttr(1),
                                    b.getIndexAttr(0)};
    return Value(tensor::InsertSliceOp::create(b, loc, x, withToken, after,
                                               sizes, ones));
  }
};

struct RelativePositionBiasLowering : TfmLowering<RelativePositionBiasOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(RelativePositionBiasOp op,
                         PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value table = op.getTable();
    RankedTensorType tType = rankedType(table);
    int64_t buckets = tType.getDimSize(0), heads = tType.getDimSize(1);
    if (tType.isDynamicDim(1))
      return op.emitOpError("lowering needs a static head count (table dim "
                            "1), got ")
             << tType;
    bool bidirectional = op.getBidirectional();
    // Verified: n / 2 >= 1 exact buckets and max_distance beyond them.
    int64_t n = bidirectional ? buckets / 2 : buckets, exact = n / 2;
    double logRange = std::log(double(op.getMaxDistance()) / double(exact));
    Value offsets = op.getOffsets();
    SmallVector<OpFoldResult> sizes{op.getBatch(), b.getIndexAttr(heads),
                                    op.getQueries(), op.getKeys()};
    MLIRContext *ctx = b.getContext();
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    if (offsets) {
      inputs.push_back(offsets);
      maps.push_back(AffineMap::get(4, 0, {getAffineDimExpr(0, ctx)}, ctx));
    }
    Value shift; // Tk - Tq without offsets
    if (!offsets)
      shift = arith::SubIOp::create(b, loc, op.getKeys(), op.getQueries());
    Type i64 = b.getI64Type();
    return elementwise(
        b, loc, sizes, tType.getElementType(), inputs, maps,
        [&](OpBuilder &nb, Location nloc, ValueRange a) -> Value {
          auto cst = [&](int64_t v) {
            return arith::ConstantIntOp::create(nb, nloc, v, 64);
          };
          Value h = linalg::IndexOp::create(nb, nloc, 1);
          Value i = linalg::IndexOp::create(nb, nloc, 2);
          Value j = linalg::IndexOp::create(nb, nloc, 3);
          Value p = arith::AddIOp::create(
              nb, nloc, i, offsets ? toIndex(nb, nloc, a[0]) : shift);
          // r = j - p, signed.
          Value r = arith::SubIOp::create(
              nb, nloc, arith::IndexCastOp::create(nb, nloc, i64, j),
              arith::IndexCastOp::create(nb, nloc, i64, p));
          Value zero = cst(0), base = zero;
          if (bidirectional) {
            Value later = arith::CmpIOp::create(
                nb, nloc, arith::CmpIPredicate::sgt, r, zero);
            base = arith::SelectOp::create(nb, nloc, later, cst(n), zero);
            r = math::AbsIOp::create(nb, nloc, r);
          } else {
            r = arith::MaxSIOp::create(
                nb, nloc, arith::SubIOp::create(nb, nloc, zero, r), zero);
          }
          // Log-spaced buckets past the exact ones, in f64 (ln of r >= 1).
          Value rf = arith::SIToFPOp::create(
              nb, nloc, nb.getF64Type(),
              arith::MaxSIOp::create(nb, nloc, r, cst(1)));
          Value ratio = math::LogOp::create(
              nb, nloc,
              arith::DivFOp::create(nb, nloc, rf,
                                    cstF64(nb, nloc, double(exact))));
          // In transformers' order: ln(r / e) / ln(max / e) * (n - e), so
          // that distances on a bucket boundary (r = 16 of T5's encoder)
          // land on it exactly instead of one ulp below.
          Value scaled = arith::MulFOp::create(
              nb, nloc,
              arith::DivFOp::create(nb, nloc, ratio,
                                    cstF64(nb, nloc, logRange)),
              cstF64(nb, nloc, double(n - exact)));
          Value large = arith::AddIOp::create(
              nb, nloc, cst(exact),
              arith::FPToSIOp::create(
                  nb, nloc, i64,
                  arith::MaximumFOp::create(nb, nloc, scaled,
                                            cstF64(nb, nloc, 0.0))));
          large = arith::MinSIOp::create(nb, nloc, large, cst(n - 1));
          Value small = arith::CmpIOp::create(
              nb, nloc, arith::CmpIPredicate::slt, r, cst(exact));
          Value bucket = arith::AddIOp::create(
              nb, nloc, base,
              arith::SelectOp::create(nb, nloc, small, r, large));
          Value row =
              arith::IndexCastOp::create(nb, nloc, nb.getIndexType(), bucket);
          return tensor::ExtractOp::create(nb, nloc, table, ValueRange{row, h});
        });
  }
};

} // namespace

void mlir::tfm::lowering::populateParamsLowerings(RewritePatternSet &patterns) {
  patterns.add<EmbeddingLowering, SinusoidalPositionLowering,
               LearnedPositionLowering, RopeLowering, AlibiSlopesLowering,
               RelativePositionBiasLowering, PatchEmbedLowering,
               PrependTokenLowering>(patterns.getContext());
}
