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
#include "mlir/Dialect/Vector/IR/VectorOps.h"
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

/// Elements of a row each thread keeps in registers at most: rows of a
/// static length up to `threads` times this are read from memory once.
constexpr int64_t kMaxCachedPerThread = 16;

/// Consecutive elements of a row one thread loads together (16 bytes of
/// f32) where the row's buffers allow it.
constexpr int64_t kVectorWidth = 4;

/// Builds the kernel of `stages` (findRowKernel's) at the last stage.
class RowKernelBuilder {
public:
  RowKernelBuilder(IRRewriter &rw, ArrayRef<RowKernelStage> stages,
                   int64_t threads)
      : rw(rw), stages(stages), threads(threads),
        loc(stages.front().op.getLoc()) {}

  void build() {
    linalg::LinalgOp first = stages.front().op;
    rw.setInsertionPoint(stages.back().op);
    SmallVector<Value> sizes;
    for (Range range : first.createLoopRanges(rw, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(rw, loc, range.size));
    length = sizes[stages.front().lengthDim];
    Value rows = index(rw, 1);
    for (unsigned d : stages.front().rowDims)
      rows = arith::MulIOp::create(rw, loc, rows, sizes[d]);

    // One shared slot per warp (per thread, under a warp) for each
    // reduction stage: a stage never waits for the slots of another.
    auto workgroup = gpu::AddressSpaceAttr::get(rw.getContext(),
                                                gpu::AddressSpace::Workgroup);
    int64_t slots = threads >= 32 ? threads / 32 : threads;
    SmallVector<Type> workgroupTypes;
    for (const RowKernelStage &s : stages)
      if (isReduction(s) && slots > 1)
        workgroupTypes.push_back(MemRefType::get(
            {slots}, getElementTypeOrSelf(s.op.getDpsInits()[0].getType()),
            MemRefLayoutAttrInterface(), workgroup));
    Value one = index(rw, 1);
    auto [launch, b] = createKernelLaunch(
        rw, loc, {rows, one, one}, {index(rw, threads), one, one},
        workgroupTypes, plannedRegisters(first->getAttr(kLoweringConfigAttr)));
    tid = launch.getThreadIds().x;

    // Block x enumerates the rows, the last row index fastest.
    Value rest = launch.getBlockIds().x;
    rowIvs.resize(stages.front().rowDims.size());
    for (int i = rowIvs.size() - 1; i >= 0; --i) {
      Value size = sizes[stages.front().rowDims[i]];
      rowIvs[i] = arith::RemUIOp::create(b, loc, rest, size);
      rest = arith::DivUIOp::create(b, loc, rest, size);
    }

    // A static row short enough stays in registers: J vectors of W
    // elements per thread, vector j of thread t at W (t + j * threads);
    // W = 4 (128-bit loads and stores of f32) where every buffer along the
    // row is contiguous over aligned runs of 4, else 1.
    std::optional<int64_t> staticLength = getConstantIntValue(length);
    if (staticLength && *staticLength <= threads * kMaxCachedPerThread) {
      if (*staticLength % kVectorWidth == 0 && rowsAreAligned())
        width = kVectorWidth;
      perThread = llvm::divideCeil(*staticLength, width * threads);
      if (*staticLength % (width * threads) != 0)
        lastRow = index(b, *staticLength - width);
    }

    // Every reduction's initial value, read by every thread before any
    // thread writes a result (thread 0 does, after the first barrier).
    for (const RowKernelStage &s : stages) {
      if (!isReduction(s))
        continue;
      OpOperand &out = *s.op.getDpsInitOperand(0);
      initials[out.get()] = memref::LoadOp::create(
          b, loc, out.get(), indices(s.op, out, ivsAt(s, Value())));
    }
    if (slots <= 1 && stages.size() > 1)
      gpu::BarrierOp::create(b, loc);

    unsigned slot = 0;
    for (const RowKernelStage &s : stages) {
      if (isReduction(s)) {
        Value partials = slots > 1
                             ? Value(launch.getWorkgroupAttributions()[slot++])
                             : Value();
        reduce(b, s, partials);
      } else {
        elementwise(b, s);
      }
      rw.eraseOp(s.op);
    }
  }

private:
  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }

  static bool isReduction(const RowKernelStage &s) {
    return llvm::is_contained(s.op.getIteratorTypesArray(),
                              utils::IteratorType::reduction);
  }

  /// The loop indices of stage `s` at element `k` of the row.
  SmallVector<Value> ivsAt(const RowKernelStage &s, Value k) {
    SmallVector<Value> ivs(s.op.getNumLoops());
    for (auto [i, d] : llvm::enumerate(s.rowDims))
      ivs[d] = rowIvs[i];
    ivs[s.lengthDim] = k;
    return ivs;
  }

