//===- TileAndVectorize.cpp - cache/register tiling and vectorization -----===//
//
// -tfm-tile-and-vectorize: linalg on tensors to scf loops around static
// vector-sized tiles, vectorized. Contractions get a GEMM schedule (cache
// tiles, packed B, register tiles with the accumulator in registers); every
// other linalg op gets vector-wide tiles of its innermost dimension. Every
// size comes from the op's #tfm.cpu_contraction or #tfm.cpu_elementwise
// (chosen by -tfm-cpu-configure, KernelConfig.cpp); this pass decides
// nothing. See Passes.td for the schedule.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/SCF/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/TilingInterface.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/LoopInvariantCodeMotionUtils.h"

#define DEBUG_TYPE "tfm-tile-and-vectorize"

namespace mlir::tfm {
#define GEN_PASS_DEF_TILEANDVECTORIZEPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

// Discardable attributes that track ops and loops across the rewrites (and
// the canonicalizations between them, which replace ops). kCacheTile and
// kRowTile hold the op's configuration, the others a unit attribute. All
// are removed before the pass ends.
constexpr llvm::StringLiteral kCacheTile = "tfm.cache_tile";
constexpr llvm::StringLiteral kRowTile = "tfm.row_tile";
constexpr llvm::StringLiteral kKernelTile = "tfm.kernel_tile";
constexpr llvm::StringLiteral kVectorTile = "tfm.vector_tile";
constexpr llvm::StringLiteral kReady = "tfm.ready";
constexpr llvm::StringLiteral kReadyKernel = "tfm.ready_kernel";
constexpr llvm::StringLiteral kPeel = "tfm.peel";
/// On a contraction whose rows are split across threads in every cache tile
/// (see kernel()); tiling clones it onto the tiles.
constexpr llvm::StringLiteral kParallelRows = "tfm.parallel_rows";

/// The tile sizes of one op, from its configuration.
struct Schedule {
  int64_t vl = 1;     // f32 lanes of a vector register
  int64_t mr = 1, nr = 1; // register tile of a contraction
  int64_t kc = 1, nc = 1; // cache tile of a contraction
  int64_t mc = 0;     // rows of a parallel block of a contraction (0: serial)
  int64_t ncBlock = 0; // its columns (0: the whole cache tile)
  bool dot = false;    // the dot-product kernel (few rows, B[n, k])
  int64_t maxWholeReduction = 1; // elements of a static reduction kept whole
  int64_t blockBytes = 0; // least data of a parallel block of another op
                          // (0: serial)
};

/// A register kernel tile `op` whose B is a 16-bit panel (-tfm-pack-weights'
/// `sixteen-bit-panels`, which the payload widens): the tile of B widened
/// to f32 by an elementwise op placed before `op`, which then reads that
/// and no longer widens. Vectorized, the widening is a load of NR 16-bit
/// values and a conversion in registers (the f32 tile folds away), and the
/// kernel is the f32 vector.contract of every other tile. Returns the
/// widening op, or null when `op` reads no 16-bit operand.
/// `src` widened to f32 into `dest` (same rank), element `dest[x]` read
/// from `src[srcMap(x)]`: an elementwise generic whose body is the extf.
linalg::GenericOp widenInto(RewriterBase &rw, Location loc, Value src,
                            Value dest, AffineMap srcMap) {
  auto type = cast<RankedTensorType>(dest.getType());
  Type f32 = type.getElementType();
  AffineMap id = rw.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
      rw, loc, type, ValueRange{src}, ValueRange{dest},
      ArrayRef<AffineMap>{srcMap, id},
      SmallVector<utils::IteratorType>(type.getRank(),
                                       utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(
            b, l, ValueRange{arith::ExtFOp::create(b, l, f32, args[0])});
      });
}

/// A contraction's payload argument `arg`, a 16-bit value that the payload
/// widened, now reads an operand already widened to f32: the argument
/// becomes f32 and the payload's arith.extf goes.
void dropPayloadWidening(RewriterBase &rw, BlockArgument arg) {
  arg.setType(rw.getF32Type());
  for (Operation *user : llvm::to_vector(arg.getUsers()))
    rw.replaceOp(user, arg);
}

Operation *widenSixteenBitInput(RewriterBase &rw, linalg::GenericOp op) {
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type = dyn_cast<RankedTensorType>(input->get().getType());
    if (!type || type.getElementType().isF32())
      continue;
    Location loc = op.getLoc();
    rw.setInsertionPoint(op);
    Value init = tensor::EmptyOp::create(
        rw, loc, tensor::getMixedSizes(rw, loc, input->get()), rw.getF32Type());
    linalg::GenericOp widen = widenInto(
        rw, loc, input->get(), init, rw.getMultiDimIdentityMap(type.getRank()));
    BlockArgument arg = op.getMatchingBlockArgument(input);
    rw.modifyOpInPlace(op, [&] { input->set(widen.getResult(0)); });
    dropPayloadWidening(rw, arg);
    return widen;
  }
  return nullptr;
}

/// A register kernel tile (loops m, n, k: MR x NR x 1) whose A is read
/// transposed, A[k, m] (the Pᵀ of attention's P·V with transposed scores):
/// its [1, MR] tile holds the same values in the same order as an [MR, 1]
/// one, so it is reshaped to that and read as A[m, k], the plain form
/// whose vector.contract the vectorizer builds (with the transposed map it
/// built a 1 x MR tile of A against MR rows of B). Nothing changes
/// otherwise.
void untransposeUnitKA(RewriterBase &rw, linalg::GenericOp op) {
  std::optional<GemmDims> g = inferGemmDims(op);
  if (!g || !g->unit.empty() || op.getNumLoops() != 3)
    return;
  MLIRContext *ctx = op.getContext();
  auto dims = [&](unsigned x, unsigned y) {
    return AffineMap::get(
        3, 0, {getAffineDimExpr(x, ctx), getAffineDimExpr(y, ctx)}, ctx);
  };
  OpOperand *a = op.getDpsInputOperand(g->a);
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (op.getMatchingIndexingMap(a) != dims(g->k, g->m) || ranges[g->k] != 1 ||
      ShapedType::isDynamic(ranges[g->m]))
    return;
  Location loc = op.getLoc();
  rw.setInsertionPoint(op);
  Type et = getElementTypeOrSelf(a->get().getType());
  SmallVector<ReassociationIndices> both{{0, 1}};
  Value flat = tensor::CollapseShapeOp::create(rw, loc, a->get(), both);
  Value col = tensor::ExpandShapeOp::create(
      rw, loc, RankedTensorType::get({ranges[g->m], 1}, et), flat, both);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  maps[a->getOperandNumber()] = dims(g->m, g->k);
  rw.modifyOpInPlace(op, [&] {
    a->set(col);
    op.setIndexingMapsAttr(rw.getAffineMapArrayAttr(maps));
  });
}

