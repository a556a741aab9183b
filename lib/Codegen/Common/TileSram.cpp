//===- TileSram.cpp - tile tfm.attention for fast memory ------------------===//
//
// tfm.attention => scf.forall over (batch, K/V head, query block) around
// scf.for loops over key blocks with an online softmax (flash attention).
// Tile sizes come from each op's #tfm.attention_tiling (chosen for the target
// by -tfm-configure-attention, AttentionConfig.cpp); this pass decides
// nothing. See Passes.td for the loop nest.
//
// Every tile tensor has a static shape: a query block is zero padded to Br
// rows, and a short key block (the remainder, or the causal diagonal) is
// copied into a zeroed [Bc, D] buffer and masked. The loop-carried tensors
// (accumulator, running max and sum, scratch) are updated in place, so
// one-shot bufferization allocates them once per query block.
//
// Scores are kept in log2 units: Q is scaled once per query block by
// scale * log2(e), bias and ALiBi terms are multiplied by log2(e), and the
// softmax uses exp2 (cheaper than exp: no ln 2 range reduction), so
// exp2(s' - m') = exp(s - m) with s' = s * log2(e).
//
//===----------------------------------------------------------------------===//

#include "AttentionShape.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmBuildUtils.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"
#include "tfm/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <optional>

#define DEBUG_TYPE "tfm-tile-sram"

