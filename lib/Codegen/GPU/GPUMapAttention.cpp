//===- GPUMapAttention.cpp - tiled attention as a grid of CTAs ------------===//
//
// -tfm-gpu-map-attention: the loop nest -tfm-tile-sram built for each
// tfm.attention (an scf.forall over batch, K/V head and query block around
// the online-softmax key loops) runs as one gpu.launch: one CTA per forall
// iteration, the tiles (scaled Q, scores, accumulator, running statistics,
// K/V staging) in shared memory, every tile op spread over the CTA's
// threads with a barrier after it. The tiling and the block skipping are
// the CPU's; only where the iterations run differs.
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
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUMAPATTENTIONPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Threads of an attention CTA: 8 warps (the tile ops have a few thousand
/// elements each: 4 to 16 per thread).
constexpr int64_t kAttentionThreads = 256;

/// Gives `buffer` and every view of it the address space `space`.
void moveToAddressSpace(Value buffer, Attribute space) {
  SmallVector<Value> worklist{buffer};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    v.setType(MemRefType::Builder(cast<MemRefType>(v.getType()))
                  .setMemorySpace(space));
    for (Operation *user : v.getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == v)
          llvm::append_range(worklist, user->getResults());
  }
}

/// A buffer whose only contents are one linalg.fill that every copy out of
/// it reads: those copies become fills of their targets and the buffer
/// goes (one-shot bufferization copies a zeroed tile shared by two
/// loop-carried buffers, the K and V staging tiles, into each).
void forwardFillThroughCopies(IRRewriter &rw, memref::AllocOp alloc) {
  linalg::FillOp fill;
  SmallVector<memref::CopyOp> copies;
  SmallVector<Operation *> deallocs;
  for (Operation *user : alloc->getUsers()) {
    if (auto f = dyn_cast<linalg::FillOp>(user);
        f && !fill && f.getOutputs()[0] == alloc.getResult()) {
      fill = f;
      continue;
    }
    if (auto copy = dyn_cast<memref::CopyOp>(user);
        copy && copy.getSource() == alloc.getResult()) {
      copies.push_back(copy);
      continue;
    }
    if (isa<memref::DeallocOp>(user)) {
      deallocs.push_back(user);
      continue;
    }
    return;
  }
  if (!fill || copies.empty() ||
      llvm::any_of(copies, [&](memref::CopyOp copy) {
        return copy->getBlock() != fill->getBlock() ||
               !fill->isBeforeInBlock(copy);
      }))
    return;
  Value value = fill.getInputs()[0];
  for (memref::CopyOp copy : copies) {
    rw.setInsertionPoint(copy);
    linalg::FillOp::create(rw, copy.getLoc(), value, copy.getTarget());
    rw.eraseOp(copy);
  }
  for (Operation *op : deallocs)
    rw.eraseOp(op);
  rw.eraseOp(fill);
  rw.eraseOp(alloc);
}

/// Replaces `loop` (from lowerToRegisterLoops) by a loop over its
/// iterations in row-major order in which thread `tid` of `threads` takes
/// iterations tid, tid + threads, ...; returns that loop.
scf::ForOp spreadOverThreads(IRRewriter &rw, scf::ParallelOp loop, Value tid,
                             Value threads) {
  Location loc = loop.getLoc();
  rw.setInsertionPoint(loop);
  SmallVector<Value> counts;
  Value total = arith::ConstantIndexOp::create(rw, loc, 1);
  for (auto [lb, ub, step] : llvm::zip(loop.getLowerBound(),
                                       loop.getUpperBound(), loop.getStep())) {
    Value extent = rw.createOrFold<arith::SubIOp>(loc, ub, lb);
    counts.push_back(rw.createOrFold<arith::CeilDivSIOp>(loc, extent, step));
    total = rw.createOrFold<arith::MulIOp>(loc, total, counts.back());
  }
  auto spread = scf::ForOp::create(rw, loc, tid, total, threads);
  rw.setInsertionPointToStart(spread.getBody());
  unsigned rank = counts.size();
  SmallVector<Value> ivs(rank);
  Value rest = spread.getInductionVar();
  for (unsigned i = rank; i-- > 0;) {
    Value index = rest;
    if (i > 0) {
      index = arith::RemUIOp::create(rw, loc, rest, counts[i]);
      rest = arith::DivUIOp::create(rw, loc, rest, counts[i]);
    }
    Value scaled =
        rw.createOrFold<arith::MulIOp>(loc, index, loop.getStep()[i]);
    ivs[i] = rw.createOrFold<arith::AddIOp>(loc, loop.getLowerBound()[i],
                                            scaled);
  }
  Block *body = loop.getBody();
  rw.eraseOp(body->getTerminator());
  rw.inlineBlockBefore(body, spread.getBody()->getTerminator(), ivs);
  rw.eraseOp(loop);
  return spread;
}

