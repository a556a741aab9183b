//===- TfmBuildUtils.cpp - scalar IR shared by tfm lowerings --------------===//

#include "tfm/IR/TfmBuildUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

#include <cassert>
#include <cfloat>
#include <cmath>

using namespace mlir;
using namespace mlir::tfm;

Value mlir::tfm::cstF32(OpBuilder &b, Location loc, double v) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(v));
}

Value mlir::tfm::cstIndex(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value mlir::tfm::toF32(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isF32())
    return v;
  return arith::ExtFOp::create(b, loc, b.getF32Type(), v);
}

Value mlir::tfm::indexToF32(OpBuilder &b, Location loc, Value v) {
  Value i = arith::IndexCastOp::create(b, loc, b.getI64Type(), v);
  return arith::SIToFPOp::create(b, loc, b.getF32Type(), i);
}

Value mlir::tfm::buildLog2Bias(OpBuilder &b, Location loc, Value bias) {
  Value bv = toF32(b, loc, bias);
  Value scaled = arith::MulFOp::create(b, loc, bv, cstF32(b, loc, kLog2E));
  Value inf = cstF32(b, loc, INFINITY);
  Value overflow = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                            math::AbsFOp::create(b, loc, scaled), inf),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ONE,
                            math::AbsFOp::create(b, loc, bv), inf));
  Value clamped =
      math::CopySignOp::create(b, loc, cstF32(b, loc, FLT_MAX), scaled);
  return arith::SelectOp::create(b, loc, overflow, clamped, scaled);
}

Value mlir::tfm::buildKeyVisible(OpBuilder &b, Location loc, MaskKind kind,
                                 std::optional<int64_t> window,
                                 const MaskPoint &point) {
  Value visible;
  auto conjoin = [&](Value cond) {
    visible = visible ? Value(arith::AndIOp::create(b, loc, visible, cond))
                      : cond;
  };
  Value j = point.key;
  if (point.keyLength)
    conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, j,
                                  point.keyLength));
  if (kind == MaskKind::causal || kind == MaskKind::sliding_window) {
    Value pos = point.position;
    if (!pos)
      pos = arith::AddIOp::create(b, loc, point.query, point.offset);
    conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, j, pos));
    if (kind == MaskKind::sliding_window) {
      assert(window && "verified: sliding_window has a window");
      Value dist = point.distance;
      if (!dist)
        dist = arith::SubIOp::create(b, loc, pos, j);
      conjoin(arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, dist,
                                    cstIndex(b, loc, *window)));
    }
  }
  if (!visible)
    visible = arith::ConstantIntOp::create(b, loc, b.getI1Type(), 1);
  return visible;
}

KeyBlockRange mlir::tfm::buildKeyBlockRange(OpBuilder &b, Location loc,
                                            MaskKind kind,
                                            std::optional<int64_t> window,
                                            Value q0, Value offset, Value rows,
                                            Value keyLength, int64_t blockK) {
  auto add = [&](Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  };
  auto sub = [&](Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  };
  auto mul = [&](Value x, Value y) {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  };
  auto min = [&](Value x, Value y) {
    return b.createOrFold<arith::MinSIOp>(loc, x, y);
  };
  auto clamp = [&](Value v, Value lo, Value hi) {
    return min(b.createOrFold<arith::MaxSIOp>(loc, v, lo), hi);
  };
  Value c0 = cstIndex(b, loc, 0), c1 = cstIndex(b, loc, 1),
        bc = cstIndex(b, loc, blockK);
  // Rows at key positions p in [pmin, pend).
  Value pmin = add(q0, offset);
  Value pend = add(pmin, rows);
  // Keys [a, d) are visible to some row, keys [bnd, c) to every row.
  Value a = c0, bnd = c0, c, d;
  if (kind == MaskKind::none) {
    d = keyLength;
    c = keyLength;
  } else {
    // Causal: key j is visible to some row iff j < pend, to every row iff
    // j <= pmin.
    d = clamp(pend, c0, keyLength);
    if (kind == MaskKind::sliding_window) {
      // Window: j > p - window for some row iff j >= pmin + 1 - window, for
      // every row iff j >= pend - window.
      Value w = cstIndex(b, loc, *window);
      a = clamp(sub(add(pmin, c1), w), c0, d);
      bnd = clamp(sub(pend, w), a, d);
    }
    c = clamp(add(pmin, c1), bnd, d);
  }
  // The whole blocks from a that lie in [bnd, c).
  Value h = a;
  if (kind == MaskKind::sliding_window) {
    Value nHead = b.createOrFold<arith::CeilDivSIOp>(loc, sub(bnd, a), bc);
    h = min(add(a, mul(nHead, bc)), d);
  }
  Value nFull = b.createOrFold<arith::DivSIOp>(
      loc, b.createOrFold<arith::MaxSIOp>(loc, sub(c, h), c0), bc);
  return {a, h, add(h, mul(nFull, bc)), d};
}
