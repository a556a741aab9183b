//===- PackAmx.cpp - bf16 contractions in AMX form ------------------------===//
//
// -tfm-pack-amx: with bf16 precision on a CPU with AMX-BF16, a contraction
// that reads a rank-2 weight W becomes a bf16 x bf16 -> f32 contraction on
// its activations converted to bf16 once and on a copy of W in the VNNI
// layout of AMX's B tiles, made once per model instance (`tfm.prepare`).
// -tfm-cpu-lower-amx turns it into tile loads and tdpbf16ps. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_PACKAMXPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// A contraction `C[.., n] += A[.., k] * W[k, n] (or W[n, k])` that AMX can
/// take.
struct Candidate {
  WeightBlock block; // the weight, or the block of it, read
  unsigned operand;  // input number of the weight
  unsigned nDim;     // which dimension of W is N (1: W[k, n], 0: W[n, k])
  int64_t k, n;      // K and N (static)
  int64_t packedN;   // the first columns, a multiple of 32: on AMX
};

std::optional<Candidate> match(linalg::LinalgOp op,
                               const llvm::StringMap<bool> &rounded) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto outType =
      cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  // C[d0, .., d(r-2), n]: rows d0.. (all parallel), n the last loop-free
  // dimension; one k loop besides.
  if (outType.getRank() < 2 || numLoops != unsigned(outType.getRank()) + 1 ||
      !outMap.isProjectedPermutation() ||
      ShapedType::isDynamic(outType.getShape().back()))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned n = outMap.getDimPosition(outMap.getNumResults() - 1);
  std::optional<unsigned> k;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (outMap.isFunctionOfDim(d)) {
      if (iterators[d] != utils::IteratorType::parallel)
        return std::nullopt;
    } else if (iterators[d] == utils::IteratorType::reduction) {
      k = d;
    }
  }
  if (!k)
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    Value input = op.getDpsInputOperand(i)->get();
    std::optional<WeightBlock> block = weightBlockOf(input);
    if (!block || !rounded.count(block->weight.getName()))
      continue;
    auto type = cast<RankedTensorType>(input.getType());
    Candidate c;
    c.block = *block;
    c.operand = i;
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(i));
    if (!map.isProjectedPermutation() || map.getNumResults() != 2)
      continue;
    c.nDim = map.getDimPosition(0) == n ? 0 : 1;
    if (map.getDimPosition(c.nDim) != n || map.getDimPosition(1 - c.nDim) != *k)
      continue;
    // A[rows.., k]: the output's rows, in order, then k.
    AffineMap aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1 - i));
    SmallVector<AffineExpr> rows(outMap.getResults().drop_back());
    rows.push_back(getAffineDimExpr(*k, op->getContext()));
    if (aMap.getResults() != ArrayRef<AffineExpr>(rows))
      continue;
    c.k = type.getDimSize(1 - c.nDim);
    c.n = type.getDimSize(c.nDim);
    c.packedN = c.n - c.n % 32;
    // K in whole steps of 32 (a tile's row of bf16 pairs); fewer than 32
    // columns are not worth a kernel.
    if (c.k % 32 != 0 || c.packedN == 0)
      continue;
    return c;
  }
  return std::nullopt;
}

struct PackAmxPass : tfm::impl::PackAmxPassBase<PackAmxPass> {
  using Base::Base;
  PackAmxPass(const PackAmxPass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto precision = module->getAttrOfType<TypeAttr>(kPrecisionAttr);
    CpuTargetAttr target = getCpuTarget(module);
    if (!precision || !precision.getValue().isBF16() || !target ||
        !hasAmxBf16(target))
      return;
    llvm::StringMap<bool> rounded;
    bool changed = false;
    if (auto names = module->getAttrOfType<ArrayAttr>(kRoundedWeightsAttr))
      for (auto name : names.getAsRange<StringAttr>())
        rounded[name.getValue()] = true;
    module.walk([&](func::FuncOp f) {
      if (!f.isExternal())
        changed |= runOnFunction(f, rounded);
    });
    if (!changed)
      return;
    // The runtime checks the CPU for AMX and asks the kernel for the tile
    // state before it runs the library (docs/c-abi.md).
    Builder b(&getContext());
    SmallVector<StringRef> features;
    if (auto list = module->getAttrOfType<ArrayAttr>(kCpuFeaturesAttr))
      for (auto f : list.getAsRange<StringAttr>())
        features.push_back(f.getValue());
    if (!llvm::is_contained(features, "amx-bf16"))
      features.push_back("amx-bf16");
    module->setAttr(kCpuFeaturesAttr, b.getStrArrayAttr(features));
  }

private:
  bool runOnFunction(func::FuncOp func, const llvm::StringMap<bool> &rounded);
  Value packed(OpBuilder &b, func::FuncOp func, Candidate c);
  Value toBF16(OpBuilder &b, Value a);

