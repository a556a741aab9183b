//===- LowerAmx.cpp - AMX tile kernels for bf16 contractions --------------===//
//
// -tfm-cpu-lower-amx: each contraction in AMX form (-tfm-pack-amx) with a
// #tfm.cpu_amx_contraction becomes blocks of 32 x 32 tile kernels (four
// f32 accumulator tiles carried through the k loop in tile registers),
// then the AMX ops and the loops that carry tiles are converted to LLVM.
// See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/AMX/AMXDialect.h"
#include "mlir/Dialect/AMX/Transforms.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CPULOWERAMXPASS
#define GEN_PASS_DEF_CPUCONVERTAMXTOLLVMPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Where one 32 x 32 kernel reads and writes: A rows from `aRow` at a row
/// stride of `aStride` elements, C rows from `cRow` and column tiles from
/// `cTile` at `cStride`, B tiles `bTile` and `bTile + 1` of Wp.
struct KernelOperands {
  Value a, aRow, aStride;
  Value c, cRow, cTile, cStride;
  Value wp, bTile;
};

class Emitter {
public:
  Emitter(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value idx(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value add(Value x, int64_t y) { return add(x, idx(y)); }

  /// The 32 x 32 kernel: four accumulators in tile registers over the
  /// k loop over pairs [k0, k1) of k in steps of 16 pairs.
  void kernel(const KernelOperands &o, Value k0, Value k1) {
    MLIRContext *ctx = b.getContext();
    auto accType = amx::TileType::get({16, 16}, Float32Type::get(ctx));
    auto inType = amx::TileType::get({16, 32}, BFloat16Type::get(ctx));
    Value zero = idx(0), rowStrideB = idx(32);
    Value cRows[2] = {o.cRow, add(o.cRow, 16)};
    Value cTiles[2] = {o.cTile, add(o.cTile, 1)};
    Value bTiles[2] = {o.bTile, add(o.bTile, 1)};
    Value aRows[2] = {o.aRow, add(o.aRow, 16)};
    SmallVector<Value> acc;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        acc.push_back(
            zeroInit ? amx::TileZeroOp::create(b, loc, accType).getResult()
                     : amx::TileLoadOp::create(
                           b, loc, accType, o.c,
                           ValueRange{cRows[i], cTiles[j], zero}, o.cStride)
                           .getResult());
    auto loop = scf::ForOp::create(
        b, loc, k0, k1, idx(16), acc,
        [&](OpBuilder &nb, Location l, Value k, ValueRange iter) {
          Value x[2], y[2];
          for (int i = 0; i < 2; ++i)
            x[i] = amx::TileLoadOp::create(
                nb, l, inType, o.a, ValueRange{aRows[i], k, zero}, o.aStride);
          for (int j = 0; j < 2; ++j)
            y[j] = amx::TileLoadOp::create(nb, l, inType, o.wp,
                                           ValueRange{bTiles[j], k, zero, zero},
                                           rowStrideB);
          SmallVector<Value> next;
          for (int i = 0; i < 2; ++i)
            for (int j = 0; j < 2; ++j)
              next.push_back(amx::TileMulFOp::create(nb, l, accType, x[i], y[j],
                                                     iter[2 * i + j]));
          scf::YieldOp::create(nb, l, next);
        });
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        amx::TileStoreOp::create(b, loc, o.c,
                                 ValueRange{cRows[i], cTiles[j], zero},
                                 loop.getResult(2 * i + j), o.cStride);
  }

  /// Rows per dot-product kernel of `tiles` column tiles: as many as keep
  /// its accumulators, its `tiles` rows of Wp and the broadcast of A in the
  /// 32 vector registers (rows * tiles + tiles + 1 <= 32), a power of two
  /// (so that they divide a 32-row step and the tail's counts).
  static int64_t dotKernelRows(int64_t tiles) { return tiles == 2 ? 8 : 4; }

  /// Kernels without tiles (AVX512-BF16) over `tiles` 16-column tiles of
  /// Wp and C from o.bTile and o.cTile: kernels of dotKernelRows(tiles)
  /// rows by `tiles` vectors of f32 accumulators in registers over the k
  /// loop over pairs [k0, k1); each pair of A broadcast to every lane (a
  /// 32-bit element: its two bf16), multiplied with a 64-byte row of each
  /// tile of Wp (16 columns by the pair) by vdpbf16ps.
  /// `rows` (32 for a whole step; or one kernel's 8, 4, 2 or 1 for the
  /// last rows of a block) from o's first row.
  void dotKernel(const KernelOperands &o, Value k0, Value k1, int64_t rows,
                 int64_t tiles) {
    MLIRContext *ctx = b.getContext();
    Type bf16 = BFloat16Type::get(ctx), f32 = Float32Type::get(ctx);
    Type i32 = IntegerType::get(ctx, 32);
    auto accType = VectorType::get({16}, f32);
    auto pairsType = VectorType::get({32}, bf16);
    Value zero = idx(0);
    // A [rows, K/2, 2], Wp with its 16 columns by 2 as one row of 32:
    // [tiles, K/2, 32].
    SmallVector<Value> cTiles{o.cTile}, bTiles{o.bTile};
    for (int64_t j = 1; j < tiles; ++j) {
      cTiles.push_back(add(o.cTile, j));
      bTiles.push_back(add(o.bTile, j));
    }
    const int64_t rowsPerKernel = std::min(rows, dotKernelRows(tiles));
    assert(rows % rowsPerKernel == 0 && "rows: 32, or a power of two <= 8");
    for (int64_t r0 = 0; r0 < rows; r0 += rowsPerKernel) {
      SmallVector<Value> aRows, cRows;
      for (int64_t i = 0; i < rowsPerKernel; ++i) {
        aRows.push_back(add(o.aRow, r0 + i));
        cRows.push_back(add(o.cRow, r0 + i));
      }
      SmallVector<Value> acc;
      for (int64_t i = 0; i < rowsPerKernel; ++i)
        for (int64_t j = 0; j < tiles; ++j)
          acc.push_back(zeroInit ? arith::ConstantOp::create(
                                       b, loc, accType, b.getZeroAttr(accType))
                                       .getResult()
                                 : vector::LoadOp::create(
                                       b, loc, accType, o.c,
                                       ValueRange{cRows[i], cTiles[j], zero})
                                       .getResult());
      auto loop = scf::ForOp::create(
          b, loc, k0, k1, idx(1), acc,
          [&](OpBuilder &nb, Location l, Value k, ValueRange iter) {
            SmallVector<Value> w;
            for (int64_t j = 0; j < tiles; ++j)
              w.push_back(vector::LoadOp::create(
                  nb, l, pairsType, o.wp, ValueRange{bTiles[j], k, zero}));
            SmallVector<Value> next;
            for (int64_t i = 0; i < rowsPerKernel; ++i) {
              Value pair =
                  vector::LoadOp::create(nb, l, VectorType::get({2}, bf16), o.a,
                                         ValueRange{aRows[i], k, zero});
              Value word = vector::ExtractOp::create(
                  nb, l,
                  vector::BitCastOp::create(nb, l, VectorType::get({1}, i32),
                                            pair),
                  ArrayRef<int64_t>{0});
              Value a = vector::BitCastOp::create(
                  nb, l, pairsType,
                  vector::BroadcastOp::create(nb, l, VectorType::get({16}, i32),
                                              word));
              for (int64_t j = 0; j < tiles; ++j)
                next.push_back(x86vector::DotBF16Op::create(
                    nb, l, accType, iter[tiles * i + j], a, w[j]));
            }
            scf::YieldOp::create(nb, l, next);
          });
      // A whole step's kernels read the same rows of Wp in turn.
      if (rows == 32)
        loop->setAttr(kCachedPanelAttr, b.getUnitAttr());
      for (int64_t i = 0; i < rowsPerKernel; ++i)
        for (int64_t j = 0; j < tiles; ++j)
          vector::StoreOp::create(b, loc, loop.getResult(tiles * i + j), o.c,
                                  ValueRange{cRows[i], cTiles[j], zero});
    }
  }

  /// Kernels over column tiles [t0, t1) (an even count) of Wp, writing C's
  /// column tiles from `cTile0`: for each block of `kpBlock` pairs of k
  /// (the 32 rows of A it reads stay in L1 while every column pair reads
  /// them), every column pair's kernel on that block: the tile kernel
  /// (32 rows) when `dotRows` is 0, else dot-product kernels over
  /// `dotRows` rows (o.wp then in their [tiles, K/2, 32] form): for a
  /// whole 32-row step, of `dotTiles` column tiles while that many are
  /// left, then of two; for a block's last rows, of two (their rows of Wp
  /// come from memory, each used by few rows: two streams at a time ran
  /// faster than six, measured on Zen 4).
  void columns(KernelOperands o, Value t0, Value t1, Value cTile0, int64_t kp,
               int64_t kpBlock, int64_t dotRows) {
    scf::ForOp::create(
        b, loc, idx(0), idx(kp), idx(kpBlock), ValueRange{},
        [&](OpBuilder &kb, Location kl, Value k0, ValueRange) {
          OpBuilder::InsertionGuard kguard(b);
          b.setInsertionPoint(scf::YieldOp::create(kb, kl));
          Value k1 = arith::MinUIOp::create(b, loc, add(k0, kpBlock), idx(kp));
          // Column tiles [from, to) in kernels of `tiles`.
          auto tilesOf = [&](Value from, Value to, int64_t tiles) {
            scf::ForOp::create(
                b, loc, from, to, idx(tiles), ValueRange{},
                [&](OpBuilder &nb, Location l, Value t, ValueRange) {
                  OpBuilder::InsertionGuard guard(b);
                  b.setInsertionPoint(scf::YieldOp::create(nb, l));
                  o.bTile = t;
                  o.cTile = add(cTile0, arith::SubIOp::create(b, loc, t, t0));
                  if (dotRows > 0)
                    dotKernel(o, k0, k1, dotRows, tiles);
                  else
                    kernel(o, k0, k1);
                });
          };
          if (dotRows != 32 || dotTiles == 2) {
            tilesOf(t0, t1, 2);
            return;
          }
          Value wide = arith::MulIOp::create(
              b, loc,
              arith::DivUIOp::create(
                  b, loc, arith::SubIOp::create(b, loc, t1, t0), idx(dotTiles)),
              idx(dotTiles));
          Value tWide = add(t0, wide);
          tilesOf(t0, tWide, dotTiles);
          tilesOf(tWide, t1, 2);
        });
  }

  OpBuilder &b;
  Location loc;
  /// The accumulators start at zero (tilezero, or zero vectors) instead of
  /// C's values.
  bool zeroInit = false;
  /// Column tiles per dot-product kernel (2, 4 or 6; the pass's dot-tiles).
  int64_t dotTiles = 6;
};

/// The allocation (or argument) that view-like ops derive `v` from.
Value baseBuffer(Value v) {
  while (auto view = v.getDefiningOp<ViewLikeOpInterface>())
    v = view.getViewSource();
  return v;
}

/// The fill of zeros that last wrote C before `op`, when nothing between
/// them touches memory (S = Q K^T's fill in a tiled attention): the
/// kernel can start its accumulators at zero instead.
linalg::FillOp zeroFillOf(linalg::GenericOp op, Value c) {
  Value base = baseBuffer(c);
  for (Operation *p = op->getPrevNode(); p; p = p->getPrevNode()) {
    if (auto fill = dyn_cast<linalg::FillOp>(p)) {
      if (!fill.hasPureBufferSemantics() ||
          baseBuffer(fill.getOutputs()[0]) != base)
        return {};
      // The fill covers the buffer, and C all of it (no columns left to
      // another op that reads the fill).
      auto type = cast<MemRefType>(fill.getOutputs()[0].getType());
      auto baseType = dyn_cast<MemRefType>(base.getType());
      auto cType = cast<MemRefType>(c.getType());
      if (!baseType || !baseType.hasStaticShape() || !type.hasStaticShape() ||
          type.getNumElements() != baseType.getNumElements() ||
          !cType.hasStaticShape() ||
          cType.getNumElements() != baseType.getNumElements() ||
          !matchPattern(fill.value(), m_AnyZeroFloat()))
        return {};
      return fill;
    }
    if (!isMemoryEffectFree(p))
      return {};
  }
  return {};
}

/// The stride (elements) of `memref`'s dimension `dim`, when static.
std::optional<int64_t> staticStride(Value memref, int64_t dim) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(cast<MemRefType>(memref.getType())
                 .getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(strides[dim]))
    return std::nullopt;
  return strides[dim];
}

struct CpuLowerAmxPass : tfm::impl::CpuLowerAmxPassBase<CpuLowerAmxPass> {
  using Base::Base;
  CpuLowerAmxPass(const CpuLowerAmxPass &other) : Base(other) {}

