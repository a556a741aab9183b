//===- GPUTileContraction.cpp - block-tiled GEMM kernels ------------------===//
//
// -tfm-gpu-tile-contraction: each contraction that -tfm-gpu-configure gave
// a #tfm.gpu_contraction becomes a gpu.launch whose blocks stage slices of
// both operands in shared memory and whose threads accumulate a register
// tile of the output: the classic SIMT GEMM. One with a #tfm.gpu_mma (16-bit
// inputs) stages 16-bit slices and accumulates on tensor cores: each warp
// loads its fragments from shared memory in the layout of mma.sync
// m16n8k16 and issues nvgpu.mma.sync.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUTILECONTRACTIONPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// What the SIMT and the tensor-core GEMM kernels share: the contraction,
/// its roles, and per block the loop extents, the batch indices and the
/// thread's linear id.
struct GemmKernelBase {
  GemmKernelBase(linalg::LinalgOp op, const GemmDims &g)
      : op(op), g(g), loc(op.getLoc()) {}

  /// Where the accumulators' initial values come from: the output, the
  /// input of the broadcast that filled it (`fuseInitBroadcast`), read
  /// through `initMap` from the contraction's loops, or the value of the
  /// fill that filled it (`scalar`).
  void setInitSource(Value buffer, AffineMap map, Value scalar) {
    initBuffer = buffer;
    initMap = map;
    initScalar = scalar;
  }
  /// An elementwise op after the contraction that reads the output through
  /// `result` (`fuseEpilogue`): the kernel stores what it computes from each
  /// output element instead of the element.
  void setEpilogue(linalg::GenericOp consumer, OpOperand *result,
                   bool keepOutput) {
    epilogue = consumer;
    epilogueResult = result;
    epilogueKeepsOutput = keepOutput;
  }
  /// Stores the output element `v` at loop indices `ivs`: into the output,
  /// or through the epilogue's payload (its other inputs read at the same
  /// element) into the epilogue's output (and into the output too where
  /// `keepOutput`: it may be read later).
  void storeOutput(OpBuilder &b, Value v, ArrayRef<Value> ivs);
  /// The initial value of the output element at loop indices `ivs`.
  Value loadInit(OpBuilder &b, ArrayRef<Value> ivs) {
    if (initScalar)
      return initScalar;
    if (!initBuffer) {
      OpOperand &out = *op.getDpsInitOperand(0);
      return memref::LoadOp::create(b, loc, out.get(), indices(out, ivs));
    }
    return memref::LoadOp::create(b, loc, initBuffer, indices(initMap, ivs));
  }

  Value index(OpBuilder &b, int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v);
  }
  /// The indices of `operand` at loop indices `ivs`.
  SmallVector<Value> indices(OpOperand &operand, ArrayRef<Value> ivs) {
    return indices(op.getMatchingIndexingMap(&operand), ivs);
  }
  /// The results of projected permutation `map` at loop indices `ivs`.
  static SmallVector<Value> indices(AffineMap map, ArrayRef<Value> ivs) {
    SmallVector<Value> result;
    for (AffineExpr e : map.getResults())
      result.push_back(ivs[cast<AffineDimExpr>(e).getPosition()]);
    return result;
  }
  /// Copies the `blockK`-deep, `extent`-wide slice of input `operand`
  /// starting at (k = kt, dim = origin) into `tile` with `threads`
  /// threads: 0 outside the operand, widened to the tile's element type;
  /// the tile is [k][x] when `kRows`, else [x][k]. Neighbouring threads
  /// read neighbouring elements of the operand's innermost dimension
  /// (coalesced); loads are clamped into the operand.
  void copySlice(OpBuilder &b, OpOperand &operand, Value tile, unsigned dim,
                 int64_t extent, Value origin, Value kt, int64_t blockK,
                 int64_t threads, bool kRows);
  /// Reads the loop extents (`sizes`) at `rw`'s insertion point and
  /// returns the grid: x over the `blockN`-column tiles of n, y over the
  /// `blockM`-row tiles of m, z over the product of the batch loops.
  std::tuple<Value, Value, Value> grid(IRRewriter &rw, int64_t blockM,
                                       int64_t blockN) {
    for (Range r : op.createLoopRanges(rw, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(rw, loc, r.size));
    Value x =
        arith::CeilDivUIOp::create(rw, loc, sizes[g.n], index(rw, blockN));
    Value y =
        arith::CeilDivUIOp::create(rw, loc, sizes[g.m], index(rw, blockM));
    Value z = index(rw, 1);
    for (unsigned d : g.unit)
      z = arith::MulIOp::create(rw, loc, z, sizes[d]);
    return {x, y, z};
  }
  /// The batch loops' indices (`blockIvs`) from block z, which enumerates
  /// them with the last one fastest.
  void batchIndices(OpBuilder &b, Value blockZ) {
    blockIvs.assign(op.getNumLoops(), Value());
    for (unsigned d : llvm::reverse(g.unit)) {
      blockIvs[d] = arith::RemUIOp::create(b, loc, blockZ, sizes[d]);
      blockZ = arith::DivUIOp::create(b, loc, blockZ, sizes[d]);
    }
  }

  linalg::LinalgOp op;
  GemmDims g;
  Location loc;
  SmallVector<Value> sizes;
  SmallVector<Value> blockIvs;
  Value tid;
  Value initBuffer;
  AffineMap initMap;
  Value initScalar;
  linalg::GenericOp epilogue;
  OpOperand *epilogueResult = nullptr;
  bool epilogueKeepsOutput = false;
};

void GemmKernelBase::storeOutput(OpBuilder &b, Value v, ArrayRef<Value> ivs) {
  OpOperand &out = *op.getDpsInitOperand(0);
  SmallVector<Value> at = indices(out, ivs);
  if (!epilogue || epilogueKeepsOutput)
    memref::StoreOp::create(b, loc, v, out.get(), at);
  if (!epilogue)
    return;
  // The epilogue reads the output through a permutation of its loops:
  // loop resultMap(d)_i is at index i.
  AffineMap resultMap = epilogue.getMatchingIndexingMap(epilogueResult);
  SmallVector<Value> loops(epilogue.getNumLoops());
  for (auto [i, index] : llvm::enumerate(at))
    loops[resultMap.getDimPosition(i)] = index;
  at = loops;
  Block *body = epilogue.getBody();
  IRMapping map;
  for (OpOperand &operand : epilogue->getOpOperands()) {
    BlockArgument arg = body->getArgument(operand.getOperandNumber());
    if (&operand == epilogueResult ||
        (epilogue.isDpsInit(&operand) && operand.get() == out.get())) {
      map.map(arg, v);
      continue;
    }
    if (arg.use_empty())
      continue;
    map.map(arg, memref::LoadOp::create(
                     b, loc, operand.get(),
                     indices(epilogue.getMatchingIndexingMap(&operand), at)));
  }
  for (Operation &o : body->without_terminator()) {
    if (auto index = dyn_cast<linalg::IndexOp>(o)) {
      map.map(index.getResult(), at[index.getDim()]);
      continue;
    }
    b.clone(o, map);
  }
  Value result = map.lookup(body->getTerminator()->getOperand(0));
  OpOperand *dst = epilogue.getDpsInitOperand(0);
  memref::StoreOp::create(b, loc, result, dst->get(),
                          indices(epilogue.getMatchingIndexingMap(dst), at));
}

