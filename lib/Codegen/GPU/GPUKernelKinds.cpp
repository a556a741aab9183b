//===- GPUKernelKinds.cpp - which linalg ops each GPU kernel takes --------===//

#include "GPUKernelKinds.h"

#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::tfm;

static bool hasProjectedPermutationMaps(linalg::LinalgOp op) {
  return llvm::all_of(op.getIndexingMapsArray(), [](AffineMap map) {
    return map.isProjectedPermutation();
  });
}

std::optional<GemmDims> mlir::tfm::matchGpuContraction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics())
    return std::nullopt;
  std::optional<GemmDims> g = inferGemmDims(op);
  if (!g)
    return std::nullopt;
  if (!getElementTypeOrSelf(op.getDpsInitOperand(0)->get().getType()).isF32())
    return std::nullopt;
  for (OpOperand *input : op.getDpsInputOperands()) {
    auto type =
        dyn_cast<FloatType>(getElementTypeOrSelf(input->get().getType()));
    if (!type || type.getWidth() > 32)
      return std::nullopt;
  }
  if (!hasProjectedPermutationMaps(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  for (unsigned d : g->unit)
    if (iterators[d] != utils::IteratorType::parallel)
      return std::nullopt;
  return g;
}

/// The identity of `combiner` on `type`, if it is a combiner the kernel
/// knows.
static TypedAttr identityOf(Operation *combiner, FloatType type) {
  const llvm::fltSemantics &sem = type.getFloatSemantics();
  if (isa<arith::AddFOp>(combiner))
    return FloatAttr::get(type, APFloat::getZero(sem));
  if (isa<arith::MulFOp>(combiner))
    return FloatAttr::get(type, APFloat::getOne(sem));
  if (isa<arith::MaximumFOp, arith::MaxNumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getInf(sem, /*Negative=*/true));
  if (isa<arith::MinimumFOp, arith::MinNumFOp>(combiner))
    return FloatAttr::get(type, APFloat::getInf(sem));
  return {};
}

std::optional<RowReduction>
mlir::tfm::matchGpuRowReduction(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumRegions() != 1 || !hasProjectedPermutationMaps(op) ||
      matchGpuContraction(op))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  std::optional<unsigned> dim;
  for (auto [d, it] : llvm::enumerate(iterators)) {
    if (it != utils::IteratorType::reduction)
      continue;
    if (dim)
      return std::nullopt; // more than one reduction loop
    dim = d;
  }
  OpOperand *init = op.getDpsInitOperand(0);
  if (!dim || op.getMatchingIndexingMap(init).isFunctionOfDim(*dim))
    return std::nullopt;
  auto type = dyn_cast<FloatType>(getElementTypeOrSelf(init->get().getType()));
  if (!type)
    return std::nullopt;
  Block &body = op->getRegion(0).front();
  BlockArgument out = body.getArgument(op.getNumDpsInputs());
  Value yielded = body.getTerminator()->getOperand(0);
  Operation *combiner = yielded.getDefiningOp();
  if (!combiner || combiner->getBlock() != &body ||
      combiner->getNumOperands() != 2 || !out.hasOneUse() ||
      out.getUses().begin()->getOwner() != combiner)
    return std::nullopt;
  TypedAttr identity = identityOf(combiner, type);
  if (!identity)
    return std::nullopt;
  RowReduction r;
  r.dim = *dim;
  r.combiner = combiner;
  r.outOperand = combiner->getOperand(0) == out ? 0 : 1;
  r.identity = identity;
  // The other operand must not be the output too (out + out).
  if (combiner->getOperand(1 - r.outOperand) == out)
    return std::nullopt;
  return r;
}

