//===- GPUDistribute.cpp - parallel loop nests onto blocks and threads ----===//
//
// -tfm-gpu-distribute: every top-level scf.parallel of a host function
// becomes a 1-D grid of 1-D blocks (collapse, tile, map), and every other
// top-level op that touches memory becomes a one-thread kernel. The result
// is what convert-parallel-loops-to-gpu turns into gpu.launch ops.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/ParallelLoopMapper.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <numeric>

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUDISTRIBUTEPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// Whether `op` (or an op nested in it) reads or writes memory; allocation
/// and freeing do not count (they stay on the host). An op whose effects
/// are unknown counts unless it is pure.
bool touchesMemory(Operation *op) {
  WalkResult result = op->walk([&](Operation *inner) {
    bool touches;
    if (auto effects = dyn_cast<MemoryEffectOpInterface>(inner))
      touches = effects.hasEffect<MemoryEffects::Read>() ||
                effects.hasEffect<MemoryEffects::Write>();
    else
      // A region holder's body is visited by the walk itself.
      touches = !inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() &&
                !isPure(inner);
    return touches ? WalkResult::interrupt() : WalkResult::advance();
  });
  return result.wasInterrupted();
}

/// Threads for a nest of `iterations` (nullopt: dynamic) iterations.
int64_t threadsFor(std::optional<int64_t> iterations, int64_t maxThreads) {
  if (!iterations || *iterations >= maxThreads)
    return maxThreads;
  // Whole warps: a partial warp wastes the same issue slots anyway.
  return std::max<int64_t>(32, llvm::alignTo(*iterations, 32));
}

/// The static trip count of a collapsed one-dimensional loop, if known.
std::optional<int64_t> staticTripCount(scf::ParallelOp loop) {
  std::optional<int64_t> lb = getConstantIntValue(loop.getLowerBound()[0]);
  std::optional<int64_t> ub = getConstantIntValue(loop.getUpperBound()[0]);
  std::optional<int64_t> step = getConstantIntValue(loop.getStep()[0]);
  if (!lb || !ub || !step || *step <= 0)
    return std::nullopt;
  return llvm::divideCeil(std::max<int64_t>(0, *ub - *lb), *step);
}

struct GPUDistributePass
    : tfm::impl::GPUDistributePassBase<GPUDistributePass> {
  using Base::Base;
  GPUDistributePass(const GPUDistributePass &other) : Base(other) {}

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal())
      return;
    // The block limit is the target's (1024 without one).
    tfm::GpuTargetAttr target = tfm::getGpuTarget(func);
    int64_t limit = target ? target.getMaxThreadsPerBlock() : 1024;
    if (threadsPerBlock < 32 || threadsPerBlock > limit ||
        threadsPerBlock % 32 != 0) {
      func.emitError("-tfm-gpu-distribute: threads-per-block=")
          << static_cast<int64_t>(threadsPerBlock)
          << " must be a multiple of 32 in [32, " << limit << "]"
          << (target ? " (the target's max_threads_per_block)" : "");
      return signalPassFailure();
    }
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> topLevel;
    for (Block &block : func.getBody())
      for (Operation &op : block)
        topLevel.push_back(&op);
    for (Operation *op : topLevel) {
      if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
        if (failed(distribute(rewriter, loop)))
          return signalPassFailure();
        ++kernels;
        continue;
      }
      if (op->getDialect() &&
          isa<LLVM::LLVMDialect>(op->getDialect()))
        continue;
      // Kernels already built (-tfm-gpu-tile-contraction).
      if (isa<gpu::LaunchOp>(op))
        continue;
      if (op->hasTrait<OpTrait::IsTerminator>() || !touchesMemory(op))
        continue;
      if (failed(wrap(rewriter, op)))
        return signalPassFailure();
      ++wrapped;
      ++kernels;
    }
  }

  /// Collapse to one dimension, tile by the block size, map.
  LogicalResult distribute(IRRewriter &rewriter, scf::ParallelOp loop) {
    Operation *next = loop->getNextNode();
    Block *block = loop->getBlock();
    if (loop.getNumLoops() > 1) {
      std::vector<unsigned> all(loop.getNumLoops());
      std::iota(all.begin(), all.end(), 0);
      rewriter.setInsertionPoint(loop);
      collapseParallelLoops(rewriter, loop, {all});
      // The collapsed loop replaces the original at its place.
      loop = dyn_cast_or_null<scf::ParallelOp>(
          next ? next->getPrevNode() : &block->back());
      if (!loop)
        return emitError(block->getParentOp()->getLoc(),
                         "-tfm-gpu-distribute: collapsing a parallel loop "
                         "nest did not give one loop");
    }
    int64_t threads = threadsFor(staticTripCount(loop), threadsPerBlock);
    auto [outer, inner] =
        scf::tileParallelLoop(loop, {threads}, /*noMinMaxBounds=*/false);
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto mapTo = [&](gpu::Processor p) {
      return gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id);
    };
    if (failed(gpu::setMappingAttr(outer, {mapTo(gpu::Processor::BlockX)})) ||
        failed(gpu::setMappingAttr(inner, {mapTo(gpu::Processor::ThreadX)})))
      return outer.emitError("-tfm-gpu-distribute: cannot map the loop");
    // Loops nested deeper run sequentially in their thread.
    markSequential(inner.getBody());
    return success();
  }

  /// A one-iteration block of one thread around `op`.
  LogicalResult wrap(IRRewriter &rewriter, Operation *op) {
    for (Value result : op->getResults())
      for (Operation *user : result.getUsers())
        if (!op->isAncestor(user))
          return op->emitOpError(
              "reads or writes memory on the host and its result is used "
              "by later host code: it cannot become a GPU kernel");
    rewriter.setInsertionPoint(op);
    Location loc = op->getLoc();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto makeLoop = [&](gpu::Processor p) {
      auto loop = scf::ParallelOp::create(rewriter, loc, ValueRange{zero},
                                          ValueRange{one}, ValueRange{one});
      (void)gpu::setMappingAttr(
          loop, {gpu::ParallelLoopDimMappingAttr::get(ctx, p, id, id)});
      return loop;
    };
    scf::ParallelOp grid = makeLoop(gpu::Processor::BlockX);
    rewriter.setInsertionPointToStart(grid.getBody());
    scf::ParallelOp threads = makeLoop(gpu::Processor::ThreadX);
    op->moveBefore(threads.getBody()->getTerminator());
    // Parallel loops inside run sequentially in the one thread.
    markSequential(op);
    return success();
  }

  /// Maps every scf.parallel inside `root` to sequential loops of its
  /// thread (convert-parallel-loops-to-gpu leaves unmapped ones alone).
  void markSequential(llvm::PointerUnion<Operation *, Block *> root) {
    MLIRContext *ctx = &getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(1, ctx);
    auto mark = [&](scf::ParallelOp nested) {
      SmallVector<gpu::ParallelLoopDimMappingAttr> seq(
          nested.getNumLoops(), gpu::ParallelLoopDimMappingAttr::get(
                                    ctx, gpu::Processor::Sequential, id, id));
      (void)gpu::setMappingAttr(nested, seq);
    };
    if (auto *op = dyn_cast<Operation *>(root))
      op->walk(mark);
    else
      cast<Block *>(root)->walk(mark);
  }

  tfm::PassStatistic kernels{this, numKernels, "kernels",
                             "Parallel loop nests mapped to a grid of blocks"};
  tfm::PassStatistic wrapped{
      this, numWrapped, "host-ops-wrapped",
      "Top-level memory ops wrapped into one-thread kernels"};
};

} // namespace