void GemmKernelBase::copySlice(OpBuilder &b, OpOperand &operand, Value tile,
                               unsigned dim, int64_t extent, Value origin,
                               Value kt, int64_t blockK, int64_t threads,
                               bool kRows) {
  AffineMap map = op.getMatchingIndexingMap(&operand);
  bool kInnermost =
      cast<AffineDimExpr>(map.getResults().back()).getPosition() == g.k;
  Value one = index(b, 1);
  Value last = arith::SubIOp::create(b, loc, sizes[dim], one);
  Value kLast = arith::SubIOp::create(b, loc, sizes[g.k], one);
  Type element = cast<MemRefType>(tile.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  int64_t fast = kInnermost ? blockK : extent;
  for (int64_t l = 0, e = extent * blockK / threads; l < e; ++l) {
    Value i = arith::AddIOp::create(b, loc, tid, index(b, l * threads));
    Value inner = arith::RemUIOp::create(b, loc, i, index(b, fast));
    Value outer = arith::DivUIOp::create(b, loc, i, index(b, fast));
    Value kk = kInnermost ? inner : outer;
    Value x = kInnermost ? outer : inner;
    Value gx = arith::AddIOp::create(b, loc, origin, x);
    Value gk = arith::AddIOp::create(b, loc, kt, kk);
    Value inBounds = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gx,
                              sizes[dim]),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, gk,
                              sizes[g.k]));
    SmallVector<Value> ivs = blockIvs;
    ivs[dim] = arith::MinUIOp::create(b, loc, gx, last);
    ivs[g.k] = arith::MinUIOp::create(b, loc, gk, kLast);
    Value v =
        memref::LoadOp::create(b, loc, operand.get(), indices(operand, ivs));
    if (v.getType() != element)
      v = arith::ExtFOp::create(b, loc, element, v);
    v = arith::SelectOp::create(b, loc, inBounds, v, zero);
    memref::StoreOp::create(b, loc, v, tile,
                            kRows ? ValueRange{kk, x} : ValueRange{x, kk});
  }
}

/// Builds the kernel of one contraction.
class GemmKernelBuilder : GemmKernelBase {
public:
  GemmKernelBuilder(linalg::LinalgOp op, const GemmDims &g,
                    GpuContractionAttr config)
      : GemmKernelBase(op, g), blockM(config.getBlockM()),
        blockN(config.getBlockN()), blockK(config.getBlockK()),
        threadM(config.getThreadM()), threadN(config.getThreadN()),
        threadsX(blockN / threadN), threadsY(blockM / threadM),
        threads(threadsX * threadsY) {}

  using GemmKernelBase::setEpilogue;
  using GemmKernelBase::setInitSource;
  LogicalResult build(IRRewriter &rw);

private:
  int64_t blockM, blockN, blockK, threadM, threadN;
  int64_t threadsX, threadsY, threads;
};

