//===- AttentionOps.cpp - attention, softmax, masks to linalg -------------===//
//
// The tfm-to-linalg lowerings of the ops of dialects/tfm/IR/AttentionOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"

#include "tfm/IR/TfmAttrNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cassert>
#include <cmath>

using namespace mlir;
using namespace mlir::tfm;
using namespace mlir::tfm::lowering;

namespace {

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
    Value scores = mulAccF32(b, loc, qg, k, sInit, qkMaps, qkIters);

    // Scale, bias, ALiBi and the structured mask in one elementwise op.
    AffineExpr sb, sn, sg, si, sj;
    bindDims(ctx, sb, sn, sg, si, sj);
    AffineExpr zero = getAffineConstantExpr(0, ctx);
    SmallVector<Value> inputs{scores};
    SmallVector<AffineMap> maps{b.getMultiDimIdentityMap(5)};
    int biasIdx = -1, slopeIdx = -1, lenIdx = -1, offIdx = -1;
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
    // Query i sits at key position i + off: off = Tk - Tq, or offsets[b].
    Value tkMinusTq;
    if (Value offsets = op.getOffsets()) {
      offIdx = inputs.size();
      inputs.push_back(offsets);
      maps.push_back(AffineMap::get(5, 0, {sb}, ctx));
    } else {
      tkMinusTq = arith::SubIOp::create(
          b, loc, getValueOrCreateConstantIndexOp(b, loc, tk),
          getValueOrCreateConstantIndexOp(b, loc, tq));
    }
    Value masked = elementwise(
        b, loc, sSizes, b.getF32Type(), inputs, maps,
        [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
          Value off = offIdx >= 0 ? toIndex(nb, l, a[offIdx]) : tkMinusTq;
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
    Value o = mulAccF32(b, loc, p, v, oInit, pvMaps, qkIters);

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

/// One scf.for over the sequences: sequence b's first lengths[b] rows of the
/// update go into its cache slice at offsets[b], clamped into the cache.
/// Each iteration inserts into the loop-carried cache, which bufferization
/// turns into a copy into the cache's buffer in place (the generation step
/// passes the caller's cache). The loop is marked
/// tfm.independent_iterations: on a GPU, -tfm-gpu-cache-append runs its
/// copies as one kernel.
struct CacheAppendLowering : TfmLowering<CacheAppendOp> {
  using TfmLowering::TfmLowering;
  FailureOr<Value> lower(CacheAppendOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value update = op.getUpdate(), cache = op.getCache();
    RankedTensorType uT = rankedType(update), cT = rankedType(cache);
    ArrayRef<int64_t> index = op.getIndex();
    int64_t k = static_cast<int64_t>(index.size()), rank = cT.getRank();
    SmallVector<OpFoldResult> cS = sizesOf(b, loc, cache);
    SmallVector<OpFoldResult> uS = sizesOf(b, loc, update);
    Value c0 = cstIndex(b, loc, 0), c1 = cstIndex(b, loc, 1);
    Value bsz = getValueOrCreateConstantIndexOp(b, loc, cS[0]);
    Value capacity = getValueOrCreateConstantIndexOp(b, loc, cS[2 + k]);
    Value rows = getValueOrCreateConstantIndexOp(b, loc, uS[2]);
    Value offsets = op.getOffsets(), lengths = op.getLengths();
    auto loop = scf::ForOp::create(
        b, loc, c0, bsz, c1, ValueRange{cache},
        [&](OpBuilder &nb, Location l, Value seq, ValueRange iter) {
          auto read = [&](Value t) {
            return toIndex(
                nb, l, tensor::ExtractOp::create(nb, l, t, ValueRange{seq}));
          };
          Value off = clampIndex(nb, l, read(offsets), c0, capacity);
          Value room = arith::SubIOp::create(nb, l, capacity, off);
          Value n = clampIndex(nb, l, read(lengths), c0,
                               arith::MinSIOp::create(nb, l, room, rows));
          OpFoldResult one = nb.getIndexAttr(1), zero = nb.getIndexAttr(0);
          auto sliceT = RankedTensorType::get(
              {1, uT.getDimSize(1), ShapedType::kDynamic, uT.getDimSize(3)},
              uT.getElementType());
          Value rowsOf = tensor::ExtractSliceOp::create(
              nb, l, sliceT, update,
              SmallVector<OpFoldResult>{seq, zero, zero, zero},
              SmallVector<OpFoldResult>{one, uS[1], n, uS[3]},
              SmallVector<OpFoldResult>(4, one));
          // A 16-bit cache (-tfm-narrow-kv-cache) stores the rows rounded.
          rowsOf = castElements(nb, l, rowsOf, cT.getElementType());
          // [b, index..., 0, off, 0] of size [1, 1..., H, n, D]; the unit
          // index dimensions are dropped (rank-reducing insert).
          SmallVector<OpFoldResult> offs{seq}, sizes{one};
          for (int64_t at : index) {
            offs.push_back(nb.getIndexAttr(at));
            sizes.push_back(one);
          }
          offs.append({zero, off, zero});
          sizes.append({uS[1], n, uS[3]});
          Value next = tensor::InsertSliceOp::create(
              nb, l, rowsOf, iter[0], offs, sizes,
              SmallVector<OpFoldResult>(rank, one));
          scf::YieldOp::create(nb, l, next);
        });
    // Sequence b writes rows of slice b only: a GPU runs them at once.
    loop->setAttr(kIndependentIterationsAttr, b.getUnitAttr());
    return loop.getResult(0);
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

} // namespace

void mlir::tfm::lowering::populateAttentionLowerings(RewritePatternSet &patterns) {
  patterns.add<SoftmaxLowering, AttentionLowering, CacheAppendLowering, SplitHeadsLowering, MergeHeadsLowering, TransposeLowering, MakeMaskLowering, MaskedFillLowering, AlibiBiasLowering, RepeatKvLowering>(patterns.getContext());
}