SmallVector<Value> mlir::tfm::inlinePayload(OpBuilder &b, linalg::LinalgOp op,
                                 ValueRange args, ValueRange ivs) {
  Block &body = op->getRegion(0).front();
  IRMapping map;
  map.map(body.getArguments(), args);
  for (Operation &inner : body.without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(inner)) {
      map.map(index.getResult(), ivs[index.getDim()]);
      continue;
    }
    b.clone(inner, map);
  }
  SmallVector<Value> yielded;
  for (Value v : body.getTerminator()->getOperands())
    yielded.push_back(map.lookupOrDefault(v));
  return yielded;
}

int64_t mlir::tfm::plannedRegisters(Attribute schedule) {
  // Addresses, loop counters, indices and the epilogue's operands of one
  // thread, beside its accumulators and operand fragments.
  constexpr int64_t kOverhead = 64;
  auto round = [](int64_t registers) {
    return std::min<int64_t>(255, llvm::alignTo(registers, 8));
  };
  if (auto mma = dyn_cast_if_present<GpuMmaAttr>(schedule)) {
    int64_t warpM = mma.getBlockM() / mma.getWarpsM();
    int64_t warpN = mma.getBlockN() / mma.getWarpsN();
    // f32 accumulators: a warp's tile over its 32 lanes; per 16-deep k
    // step, 4 registers of A per 16 rows and 2 of B per 8 columns, for all
    // the k steps of one staged slice (ptxas issues a slice's ldmatrix
    // ahead of its mma.syncs).
    int64_t accumulators = warpM * warpN / 32;
    int64_t fragments = mma.getBlockK() / 16 * (warpM / 16 * 4 + warpN / 8 * 2);
    return round(accumulators + fragments + kOverhead);
  }
  if (auto simt = dyn_cast_if_present<GpuContractionAttr>(schedule)) {
    // thread_m x thread_n outputs and one k step of both operands.
    int64_t outputs = simt.getThreadM() * simt.getThreadN();
    return round(outputs + simt.getThreadM() + simt.getThreadN() + kOverhead);
  }
  if (isa_and_nonnull<GpuFlashAttentionAttr>(schedule))
    return 255;
  if (isa_and_nonnull<GpuReductionAttr, AttentionTilingAttr>(schedule))
    return kOverhead;
  return 0;
}

int64_t mlir::tfm::workgroupBytes(TypeRange types) {
  int64_t bytes = 0;
  for (Type t : types) {
    auto type = cast<MemRefType>(t);
    bytes += type.getNumElements() *
             llvm::divideCeil(type.getElementTypeBitWidth(), 8);
  }
  return bytes;
}

std::pair<gpu::LaunchOp, OpBuilder>
mlir::tfm::createKernelLaunch(OpBuilder &b, Location loc, ArrayRef<Value> grid,
                              ArrayRef<Value> block, TypeRange workgroupBuffers,
                              int64_t registers) {
  auto launch = gpu::LaunchOp::create(
      b, loc, grid[0], grid[1], grid[2], block[0], block[1], block[2],
      /*dynamicSharedMemorySize=*/nullptr, /*asyncTokenType=*/nullptr,
      /*asyncDependencies=*/{}, workgroupBuffers);
  GpuTargetAttr target = getGpuTarget(launch);
  int64_t threads = 1;
  for (Value v : block)
    if (std::optional<int64_t> c = getConstantIntValue(v))
      threads *= *c;
    else
      threads = 0;
  if (target && registers > 0 && threads > 0)
    launch->setAttr(kBlocksPerSMAttr,
                    b.getI64IntegerAttr(target.blocksPerMultiprocessor(
                        threads, workgroupBytes(workgroupBuffers), registers)));
  Block &body = launch.getBody().front();
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  if (body.empty() || !isa<gpu::TerminatorOp>(body.back()))
    gpu::TerminatorOp::create(inner, loc);
  inner.setInsertionPoint(body.getTerminator());
  return {launch, inner};
}