  /// Whether every buffer a stage reads or writes along the row has the
  /// row as its last, contiguous dimension over aligned runs of
  /// kVectorWidth elements, and the all-parallel stage does not read its
  /// output.
  bool rowsAreAligned() {
    for (const RowKernelStage &s : stages) {
      if (!isReduction(s) && !s.op->getRegion(0)
                                  .front()
                                  .getArgument(s.op.getNumDpsInputs())
                                  .use_empty())
        return false;
      for (OpOperand &operand : s.op->getOpOperands()) {
        if (isReduction(s) && s.op.isDpsInit(&operand))
          continue;
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        AffineMap map = s.op.getMatchingIndexingMap(&operand);
        if (!type || !map.isFunctionOfDim(s.lengthDim))
          continue;
        if (map.getResults().back() !=
                getAffineDimExpr(s.lengthDim, map.getContext()) ||
            !type.getElementType().isIntOrFloat() ||
            !hasAlignedRows(type, kVectorWidth))
          return false;
      }
    }
    return true;
  }

  /// The alignment of a vector of `width` elements of `type`.
  llvm::MaybeAlign vectorAlignment(Type type) {
    return llvm::MaybeAlign(width *
                            llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
  }

  /// The value of input `input` of stage `s` at `ivs`: a statistic from
  /// registers, a scalar operand as it is, else a load (in the register
  /// mode, once per buffer, indexing map and element of the thread; with
  /// vectors, an input along the row is loaded a vector at a time, at
  /// `vectorBase`, and its elements extracted).
  Value readInput(OpBuilder &b, const RowKernelStage &s, OpOperand &input,
                  ArrayRef<Value> ivs, std::optional<int64_t> element) {
    Value v = input.get();
    if (!isa<MemRefType>(v.getType()))
      return v;
    if (Value stat = statistics.lookup(v))
      return stat;
    AffineMap map = s.op.getMatchingIndexingMap(&input);
    // The same element through the same map reads the same address: the
    // map's row results are the rows, its length result the element.
    std::vector<int64_t> key;
    for (AffineExpr e : map.getResults()) {
      unsigned d = cast<AffineDimExpr>(e).getPosition();
      auto row = llvm::find(s.rowDims, d);
      key.push_back(row != s.rowDims.end() ? row - s.rowDims.begin() : -1);
    }
    auto cacheKey =
        std::make_tuple(v.getAsOpaquePointer(), key, element.value_or(-1));
    if (element) {
      auto it = cache.find(cacheKey);
      if (it != cache.end())
        return it->second;
    }
    Value loaded;
    if (element && width > 1 && map.isFunctionOfDim(s.lengthDim)) {
      int64_t j = *element / width;
      auto vectorKey = std::make_tuple(v.getAsOpaquePointer(), key, j);
      Value &vector = vectors[vectorKey];
      if (!vector) {
        SmallVector<Value> at(ivs);
        at[s.lengthDim] = vectorBase;
        Type elementType = cast<MemRefType>(v.getType()).getElementType();
        vector = vector::LoadOp::create(
            b, loc, VectorType::get({width}, elementType), v,
            indices(s.op, input, at), /*nontemporal=*/false,
            vectorAlignment(elementType));
      }
      loaded = vector::ExtractOp::create(b, loc, vector, *element % width);
    } else {
      loaded = memref::LoadOp::create(b, loc, v, indices(s.op, input, ivs));
    }
    if (element)
      cache[cacheKey] = loaded;
    return loaded;
  }

  SmallVector<Value> inputs(OpBuilder &b, const RowKernelStage &s,
                            ArrayRef<Value> ivs,
                            std::optional<int64_t> element) {
    SmallVector<Value> args;
    for (OpOperand *input : s.op.getDpsInputOperands())
      args.push_back(readInput(b, s, *input, ivs, element));
    return args;
  }

  /// The first element of register vector `j` (clamped to the row for the
  /// last one of a row that does not fill it, whose values are then
  /// discarded) and whether it is in the row; sets `vectorBase`.
  std::pair<Value, Value> element(OpBuilder &b, int64_t j) {
    Value first =
        width > 1 ? arith::MulIOp::create(b, loc, tid, index(b, width)) : tid;
    Value k = j == 0 ? first
                     : arith::AddIOp::create(b, loc, first,
                                             index(b, j * threads * width));
    Value inRow;
    if (lastRow && j + 1 == *perThread) {
      inRow =
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, k, lastRow);
      k = arith::MinUIOp::create(b, loc, k, lastRow);
    }
    vectorBase = k;
    return {k, inRow};
  }

  /// Element `lane` of the vector at `k`.
  Value laneOf(OpBuilder &b, Value k, int64_t lane) {
    return lane == 0 ? k : arith::AddIOp::create(b, loc, k, index(b, lane));
  }

