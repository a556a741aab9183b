//===- GPULinalgToLoops.cpp - linalg ops to one-thread-per-output loops ---===//
//
// -tfm-gpu-linalg-to-loops: a linalg op on buffers becomes an scf.parallel
// over its parallel dimensions whose body computes one output element: its
// reduction dimensions are scf.for loops that carry the accumulator in a
// register (iter_args), the output is read once before them and written
// once after. Upstream's convert-linalg-to-parallel-loops instead reads and
// writes the output element at every reduction step, which on a GPU is a
// global-memory round trip per multiply-add.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPULINALGTOLOOPSPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// The element of `operand` that iteration `ivs` reads or writes, per the
/// operand's indexing map.
SmallVector<Value> indicesFor(OpBuilder &b, Location loc, AffineMap map,
                              ValueRange ivs) {
  SmallVector<Value> indices;
  for (AffineExpr expr : map.getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      indices.push_back(ivs[dim.getPosition()]);
      continue;
    }
    AffineMap one = AffineMap::get(map.getNumDims(), 0, expr);
    indices.push_back(affine::AffineApplyOp::create(b, loc, one, ivs));
  }
  return indices;
}

Value readElement(OpBuilder &b, Location loc, OpOperand &operand,
                  AffineMap map, ValueRange ivs) {
  Value v = operand.get();
  if (!isa<MemRefType>(v.getType()))
    return v; // a scalar operand
  return memref::LoadOp::create(b, loc, v, indicesFor(b, loc, map, ivs));
}

} // namespace

bool mlir::tfm::canLowerToRegisterLoops(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumRegions() != 1 ||
      op->getRegion(0).empty())
    return false;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (OpOperand &init : op.getDpsInitsMutable()) {
    for (AffineExpr e : op.getMatchingIndexingMap(&init).getResults()) {
      bool usesReduction = false;
      e.walk([&](AffineExpr sub) {
        if (auto d = dyn_cast<AffineDimExpr>(sub))
          usesReduction |= iterators[d.getPosition()] ==
                           utils::IteratorType::reduction;
      });
      if (usesReduction)
        return false;
    }
  }
  return true;
}

namespace {

/// The parallel dimension whose consecutive values one thread computes
/// together: the innermost parallel dimension except the last (which spreads
/// over neighbouring threads for coalesced accesses) that some input does
/// not depend on, so that input's elements are read once for all of them
/// (a GEMM's rows: B[k, n] is shared by the rows m). -1 if none.
int chooseRowDim(linalg::LinalgOp op, ArrayRef<unsigned> parallel) {
  if (parallel.size() < 2)
    return -1;
  for (unsigned d : llvm::reverse(parallel.drop_back())) {
    bool someInputIndependent = false;
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          !op.getMatchingIndexingMap(input).isFunctionOfDim(d))
        someInputIndependent = true;
    if (someInputIndependent)
      return d;
  }
  return -1;
}

/// The loop whose `width` consecutive iterations one thread of an
/// all-parallel `op` computes with vector loads and stores, if it can:
/// the loop that indexes the output's last dimension, with a static
/// extent that `width` divides; every buffer it indexes has that loop as
/// its last index (contiguous) over aligned rows (an input may instead not
/// depend on it: its element is read once and broadcast); every payload op
/// is elementwise-mappable (arith, math) or a constant, and the payload
/// does not read the loop's index.
std::optional<unsigned> vectorLoop(linalg::LinalgOp op, int64_t width) {
  if (op.getNumDpsInits() != 1 ||
      llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
        return t != utils::IteratorType::parallel;
      }))
    return std::nullopt;
  OpOperand *out = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  auto outType = dyn_cast<MemRefType>(out->get().getType());
  if (!outType || outMap.getNumResults() == 0)
    return std::nullopt;
  auto last = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  if (!last)
    return std::nullopt;
  unsigned v = last.getPosition();
  int64_t extent = op.getStaticLoopRanges()[v];
  if (ShapedType::isDynamic(extent) || extent % width != 0)
    return std::nullopt;
  // A loop nest left with one iteration would be folded away
  // (canonicalization) and its body left on the host.
  bool oneIteration = extent == width;
  for (auto [d, e] : llvm::enumerate(op.getStaticLoopRanges()))
    if (d != v && e != 1)
      oneIteration = false;
  if (oneIteration)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    auto type = dyn_cast<MemRefType>(operand.get().getType());
    if (!type)
      continue;
    if (!type.getElementType().isIntOrFloat())
      return std::nullopt;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    if (!map.isProjectedPermutation())
      return std::nullopt;
    if (!map.isFunctionOfDim(v))
      continue;
    if (map.getResults().back() != last || !tfm::hasAlignedRows(type, width))
      return std::nullopt;
  }
  for (Operation &inner : op->getRegion(0).front().without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      if (index.getDim() == v)
        return std::nullopt;
      continue;
    }
    if (isa<arith::ConstantOp>(inner))
      continue;
    if (!inner.hasTrait<OpTrait::Elementwise>() ||
        !inner.hasTrait<OpTrait::Vectorizable>() ||
        inner.getNumRegions() != 0 ||
        llvm::any_of(inner.getResultTypes(),
                     [](Type t) { return !t.isIntOrFloat(); }))
      return std::nullopt;
  }
  return v;
}