Value mlir::tfm::viewRoot(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

//===----------------------------------------------------------------------===//
// Block-per-row kernels of several ops
//===----------------------------------------------------------------------===//

namespace {

/// What the extent of dimension `dim` of buffer `v` is known to equal: a
/// constant, or dimension `dim` of a buffer (an allocation's dynamic size
/// traced back to the `memref.dim` it was computed by, when it was).
struct ExtentKey {
  int64_t constant = ShapedType::kDynamic;
  Value buffer;
  int64_t dim = -1;
  Value size; // a dynamic allocation size not read off a buffer
  bool operator==(const ExtentKey &o) const {
    if (constant != ShapedType::kDynamic || o.constant != ShapedType::kDynamic)
      return constant == o.constant;
    if (size || o.size)
      return size == o.size;
    return buffer == o.buffer && dim == o.dim;
  }
};

ExtentKey extentKey(Value v, unsigned dim) {
  auto type = cast<MemRefType>(v.getType());
  if (!type.isDynamicDim(dim))
    return {type.getDimSize(dim), {}, -1, {}};
  if (auto alloc = v.getDefiningOp<memref::AllocOp>()) {
    Value size = alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)];
    if (auto read = size.getDefiningOp<memref::DimOp>())
      if (std::optional<int64_t> d = read.getConstantIndex())
        return extentKey(read.getSource(), *d);
    return {ShapedType::kDynamic, {}, -1, size};
  }
  return {ShapedType::kDynamic, v, dim, {}};
}

/// What the extent of loop `d` of `op` is known to equal (one key per
/// operand dimension indexed by `d` alone).
SmallVector<ExtentKey> loopExtentKeys(linalg::LinalgOp op, unsigned d) {
  SmallVector<ExtentKey> keys;
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(e); dim && dim.getPosition() == d)
        keys.push_back(extentKey(operand.get(), i));
  }
  return keys;
}

bool sameExtent(linalg::LinalgOp a, unsigned da, linalg::LinalgOp b,
                unsigned db) {
  SmallVector<ExtentKey> ka = loopExtentKeys(a, da);
  for (const ExtentKey &k : loopExtentKeys(b, db))
    if (llvm::is_contained(ka, k))
      return true;
  return false;
}

/// The buffers `op` (and what it holds) reads and writes, as the buffers
/// they view; false when some effect is on no known buffer.
bool collectAccesses(Operation *op, DenseSet<Value> &reads,
                     DenseSet<Value> &writes) {
  WalkResult result = op->walk([&](Operation *inner) {
    // Synchronization inside a kernel built before (a row kernel the
    // stages move past) touches no buffer of the host's.
    if (isa<gpu::BarrierOp, gpu::ShuffleOp>(inner))
      return WalkResult::advance();
    auto iface = dyn_cast<MemoryEffectOpInterface>(inner);
    if (!iface) {
      if (inner->hasTrait<OpTrait::HasRecursiveMemoryEffects>() ||
          isPure(inner))
        return WalkResult::advance();
      return WalkResult::interrupt();
    }
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (MemoryEffects::EffectInstance &effect : effects) {
      if (isa<MemoryEffects::Allocate>(effect.getEffect()))
        continue;
      Value v = effect.getValue();
      if (!v)
        return WalkResult::interrupt();
      (isa<MemoryEffects::Read>(effect.getEffect()) ? reads : writes)
          .insert(mlir::tfm::viewRoot(v));
    }
    return WalkResult::advance();
  });
  return !result.wasInterrupted();
}

/// Whether `op`'s payload touches no memory (a gather through memref.load
/// in the payload does).
bool hasPurePayload(linalg::LinalgOp op) {
  for (Operation &inner : op->getRegion(0).front())
    if (!isa<linalg::IndexOp, linalg::YieldOp>(inner) && !isPure(&inner))
      return false;
  return true;
}

} // namespace