  void reduce(OpBuilder &b, const RowKernelStage &s, Value partials) {
    linalg::LinalgOp op = s.op;
    std::optional<RowReduction> r = matchGpuRowReduction(op);
    assert(r && "a reduction stage");
    Value identity = arith::ConstantOp::create(b, loc, r->identity);
    Value partial;
    if (perThread) {
      partial = identity;
      for (int64_t j = 0; j < *perThread; ++j) {
        auto [k, inRow] = element(b, j);
        for (int64_t lane = 0; lane < width; ++lane) {
          SmallVector<Value> ivs = ivsAt(s, laneOf(b, k, lane));
          SmallVector<Value> args = inputs(b, s, ivs, j * width + lane);
          args.push_back(partial);
          Value next = inlinePayload(b, op, args, ivs)[0];
          partial = inRow
                        ? arith::SelectOp::create(b, loc, inRow, next, partial)
                        : next;
        }
      }
    } else {
      auto fold = scf::ForOp::create(
          b, loc, tid, length, index(b, threads), ValueRange{identity},
          [&](OpBuilder &lb, Location, Value k, ValueRange acc) {
            SmallVector<Value> ivs = ivsAt(s, k);
            SmallVector<Value> args = inputs(lb, s, ivs, std::nullopt);
            args.push_back(acc[0]);
            scf::YieldOp::create(lb, loc, inlinePayload(lb, op, args, ivs));
          });
      partial = fold.getResult(0);
    }

    // Within a warp, a butterfly of xor shuffles leaves the warp's total in
    // every lane; across warps, lane 0 of each writes it to its slot and,
    // after a barrier, every thread combines the slots in order (every
    // thread runs the shuffles, as they want uniform control flow). Under
    // a warp (a configuration written by hand), shared slots only.
    Value total = partial;
    if (threads >= 32) {
      Value width = arith::ConstantIntOp::create(b, loc, 32, 32);
      for (int64_t offset = 16; offset >= 1; offset /= 2) {
        Value other =
            gpu::ShuffleOp::create(
                b, loc, total, arith::ConstantIntOp::create(b, loc, offset, 32),
                width, gpu::ShuffleMode::XOR)
                .getShuffleResult();
        total = combine(b, *r, total, other);
      }
    }
    if (partials) {
      if (threads >= 32) {
        Value lane = arith::RemUIOp::create(b, loc, tid, index(b, 32));
        Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              lane, index(b, 0));
        auto write = scf::IfOp::create(b, loc, isFirst);
        OpBuilder wb = OpBuilder::atBlockTerminator(write.thenBlock());
        memref::StoreOp::create(
            wb, loc, total, partials,
            ValueRange{arith::DivUIOp::create(wb, loc, tid, index(wb, 32))});
      } else {
        memref::StoreOp::create(b, loc, total, partials, tid);
      }
      gpu::BarrierOp::create(b, loc);
      int64_t slots = cast<MemRefType>(partials.getType()).getDimSize(0);
      total = memref::LoadOp::create(b, loc, partials, ValueRange{index(b, 0)});
      for (int64_t w = 1; w < slots; ++w)
        total = combine(
            b, *r, total,
            memref::LoadOp::create(b, loc, partials, ValueRange{index(b, w)}));
    }