/// The body of an all-parallel op's iteration that computes `width`
/// consecutive elements along loop `v` (vectorLoop): vector loads of the
/// inputs indexed by `v` (aligned), a broadcast of the others, the payload
/// on vectors (scalars it captures or defines broadcast where a vector
/// operand is wanted), one vector store.
void lowerVectorized(OpBuilder &b, linalg::LinalgOp op, ArrayRef<Value> ivs,
                     unsigned v, int64_t width) {
  Location loc = op.getLoc();
  auto vectorOf = [&](Type t) { return VectorType::get({width}, t); };
  auto alignment = [&](Type element) {
    return llvm::MaybeAlign(
        width * llvm::divideCeil(element.getIntOrFloatBitWidth(), 8));
  };
  IRMapping map;
  Block &body = op->getRegion(0).front();
  auto widen = [&](Value x) -> Value {
    if (isa<VectorType>(x.getType()))
      return x;
    return vector::BroadcastOp::create(b, loc, vectorOf(x.getType()), x);
  };
  for (OpOperand *input : op.getDpsInputOperands()) {
    BlockArgument arg = body.getArgument(input->getOperandNumber());
    Value source = input->get();
    if (!isa<MemRefType>(source.getType())) {
      map.map(arg, source);
      continue;
    }
    AffineMap m = op.getMatchingIndexingMap(input);
    SmallVector<Value> at = indicesFor(b, loc, m, ivs);
    Type element = cast<MemRefType>(source.getType()).getElementType();
    if (m.isFunctionOfDim(v))
      map.map(arg, vector::LoadOp::create(b, loc, vectorOf(element), source, at,
                                          /*nontemporal=*/false,
                                          alignment(element)));
    else
      map.map(arg, memref::LoadOp::create(b, loc, source, at));
  }
  OpOperand *out = op.getDpsInitOperand(0);
  AffineMap outMap = op.getMatchingIndexingMap(out);
  SmallVector<Value> outAt = indicesFor(b, loc, outMap, ivs);
  Type outElement = cast<MemRefType>(out->get().getType()).getElementType();
  BlockArgument outArg = body.getArgument(op.getNumDpsInputs());
  if (!outArg.use_empty())
    map.map(outArg,
            vector::LoadOp::create(b, loc, vectorOf(outElement), out->get(),
                                   outAt, false, alignment(outElement)));
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    if (isa<arith::ConstantOp>(inner)) {
      b.clone(inner, map);
      continue;
    }
    OperationState state(inner.getLoc(), inner.getName());
    for (Value operand : inner.getOperands())
      state.addOperands(widen(map.lookupOrDefault(operand)));
    for (Type t : inner.getResultTypes())
      state.addTypes(vectorOf(t));
    state.addAttributes(inner.getAttrs());
    Operation *vectorOp = b.create(state);
    map.map(inner.getResults(), vectorOp->getResults());
  }
  Value result =
      widen(map.lookupOrDefault(body.getTerminator()->getOperand(0)));
  vector::StoreOp::create(b, loc, result, out->get(), outAt, false,
                          alignment(outElement));
}

} // namespace

