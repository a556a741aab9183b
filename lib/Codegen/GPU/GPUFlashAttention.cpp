//===- GPUFlashAttention.cpp - attention on tensor cores ------------------===//
//
// A tfm.attention that -tfm-configure-attention gave a
// #tfm.gpu_flash_attention (16-bit Q, K, V on sm_80+) goes on buffers
// before bufferization (-tfm-gpu-bufferize-attention: a
// tfm.attention_kernel) and becomes, after it, one gpu.launch
// (-tfm-gpu-flash-attention) written the way FlashAttention-2 writes it: every
// warp owns `row_tiles` tiles of 16 of the block's (query, head) rows and
// keeps their Q fragments, scores, running maximum and sum and output
// accumulators in registers; S = Q K^T and O += P V are mma.sync m16n8k16
// products; the scores become P V's A fragments in registers; K and V blocks
// are staged in shared memory by cp.async, the next block in flight while the
// current one is used. The key blocks a mask hides are not visited; only the
// blocks at a mask's edges are masked. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmBuildUtils.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <cfloat>

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUBUFFERIZEATTENTIONPASS
#define GEN_PASS_DEF_GPUFLASHATTENTIONPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Index arithmetic at one location; folds as it builds.
struct IndexMath {
  OpBuilder &b;
  Location loc;
  Value c(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value add(Value x, Value y) {
    return b.createOrFold<arith::AddIOp>(loc, x, y);
  }
  Value add(Value x, int64_t y) { return y ? add(x, c(y)) : x; }
  Value sub(Value x, Value y) {
    return b.createOrFold<arith::SubIOp>(loc, x, y);
  }
  Value mul(Value x, Value y) {
    return b.createOrFold<arith::MulIOp>(loc, x, y);
  }
  Value mul(Value x, int64_t y) { return y == 1 ? x : mul(x, c(y)); }
  Value div(Value x, int64_t y) {
    return y == 1 ? x : b.createOrFold<arith::DivUIOp>(loc, x, c(y));
  }
  Value rem(Value x, int64_t y) {
    return y == 1 ? c(0) : b.createOrFold<arith::RemUIOp>(loc, x, c(y));
  }
  Value min(Value x, Value y) {
    return b.createOrFold<arith::MinSIOp>(loc, x, y);
  }
  Value max(Value x, Value y) {
    return b.createOrFold<arith::MaxSIOp>(loc, x, y);
  }
  Value clamp(Value v, Value lo, Value hi) { return min(max(v, lo), hi); }
  Value ceilDiv(Value x, Value y) {
    return b.createOrFold<arith::CeilDivSIOp>(loc, x, y);
  }
  Value lt(Value x, Value y) {
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, y);
  }
  Value select(Value cond, Value x, Value y) {
    return b.createOrFold<arith::SelectOp>(loc, cond, x, y);
  }
};

/// A buffer view of tensor `t` (identity layout) for the kernel to read.
Value bufferOf(OpBuilder &b, Location loc, Value t) {
  auto type = cast<RankedTensorType>(t.getType());
  return bufferization::ToBufferOp::create(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()), t,
      /*read_only=*/true);
}

/// `x` combined over the 4 lanes of this lane's quad (the lanes holding one
/// fragment row) by xor shuffles 1 and 2: their maximum (NaN ignored) or
/// sum.
Value quadReduce(OpBuilder &b, Location loc, Value x, bool isMax) {
  for (int32_t offset : {1, 2}) {
    Value other =
        gpu::ShuffleOp::create(
            b, loc, x, arith::ConstantIntOp::create(b, loc, offset, 32),
            arith::ConstantIntOp::create(b, loc, 32, 32), gpu::ShuffleMode::XOR)
            .getShuffleResult();
    x = isMax ? arith::MaxNumFOp::create(b, loc, x, other).getResult()
              : arith::AddFOp::create(b, loc, x, other).getResult();
  }
  return x;
}

/// Builds the kernel of one tfm.attention_kernel. Lane l of a warp (group
/// g = l / 4, thread t = l % 4) holds, of each 16 x 8 fragment of the
/// scores and the output, rows g and g + 8 at columns 2t and 2t + 1
/// (mma.sync m16n8k16's C layout).
class FlashKernelBuilder {
public:
  FlashKernelBuilder(AttentionKernelOp op, GpuFlashAttentionAttr config)
      : op(op), config(config), loc(op.getLoc()) {}