/// `vs` (a power-of-two count `n` of vectors of `n` f32 lanes) summed
/// across lanes: lane j of the result is the sum of the lanes of vs[j]. A
/// tree of log2(n) levels, each adding the two halves of every pair of
/// vectors interleaved in blocks of w = 1, 2, 4, ... lanes (two shuffles
/// and an add per pair): n - 1 adds in all instead of n horizontal sums.
Value transposeAndAdd(OpBuilder &b, Location loc, SmallVector<Value> vs) {
  int64_t n = vs.size();
  for (int64_t w = 1; w < n; w *= 2) {
    SmallVector<int64_t> lo, hi;
    for (int64_t t = 0; t < n; ++t) {
      int64_t base = t / (2 * w) * (2 * w), r = t % (2 * w);
      // Lanes [base, base + w) from the first vector, the next w from the
      // second (shuffle indices n + ...); `hi` the blocks after them.
      int64_t from = r < w ? base + r : n + base + (r - w);
      lo.push_back(from);
      hi.push_back(from + w);
    }
    SmallVector<Value> next;
    for (size_t p = 0; p + 1 < vs.size(); p += 2) {
      Value l = vector::ShuffleOp::create(b, loc, vs[p], vs[p + 1], lo);
      Value h = vector::ShuffleOp::create(b, loc, vs[p], vs[p + 1], hi);
      next.push_back(arith::AddFOp::create(b, loc, l, h));
    }
    vs = std::move(next);
  }
  return vs.front();
}

/// The dot-product kernel (a `#tfm.cpu_contraction` with `dot`) of the
/// cache tile `op`, a plain C[m, n] += A[m, k] * B[n, k] (loops `g`) whose
/// sizes are static, n and k multiples of `vl`: for every `vl` columns and
/// every row, `vl` accumulators of `vl` f32 lanes over k (acc_j +=
/// A[i, k:k+vl] * B[n0+j, k:k+vl], a 16-bit B widened in registers), then
/// transposeAndAdd, added to C[i, n0:n0+vl]. B is read in place. Vector
/// ops on tensors, like the vectorizer's. Returns false (nothing changed)
/// when `op` is not such a tile (a partial cache tile: the GEMM kernel
/// takes it).
bool dotKernel(RewriterBase &rw, linalg::GenericOp op, const GemmDims &g,
               int64_t vl) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (!isPlainABt(op, g) || llvm::any_of(ranges, ShapedType::isDynamic) ||
      ranges[g.n] % vl != 0 || ranges[g.k] % vl != 0 ||
      !llvm::isPowerOf2_64(vl))
    return false;
  Location loc = op.getLoc();
  Value a = op.getDpsInputOperand(g.a)->get();
  Value bv = op.getDpsInputOperand(g.b)->get();
  Value c = op.getDpsInitOperand(0)->get();
  Type f32 = rw.getF32Type();
  Type bT = getElementTypeOrSelf(bv.getType());
  auto vT = VectorType::get({vl}, f32);
  auto vbT = VectorType::get({vl}, bT);
  rw.setInsertionPoint(op);
  auto idx = [&](OpBuilder &b, int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value zero = arith::ConstantOp::create(rw, loc, vT, rw.getZeroAttr(vT));
  Value padA = arith::ConstantOp::create(rw, loc, f32, rw.getZeroAttr(f32));
  Value padB = arith::ConstantOp::create(rw, loc, bT, rw.getZeroAttr(bT));
  SmallVector<bool> inBounds{true};
  auto cols = scf::ForOp::create(
      rw, loc, idx(rw, 0), idx(rw, ranges[g.n]), idx(rw, vl), ValueRange{c},
      [&](OpBuilder &b1, Location l1, Value n0, ValueRange cArg) {
        auto rows = scf::ForOp::create(
            b1, l1, idx(b1, 0), idx(b1, ranges[g.m]), idx(b1, 1), cArg,
            [&](OpBuilder &b2, Location l2, Value i, ValueRange cRow) {
              auto ks = scf::ForOp::create(
                  b2, l2, idx(b2, 0), idx(b2, ranges[g.k]), idx(b2, vl),
                  SmallVector<Value>(vl, zero),
                  [&](OpBuilder &b3, Location l3, Value k0, ValueRange accs) {
                    Value av = vector::TransferReadOp::create(
                        b3, l3, vT, a, ValueRange{i, k0}, padA, inBounds);
                    SmallVector<Value> next;
                    for (int64_t j = 0; j < vl; ++j) {
                      Value row = arith::AddIOp::create(b3, l3, n0, idx(b3, j));
                      Value x = vector::TransferReadOp::create(
                          b3, l3, vbT, bv, ValueRange{row, k0}, padB, inBounds);
                      if (bT != f32)
                        x = arith::ExtFOp::create(b3, l3, vT, x);
                      next.push_back(
                          vector::FMAOp::create(b3, l3, av, x, accs[j]));
                    }
                    scf::YieldOp::create(b3, l3, next);
                  });
              Value dots =
                  transposeAndAdd(b2, l2, SmallVector<Value>(ks.getResults()));
              Value old = vector::TransferReadOp::create(
                  b2, l2, vT, cRow[0], ValueRange{i, n0}, padA, inBounds);
              Value sum = arith::AddFOp::create(b2, l2, old, dots);
              Value w = vector::TransferWriteOp::create(
                            b2, l2, sum, cRow[0], ValueRange{i, n0}, inBounds)
                            .getResult();
              scf::YieldOp::create(b2, l2, w);
            });
        scf::YieldOp::create(b1, l1, rows.getResults());
      });
  rw.replaceOp(op, cols.getResults());
  return true;
}

Schedule scheduleOf(Attribute config) {
  Schedule s;
  if (auto c = dyn_cast_or_null<CpuContractionAttr>(config)) {
    s.vl = c.getLanes();
    s.mr = c.getMr();
    s.nr = c.getNr();
    s.kc = c.getKc();
    s.nc = c.getNc();
    s.mc = c.getParallelRows();
    s.ncBlock = c.getParallelCols();
    s.dot = c.getDot();
  } else if (auto e = dyn_cast_or_null<CpuElementwiseAttr>(config)) {
    s.vl = e.getLanes();
    s.maxWholeReduction = e.getWholeReduction();
    s.blockBytes = e.getParallelBlockBytes();
  }
  return s;
}