/// Assigns each of `allocs` (tiles in the forall body `body`) a buffer
/// (`slotOf`, into `slotTypes`): tiles of one type share a buffer when the
/// spans of body-level ops that use them (through views; deallocations do
/// not count) are disjoint, the first-ending buffer first.
void shareBuffers(Block &body, MutableArrayRef<memref::AllocOp> allocs,
                  SmallVector<unsigned> &slotOf,
                  SmallVector<MemRefType> &slotTypes) {
  DenseMap<Operation *, unsigned> position;
  for (Operation &op : body)
    position[&op] = position.size();
  struct Span {
    unsigned first, last, index;
  };
  SmallVector<Span> spans;
  for (unsigned index = 0; index < allocs.size(); ++index) {
    memref::AllocOp alloc = allocs[index];
    unsigned at = position.lookup(body.findAncestorOpInBlock(*alloc));
    Span span{at, at, index};
    SmallVector<Value> worklist{alloc.getResult()};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (isa<memref::DeallocOp>(user))
          continue;
        if (auto view = dyn_cast<ViewLikeOpInterface>(user);
            view && view.getViewSource() == v)
          llvm::append_range(worklist, user->getResults());
        unsigned p = position.lookup(body.findAncestorOpInBlock(*user));
        span.first = std::min(span.first, p);
        span.last = std::max(span.last, p);
      }
    }
    spans.push_back(span);
  }
  llvm::sort(spans, [](const Span &a, const Span &b) {
    return std::tie(a.first, a.index) < std::tie(b.first, b.index);
  });
  slotOf.assign(allocs.size(), 0);
  SmallVector<unsigned> slotEnd;
  for (const Span &span : spans) {
    MemRefType type = memref::AllocOp(allocs[span.index]).getType();
    unsigned slot = slotTypes.size();
    for (unsigned s = 0; s < slotTypes.size(); ++s)
      if (slotTypes[s] == type && slotEnd[s] < span.first) {
        slot = s;
        break;
      }
    if (slot == slotTypes.size()) {
      slotTypes.push_back(type);
      slotEnd.push_back(span.last);
    } else {
      slotEnd[slot] = span.last;
    }
    slotOf[span.index] = slot;
  }
}

/// Whether `op` has `buffer` as its only output and computes every element
/// of it: a static buffer indexed by a permutation of parallel loops whose
/// static extents are the buffer's.
bool coversWhole(linalg::LinalgOp op, Value buffer) {
  if (op.getNumDpsInits() != 1 || op.getDpsInits()[0] != buffer ||
      !canLowerToRegisterLoops(op))
    return false;
  // It must not read the tile as an input too (it would see no fill).
  for (OpOperand *input : op.getDpsInputOperands())
    if (viewRoot(input->get()) == viewRoot(buffer))
      return false;
  auto type = dyn_cast<MemRefType>(buffer.getType());
  if (!type || !type.hasStaticShape())
    return false;
  AffineMap map = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (!map.isProjectedPermutation() ||
      map.getNumResults() != static_cast<unsigned>(type.getRank()))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [i, e] : llvm::enumerate(map.getResults()))
    if (ranges[cast<AffineDimExpr>(e).getPosition()] != type.getDimSize(i))
      return false;
  return true;
}

