//===- Contraction.cpp - the GEMM view of a linalg op ---------------------===//

#include "Contraction.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/Twine.h"

using namespace mlir;
using namespace mlir::tfm;

std::optional<GemmDims> mlir::tfm::classifyCpuContraction(linalg::LinalgOp op) {
  // classifyContraction's rules, but B may also be 16 bits.
  if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1)
    return std::nullopt;
  std::optional<GemmDims> g = inferGemmDims(op);
  if (!g)
    return std::nullopt;
  for (OpOperand &operand : op->getOpOperands()) {
    Type type = getElementTypeOrSelf(operand.get().getType());
    if (type.isF32())
      continue;
    if (&operand != op.getDpsInputOperand(g->b) ||
        !(type.isBF16() || type.isF16()))
      return std::nullopt;
    // Its payload argument: only widened to f32.
    BlockArgument arg = op.getMatchingBlockArgument(&operand);
    if (arg.use_empty() || llvm::any_of(arg.getUsers(), [](Operation *user) {
          auto ext = dyn_cast<arith::ExtFOp>(user);
          return !ext || !ext.getType().isF32();
        }))
      return std::nullopt;
  }
  return g;
}

int64_t mlir::tfm::registerTileWidth(CpuTargetAttr target) {
  return 2 * std::max<int64_t>(1, target.getVectorBits() / 32);
}

bool mlir::tfm::isPlainABt(linalg::LinalgOp op, const GemmDims &g) {
  if (!g.unit.empty() || op.getNumLoops() != 3)
    return false;
  MLIRContext *ctx = op.getContext();
  auto map = [&](unsigned x, unsigned y) {
    return AffineMap::get(
        3, 0, {getAffineDimExpr(x, ctx), getAffineDimExpr(y, ctx)}, ctx);
  };
  return op.getMatchingIndexingMap(op.getDpsInputOperand(g.a)) ==
             map(g.m, g.k) &&
         op.getMatchingIndexingMap(op.getDpsInputOperand(g.b)) ==
             map(g.n, g.k) &&
         op.getMatchingIndexingMap(op.getDpsInitOperand(0)) == map(g.m, g.n);
}

bool mlir::tfm::initializesOther(linalg::LinalgOp op) {
  if (!isa<linalg::FillOp>(op.getOperation()) || !op->hasOneUse())
    return false;
  OpOperand &use = *op->getUses().begin();
  auto consumer = dyn_cast<linalg::LinalgOp>(use.getOwner());
  return consumer && consumer->getBlock() == op->getBlock() &&
         consumer.hasPureTensorSemantics() && consumer.isDpsInit(&use) &&
         !classifyCpuContraction(consumer) && !matchAmxContraction(consumer);
}

Value mlir::tfm::sliceN(OpBuilder &b, Location loc, Value v, int64_t dim,
                        int64_t offset, int64_t size) {
  SmallVector<OpFoldResult> offsets(
      cast<RankedTensorType>(v.getType()).getRank(), b.getIndexAttr(0));
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  offsets[dim] = b.getIndexAttr(offset);
  sizes[dim] = b.getIndexAttr(size);
  return tensor::ExtractSliceOp::create(b, loc, v, offsets, sizes, strides);
}

Value mlir::tfm::insertN(OpBuilder &b, Location loc, Value src, Value dest,
                         int64_t offset) {
  int64_t rank = cast<RankedTensorType>(dest.getType()).getRank();
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0));
  SmallVector<OpFoldResult> strides(rank, b.getIndexAttr(1));
  offsets.back() = b.getIndexAttr(offset);
  return tensor::InsertSliceOp::create(
      b, loc, src, dest, offsets, tensor::getMixedSizes(b, loc, src), strides);
}

Value mlir::tfm::remainderColumns(OpBuilder &b, linalg::LinalgOp op,
                                  unsigned weightInput, unsigned nDim,
                                  int64_t from, Value result) {
  Location loc = op.getLoc();
  OpOperand *init = op.getDpsInitOperand(0);
  auto type = cast<RankedTensorType>(init->get().getType());
  int64_t rank = type.getRank(), n = type.getShape().back();
  Value restInit = sliceN(b, loc, result, rank - 1, from, n - from);
  OpOperand *weight = op.getDpsInputOperand(weightInput);
  Value restWeight = sliceN(b, loc, weight->get(), nDim, from, n - from);
  Operation *rest = b.clone(*op);
  rest->setOperand(weight->getOperandNumber(), restWeight);
  rest->setOperand(init->getOperandNumber(), restInit);
  rest->getResult(0).setType(restInit.getType());
  return insertN(b, loc, rest->getResult(0), result, from);
}

bool WeightBlock::whole() {
  auto type = cast<RankedTensorType>(weight.getType());
  return offsets[0] == 0 && offsets[1] == 0 && sizes[0] == type.getDimSize(0) &&
         sizes[1] == type.getDimSize(1);
}

