//===- Prefetch.cpp - software prefetch of the GEMM kernels' B rows -------===//
//
// -tfm-cpu-prefetch: in every kernel's k loop (an scf.for that carries
// only vector accumulators or only AMX tiles: -tfm-tile-and-vectorize's
// register kernels, -tfm-cpu-lower-amx's dot-product and tile kernels),
// each row of a panel the loop reads (a vector read of a whole row, 32
// bytes or more, or a B tile's rows, at the induction variable, of rows
// that follow one another in memory) is prefetched `bytes-ahead` bytes
// ahead, one memref.prefetch per cache line of the row. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/SmallBitVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CPUPREFETCHPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// The cache line of every x86 CPU tfm targets (the target description
/// carries no line size).
constexpr int64_t kLineBytes = 64;

/// Rows of a panel that a kernel's k loop reads: `read` (a
/// vector.transfer_read or vector.load of one row, or an amx.tile_load of
/// `rows` rows, one per tile row) of the `bytes` bytes of each row of
/// `source`, a memref from outside the loop whose rows along dimension
/// `dim` are `stride` elements apart (one row: they follow one another;
/// more only in a one-row kernel). Index `i` into `source` is
/// the sum of `terms[i]`; index `dim` is the loop's induction variable
/// plus the sum of `offsets` (values from outside the loop). The read is
/// of `source` itself (-tfm-cpu-lower-amx's dot kernels) or of a subview
/// made in the loop (a register kernel's row); subviews made outside the
/// loop (a k block of a panel) are looked through, so that the rows past
/// the block are those of the panel.
struct PanelRow {
  Operation *read = nullptr;
  Value source;
  SmallVector<SmallVector<OpFoldResult>> terms;
  unsigned dim = 0;
  SmallVector<OpFoldResult> offsets;
  int64_t bytes = 0, elementBytes = 0;
  int64_t rows = 1;
  // Elements from one row to the next along `dim`: the row's own length
  // for a panel, more for rows of a wider buffer (one-row kernels only).
  int64_t stride = 0;
};

/// Whether `loop` is a kernel's k loop: a vector kernel's, or one that
/// carries only AMX tiles (a tile kernel's four accumulators).
bool isKernelLoop(scf::ForOp loop) {
  auto args = loop.getRegionIterArgs();
  return tfm::isVectorKernelLoop(loop) ||
         (!args.empty() && llvm::all_of(args, [](BlockArgument a) {
           return isa<amx::TileType>(a.getType());
         }));
}

/// Whether `loop` is the k loop of a one-row kernel (the 1 x NR register
/// kernel of a GEMV, such as a decode step's P V): every B row it reads is
/// used once, for the one row, so rows of a wider buffer (the first NR
/// values of each row of a V block) are streamed too, and prefetched.
bool isOneRowKernelLoop(scf::ForOp loop) {
  return llvm::all_of(loop.getRegionIterArgs(), [](BlockArgument a) {
    auto type = dyn_cast<VectorType>(a.getType());
    return type && type.getRank() == 2 && type.getDimSize(0) == 1;
  });
}

/// The static strides of `type` when it has two dimensions or more, its
/// innermost stride is 1 and its elements are `element`, else nothing.
std::optional<SmallVector<int64_t>> rowMajorStrides(Type type, Type element) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || memref.getRank() < 2 || memref.getElementType() != element)
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1)
    return std::nullopt;
  return strides;
}

/// The rows of a B tile that `op` reads, if it reads one (a tile kernel's
/// Wp[tile, k pair, 16, 2]): an amx.tile_load from a row-major memref
/// defined outside the loop, at indices of which one other than the
/// innermost is the induction variable and those after it are zero, whose
/// stride is that dimension's and whose tile rows fill its rows: the tile's
/// rows are that many of the memref's rows, one after another. (A's tiles,
/// rows of A at A's row stride, and K/V blocks read at a wider stride are
/// not.)
std::optional<PanelRow> matchTileRows(scf::ForOp loop, Operation *op) {
  auto load = dyn_cast<amx::TileLoadOp>(op);
  if (!load || !loop.isDefinedOutsideOfLoop(load.getBase()))
    return std::nullopt;
  amx::TileType tile = load.getTileType();
  Type element = tile.getElementType();
  std::optional<SmallVector<int64_t>> strides =
      rowMajorStrides(load.getBase().getType(), element);
  if (!strides || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0)
    return std::nullopt;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  PanelRow r;
  r.read = op;
  r.source = load.getBase();
  r.bytes = tile.getDimSize(1) * elementBytes;
  r.elementBytes = elementBytes;
  r.rows = tile.getDimSize(0);
  std::optional<unsigned> dim;
  for (auto [i, v] : llvm::enumerate(load.getIndices())) {
    r.terms.push_back({v});
    if (v == loop.getInductionVar()) {
      if (dim || i + 1 == load.getIndices().size())
        return std::nullopt;
      dim = i;
    } else if (dim && !isZeroInteger(v)) {
      return std::nullopt;
    }
  }
  if (!dim)
    return std::nullopt;
  r.dim = *dim;
  // The stride of the tile's rows: given, or the memref's second innermost.
  int64_t rowStride = (*strides)[strides->size() - 2];
  if (Value s = load.getStride()) {
    std::optional<int64_t> c = getConstantIntValue(s);
    if (!c)
      return std::nullopt;
    rowStride = *c;
  }
  if (rowStride != (*strides)[r.dim] || rowStride * elementBytes != r.bytes)
    return std::nullopt;
  r.stride = rowStride;
  return r;
}

