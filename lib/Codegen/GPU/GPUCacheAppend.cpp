//===- GPUCacheAppend.cpp - a KV cache append as one parallel loop nest ---===//
//
// -tfm-gpu-cache-append: the bufferized lowering of tfm.cache_append is an
// scf.for over the sequences (tfm.independent_iterations) whose body reads
// the sequence's offset and row count and copies that many rows of the
// update into its cache slice. On a GPU that loop would be one thread
// copying every row; here it becomes one scf.parallel over the sequence and
// every element of the copy's source window, each guarded by the
// sequence's row count, which -tfm-gpu-distribute runs as one kernel.
// The copy is a memref.copy, or, into a 16-bit cache
// (-tfm-narrow-kv-cache), an elementwise linalg.generic that rounds each
// element on its way: its body then runs on each loaded element.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUCACHEAPPENDPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// Whether `op` writes memory (an op with unknown effects does).
bool writes(Operation *op) {
  if (auto effects = dyn_cast<MemoryEffectOpInterface>(op))
    return effects.hasEffect<MemoryEffects::Write>() ||
           effects.hasEffect<MemoryEffects::Free>() ||
           effects.hasEffect<MemoryEffects::Allocate>();
  return !isPure(op);
}

/// A loop body's final copy from `source` to `target` (same shape): a
/// memref.copy, or a linalg.generic on buffers with one input and one
/// output, identity maps and parallel loops whose pure body reads only the
/// input element (`convert`: a copy that converts each element).
struct ElementCopy {
  Operation *op = nullptr;
  Value source, target;
  linalg::GenericOp convert;
};