/// An op that reads the tensor it writes (`ins(%x, ...) outs(%x)`: an
/// elementwise op updating its input in place), tiled into `forall`, reads
/// slices of the original tensor while the forall writes that tensor as
/// its shared_outs: bufferization would copy the whole tensor first. A
/// block that reads exactly the slice it writes reads it from the
/// shared_outs block argument instead, which holds the same values (no
/// block writes another's slice, and writes land only at the end).
void readOwnSlicesFromSharedOuts(scf::ForallOp forall) {
  for (auto [init, arg] :
       llvm::zip(forall.getOutputs(), forall.getRegionIterArgs())) {
    SmallVector<tensor::ExtractSliceOp> own;
    for (Operation *user : arg.getUsers())
      if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user))
        own.push_back(slice);
    for (OpOperand &use : llvm::make_early_inc_range(init.getUses())) {
      auto slice = dyn_cast<tensor::ExtractSliceOp>(use.getOwner());
      if (!slice || !forall->isProperAncestor(slice))
        continue;
      bool same = llvm::any_of(own, [&](tensor::ExtractSliceOp o) {
        return o.getType() == slice.getType() &&
               isEqualConstantIntOrValueArray(o.getMixedOffsets(),
                                              slice.getMixedOffsets()) &&
               isEqualConstantIntOrValueArray(o.getMixedSizes(),
                                              slice.getMixedSizes()) &&
               isEqualConstantIntOrValueArray(o.getMixedStrides(),
                                              slice.getMixedStrides());
      });
      if (same)
        use.set(arg);
    }
  }
}

/// An init that `op`'s payload never reads (mostly a tensor.empty) is
/// replaced by an input of the same type and indexing map that `op` reads
/// last (every other use is in an earlier op of the same block, or inside
/// one: the scores that a mask or an exp overwrites) and that an op computed
/// (a destination-style op, a loop or branch: not a weight, an argument or a
/// reshape of one, which bufferization would have to copy). Bufferization
/// puts such an op's result in its input's buffer by itself; once the op is
/// in an scf.forall whose shared_outs is the init, it would allocate a new
/// buffer instead.
void reuseDeadInputAsInit(RewriterBase &rw, linalg::LinalgOp op) {
  SmallVector<OpOperand *> taken;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    if (op.payloadUsesValueFromOperand(&init))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&init);
    for (OpOperand *input : op.getDpsInputOperands()) {
      Value value = input->get();
      auto readsLast = [&] {
        return llvm::all_of(value.getUsers(), [&](Operation *user) {
          Operation *at = op->getBlock()->findAncestorOpInBlock(*user);
          return user == op.getOperation() ||
                 (at && at != op.getOperation() && at->isBeforeInBlock(op));
        });
      };
      Operation *def = value.getDefiningOp();
      bool computed =
          isa_and_nonnull<DestinationStyleOpInterface,
                          RegionBranchOpInterface>(def);
      if (value.getType() != init.get().getType() || !computed ||
          op.getMatchingIndexingMap(input) != map ||
          llvm::is_contained(taken, input) || !readsLast())
        continue;
      rw.modifyOpInPlace(op, [&] { init.set(value); });
      taken.push_back(input);
      break;
    }
  }
}

/// For every shared_outs of `forall` that is a fill used by nothing else,
/// `block` (the tiled op in `forall`) fills the slice of its init instead,
/// and the forall starts from the fill's destination: one parallel region
/// instead of two, and each block's accumulator is filled where it is
/// used. Returns the (now unused) fills and the fills made in `block`.
SmallVector<std::pair<linalg::FillOp, linalg::FillOp>>
fillInBlocks(RewriterBase &rw, scf::ForallOp forall, linalg::LinalgOp block) {
  SmallVector<std::pair<linalg::FillOp, linalg::FillOp>> moved;
  for (auto [output, arg] :
       llvm::zip(forall.getOutputsMutable(), forall.getRegionIterArgs())) {
    OpOperand &out = output;
    auto fill = out.get().getDefiningOp<linalg::FillOp>();
    if (!fill || !fill.hasPureTensorSemantics())
      continue;
    // Besides the forall, the loop bounds may read its sizes.
    Value dest = fill.getDpsInitOperand(0)->get();
    unsigned inForall = 0;
    bool onlyHere = llvm::all_of(fill->getUsers(), [&](Operation *user) {
      inForall += user == forall.getOperation();
      return user == forall.getOperation() || isa<tensor::DimOp>(user);
    });
    if (!onlyHere || inForall != 1)
      continue;
    // The block must read the forall's values of this output only as this
    // init (not as an input too, which would then read the unfilled
    // destination).
    for (OpOperand &init : block.getDpsInitsMutable()) {
      auto slice = init.get().getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || slice.getSource() != arg || !slice->hasOneUse())
        continue;
      bool readOnlyHere = llvm::all_of(arg.getUsers(), [&](Operation *user) {
        return user == slice.getOperation() ||
               isa<tensor::ParallelInsertSliceOp>(user);
      });
      if (!readOnlyHere)
        break;
      rw.setInsertionPoint(block);
      auto inBlock = linalg::FillOp::create(
          rw, fill.getLoc(), fill.getDpsInputOperand(0)->get(), init.get());
      rw.modifyOpInPlace(block, [&] { init.set(inBlock.getResult(0)); });
      rw.modifyOpInPlace(forall, [&] { out.set(dest); });
      for (Operation *user : llvm::make_early_inc_range(fill->getUsers()))
        rw.modifyOpInPlace(user, [&] {
          cast<tensor::DimOp>(user).getSourceMutable().set(dest);
        });
      moved.push_back({fill, inBlock});
      break;
    }
  }
  return moved;
}