/// The panel row `op` reads, if it reads one: a vector of one row ([1, N]
/// or [N]) of at least 32 bytes (not A's few elements), minor identity,
/// along the innermost dimension of a row-major memref, at indices of
/// which one other than the innermost is the induction variable, and
/// whose rows along that dimension are `N` elements apart (a panel's; not
/// a row of a wider buffer, whose next rows are not the next bytes, except
/// in a one-row kernel, whose rows are each used once).
std::optional<PanelRow> matchPanelRow(scf::ForOp loop, Operation *op) {
  VectorType vt;
  Value base;
  ValueRange indices;
  if (auto read = dyn_cast<vector::TransferReadOp>(op)) {
    if (!read.getPermutationMap().isMinorIdentity())
      return std::nullopt;
    vt = read.getVectorType();
    base = read.getBase();
    indices = read.getIndices();
  } else if (auto load = dyn_cast<vector::LoadOp>(op)) {
    vt = load.getVectorType();
    base = load.getBase();
    indices = load.getIndices();
  } else {
    return std::nullopt;
  }
  Type element = vt.getElementType();
  if (vt.isScalable() || vt.getRank() > 2 ||
      (vt.getRank() == 2 && vt.getDimSize(0) != 1) || !element.isIntOrFloat() ||
      element.getIntOrFloatBitWidth() % 8 != 0 ||
      !rowMajorStrides(base.getType(), element))
    return std::nullopt;
  int64_t elementBytes = element.getIntOrFloatBitWidth() / 8;
  int64_t length = vt.getShape().back();
  if (length * elementBytes < 32)
    return std::nullopt;
  PanelRow r{op, base, {}, 0, {}, length * elementBytes, elementBytes};
  SmallVector<OpFoldResult> at = getAsOpFoldResult(indices);
  // A subview made in the loop, read at its origin: its offsets index its
  // source.
  if (auto sub = base.getDefiningOp<memref::SubViewOp>();
      sub && sub->getParentOp() == loop.getOperation()) {
    if (!sub.hasUnitStride() ||
        sub.getDroppedDims().test(sub.getSourceType().getRank() - 1) ||
        !llvm::all_of(indices, [](Value v) { return isZeroInteger(v); }))
      return std::nullopt;
    r.source = sub.getSource();
    at = sub.getMixedOffsets();
  }
  if (!loop.isDefinedOutsideOfLoop(r.source))
    return std::nullopt;
  std::optional<unsigned> dim;
  for (auto [i, ofr] : llvm::enumerate(at)) {
    r.terms.push_back({ofr});
    if (dyn_cast<Value>(ofr) == loop.getInductionVar()) {
      if (dim || i + 1 == at.size())
        return std::nullopt;
      dim = i;
    }
  }
  if (!dim)
    return std::nullopt;
  r.dim = *dim;
  std::optional<SmallVector<int64_t>> strides =
      rowMajorStrides(r.source.getType(), element);
  // A panel's rows follow one another; a one-row kernel's may be further
  // apart.
  if (!strides || (*strides)[r.dim] < length ||
      ((*strides)[r.dim] != length && !isOneRowKernelLoop(loop)))
    return std::nullopt;
  r.stride = (*strides)[r.dim];
  // Subviews made outside the loop (a k block of a panel), unit strides,
  // that keep the innermost dimension and whose source's rows still
  // follow one another: the rows past the block are their source's.
  while (auto sub = r.source.getDefiningOp<memref::SubViewOp>()) {
    auto srcType = cast<MemRefType>(sub.getSourceType());
    llvm::SmallBitVector dropped = sub.getDroppedDims();
    std::optional<SmallVector<int64_t>> srcStrides =
        rowMajorStrides(srcType, element);
    if (!sub.hasUnitStride() || dropped.test(srcType.getRank() - 1) ||
        !srcStrides)
      break;
    PanelRow up = r;
    up.source = sub.getSource();
    up.terms.clear();
    unsigned kept = 0;
    for (auto [d, off] : llvm::enumerate(sub.getMixedOffsets())) {
      if (dropped.test(d)) {
        up.terms.push_back({off});
        continue;
      }
      if (kept == r.dim) {
        up.dim = d;
        up.terms.push_back(r.terms[kept]);
        up.offsets.push_back(off);
      } else {
        SmallVector<OpFoldResult> sum(r.terms[kept]);
        sum.push_back(off);
        up.terms.push_back(sum);
      }
      ++kept;
    }
    if ((*srcStrides)[up.dim] != r.stride)
      break;
    r = up;
  }
  return r;
}