LogicalResult GemmKernelBuilder::build(IRRewriter &rw) {
  if ((blockM * blockK) % threads || (blockN * blockK) % threads)
    return op->emitOpError("-tfm-gpu-tile-contraction: the staged slices (")
           << blockM << "x" << blockK << ", " << blockK << "x" << blockN
           << ") are not a whole number of loads for " << threads
           << " threads";
  MLIRContext *ctx = op->getContext();
  rw.setInsertionPoint(op);
  auto [gridX, gridY, gridZ] = grid(rw, blockM, blockN);
  Value m = sizes[g.m], n = sizes[g.n];

  auto workgroup = gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  Type f32 = rw.getF32Type();
  // Rows padded by one element: the copies' strided stores hit distinct
  // banks.
  auto aTileType = MemRefType::get({blockK, blockM + 1}, f32,
                                   MemRefLayoutAttrInterface(), workgroup);
  auto bTileType = MemRefType::get({blockK, blockN + 1}, f32,
                                   MemRefLayoutAttrInterface(), workgroup);
  auto [launch, b] = createKernelLaunch(
      rw, loc, {gridX, gridY, gridZ},
      {index(rw, threadsX), index(rw, threadsY), index(rw, 1)},
      TypeRange{aTileType, bTileType},
      plannedRegisters(op->getAttr(kLoweringConfigAttr)));
  Value aTile = launch.getWorkgroupAttributions()[0];
  Value bTile = launch.getWorkgroupAttributions()[1];
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 threadIds = launch.getThreadIds();

  batchIndices(b, blockIds.z);
  Value m0 = arith::MulIOp::create(b, loc, blockIds.y, index(b, blockM));
  Value n0 = arith::MulIOp::create(b, loc, blockIds.x, index(b, blockN));
  tid = arith::AddIOp::create(
      b, loc, arith::MulIOp::create(b, loc, threadIds.y, index(b, threadsX)),
      threadIds.x);

  // This thread's outputs: rows ty + i * threadsY, columns tx + j *
  // threadsX of the block's tile.
  SmallVector<Value> rows, cols;
  for (int64_t i = 0; i < threadM; ++i)
    rows.push_back(arith::AddIOp::create(
        b, loc, m0,
        arith::AddIOp::create(b, loc, threadIds.y,
                              index(b, i * threadsY))));
  for (int64_t j = 0; j < threadN; ++j)
    cols.push_back(arith::AddIOp::create(
        b, loc, n0,
        arith::AddIOp::create(b, loc, threadIds.x,
                              index(b, j * threadsX))));
  Value one = index(b, 1);
  Value mLast = arith::SubIOp::create(b, loc, m, one);
  Value nLast = arith::SubIOp::create(b, loc, n, one);
  SmallVector<Value> init;
  for (Value row : rows)
    for (Value col : cols) {
      SmallVector<Value> ivs = blockIvs;
      ivs[g.m] = arith::MinUIOp::create(b, loc, row, mLast);
      ivs[g.n] = arith::MinUIOp::create(b, loc, col, nLast);
      init.push_back(loadInit(b, ivs));
    }

  OpOperand &a = *op.getDpsInputOperand(g.a);
  OpOperand &bOperand = *op.getDpsInputOperand(g.b);
  auto kLoop = scf::ForOp::create(
      b, loc, index(b, 0), sizes[g.k], index(b, blockK), init,
      [&](OpBuilder &lb, Location, Value kt, ValueRange accs) {
        copySlice(lb, a, aTile, g.m, blockM, m0, kt, blockK, threads,
                  /*kRows=*/true);
        copySlice(lb, bOperand, bTile, g.n, blockN, n0, kt, blockK, threads,
                  /*kRows=*/true);
        gpu::BarrierOp::create(lb, loc);
        auto inner = scf::ForOp::create(
            lb, loc, index(lb, 0), index(lb, blockK), index(lb, 1), accs,
            [&](OpBuilder &ib, Location, Value kk, ValueRange sums) {
              // Row kk of a slice at this thread's `count` strided places.
              auto loadRow = [&](Value tile, Value first, int64_t count,
                                 int64_t stride) {
                SmallVector<Value> values;
                for (int64_t i = 0; i < count; ++i)
                  values.push_back(memref::LoadOp::create(
                      ib, loc, tile,
                      ValueRange{kk, arith::AddIOp::create(
                                         ib, loc, first,
                                         index(ib, i * stride))}));
                return values;
              };
              SmallVector<Value> as =
                  loadRow(aTile, threadIds.y, threadM, threadsY);
              SmallVector<Value> bs =
                  loadRow(bTile, threadIds.x, threadN, threadsX);
              SmallVector<Value> next;
              for (int64_t i = 0; i < threadM; ++i)
                for (int64_t j = 0; j < threadN; ++j)
                  next.push_back(math::FmaOp::create(
                      ib, loc, as[i], bs[j], sums[i * threadN + j]));
              scf::YieldOp::create(ib, loc, next);
            });
        // The next copy overwrites the slices: every thread must be done
        // reading them.
        gpu::BarrierOp::create(lb, loc);
        scf::YieldOp::create(lb, loc, inner.getResults());
      });

  for (auto [i, row] : llvm::enumerate(rows))
    for (auto [j, col] : llvm::enumerate(cols)) {
      Value inBounds = arith::AndIOp::create(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, m),
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, col, n));
      auto guard = scf::IfOp::create(b, loc, inBounds);
      OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
      SmallVector<Value> ivs = blockIvs;
      ivs[g.m] = row;
      ivs[g.n] = col;
      storeOutput(gb, kLoop.getResult(i * threadN + j), ivs);
    }
  rw.eraseOp(op);
  return success();
}

/// Builds the tensor-core kernel of one contraction (#tfm.gpu_mma). The
/// fragment layout is mma.sync m16n8k16's: lane l (group g = l / 4,
/// thread t = l % 4 of its group) holds A's rows g and g + 8 at columns
/// 2t, 2t + 1 (and the same 8 columns on: 4 pairs), B's column g at rows
/// 2t, 2t + 1 (and 8 on: 2 pairs), and C's rows g and g + 8 at columns 2t,
/// 2t + 1 (2 pairs).
class MmaKernelBuilder : GemmKernelBase {
public:
  MmaKernelBuilder(linalg::LinalgOp op, const GemmDims &g, GpuMmaAttr config)
      : GemmKernelBase(op, g), config(config) {}

  using GemmKernelBase::setEpilogue;
  using GemmKernelBase::setInitSource;
  LogicalResult build(IRRewriter &rw);

private:
  /// Puts the same slice in flight into stage `stage` of `tile` with
  /// 16-byte cp.async copies (8 elements; the part past the operand's
  /// end is zero-filled); appends their tokens to `tokens`.
  void copyAsync(OpBuilder &b, OpOperand &operand, Value tile, unsigned dim,
                 int64_t extent, Value origin, Value kt, Value stage,
                 SmallVectorImpl<Value> &tokens);
  /// The output position (row, col) of fragment (i, j)'s element (r, c).
  std::pair<Value, Value> outputAt(OpBuilder &b, int64_t i, int64_t j,
                                   int64_t r, int64_t c);
  /// The column in staged row `row` (of `rowElements`) where the 8
  /// elements of logical columns `col` to `col` + 7 (`col` a multiple of
  /// 8) lie: `col` itself in a padded tile, else its 16-byte chunk
  /// XOR-swizzled by the row (#tfm.gpu_mma's description).
  Value stagedColumn(OpBuilder &b, Value row, Value col, int64_t rowElements);
  /// Whether `operand` is staged k-major, [k][x]: in a cp.async pipeline,
  /// an operand contiguous along its own rows (a [k, n] weight) is copied
  /// as it lies and its fragments are read with ldmatrix .trans.
  bool isKMajor(OpOperand &operand) {
    AffineMap map = op.getMatchingIndexingMap(&operand);
    return config.isSwizzled() &&
           cast<AffineDimExpr>(map.getResults().back()).getPosition() != g.k;
  }

  GpuMmaAttr config;
  Value m0, n0, warpRow, warpCol, group, thread;
};