struct TileAndVectorizePass
    : tfm::impl::TileAndVectorizePassBase<TileAndVectorizePass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero (and shares the
  // canonicalization patterns, as the implicit copy did).
  TileAndVectorizePass(const TileAndVectorizePass &other)
      : Base(other), canonicalization(other.canonicalization) {}

  LogicalResult initialize(MLIRContext *ctx) override {
    RewritePatternSet patterns(ctx);
    for (Dialect *d : ctx->getLoadedDialects())
      d->getCanonicalizationPatterns(patterns);
    for (RegisteredOperationName op : ctx->getRegisteredOperations())
      op.getCanonicalizationPatterns(patterns, ctx);
    canonicalization = FrozenRewritePatternSet(std::move(patterns));
    return success();
  }

  void runOnOperation() override;

private:
  LogicalResult canonicalize();
  SmallVector<std::pair<Operation *, Attribute>> takeMarked(StringRef marker);
  LogicalResult tileAndPeel(RewriterBase &rw, TilingInterface op,
                            ArrayRef<int64_t> sizes,
                            ArrayRef<int64_t> interchange, StringRef marker,
                            Attribute value = {});
  FailureOr<Operation *> forallBlocks(RewriterBase &rw, linalg::LinalgOp op,
                                     SmallVector<int64_t> sizes,
                                     tfm::PassStatistic &made);
  FailureOr<linalg::GenericOp> parallelBatch(RewriterBase &rw,
                                             linalg::GenericOp op,
                                             const GemmDims &g,
                                             const Schedule &s);
  LogicalResult scheduleContraction(RewriterBase &rw, linalg::GenericOp op,
                                    const Schedule &s);
  LogicalResult kernel(RewriterBase &rw, linalg::GenericOp op,
                       Attribute config);
  LogicalResult registerTiles(RewriterBase &rw, linalg::GenericOp op,
                              const Schedule &s);
  LogicalResult tileDynamicByOne(RewriterBase &rw, StringRef from,
                                 StringRef to);
  FailureOr<linalg::LinalgOp> parallelRowBlocks(RewriterBase &rw,
                                                linalg::LinalgOp op,
                                                const Schedule &s);
  LogicalResult scheduleOther(RewriterBase &rw, linalg::LinalgOp op,
                              const Schedule &s);
  linalg::GenericOp dropUnitLoops(RewriterBase &rw, linalg::GenericOp op,
                                  ArrayRef<unsigned> keep = {});

  FrozenRewritePatternSet canonicalization;

  // The statistics of Passes.td (same names and descriptions), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h. (`contractions`
  // is also the name of an option, hence the member names.)
  tfm::PassStatistic contractionsTiled{
      this, numContractions, "contractions",
      "Contractions tiled for registers and caches"};
  tfm::PassStatistic dotKernels{
      this, numDot, "dot-kernels",
      "Contractions given the dot-product kernel (B read in place)"};
  tfm::PassStatistic packedOperands{
      this, numPacked, "packed-operands",
      "Contraction operands packed (transposed) per cache tile"};
  tfm::PassStatistic vectorizedOps{this, numVectorized, "vectorized-ops",
                                   "Tiles vectorized"};
  tfm::PassStatistic parallelLoops{
      this, numParallel, "parallel-loops",
      "scf.forall loops made for threads (contractions, packing)"};
  tfm::PassStatistic parallelOps{
      this, numParallelOps, "parallel-ops",
      "Other linalg ops split into scf.forall row blocks for threads"};
};

LogicalResult TileAndVectorizePass::canonicalize() {
  GreedyRewriteConfig config;
  config.setMaxIterations(8);
  return applyPatternsGreedily(getOperation(), canonicalization, config);
}

/// The ops carrying `marker`, with its value, which is removed from them.
SmallVector<std::pair<Operation *, Attribute>>
TileAndVectorizePass::takeMarked(StringRef marker) {
  SmallVector<std::pair<Operation *, Attribute>> ops;
  getOperation().walk([&](Operation *op) {
    if (Attribute value = op->removeAttr(marker))
      ops.push_back({op, value});
  });
  return ops;
}

/// Tiles `op` by `sizes` (0: not tiled) with scf.for loops ordered by
/// `interchange`, marks the tiled op with `marker` (set to `value`, or a
/// unit attribute), and peels every loop
/// whose tile is larger than 1 (and the copies of inner loops that peeling
/// makes), so that full tiles have static sizes once canonicalized.
LogicalResult TileAndVectorizePass::tileAndPeel(RewriterBase &rw,
                                                TilingInterface op,
                                                ArrayRef<int64_t> sizes,
                                                ArrayRef<int64_t> interchange,
                                                StringRef marker,
                                                Attribute value) {
  if (!value)
    value = rw.getUnitAttr();
  // A tile that covers a static loop whole is no tile: leave the loop out
  // (fewer loops, nothing to peel, less IR for bufferization to analyze).
  SmallVector<int64_t> clamped(sizes);
  if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op.getOperation())) {
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    for (auto [size, range] : llvm::zip(clamped, ranges))
      if (!ShapedType::isDynamic(range) && size >= range && size != 1)
        size = 0;
  }
  sizes = clamped;
  if (llvm::all_of(sizes, [](int64_t v) { return v == 0; })) {
    op->setAttr(marker, value);
    return success();
  }
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rw.getContext(), sizes));
  if (!interchange.empty())
    options.setInterchange(interchange);
  rw.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(rw, op, options);
  if (failed(tiled)) {
    InFlightDiagnostic diag = op->emitOpError("could not be tiled by [");
    llvm::interleaveComma(sizes, diag);
    return diag << "]";
  }
  rw.replaceOp(op, tiled->replacements);
  tiled->tiledOps.back()->setAttr(marker, value);

  // The loops, outermost first, follow the interchanged non-zero sizes.
  SmallVector<int64_t> loopSizes;
  for (unsigned i = 0, e = sizes.size(); i < e; ++i) {
    int64_t d = interchange.empty() ? i : interchange[i];
    if (sizes[d] != 0)
      loopSizes.push_back(sizes[d]);
  }
  SmallVector<scf::ForOp> worklist;
  for (auto [loop, size] : llvm::zip(tiled->loops, loopSizes)) {
    if (size <= 1)
      continue;
    loop->setAttr(kPeel, rw.getUnitAttr());
    worklist.push_back(cast<scf::ForOp>(loop.getOperation()));
  }

  // Peel outermost first; the partial iteration holds copies of the inner
  // loops, still marked, which join the worklist.
  for (size_t i = 0; i < worklist.size(); ++i) {
    scf::ForOp next = worklist[i];
    next->removeAttr(kPeel);
    scf::ForOp partial;
    if (failed(scf::peelForLoopAndSimplifyBounds(rw, next, partial)))
      continue;
    partial->removeAttr(kPeel);
    partial->walk<WalkOrder::PreOrder>([&](scf::ForOp f) {
      if (f->hasAttr(kPeel))
        worklist.push_back(f);
    });
  }
  return success();
}

