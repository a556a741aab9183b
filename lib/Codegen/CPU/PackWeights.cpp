//===- PackWeights.cpp - panel-major weights for contractions -------------===//
//
// -tfm-pack-weights: a contraction that reads a rank-2 tfm.weight W as
// W[k, n] or W[n, k] reads a packed copy Wp[n / P, k, n % P] instead, so that
// the K x P micro-panel the register kernel of -tfm-tile-and-vectorize
// streams is contiguous. The copy is marked `tfm.prepare`; it is made once
// per model instance (-tfm-outline-prepare), never per call. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"
#include "tfm/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_PACKWEIGHTSPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

using namespace mlir::tfm::abi;

/// A contraction operand that can read a packed weight.
struct Candidate {
  WeightBlock block; // the weight, or the block of it, read
  unsigned operand; // input number of the weight
  unsigned n, k;    // loops of the weight's N and K dimensions
  unsigned nDim;    // which dimension of W is N (1: W[k, n], 0: W[n, k])
  int64_t panel;    // P
  int64_t packedN;  // the first columns, a multiple of P: packed
};

/// The widest multiple of `granule` that divides `n` and is at most
/// `widest` (0 when `granule` does not divide `n`).
int64_t panelWidth(int64_t n, int64_t granule, int64_t widest) {
  int64_t best = 0;
  for (int64_t p = granule; p <= std::max(granule, widest); p += granule)
    if (n % p == 0)
      best = p;
  return best;
}

std::optional<Candidate> match(linalg::LinalgOp op, int64_t granule,
                               int64_t widest) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return std::nullopt;
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outMap.getNumResults() == 0)
    return std::nullopt;
  auto outLast = dyn_cast<AffineDimExpr>(outMap.getResults().back());
  auto outType =
      cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  // The output's N must be static: it is split into panels.
  if (!outLast || ShapedType::isDynamic(outType.getShape().back()))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned i = 0; i < 2; ++i) {
    OpOperand *input = op.getDpsInputOperand(i);
    std::optional<WeightBlock> block = weightBlockOf(input->get());
    if (!block)
      continue;
    auto type = cast<RankedTensorType>(input->get().getType());
    AffineMap map = op.getMatchingIndexingMap(input);
    if (!map.isProjectedPermutation() || map.getNumResults() != 2)
      continue;
    Candidate c{*block, i, 0, 0, 0, 0, 0};
    c.nDim = map.getDimPosition(0) == outLast.getPosition() ? 0 : 1;
    c.n = map.getDimPosition(c.nDim);
    c.k = map.getDimPosition(1 - c.nDim);
    AffineMap other = op.getMatchingIndexingMap(op.getDpsInputOperand(1 - i));
    if (c.n != outLast.getPosition() ||
        !linalg::isParallelIterator(iterators[c.n]) ||
        !linalg::isReductionIterator(iterators[c.k]) ||
        other.isFunctionOfDim(c.n))
      continue;
    // A remainder of fewer than `granule` columns stays as stored.
    int64_t n = type.getDimSize(c.nDim);
    c.packedN = n - n % granule;
    c.panel = panelWidth(c.packedN, granule, widest);
    if (c.packedN == 0 || c.panel == 0 ||
        (c.nDim == 1 && c.packedN == c.panel && c.block.whole()))
      continue;
    return c;
  }
  return std::nullopt;
}

struct PackWeightsPass : tfm::impl::PackWeightsPassBase<PackWeightsPass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  PackWeightsPass(const PackWeightsPass &other) : Base(other) {}

  void runOnOperation() override {
    // The panel granule is the register tile's width on the target.
    granule = panel;
    if (granule == 0) {
      CpuTargetAttr target = getCpuTarget(getOperation());
      if (!target) {
        getOperation().emitError()
            << "tfm-pack-weights: no panel option and no CPU target to take "
               "it from ('"
            << kTargetAttr << "' is missing or not #tfm.cpu_target)";
        return signalPassFailure();
      }
      granule = registerTileWidth(target);
    }
    // One register tile: its strip of B is contiguous, and the kernel
    // streams it with -tfm-cpu-prefetch running ahead. Eight tiles (f32's
    // default until 2026-12-02) reused A from L1 but read B at a 1 KiB
    // stride: with the prefetches, one-tile panels ran a GPT-2 f32 batch-8
    // decode step 2x faster and its prefill of 512 rows 6 % faster on a
    // Xeon with AVX-512 (4096 rows: 10 % slower, A no longer shared by
    // eight tiles); 16-bit panels had been one tile wide since a one-row
    // decode GEMV stalled on eight-tile ones (bf16 on AVX2: 28.0 -> 18.3 ms
    // per step). docs/performance.md.
    widest = maxPanel > 0 ? int64_t(maxPanel) : granule;
    if (granule < 1 || widest % granule) {
      getOperation().emitError("tfm-pack-weights: panel must be positive and "
                               "max-panel 0 or a multiple of it, got panel=")
          << granule << " max-panel=" << widest;
      return signalPassFailure();
    }
    // A 16-bit precision: the weights the runtime rounds to it get panels
    // of that type.
    sixteenBit = nullptr;
    rounded.clear();
    ModuleOp module = getOperation();
    auto precision = module->getAttrOfType<TypeAttr>(kPrecisionAttr);
    auto names = module->getAttrOfType<ArrayAttr>(kRoundedWeightsAttr);
    // f16 only where the CPU converts it (F16C): LLVM widens f16 by a
    // library call per element otherwise. bf16 widens by a shift anywhere.
    CpuTargetAttr target = getCpuTarget(module);
    bool f16 = precision && precision.getValue().isF16() && target &&
               target.hasFeature("f16c");
    if (sixteenBitPanels && precision && names &&
        (precision.getValue().isBF16() || f16)) {
      sixteenBit = cast<FloatType>(precision.getValue());
      for (auto name : names.getAsRange<StringAttr>())
        rounded.insert(name.getValue());
    }
    module.walk([&](func::FuncOp f) {
      if (!f.isExternal())
        runOnFunction(f);
    });
  }