SmallVector<RowKernelStage> mlir::tfm::findRowKernel(linalg::LinalgOp first,
                                                     const RowReduction &r,
                                                     unsigned maxStages) {
  RowKernelStage head;
  head.op = first;
  for (AffineExpr e :
       first.getMatchingIndexingMap(first.getDpsInitOperand(0)).getResults())
    head.rowDims.push_back(cast<AffineDimExpr>(e).getPosition());
  head.lengthDim = r.dim;
  SmallVector<RowKernelStage> stages = {head};
  if (maxStages < 2 || !hasPurePayload(first))
    return stages;

  // The statistics (the reductions' output buffers, as the stages pass
  // them) and every buffer the stages read or write.
  SmallVector<Value> statistics = {first.getDpsInits()[0]};
  DenseSet<Value> read, written;
  if (!collectAccesses(first, read, written))
    return stages;

  // The extent keys of the rows and of the row length.
  auto sameSpace = [&](linalg::LinalgOp op, ArrayRef<unsigned> rowDims,
                       unsigned lengthDim) {
    for (auto [a, b] : llvm::zip_equal(head.rowDims, rowDims))
      if (!sameExtent(first, a, op, b))
        return false;
    return sameExtent(first, head.lengthDim, op, lengthDim);
  };

  // Whether `op` can run as the next stage; fills its row and length dims.
  auto asStage = [&](linalg::LinalgOp op) -> std::optional<RowKernelStage> {
    if (!op.hasPureBufferSemantics() || op.getNumDpsInits() != 1 ||
        op->getNumRegions() != 1 || !hasProjectedPermutationMaps(op) ||
        !hasPurePayload(op) || op->hasAttr(kLoweringConfigAttr) ||
        op.getNumLoops() != head.rowDims.size() + 1)
      return std::nullopt;
    // The rows, from the first statistic it reads.
    RowKernelStage stage;
    stage.op = op;
    std::optional<AffineMap> statMap;
    for (OpOperand *input : op.getDpsInputOperands()) {
      if (!llvm::is_contained(statistics, input->get()))
        continue;
      AffineMap map = op.getMatchingIndexingMap(input);
      if (statMap && map != *statMap)
        return std::nullopt; // a statistic read at another row
      statMap = map;
    }
    if (!statMap || statMap->getNumResults() != head.rowDims.size())
      return std::nullopt;
    for (AffineExpr e : statMap->getResults())
      stage.rowDims.push_back(cast<AffineDimExpr>(e).getPosition());
    for (unsigned d = 0, e = op.getNumLoops(); d < e; ++d)
      if (!llvm::is_contained(stage.rowDims, d))
        stage.lengthDim = d;
    if (!sameSpace(op, stage.rowDims, stage.lengthDim))
      return std::nullopt;
    // Inputs: statistics, or buffers no stage writes.
    for (OpOperand *input : op.getDpsInputOperands())
      if (isa<MemRefType>(input->get().getType()) &&
          !llvm::is_contained(statistics, input->get()) &&
          written.contains(viewRoot(input->get())))
        return std::nullopt;
    // The output: a buffer no stage touches, indexed by its rows and
    // (all-parallel op) the length.
    OpOperand *out = op.getDpsInitOperand(0);
    Value outRoot = viewRoot(out->get());
    if (read.contains(outRoot) || written.contains(outRoot))
      return std::nullopt;
    AffineMap outMap = op.getMatchingIndexingMap(out);
    if (std::optional<RowReduction> rr = matchGpuRowReduction(op)) {
      if (rr->dim != stage.lengthDim || outMap != *statMap)
        return std::nullopt;
      return stage;
    }
    if (llvm::any_of(op.getIteratorTypesArray(), [](utils::IteratorType t) {
          return t != utils::IteratorType::parallel;
        }))
      return std::nullopt;
    if (!outMap.isFunctionOfDim(stage.lengthDim) ||
        !getElementTypeOrSelf(out->get().getType()).isIntOrFloat())
      return std::nullopt;
    return stage;
  };

  // Ops the stages move down past, and how far to look.
  constexpr int kMaxSkipped = 16;
  int skipped = 0;
  for (Operation *op = first->getNextNode();
       op && stages.size() < maxStages && skipped <= kMaxSkipped;
       op = op->getNextNode()) {
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(op)) {
      if (std::optional<RowKernelStage> stage = asStage(linalgOp)) {
        if (!collectAccesses(op, read, written))
          break;
        stages.push_back(*stage);
        if (!matchGpuRowReduction(linalgOp))
          break; // an all-parallel op ends the kernel
        statistics.push_back(linalgOp.getDpsInits()[0]);
        continue;
      }
    }
    if (op->hasTrait<OpTrait::IsTerminator>())
      break;
    DenseSet<Value> opReads, opWrites;
    if (!collectAccesses(op, opReads, opWrites))
      break;
    bool conflict =
        llvm::any_of(
            opWrites,
            [&](Value v) { return read.contains(v) || written.contains(v); }) ||
        llvm::any_of(opReads, [&](Value v) { return written.contains(v); });
    if (conflict)
      break;
    ++skipped;
  }
  return stages;
}