/// Drops the loops of static size 1 but those in `keep` (rank-reducing
/// slices around the op).
linalg::GenericOp TileAndVectorizePass::dropUnitLoops(RewriterBase &rw,
                                                      linalg::GenericOp op,
                                                      ArrayRef<unsigned> keep) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<unsigned> drop;
  for (unsigned d = 0, e = ranges.size(); d < e; ++d)
    if (ranges[d] == 1 && !llvm::is_contained(keep, d))
      drop.push_back(d);
  if (drop.empty() || ranges.size() <= 1)
    return op;
  linalg::ControlDropUnitDims control;
  control.rankReductionStrategy = linalg::ControlDropUnitDims::
      RankReductionStrategy::ExtractInsertSlice;
  control.controlFn = [drop](Operation *) { return drop; };
  rw.setInsertionPoint(op);
  FailureOr<linalg::DropUnitDimsResult> r =
      linalg::dropUnitDims(rw, op, control);
  if (failed(r))
    return op;
  rw.replaceOp(op, r->replacements);
  return cast<linalg::GenericOp>(r->resultOp.getOperation());
}

/// Tiles `op` with an scf.forall by `sizes` (0: not split; a static loop
/// that one tile covers is not split either) and returns the op inside it,
/// or `op` itself when nothing is split. A forall made counts in `made`.
FailureOr<Operation *>
TileAndVectorizePass::forallBlocks(RewriterBase &rw, linalg::LinalgOp op,
                                   SmallVector<int64_t> sizes,
                                   tfm::PassStatistic &made) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [size, range] : llvm::zip(sizes, ranges))
    if (!ShapedType::isDynamic(range) && size >= range)
      size = 0;
  if (llvm::all_of(sizes, [](int64_t v) { return v == 0; }))
    return op.getOperation();
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rw.getContext(), sizes));
  options.setLoopType(scf::SCFTilingOptions::LoopType::ForallOp);
  rw.setInsertionPoint(op);
  FailureOr<scf::SCFTilingResult> tiled =
      scf::tileUsingSCF(rw, cast<TilingInterface>(op.getOperation()), options);
  if (failed(tiled)) {
    InFlightDiagnostic diag =
        op->emitOpError("could not be split into parallel blocks of [");
    llvm::interleaveComma(sizes, diag);
    return diag << "]";
  }
  rw.replaceOp(op, tiled->replacements);
  for (LoopLikeOpInterface loop : tiled->loops)
    if (auto forall = dyn_cast<scf::ForallOp>(loop.getOperation()))
      readOwnSlicesFromSharedOuts(forall);
  ++made;
  return tiled->tiledOps.back();
}

/// Level 0 (with threads: `parallel_rows` > 0): the outer parallel dimensions of B of a
/// contraction that no loop encloses (batch dimensions, such as the heads
/// of attention's QK^T and PV, and outer n dimensions, such as the heads of
/// a projection written per head, the panels of a packed weight) become an
/// scf.forall, one iteration per index, and with them the innermost m
/// dimension in blocks of 4 MC rows: left to the serial unit loops, each
/// index would make its own small parallel regions of row blocks (96
/// fork/joins of ~30 us of work for one GPT-2 projection). Outer m
/// dimensions (the batch of a rank-3 linear) are not split here. Without
/// such dimensions, row blocks come later, inside the cache tiles (see
/// kernel()).
FailureOr<linalg::GenericOp>
TileAndVectorizePass::parallelBatch(RewriterBase &rw, linalg::GenericOp op,
                                    const GemmDims &g, const Schedule &s) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  AffineMap bMap = op.getMatchingIndexingMap(op.getDpsInputOperand(g.b));
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  bool any = false;
  for (unsigned d : g.unit)
    if (linalg::isParallelIterator(iterators[d]) && ranges[d] != 1 &&
        bMap.isFunctionOfDim(d)) {
      sizes[d] = 1;
      any = true;
    }
  // The rows too, in blocks of four row blocks: a few panels of a packed
  // weight (3 for a 768-wide projection in 256-wide panels, max-panel=256)
  // would leave threads idle (on 2 threads, 82 % of OpenBLAS for that
  // shape), and each
  // block still reuses every B panel it reads 4 * MC / MR times.
  if (any)
    sizes[g.m] = 4 * s.mc;
  FailureOr<Operation *> inner = forallBlocks(rw, op, sizes, parallelLoops);
  if (failed(inner))
    return failure();
  return cast<linalg::GenericOp>(*inner);
}

/// Level 1: cache tiles. Unit loops by 1, n by NC, k by KC (m whole).
LogicalResult TileAndVectorizePass::scheduleContraction(RewriterBase &rw,
                                                        linalg::GenericOp op,
                                                        const Schedule &s) {
  std::optional<GemmDims> g = classifyCpuContraction(op);
  if (!g)
    return success();
  ++contractionsTiled;
  Attribute config = op->getAttr(kLoweringConfigAttr);
  if (s.mc > 0) {
    FailureOr<linalg::GenericOp> block = parallelBatch(rw, op, *g, s);
    if (failed(block))
      return failure();
    // Row blocks only where no batch forall was made: one level of threads.
    if (*block == op)
      op->setAttr(kParallelRows, rw.getUnitAttr());
    op = *block;
    g = classifyCpuContraction(op);
    if (!g)
      return success();
  }
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  SmallVector<int64_t> order;
  for (unsigned d : g->unit) {
    sizes[d] = 1;
    order.push_back(d);
  }
  sizes[g->n] = s.nc;
  sizes[g->k] = s.kc;
  order.append({g->n, g->k, g->m});
  return tileAndPeel(rw, cast<TilingInterface>(op.getOperation()), sizes,
                     order, kCacheTile, config);
}