/// The sum of `terms` at the builder's insertion point (constants folded).
Value sum(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> terms) {
  Value total;
  for (OpFoldResult t : terms) {
    if (isZeroInteger(t))
      continue;
    Value v = getValueOrCreateConstantIndexOp(b, loc, t);
    total = total ? b.createOrFold<arith::AddIOp>(loc, total, v) : v;
  }
  return total ? total : arith::ConstantIndexOp::create(b, loc, 0).getResult();
}

struct CpuPrefetchPass : tfm::impl::CpuPrefetchPassBase<CpuPrefetchPass> {
  using Base::Base;
  CpuPrefetchPass(const CpuPrefetchPass &other) : Base(other) {}

  void runOnOperation() override {
    if (bytesAhead < 0) {
      getOperation()->emitError()
          << "-tfm-cpu-prefetch: bytes-ahead must be 0 or more, got "
          << int64_t(bytesAhead);
      return signalPassFailure();
    }
    if (bytesAhead == 0)
      return;
    SmallVector<std::pair<scf::ForOp, PanelRow>> work;
    getOperation()->walk([&](scf::ForOp loop) {
      if (!isKernelLoop(loop) || loop->hasAttr(tfm::kCachedPanelAttr))
        return;
      for (Operation &op : loop.getBody()->without_terminator()) {
        std::optional<PanelRow> r = matchPanelRow(loop, &op);
        if (!r)
          r = matchTileRows(loop, &op);
        if (r)
          work.push_back({loop, *r});
      }
    });
    for (auto &[loop, r] : work)
      prefetch(loop, r);
  }

  /// Before `r.read`: a prefetch of every cache line of each row it reads
  /// d = ceil(bytes-ahead / bytes read) steps of the loop ahead, clamped
  /// to the source's last rows. The clamp and the distance are computed
  /// before the loop; a source of no more rows than the distance (d steps,
  /// static) gets none (it would prefetch its last row again and again).
  void prefetch(scf::ForOp loop, const PanelRow &r) {
    int64_t stepsAhead = llvm::divideCeil(int64_t(bytesAhead),
                                          r.rows * r.stride * r.elementBytes);
    auto type = cast<MemRefType>(r.source.getType());
    int64_t step = getConstantIntValue(loop.getStep()).value_or(1);
    if (!type.isDynamicDim(r.dim) &&
        type.getDimSize(r.dim) <= stepsAhead * step)
      return;
    OpBuilder b(loop);
    Location loc = r.read->getLoc();
    auto idx = [&](int64_t v) -> Value {
      return arith::ConstantIndexOp::create(b, loc, v);
    };
    // The first row of the last `rows`: the clamp of the first row
    // prefetched, so that its rows after it need none.
    Value last = b.createOrFold<arith::SubIOp>(
        loc, b.createOrFold<memref::DimOp>(loc, r.source, r.dim), idx(r.rows));
    SmallVector<OpFoldResult> ahead(r.offsets);
    ahead.push_back(
        b.createOrFold<arith::MulIOp>(loc, loop.getStep(), idx(stepsAhead)));
    Value delta = sum(b, loc, ahead);
    b.setInsertionPoint(r.read);
    SmallVector<Value> indices;
    for (auto [i, terms] : llvm::enumerate(r.terms))
      indices.push_back(i == r.dim ? Value() : sum(b, loc, terms));
    Value from = b.createOrFold<arith::MinUIOp>(
        loc, b.createOrFold<arith::AddIOp>(loc, loop.getInductionVar(), delta),
        last);
    // The innermost index (never `dim`), where each line of a row starts.
    Value first = indices.back();
    for (int64_t row = 0; row < r.rows; ++row) {
      indices[r.dim] =
          row ? b.createOrFold<arith::AddIOp>(loc, from, idx(row)) : from;
      for (int64_t byte = 0; byte < r.bytes; byte += kLineBytes) {
        indices.back() = byte ? b.createOrFold<arith::AddIOp>(
                                    loc, first, idx(byte / r.elementBytes))
                              : first;
        memref::PrefetchOp::create(b, loc, r.source, indices,
                                   /*isWrite=*/false,
                                   /*localityHint=*/3, /*isDataCache=*/true);
        ++prefetches;
      }
    }
  }

  tfm::PassStatistic prefetches{
      this, numPrefetches, "prefetches",
      "memref.prefetch ops inserted (one per cache line of a row)"};
};

} // namespace