  LogicalResult build(IRRewriter &rw);

private:
  /// Puts `rows` rows of `src` (a [B, H, T, D] buffer) in flight into
  /// `tile` from tile row `dst0` with 16-byte cp.async copies (their
  /// tokens appended to `tokens`): tile row x takes row `rowAt(x)` of head
  /// `headAt(x)` of this block's batch element, zeros where `validAt(x)`
  /// is false and past column `d`.
  void stage(OpBuilder &b, Value src, Value tile, int64_t rows, int64_t d,
             Value dst0, function_ref<Value(IndexMath &, Value)> headAt,
             function_ref<Value(IndexMath &, Value)> rowAt,
             function_ref<Value(IndexMath &, Value)> validAt,
             SmallVectorImpl<Value> &tokens);
  /// The 16 x 16 (k) fragments of 4 8 x 8 matrices at `tile`[row0, col0]:
  /// matrix q at rows + 8 (q % 2), columns + 8 (q / 2) when `rowsFirst`,
  /// else rows + 8 (q / 2), columns + 8 (q % 2); transposed with `trans`.
  Value ldmatrix(OpBuilder &b, Value tile, Value row0, int64_t col0,
                 bool rowsFirst, bool trans);
  /// The score or output fragments' row `r` (0: g, 1: g + 8) of this
  /// lane in row tile `t` of its warp, as a row of the block.
  Value laneRow(IndexMath &m, int64_t t, int64_t r) {
    return m.add(m.add(m.mul(warp, config.getWarpRows()), laneGroup),
                 16 * t + 8 * r);
  }

  AttentionKernelOp op;
  GpuFlashAttentionAttr config;
  Location loc;
  Type half;
  // Per block and lane.
  Value tid, warp, lane, laneGroup, thread;
  Value batch, headBase, q0;
};

void FlashKernelBuilder::stage(OpBuilder &b, Value src, Value tile,
                               int64_t rows, int64_t d, Value dst0,
                               function_ref<Value(IndexMath &, Value)> headAt,
                               function_ref<Value(IndexMath &, Value)> rowAt,
                               function_ref<Value(IndexMath &, Value)> validAt,
                               SmallVectorImpl<Value> &tokens) {
  IndexMath m{b, loc};
  int64_t perRow = GpuFlashAttentionAttr::getPaddedDim(d) / 8;
  int64_t threads = config.getThreads();
  Type token = nvgpu::DeviceAsyncTokenType::get(b.getContext());
  Value zero = m.c(0), eight = m.c(8), dV = m.c(d);
  for (int64_t l = 0, e = rows * perRow / threads; l < e; ++l) {
    // Copy c: tile row c / perRow, elements 8 (c % perRow) on.
    Value c = m.add(tid, l * threads);
    Value x = m.div(c, perRow);
    Value col = m.mul(m.rem(c, perRow), 8);
    // Elements to read: 8, fewer at the end of the row, none in an invalid
    // row.
    Value count = m.select(validAt(m, x),
                           m.min(m.max(m.sub(dV, col), zero), eight), zero);
    // A copy that reads nothing still names an aligned address in the
    // operand: its first element.
    Value reads =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, count, zero);
    SmallVector<Value> indices{
        m.select(reads, batch, zero), m.select(reads, headAt(m, x), zero),
        m.select(reads, rowAt(m, x), zero), m.select(reads, col, zero)};
    tokens.push_back(nvgpu::DeviceAsyncCopyOp::create(
        b, loc, token, tile, ValueRange{m.add(dst0, x), col}, src, indices,
        b.getIndexAttr(8), count, b.getUnitAttr()));
  }
}

Value FlashKernelBuilder::ldmatrix(OpBuilder &b, Value tile, Value row0,
                                   int64_t col0, bool rowsFirst, bool trans) {
  IndexMath m{b, loc};
  // Lane l names row l % 8 of matrix l / 8.
  Value q = m.div(lane, 8);
  Value rowStep = rowsFirst ? m.rem(q, 2) : m.div(q, 2);
  Value colStep = rowsFirst ? m.div(q, 2) : m.rem(q, 2);
  Value row = m.add(row0, m.add(m.rem(lane, 8), m.mul(rowStep, 8)));
  Value col = m.add(m.mul(colStep, 8), col0);
  return nvgpu::LdMatrixOp::create(b, loc, VectorType::get({4, 2}, half), tile,
                                   ValueRange{row, col}, b.getBoolAttr(trans),
                                   b.getI32IntegerAttr(4))
      .getResult();
}