namespace mlir::tfm {
#define GEN_PASS_DEF_TILESRAMPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

using utils::IteratorType;

//===----------------------------------------------------------------------===//
// IR helpers (cstF32, cstIndex, toF32, indexToF32: tfm/IR/TfmBuildUtils.h)
//===----------------------------------------------------------------------===//

// Index arithmetic folds as it is built, so that the loop bounds read
// plainly in the IR (no `x * 1`, constants computed).
Value minI(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::MinSIOp>(loc, x, y);
}
Value maxI(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::MaxSIOp>(loc, x, y);
}
Value clampI(OpBuilder &b, Location loc, Value v, Value lo, Value hi) {
  return minI(b, loc, maxI(b, loc, v, lo), hi);
}
Value addI(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::AddIOp>(loc, x, y);
}
Value subI(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::SubIOp>(loc, x, y);
}
Value mulI(OpBuilder &b, Location loc, Value x, Value y) {
  return b.createOrFold<arith::MulIOp>(loc, x, y);
}

Value emptyTensor(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
                  Type et) {
  return tensor::EmptyOp::create(b, loc, shape, et);
}
Value fill(OpBuilder &b, Location loc, Value value, Value dest) {
  return linalg::FillOp::create(b, loc, value, dest).getResult(0);
}

SmallVector<OpFoldResult> ofrs(OpBuilder &b, ArrayRef<Value> values) {
  return llvm::to_vector(
      llvm::map_range(values, [](Value v) -> OpFoldResult { return v; }));
}
OpFoldResult idxAttr(OpBuilder &b, int64_t v) { return b.getIndexAttr(v); }

/// A generic op with one result; `body` returns the value to yield.
Value generic(OpBuilder &b, Location loc, ValueRange ins, Value out,
              ArrayRef<AffineMap> maps, ArrayRef<IteratorType> iters,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  return linalg::GenericOp::create(
             b, loc, TypeRange{out.getType()}, ins, ValueRange{out}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(nb, l, body(nb, l, args));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// The rewrite of one op
//===----------------------------------------------------------------------===//

/// Builds the tiled loop nest of one tfm.attention.
class AttentionTiler {
public:
  AttentionTiler(AttentionOp op, const AttentionShape &shape,
                 AttentionTilingAttr config)
      : op(op), shape(shape), config(config), br(config.getBlockQ()),
        bc(config.getBlockK()), m(shape.group * config.getBlockQ()),
        transposed(config.getTransposedScores()), ctx(op.getContext()) {}

  /// Builds the loop nest at the builder's insertion point and returns its
  /// result (the attention's value).
  Value build(OpBuilder &b);

private:
  /// The loop-carried tensors of the key loops.
  struct State {
    Value acc, mx, sum, blockMax, alpha, scores, kbuf, vbuf, biasBuf;
    SmallVector<Value> values() const {
      SmallVector<Value> v{acc, mx, sum, blockMax, alpha, scores, kbuf, vbuf};
      if (biasBuf)
        v.push_back(biasBuf);
      return v;
    }
    static State from(ValueRange v, bool hasBias) {
      State s{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], Value()};
      if (hasBias)
        s.biasBuf = v[8];
      return s;
    }
  };

  /// Per query block values that the key loops read.
  struct Block {
    Value b, n, h0, q0, bq, off, keyEnd; // indices
    Value qMat; // [G*Br, D] f32, scaled ([D, G*Br] with transposed scores)
    Value slopes;                        // [G] (ALiBi) or null
  };

  /// The parallel loop over (batch, K/V head, `third`) with `inits` as
  /// its shared outputs, carrying the configuration, the builder left in
  /// its body; sets blk's batch and K/V head indices and first query head.
  scf::ForallOp parallelLoop(OpBuilder &b, Location loc, Value bsz, Value third,
                             ValueRange inits, Block &blk);
  /// Split-K decode (key_splits > 1): a parallel loop over (batch, K/V
  /// head, key range), then the combine of the ranges' partial softmaxes.
  Value buildSplit(OpBuilder &b);
  /// The scaled query tile of `blk` (whose b, n, h0, q0 and bq are set),
  /// its key offset and ALiBi slopes.
  void loadQuery(OpBuilder &b, Location loc, Block &blk);
  /// Zeroed loop-carried state.
  State initState(OpBuilder &b, Location loc);
  /// The key blocks `blk` visits; sets its keyEnd.
  KeyBlockRange keyRange(OpBuilder &b, Location loc, Block &blk);
  /// The key loops over `keys` (masked head, whole blocks, masked tail),
  /// each cut to [lo, hi) when those are given.
  State visitKeys(OpBuilder &b, Location loc, const Block &blk, State st,
                  const KeyBlockRange &keys, Value lo, Value hi);
  /// l > 0 ? acc / l : 0, as `outET`.
  static Value normalize(OpBuilder &b, Location loc, Value acc, Value sum,
                         Type outET);
  static Value dimOf(OpBuilder &b, Location loc, Value t, int64_t i) {
    return getValueOrCreateConstantIndexOp(b, loc,
                                           tensor::getMixedSize(b, loc, t, i));
  }

  /// Emits one scf.for over key blocks [lo, hi) in steps of Bc.
  State keyLoop(OpBuilder &b, Location loc, const Block &blk, Value lo,
                Value hi, State init, bool masked, KeyBlocks role);
  /// The body of one key block starting at `k0`.
  State keyBlock(OpBuilder &b, Location loc, const Block &blk, Value k0,
                 State st, bool masked);

  AttentionOp op;
  AttentionShape shape;
  AttentionTilingAttr config;
  int64_t br, bc, m;
  /// Scores as Sᵀ [Bc, G*Br] (#tfm.attention_tiling's transposed_scores).
  bool transposed;
  MLIRContext *ctx;
  /// Tk, computed before the parallel loop.
  Value tk;
};

void AttentionTiler::loadQuery(OpBuilder &b, Location loc, Block &blk) {
  Value q = op.getQuery();
  int64_t g = shape.group, d = shape.headDim;
  Type f32 = b.getF32Type();
  Value c0 = cstIndex(b, loc, 0);
  // Query i sits at key position i + off: Tk - Tq, or the sequence's
  // offset in a KV cache.
  if (Value offsets = op.getOffsets()) {
    Value raw = tensor::ExtractOp::create(b, loc, offsets, ValueRange{blk.b});
    blk.off = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
  } else {
    blk.off = subI(b, loc, tk, dimOf(b, loc, q, 2));
  }

  // The query tile, scaled and widened to f32, zero padded to Br rows.
  RankedTensorType qT = op.getQuery().getType();
  auto qSliceT =
      RankedTensorType::get({g, ShapedType::kDynamic, d}, qT.getElementType());
  Value qSlice = tensor::ExtractSliceOp::create(
      b, loc, qSliceT, q, ofrs(b, {blk.b, blk.h0, blk.q0, c0}),
      {idxAttr(b, 1), idxAttr(b, g), blk.bq, idxAttr(b, d)},
      SmallVector<OpFoldResult>(4, idxAttr(b, 1)));
  Value qBuf =
      fill(b, loc, cstF32(b, loc, 0.0f), emptyTensor(b, loc, {g, br, d}, f32));
  SmallVector<OpFoldResult> zeros3(3, idxAttr(b, 0)), ones3(3, idxAttr(b, 1));
  SmallVector<OpFoldResult> qTileSizes{idxAttr(b, g), blk.bq, idxAttr(b, d)};
  Value qDst =
      tensor::ExtractSliceOp::create(b, loc, qBuf, zeros3, qTileSizes, ones3);
  // The softmax scale times log2(e), folded into Q: scores in log2 units.
  float scale =
      static_cast<float>(op.getScale().convertToDouble() * kLog2E);
  AffineMap id3 = b.getMultiDimIdentityMap(3);
  Value qScaled =
      generic(b, loc, ValueRange{qSlice}, qDst, {id3, id3},
              SmallVector<IteratorType>(3, IteratorType::parallel),
              [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return arith::MulFOp::create(nb, l, toF32(nb, l, a[0]),
                                             cstF32(nb, l, scale));
              });
  qBuf = tensor::InsertSliceOp::create(b, loc, qScaled, qBuf, zeros3,
                                       qTileSizes, ones3);
  if (transposed) {
    // Qᵀ [D, G*Br], once per query block: the B operand of Sᵀ = K·Qᵀ.
    AffineExpr e0, e1, e2;
    bindDims(ctx, e0, e1, e2);
    qBuf =
        generic(b, loc, ValueRange{qBuf}, emptyTensor(b, loc, {d, g, br}, f32),
                {AffineMap::get(3, 0, {e1, e2, e0}, ctx), id3},
                SmallVector<IteratorType>(3, IteratorType::parallel),
                [](OpBuilder &, Location, ValueRange a) { return a[0]; });
    blk.qMat = tensor::CollapseShapeOp::create(
        b, loc, qBuf, SmallVector<ReassociationIndices>{{0}, {1, 2}});
  } else {
    blk.qMat = tensor::CollapseShapeOp::create(
        b, loc, qBuf, SmallVector<ReassociationIndices>{{0, 1}, {2}});
  }

  if (Value slopes = op.getAlibiSlopes()) {
    auto sT = cast<RankedTensorType>(slopes.getType());
    blk.slopes = tensor::ExtractSliceOp::create(
        b, loc, RankedTensorType::get({g}, sT.getElementType()), slopes,
        ofrs(b, {blk.h0}), {idxAttr(b, g)}, {idxAttr(b, 1)});
  }
}

AttentionTiler::State AttentionTiler::initState(OpBuilder &b, Location loc) {
  int64_t d = shape.headDim, dv = shape.valueDim, g = shape.group;
  Type f32 = b.getF32Type();
  // Loop-carried state, allocated once per query block.
  State st;
  st.acc =
      fill(b, loc, cstF32(b, loc, 0.0f), emptyTensor(b, loc, {m, dv}, f32));
  st.mx = fill(b, loc, cstF32(b, loc, -FLT_MAX), emptyTensor(b, loc, {m}, f32));
  st.sum = fill(b, loc, cstF32(b, loc, 0.0f), emptyTensor(b, loc, {m}, f32));
  st.blockMax = emptyTensor(b, loc, {m}, f32);
  st.alpha = emptyTensor(b, loc, {m}, f32);
  st.scores = transposed ? emptyTensor(b, loc, {bc, m}, f32)
                         : emptyTensor(b, loc, {m, bc}, f32);
  st.kbuf =
      fill(b, loc, cstF32(b, loc, 0.0f), emptyTensor(b, loc, {bc, d}, f32));
  st.vbuf =
      fill(b, loc, cstF32(b, loc, 0.0f), emptyTensor(b, loc, {bc, dv}, f32));
  if (Value bias = op.getBias()) {
    Type bT = cast<RankedTensorType>(bias.getType()).getElementType();
    st.biasBuf =
        fill(b, loc, arith::ConstantOp::create(b, loc, b.getZeroAttr(bT)),
             emptyTensor(b, loc, {g, br, bc}, bT));
  }
  return st;
}

KeyBlockRange AttentionTiler::keyRange(OpBuilder &b, Location loc, Block &blk) {
  // Key bounds of this query block (see Passes.td): keys [a, d) are visible
  // to some row; [a, h) and [ub, d) are the masked blocks, [h, ub) the
  // whole unmasked ones.
  Value c0 = cstIndex(b, loc, 0);
  Value len = tk;
  if (Value lens = op.getKeyLengths()) {
    Value raw = tensor::ExtractOp::create(b, loc, lens, ValueRange{blk.b});
    Value asIdx = arith::IndexCastOp::create(b, loc, b.getIndexType(), raw);
    len = clampI(b, loc, asIdx, c0, tk);
  }
  std::optional<int64_t> window;
  if (op.getWindow())
    window = static_cast<int64_t>(*op.getWindow());
  KeyBlockRange keys = buildKeyBlockRange(b, loc, op.getMask(), window, blk.q0,
                                          blk.off, blk.bq, len, bc);
  blk.keyEnd = keys.end;
  return keys;
}

AttentionTiler::State AttentionTiler::visitKeys(OpBuilder &b, Location loc,
                                                const Block &blk, State st,
                                                const KeyBlockRange &keys,
                                                Value lo, Value hi) {
  // Each loop over [x, y), cut to [lo, hi) when given. Cuts fall between
  // key blocks (lo and hi are `begin` plus whole blocks), so every loop
  // still starts on a block of the uncut nest.
  auto cut = [&](Value x, Value y) -> std::pair<Value, Value> {
    if (!lo)
      return {x, y};
    return {maxI(b, loc, x, lo), minI(b, loc, y, hi)};
  };
  MaskKind kind = op.getMask();
  if (kind == MaskKind::sliding_window) {
    auto [x, y] = cut(keys.begin, keys.fullBegin);
    st =
        keyLoop(b, loc, blk, x, y, st, /*masked=*/true, KeyBlocks::window_head);
  }
  auto [fx, fy] = cut(keys.fullBegin, keys.fullEnd);
  st = keyLoop(b, loc, blk, fx, fy, st, /*masked=*/false, KeyBlocks::full);
  auto [mx, my] = cut(keys.fullEnd, keys.end);
  return keyLoop(b, loc, blk, mx, my, st, /*masked=*/true,
                 kind == MaskKind::none ? KeyBlocks::remainder
                                        : KeyBlocks::diagonal);
}

scf::ForallOp AttentionTiler::parallelLoop(OpBuilder &b, Location loc,
                                           Value bsz, Value third,
                                           ValueRange inits, Block &blk) {
  int64_t hkv = op.getKey().getType().getDimSize(1);
  auto forall = scf::ForallOp::create(
      b, loc, ofrs(b, {bsz, cstIndex(b, loc, hkv), third}), inits,
      std::nullopt);
  // The loop nest keeps the decision it carries out (reports, IR dumps).
  forall->setAttr(kLoweringConfigAttr, config);
  b.setInsertionPoint(forall.getTerminator());
  blk.b = forall.getInductionVars()[0];
  blk.n = forall.getInductionVars()[1];
  blk.h0 = mulI(b, loc, blk.n, cstIndex(b, loc, shape.group));
  return forall;
}

Value AttentionTiler::build(OpBuilder &b) {
  if (config.getKeySplits() > 1)
    return buildSplit(b);
  Location loc = op.getLoc();
  Value q = op.getQuery();
  auto outType = cast<RankedTensorType>(op.getResult().getType());
  int64_t g = shape.group, dv = shape.valueDim;

  Value c0 = cstIndex(b, loc, 0);
  Value bsz = dimOf(b, loc, q, 0), tq = dimOf(b, loc, q, 2);
  tk = dimOf(b, loc, op.getKey(), 2);
  Value brV = cstIndex(b, loc, br);
  Value numQBlocks = b.createOrFold<arith::CeilDivSIOp>(loc, tq, brV);

  // The result has the op's exact type; its dynamic dims are B and Tq.
  SmallVector<Value> outDyn;
  if (outType.isDynamicDim(0))
    outDyn.push_back(bsz);
  if (outType.isDynamicDim(2))
    outDyn.push_back(tq);
  Value outInit = tensor::EmptyOp::create(b, loc, outType, outDyn);

  OpBuilder::InsertionGuard guard(b);
  Block blk;
  scf::ForallOp forall =
      parallelLoop(b, loc, bsz, numQBlocks, ValueRange{outInit}, blk);
  blk.q0 = mulI(b, loc, forall.getInductionVars()[2], brV);
  blk.bq = minI(b, loc, brV, subI(b, loc, tq, blk.q0));
  loadQuery(b, loc, blk);
  Value outArg = forall.getRegionIterArgs()[0];
  Type f32 = b.getF32Type();

  KeyBlockRange keys = keyRange(b, loc, blk);
  State st = visitKeys(b, loc, blk, initState(b, loc), keys, Value(), Value());

  // out = l > 0 ? acc / l : 0 for the bq valid rows of each of the G heads.
  Value acc3 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({g, br, dv}, f32), st.acc,
      SmallVector<ReassociationIndices>{{0, 1}, {2}});
  Value sum2 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get({g, br}, f32), st.sum,
      SmallVector<ReassociationIndices>{{0, 1}});
  SmallVector<OpFoldResult> zeros3(3, idxAttr(b, 0)), ones3(3, idxAttr(b, 1));
  SmallVector<OpFoldResult> oTile{idxAttr(b, g), blk.bq, idxAttr(b, dv)};
  Value accSl =
      tensor::ExtractSliceOp::create(b, loc, acc3, zeros3, oTile, ones3);
  Value sumSl = tensor::ExtractSliceOp::create(
      b, loc, sum2, {idxAttr(b, 0), idxAttr(b, 0)}, {idxAttr(b, g), blk.bq},
      {idxAttr(b, 1), idxAttr(b, 1)});
  Type outET = outType.getElementType();
  auto outSliceT = RankedTensorType::get({g, ShapedType::kDynamic, dv}, outET);
  SmallVector<OpFoldResult> outOffsets = ofrs(b, {blk.b, blk.h0, blk.q0, c0});
  SmallVector<OpFoldResult> outSizes4{idxAttr(b, 1), idxAttr(b, g), blk.bq,
                                      idxAttr(b, dv)};
  SmallVector<OpFoldResult> ones4(4, idxAttr(b, 1));
  Value outSl = tensor::ExtractSliceOp::create(b, loc, outSliceT, outArg,
                                               outOffsets, outSizes4, ones4);
  AffineExpr eg, ei, ee;
  bindDims(ctx, eg, ei, ee);
  AffineMap id3 = b.getMultiDimIdentityMap(3);
  Value res = generic(b, loc, ValueRange{accSl, sumSl}, outSl,
                      {id3, AffineMap::get(3, 0, {eg, ei}, ctx), id3},
                      SmallVector<IteratorType>(3, IteratorType::parallel),
                      [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
                        return normalize(nb, l, args[0], args[1], outET);
                      });
  b.setInsertionPointToEnd(forall.getTerminator().getBody());
  tensor::ParallelInsertSliceOp::create(b, loc, res, outArg, outOffsets,
                                        outSizes4, ones4);