private:
  void runOnFunction(func::FuncOp func);
  Value packed(OpBuilder &b, func::FuncOp func, Candidate c);

  /// Per function: packed value by its `tfm.prepare` name.
  llvm::StringMap<Value> packs;
  /// The panel granule and the widest panel of this run.
  int64_t granule = 0, widest = 0;
  /// The module's 16-bit precision (null: f32 panels only), and the weights
  /// the runtime rounds to it.
  FloatType sixteenBit;
  llvm::StringSet<> rounded;

  tfm::PassStatistic contractions{this, numPackedContractions,
                                  "packed-contractions",
                                  "Contractions rewritten to read a packed "
                                  "weight"};
  tfm::PassStatistic layouts{this, numPackedWeights, "packed-weights",
                             "Packed weight layouts made (one per weight "
                             "name and layout)"};
  tfm::PassStatistic narrowLayouts{this, numSixteenBitWeights,
                                   "sixteen-bit-weights",
                                   "Packed weight layouts stored in 16 bits"};
};

/// Wp[nb, k, r] = W[k, nb*P + r] (nDim 1) or W[nb*P + r, k] (nDim 0): one
/// linalg.generic copy per weight name and layout, at the start of the
/// function (its operands are weights, which have no operands). Stored in
/// the module's 16-bit precision when the runtime rounds W to it (the
/// truncation is then exact).
Value PackWeightsPass::packed(OpBuilder &b, func::FuncOp func,
                              Candidate c) {
  int64_t n = c.packedN, k = c.block.sizes[1 - c.nDim];
  Type f32 = b.getF32Type();
  Type element = sixteenBit && rounded.contains(c.block.weight.getName())
                     ? sixteenBit
                     : f32;
  std::string name =
      (c.block.weight.getName() + c.block.suffix() +
       ":packed[n=" + Twine(c.nDim) + ",panel=" + Twine(c.panel) +
       (element == f32     ? ""
        : element.isBF16() ? ",bf16"
                           : ",f16") +
       "]")
          .str();
  if (Value v = packs.lookup(name))
    return v;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.front());
  Location loc = NameLoc::get(b.getStringAttr(name), c.block.weight.getLoc());
  // The block read, its first packedN columns.
  Value w = c.block.read(b, loc, c.nDim, n);
  // W as rank 3: [K, N/P, P] or [N/P, P, K].
  SmallVector<int64_t> shape3 =
      c.nDim == 1 ? SmallVector<int64_t>{k, n / c.panel, c.panel}
                  : SmallVector<int64_t>{n / c.panel, c.panel, k};
  SmallVector<ReassociationIndices> reassociation =
      c.nDim == 1 ? SmallVector<ReassociationIndices>{{0}, {1, 2}}
                  : SmallVector<ReassociationIndices>{{0, 1}, {2}};
  Value w3 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape3, f32), w, reassociation);
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{n / c.panel, k, c.panel}, element);
  MLIRContext *ctx = b.getContext();
  AffineExpr nb = getAffineDimExpr(0, ctx), kk = getAffineDimExpr(1, ctx),
             r = getAffineDimExpr(2, ctx);
  AffineMap in = c.nDim == 1 ? AffineMap::get(3, 0, {kk, nb, r}, ctx)
                             : AffineMap::get(3, 0, {nb, r, kk}, ctx);
  auto copy = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{w3}, ValueRange{init},
      ArrayRef<AffineMap>{in, b.getMultiDimIdentityMap(3)},
      SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        Value v = args[0];
        if (element != f32)
          v = arith::TruncFOp::create(nb, l, element, v);
        linalg::YieldOp::create(nb, l, v);
      });
  copy->setAttr(kPrepareAttr, b.getStringAttr(name));
  ++layouts;
  if (element != f32)
    ++narrowLayouts;
  packs[name] = copy.getResult(0);
  return copy.getResult(0);
}