LogicalResult FlashKernelBuilder::build(IRRewriter &rw) {
  auto qType = cast<MemRefType>(op.getQuery().getType()),
       kType = cast<MemRefType>(op.getKey().getType()),
       vType = cast<MemRefType>(op.getValue().getType()),
       outType = cast<MemRefType>(op.getOutput().getType());
  if (qType.getRank() != 4 || kType.getRank() != 4 || vType.getRank() != 4 ||
      outType.getRank() != 4)
    return op.emitOpError("-tfm-gpu-flash-attention: needs rank-4 query, "
                          "key, value and output buffers");
  half = qType.getElementType();
  if (!(half.isBF16() || half.isF16()) || kType.getElementType() != half ||
      vType.getElementType() != half)
    return op.emitOpError("-tfm-gpu-flash-attention: ")
           << config
           << " needs Q, K and V all bf16 or all f16 (-tfm-apply-precision "
              "stores them so), found "
           << qType << ", " << kType << ", " << vType;
  int64_t hq = qType.getDimSize(1), hkv = kType.getDimSize(1);
  int64_t d = qType.getDimSize(3), dv = vType.getDimSize(3);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) ||
      ShapedType::isDynamic(d) || ShapedType::isDynamic(dv) || d % 8 ||
      dv % 8 || hkv < 1 || hq % hkv)
    return op.emitOpError("-tfm-gpu-flash-attention: ")
           << config
           << " needs static head counts (query heads a multiple of K/V "
              "heads) and head sizes that are multiples of 8 (16-byte "
              "copies), found "
           << qType << " and " << vType;
  for (MemRefType type : {qType, kType, vType})
    if (!hasAlignedRows(type, 8))
      return op.emitOpError("-tfm-gpu-flash-attention: ")
             << config << " copies rows of 8 elements with cp.async, which "
             << "needs contiguous rows aligned to 8 elements, found " << type;
  int64_t group = hq / hkv, heads = config.getHeads(),
          blockQ = config.getBlockQ(), bc = config.getBlockK(),
          rows = config.getRows(), threads = config.getThreads(),
          tiles = config.getRowTiles();
  int64_t dp = GpuFlashAttentionAttr::getPaddedDim(d),
          dvp = GpuFlashAttentionAttr::getPaddedDim(dv);
  if (group % heads)
    return op.emitOpError("-tfm-gpu-flash-attention: ")
           << config << ": 'heads' must divide the " << group
           << " query heads of a K/V group";
  if ((rows * dp / 8) % threads || (bc * dp / 8) % threads ||
      (bc * dvp / 8) % threads)
    return op.emitOpError("-tfm-gpu-flash-attention: ")
           << config << ": the Q tile and the K and V blocks (D = " << d
           << ", Dv = " << dv << ") are not a whole number of 16-byte copies "
           << "for " << threads << " threads";
  MLIRContext *ctx = op.getContext();
  Type f32 = rw.getF32Type(), index = rw.getIndexType();

  rw.setInsertionPoint(op);
  IndexMath hm{rw, loc};
  Value q = op.getQuery(), k = op.getKey(), v = op.getValue();
  Value keyLengths = op.getKeyLengths(), offsets = op.getOffsets(),
        slopes = op.getAlibiSlopes(), bias = op.getBias(), out = op.getOutput();
  Value bsz = memref::DimOp::create(rw, loc, q, 0);
  Value tq = memref::DimOp::create(rw, loc, q, 2);
  Value tk = memref::DimOp::create(rw, loc, k, 2);
  auto workgroup =
      gpu::AddressSpaceAttr::get(ctx, gpu::AddressSpace::Workgroup);
  auto kTileType = MemRefType::get(
      {config.getKeyBufferRows(), GpuFlashAttentionAttr::getStagedRow(d)}, half,
      MemRefLayoutAttrInterface(), workgroup);
  auto vTileType =
      MemRefType::get({2 * bc, GpuFlashAttentionAttr::getStagedRow(dv)}, half,
                      MemRefLayoutAttrInterface(), workgroup);
  bool qShared = config.getQShared();
  SmallVector<Type> tileTypes{kTileType, vTileType};
  if (qShared)
    tileTypes.push_back(
        MemRefType::get({rows, GpuFlashAttentionAttr::getStagedRow(d)}, half,
                        MemRefLayoutAttrInterface(), workgroup));
  // Not a structured binding: the lambdas below capture the builder.
  std::pair<gpu::LaunchOp, OpBuilder> created = createKernelLaunch(
      rw, loc, {hm.ceilDiv(tq, hm.c(blockQ)), hm.c(hkv * (group / heads)), bsz},
      {hm.c(threads), hm.c(1), hm.c(1)}, tileTypes, plannedRegisters(config));
  gpu::LaunchOp launch = created.first;
  OpBuilder &b = created.second;
  launch->setAttr(kLoweringConfigAttr, config);
  Value kTile = launch.getWorkgroupAttributions()[0];
  Value vTile = launch.getWorkgroupAttributions()[1];
  // Q's tile: a buffer of its own with q_shared, else the K buffer's rows
  // until the first key block.
  Value qTile = qShared ? Value(launch.getWorkgroupAttributions()[2]) : kTile;
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  IndexMath m{b, loc};

  tid = launch.getThreadIds().x;
  warp = m.div(tid, 32);
  lane = m.rem(tid, 32);
  laneGroup = m.div(lane, 4);
  thread = m.rem(lane, 4);
  batch = blockIds.z;
  // Block y: K/V head n, and which `heads` of its group.
  Value kvHead = m.div(blockIds.y, group / heads);
  headBase = m.add(m.mul(kvHead, group),
                   m.mul(m.rem(blockIds.y, group / heads), heads));
  q0 = m.mul(blockIds.x, blockQ);
  // Block row x: query q0 + x / heads of head headBase + x % heads.
  auto queryOf = [&](IndexMath &im, Value x) {
    return im.add(q0, im.div(x, heads));
  };
  auto headOf = [&](IndexMath &im, Value x) {
    return im.add(headBase, im.rem(x, heads));
  };
  Value zero = m.c(0);
  auto loadIndex = [&](Value buffer) {
    Value raw = memref::LoadOp::create(b, loc, buffer, ValueRange{batch});
    return arith::IndexCastOp::create(b, loc, index, raw).getResult();
  };
  // Query i sits at key position i + off.
  Value off = offsets ? loadIndex(offsets) : m.sub(tk, tq);
  Value len = keyLengths ? m.clamp(loadIndex(keyLengths), zero, tk) : tk;
  Value bq = m.min(m.c(blockQ), m.sub(tq, q0));

  // The key range, as -tfm-tile-sram's: keys [a, dEnd) are visible to
  // some row of the block, the blocks in [h, ub) whole to every row; the
  // blocks before h and from ub on are masked.
  MaskKind kind = op.getMask();
  std::optional<int64_t> window;
  if (op.getWindow())
    window = static_cast<int64_t>(*op.getWindow());
  Value bcV = m.c(bc);
  KeyBlockRange keys =
      buildKeyBlockRange(b, loc, kind, window, q0, off, bq, len, bc);
  Value a = keys.begin, h = keys.fullBegin, ub = keys.fullEnd, dEnd = keys.end;

  // Q: staged in its tile; without q_shared (the K buffer), then into
  // registers (one fragment per 16 of D).
  Type token = nvgpu::DeviceAsyncTokenType::get(ctx);
  {
    SmallVector<Value> tokens;
    stage(
        b, q, qTile, rows, d, zero, headOf, queryOf,
        [&](IndexMath &im, Value x) { return im.lt(queryOf(im, x), tq); },
        tokens);
    Value qGroup =
        nvgpu::DeviceAsyncCreateGroupOp::create(b, loc, token, tokens);
    nvgpu::DeviceAsyncWaitOp::create(b, loc, qGroup, b.getI32IntegerAttr(0));
  }
  gpu::BarrierOp::create(b, loc);
  // Fragment ks / 16 of row tile t: its Q rows in the tile.
  auto qFragment = [&](OpBuilder &fb, int64_t t, int64_t ks) {
    IndexMath fm{fb, loc};
    return ldmatrix(fb, qTile,
                    fm.add(fm.mul(warp, config.getWarpRows()), 16 * t), ks,
                    /*rowsFirst=*/true, /*trans=*/false);
  };
  // Without q_shared, fragment ks / 16 of row tile t is qFrags[t * dp / 16
  // + ks / 16], and the K blocks overwrite the Q tile.
  SmallVector<Value> qFrags;
  if (!qShared) {
    for (int64_t t = 0; t < tiles; ++t)
      for (int64_t ks = 0; ks < dp; ks += 16)
        qFrags.push_back(qFragment(b, t, ks));
    gpu::BarrierOp::create(b, loc);
  }

  // Key block k0 into stage `st`: rows past dEnd are zeros (never NaN
  // times a zero probability).
  Value kvHeadV = kvHead;
  auto issue = [&](OpBuilder &ib, Value k0, Value st) {
    IndexMath im{ib, loc};
    SmallVector<Value> tokens;
    Value dst0 = im.mul(st, bc);
    auto keyOf = [&](IndexMath &xm, Value x) { return xm.add(k0, x); };
    auto headFn = [&](IndexMath &, Value) { return kvHeadV; };
    auto valid = [&](IndexMath &xm, Value x) {
      return xm.lt(keyOf(xm, x), dEnd);
    };
    stage(ib, k, kTile, bc, d, dst0, headFn, keyOf, valid, tokens);
    stage(ib, v, vTile, bc, dv, dst0, headFn, keyOf, valid, tokens);
    return nvgpu::DeviceAsyncCreateGroupOp::create(ib, loc, token, tokens)
        .getResult();
  };
  Value first = issue(b, a, zero);

  // This lane's rows (g and g + 8 of each of its warp's row tiles; row r
  // of tile t is laneRows[2 t + r]): query, head, position among the keys,
  // and ALiBi slope in log2 units.
  struct LaneRow {
    Value query, head, position, slope;
  };
  SmallVector<LaneRow> laneRows;
  for (int64_t i = 0; i < 2 * tiles; ++i) {
    LaneRow lr;
    Value x = laneRow(m, i / 2, i % 2);
    lr.query = queryOf(m, x);
    lr.head = headOf(m, x);
    lr.position = m.add(lr.query, off);
    if (slopes) {
      Value s = memref::LoadOp::create(b, loc, slopes, ValueRange{lr.head});
      lr.slope = arith::MulFOp::create(b, loc, toF32(b, loc, s),
                                       cstF32(b, loc, kLog2E));
    }
    laneRows.push_back(lr);
  }

  // Per row tile t: score fragments s[t * sFrags + n], output fragments
  // o[t * oFrags + dn], and per lane row i = 2 t + r its running maximum
  // and sum.
  int64_t sFrags = bc / 8, oFrags = dvp / 8, qSteps = dp / 16;
  int64_t laneRowCount = 2 * tiles;
  auto accType = VectorType::get({2, 2}, f32);
  Value accZero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accType));
  SmallVector<Value> init(tiles * oFrags, accZero);
  init.append(laneRowCount, cstF32(b, loc, -FLT_MAX));
  init.append(laneRowCount, cstF32(b, loc, 0.0f));
  float scale = static_cast<float>(op.getScale().convertToDouble() * kLog2E);
  // Without a bias or ALiBi, the scores stay unscaled in the key loop: the
  // row maximum of the raw scores times a positive scale is the maximum of
  // the scaled ones, and each probability is exp2(fma(s, scale, -max)), one
  // instruction where scaling first takes two (FlashAttention-2's way).
  bool foldScale = !bias && !slopes && scale > 0.0f;
  // The softmax's exp2 may be approximate (-tfm-approximate-math gives it
  // the GPU's ex2.approx): its results are rounded to 16 bits for P V.
  auto approx = arith::FastMathFlagsAttr::get(ctx, arith::FastMathFlags::afn);

  auto keyLoop = scf::ForOp::create(
      b, loc, a, dEnd, bcV, init,
      [&](OpBuilder &lb, Location, Value k0, ValueRange iters) {
        IndexMath lm{lb, loc};
        int64_t oEnd = tiles * oFrags;
        SmallVector<Value> o(iters.begin(), iters.begin() + oEnd);
        SmallVector<Value> mx(iters.begin() + oEnd,
                              iters.begin() + oEnd + laneRowCount);
        SmallVector<Value> sum(iters.begin() + oEnd + laneRowCount,
                               iters.end());
        Value current = lm.rem(lm.div(lm.sub(k0, a), bc), 2);
        Value groupNext = issue(lb, lm.add(k0, bc), lm.sub(lm.c(1), current));
        nvgpu::DeviceAsyncWaitOp::create(lb, loc, groupNext,
                                         lb.getI32IntegerAttr(1));
        gpu::BarrierOp::create(lb, loc);
        Value base = lm.mul(current, bc);

        // S = Q K^T by 16 of D: Q's fragments of the row tiles (from
        // registers, or with q_shared from its tile), then 8-key
        // fragments of K, two per ldmatrix x4 (matrix q at keys + 8 (q /
        // 2), d + 8 (q % 2)), each for every row tile.
        SmallVector<Value> s(tiles * sFrags, accZero);
        for (int64_t ks = 0; ks < dp; ks += 16) {
          SmallVector<Value> aFrags;
          for (int64_t t = 0; t < tiles; ++t)
            aFrags.push_back(qShared ? qFragment(lb, t, ks)
                                     : qFrags[t * qSteps + ks / 16]);
          for (int64_t n = 0; n < sFrags; n += 2) {
            Value frags = ldmatrix(lb, kTile, lm.add(base, n * 8), ks,
                                   /*rowsFirst=*/false, /*trans=*/false);
            for (int64_t p = 0; p < 2; ++p) {
              Value bFrag = vector::ExtractStridedSliceOp::create(
                  lb, loc, frags, ArrayRef<int64_t>{2 * p, 0},
                  ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1});
              for (int64_t t = 0; t < tiles; ++t) {
                Value &acc = s[t * sFrags + n + p];
                acc = nvgpu::MmaSyncOp::create(lb, loc, aFrags[t], bFrag, acc,
                                               ArrayRef<int64_t>{16, 8, 16});
              }
            }
          }
        }

        // Scores in log2 units (unless the scale is folded into the
        // softmax), with bias and ALiBi; in masked blocks, -inf where the
        // mask hides the key. `fn` gets each score, its lane row (2 t + r)
        // and its key.
        auto elementwise =
            [&](OpBuilder &eb, SmallVector<Value> &frags,
                function_ref<Value(OpBuilder &, Value, int64_t, Value)> fn) {
              IndexMath em{eb, loc};
              for (int64_t t = 0; t < tiles; ++t)
                for (int64_t n = 0; n < sFrags; ++n) {
                  Value &frag = frags[t * sFrags + n];
                  SmallVector<Value> elements;
                  for (int64_t r = 0; r < 2; ++r)
                    for (int64_t cc = 0; cc < 2; ++cc) {
                      Value x = vector::ExtractOp::create(
                          eb, loc, frag, ArrayRef<int64_t>{r, cc});
                      Value j =
                          em.add(em.add(k0, em.mul(thread, 2)), n * 8 + cc);
                      elements.push_back(fn(eb, x, 2 * t + r, j));
                    }
                  frag = vector::FromElementsOp::create(eb, loc, accType,
                                                        elements);
                }
            };
        if (!foldScale)
          elementwise(lb, s, [&](OpBuilder &eb, Value x, int64_t i, Value j) {
            IndexMath em{eb, loc};
            x = arith::MulFOp::create(eb, loc, x, cstF32(eb, loc, scale));
            const LaneRow &lr = laneRows[i];
            if (bias) {
              Value qc = em.min(lr.query, em.sub(tq, em.c(1)));
              Value jc = em.min(j, em.sub(tk, em.c(1)));
              Value bv = memref::LoadOp::create(
                  eb, loc, bias, ValueRange{batch, lr.head, qc, jc});
              x = arith::AddFOp::create(eb, loc, x, buildLog2Bias(eb, loc, bv));
            }
            if (lr.slope) {
              Value dist = indexToF32(eb, loc, em.sub(lr.position, j));
              Value pen = arith::MulFOp::create(
                  eb, loc, lr.slope, math::AbsFOp::create(eb, loc, dist));
              x = arith::SubFOp::create(eb, loc, x, pen);
            }
            return x;
          });
        Value masked = arith::OrIOp::create(
            lb, loc, lm.lt(k0, h),
            arith::CmpIOp::create(lb, loc, arith::CmpIPredicate::sgt,
                                  lm.add(k0, bc), ub));
        auto ifMasked = scf::IfOp::create(
            lb, loc, SmallVector<Type>(tiles * sFrags, accType), masked,
            /*withElseRegion=*/true);
        {
          OpBuilder tb = OpBuilder::atBlockBegin(ifMasked.thenBlock());
          SmallVector<Value> hidden = s;
          elementwise(
              tb, hidden, [&](OpBuilder &eb, Value x, int64_t i, Value j) {
                const LaneRow &lr = laneRows[i];
                Value vis = buildKeyVisible(
                    eb, loc, kind, window,
                    MaskPoint{lr.query, j, off, dEnd, lr.position, Value()});
                return arith::SelectOp::create(eb, loc, vis, x,
                                               cstF32(eb, loc, -INFINITY))
                    .getResult();
              });
          scf::YieldOp::create(tb, loc, hidden);
          OpBuilder eb = OpBuilder::atBlockBegin(ifMasked.elseBlock());
          scf::YieldOp::create(eb, loc, s);
        }
        s.assign(ifMasked.getResults().begin(), ifMasked.getResults().end());

        // Online softmax per row: the block's row maximum over the quad's
        // 4 lanes (xor shuffles 1, 2), the new running maximum, the
        // rescale factor, P = exp2(S - max), the lane's share of the sum.
        SmallVector<Value> alpha(laneRowCount);
        for (int64_t i = 0; i < laneRowCount; ++i) {
          int64_t t = i / 2, r = i % 2;
          Value blockMax = cstF32(lb, loc, -INFINITY);
          for (int64_t n = 0; n < sFrags; ++n)
            for (int64_t cc = 0; cc < 2; ++cc)
              blockMax = arith::MaxNumFOp::create(
                  lb, loc, blockMax,
                  vector::ExtractOp::create(lb, loc, s[t * sFrags + n],
                                            ArrayRef<int64_t>{r, cc}));
          blockMax = quadReduce(lb, loc, blockMax, /*isMax=*/true);
          if (foldScale)
            blockMax = arith::MulFOp::create(lb, loc, blockMax,
                                             cstF32(lb, loc, scale));
          Value next = arith::MaximumFOp::create(lb, loc, mx[i], blockMax);
          alpha[i] = math::Exp2Op::create(
              lb, loc, arith::SubFOp::create(lb, loc, mx[i], next), approx);
          mx[i] = next;
        }
        SmallVector<Value> rowSum(laneRowCount, cstF32(lb, loc, 0.0f));
        SmallVector<Value> negMax;
        if (foldScale)
          for (Value m : mx)
            negMax.push_back(arith::NegFOp::create(lb, loc, m));
        elementwise(lb, s, [&](OpBuilder &eb, Value x, int64_t i, Value) {
          // x * scale - max in one fma when the scale is folded.
          Value shifted =
              foldScale ? math::FmaOp::create(eb, loc, x,
                                              cstF32(eb, loc, scale), negMax[i])
                              .getResult()
                        : arith::SubFOp::create(eb, loc, x, mx[i]).getResult();
          Value p = math::Exp2Op::create(eb, loc, shifted, approx);
          rowSum[i] = arith::AddFOp::create(eb, loc, rowSum[i], p);
          return p;
        });
        for (int64_t i = 0; i < laneRowCount; ++i)
          sum[i] = arith::AddFOp::create(
              lb, loc, arith::MulFOp::create(lb, loc, sum[i], alpha[i]),
              rowSum[i]);
        for (int64_t t = 0; t < tiles; ++t) {
          Value rescale = vector::FromElementsOp::create(
              lb, loc, accType,
              ValueRange{alpha[2 * t], alpha[2 * t], alpha[2 * t + 1],
                         alpha[2 * t + 1]});
          for (int64_t dn = 0; dn < oFrags; ++dn) {
            Value &frag = o[t * oFrags + dn];
            frag = arith::MulFOp::create(lb, loc, frag, rescale);
          }
        }

        // O += P V: P's A fragments from the score fragments 2kk and
        // 2kk + 1 (their C layout is A's, rounded to 16 bits); V's B
        // fragments with ldmatrix.trans, two 8-wide fragments per x4
        // (matrix q at keys + 8 (q % 2), columns + 8 (q / 2)).
        auto aType = VectorType::get({4, 2}, half);
        for (int64_t kk = 0; kk < bc / 16; ++kk) {
          SmallVector<Value> pFrags;
          for (int64_t t = 0; t < tiles; ++t) {
            SmallVector<Value> elements;
            for (int64_t n : {2 * kk, 2 * kk + 1})
              for (int64_t r = 0; r < 2; ++r)
                for (int64_t cc = 0; cc < 2; ++cc)
                  elements.push_back(arith::TruncFOp::create(
                      lb, loc, half,
                      vector::ExtractOp::create(lb, loc, s[t * sFrags + n],
                                                ArrayRef<int64_t>{r, cc})));
            pFrags.push_back(
                vector::FromElementsOp::create(lb, loc, aType, elements));
          }
          for (int64_t dn = 0; dn < oFrags; dn += 2) {
            Value frags = ldmatrix(lb, vTile, lm.add(base, kk * 16), dn * 8,
                                   /*rowsFirst=*/true, /*trans=*/true);
            for (int64_t p = 0; p < 2; ++p) {
              Value bFrag = vector::ExtractStridedSliceOp::create(
                  lb, loc, frags, ArrayRef<int64_t>{2 * p, 0},
                  ArrayRef<int64_t>{2, 2}, ArrayRef<int64_t>{1, 1});
              for (int64_t t = 0; t < tiles; ++t) {
                Value &acc = o[t * oFrags + dn + p];
                acc = nvgpu::MmaSyncOp::create(lb, loc, pFrags[t], bFrag, acc,
                                               ArrayRef<int64_t>{16, 8, 16});
              }
            }
          }
        }
        // The next iteration's copies overwrite this stage.
        gpu::BarrierOp::create(lb, loc);
        SmallVector<Value> results = o;
        llvm::append_range(results, mx);
        llvm::append_range(results, sum);
        scf::YieldOp::create(lb, loc, results);
      });
  // The copies of the block after the last are still in flight.
  nvgpu::DeviceAsyncWaitOp::create(b, loc, first, b.getI32IntegerAttr(0));

  // out = O / l (0 for a row with no visible key).
  Type outElement = outType.getElementType();
  Value zeroF = cstF32(b, loc, 0.0f);
  for (int64_t i = 0; i < laneRowCount; ++i) {
    int64_t t = i / 2, r = i % 2;
    Value total =
        quadReduce(b, loc, keyLoop.getResult(tiles * oFrags + laneRowCount + i),
                   /*isMax=*/false);
    const LaneRow &lr = laneRows[i];
    Value rowIn = m.lt(lr.query, tq);
    Value positive =
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, total, zeroF);
    for (int64_t dn = 0; dn < oFrags; ++dn)
      for (int64_t cc = 0; cc < 2; ++cc) {
        Value col = m.add(m.mul(thread, 2), dn * 8 + cc);
        Value inBounds =
            arith::AndIOp::create(b, loc, rowIn, m.lt(col, m.c(dv)));
        Value x = vector::ExtractOp::create(b, loc,
                                            keyLoop.getResult(t * oFrags + dn),
                                            ArrayRef<int64_t>{r, cc});
        Value y = arith::SelectOp::create(
            b, loc, positive, arith::DivFOp::create(b, loc, x, total), zeroF);
        if (outElement != f32)
          y = arith::TruncFOp::create(b, loc, outElement, y);
        auto guard = scf::IfOp::create(b, loc, inBounds);
        OpBuilder gb = OpBuilder::atBlockTerminator(guard.thenBlock());
        memref::StoreOp::create(gb, loc, y, out,
                                ValueRange{batch, lr.head, lr.query, col});
      }
  }

  rw.eraseOp(op);
  return success();
}