bool mlir::tfm::isAsyncCopyable(linalg::LinalgOp op, const GemmDims &g,
                                OpOperand &operand) {
  auto type = dyn_cast<MemRefType>(operand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  if (!type || type.getElementTypeBitWidth() != 16 ||
      map.getNumResults() == 0 || !hasAlignedRows(type, 8))
    return false;
  // Contiguous along k (staged [x][k]) or along the operand's own rows,
  // m for A and n for B (staged k-major, [k][x]).
  unsigned inner = cast<AffineDimExpr>(map.getResults().back()).getPosition();
  unsigned own = &operand == op.getDpsInputOperand(g.a) ? g.m : g.n;
  return inner == g.k || inner == own;
}

bool mlir::tfm::isHalfMmaSync(nvgpu::MmaSyncOp op) {
  VectorType a = op.getMatrixA().getType(), b = op.getMatrixB().getType(),
             c = op.getMatrixC().getType();
  Type half = a.getElementType();
  return ArrayRef<int64_t>(op.getMmaShapeAsArray()) ==
             ArrayRef<int64_t>{16, 8, 16} &&
         (half.isBF16() || half.isF16()) && b.getElementType() == half &&
         c.getElementType().isF32() &&
         a.getShape() == ArrayRef<int64_t>{4, 2} &&
         b.getShape() == ArrayRef<int64_t>{2, 2} &&
         c.getShape() == ArrayRef<int64_t>{2, 2};
}

bool mlir::tfm::hasAlignedRows(MemRefType type, int64_t width) {
  if (type.getRank() == 0)
    return false;
  if (type.getLayout().isIdentity()) {
    int64_t last = type.getShape().back();
    return type.getRank() == 1 ||
           (!ShapedType::isDynamic(last) && last % width == 0);
  }
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      strides.back() != 1 || ShapedType::isDynamic(offset) ||
      offset % width != 0)
    return false;
  for (int64_t stride : ArrayRef(strides).drop_back())
    if (ShapedType::isDynamic(stride) || stride % width != 0)
      return false;
  return true;
}

/// The innermost name of `loc` (a NameLoc, possibly inside call-site or
/// fused locations), or "".
static StringRef modelName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().getValue();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (StringRef n = modelName(inner); !n.empty())
        return n;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return modelName(callSite.getCallee());
  return "";
}

std::string mlir::tfm::kernelBaseName(Location loc) {
  StringRef name = modelName(loc);
  if (name.empty())
    return "";
  // Other characters than letters and digits become '_'.
  std::string out;
  for (char c : name)
    out.push_back(llvm::isAlnum(c) ? c : '_');
  if (llvm::isDigit(out.front()))
    out.insert(out.begin(), 'k');
  return out;
}