  return forall.getResult(0);
}

Value AttentionTiler::normalize(OpBuilder &b, Location loc, Value acc,
                                Value sum, Type outET) {
  Value qv = arith::DivFOp::create(b, loc, acc, sum);
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, sum,
                                    cstF32(b, loc, 0.0f));
  Value r = arith::SelectOp::create(b, loc, pos, qv, cstF32(b, loc, 0.0f));
  if (outET != r.getType())
    r = arith::TruncFOp::create(b, loc, outET, r);
  return r;
}

Value AttentionTiler::buildSplit(OpBuilder &b) {
  Location loc = op.getLoc();
  Value q = op.getQuery();
  auto outType = cast<RankedTensorType>(op.getResult().getType());
  int64_t hkv = op.getKey().getType().getDimSize(1);
  int64_t g = shape.group, dv = shape.valueDim;
  Type f32 = b.getF32Type();
  Value c0 = cstIndex(b, loc, 0), c1 = cstIndex(b, loc, 1);
  Value bsz = dimOf(b, loc, q, 0);
  tk = dimOf(b, loc, op.getKey(), 2);
  // Tensors over B (static or not, as the result has it) and S (dynamic).
  int64_t bDim = outType.getDimSize(0);
  constexpr int64_t kDyn = ShapedType::kDynamic;
  auto empty = [&](ArrayRef<int64_t> shape, Type et, Value splitsDim) {
    SmallVector<Value> dyn;
    if (ShapedType::isDynamic(bDim))
      dyn.push_back(bsz);
    if (splitsDim)
      dyn.push_back(splitsDim);
    return tensor::EmptyOp::create(b, loc, RankedTensorType::get(shape, et),
                                   dyn)
        .getResult();
  };

  // S = ceil(key_splits / B) ranges per (sequence, K/V head): as many
  // parallel iterations at batch B as key_splits gives at batch 1.
  Value splits = b.createOrFold<arith::CeilDivSIOp>(
      loc, cstIndex(b, loc, config.getKeySplits()), maxI(b, loc, bsz, c1));
  // The partial results of each range: acc [B, Hkv, S, G, Dv], running max
  // and sum [B, Hkv, S, G] (the state of the key loops, m = G rows).
  Value accP = empty({bDim, hkv, kDyn, m, dv}, f32, splits);
  Value mxP = empty({bDim, hkv, kDyn, m}, f32, splits);
  Value sumP = empty({bDim, hkv, kDyn, m}, f32, splits);

  scf::ForallOp forall;
  {
    OpBuilder::InsertionGuard guard(b);
    Block blk;
    forall =
        parallelLoop(b, loc, bsz, splits, ValueRange{accP, mxP, sumP}, blk);
    SmallVector<Value> ivs = llvm::to_vector(forall.getInductionVars());
    blk.q0 = c0;
    blk.bq = c1;
    loadQuery(b, loc, blk);
    KeyBlockRange keys = keyRange(b, loc, blk);
    // Range s: keys [begin + s * per, begin + (s + 1) * per) of the visible
    // ones, `per` a whole number of key blocks (the last ranges may be
    // short or empty: an empty one keeps max -FLT_MAX and sum 0).
    Value bcV = cstIndex(b, loc, bc);
    Value blocks = b.createOrFold<arith::CeilDivSIOp>(
        loc, maxI(b, loc, subI(b, loc, keys.end, keys.begin), c0), bcV);
    Value per = mulI(
        b, loc, b.createOrFold<arith::CeilDivSIOp>(loc, blocks, splits), bcV);
    Value lo = minI(b, loc, addI(b, loc, keys.begin, mulI(b, loc, ivs[2], per)),
                    keys.end);
    Value hi = minI(b, loc, addI(b, loc, lo, per), keys.end);
    State st = visitKeys(b, loc, blk, initState(b, loc), keys, lo, hi);

    b.setInsertionPointToEnd(forall.getTerminator().getBody());
    auto args = forall.getRegionIterArgs();
    SmallVector<OpFoldResult> off5 = ofrs(b, {blk.b, blk.n, ivs[2], c0, c0});
    SmallVector<OpFoldResult> size5{idxAttr(b, 1), idxAttr(b, 1), idxAttr(b, 1),
                                    idxAttr(b, m), idxAttr(b, dv)};
    tensor::ParallelInsertSliceOp::create(
        b, loc, st.acc, args[0], off5, size5,
        SmallVector<OpFoldResult>(5, idxAttr(b, 1)));
    SmallVector<OpFoldResult> off4 = ofrs(b, {blk.b, blk.n, ivs[2], c0});
    SmallVector<OpFoldResult> size4{idxAttr(b, 1), idxAttr(b, 1), idxAttr(b, 1),
                                    idxAttr(b, m)};
    for (auto [value, dest] : {std::pair{st.mx, args[1]}, {st.sum, args[2]}})
      tensor::ParallelInsertSliceOp::create(
          b, loc, value, dest, off4, size4,
          SmallVector<OpFoldResult>(4, idxAttr(b, 1)));
  }
  Value acc = forall.getResult(0), mx = forall.getResult(1),
        sum = forall.getResult(2);

  // The combine, over the ranges s of each (b, n, g): M = max_s m_s,
  // w_s = exp2(m_s - M) (scores are in log2 units), l = sum_s w_s l_s,
  // out = l > 0 ? (sum_s w_s acc_s) / l : 0.
  AffineExpr eb, en, eg, ee, es;
  bindDims(ctx, eb, en, eg, ee, es);
  auto map4 = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(4, 0, r, ctx);
  };
  auto map5 = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(5, 0, r, ctx);
  };
  // (b, n, g, s): the max over s.
  SmallVector<IteratorType> bngS{IteratorType::parallel, IteratorType::parallel,
                                 IteratorType::parallel,
                                 IteratorType::reduction};
  AffineExpr s4 = getAffineDimExpr(3, ctx);
  AffineMap stat4 = map4({eb, en, s4, eg}), row4 = map4({eb, en, eg});
  Value rowMax = generic(b, loc, ValueRange{mx},
                         fill(b, loc, cstF32(b, loc, -FLT_MAX),
                              empty({bDim, hkv, m}, f32, Value())),
                         {stat4, row4}, bngS,
                         [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                           return arith::MaxNumFOp::create(nb, l, a[0], a[1]);
                         });
  auto weight = [&](OpBuilder &nb, Location l, Value mS, Value rowM) {
    return math::Exp2Op::create(nb, l, arith::SubFOp::create(nb, l, mS, rowM));
  };
  Value rowSum = generic(
      b, loc, ValueRange{mx, sum, rowMax},
      fill(b, loc, cstF32(b, loc, 0.0f), empty({bDim, hkv, m}, f32, Value())),
      {stat4, stat4, row4, row4}, bngS,
      [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
        Value w = weight(nb, l, a[0], a[2]);
        return arith::AddFOp::create(nb, l, a[3],
                                     arith::MulFOp::create(nb, l, w, a[1]));
      });
  // (b, n, g, e, s): the weighted sum of the accumulators over s.
  SmallVector<IteratorType> bngeS(4, IteratorType::parallel);
  bngeS.push_back(IteratorType::reduction);
  Value accSum =
      generic(b, loc, ValueRange{acc, mx, rowMax},
              fill(b, loc, cstF32(b, loc, 0.0f),
                   empty({bDim, hkv, m, dv}, f32, Value())),
              {map5({eb, en, es, eg, ee}), map5({eb, en, es, eg}),
               map5({eb, en, eg}), map5({eb, en, eg, ee})},
              bngeS, [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                Value w = weight(nb, l, a[1], a[2]);
                return arith::AddFOp::create(
                    nb, l, a[3], arith::MulFOp::create(nb, l, w, a[0]));
              });
  Type outET = outType.getElementType();
  AffineMap id4 = b.getMultiDimIdentityMap(4);
  Value out4 = generic(b, loc, ValueRange{accSum, rowSum},
                       empty({bDim, hkv, g, dv}, outET, Value()),
                       {id4, map4({eb, en, eg}), id4},
                       SmallVector<IteratorType>(4, IteratorType::parallel),
                       [&](OpBuilder &nb, Location l, ValueRange a) -> Value {
                         return normalize(nb, l, a[0], a[1], outET);
                       });
  // [B, Hkv, G, Dv] -> [B, Hq, 1, Dv] (query head n * G + g).
  Value heads = tensor::CollapseShapeOp::create(
      b, loc, out4, SmallVector<ReassociationIndices>{{0}, {1, 2}, {3}});
  return tensor::ExpandShapeOp::create(
      b, loc, outType, heads,
      SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}},
      SmallVector<OpFoldResult>{
          ShapedType::isDynamic(bDim) ? OpFoldResult(bsz) : idxAttr(b, bDim),
          idxAttr(b, hkv * g), idxAttr(b, 1), idxAttr(b, dv)});
}