void MmaKernelBuilder::copyAsync(OpBuilder &b, OpOperand &operand, Value tile,
                                 unsigned dim, int64_t extent, Value origin,
                                 Value kt, Value stage,
                                 SmallVectorImpl<Value> &tokens) {
  int64_t blockK = config.getBlockK(), threads = config.getThreads();
  // A stage holds `rows` rows of `cols` elements: [x][k], or [k][x] for a
  // k-major operand; each copy moves 8 contiguous elements of a row.
  bool kMajor = isKMajor(operand);
  int64_t rows = kMajor ? blockK : extent, cols = kMajor ? extent : blockK;
  int64_t perRow = cols / 8;
  Value zero = index(b, 0), eight = index(b, 8);
  Value stageRow = arith::MulIOp::create(b, loc, stage, index(b, rows));
  Type token = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  for (int64_t l = 0, e = rows * perRow / threads; l < e; ++l) {
    // Copy c: row c / perRow of the slice, elements 8 (c % perRow) on.
    Value c = arith::AddIOp::create(b, loc, tid, index(b, l * threads));
    Value r = arith::DivUIOp::create(b, loc, c, index(b, perRow));
    Value col = arith::MulIOp::create(
        b, loc, arith::RemUIOp::create(b, loc, c, index(b, perRow)), eight);
    Value gx = arith::AddIOp::create(b, loc, origin, kMajor ? col : r);
    Value gk = arith::AddIOp::create(b, loc, kt, kMajor ? r : col);
    // Elements to read: 8, fewer at the end of the contiguous dimension,
    // none past the end of the other.
    Value contiguous = kMajor ? gx : gk, other = kMajor ? gk : gx;
    Value left =
        arith::SubIOp::create(b, loc, sizes[kMajor ? dim : g.k], contiguous);
    Value count = arith::MinSIOp::create(
        b, loc, arith::MaxSIOp::create(b, loc, left, zero), eight);
    Value rowIn = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                        other, sizes[kMajor ? g.k : dim]);
    count = arith::SelectOp::create(b, loc, rowIn, count, zero);
    // A copy that reads nothing still names an aligned address in the
    // operand: its first element.
    Value reads =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count, zero);
    SmallVector<Value> ivs = blockIvs;
    ivs[dim] = arith::SelectOp::create(b, loc, reads, gx, zero);
    ivs[g.k] = arith::SelectOp::create(b, loc, reads, gk, zero);
    Value dstRow = arith::AddIOp::create(b, loc, stageRow, r);
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, token, tile,
        ValueRange{dstRow, stagedColumn(b, dstRow, col, cols)}, operand.get(),
        indices(operand, ivs), b.getIndexAttr(8), count, b.getUnitAttr()));
  }
}

Value MmaKernelBuilder::stagedColumn(OpBuilder &b, Value row, Value col,
                                     int64_t rowElements) {
  if (!config.isSwizzled())
    return col;
  int64_t p = std::min<int64_t>(rowElements / 8, 8);
  // Rows r and r + 8 / p step through p chunk permutations: any 8
  // consecutive rows' chunk c land in 8 distinct 16-byte bank groups.
  Value phase = arith::RemUIOp::create(
      b, loc, arith::DivUIOp::create(b, loc, row, index(b, 8 / p)),
      index(b, p));
  Value chunk = arith::DivUIOp::create(b, loc, col, index(b, 8));
  return arith::MulIOp::create(
      b, loc, arith::XOrIOp::create(b, loc, chunk, phase), index(b, 8));
}

std::pair<Value, Value> MmaKernelBuilder::outputAt(OpBuilder &b, int64_t i,
                                                   int64_t j, int64_t r,
                                                   int64_t c) {
  Value row = arith::AddIOp::create(
      b, loc, warpRow,
      arith::AddIOp::create(b, loc, group, index(b, i * 16 + r * 8)));
  Value col = arith::AddIOp::create(
      b, loc, warpCol,
      arith::AddIOp::create(b, loc,
                            arith::MulIOp::create(b, loc, thread, index(b, 2)),
                            index(b, j * 8 + c)));
  return {row, col};
}

