//===- GPUTileReduction.cpp - one block per row of a reduction ------------===//
//
// -tfm-gpu-tile-reduction: each row reduction that -tfm-gpu-configure gave
// a #tfm.gpu_reduction becomes a gpu.launch with one block per output
// element: the block's threads fold strided parts of the row, then combine
// their partial results in shared memory down to 32, and the last 32 in
// warp 0's registers with shuffles.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUTILEREDUCTIONPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// `combine(acc, x)` with the payload's combiner, `acc` in the output's
/// operand position.
Value combine(OpBuilder &b, const RowReduction &r, Value acc, Value x) {
  IRMapping map;
  map.map(r.combiner->getOperand(r.outOperand), acc);
  map.map(r.combiner->getOperand(1 - r.outOperand), x);
  return b.clone(*r.combiner, map)->getResult(0);
}

SmallVector<Value> indices(linalg::LinalgOp op, OpOperand &operand,
                           ArrayRef<Value> ivs) {
  SmallVector<Value> result;
  for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults())
    result.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
  return result;
}

void build(IRRewriter &rw, linalg::LinalgOp op, const RowReduction &r,
           int64_t threads) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  auto index = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  SmallVector<Value> sizes;
  for (Range range : op.createLoopRanges(rw, loc))
    sizes.push_back(getValueOrCreateConstantIndexOp(rw, loc, range.size));
  SmallVector<unsigned> parallel;
  Value rows = index(rw, 1);
  for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d) {
    if (d == r.dim)
      continue;
    parallel.push_back(d);
    rows = arith::MulIOp::create(rw, loc, rows, sizes[d]);
  }
  OpOperand &out = *op.getDpsInitOperand(0);
  Type type = getElementTypeOrSelf(out.get().getType());
  auto workgroup = gpu::AddressSpaceAttr::get(op->getContext(),
                                              gpu::AddressSpace::Workgroup);
  // A block of one warp needs no shared memory; one of less than a warp
  // (a hand-written configuration) combines in shared memory only: a
  // shuffle needs the whole warp.
  bool shuffles = threads >= 32;
  SmallVector<Type> workgroupTypes;
  if (threads != 32)
    workgroupTypes.push_back(MemRefType::get(
        {threads}, type, MemRefLayoutAttrInterface(), workgroup));
  Value one = index(rw, 1);
  auto [launch, b] =
      createKernelLaunch(rw, loc, {rows, one, one},
                         {index(rw, threads), one, one}, workgroupTypes);
  Value partials;
  if (threads != 32)
    partials = launch.getWorkgroupAttributions()[0];
  Value tid = launch.getThreadIds().x;

  // Block x enumerates the parallel loops, the last one fastest.
  SmallVector<Value> ivs(op.getNumLoops());
  Value rest = launch.getBlockIds().x;
  for (unsigned d : llvm::reverse(parallel)) {
    ivs[d] = arith::RemUIOp::create(b, loc, rest, sizes[d]);
    rest = arith::DivUIOp::create(b, loc, rest, sizes[d]);
  }

  // This thread's part of the row: elements tid, tid + T, ...
  Value identity = arith::ConstantOp::create(b, loc, r.identity);
  auto fold = scf::ForOp::create(
      b, loc, tid, sizes[r.dim], index(b, threads), ValueRange{identity},
      [&](OpBuilder &lb, Location, Value k, ValueRange acc) {
        SmallVector<Value> at = ivs;
        at[r.dim] = k;
        SmallVector<Value> args;
        for (OpOperand *input : op.getDpsInputOperands()) {
          if (!isa<MemRefType>(input->get().getType())) {
            args.push_back(input->get());
            continue;
          }
          args.push_back(memref::LoadOp::create(lb, loc, input->get(),
                                                indices(op, *input, at)));
        }
        args.push_back(acc[0]);
        scf::YieldOp::create(lb, loc, inlinePayload(lb, op, args, at));
      });
  Value partial = fold.getResult(0);
  if (partials) {
    memref::StoreOp::create(b, loc, partial, partials, tid);
    gpu::BarrierOp::create(b, loc);
  }

  // Pairwise in shared memory down to 32 slots (to 1 without shuffles):
  // after the step of stride s, slot t < s holds the combination of slots
  // t, t + s, ... of the step before.
  for (int64_t stride = threads / 2; stride >= (shuffles ? 32 : 1);
       stride /= 2) {
    Value active = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                         tid, index(b, stride));
    auto step = scf::IfOp::create(b, loc, active);
    OpBuilder sb = OpBuilder::atBlockTerminator(step.thenBlock());
    Value mine = memref::LoadOp::create(sb, loc, partials, tid);
    Value other = memref::LoadOp::create(
        sb, loc, partials,
        ValueRange{arith::AddIOp::create(sb, loc, tid, index(sb, stride))});
    memref::StoreOp::create(sb, loc, combine(sb, r, mine, other), partials,
                            tid);
    gpu::BarrierOp::create(b, loc);
  }

  // The last 32 in registers: a butterfly of xor shuffles leaves every lane
  // of warp 0 with the combination of all 32 (every thread runs it, as
  // shuffles and barriers want uniform control flow; the other warps
  // combine values nobody reads).
  if (partials)
    partial = memref::LoadOp::create(b, loc, partials,
                                     shuffles ? tid : index(b, 0));
  Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
  for (int64_t offset = 16; shuffles && offset >= 1; offset /= 2) {
    Value other =
        gpu::ShuffleOp::create(
            b, loc, partial,
            arith::ConstantIntOp::create(b, loc, offset, 32), width,
            gpu::ShuffleMode::XOR)
            .getShuffleResult();
    partial = combine(b, r, partial, other);
  }

  Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                      index(b, 0));
  auto write = scf::IfOp::create(b, loc, first);
  OpBuilder wb = OpBuilder::atBlockTerminator(write.thenBlock());
  SmallVector<Value> outIndices = indices(op, out, ivs);
  Value init = memref::LoadOp::create(wb, loc, out.get(), outIndices);
  Value total = partial;
  memref::StoreOp::create(wb, loc, combine(wb, r, init, total), out.get(),
                          outIndices);
  rw.eraseOp(op);
}

struct GPUTileReductionPass
    : tfm::impl::GPUTileReductionPassBase<GPUTileReductionPass> {
  using Base::Base;
  GPUTileReductionPass(const GPUTileReductionPass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (isa_and_nonnull<GpuReductionAttr>(op->getAttr(kLoweringConfigAttr)))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : ops) {
      auto config = cast<GpuReductionAttr>(op->getAttr(kLoweringConfigAttr));
      std::optional<RowReduction> r = matchGpuRowReduction(op);
      if (!r) {
        op->emitOpError("-tfm-gpu-tile-reduction: carries ")
            << config << " but is not a row reduction the kernel takes";
        return signalPassFailure();
      }
      build(rw, op, *r, config.getThreads());
      ++kernels;
    }
  }

  PassStatistic kernels{this, numKernels, "kernels",
                        "Row reductions lowered to block-per-row kernels"};
};

} // namespace