AttentionTiler::State AttentionTiler::keyLoop(OpBuilder &b, Location loc,
                                              const Block &blk, Value lo,
                                              Value hi, State init, bool masked,
                                              KeyBlocks role) {
  bool hasBias = static_cast<bool>(init.biasBuf);
  auto loop = scf::ForOp::create(
      b, loc, lo, hi, cstIndex(b, loc, bc), init.values(),
      [&](OpBuilder &nb, Location l, Value k0, ValueRange iters) {
        State next =
            keyBlock(nb, l, blk, k0, State::from(iters, hasBias), masked);
        scf::YieldOp::create(nb, l, next.values());
      });
  loop->setAttr(kKeyBlocksAttr, KeyBlocksAttr::get(ctx, role));
  return State::from(loop.getResults(), hasBias);
}

AttentionTiler::State AttentionTiler::keyBlock(OpBuilder &b, Location loc,
                                               const Block &blk, Value k0,
                                               State st, bool masked) {
  Value k = op.getKey(), v = op.getValue();
  int64_t g = shape.group, d = shape.headDim, dv = shape.valueDim;
  Type f32 = b.getF32Type();
  Value c0 = cstIndex(b, loc, 0);
  SmallVector<OpFoldResult> ones4(4, idxAttr(b, 1));
  SmallVector<OpFoldResult> zeros2(2, idxAttr(b, 0)), ones2(2, idxAttr(b, 1));

  // The K and V blocks, as f32 (the contractions have one element type).
  // Whole f32 blocks are read in place; short blocks are copied (kb rows)
  // into the zeroed f32 buffers, whose other rows are masked; f16/bf16
  // blocks are widened into the buffers, except whole ones under an f32
  // query (a KV cache stored in 16 bits, -tfm-narrow-kv-cache): those are
  // read in place too, and the contractions take them as they are (the
  // CPU's register kernels widen the rows of B they load, as they do for
  // 16-bit weight panels).
  bool f32Query = op.getQuery().getType().getElementType().isF32();
  Value kb =
      masked ? minI(b, loc, cstIndex(b, loc, bc), subI(b, loc, blk.keyEnd, k0))
             : Value();
  OpFoldResult kbOfr = masked ? OpFoldResult(kb) : idxAttr(b, bc);
  // `asB`: the block is a contraction's B (only B may stay 16-bit).
  auto loadBlock = [&](Value src, int64_t width, Value &buf,
                       bool asB) -> Value {
    Type et = cast<RankedTensorType>(src.getType()).getElementType();
    auto slT =
        RankedTensorType::get({masked ? ShapedType::kDynamic : bc, width}, et);
    Value sl = tensor::ExtractSliceOp::create(
        b, loc, slT, src, ofrs(b, {blk.b, blk.n, k0, c0}),
        {idxAttr(b, 1), idxAttr(b, 1), kbOfr, idxAttr(b, width)}, ones4);
    if (!masked && (et.isF32() || (f32Query && asB)))
      return sl;
    if (!et.isF32()) {
      // Widen with linalg.copy (its body casts) into the carried f32
      // buffer. Not a linalg.generic on purpose: elementwise fusion would
      // fold a widening generic into the contraction (mixed element types
      // there), and canonicalizations replace the unread destination of a
      // generic by tensor.empty, which breaks the in-place iter_arg update.
      if (!masked) {
        buf = linalg::CopyOp::create(b, loc, sl, buf).getResult(0);
        return buf;
      }
      Value dst = tensor::ExtractSliceOp::create(
          b, loc, buf, zeros2, {kbOfr, idxAttr(b, width)}, ones2);
      sl = linalg::CopyOp::create(b, loc, sl, dst).getResult(0);
    }
    buf = tensor::InsertSliceOp::create(b, loc, sl, buf, zeros2,
                                        {kbOfr, idxAttr(b, width)}, ones2);
    return buf;
  };
  // With transposed scores, K is the A operand of Sᵀ = K·Qᵀ.
  Value kBlk = loadBlock(k, d, st.kbuf, /*asB=*/!transposed);
  Value vBlk = loadBlock(v, dv, st.vbuf, /*asB=*/true);

  AffineExpr e0, e1, e2;
  bindDims(ctx, e0, e1, e2);
  auto map3 = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(3, 0, r, ctx);
  };
  auto map2 = [&](ArrayRef<AffineExpr> r) {
    return AffineMap::get(2, 0, r, ctx);
  };
  AffineMap id2 = b.getMultiDimIdentityMap(2);
  SmallVector<IteratorType> par2(2, IteratorType::parallel);
  // Reductions over the keys of each query row: the rows of S, or the
  // columns of Sᵀ.
  SmallVector<IteratorType> rowRed{IteratorType::parallel,
                                   IteratorType::reduction};
  if (transposed)
    std::swap(rowRed[0], rowRed[1]);

  // S = Qs . K^T  ([G*Br, D] x [Bc, D]^T), or Sᵀ = K . Qsᵀ ([Bc, D] x
  // [D, G*Br]).
  Value s = fill(b, loc, cstF32(b, loc, 0.0f), st.scores);
  auto qk = linalg::MatmulOp::create(b, loc, TypeRange{s.getType()},
                                     transposed ? ValueRange{kBlk, blk.qMat}
                                                : ValueRange{blk.qMat, kBlk},
                                     ValueRange{s});
  if (!transposed)
    qk.setIndexingMapsAttr(b.getAffineMapArrayAttr(
        {map3({e0, e2}), map3({e1, e2}), map3({e0, e1})}));
  s = qk.getResult(0);

  // Bias, ALiBi and (in masked blocks) the visibility rule, on [G, Br, Bc].
  Value bias = op.getBias();
  if (bias) {
    auto biasT = cast<RankedTensorType>(bias.getType());
    auto slT = RankedTensorType::get(
        {g, ShapedType::kDynamic, masked ? ShapedType::kDynamic : bc},
        biasT.getElementType());
    Value sl = tensor::ExtractSliceOp::create(
        b, loc, slT, bias, ofrs(b, {blk.b, blk.h0, blk.q0, k0}),
        {idxAttr(b, 1), idxAttr(b, g), blk.bq, kbOfr}, ones4);
    // Copied into a slice of the carried tile (linalg.copy, as for the K/V
    // blocks): a bare insert_slice of a tile-sized slice (static Tq <= Br,
    // a whole key block) folds to the slice itself, and the loop would no
    // longer update its tile in place.
    SmallVector<OpFoldResult> zeros3(3, idxAttr(b, 0)),
        ones3(3, idxAttr(b, 1));
    SmallVector<OpFoldResult> sizes{idxAttr(b, g), blk.bq, kbOfr};
    Value dst = tensor::ExtractSliceOp::create(b, loc, st.biasBuf, zeros3,
                                               sizes, ones3);
    sl = linalg::CopyOp::create(b, loc, sl, dst).getResult(0);
    st.biasBuf = tensor::InsertSliceOp::create(b, loc, sl, st.biasBuf,
                                               zeros3, sizes, ones3);
  }
  if (masked || bias || blk.slopes) {
    // Loops (g, i, j) over [G, Br, Bc], or (j, g, i) over Sᵀ's [Bc, G, Br]:
    // the scores are always read in order.
    AffineExpr eg = e0, ei = e1, ej = e2;
    if (transposed) {
      ej = e0;
      eg = e1;
      ei = e2;
    }
    unsigned iDim = cast<AffineDimExpr>(ei).getPosition();
    unsigned jDim = cast<AffineDimExpr>(ej).getPosition();
    auto s3T = transposed ? RankedTensorType::get({bc, g, br}, f32)
                          : RankedTensorType::get({g, br, bc}, f32);
    SmallVector<ReassociationIndices> split3 =
        transposed ? SmallVector<ReassociationIndices>{{0}, {1, 2}}
                   : SmallVector<ReassociationIndices>{{0, 1}, {2}};
    Value s3 = tensor::ExpandShapeOp::create(b, loc, s3T, s, split3);
    SmallVector<Value> ins;
    SmallVector<AffineMap> maps;
    int biasIdx = -1, slopeIdx = -1;
    if (bias) {
      biasIdx = ins.size();
      ins.push_back(st.biasBuf);
      maps.push_back(map3({eg, ei, ej}));
    }
    if (blk.slopes) {
      slopeIdx = ins.size();
      ins.push_back(blk.slopes);
      maps.push_back(map3({eg}));
    }
    maps.push_back(map3({e0, e1, e2}));
    MaskKind kind = op.getMask();
    std::optional<int64_t> window;
    if (op.getWindow())
      window = static_cast<int64_t>(*op.getWindow());
    s3 = generic(
        b, loc, ins, s3, maps,
        SmallVector<IteratorType>(3, IteratorType::parallel),
        [&](OpBuilder &nb, Location l, ValueRange args) -> Value {
          Value x = args.back();
          // Bias and ALiBi in log2 units, like the scores.
          if (biasIdx >= 0)
            x = arith::AddFOp::create(nb, l, x,
                                      buildLog2Bias(nb, l, args[biasIdx]));
          if (slopeIdx < 0 && !masked)
            return x;
          Value i = addI(nb, l, blk.q0, linalg::IndexOp::create(nb, l, iDim));
          Value j = addI(nb, l, k0, linalg::IndexOp::create(nb, l, jDim));
          Value pos = addI(nb, l, i, blk.off); // i + Tk - Tq
          Value dist = subI(nb, l, pos, j);
          if (slopeIdx >= 0) {
            Value df = indexToF32(nb, l, dist);
            Value slope = arith::MulFOp::create(
                nb, l, toF32(nb, l, args[slopeIdx]), cstF32(nb, l, kLog2E));
            Value pen = arith::MulFOp::create(nb, l, slope,
                                              math::AbsFOp::create(nb, l, df));
            x = arith::SubFOp::create(nb, l, x, pen);
          }
          if (!masked)
            return x;
          // The key end d = clamp(q0 + off + bq, 0, len) (len without a mask)
          // stands for the key length: the keys in [d, len) are hidden from
          // every row of the block by the causal rule anyway, and those past
          // the block's keys are the zero padding of the K/V buffers.
          Value vis =
              buildKeyVisible(nb, l, kind, window,
                              MaskPoint{i, j, blk.off, blk.keyEnd, pos, dist});
          return arith::SelectOp::create(nb, l, vis, x,
                                         cstF32(nb, l, -INFINITY));
        });
    s = tensor::CollapseShapeOp::create(b, loc, s3, split3);
  }

  // Online softmax, every step in place on a loop-carried tensor (no
  // copies: a copy of the running max would be folded away by later tensor
  // canonicalizations and break in-place bufferization).
  // bm = rowmax(S); mnew = max(m, bm); alpha = exp2(m - mnew); m = mnew.
  // The row max ignores NaN (maxnumf); a NaN score still reaches the output
  // through exp2 and the row sum.
  AffineMap row = map2({transposed ? e1 : e0});
  AffineMap id1 = b.getMultiDimIdentityMap(1);
  SmallVector<IteratorType> par1{IteratorType::parallel};
  Value bm = fill(b, loc, cstF32(b, loc, -INFINITY), st.blockMax);
  bm = generic(b, loc, ValueRange{s}, bm, {id2, row}, rowRed,
               [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                 return arith::MaxNumFOp::create(nb, l, a[0], a[1]);
               });
  // With a rescale threshold τ (conditional rescaling): a row's max moves
  // only when the block's exceeds it by more than τ, so the block's weights
  // are at most 2^τ and most blocks leave every row's max (alpha = 1).
  int64_t tau = config.getRescaleThreshold();
  auto update = linalg::GenericOp::create(
      b, loc, TypeRange{st.mx.getType(), st.alpha.getType()}, ValueRange{bm},
      ValueRange{st.mx, st.alpha}, SmallVector<AffineMap>{id1, id1, id1}, par1,
      [&](OpBuilder &nb, Location l, ValueRange a) {
        // a = (block max, old running max, alpha)
        if (tau == 0) {
          Value mnew = arith::MaximumFOp::create(nb, l, a[1], a[0]);
          Value alpha = math::Exp2Op::create(
              nb, l, arith::SubFOp::create(nb, l, a[1], mnew));
          linalg::YieldOp::create(nb, l, ValueRange{mnew, alpha});
          return;
        }
        // A NaN block max (a row of NaN scores) leaves m: the NaN still
        // reaches the row's output through exp2 and the sum.
        Value grow = arith::CmpFOp::create(
            nb, l, arith::CmpFPredicate::OGT, a[0],
            arith::AddFOp::create(nb, l, a[1],
                                  cstF32(nb, l, static_cast<float>(tau))));
        Value mnew = arith::SelectOp::create(nb, l, grow, a[0], a[1]);
        Value alpha = arith::SelectOp::create(
            nb, l, grow,
            math::Exp2Op::create(nb, l,
                                 arith::SubFOp::create(nb, l, a[1], a[0])),
            cstF32(nb, l, 1.0f));
        linalg::YieldOp::create(nb, l, ValueRange{mnew, alpha});
      });
  Value mx = update.getResult(0), alpha = update.getResult(1);
  // P = exp2(S - mnew): masked scores are -inf and mnew >= -FLT_MAX, so 0.
  s = generic(b, loc, ValueRange{mx}, s, {row, id2}, par2,
              [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                return math::Exp2Op::create(
                    nb, l, arith::SubFOp::create(nb, l, a[1], a[0]));
              });
  // l = l * alpha + rowsum(P)
  Value sum = generic(b, loc, ValueRange{alpha}, st.sum, {id1, id1}, par1,
                      [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                        return arith::MulFOp::create(nb, l, a[1], a[0]);
                      });
  sum = generic(b, loc, ValueRange{s}, sum, {id2, row}, rowRed,
                [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  return arith::AddFOp::create(nb, l, a[1], a[0]);
                });
  // acc = acc * alpha + P . V; with a threshold, acc * alpha only when
  // some row's alpha is below 1.
  auto rescale = [&](OpBuilder &nb, Location l) -> Value {
    return generic(nb, l, ValueRange{alpha}, st.acc, {map2({e0}), id2}, par2,
                   [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                     return arith::MulFOp::create(nb, l, a[1], a[0]);
                   });
  };
  Value acc;
  if (tau == 0) {
    acc = rescale(b, loc);
  } else {
    Value least = fill(b, loc, cstF32(b, loc, 1.0f),
                       emptyTensor(b, loc, {}, b.getF32Type()));
    least =
        generic(b, loc, ValueRange{alpha}, least,
                {id1, AffineMap::get(1, 0, {}, ctx)}, {IteratorType::reduction},
                [](OpBuilder &nb, Location l, ValueRange a) -> Value {
                  return arith::MinNumFOp::create(nb, l, a[0], a[1]);
                });
    Value moved = arith::CmpFOp::create(
        b, loc, arith::CmpFPredicate::OLT,
        tensor::ExtractOp::create(b, loc, least, ValueRange{}),
        cstF32(b, loc, 1.0f));
    auto ifOp = scf::IfOp::create(
        b, loc, moved,
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(nb, l, rescale(nb, l));
        },
        [&](OpBuilder &nb, Location l) {
          scf::YieldOp::create(nb, l, st.acc);
        });
    acc = ifOp.getResult(0);
  }
  auto pv = linalg::MatmulOp::create(b, loc, TypeRange{acc.getType()},
                                     ValueRange{s, vBlk}, ValueRange{acc});
  if (transposed) // acc += (Pᵀ)ᵀ . V
    pv.setIndexingMapsAttr(b.getAffineMapArrayAttr(
        {map3({e2, e0}), map3({e2, e1}), map3({e0, e1})}));
  acc = pv.getResult(0);

  st.acc = acc;
  st.mx = mx;
  st.sum = sum;
  st.blockMax = bm;
  st.alpha = alpha;
  st.scores = s;
  return st;
}

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct TileSramPass : tfm::impl::TileSramPassBase<TileSramPass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  TileSramPass(const TileSramPass &other) : Base(other) {}

  void runOnOperation() override {
    // The ops a configuration pass chose tiles for; the others stay as they
    // are (convert-tfm-to-linalg lowers them whole).
    SmallVector<std::pair<AttentionOp, AttentionTilingAttr>> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (auto config =
              op->getAttrOfType<AttentionTilingAttr>(kLoweringConfigAttr))
        ops.push_back({op, config});
    });
    IRRewriter rw(&getContext());
    bool failedAny = false;
    for (auto [op, config] : ops) {
      FailureOr<AttentionShape> shape = analyzeAttention(op);
      if (failed(shape)) {
        failedAny = true;
        continue;
      }
      if (config.getGroup() != shape->group) {
        op.emitOpError("has a lowering_config for ")
            << config.getGroup() << " query head(s) per K/V head, but has "
            << shape->group;
        failedAny = true;
        continue;
      }
      if (config.getKeySplits() > 1 && shape->staticTq != 1) {
        op.emitOpError("has a lowering_config with key_splits = ")
            << config.getKeySplits()
            << " (split-K decode), which needs a static query length of 1";
        failedAny = true;
        continue;
      }
      AttentionTiler tiler(op, *shape, config);
      rw.setInsertionPoint(op);
      int64_t maxUntiled = config.getUntiledMaxKeys();
      if (maxUntiled > 0 && ShapedType::isDynamic(shape->staticTk)) {
        // Runtime choice: Tk <= untiled_max_keys runs the untiled op.
        Location loc = op.getLoc();
        Value tkV = tensor::DimOp::create(rw, loc, op.getKey(), 2);
        Value small = arith::CmpIOp::create(
            rw, loc, arith::CmpIPredicate::sle, tkV,
            arith::ConstantIndexOp::create(rw, loc, maxUntiled));
        auto ifOp = scf::IfOp::create(rw, loc, TypeRange{op.getType()}, small,
                                      /*addThenBlock=*/true,
                                      /*addElseBlock=*/true);
        rw.setInsertionPointToStart(ifOp.thenBlock());
        Operation *untiled = rw.clone(*op);
        untiled->setAttr(kLoweringConfigAttr,
                         AttentionUntiledAttr::get(&getContext()));
        scf::YieldOp::create(rw, loc, untiled->getResults());
        rw.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(rw, loc, tiler.build(rw));
        rw.replaceOp(op, ifOp.getResults());
      } else {
        rw.replaceOp(op, tiler.build(rw));
      }
      ++tiled;
    }
    if (failedAny)
      signalPassFailure();
  }

  // The statistics of Passes.td (same names and descriptions), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h.
  PassStatistic tiled{this, numTiled, "tiled", "tfm.attention ops tiled"};
};

} // namespace