    // Every thread folds the total into the output's initial value (later
    // stages read the result from that register); thread 0 writes it.
    OpOperand &out = *op.getDpsInitOperand(0);
    SmallVector<Value> outIndices = indices(op, out, ivsAt(s, Value()));
    Value result = combine(b, *r, initials.lookup(out.get()), total);
    statistics[out.get()] = result;
    Value isFirst = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid,
                                          index(b, 0));
    auto write = scf::IfOp::create(b, loc, isFirst);
    OpBuilder wb = OpBuilder::atBlockTerminator(write.thenBlock());
    memref::StoreOp::create(wb, loc, result, out.get(), outIndices);
  }

  void elementwise(OpBuilder &b, const RowKernelStage &s) {
    linalg::LinalgOp op = s.op;
    OpOperand &out = *op.getDpsInitOperand(0);
    Block &body = op->getRegion(0).front();
    bool readsOut = !body.getArgument(op.getNumDpsInputs()).use_empty();
    auto compute = [&](OpBuilder &eb, ArrayRef<Value> ivs,
                       std::optional<int64_t> element) {
      SmallVector<Value> args = inputs(eb, s, ivs, element);
      SmallVector<Value> outIndices = indices(op, out, ivs);
      args.push_back(
          readsOut ? memref::LoadOp::create(eb, loc, out.get(), outIndices)
                         .getResult()
                   : out.get());
      Value result = inlinePayload(eb, op, args, ivs)[0];
      memref::StoreOp::create(eb, loc, result, out.get(), outIndices);
    };
    if (perThread && width > 1) {
      // Vectors: the lanes computed from registers, one aligned vector
      // store (inside the row).
      Type outElement = cast<MemRefType>(out.get().getType()).getElementType();
      for (int64_t j = 0; j < *perThread; ++j) {
        auto [k, inRow] = element(b, j);
        SmallVector<Value> lanes;
        for (int64_t lane = 0; lane < width; ++lane) {
          SmallVector<Value> ivs = ivsAt(s, laneOf(b, k, lane));
          SmallVector<Value> args = inputs(b, s, ivs, j * width + lane);
          args.push_back(out.get());
          lanes.push_back(inlinePayload(b, op, args, ivs)[0]);
        }
        Value vector = vector::FromElementsOp::create(
            b, loc, VectorType::get({width}, outElement), lanes);
        OpBuilder sb = b;
        if (inRow) {
          auto guard = scf::IfOp::create(b, loc, inRow);
          sb = OpBuilder::atBlockTerminator(guard.thenBlock());
        }
        vector::StoreOp::create(
            sb, loc, vector, out.get(), indices(op, out, ivsAt(s, k)),
            /*nontemporal=*/false, vectorAlignment(outElement));
      }
      return;
    }
    if (perThread) {
      for (int64_t j = 0; j < *perThread; ++j) {
        auto [k, inRow] = element(b, j);
        SmallVector<Value> ivs = ivsAt(s, k);
        // Loads outside the guard (clamped, in bounds, shared with the
        // other stages); the store only inside the row.
        (void)inputs(b, s, ivs, j);
        if (!inRow) {
          compute(b, ivs, j);
          continue;
        }
        auto guard = scf::IfOp::create(b, loc, inRow);
        OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
        compute(gb, ivs, j);
      }
      return;
    }
    scf::ForOp::create(b, loc, tid, length, index(b, threads), ValueRange{},
                       [&](OpBuilder &lb, Location, Value k, ValueRange) {
                         compute(lb, ivsAt(s, k), std::nullopt);
                         scf::YieldOp::create(lb, loc);
                       });
  }

  IRRewriter &rw;
  ArrayRef<RowKernelStage> stages;
  int64_t threads;
  Location loc;
  Value tid, length, lastRow, vectorBase;
  SmallVector<Value> rowIvs;
  std::optional<int64_t> perThread;
  /// Consecutive elements a thread loads, computes and stores together.
  int64_t width = 1;
  /// Vectors loaded along the row, by buffer, indices and register vector.
  std::map<std::tuple<void *, std::vector<int64_t>, int64_t>, Value> vectors;
  /// Each reduction's initial value and result, by its output buffer.
  DenseMap<Value, Value> initials, statistics;
  /// Register mode: loaded elements by buffer, indices (row number or -1
  /// for the element) and register.
  std::map<std::tuple<void *, std::vector<int64_t>, int64_t>, Value> cache;
};

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
      // The stages -tfm-gpu-configure chose must still be the ones the
      // kernel can run together.
      SmallVector<RowKernelStage> stages =
          findRowKernel(op, *r, config.getStages());
      bool asConfigured = stages.size() == uint64_t(config.getStages());
      for (auto [k, stage] : llvm::enumerate(stages)) {
        auto mark = stage.op->getAttrOfType<IntegerAttr>(kRowKernelStageAttr);
        if (k > 0 && (!mark || mark.getInt() != int64_t(k)))
          asConfigured = false;
      }
      if (!asConfigured) {
        op->emitOpError("-tfm-gpu-tile-reduction: ")
            << config << " asks for " << config.getStages()
            << " stages, but the ops after it marked " << kRowKernelStageAttr
            << " 1, 2, ... are not " << config.getStages() - 1
            << " ops that can run on its rows in its kernel";
        return signalPassFailure();
      }
      RowKernelBuilder(rw, stages, config.getThreads()).build();
      ++kernels;
      stagesRun += stages.size() - 1;
    }
    // A stage mark left behind belongs to no kernel.
    WalkResult stray = getOperation()->walk([&](Operation *op) {
      if (!op->hasAttr(kRowKernelStageAttr))
        return WalkResult::advance();
      op->emitOpError("-tfm-gpu-tile-reduction: carries ")
          << kRowKernelStageAttr
          << " but follows no row reduction whose kernel runs it";
      return WalkResult::interrupt();
    });
    if (stray.wasInterrupted())
      signalPassFailure();
  }

  PassStatistic kernels{this, numKernels, "kernels",
                        "Row reductions lowered to block-per-row kernels"};
  PassStatistic stagesRun{this, numStages, "fused-stages",
                          "Ops after a reduction run in its kernel"};
};

} // namespace
