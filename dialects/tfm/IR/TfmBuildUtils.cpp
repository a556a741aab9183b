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
