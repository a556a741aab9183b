//===- Prefetch.cpp - software prefetch of the GEMM kernels' B rows -------===//
//
// -tfm-cpu-prefetch: in every kernel's k loop (an scf.for that carries
// only vector accumulators: -tfm-tile-and-vectorize's register kernels,
// -tfm-cpu-lower-amx's dot-product kernels), each row of B the loop reads
// (a vector read of 32 bytes or more at the induction variable, of memory
// from outside the loop) is prefetched `bytes-ahead` bytes ahead, one
// memref.prefetch per cache line of the row. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CPUPREFETCHPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

constexpr int64_t kLineBytes = 64;

/// A row of B that a kernel's k loop reads: `read` (a vector.transfer_read
/// or vector.load) of `bytes` contiguous bytes of `parent` (defined outside
/// the loop) at `indices`, of which index `dim` is the loop's induction
/// variable; through a subview made in the loop (a register kernel's row
/// of a panel) or directly (-tfm-cpu-lower-amx's dot-product kernels).
struct BRow {
  Operation *read;
  Value parent;
  SmallVector<OpFoldResult> indices;
  unsigned dim;
  int64_t bytes, elementBytes;
};

/// Whether `loop` is a kernel's k loop: it carries accumulators, and only
/// vectors (a register kernel's MR x NR tile; a dot-product kernel's rows).
bool isKernelLoop(scf::ForOp loop) {
  return loop.getNumRegionIterArgs() > 0 &&
         llvm::all_of(loop.getRegionIterArgs(), [](BlockArgument a) {
           auto type = dyn_cast<VectorType>(a.getType());
           return type && !type.isScalable();
         });
}

/// The row `op` reads, if it is one: a vector of one row ([1, N] or [N])
/// of at least 32 bytes (not A's few elements), read from memory that is
/// contiguous along the row.
std::optional<BRow> matchBRow(scf::ForOp loop, Operation *op) {
  VectorType vt;
  Value base;
  SmallVector<Value> readIndices;
  if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
    if (!read.getPermutationMap().isMinorIdentity())
      return std::nullopt;
    vt = read.getVectorType();
    base = read.getBase();
    readIndices = read.getIndices();
  } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
    vt = load.getVectorType();
    base = load.getBase();
    readIndices = load.getIndices();
  } else {
    return std::nullopt;
  }
  if (vt.isScalable() || vt.getRank() > 2 ||
      (vt.getRank() == 2 && vt.getDimSize(0) != 1) ||
      !vt.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t elementBytes = vt.getElementType().getIntOrFloatBitWidth() / 8;
  int64_t bytes = vt.getShape().back() * elementBytes;
  if (elementBytes == 0 || bytes < 32)
    return std::nullopt;
  BRow r{op, base, getAsOpFoldResult(readIndices), 0, bytes, elementBytes};
  if (auto row = base.getDefiningOp<memref::SubViewOp>();
      row && row->getParentOp() == loop.getOperation()) {
    // A subview made in the loop, read at its origin.
    if (!row.hasUnitStride() ||
        !llvm::all_of(readIndices, [](Value v) { return isZeroInteger(v); }))
      return std::nullopt;
    r.parent = row.getSource();
    r.indices = row.getMixedOffsets();
  }
  if (!loop.isDefinedOutsideOfLoop(r.parent))
    return std::nullopt;
  auto parentType = dyn_cast<MemRefType>(r.parent.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!parentType ||
      failed(parentType.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return std::nullopt;
  std::optional<unsigned> dim;
  for (auto [i, ofr] : llvm::enumerate(r.indices)) {
    if (dyn_cast<Value>(ofr) == loop.getInductionVar()) {
      if (dim || i + 1 == r.indices.size())
        return std::nullopt;
      dim = i;
    }
  }
  if (!dim)
    return std::nullopt;
  r.dim = *dim;
  return r;
}

struct CpuPrefetchPass : tfm::impl::CpuPrefetchPassBase<CpuPrefetchPass> {
  using Base::Base;
  CpuPrefetchPass(const CpuPrefetchPass &other) : Base(other) {}

  void runOnOperation() override {
    if (bytesAhead <= 0)
      return;
    SmallVector<std::pair<scf::ForOp, BRow>> work;
    getOperation()->walk([&](scf::ForOp loop) {
      if (!isKernelLoop(loop))
        return;
      for (Operation &op : loop.getBody()->without_terminator())
        if (std::optional<BRow> r = matchBRow(loop, &op))
          work.push_back({loop, *r});
    });
    for (auto &[loop, r] : work)
      prefetch(loop, r);
  }

  /// Before `r.read`: a prefetch of every cache line of the row
  /// ceil(bytes-ahead / row bytes) rows ahead, clamped to the last row of
  /// the parent (its rows past the k block: the next block of a panel).
  /// What does not change in the loop is computed before it.
  void prefetch(scf::ForOp loop, BRow r) {
    OpBuilder b(loop);
    Location loc = r.read->getLoc();
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    int64_t rowsAhead = llvm::divideCeil(int64_t(bytesAhead), r.bytes);
    Value last = b.createOrFold<arith::SubIOp>(
        loc, b.createOrFold<memref::DimOp>(loc, r.parent, r.dim), idx(1));
    Value delta =
        b.createOrFold<arith::MulIOp>(loc, loop.getStep(), idx(rowsAhead));
    // Indices defined in the loop (a dot-product kernel's B tile column)
    // are used where they are; the others, and each line's offset, before
    // the loop.
    SmallVector<Value> indices;
    for (OpFoldResult ofr : r.indices)
      indices.push_back(getValueOrCreateConstantIndexOp(b, loc, ofr));
    Value first = indices.back();
    bool firstOutside = loop.isDefinedOutsideOfLoop(first);
    SmallVector<Value> lines;
    auto lineAt = [&](int64_t byte) {
      return b.createOrFold<arith::AddIOp>(loc, first,
                                           idx(byte / r.elementBytes));
    };
    if (firstOutside)
      for (int64_t byte = 0; byte < r.bytes; byte += kLineBytes)
        lines.push_back(lineAt(byte));
    b.setInsertionPoint(r.read);
    if (!firstOutside)
      for (int64_t byte = 0; byte < r.bytes; byte += kLineBytes)
        lines.push_back(lineAt(byte));
    indices[r.dim] = b.createOrFold<arith::MinUIOp>(
        loc,
        b.createOrFold<arith::AddIOp>(loc, loop.getInductionVar(), delta),
        last);
    for (Value line : lines) {
      indices.back() = line;
      memref::PrefetchOp::create(b, loc, r.parent, indices, /*isWrite=*/false,
                                 /*localityHint=*/3, /*isDataCache=*/true);
      ++prefetches;
    }
  }

  tfm::PassStatistic prefetches{this, numPrefetches, "prefetches",
                                "Prefetches of B rows inserted"};
};

} // namespace