std::optional<ElementCopy> matchElementCopy(Operation *op) {
  if (auto copy = dyn_cast_or_null<memref::CopyOp>(op))
    return ElementCopy{op, copy.getSource(), copy.getTarget(), {}};
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  if (!generic || !generic.hasPureBufferSemantics() ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumReductionLoops() != 0 ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return std::nullopt;
  Block *body = generic.getBody();
  if (!body->getArgument(1).use_empty() ||
      !llvm::all_of(body->without_terminator(),
                    [](Operation &o) { return isPure(&o); }))
    return std::nullopt;
  return ElementCopy{op, generic.getDpsInputs()[0], generic.getDpsInits()[0],
                     generic};
}

struct GPUCacheAppendPass
    : tfm::impl::GPUCacheAppendPassBase<GPUCacheAppendPass> {
  using Base::Base;
  GPUCacheAppendPass(const GPUCacheAppendPass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<scf::ForOp> loops;
    getOperation().walk([&](scf::ForOp loop) {
      if (loop->hasAttr(tfm::kIndependentIterationsAttr))
        loops.push_back(loop);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ForOp loop : loops) {
      if (failed(parallelize(rewriter, loop)))
        return signalPassFailure();
      ++appends;
    }
  }

  /// `scf.for %b { pure ops and reads; copy %src to %dst }` with %src a
  /// subview [..., sizes s_i] of a buffer %m defined above the loop, at
  /// offset 0 along each dynamic s_i => `scf.parallel (%b, %i...) to (...,
  /// s_i static or dim(%m, i)) { the ops; if all %i_j < s_j: dst[i] =
  /// f(src[i]) }`, f the copy's element conversion (if any).
  LogicalResult parallelize(IRRewriter &rewriter, scf::ForOp loop) {
    auto fail = [&](const Twine &why) {
      return loop.emitOpError("-tfm-gpu-cache-append: a loop marked ")
             << tfm::kIndependentIterationsAttr << " " << why;
    };
    if (loop.getNumRegionIterArgs() != 0)
      return fail("carries values; expected a bufferized loop over sequences");
    Block *body = loop.getBody();
    std::optional<ElementCopy> copy =
        matchElementCopy(body->getTerminator()->getPrevNode());
    if (!copy)
      return fail("does not end with a memref.copy or an elementwise "
                  "linalg.generic copy");
    for (Operation &op : body->without_terminator())
      if (&op != copy->op && writes(&op))
        return fail("writes memory before its copy");
    auto source = copy->source.getDefiningOp<memref::SubViewOp>();
    auto sourceType = cast<MemRefType>(copy->source.getType());
    auto targetType = cast<MemRefType>(copy->target.getType());
    if (!source || source->getBlock() != body ||
        sourceType.getShape() != targetType.getShape() ||
        source.getSourceType().getRank() != sourceType.getRank() ||
        !loop.isDefinedOutsideOfLoop(source.getSource()))
      return fail("copies from something other than a same-rank view of a "
                  "buffer defined outside the loop");

    // Each dimension's bound: its static size, or the viewed buffer's
    // size where the view starts at 0 (a window of leading rows).
    rewriter.setInsertionPoint(loop);
    Location loc = loop.getLoc();
    Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
    Value one = arith::ConstantIndexOp::create(rewriter, loc, 1);
    SmallVector<Value> lbs{loop.getLowerBound()}, ubs{loop.getUpperBound()},
        steps{loop.getStep()};
    SmallVector<int64_t> guarded;
    for (int64_t i = 0; i < sourceType.getRank(); ++i) {
      lbs.push_back(zero);
      steps.push_back(one);
      if (!sourceType.isDynamicDim(i)) {
        ubs.push_back(arith::ConstantIndexOp::create(
            rewriter, loc, sourceType.getDimSize(i)));
        continue;
      }
      std::optional<int64_t> offset =
          getConstantIntValue(source.getMixedOffsets()[i]);
      std::optional<int64_t> stride =
          getConstantIntValue(source.getMixedStrides()[i]);
      if (!offset || *offset != 0 || !stride || *stride != 1)
        return fail("copies a window that does not start at 0 along its "
                    "dynamic dimension " +
                    Twine(i));
      ubs.push_back(
          memref::DimOp::create(rewriter, loc, source.getSource(), i));
      guarded.push_back(i);
    }
    auto nest = scf::ParallelOp::create(rewriter, loc, lbs, ubs, steps);
    rewriter.setInsertionPointToStart(nest.getBody());
    IRMapping map;
    map.map(loop.getInductionVar(), nest.getInductionVars()[0]);
    for (Operation &op : body->without_terminator())
      if (&op != copy->op)
        rewriter.clone(op, map);
    SmallVector<Value> ivs(llvm::drop_begin(nest.getInductionVars()));
    Value inside;
    for (int64_t i : guarded) {
      Value size =
          map.lookupOrDefault(cast<Value>(source.getMixedSizes()[i]));
      Value below = arith::CmpIOp::create(
          rewriter, loc, arith::CmpIPredicate::ult, ivs[i], size);
      inside = inside ? arith::AndIOp::create(rewriter, loc, inside, below)
                            .getResult()
                      : below;
    }
    auto element = [&](OpBuilder &b, Location l) {
      Value v = memref::LoadOp::create(b, l, map.lookup(copy->source), ivs);
      if (copy->convert) {
        Block *convert = copy->convert.getBody();
        IRMapping elementMap;
        elementMap.map(convert->getArgument(0), v);
        for (Operation &op : convert->without_terminator())
          b.clone(op, elementMap);
        v = elementMap.lookup(convert->getTerminator()->getOperand(0));
      }
      memref::StoreOp::create(b, l, v, map.lookup(copy->target), ivs);
    };
    if (inside)
      scf::IfOp::create(rewriter, loc, inside,
                        [&](OpBuilder &b, Location l) {
                          element(b, l);
                          scf::YieldOp::create(b, l);
                        });
    else
      element(rewriter, loc);
    rewriter.eraseOp(loop);
    return success();
  }

  tfm::PassStatistic appends{this, numAppends, "appends",
                             "Loops over sequences run as one parallel nest"};
};

} // namespace