  llvm::StringMap<Value> packs;
  DenseMap<Value, Value> converted;

  tfm::PassStatistic contractions{this, numAmxContractions, "amx-contractions",
                                  "Contractions put in AMX form"};
  tfm::PassStatistic layouts{this, numAmxWeights, "amx-weights",
                             "VNNI-packed bf16 weight layouts made"};
};

/// Wp[nb, kp, r, t] = bf16(W[2kp + t, 16nb + r]) (or W[16nb + r, 2kp + t]):
/// one linalg.generic per weight name and layout at the start of the
/// function, marked `tfm.prepare`.
Value PackAmxPass::packed(OpBuilder &b, func::FuncOp func, Candidate c) {
  std::string name = (c.block.weight.getName() + c.block.suffix() +
                      ":amx[n=" + Twine(c.nDim) + "]")
                         .str();
  if (Value v = packs.lookup(name))
    return v;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.front());
  Location loc = NameLoc::get(b.getStringAttr(name), c.block.weight.getLoc());
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type();
  // The block read, its first packedN columns.
  Value w = c.block.read(b, loc, c.nDim, c.packedN);
  int64_t nb = c.packedN / 16, kp = c.k / 2;
  // W as rank 4: [K/2, 2, N/16, 16] or [N/16, 16, K/2, 2].
  SmallVector<int64_t> shape4 = c.nDim == 1
                                    ? SmallVector<int64_t>{kp, 2, nb, 16}
                                    : SmallVector<int64_t>{nb, 16, kp, 2};
  Value w4 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape4, f32), w,
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{nb, kp, 16, 2}, bf16);
  MLIRContext *ctx = b.getContext();
  AffineExpr dnb = getAffineDimExpr(0, ctx), dkp = getAffineDimExpr(1, ctx),
             dr = getAffineDimExpr(2, ctx), dt = getAffineDimExpr(3, ctx);
  AffineMap in = c.nDim == 1 ? AffineMap::get(4, 0, {dkp, dt, dnb, dr}, ctx)
                             : AffineMap::get(4, 0, {dnb, dr, dkp, dt}, ctx);
  auto copy = linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{w4}, ValueRange{init},
      ArrayRef<AffineMap>{in, b.getMultiDimIdentityMap(4)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::TruncFOp::create(nb, l, bf16, args[0])});
      });
  copy->setAttr(abi::kPrepareAttr, b.getStringAttr(name));
  ++layouts;
  packs[name] = copy.getResult(0);
  return copy.getResult(0);
}

/// `a` ([.., K] f32) in bf16, once per value.
Value PackAmxPass::toBF16(OpBuilder &b, Value a) {
  Value &v = converted[a];
  if (v)
    return v;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(a);
  Location loc = a.getLoc();
  auto type = cast<RankedTensorType>(a.getType());
  Type bf16 = b.getBF16Type();
  Value init =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), bf16);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  v = linalg::GenericOp::create(
          b, loc, init.getType(), ValueRange{a}, ValueRange{init},
          ArrayRef<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(type.getRank(),
                                           utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location l, ValueRange args) {
            linalg::YieldOp::create(
                nb, l,
                ValueRange{arith::TruncFOp::create(nb, l, bf16, args[0])});
          })
          .getResult(0);
  return v;
}