/// Level 2 on a cache tile: drop unit loops, pack a B read as B[n, k], then
/// rows of MR (peeled; registerTiles continues).
LogicalResult TileAndVectorizePass::kernel(RewriterBase &rw,
                                           linalg::GenericOp op,
                                           Attribute config) {
  Schedule s = scheduleOf(config);
  bool splitRows = op->hasAttr(kParallelRows);
  // Cache tiles are contractions (scheduleContraction marks no others).
  // Their unit loops go, but not the contraction's own: a static m of 1
  // (the one query row of a decode step's attention, per K/V head) is a
  // GEMV, still a register kernel (1 x NR tiles); without its m loop it
  // would no longer be a contraction, and would run as scalar loops.
  std::optional<GemmDims> g = classifyCpuContraction(op);
  if (!g)
    return success();
  op = dropUnitLoops(rw, op, {g->m, g->n, g->k});
  g = classifyCpuContraction(op);
  if (!g || !g->unit.empty())
    return success(); // Left scalar: convert-linalg-to-loops handles it.
  if (s.dot && !splitRows && dotKernel(rw, op, *g, s.vl)) {
    ++dotKernels;
    return success();
  }
  Location loc = op.getLoc();
  OpOperand *b = op.getDpsInputOperand(g->b);
  AffineMap bMap = op.getMatchingIndexingMap(b);
  if (bMap.getNumResults() == 2 && bMap.getDimPosition(0) == g->n &&
      bMap.getDimPosition(1) == g->k) {
    // B[n, k] -> packed[k, n], once per cache tile (reused by every m).
    // A 16-bit B (a KV cache block that the attention reads in place) is
    // widened as it is packed: the kernel then reads f32, and the pack's
    // transposes are f32 shuffles (16-bit ones were element by element).
    rw.setInsertionPoint(op);
    OpFoldResult nSize = tensor::getMixedSize(rw, loc, b->get(), 0);
    OpFoldResult kSize = tensor::getMixedSize(rw, loc, b->get(), 1);
    Type f = rw.getF32Type();
    Value dest;
    if (getConstantIntValue(nSize) && getConstantIntValue(kSize)) {
      dest = tensor::EmptyOp::create(rw, loc, {kSize, nSize}, f);
    } else {
      // A partial tile: a slice of a full-size buffer, so that the buffer
      // has a static size and bufferization hoists its allocation.
      Value full = tensor::EmptyOp::create(
          rw, loc, ArrayRef<int64_t>{s.kc, s.nc}, f);
      dest = tensor::ExtractSliceOp::create(
          rw, loc, full, {rw.getIndexAttr(0), rw.getIndexAttr(0)},
          {kSize, nSize}, {rw.getIndexAttr(1), rw.getIndexAttr(1)});
    }
    MLIRContext *ctx = rw.getContext();
    bool widen = !getElementTypeOrSelf(b->get().getType()).isF32();
    Operation *t = widen ? widenInto(rw, loc, b->get(), dest,
                                     AffineMap::getPermutationMap(
                                         ArrayRef<unsigned>{1, 0}, ctx))
                               .getOperation()
                         : linalg::TransposeOp::create(rw, loc, b->get(), dest,
                                                       ArrayRef<int64_t>{1, 0})
                               .getOperation();
    SmallVector<AffineMap> maps = op.getIndexingMapsArray();
    maps[g->b] = AffineMap::get(
        op.getNumLoops(), 0,
        {getAffineDimExpr(g->k, ctx), getAffineDimExpr(g->n, ctx)}, ctx);
    BlockArgument bArg = op.getMatchingBlockArgument(b);
    rw.modifyOpInPlace(op, [&] {
      b->set(t->getResult(0));
      op.setIndexingMapsAttr(rw.getAffineMapArrayAttr(maps));
    });
    if (widen)
      dropPayloadWidening(rw, bArg);
    ++packedOperands;
    // With `parallel`, the pack is split across threads too (blocks of
    // 2·VL rows of k, each writing its own rows of the packed buffer):
    // left serial, it would bound the speedup of the row blocks below.
    Operation *pack = t;
    if (splitRows) {
      FailureOr<Operation *> block =
          forallBlocks(rw, cast<linalg::LinalgOp>(t),
                       SmallVector<int64_t>{2 * s.vl, 0}, parallelLoops);
      if (failed(block))
        return failure();
      pack = *block;
    }
    // The pack itself: VL × VL tiles of the (k, n) iteration space.
    if (failed(tileAndPeel(rw, cast<TilingInterface>(pack), {s.vl, s.vl}, {},
                           kVectorTile)))
      return failure();
  }
  // With `parallel`, blocks of MC rows by `parallel_cols` columns split
  // across threads, inside the cache tile: every block reads its part of
  // the one packed B tile (shared, written before the loop), so B is packed
  // and brought into cache once, not once per block; the columns keep the
  // threads busy when there are few rows (a decode step). Only for
  // contractions that no loop of the input encloses and that have no batch
  // forall: one level of parallelism.
  if (splitRows) {
    SmallVector<int64_t> blocks(op.getNumLoops(), 0);
    blocks[g->m] = s.mc;
    blocks[g->n] = s.ncBlock;
    FailureOr<Operation *> block = forallBlocks(rw, op, blocks, parallelLoops);
    if (failed(block))
      return failure();
    op = cast<linalg::GenericOp>(*block);
  }
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[g->m] = s.mr;
  return tileAndPeel(rw, cast<TilingInterface>(op.getOperation()), sizes, {},
                     kRowTile, config);
}

/// Level 3 on MR rows: register tiles MR × NR × 1 (loops m, n, k), or
/// 1 × NR × 1 on the remaining rows (fewer than MR, a dynamic count). The k
/// loop is innermost, so the accumulator tile is loop-invariant in it.
LogicalResult TileAndVectorizePass::registerTiles(RewriterBase &rw,
                                                  linalg::GenericOp op,
                                                  const Schedule &s) {
  std::optional<GemmDims> g = classifyCpuContraction(op);
  if (!g || !g->unit.empty())
    return success();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<int64_t> sizes(op.getNumLoops(), 0);
  sizes[g->m] = ShapedType::isDynamic(ranges[g->m]) ? 1 : 0;
  sizes[g->n] = s.nr;
  sizes[g->k] = 1;
  return tileAndPeel(rw, cast<TilingInterface>(op.getOperation()), sizes,
                     {g->m, g->n, g->k}, kKernelTile);
}

/// Tiles by 1 the dynamic loops of the ops marked `from` (partial tiles) and
/// marks the static results `to`.
LogicalResult TileAndVectorizePass::tileDynamicByOne(RewriterBase &rw,
                                                     StringRef from,
                                                     StringRef to) {
  for (auto [op, unit] : takeMarked(from)) {
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp)
      continue;
    SmallVector<int64_t> ranges = linalgOp.getStaticLoopRanges();
    if (!llvm::any_of(ranges, ShapedType::isDynamic)) {
      op->setAttr(to, rw.getUnitAttr());
      continue;
    }
    SmallVector<int64_t> sizes;
    for (int64_t r : ranges)
      sizes.push_back(ShapedType::isDynamic(r) ? 1 : 0);
    if (failed(tileAndPeel(rw, cast<TilingInterface>(op), sizes, {}, to)))
      return failure();
  }
  return success();
}