std::string WeightBlock::suffix() {
  if (whole())
    return "";
  return ("[" + llvm::Twine(offsets[0]) + ":" +
          llvm::Twine(offsets[0] + sizes[0]) + "," + llvm::Twine(offsets[1]) +
          ":" + llvm::Twine(offsets[1] + sizes[1]) + "]")
      .str();
}

Value WeightBlock::read(OpBuilder &b, Location loc, int64_t dim, int64_t size) {
  auto type = cast<RankedTensorType>(weight.getType());
  Value w = WeightOp::create(b, loc, type, weight.getNameAttr(),
                             /*prepared=*/nullptr);
  int64_t cut[2] = {sizes[0], sizes[1]};
  cut[dim] = size;
  if (offsets[0] == 0 && offsets[1] == 0 && cut[0] == type.getDimSize(0) &&
      cut[1] == type.getDimSize(1))
    return w;
  auto index = [&](int64_t v) -> OpFoldResult { return b.getIndexAttr(v); };
  return tensor::ExtractSliceOp::create(
      b, loc, w, ArrayRef<OpFoldResult>{index(offsets[0]), index(offsets[1])},
      ArrayRef<OpFoldResult>{index(cut[0]), index(cut[1])},
      ArrayRef<OpFoldResult>{index(1), index(1)});
}

std::optional<WeightBlock> mlir::tfm::weightBlockOf(Value v) {
  auto type = dyn_cast<RankedTensorType>(v.getType());
  if (!type || type.getRank() != 2 || !type.hasStaticShape())
    return std::nullopt;
  WeightBlock block;
  block.sizes[0] = type.getDimSize(0);
  block.sizes[1] = type.getDimSize(1);
  block.weight = v.getDefiningOp<WeightOp>();
  if (auto slice = v.getDefiningOp<tensor::ExtractSliceOp>()) {
    block.weight = slice.getSource().getDefiningOp<WeightOp>();
    if (!block.weight || slice.getSourceType().getRank() != 2 ||
        !slice.hasUnitStride() ||
        ShapedType::isDynamicShape(slice.getStaticOffsets()))
      return std::nullopt;
    block.offsets[0] = slice.getStaticOffsets()[0];
    block.offsets[1] = slice.getStaticOffsets()[1];
  }
  if (!block.weight || block.weight.getPrepared())
    return std::nullopt;
  return block;
}

std::optional<AmxContraction>
mlir::tfm::matchAmxContraction(linalg::LinalgOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() < 5 || op.hasIndexSemantics())
    return std::nullopt;
  AmxContraction m{op.getDpsInputOperand(0)->get(),
                   op.getDpsInputOperand(1)->get(),
                   op.getDpsInitOperand(0)->get(), op.getNumLoops() - 4};
  auto a = dyn_cast<ShapedType>(m.a.getType());
  auto wp = dyn_cast<ShapedType>(m.wp.getType());
  auto c = dyn_cast<ShapedType>(m.c.getType());
  int64_t r = m.rowDims;
  if (!a || !wp || !c || !a.getElementType().isBF16() ||
      !wp.getElementType().isBF16() || !c.getElementType().isF32() ||
      a.getRank() != r + 2 || wp.getRank() != 4 || c.getRank() != r + 2 ||
      !wp.hasStaticShape() || wp.getDimSize(2) != 16 || wp.getDimSize(3) != 2 ||
      a.getDimSize(r) != wp.getDimSize(1) || a.getDimSize(r + 1) != 2 ||
      c.getDimSize(r) != wp.getDimSize(0) || c.getDimSize(r + 1) != 16)
    return std::nullopt;
  MLIRContext *ctx = op->getContext();
  auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
  // Loops (rows.., nb, kp, r, t).
  SmallVector<AffineExpr> rows, aExprs, cExprs;
  for (int64_t i = 0; i < r; ++i)
    rows.push_back(d(i));
  aExprs = rows;
  aExprs.append({d(r + 1), d(r + 3)});
  cExprs = rows;
  cExprs.append({d(r), d(r + 2)});
  int64_t n = r + 4;
  SmallVector<AffineMap> expected{
      AffineMap::get(n, 0, aExprs, ctx),
      AffineMap::get(n, 0, {d(r), d(r + 1), d(r + 2), d(r + 3)}, ctx),
      AffineMap::get(n, 0, cExprs, ctx)};
  if (op.getIndexingMapsArray() != expected)
    return std::nullopt;
  using utils::IteratorType;
  SmallVector<IteratorType> iterators(r, IteratorType::parallel);
  iterators.append({IteratorType::parallel, IteratorType::reduction,
                    IteratorType::parallel, IteratorType::reduction});
  if (op.getIteratorTypesArray() != iterators)
    return std::nullopt;
  return m;
}

bool mlir::tfm::isVectorKernelLoop(scf::ForOp loop) {
  return loop.getNumRegionIterArgs() > 0 &&
         llvm::all_of(loop.getRegionIterArgs(), [](BlockArgument a) {
           auto type = dyn_cast<VectorType>(a.getType());
           return type && !type.isScalable();
         });
}