/// `v`'s last dimension split into [size / inner, inner] (the other
/// dimensions, dynamic or not, stay: one dynamic size per group).
Value splitLast(OpBuilder &b, Location loc, Value v, int64_t inner) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape().drop_back());
  shape.append({type.getShape().back() / inner, inner});
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes.back() = b.getIndexAttr(type.getShape().back() / inner);
  sizes.push_back(b.getIndexAttr(inner));
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups,
      sizes);
}

/// The inverse of splitLast.
Value joinLast(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 2 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 2, rank - 1});
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

bool PackAmxPass::runOnFunction(func::FuncOp func,
                                const llvm::StringMap<bool> &rounded) {
  packs.clear();
  converted.clear();
  SmallVector<std::pair<linalg::LinalgOp, Candidate>> work;
  func.walk([&](linalg::LinalgOp op) {
    if (std::optional<Candidate> c = match(op, rounded))
      work.push_back({op, *c});
  });
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  for (auto &[op, c] : work) {
    Value wp = packed(b, func, c);
    Location loc = op.getLoc();
    b.setInsertionPoint(op);
    Value a = op.getDpsInputOperand(1 - c.operand)->get();
    Value init = op.getDpsInitOperand(0)->get();
    auto initType = cast<RankedTensorType>(init.getType());
    int64_t rank = initType.getRank();

    // A as bf16 [rows.., K/2, 2]; C as [rows.., N/16, 16] (its first
    // packedN columns). The rows stay as they are: -tfm-cpu-lower-amx
    // flattens them on buffers (MLIR 22's expand-strided-metadata crashes
    // on a memref.expand_shape with two dynamic sizes in one group, which
    // flattening them here would need to undo).
    Value a3 = splitLast(b, loc, toBF16(b, a), 2);
    Value cp =
        c.packedN == c.n ? init : sliceN(b, loc, init, rank - 1, 0, c.packedN);
    Value c3 = splitLast(b, loc, cp, 16);

    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    int64_t r = rank - 1, numLoops = r + 4;
    SmallVector<AffineExpr> aExprs, cExprs;
    for (int64_t i = 0; i < r; ++i) {
      aExprs.push_back(d(i));
      cExprs.push_back(d(i));
    }
    aExprs.append({d(r + 1), d(r + 3)});
    cExprs.append({d(r), d(r + 2)});
    SmallVector<AffineMap> maps{
        AffineMap::get(numLoops, 0, aExprs, ctx),
        AffineMap::get(numLoops, 0, {d(r), d(r + 1), d(r + 2), d(r + 3)}, ctx),
        AffineMap::get(numLoops, 0, cExprs, ctx)};
    using utils::IteratorType;
    SmallVector<IteratorType> iterators(r, IteratorType::parallel);
    iterators.append({IteratorType::parallel, IteratorType::reduction,
                      IteratorType::parallel, IteratorType::reduction});
    auto gemm = linalg::GenericOp::create(
        b, loc, c3.getType(), ValueRange{a3, wp}, ValueRange{c3}, maps,
        iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          Type f32 = nb.getF32Type();
          Value x = arith::ExtFOp::create(nb, l, f32, args[0]);
          Value y = arith::ExtFOp::create(nb, l, f32, args[1]);
          Value p = arith::MulFOp::create(nb, l, x, y);
          linalg::YieldOp::create(
              nb, l, ValueRange{arith::AddFOp::create(nb, l, args[2], p)});
        });
    Value result = joinLast(b, loc, gemm.getResult(0));
    if (c.packedN != c.n)
      result = insertN(b, loc, result, init, 0);
    if (c.packedN != c.n) {
      // The last (fewer than 32) columns: the op itself, in f32, on a slice
      // of the weight as the runtime bound it (rounded to bf16).
      result = remainderColumns(b, op, c.operand, c.nDim, c.packedN, result);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    ++contractions;
  }
  func.walk([](WeightOp w) {
    if (w->use_empty())
      w->erase();
  });
  return !work.empty();
}

} // namespace