/// With threads (`parallel_block_bytes` > 0), on a non-contraction op: its
/// outer parallel loops (batch x tokens, batch x heads x tokens: every
/// parallel loop but the innermost one) become an scf.forall of row blocks,
/// and the op inside it is returned (`op` itself when it stays serial). The
/// innermost loop and every reduction loop stay whole inside a block, so
/// each block computes whole rows (a layer norm's reductions included) and
/// writes a disjoint slice of every result: only loops that index every
/// result, as a plain dimension, are split.
///
/// A row's data is the bytes of every operand over the loops that are not
/// split (dynamic extents count as 1: a lower bound); a block takes
/// ceil(blockBytes / row bytes) rows, gathered from the innermost split
/// loop outwards (a static loop that the rows cover is left whole, its
/// extent multiplying the rows; a dynamic one is blocked by the rows still
/// needed, the loops outside it by 1). An op whose static extents give
/// fewer than two blocks stays serial; with dynamic loops the number of
/// blocks is only known at run time.
FailureOr<linalg::LinalgOp>
TileAndVectorizePass::parallelRowBlocks(RewriterBase &rw, linalg::LinalgOp op,
                                        const Schedule &s) {
  unsigned n = op.getNumLoops();
  if (n < 2)
    return op;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  auto indexesEveryResult = [&](unsigned d) {
    for (OpOperand &init : op.getDpsInitsMutable()) {
      AffineMap map = op.getMatchingIndexingMap(&init);
      if (!map.isProjectedPermutation() || !map.isFunctionOfDim(d))
        return false;
    }
    return true;
  };
  SmallVector<bool> split(n, false);
  for (unsigned d = 0; d + 1 < n; ++d)
    split[d] = linalg::isParallelIterator(iterators[d]) &&
               ranges[d] != 1 && indexesEveryResult(d);
  if (llvm::none_of(split, [](bool b) { return b; }))
    return op;

  // Bytes of one row: every shaped operand over the loops not split.
  int64_t rowBytes = 0;
  for (OpOperand &operand : op->getOpOperands()) {
    auto shaped = dyn_cast<ShapedType>(operand.get().getType());
    if (!shaped)
      continue;
    Type element = shaped.getElementType();
    int64_t bytes = element.isIntOrFloat()
                        ? llvm::divideCeil(element.getIntOrFloatBitWidth(), 8)
                        : 8;
    for (AffineExpr e : op.getMatchingIndexingMap(&operand).getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(e);
      if (!dim || split[dim.getPosition()] ||
          ShapedType::isDynamic(ranges[dim.getPosition()]))
        continue;
      bytes *= ranges[dim.getPosition()];
    }
    rowBytes += bytes;
  }
  int64_t rows =
      llvm::divideCeil(s.blockBytes, std::max<int64_t>(1, rowBytes));

  // Block sizes, innermost split loop first. A static loop longer than the
  // rows still needed is cut into blocks of at least that many: a divisor
  // of its extent up to twice that (full blocks of a static size), else
  // as many blocks as the extent holds.
  SmallVector<int64_t> sizes(n, 0);
  int64_t blocks = 1;
  bool dynamicBlocks = false;
  for (int d = n - 1; d >= 0; --d) {
    if (!split[d])
      continue;
    int64_t range = ranges[d];
    if (ShapedType::isDynamic(range)) {
      sizes[d] = rows;
      rows = 1;
      dynamicBlocks = true;
    } else if (range <= rows) {
      rows = llvm::divideCeil(rows, range); // whole: sizes[d] stays 0
    } else {
      int64_t size = rows;
      while (size <= 2 * rows && range % size != 0)
        ++size;
      if (range % size != 0)
        size = llvm::divideCeil(range, range / rows);
      sizes[d] = size;
      blocks *= llvm::divideCeil(range, size);
      rows = 1;
    }
  }
  if (!dynamicBlocks && blocks < 2)
    return op;
  reuseDeadInputAsInit(rw, op);
  FailureOr<Operation *> inner = forallBlocks(rw, op, sizes, parallelOps);
  if (failed(inner))
    return failure();
  return cast<linalg::LinalgOp>(*inner);
}

/// Any other linalg op with a static innermost loop: that loop in
/// vector-wide tiles that divide it (or whole when it is a small enough
/// reduction or no wider than 2·VL), every other loop by 1. Nothing is
/// peeled here: peeling elementwise nests with several dynamic loops made
/// the affine simplifications after peeling, and bufferization's slice
/// analysis, dominate compile time. Ops with a dynamic innermost loop stay
/// scalar for LLVM's loop vectorizer (their f32 math is still approximated
/// inline by -tfm-approximate-math, so the vectorizer can take it).
LogicalResult TileAndVectorizePass::scheduleOther(RewriterBase &rw,
                                                  linalg::LinalgOp op,
                                                  const Schedule &s) {
  unsigned n = op.getNumLoops();
  if (n == 0)
    return success();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t inner = ranges.back();
  if (ShapedType::isDynamic(inner))
    return success();
  bool innerReduction =
      linalg::isReductionIterator(op.getIteratorTypesArray().back());
  SmallVector<int64_t> sizes(n, 1);
  if (inner <= 2 * s.vl || (innerReduction && inner <= s.maxWholeReduction))
    sizes.back() = 0;
  else if (inner % (2 * s.vl) == 0)
    sizes.back() = 2 * s.vl;
  else if (inner % s.vl == 0)
    sizes.back() = s.vl;
  else
    return success();
  // Other reductions are tiled by 1 too (full reduction, accumulator carried
  // by the loop).
  return tileAndPeel(rw, cast<TilingInterface>(op.getOperation()), sizes, {},
                     kVectorTile);
}