LogicalResult MmaKernelBuilder::build(IRRewriter &rw) {
  OpOperand &a = *op.getDpsInputOperand(g.a);
  OpOperand &bOperand = *op.getDpsInputOperand(g.b);
  Type half = getElementTypeOrSelf(a.get().getType());
  if (!(half.isBF16() || half.isF16()) ||
      getElementTypeOrSelf(bOperand.get().getType()) != half)
    return op->emitOpError("-tfm-gpu-tile-contraction: ")
           << config << " needs both inputs bf16 or both f16";
  if (config.getStages() > 1 &&
      (!isAsyncCopyable(op, g, a) || !isAsyncCopyable(op, g, bOperand)))
    return op->emitOpError("-tfm-gpu-tile-contraction: ")
           << config
           << " stages its operands with cp.async, which needs both "
              "contiguous along k or along their own rows, with rows "
              "aligned to 8 elements";
  MLIRContext *ctx = op->getContext();
  int64_t blockM = config.getBlockM(), blockN = config.getBlockN(),
          blockK = config.getBlockK(), row = config.getStagedRow();
  // Each thread copies the same number of elements (8-element copies
  // with cp.async stages).
  int64_t unit = config.getStages() > 1 ? 8 : 1;
  if ((blockM * blockK / unit) % config.getThreads() ||
      (blockN * blockK / unit) % config.getThreads())
    return op->emitOpError("-tfm-gpu-tile-contraction: ")
           << config << ": the slices are not a whole number of "
           << (unit == 8 ? "8-element copies" : "loads") << " for "
           << config.getThreads() << " threads";
  int64_t fm = config.getFragmentsM(), fn = config.getFragmentsN();
  rw.setInsertionPoint(op);
  auto [gridX, gridY, gridZ] = grid(rw, blockM, blockN);
  Value m = sizes[g.m], n = sizes[g.n];

  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  // One slice of each operand per stage, stage s at rows s * block_m (A)
  // and s * block_n (B), or s * block_k for a k-major operand.
  int64_t stages = config.getStages();
  bool aKMajor = isKMajor(a), bKMajor = isKMajor(bOperand);
  auto tileType = [&](bool kMajor, int64_t extent) {
    return MemRefType::get(kMajor ? ArrayRef<int64_t>{stages * blockK, extent}
                                  : ArrayRef<int64_t>{stages * extent, row},
                           half, MemRefLayoutAttrInterface(), workgroup);
  };
  auto aTileType = tileType(aKMajor, blockM);
  auto bTileType = tileType(bKMajor, blockN);
  auto [launch, b] = createKernelLaunch(
      rw, loc, {gridX, gridY, gridZ},
      {index(rw, config.getThreads()), index(rw, 1), index(rw, 1)},
      TypeRange{aTileType, bTileType}, plannedRegisters(config));
  Value aTile = launch.getWorkgroupAttributions()[0];
  Value bTile = launch.getWorkgroupAttributions()[1];
  gpu::KernelDim3 blockIds = launch.getBlockIds();

  batchIndices(b, blockIds.z);
  m0 = arith::MulIOp::create(b, loc, blockIds.y, index(b, blockM));
  n0 = arith::MulIOp::create(b, loc, blockIds.x, index(b, blockN));
  tid = launch.getThreadIds().x;
  Value warp = arith::DivUIOp::create(b, loc, tid, index(b, 32));
  Value lane = arith::RemUIOp::create(b, loc, tid, index(b, 32));
  group = arith::DivUIOp::create(b, loc, lane, index(b, 4));
  thread = arith::RemUIOp::create(b, loc, lane, index(b, 4));
  // The warp's sub-tile, relative to the block's.
  Value warpM =
      arith::DivUIOp::create(b, loc, warp, index(b, config.getWarpsN()));
  Value warpN =
      arith::RemUIOp::create(b, loc, warp, index(b, config.getWarpsN()));
  warpRow = arith::MulIOp::create(b, loc, warpM,
                                  index(b, blockM / config.getWarpsM()));
  warpCol = arith::MulIOp::create(b, loc, warpN,
                                  index(b, blockN / config.getWarpsN()));

  // The accumulators start from the output's values (the bias, or 0).
  Type f32 = b.getF32Type();
  auto accType = VectorType::get({2, 2}, f32);
  Value one = index(b, 1);
  Value mLast = arith::SubIOp::create(b, loc, m, one);
  Value nLast = arith::SubIOp::create(b, loc, n, one);
  SmallVector<Value> init;
  for (int64_t i = 0; i < fm; ++i)
    for (int64_t j = 0; j < fn; ++j) {
      SmallVector<Value> elements;
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          auto [rowLocal, colLocal] = outputAt(b, i, j, r, c);
          SmallVector<Value> ivs = blockIvs;
          ivs[g.m] = arith::MinUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, m0, rowLocal), mLast);
          ivs[g.n] = arith::MinUIOp::create(
              b, loc, arith::AddIOp::create(b, loc, n0, colLocal), nLast);
          elements.push_back(loadInit(b, ivs));
        }
      init.push_back(vector::FromElementsOp::create(b, loc, accType, elements));
    }

  auto aType = VectorType::get({4, 2}, half);
  auto bType = VectorType::get({2, 2}, half);
  // A pipeline of S = `stages` buffers: slices 0 to S - 2 are put in
  // flight before the loop. Iteration i waits until at most S - 2 groups
  // are pending (slice i has landed), and the barrier makes every
  // thread's copies visible and tells that every warp is done with slice
  // i - 1; then slice i + S - 1 goes in flight into i - 1's buffer (zeros
  // past the end of k) while the warps multiply slice i.
  auto issue = [&](OpBuilder &ib, Value kt, Value stage) {
    SmallVector<Value> tokens;
    copyAsync(ib, a, aTile, g.m, blockM, m0, kt, stage, tokens);
    copyAsync(ib, bOperand, bTile, g.n, blockN, n0, kt, stage, tokens);
    return nvgpu::DeviceAsyncCreateGroupOp::create(
        ib, loc, nvgpu::DeviceAsyncTokenType::get(ctx), tokens);
  };
  Value first;
  for (int64_t s = 0; s + 1 < stages; ++s)
    first = issue(b, index(b, s * blockK), index(b, s));
  auto kLoop = scf::ForOp::create(
      b, loc, index(b, 0), sizes[g.k], index(b, blockK), init,
      [&](OpBuilder &lb, Location, Value kt, ValueRange accs) {
        Value aBase = index(lb, 0), bBase = index(lb, 0);
        if (stages > 1) {
          Value slice = arith::DivUIOp::create(lb, loc, kt, index(lb, blockK));
          Value current =
              arith::RemUIOp::create(lb, loc, slice, index(lb, stages));
          nvgpu::DeviceAsyncWaitOp::create(lb, loc, first,
                                           lb.getI32IntegerAttr(stages - 2));
          gpu::BarrierOp::create(lb, loc);
          Value next = arith::RemUIOp::create(
              lb, loc,
              arith::AddIOp::create(lb, loc, slice, index(lb, stages - 1)),
              index(lb, stages));
          issue(lb,
                arith::AddIOp::create(lb, loc, kt,
                                      index(lb, (stages - 1) * blockK)),
                next);
          aBase = arith::MulIOp::create(lb, loc, current,
                                        index(lb, aKMajor ? blockK : blockM));
          bBase = arith::MulIOp::create(lb, loc, current,
                                        index(lb, bKMajor ? blockK : blockN));
        } else {
          copySlice(lb, a, aTile, g.m, blockM, m0, kt, blockK,
                    config.getThreads(), /*kRows=*/false);
          copySlice(lb, bOperand, bTile, g.n, blockN, n0, kt, blockK,
                    config.getThreads(), /*kRows=*/false);
          gpu::BarrierOp::create(lb, loc);
        }
        SmallVector<Value> sums(accs.begin(), accs.end());
        // A fragment (4 8 x 8 matrices: rows +0 and +8, k +0 and +8) or
        // B's (2: k +0 and +8) with one ldmatrix: lane l names the row of
        // matrix l / 8 it fetches, l % 8, and ldmatrix hands lane 4g + t
        // the elements (g, 2t) and (g, 2t + 1) of each matrix, which is
        // mma.sync's layout. A k-major tile holds each matrix transposed
        // (rows are k): lane l names its k row, and ldmatrix .trans hands
        // lane 4g + t the same elements.
        Value laneRow = arith::RemUIOp::create(lb, loc, lane, index(lb, 8));
        Value matrix = arith::DivUIOp::create(lb, loc, lane, index(lb, 8));
        // `rows` 8-row groups along x (2 for A, 1 for one B fragment, 2 for
        // a pair of B fragments) times 2 along k; matrix q is x group
        // q % rows and k half q / rows, or for a B pair (kFirst) k half
        // q % 2 and fragment q / 2, so that each fragment's two matrices
        // are consecutive registers.
        auto fragment = [&](Value tile, bool kMajor, int64_t extent, Value base,
                            Value x, int64_t ks, VectorType type,
                            bool kFirst = false) {
          int64_t tiles = type.getDimSize(0);
          int64_t rows = tiles / 2;
          Value q = arith::RemUIOp::create(lb, loc, matrix, index(lb, tiles));
          Value xGroup, kHalf;
          if (kFirst) {
            xGroup = arith::DivUIOp::create(lb, loc, q, index(lb, 2));
            kHalf = arith::RemUIOp::create(lb, loc, q, index(lb, 2));
          } else {
            xGroup = arith::RemUIOp::create(lb, loc, q, index(lb, rows));
            kHalf = arith::DivUIOp::create(lb, loc, q, index(lb, rows));
          }
          Value rowOff = arith::MulIOp::create(lb, loc, xGroup, index(lb, 8));
          Value kOff = arith::MulIOp::create(lb, loc, kHalf, index(lb, 8));
          Value xs = arith::AddIOp::create(lb, loc, x, rowOff);
          Value k = arith::AddIOp::create(lb, loc, kOff, index(lb, ks));
          Value r, col;
          if (kMajor) {
            r = arith::AddIOp::create(
                lb, loc, base, arith::AddIOp::create(lb, loc, k, laneRow));
            col = stagedColumn(lb, r, xs, extent);
          } else {
            r = arith::AddIOp::create(
                lb, loc, base, arith::AddIOp::create(lb, loc, xs, laneRow));
            col = stagedColumn(lb, r, k, blockK);
          }
          return nvgpu::LdMatrixOp::create(
                     lb, loc, type, tile, ValueRange{r, col},
                     lb.getBoolAttr(kMajor), lb.getI32IntegerAttr(tiles))
              .getResult();
        };
        for (int64_t ks = 0; ks < blockK; ks += 16) {
          SmallVector<Value> aFrags, bFrags;
          for (int64_t i = 0; i < fm; ++i)
            aFrags.push_back(fragment(
                aTile, aKMajor, blockM, aBase,
                arith::AddIOp::create(lb, loc, warpRow, index(lb, i * 16)), ks,
                aType));
          // B's fragments two at a time (one ldmatrix x4 for 16 columns),
          // the last one alone when fn is odd.
          for (int64_t j = 0; j < fn; j += 2) {
            Value x = arith::AddIOp::create(lb, loc, warpCol, index(lb, j * 8));
            if (j + 1 == fn) {
              bFrags.push_back(
                  fragment(bTile, bKMajor, blockN, bBase, x, ks, bType));
              continue;
            }
            Value pair = fragment(bTile, bKMajor, blockN, bBase, x, ks, aType,
                                  /*kFirst=*/true);
            for (int64_t h = 0; h < 2; ++h)
              bFrags.push_back(vector::ExtractStridedSliceOp::create(
                  lb, loc, pair, ArrayRef<int64_t>{2 * h, 0},
                  ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1}));
          }
          for (int64_t i = 0; i < fm; ++i)
            for (int64_t j = 0; j < fn; ++j) {
              Value &acc = sums[i * fn + j];
              acc = nvgpu::MmaSyncOp::create(lb, loc, aFrags[i], bFrags[j], acc,
                                             ArrayRef<int64_t>{16, 8, 16});
            }
        }
        // One stage: the next copy overwrites this slice, so every warp
        // must be done reading it (with a pipeline, the next iteration's
        // barrier comes before any copy into this buffer).
        if (stages == 1)
          gpu::BarrierOp::create(lb, loc);
        scf::YieldOp::create(lb, loc, sums);
      });
  // The last iterations' copies (zeros past the end of k) are still in
  // flight: no block leaves with a pending group.
  if (stages > 1)
    nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));

  for (int64_t i = 0; i < fm; ++i)
    for (int64_t j = 0; j < fn; ++j)
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t c = 0; c < 2; ++c) {
          auto [rowLocal, colLocal] = outputAt(b, i, j, r, c);
          Value rowG = arith::AddIOp::create(b, loc, m0, rowLocal);
          Value colG = arith::AddIOp::create(b, loc, n0, colLocal);
          Value inBounds = arith::AndIOp::create(
              b, loc,
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, rowG, m),
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, colG,
                                    n));
          Value v = vector::ExtractOp::create(
              b, loc, kLoop.getResult(i * fn + j), ArrayRef<int64_t>{r, c});
          auto guard = scf::IfOp::create(b, loc, inBounds);
          OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
          SmallVector<Value> ivs = blockIvs;
          ivs[g.m] = rowG;
          ivs[g.n] = colG;
          storeOutput(gb, v, ivs);
        }
  rw.eraseOp(op);
  return success();
}