struct GPUBufferizeAttentionPass
    : tfm::impl::GPUBufferizeAttentionPassBase<GPUBufferizeAttentionPass> {
  using Base::Base;
  GPUBufferizeAttentionPass(const GPUBufferizeAttentionPass &other)
      : Base(other) {}

  void runOnOperation() override {
    SmallVector<AttentionOp> ops;
    getOperation()->walk([&](AttentionOp op) {
      if (isa_and_nonnull<GpuFlashAttentionAttr>(
              op->getAttr(kLoweringConfigAttr)))
        ops.push_back(op);
    });
    IRRewriter rw(&getContext());
    for (AttentionOp op : ops) {
      Location loc = op.getLoc();
      rw.setInsertionPoint(op);
      auto bufferOrNull = [&](Value t) {
        return t ? bufferOf(rw, loc, t) : Value();
      };
      RankedTensorType outType = op.getResult().getType();
      SmallVector<Value> sizes;
      for (int64_t i = 0; i < outType.getRank(); ++i)
        if (outType.isDynamicDim(i))
          sizes.push_back(tensor::DimOp::create(
              rw, loc, i == 3 ? op.getValue() : op.getQuery(), i));
      Value out = memref::AllocOp::create(
          rw, loc,
          MemRefType::get(outType.getShape(), outType.getElementType()), sizes);
      auto kernel = AttentionKernelOp::create(
          rw, loc, bufferOf(rw, loc, op.getQuery()),
          bufferOf(rw, loc, op.getKey()), bufferOf(rw, loc, op.getValue()),
          bufferOrNull(op.getKeyLengths()), bufferOrNull(op.getOffsets()),
          bufferOrNull(op.getAlibiSlopes()), bufferOrNull(op.getBias()), out,
          op.getScaleAttr(), op.getMaskAttr(), op.getWindowAttr());
      kernel->setAttr(kLoweringConfigAttr, op->getAttr(kLoweringConfigAttr));
      rw.replaceOp(op, bufferization::ToTensorOp::create(rw, loc, outType, out,
                                                         rw.getUnitAttr(),
                                                         rw.getUnitAttr()));
      ++bufferized;
    }
  }

  PassStatistic bufferized{this, numBufferized, "bufferized",
                           "tfm.attention ops put on buffers"};
};

struct GPUFlashAttentionPass
    : tfm::impl::GPUFlashAttentionPassBase<GPUFlashAttentionPass> {
  using Base::Base;
  GPUFlashAttentionPass(const GPUFlashAttentionPass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<AttentionKernelOp> ops;
    getOperation()->walk([&](AttentionKernelOp op) { ops.push_back(op); });
    IRRewriter rw(&getContext());
    for (AttentionKernelOp op : ops) {
      auto config =
          op->getAttrOfType<GpuFlashAttentionAttr>(kLoweringConfigAttr);
      if (!config) {
        op.emitOpError("-tfm-gpu-flash-attention: has no ")
            << kLoweringConfigAttr << " #tfm.gpu_flash_attention";
        return signalPassFailure();
      }
      if (failed(FlashKernelBuilder(op, config).build(rw)))
        return signalPassFailure();
      ++kernels;
    }
  }

  PassStatistic kernels{this, numKernels, "kernels",
                        "tfm.attention_kernel ops built into tensor-core "
                        "kernels"};
};

} // namespace