  void runOnOperation() override {
    if (dotTiles != 2 && dotTiles != 4 && dotTiles != 6) {
      getOperation().emitError() << "-tfm-cpu-lower-amx: dot-tiles is "
                                 << int64_t(dotTiles) << ", must be 2, 4 or 6";
      return signalPassFailure();
    }
    SmallVector<std::pair<linalg::GenericOp, CpuAmxContractionAttr>> work;
    getOperation().walk([&](linalg::GenericOp op) {
      auto config = dyn_cast_or_null<CpuAmxContractionAttr>(
          op->getAttr(kLoweringConfigAttr));
      if (config && op.hasPureBufferSemantics() && matchAmxContraction(op))
        work.push_back({op, config});
    });
    for (auto &[op, config] : work) {
      if (failed(lower(op, config)))
        return signalPassFailure();
      ++lowered;
    }
  }

  LogicalResult lower(linalg::GenericOp op, CpuAmxContractionAttr config);

  tfm::PassStatistic lowered{this, numLowered, "lowered",
                             "Contractions lowered to AMX tiles"};
};

LogicalResult CpuLowerAmxPass::lower(linalg::GenericOp op,
                                     CpuAmxContractionAttr config) {
  AmxContraction m = *matchAmxContraction(op);
  OpBuilder b(op);
  Location loc = op.getLoc();
  Emitter e(b, loc);
  e.dotTiles = dotTiles;
  // Vector dot products (AVX512-BF16) for every row, or (with tiles) for
  // the rows after the last whole 32-row step.
  bool dots = config.getDotProducts();
  // (31: every count of last rows.)
  int64_t tailDotRows = dots ? 31 : config.getTailDotRows();
  // Wp's 16 columns by a pair of k as one 32-element row: what one
  // vdpbf16ps multiplies.
  Value wpDots;
  if (tailDotRows > 0) {
    SmallVector<ReassociationIndices> groups{{0}, {1}, {2, 3}};
    wpDots = memref::CollapseShapeOp::create(b, loc, m.wp, groups);
  }
  // The rows flattened: A [M, K/2, 2], C [M, N/16, 16]. Their rows are
  // contiguous by construction (-tfm-pack-amx: a fresh bf16 tensor, and
  // views of the init's last dimension), though the outer strides of a
  // view may be dynamic: collapse_shape's non-strict layout rule.
  // The row stride is the innermost row dimension's (the static one of a
  // view whose outer strides are dynamic).
  Value aRows = m.a, cRows = m.c;
  if (m.rowDims > 1) {
    ReassociationIndices rows;
    for (int64_t d = 0; d < m.rowDims; ++d)
      rows.push_back(d);
    SmallVector<ReassociationIndices> groups{
        rows, {m.rowDims}, {m.rowDims + 1}};
    m.a = memref::CollapseShapeOp::create(b, loc, m.a, groups);
    m.c = memref::CollapseShapeOp::create(b, loc, m.c, groups);
  }
  auto wpType = cast<MemRefType>(m.wp.getType());
  int64_t numTiles = wpType.getDimSize(0), kp = wpType.getDimSize(1);
  int64_t blockTiles = config.getCacheCols() / 16;
  int64_t kpBlock = std::min(kp, config.getKBlock() / 2);
  int64_t colBlocks = llvm::divideCeil(numTiles, blockTiles);
  Value rows = memref::DimOp::create(b, loc, m.a, 0);
  std::optional<int64_t> aRowStride = staticStride(aRows, m.rowDims - 1),
                         cRowStride = staticStride(cRows, m.rowDims - 1);
  if (!aRowStride || !cRowStride) {
    op.emitError("-tfm-cpu-lower-amx: the rows of an AMX contraction's "
                 "operands must have a static stride, got ")
        << aRows.getType() << " and " << cRows.getType();
    return failure();
  }
  Value aStride = e.idx(*aRowStride), cStride = e.idx(*cRowStride);
  // C just filled with zeros (the whole buffer) and one k block: the
  // accumulators start from tilezero and the fill goes.
  if (kpBlock >= kp)
    if (linalg::FillOp fill = zeroFillOf(op, cRows)) {
      fill->erase();
      e.zeroInit = true;
    }
  Value one = e.idx(1);
  bool parallel = config.getParallelRows() > 0;
  Value rowBlock = parallel ? e.idx(config.getParallelRows()) : rows;
  // Blocks of rows by columns: a forall (threads) or two serial loops.
  Value rowBlocks =
      parallel ? arith::CeilDivUIOp::create(b, loc, rows, rowBlock).getResult()
               : one;

  auto body = [&](OpBuilder &, Value rb, Value cb) {
    Value r0 = arith::MulIOp::create(b, loc, rb, rowBlock);
    Value r1 = arith::MinUIOp::create(b, loc, e.add(r0, rowBlock), rows);
    Value t0 = arith::MulIOp::create(b, loc, cb, e.idx(blockTiles));
    Value t1 =
        arith::MinUIOp::create(b, loc, e.add(t0, blockTiles), e.idx(numTiles));
    // Whole 32-row steps, then the rest (dot products or a scratch, below).
    Value span = arith::SubIOp::create(b, loc, r1, r0);
    Value whole = arith::MulIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, span, e.idx(32)), e.idx(32));
    Value rWhole = e.add(r0, whole);
    scf::ForOp::create(b, loc, r0, rWhole, e.idx(32), ValueRange{},
                       [&](OpBuilder &nb, Location l, Value r, ValueRange) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPoint(scf::YieldOp::create(nb, l));
                         KernelOperands o{
                             m.a,    r,       aStride, m.c,
                             r,      Value(), cStride, dots ? wpDots : m.wp,
                             Value()};
                         e.columns(o, t0, t1, t0, kp, kpBlock, dots ? 32 : 0);
                       });
    Value rest = arith::SubIOp::create(b, loc, r1, rWhole);
    // Dot products cost in proportion to the rows they run, and read A and
    // C in place: kernels of 8 rows while 8 are left, then one of 4, 2 and 1
    // for each bit of the count left (a decode step's one row per sequence:
    // one 1-row kernel, where a tile kernel costs 32 rows); only the kernels
    // that at most `tailDotRows` rows can need.
    auto dotRows = [&]() {
      auto rowsAt = [&](Value row, int64_t count) {
        KernelOperands o{m.a,     row,     aStride, m.c,    row,
                         Value(), cStride, wpDots,  Value()};
        e.columns(o, t0, t1, t0, kp, kpBlock, count);
      };
      Value row = rWhole;
      if (tailDotRows >= 8) {
        Value groups = arith::DivUIOp::create(b, loc, rest, e.idx(8));
        scf::ForOp::create(
            b, loc, e.idx(0), groups, one, ValueRange{},
            [&](OpBuilder &nb, Location l, Value g, ValueRange) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPoint(scf::YieldOp::create(nb, l));
              rowsAt(e.add(rWhole, arith::MulIOp::create(b, loc, g, e.idx(8))),
                     8);
            });
        row = e.add(rWhole, arith::MulIOp::create(b, loc, groups, e.idx(8)));
      }
      for (int64_t count : {4, 2, 1}) {
        if (count > tailDotRows)
          continue;
        Value bit = arith::AndIOp::create(b, loc, rest, e.idx(count));
        Value set = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit,
                                          e.idx(0));
        Value at = row;
        scf::IfOp::create(b, loc, set, [&](OpBuilder &nb, Location l) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPoint(scf::YieldOp::create(nb, l));
          rowsAt(at, count);
        });
        row = e.add(row, bit);
      }
    };
    if (dots) {
      dotRows();
      return;
    }
    // Tiles: the last rows through a 32-row scratch (its A rows zeroed),
    // built at b's insertion point; with tail_dot_rows, at most that many
    // on dot products instead.
    auto scratchRows = [&]() {
      MLIRContext *ctx = b.getContext();
      Type bf16 = BFloat16Type::get(ctx), f32 = Float32Type::get(ctx);
      auto aType = MemRefType::get({32, kp, 2}, bf16);
      auto cType = MemRefType::get({32, blockTiles, 16}, f32);
      Value aScratch =
          memref::AllocOp::create(b, loc, aType, b.getI64IntegerAttr(64));
      Value cScratch =
          memref::AllocOp::create(b, loc, cType, b.getI64IntegerAttr(64));
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
      linalg::FillOp::create(b, loc, zero, aScratch);
      Value tiles = arith::SubIOp::create(b, loc, t1, t0);
      auto rowsOf = [&](Value v, Value row, Value count, Value tile,
                        Value ntiles) -> Value {
        auto type = cast<MemRefType>(v.getType());
        SmallVector<OpFoldResult> offsets{row}, sizes{count},
            strides(type.getRank(), b.getIndexAttr(1));
        for (int64_t d = 1; d < type.getRank(); ++d) {
          bool tileDim = tile && d == 1;
          offsets.push_back(tileDim ? OpFoldResult(tile) : b.getIndexAttr(0));
          sizes.push_back(tileDim ? OpFoldResult(ntiles)
                                  : b.getIndexAttr(type.getDimSize(d)));
        }
        return memref::SubViewOp::create(b, loc, v, offsets, sizes, strides);
      };
      Value zeroIdx = e.idx(0);
      linalg::CopyOp::create(b, loc, rowsOf(m.a, rWhole, rest, {}, {}),
                             rowsOf(aScratch, zeroIdx, rest, {}, {}));
      Value cRows = rowsOf(m.c, rWhole, rest, t0, tiles);
      Value cScratchRows = rowsOf(cScratch, zeroIdx, rest, zeroIdx, tiles);
      linalg::CopyOp::create(b, loc, cRows, cScratchRows);
      KernelOperands o{aScratch, zeroIdx, e.idx(2 * kp),          cScratch,
                       zeroIdx,  Value(), e.idx(16 * blockTiles), m.wp,
                       Value()};
      e.columns(o, t0, t1, zeroIdx, kp, kpBlock, /*dotRows=*/0);
      linalg::CopyOp::create(b, loc, cScratchRows, cRows);
      memref::DeallocOp::create(b, loc, aScratch);
      memref::DeallocOp::create(b, loc, cScratch);
    };
    // Scratch if any rows are left; with tail_dot_rows, dot products if at
    // most that many (none left runs no kernel), else the scratch.
    bool withDots = tailDotRows > 0;
    Value cond = withDots
                     ? arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule,
                                             rest, e.idx(tailDotRows))
                     : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ugt,
                                             rest, e.idx(0));
    auto choice = scf::IfOp::create(b, loc, cond, withDots);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(choice.thenBlock());
    if (!withDots) {
      scratchRows();
      return;
    }
    dotRows();
    b.setInsertionPointToStart(choice.elseBlock());
    scratchRows();
  };

  if (parallel) {
    // Built without a body builder, so that it has its terminator.
    auto forall = scf::ForallOp::create(
        b, loc, ArrayRef<OpFoldResult>{rowBlocks, b.getIndexAttr(colBlocks)},
        ValueRange{}, std::nullopt);
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(forall.getBody()->getTerminator());
    body(b, forall.getInductionVar(0), forall.getInductionVar(1));
  } else {
    scf::ForOp::create(b, loc, e.idx(0), e.idx(colBlocks), one, ValueRange{},
                       [&](OpBuilder &nb, Location l, Value cb, ValueRange) {
                         OpBuilder::InsertionGuard guard(b);
                         b.setInsertionPoint(scf::YieldOp::create(nb, l));
                         body(b, e.idx(0), cb);
                       });
  }
  op->erase();
  return success();
}

/// The AMX ops and the scf loops that carry tiles, to LLVM: upstream's
/// convert-vector-to-llvm converts the ops but not tiles carried by loops
/// once convert-scf-to-cf has made them block arguments.
struct CpuConvertAmxToLLVMPass
    : tfm::impl::CpuConvertAmxToLLVMPassBase<CpuConvertAmxToLLVMPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    LLVMTypeConverter converter(ctx);
    RewritePatternSet patterns(ctx);
    LLVMConversionTarget target(*ctx);
    populateAMXLegalizeForLLVMExportPatterns(converter, patterns);
    configureAMXLegalizeForExportTarget(target);
    scf::populateSCFStructuralTypeConversionsAndLegality(converter, patterns,
                                                         target);
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};

} // namespace