struct GPUTileContractionPass
    : tfm::impl::GPUTileContractionPassBase<GPUTileContractionPass> {
  using Base::Base;
  GPUTileContractionPass(const GPUTileContractionPass &other)
      : Base(other) {}

  void runOnOperation() override {
    SmallVector<linalg::LinalgOp> ops;
    getOperation()->walk([&](linalg::LinalgOp op) {
      if (op->hasAttr(kLoweringConfigAttr))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (linalg::LinalgOp op : ops) {
      Attribute config = op->getAttr(kLoweringConfigAttr);
      if (!isa<GpuContractionAttr, GpuMmaAttr, GpuMmaChoiceAttr>(config))
        continue;
      std::optional<GemmDims> g = matchGpuContraction(op);
      if (!g) {
        op->emitOpError("-tfm-gpu-tile-contraction: carries ")
            << config << " but is not a contraction the GEMM kernel takes";
        return signalPassFailure();
      }
      InitSource init = fuseInitBroadcast(op);
      Epilogue epilogue = fuseEpilogue(op, init);
      auto configure = [&](auto &builder) {
        builder.setInitSource(init.buffer, init.map, init.scalar);
        builder.setEpilogue(epilogue.consumer, epilogue.result,
                            epilogue.keepOutput);
      };
      Value out = op.getDpsInitOperand(0)->get();
      if (auto choice = dyn_cast<GpuMmaChoiceAttr>(config)) {
        if (failed(buildChoice(rw, op, *g, choice, init, epilogue)))
          return signalPassFailure();
        mmaKernels += 2;
      } else if (auto mma = dyn_cast<GpuMmaAttr>(config)) {
        MmaKernelBuilder builder(op, *g, mma);
        configure(builder);
        if (failed(builder.build(rw)))
          return signalPassFailure();
        ++mmaKernels;
      } else {
        GemmKernelBuilder builder(op, *g, cast<GpuContractionAttr>(config));
        configure(builder);
        if (failed(builder.build(rw)))
          return signalPassFailure();
        ++kernels;
      }
      if (init.broadcast) {
        rw.eraseOp(init.broadcast);
        ++fusedBroadcasts;
      }
      if (epilogue.consumer) {
        rw.eraseOp(epilogue.consumer);
        ++fusedEpilogues;
        // The output, written by no one now, goes with its views.
        if (!epilogue.keepOutput)
          eraseIfUnused(rw, viewRoot(out));
      }
    }
  }

  /// An op the kernel may take in: an elementwise `linalg.generic` on
  /// buffers (parallel loops, one output) that is neither a row kernel's
  /// stage nor scheduled itself.
  static bool isFusableElementwise(linalg::GenericOp op) {
    return op && op.getNumDpsInits() == 1 &&
           !op->hasAttr(kLoweringConfigAttr) &&
           !op->hasAttr(kRowKernelStageAttr) &&
           op.getNumParallelLoops() == op.getNumLoops() &&
           op.hasPureBufferSemantics();
  }

  /// The broadcast that fills a contraction's output right before it (a
  /// bias: `linalg.generic` of parallel loops, one input read through a
  /// projected permutation, the output through the identity, a payload
  /// that yields the input): the kernel starts its accumulators from the
  /// broadcast's input, and the broadcast goes. Nothing that touches
  /// memory runs between the two (views, index arithmetic and
  /// allocations may), so nothing else sees the output's intermediate
  /// values. A row kernel's stage (-tfm-gpu-configure) or an op with a
  /// schedule of its own is left alone.
  struct InitSource {
    Value buffer;
    AffineMap map;
    /// Or one value for every element (a fill).
    Value scalar;
    Operation *broadcast = nullptr;
  };
  InitSource fuseInitBroadcast(linalg::LinalgOp op) {
    // The op before, past views, index arithmetic and new buffers (which
    // touch no memory the two share).
    Operation *prev = op->getPrevNode();
    while (prev && (isMemoryEffectFree(prev) || isa<memref::AllocOp>(prev)))
      prev = prev->getPrevNode();
    Value out = op.getDpsInitOperand(0)->get();
    // A fill (the zeros of a projection without bias): the accumulators
    // start from its value, and the output is never read.
    if (auto fill = dyn_cast_or_null<linalg::FillOp>(prev)) {
      Value value = fill.getInputs()[0];
      if (!fuseBias || fill.getOutputs()[0] != out ||
          fill->hasAttr(kLoweringConfigAttr) ||
          fill->hasAttr(kRowKernelStageAttr) ||
          value.getType() != cast<MemRefType>(out.getType()).getElementType())
        return {};
      return {Value(), AffineMap(), value, fill};
    }
    auto producer = dyn_cast_or_null<linalg::GenericOp>(prev);
    if (!fuseBias || !isFusableElementwise(producer) ||
        producer.getNumDpsInputs() != 1 ||
        producer.getDpsInitOperand(0)->get() != out)
      return {};
    OpOperand *input = producer.getDpsInputOperand(0);
    AffineMap inputMap = producer.getMatchingIndexingMap(input);
    if (!producer.getMatchingIndexingMap(producer.getDpsInitOperand(0))
             .isIdentity() ||
        !inputMap.isProjectedPermutation(/*allowZeroInResults=*/false))
      return {};
    // The bias must not be (a view of) the output, nor may the
    // contraction read the output as an operand: the kernel reads them
    // while other blocks write the output.
    Value outRoot = viewRoot(out);
    if (viewRoot(input->get()) == outRoot ||
        llvm::any_of(op.getDpsInputOperands(), [&](OpOperand *operand) {
          return viewRoot(operand->get()) == outRoot;
        }))
      return {};
    auto yield = cast<linalg::YieldOp>(producer.getBody()->getTerminator());
    if (yield.getNumOperands() != 1 ||
        yield.getOperand(0) != producer.getBody()->getArgument(0) ||
        !isa<MemRefType>(input->get().getType()) ||
        cast<MemRefType>(input->get().getType()).getElementType() !=
            cast<MemRefType>(out.getType()).getElementType())
      return {};
    // The input's indices from the contraction's loops: through the
    // contraction's output map, then the broadcast's input map.
    AffineMap map =
        inputMap.compose(op.getMatchingIndexingMap(op.getDpsInitOperand(0)));
    return {input->get(), map, Value(), producer};
  }

  /// The elementwise op right after a contraction that reads its output
  /// (an activation, a residual add, a conversion to 16 bits: a
  /// `linalg.generic` of parallel loops over the output's dimensions that
  /// reads it through the identity, its other operands through projected
  /// permutations, and writes one output through a permutation, with a
  /// payload free of memory effects): the kernel applies the payload to
  /// each result it stores and writes the op's output instead, and the op
  /// goes. Legal when nothing touching memory runs between the two, the
  /// op's other inputs are not the contraction's output, its output is
  /// neither read by the contraction nor (unless at the same element) by
  /// the op, and the contraction's output is the op's output or dies with
  /// the op (an allocation that only views and deallocations use after).
  struct Epilogue {
    linalg::GenericOp consumer;
    OpOperand *result = nullptr;
    bool keepOutput = false;
  };
  Epilogue fuseEpilogue(linalg::LinalgOp op, const InitSource &init) {
    if (!fuseEpilogues)
      return {};
    // The first op after that reads the output, past views, index
    // arithmetic and new buffers (the epilogue's output among them: they
    // move before the kernel) and up to four linalg ops on other buffers
    // (a layer's other projections, whose own epilogues come after).
    Value out = op.getDpsInitOperand(0)->get();
    Value outRoot = viewRoot(out);
    auto readsOutput = [&](Operation *o) {
      return llvm::any_of(o->getOperands(),
                          [&](Value v) { return viewRoot(v) == outRoot; });
    };
    SmallVector<Operation *> between;
    SmallVector<linalg::LinalgOp> passed;
    Operation *next = op->getNextNode();
    for (; next; next = next->getNextNode()) {
      if (isMemoryEffectFree(next) || isa<memref::AllocOp>(next)) {
        between.push_back(next);
        continue;
      }
      auto linalgOp = dyn_cast<linalg::LinalgOp>(next);
      if (!linalgOp || readsOutput(next) || passed.size() == 4 ||
          !linalgOp.hasPureBufferSemantics())
        break;
      passed.push_back(linalgOp);
    }
    auto consumer = dyn_cast_or_null<linalg::GenericOp>(next);
    if (!isFusableElementwise(consumer))
      return {};
    OpOperand *dst = consumer.getDpsInitOperand(0);
    Value dstRoot = viewRoot(dst->get());
    AffineMap dstMap = consumer.getMatchingIndexingMap(dst);
    if (!dstMap.isPermutation())
      return {};
    // The one input that reads the output, at the same element.
    OpOperand *result = nullptr;
    for (OpOperand *input : consumer.getDpsInputOperands()) {
      AffineMap map = consumer.getMatchingIndexingMap(input);
      if (!map.isProjectedPermutation(/*allowZeroInResults=*/false))
        return {};
      Value root = viewRoot(input->get());
      if (input->get() == out && map.isPermutation() && !result) {
        result = input;
        continue;
      }
      // Any other read of the output would see it half written; a read of
      // the epilogue's output only at the element this thread writes.
      if (root == outRoot ||
          (root == dstRoot && (input->get() != dst->get() || map != dstMap)))
        return {};
    }
    // In place (`outs(%out)`), the op may read the output as its own; one
    // that does not read it (the next projection's bias broadcast into a
    // reused buffer) is no epilogue.
    if (!result && dst->get() == out &&
        !consumer.getBody()->getArgument(dst->getOperandNumber()).use_empty())
      result = dst;
    if (!result ||
        consumer.getNumLoops() != cast<MemRefType>(out.getType()).getRank())
      return {};
    // Written in place, the output takes each result where it was computed
    // (the kernel reads its initial values block by block); no other view
    // of it may be written.
    if (dst->get() == out ? dstMap != consumer.getMatchingIndexingMap(result)
                          : dstRoot == outRoot)
      return {};
    // The kernel reads its operands (and a fused bias) while other blocks
    // store.
    for (OpOperand *operand : op.getDpsInputOperands())
      if (viewRoot(operand->get()) == dstRoot)
        return {};
    if (init.buffer && viewRoot(init.buffer) == dstRoot)
      return {};
    Block *body = consumer.getBody();
    if (body->getTerminator()->getNumOperands() != 1 ||
        !llvm::all_of(body->without_terminator(), [](Operation &o) {
          return isMemoryEffectFree(&o) && o.getNumRegions() == 0;
        }))
      return {};
    // The epilogue now runs before the ops passed: none of them may touch
    // its output or write its inputs.
    for (linalg::LinalgOp other : passed) {
      for (Value v : other->getOperands())
        if (viewRoot(v) == dstRoot)
          return {};
      for (OpOperand &init : other.getDpsInitsMutable())
        for (OpOperand *input : consumer.getDpsInputOperands())
          if (viewRoot(init.get()) == viewRoot(input->get()))
            return {};
    }
    // Unless the epilogue writes it, the output is still stored where it
    // may be read later: where it is not an allocation that only the two
    // ops, views and deallocations use.
    bool keepOutput = false;
    if (dst->get() != out) {
      SmallVector<Operation *> views;
      keepOutput =
          !outRoot.getDefiningOp<memref::AllocOp>() ||
          llvm::any_of(usersThroughViews(outRoot, views), [&](Operation *u) {
            return u != op.getOperation() && u != consumer.getOperation() &&
                   u != init.broadcast && !isa<memref::DeallocOp>(u);
          });
    }
    // Nothing in between reads memory or depends on the contraction (which
    // has no results): it can all run first.
    for (Operation *o : between)
      o->moveBefore(op);
    return {consumer, result, keepOutput};
  }

  /// Erases the allocation `root`, its views and deallocations when
  /// nothing else uses them.
  static void eraseIfUnused(IRRewriter &rw, Value root) {
    auto alloc = root.getDefiningOp<memref::AllocOp>();
    if (!alloc)
      return;
    SmallVector<Operation *> views;
    SmallVector<Operation *> users = usersThroughViews(root, views);
    if (!llvm::all_of(users, llvm::IsaPred<memref::DeallocOp>))
      return;
    for (Operation *dealloc : users)
      rw.eraseOp(dealloc);
    // A view's own views were found after it: erase them first.
    for (Operation *view : llvm::reverse(views))
      rw.eraseOp(view);
    rw.eraseOp(alloc);
  }

  /// The ops that use `root` directly or through its views, the views
  /// themselves (in the order found, each after the view it is made of)
  /// going to `views`.
  static SmallVector<Operation *>
  usersThroughViews(Value root, SmallVectorImpl<Operation *> &views) {
    SmallVector<Operation *> users;
    SmallVector<Value> worklist{root};
    while (!worklist.empty()) {
      Value v = worklist.pop_back_val();
      for (Operation *user : v.getUsers()) {
        if (!isa<ViewLikeOpInterface>(user)) {
          users.push_back(user);
          continue;
        }
        views.push_back(user);
        llvm::append_range(worklist, user->getResults());
      }
    }
    return users;
  }

  /// Both kernels of a #tfm.gpu_mma_choice, in the two branches of an
  /// scf.if on the large tiles' grid size (the attribute's rule).
  LogicalResult buildChoice(IRRewriter &rw, linalg::LinalgOp op,
                            const GemmDims &g, GpuMmaChoiceAttr choice,
                            const InitSource &init, const Epilogue &epilogue) {
    Location loc = op.getLoc();
    rw.setInsertionPoint(op);
    SmallVector<Value> sizes;
    for (Range r : op.createLoopRanges(rw, loc))
      sizes.push_back(getValueOrCreateConstantIndexOp(rw, loc, r.size));
    auto tiles = [&](unsigned d, int64_t block) {
      return arith::CeilDivUIOp::create(
          rw, loc, sizes[d], arith::ConstantIndexOp::create(rw, loc, block));
    };
    Value blocks = arith::MulIOp::create(
        rw, loc, tiles(g.m, choice.getLarge().getBlockM()),
        tiles(g.n, choice.getLarge().getBlockN()));
    for (unsigned d : g.unit)
      blocks = arith::MulIOp::create(rw, loc, blocks, sizes[d]);
    Value large = arith::CmpIOp::create(
        rw, loc, arith::CmpIPredicate::uge, blocks,
        arith::ConstantIndexOp::create(rw, loc, choice.getMinBlocks()));
    auto branch = scf::IfOp::create(rw, loc, large, /*withElseRegion=*/true);
    for (auto [block, config] :
         {std::pair(branch.thenBlock(), choice.getLarge()),
          std::pair(branch.elseBlock(), choice.getSmall())}) {
      rw.setInsertionPoint(block->getTerminator());
      auto clone = cast<linalg::LinalgOp>(rw.clone(*op));
      MmaKernelBuilder builder(clone, g, config);
      builder.setInitSource(init.buffer, init.map, init.scalar);
      builder.setEpilogue(epilogue.consumer, epilogue.result,
                          epilogue.keepOutput);
      if (failed(builder.build(rw)))
        return failure();
    }
    rw.eraseOp(op);
    return success();
  }

  PassStatistic kernels{this, numKernels, "kernels",
                        "Contractions lowered to GEMM kernels"};
  PassStatistic mmaKernels{this, numMmaKernels, "mma-kernels",
                           "Contractions lowered to tensor-core GEMM kernels"};
  PassStatistic fusedEpilogues{
      this, numFusedEpilogues, "fused-epilogues",
      "Elementwise ops after a contraction applied by its kernel's stores"};
  PassStatistic fusedBroadcasts{
      this, numFusedBroadcasts, "fused-broadcasts",
      "Broadcasts and fills into a contraction's output read as its "
      "initial values instead"};
};

} // namespace