struct GPUMapAttentionPass
    : tfm::impl::GPUMapAttentionPassBase<GPUMapAttentionPass> {
  using Base::Base;
  GPUMapAttentionPass(const GPUMapAttentionPass &other) : Base(other) {}

  void runOnOperation() override {
    GpuTargetAttr target = getGpuTarget(getOperation());
    if (!target)
      return;
    // Every forall: -tfm-tile-sram's loop nests are the only ones on this
    // pipeline, and canonicalization may have dropped the tiling they carry
    // (a forall whose bounds fold to constants is rebuilt without it).
    SmallVector<scf::ForallOp> nests;
    getOperation()->walk([&](scf::ForallOp forall) { nests.push_back(forall); });
    IRRewriter rw(&getContext());
    for (scf::ForallOp forall : nests)
      if (failed(map(rw, forall, target)))
        return signalPassFailure();
  }

  /// Checks that every op of the body is one the mapping takes.
  LogicalResult check(scf::ForallOp forall) {
    if (forall.getRank() > 3 || !forall.getOutputs().empty() ||
        !llvm::all_of(forall.getMixedLowerBound(),
                      [](OpFoldResult r) { return isConstantIntValue(r, 0); }) ||
        !llvm::all_of(forall.getMixedStep(),
                      [](OpFoldResult r) { return isConstantIntValue(r, 1); }))
      return forall.emitOpError(
          "-tfm-gpu-map-attention: expected a bufferized tiled attention: "
          "at most three loops (batch, K/V head, query block; "
          "canonicalization drops those of one iteration) from 0 in steps "
          "of 1");
    WalkResult result = forall.getBody()->walk([&](Operation *op) {
      if (isa<linalg::LinalgOp>(op))
        return WalkResult::skip();
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!alloc.getType().hasStaticShape()) {
          op->emitOpError("-tfm-gpu-map-attention: a tile buffer of dynamic "
                          "shape cannot be in shared memory");
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      }
      if (isa<memref::CopyOp, memref::DeallocOp, memref::LoadOp, scf::ForOp,
              scf::YieldOp, scf::InParallelOp>(op) ||
          isMemoryEffectFree(op))
        return WalkResult::advance();
      op->emitOpError("-tfm-gpu-map-attention: cannot run in a CTA of the "
                      "tiled attention (not a tile op, a copy, a load, a "
                      "pure op or a loop of those)");
      return WalkResult::interrupt();
    });
    return failure(result.wasInterrupted());
  }

  LogicalResult map(IRRewriter &rw, scf::ForallOp forall,
                    GpuTargetAttr target) {
    if (failed(check(forall)))
      return failure();
    Location loc = forall.getLoc();
    Block *body = forall.getBody();

    // The tiles: shared memory.
    SmallVector<memref::AllocOp> allocs;
    body->walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    for (memref::AllocOp alloc : allocs)
      forwardFillThroughCopies(rw, alloc);
    allocs.clear();
    body->walk([&](memref::AllocOp alloc) { allocs.push_back(alloc); });
    // Tiles of one type whose lifetimes do not overlap share a buffer
    // (bufferization gives each key loop its own rounded K and V tiles, say).
    SmallVector<unsigned> slotOf;
    SmallVector<MemRefType> slotTypes;
    shareBuffers(*body, allocs, slotOf, slotTypes);
    SmallVector<Type> workgroupTypes;
    auto space = gpu::AddressSpaceAttr::get(&getContext(),
                                            gpu::AddressSpace::Workgroup);
    for (MemRefType type : slotTypes)
      workgroupTypes.push_back(
          MemRefType::get(type.getShape(), type.getElementType(),
                          MemRefLayoutAttrInterface(), space));
    int64_t sharedBytes = workgroupBytes(workgroupTypes);
    if (sharedBytes > target.getSharedMemoryBytes()) {
      InFlightDiagnostic diag =
          forall.emitOpError("-tfm-gpu-map-attention: the attention tiles "
                             "take ")
          << sharedBytes << " bytes of shared memory, more than the "
          << target.getSharedMemoryBytes()
          << " a block of the target has (-tfm-configure-attention sizes "
             "tiles for the target";
      if (Attribute config = forall->getAttr(kLoweringConfigAttr))
        diag << "; these are " << config;
      return diag << ")";
    }

    // Copies become tile ops like the others.
    SmallVector<memref::CopyOp> copies;
    body->walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    for (memref::CopyOp copy : copies) {
      rw.setInsertionPoint(copy);
      linalg::CopyOp::create(rw, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      rw.eraseOp(copy);
    }

    // The launch: the forall's last loop (query blocks) on grid x, the one
    // before (K/V heads) on y, the first (batch) on z; unused grid
    // dimensions have one block.
    rw.setInsertionPoint(forall);
    SmallVector<Value> ubs =
        getValueOrCreateConstantIndexOp(rw, loc, forall.getMixedUpperBound());
    int64_t threads =
        std::min<int64_t>(kAttentionThreads, target.getMaxThreadsPerBlock());
    Value threadsV = arith::ConstantIndexOp::create(rw, loc, threads);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    unsigned rank = ubs.size();
    SmallVector<Value> grid(3, one);
    for (unsigned i = 0; i < rank; ++i)
      grid[i] = ubs[rank - 1 - i];
    auto [launch, inner] = createKernelLaunch(
        rw, loc, grid, {threadsV, one, one}, workgroupTypes,
        plannedRegisters(forall->getAttr(kLoweringConfigAttr)));
    if (Attribute config = forall->getAttr(kLoweringConfigAttr))
      launch->setAttr(kLoweringConfigAttr, config);
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    Value ids[3] = {blockIds.x, blockIds.y, blockIds.z};
    SmallVector<Value> ivs;
    for (unsigned i = 0; i < rank; ++i)
      ivs.push_back(ids[rank - 1 - i]);
    rw.eraseOp(body->getTerminator());
    rw.inlineBlockBefore(body, launch.getBody().front().getTerminator(), ivs);
    rw.eraseOp(forall);

    for (auto [alloc, slot] : llvm::zip(allocs, slotOf)) {
      Value buffer = launch.getWorkgroupAttributions()[slot];
      for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
        if (isa<memref::DeallocOp>(user))
          rw.eraseOp(user);
      moveToAddressSpace(alloc.getResult(), space);
      rw.replaceAllUsesWith(alloc.getResult(), buffer);
      rw.eraseOp(alloc);
    }

    // Every tile op over the threads, a barrier after it. A fill right
    // before an op that computes every element of the filled tile from it
    // (the scores' zeros before Q K^T, the block maximum's -inf before the
    // row maximum) becomes that op's initial value: one pass and one
    // barrier less.
    SmallVector<linalg::LinalgOp> ops;
    launch.getBody().walk([&](linalg::LinalgOp op) { ops.push_back(op); });
    Value tid = launch.getThreadIds().x;
    rw.setInsertionPointToStart(&launch.getBody().front());
    Value blockThreads = launch.getBlockSize().x;
    DenseMap<Operation *, Value> foldedFill; // op -> its initial value
    llvm::SmallPtrSet<Operation *, 8> folded;  // the fills folded into it
    for (linalg::LinalgOp op : ops)
      if (auto fill = dyn_cast<linalg::FillOp>(op.getOperation()))
        if (auto next = dyn_cast_or_null<linalg::LinalgOp>(
                fill->getNextNode());
            next && coversWhole(next, fill.getOutputs()[0])) {
          foldedFill[next] = fill.getInputs()[0];
          folded.insert(fill);
          ++foldedFills;
        }
    for (linalg::LinalgOp op : ops) {
      if (!canLowerToRegisterLoops(op))
        return op->emitOpError("-tfm-gpu-map-attention: a tile op whose "
                               "outputs depend on reduction loops");
      if (folded.contains(op.getOperation())) {
        rw.eraseOp(op);
        continue;
      }
      SmallVector<Value> initial;
      if (Value v = foldedFill.lookup(op.getOperation()))
        initial.push_back(v);
      scf::ParallelOp loop = lowerToRegisterLoops(rw, op, /*rows=*/1, initial);
      scf::ForOp spread = spreadOverThreads(rw, loop, tid, blockThreads);
      rw.setInsertionPointAfter(spread);
      gpu::BarrierOp::create(rw, spread.getLoc());
      ++tileOps;
    }
    ++mapped;
    return success();
  }

  PassStatistic mapped{this, numMapped, "mapped",
                       "Tiled attention loop nests mapped to CTAs"};
  PassStatistic tileOps{this, numTileOps, "tile-ops",
                        "Tile ops spread over a CTA's threads"};
  PassStatistic foldedFills{this, numFoldedFills, "folded-fills",
                            "Fills folded into the tile op after them"};
};

} // namespace