void PackWeightsPass::runOnFunction(func::FuncOp func) {
  packs.clear();
  SmallVector<std::pair<linalg::LinalgOp, Candidate>> work;
  func.walk([&](linalg::LinalgOp op) {
    std::optional<Candidate> c = match(op, granule, widest);
    if (!c)
      return;
    work.push_back({op, *c});
  });
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  for (auto &[op, c] : work) {
    Value wp = packed(b, func, c);
    Location loc = op.getLoc();
    b.setInsertionPoint(op);

    // With a remainder, the op splits: its first packedN output columns
    // read the packed weight, the rest (fewer than a register tile) a slice
    // of the weight as stored; both write slices of the init.
    OpOperand *init = op.getDpsInitOperand(0);
    Value fullInit = init->get();
    auto fullType = cast<RankedTensorType>(fullInit.getType());
    int64_t rank = fullType.getRank(), fullN = fullType.getShape().back();
    Value initValue = fullInit;
    if (c.packedN != fullN)
      initValue = sliceN(b, loc, fullInit, rank - 1, 0, c.packedN);
    auto initType = cast<RankedTensorType>(initValue.getType());

    // The init as [.., N/P, P].
    SmallVector<int64_t> shape(initType.getShape());
    int64_t n = shape.back();
    shape.back() = n / c.panel;
    shape.push_back(c.panel);
    SmallVector<ReassociationIndices> reassociation;
    for (int64_t d = 0; d + 1 < rank; ++d)
      reassociation.push_back({d});
    reassociation.push_back({rank - 1, rank});
    auto expandedType = RankedTensorType::get(shape, initType.getElementType());
    Value expanded = tensor::ExpandShapeOp::create(b, loc, expandedType,
                                                   initValue, reassociation);

    // Loops: the old ones (n now counts panels) and r, innermost.
    unsigned numLoops = op.getNumLoops();
    AffineExpr r = getAffineDimExpr(numLoops, ctx);
    auto widen = [&](AffineMap m) {
      return AffineMap::get(numLoops + 1, 0, m.getResults(), ctx);
    };
    SmallVector<AffineMap> maps;
    for (unsigned i = 0; i < 2; ++i) {
      AffineMap m = op.getMatchingIndexingMap(op.getDpsInputOperand(i));
      maps.push_back(
          i == c.operand
              ? AffineMap::get(numLoops + 1, 0,
                               {getAffineDimExpr(c.n, ctx),
                                getAffineDimExpr(c.k, ctx), r},
                               ctx)
              : widen(m));
    }
    SmallVector<AffineExpr> outExprs(
        op.getMatchingIndexingMap(init).getResults());
    outExprs.push_back(r);
    maps.push_back(AffineMap::get(numLoops + 1, 0, outExprs, ctx));
    SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
    iterators.push_back(utils::IteratorType::parallel);

    SmallVector<Value> inputs{op.getDpsInputOperand(0)->get(),
                              op.getDpsInputOperand(1)->get()};
    inputs[c.operand] = wp;
    auto generic = linalg::GenericOp::create(
        b, loc, expandedType, inputs, ValueRange{expanded}, maps, iterators);
    // The body: the op's own (a named op's is implicit but present).
    IRMapping mapping;
    op->getRegion(0).cloneInto(&generic.getRegion(), mapping);
    // A 16-bit panel: the payload widens what it reads.
    Type wpElement = getElementTypeOrSelf(wp.getType());
    if (!wpElement.isF32()) {
      Block &body = generic.getRegion().front();
      BlockArgument arg = body.getArgument(c.operand);
      arg.setType(wpElement);
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToStart(&body);
      Value wide = arith::ExtFOp::create(b, loc, b.getF32Type(), arg);
      arg.replaceAllUsesExcept(wide, wide.getDefiningOp());
    }
    Value result = tensor::CollapseShapeOp::create(
        b, loc, initType, generic.getResult(0), reassociation);
    if (c.packedN != fullN) {
      // The remainder: the op itself on the last columns.
      result = insertN(b, loc, result, fullInit, 0);
      result = remainderColumns(b, op, c.operand, c.nDim, c.packedN, result);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    ++contractions;
  }
  // Weights that only the rewritten contractions read are dead now.
  func.walk([](WeightOp w) {
    if (w->use_empty())
      w->erase();
  });
}

} // namespace