scf::ParallelOp mlir::tfm::lowerToRegisterLoops(IRRewriter &rw,
                                                linalg::LinalgOp op,
                                                unsigned rows,
                                                ValueRange initialValues,
                                                int64_t vectorWidth) {
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  SmallVector<Range> ranges = op.createLoopRanges(rw, loc);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto value = [&](OpFoldResult r) {
    return getValueOrCreateConstantIndexOp(rw, loc, r);
  };
  SmallVector<unsigned> parallel, reduction;
  for (auto [i, it] : llvm::enumerate(iterators))
    (it == utils::IteratorType::reduction ? reduction : parallel)
        .push_back(i);

  int rowDim = reduction.empty() || rows < 2 ? -1 : chooseRowDim(op, parallel);
  int vectorDim = -1;
  if (vectorWidth > 1 && initialValues.empty())
    if (std::optional<unsigned> v = vectorLoop(op, vectorWidth))
      vectorDim = *v;
  SmallVector<Value> lbs, ubs, steps;
  for (unsigned d : parallel) {
    lbs.push_back(value(ranges[d].offset));
    ubs.push_back(value(ranges[d].size));
    steps.push_back(int(d) == rowDim
                        ? arith::ConstantIndexOp::create(rw, loc, rows)
                    : int(d) == vectorDim
                        ? arith::ConstantIndexOp::create(rw, loc, vectorWidth)
                        : value(ranges[d].stride));
  }
  if (parallel.empty()) {
    // A full reduction: one iteration (one thread) computes it.
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    lbs.push_back(zero);
    ubs.push_back(one);
    steps.push_back(one);
  }
  auto outer = scf::ParallelOp::create(rw, loc, lbs, ubs, steps);
  rw.setInsertionPointToStart(outer.getBody());
  SmallVector<Value> ivs(iterators.size());
  for (auto [k, d] : llvm::enumerate(parallel))
    ivs[d] = outer.getInductionVars()[k];

  unsigned numInputs = op.getNumDpsInputs();
  auto inits = op.getDpsInitsMutable();
  // The outputs' current values: read once (only when the payload uses
  // them). Their indices do not depend on reduction dimensions.
  auto readInits = [&](OpBuilder &b, ValueRange at) {
    SmallVector<Value> values;
    if (!initialValues.empty())
      return SmallVector<Value>(initialValues);
    Block &body = op->getRegion(0).front();
    for (auto [k, init] : llvm::enumerate(inits)) {
      BlockArgument arg = body.getArgument(numInputs + k);
      if (arg.use_empty() && reduction.empty()) {
        // Write-only output: nothing to read; the unused block argument is
        // bound to the buffer itself and never looked up.
        values.push_back(init.get());
        continue;
      }
      values.push_back(readElement(b, loc, init,
                                   op.getMatchingIndexingMap(&init), at));
    }
    return values;
  };
  auto readInputs = [&](OpBuilder &b, ValueRange at) {
    SmallVector<Value> values;
    for (OpOperand *input : op.getDpsInputOperands())
      values.push_back(readElement(b, loc, *input,
                                   op.getMatchingIndexingMap(input), at));
    return values;
  };

  SmallVector<Value> results;
  if (reduction.empty() && vectorDim >= 0) {
    lowerVectorized(rw, op, ivs, vectorDim, vectorWidth);
    rw.eraseOp(op);
    return outer;
  }
  if (reduction.empty()) {
    SmallVector<Value> args = readInputs(rw, ivs);
    llvm::append_range(args, readInits(rw, ivs));
    results = tfm::inlinePayload(rw, op, args, ivs);
    for (auto [k, init] : llvm::enumerate(inits))
      memref::StoreOp::create(
          rw, loc, results[k], init.get(),
          indicesFor(rw, loc, op.getMatchingIndexingMap(&init), ivs));
    rw.eraseOp(op);
    return outer;
  }

  // Lanes: the `rows` consecutive values of `rowDim` this thread computes
  // (one lane without a row dimension). A lane past the end reads the last
  // row again (clamped: every load stays in bounds) and stores nothing.
  unsigned lanes = rowDim >= 0 ? rows : 1;
  SmallVector<SmallVector<Value>> laneIvs(lanes, ivs);
  SmallVector<Value> inRange(lanes);
  if (rowDim >= 0) {
    Value base = ivs[rowDim];
    Value ub = value(ranges[rowDim].size);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    Value last = arith::SubIOp::create(rw, loc, ub, one);
    for (unsigned u = 1; u < lanes; ++u) {
      Value row = arith::AddIOp::create(
          rw, loc, base, arith::ConstantIndexOp::create(rw, loc, u));
      inRange[u] = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt,
                                         row, ub);
      laneIvs[u][rowDim] = arith::MinSIOp::create(rw, loc, row, last);
    }
  }
  unsigned numInits = inits.size();
  SmallVector<Value> accs;
  for (unsigned u = 0; u < lanes; ++u)
    llvm::append_range(accs, readInits(rw, laneIvs[u]));

  // Reduction loops, outermost first, carrying every lane's accumulators.
  std::function<SmallVector<Value>(OpBuilder &, unsigned, ValueRange)>
      build = [&](OpBuilder &b, unsigned level,
                  ValueRange carried) -> SmallVector<Value> {
    unsigned d = reduction[level];
    auto loop = scf::ForOp::create(
        b, loc, value(ranges[d].offset), value(ranges[d].size),
        value(ranges[d].stride), carried,
        [&](OpBuilder &nb, Location, Value iv, ValueRange iterArgs) {
          for (SmallVector<Value> &l : laneIvs)
            l[d] = iv;
          SmallVector<Value> next;
          if (level + 1 < reduction.size()) {
            next = build(nb, level + 1, iterArgs);
          } else {
            // An input that does not depend on the row is read once for
            // all lanes: that reuse is what the lanes are for.
            SmallVector<SmallVector<Value>> laneArgs(lanes);
            for (OpOperand *input : op.getDpsInputOperands()) {
              AffineMap map = op.getMatchingIndexingMap(input);
              bool perLane = rowDim >= 0 && map.isFunctionOfDim(rowDim);
              Value shared;
              for (unsigned u = 0; u < lanes; ++u) {
                if (perLane || !shared)
                  shared = readElement(nb, loc, *input, map, laneIvs[u]);
                laneArgs[u].push_back(shared);
              }
            }
            for (unsigned u = 0; u < lanes; ++u) {
              llvm::append_range(
                  laneArgs[u], iterArgs.slice(u * numInits, numInits));
              llvm::append_range(next,
                                 tfm::inlinePayload(nb, op, laneArgs[u],
                                               laneIvs[u]));
            }
          }
          scf::YieldOp::create(nb, loc, next);
        });
    return SmallVector<Value>(loop.getResults());
  };
  results = build(rw, 0, accs);
  for (unsigned u = 0; u < lanes; ++u) {
    OpBuilder::InsertionGuard guard(rw);
    if (u > 0) {
      auto inside = scf::IfOp::create(rw, loc, inRange[u]);
      rw.setInsertionPoint(inside.thenBlock()->getTerminator());
    }
    for (auto [k, init] : llvm::enumerate(inits))
      memref::StoreOp::create(
          rw, loc, results[u * numInits + k], init.get(),
          indicesFor(rw, loc, op.getMatchingIndexingMap(&init),
                     laneIvs[u]));
  }
  rw.eraseOp(op);
  return outer;
}

namespace {

struct GPULinalgToLoopsPass
    : tfm::impl::GPULinalgToLoopsPassBase<GPULinalgToLoopsPass> {
  using Base::Base;
  GPULinalgToLoopsPass(const GPULinalgToLoopsPass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (tfm::canLowerToRegisterLoops(op))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : ops) {
      if (llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
            return t == utils::IteratorType::reduction;
          }))
        ++reductions;
      scf::ParallelOp loop = tfm::lowerToRegisterLoops(
          rw, op, rowsPerThread, /*initialValues=*/{}, vectorWidth);
      bool vectorized = false;
      loop.getBody()->walk([&](vector::StoreOp) { vectorized = true; });
      if (vectorized)
        ++vectorizedOps;
      ++lowered;
    }
  }

  tfm::PassStatistic lowered{this, numLowered, "lowered-ops",
                             "linalg ops lowered to loop nests"};
  tfm::PassStatistic reductions{
      this, numReductions, "register-reductions",
      "Of them, reductions accumulating in a register"};
  tfm::PassStatistic vectorizedOps{
      this, numVectorized, "vectorized-ops",
      "Of them, elementwise ops computing vectors of consecutive elements"};
};

} // namespace