void TileAndVectorizePass::runOnOperation() {
  func::FuncOp func = getOperation();
  IRRewriter rw(func.getContext());

  // Generalize named ops (matmul, transpose, broadcast, ...) so that unit
  // loops can be dropped uniformly; fills stay (they vectorize as they are).
  // Each keeps its configuration.
  SmallVector<linalg::LinalgOp> named;
  func.walk([&](linalg::LinalgOp op) {
    if (op.hasPureTensorSemantics() && !isa<linalg::GenericOp>(op) &&
        !isa<linalg::FillOp>(op) && op->hasAttr(kLoweringConfigAttr))
      named.push_back(op);
  });
  for (linalg::LinalgOp op : named) {
    Attribute config = op->getAttr(kLoweringConfigAttr);
    rw.setInsertionPoint(op);
    FailureOr<linalg::GenericOp> generic = linalg::generalizeNamedOp(rw, op);
    if (succeeded(generic))
      (*generic)->setAttr(kLoweringConfigAttr, config);
  }

  // The ops -tfm-cpu-configure chose a schedule for; the others are left
  // as they are.
  SmallVector<linalg::GenericOp> gemms;
  SmallVector<linalg::LinalgOp> others;
  func.walk([&](linalg::LinalgOp op) {
    Attribute config = op->getAttr(kLoweringConfigAttr);
    auto generic = dyn_cast<linalg::GenericOp>(op.getOperation());
    if (isa_and_nonnull<CpuContractionAttr>(config) && generic &&
        classifyCpuContraction(op))
      gemms.push_back(generic);
    else if (isa_and_nonnull<CpuElementwiseAttr>(config))
      others.push_back(op);
  });

  for (linalg::GenericOp op : gemms)
    if (failed(scheduleContraction(
            rw, op, scheduleOf(op->getAttr(kLoweringConfigAttr)))))
      return signalPassFailure();
  // The other ops: row blocks for threads first (`parallel_block_bytes`),
  // then vector tiles (`vectorize`). A fill that only initializes another
  // op's result moves into the blocks of that op (the configuration does
  // not split it by itself), with that op's configuration.
  SmallVector<linalg::LinalgOp> vectorOps;
  llvm::SmallPtrSet<Operation *, 8> movedFills;
  for (linalg::LinalgOp op : others) {
    auto config = cast<CpuElementwiseAttr>(op->getAttr(kLoweringConfigAttr));
    Schedule s = scheduleOf(config);
    bool vectorize = config.getVectorize();
    if (s.blockBytes > 0) {
      FailureOr<linalg::LinalgOp> block = parallelRowBlocks(rw, op, s);
      if (failed(block))
        return signalPassFailure();
      op = *block;
      // Not in a loop before: a forall around it is the one just made.
      if (auto forall = dyn_cast<scf::ForallOp>(op->getParentOp())) {
        for (auto [moved, made] : fillInBlocks(rw, forall, op)) {
          movedFills.insert(moved);
          made->setAttr(kLoweringConfigAttr, config);
          if (vectorize)
            vectorOps.push_back(made);
        }
      }
    }
    if (vectorize)
      vectorOps.push_back(op);
  }
  llvm::erase_if(vectorOps, [&](linalg::LinalgOp op) {
    return movedFills.contains(op.getOperation());
  });
  for (Operation *fill : movedFills)
    rw.eraseOp(fill);
  for (linalg::LinalgOp op : vectorOps)
    if (failed(scheduleOther(rw, op,
                             scheduleOf(op->getAttr(kLoweringConfigAttr)))))
      return signalPassFailure();
  (void)canonicalize();

  for (auto [op, config] : takeMarked(kCacheTile))
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      if (failed(kernel(rw, generic, config)))
        return signalPassFailure();
  (void)canonicalize();

  for (auto [op, config] : takeMarked(kRowTile))
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      if (failed(registerTiles(rw, generic, scheduleOf(config))))
        return signalPassFailure();
  (void)canonicalize();

  // Partial tiles with a dynamic size: tile those loops by 1.
  if (failed(tileDynamicByOne(rw, kVectorTile, kReady)) ||
      failed(tileDynamicByOne(rw, kKernelTile, kReadyKernel)))
    return signalPassFailure();
  (void)canonicalize();

  // Vectorize every static tile the vectorizer accepts. Kernel tiles keep
  // their unit k loop: they become vector.contract (outer products, FMAs).
  for (auto [op, unit] : takeMarked(kReady))
    if (auto generic = dyn_cast<linalg::GenericOp>(op))
      dropUnitLoops(rw, generic)->setAttr(kReadyKernel, rw.getUnitAttr());
    else
      op->setAttr(kReadyKernel, rw.getUnitAttr());
  SmallVector<Operation *> ready;
  for (auto [marked, unit] : takeMarked(kReadyKernel)) {
    // A kernel tile reading a 16-bit panel: its tile of the panel widened
    // first (vectorized too), so that the kernel is an f32 contraction.
    if (auto generic = dyn_cast<linalg::GenericOp>(marked)) {
      if (classifyCpuContraction(generic)) {
        if (Operation *widen = widenSixteenBitInput(rw, generic))
          ready.push_back(widen);
        untransposeUnitKA(rw, generic);
      }
    }
    ready.push_back(marked);
  }
  for (Operation *op : ready) {
    // A kernel tile back to linalg.matmul, which the vectorizer turns into
    // one vector.contract (outer products later) instead of mulf + addf.
    if (auto generic = dyn_cast<linalg::GenericOp>(op)) {
      if (classifyContraction(generic)) {
        rw.setInsertionPoint(generic);
        FailureOr<linalg::LinalgOp> named =
            linalg::specializeGenericOp(rw, generic);
        if (succeeded(named))
          op = named->getOperation();
      }
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if (!linalgOp ||
        llvm::any_of(linalgOp.getStaticLoopRanges(), ShapedType::isDynamic))
      continue;
    if (failed(linalg::vectorizeOpPrecondition(op, {}, {},
                                               /*vectorizeNDExtract=*/true)))
      continue;
    rw.setInsertionPoint(op);
    FailureOr<linalg::VectorizationResult> v =
        linalg::vectorize(rw, op, {}, {}, /*vectorizeNDExtract=*/true,
                          /*flatten1DDepthwiseConv=*/false,
                          /*assumeDynamicDimsMatchVecSizes=*/false,
                          /*createNamedContraction=*/true);
    if (failed(v))
      continue;
    if (op->getNumResults())
      rw.replaceOp(op, v->replacements);
    else
      rw.eraseOp(op);
    ++vectorizedOps;
  }
  (void)canonicalize();

  // Keep accumulators in registers: hoist loop-invariant subsets
  // (extract/insert_slice, transfer_read/write pairs) out of the loops,
  // innermost loops first.
  SmallVector<scf::ForOp> loops;
  func.walk([&](scf::ForOp f) { loops.push_back(f); });
  for (scf::ForOp f : loops)
    (void)hoistLoopInvariantSubsets(rw, f);
  (void)canonicalize();

  // The markers, and the configurations: carried out (an op whose
  // innermost loop is dynamic stays scalar, as its schedule says).
  func.walk([](Operation *op) {
    for (StringRef marker : {kCacheTile, kRowTile, kKernelTile, kVectorTile,
                             kReady, kReadyKernel, kPeel, kParallelRows})
      op->removeAttr(marker);
    if (isa_and_nonnull<CpuContractionAttr, CpuElementwiseAttr>(
            op->getAttr(kLoweringConfigAttr)))
      op->removeAttr(kLoweringConfigAttr);
  });
}

} // namespace
