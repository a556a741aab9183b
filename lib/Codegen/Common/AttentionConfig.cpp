//===- AttentionConfig.cpp - choose the tiles of each tfm.attention -------===//
//
// -tfm-configure-attention: the configuration half of attention tiling. For
// each tfm.attention it reads the module's target, picks query and key
// block sizes whose working set fits the target's fast memory, and records
// them as #tfm.attention_tiling; -tfm-tile-sram (TileSram.cpp) builds the
// loop nest from that alone. A new target adds its fast-memory rule to
// attentionBudget() below.
//
//===----------------------------------------------------------------------===//

#include "AttentionShape.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "llvm/ADT/bit.h"

#include <algorithm>

namespace mlir::tfm {
#define GEN_PASS_DEF_CONFIGUREATTENTIONPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

FailureOr<AttentionShape> mlir::tfm::analyzeAttention(AttentionOp op) {
  RankedTensorType q = op.getQuery().getType(), k = op.getKey().getType(),
                   v = op.getValue().getType();
  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  int64_t d = q.getDimSize(3), dv = v.getDimSize(3);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv) ||
      ShapedType::isDynamic(d) || ShapedType::isDynamic(dv))
    return op.emitOpError(
               "cannot be tiled: head counts ('query' dim 1, 'key' dim 1) "
               "and head sizes ('query' dim 3, 'value' dim 3) must be "
               "static, found ")
           << q << " and " << v;
  if (hkv < 1 || hq % hkv != 0)
    return op.emitOpError("cannot be tiled: query heads (")
           << hq << ") are not a multiple of K/V heads (" << hkv << ")";
  AttentionShape s;
  s.group = op.getGroupSize();
  s.headDim = d;
  s.valueDim = dv;
  s.biasBytes = 0;
  if (Value bias = op.getBias())
    s.biasBytes = (cast<RankedTensorType>(bias.getType())
                       .getElementType()
                       .getIntOrFloatBitWidth() +
                   7) /
                  8;
  s.staticTq = q.getDimSize(2);
  s.staticTk = k.getDimSize(2);
  return s;
}

/// The scaled f32 Q tile, one f32 K and V block, the f32 score tile, the f32
/// accumulator, four f32 rows (running max, running sum, block max, rescale
/// factor), and the bias tile; with rounded inputs, rounded copies of the
/// contractions' inputs: the Q tile, the probabilities, the K and V blocks.
int64_t mlir::tfm::attentionFootprintBytes(const AttentionShape &s,
                                           int64_t br, int64_t bc) {
  int64_t m = s.group * br;
  int64_t bytes = 4 * m * s.headDim + 4 * bc * (s.headDim + s.valueDim) +
                  4 * m * bc + 4 * m * s.valueDim + 4 * 4 * m +
                  s.biasBytes * m * bc;
  if (s.roundedInputs) // a rounded copy of each contraction input
    bytes += 4 * m * s.headDim + 4 * m * bc + 4 * bc * (s.headDim + s.valueDim);
  return bytes;
}

/// Candidate block sizes: `cap` itself and the powers of two (times
/// `unit`) below it, largest first.
static SmallVector<int64_t> candidates(int64_t cap, int64_t unit) {
  SmallVector<int64_t> c{cap};
  for (int64_t p = unit; p < cap; p *= 2)
    c.push_back(p);
  std::sort(c.begin(), c.end(), std::greater<int64_t>());
  c.erase(std::unique(c.begin(), c.end()), c.end());
  return c;
}

std::optional<AttentionTiles>
mlir::tfm::chooseAttentionTiles(const AttentionShape &s, int64_t budget,
                                int64_t lanes, int64_t maxBq, int64_t maxBk,
                                bool squareTies) {
  int64_t capQ = maxBq, capK = llvm::alignTo(maxBk, lanes);
  if (!ShapedType::isDynamic(s.staticTq) && s.staticTq > 0)
    capQ = std::min(capQ, s.staticTq);
  if (!ShapedType::isDynamic(s.staticTk) && s.staticTk > 0)
    capK =
        std::min(capK, static_cast<int64_t>(llvm::alignTo(s.staticTk, lanes)));
  // How far from square the score tile of `r` query rows per head and `c`
  // keys is.
  auto skew = [&](int64_t r, int64_t c) {
    double rows = double(s.group * r);
    return std::max(rows, double(c)) / std::min(rows, double(c));
  };
  // Whether br x bc is a better tile than `b`: larger, then (squareTies)
  // squarer, then with the larger Br.
  auto better = [&](int64_t br, int64_t bc, const AttentionTiles &b) {
    if (br * bc != b.blockQ * b.blockK)
      return br * bc > b.blockQ * b.blockK;
    if (squareTies && skew(br, bc) != skew(b.blockQ, b.blockK))
      return skew(br, bc) < skew(b.blockQ, b.blockK);
    return br > b.blockQ;
  };
  std::optional<AttentionTiles> best;
  for (int64_t br : candidates(capQ, 1)) {
    for (int64_t bc : candidates(capK, lanes)) {
      int64_t f = attentionFootprintBytes(s, br, bc);
      if (f > budget)
        continue;
      if (!best || better(br, bc, *best))
        best = AttentionTiles{br, bc, f};
    }
  }
  return best;
}

namespace {

/// What a target offers one tile's working set: bytes of fast memory and
/// the f32 lanes a key block must be a multiple of.
struct FastMemory {
  int64_t bytes;
  int64_t lanes;
};

/// The target's rule. CPU: an eighth of the per-core L2 (256 KiB of 2 MiB:
/// 128 x 128 tiles for D = 64, 128 x 64 for D = 128). With the vectorized
/// online softmax the per-key-block costs (row reductions, rescaling, loop
/// overhead) favour long key blocks: 7-12 % faster than L2 / 16 (128 x 32
/// and 64 x 32 tiles), see docs/performance.md. Key blocks are whole
/// vectors (an op with query tiles gets at least kCpuMinTileBudget where
/// L2 is large enough: cpuTileBudget). With `amxBf16` (bf16 on a CPU with
/// AMX or AVX512-BF16: -tfm-pack-amx puts the key blocks' contractions on
/// tiles or vector dot products) half of L2 and key blocks of 32: a
/// key block is the k of P V's tile kernel and the n of Q K^T's (both
/// multiples of 32), and the tiles make the contractions cheap enough that
/// the softmax's per-block costs dominate: on a 1 MiB L2, 128 x 128 tiles
/// ran 262 GFLOP/s where L2 / 8's 64 x 32 ran 214 (D = 64, T = 512) and
/// L2 / 4 picked 32-key blocks too short for tiles at D = 128 (92 against
/// 319; docs/performance.md).
/// GPU: the static shared memory of one block (the tiles are a CTA's
/// workgroup buffers, -tfm-gpu-map-attention); key blocks are whole warps.
std::optional<FastMemory> attentionBudget(Attribute target, bool amxBf16) {
  if (auto cpu = dyn_cast_or_null<CpuTargetAttr>(target)) {
    if (amxBf16)
      return FastMemory{cpu.getL2Bytes() / 2, 32};
    return FastMemory{cpu.getL2Bytes() / 8,
                      std::max<int64_t>(1, cpu.getVectorBits() / 32)};
  }
  if (auto gpu = dyn_cast_or_null<GpuTargetAttr>(target))
    return FastMemory{gpu.getSharedMemoryBytes(), 32};
  return std::nullopt;
}

/// The least fast memory a CPU query tile (not a decode step's one row)
/// gets on an L2 of four times as much or more: L2 / 8 of a 512 KiB L2
/// (Zen 3) gave D = 128 tiles of 32 x 16 (two AVX2 vectors of keys), whose
/// online softmax's per-block costs ran 1.02-1.13x slower than 64 x 32 in
/// 128 KiB (f32; bf16 1.05-1.22x); L2 / 2 lost 12 % on causal T = 512, and
/// decode steps (32 keys against 64) ran 0.93-0.98x with it
/// (docs/performance.md, session 36). On the 1-2 MiB L2s where L2 / 8 was
/// measured it is at least this already: nothing changes there.
constexpr int64_t kCpuMinTileBudget = 128 * 1024;

/// The fast memory of `op`'s tile on CPU target `cpu` whose key blocks run
/// the f32 kernels, from the target's rule `ruleBytes` (L2 / 8).
static int64_t cpuTileBudget(CpuTargetAttr cpu, const AttentionShape &s,
                             int64_t ruleBytes) {
  if (s.staticTq == 1 || cpu.getL2Bytes() < 4 * kCpuMinTileBudget)
    return ruleBytes;
  return std::max(ruleBytes, kCpuMinTileBudget);
}

/// The block shape of the FlashAttention-2 kernel: warps, 16-row tiles per
/// warp, the largest key block, where Q's fragments live, and a cap on the
/// f32 score and output accumulators per thread (0: none).
///
/// The built-in shape, measured on an H200 against 4 warps of one tile with
/// Q in registers (docs/performance.md, 2026-11-27 session 21): two tiles
/// per warp halve the K and V fragment loads per mma.sync and the key
/// blocks' trips through L2 per query row, and Q in shared memory leaves the
/// registers to the accumulators (FlashAttention-2's choice): 0.74 -> 0.85
/// of SDPA's flash backend. The cap keeps ptxas under 255 registers without
/// spills: 160 accumulators (D = 128 with 32-key blocks) fit, 192 (D = 128
/// with 64-key blocks) spill.
struct FlashShape {
  int64_t warps = 4, rowTiles = 2, maxBlockK = 64;
  bool qShared = true;
  int64_t maxAccumulators = 160;
};

/// The FlashAttention-2 schedule of an op of shape `s` (Passes.td), or
/// null where it does not apply: head sizes not multiples of 8 (16-byte
/// copies), or no key block whose buffers fit `budget`, whose K and V
/// blocks are a whole number of 16-byte copies per thread and whose
/// accumulators are within the shape's cap.
static GpuFlashAttentionAttr chooseFlash(MLIRContext *ctx,
                                         const AttentionShape &s,
                                         int64_t budget, FlashShape shape) {
  if (s.headDim % 8 || s.valueDim % 8)
    return {};
  int64_t rows = 16 * shape.warps * shape.rowTiles;
  int64_t heads = 1;
  for (int64_t h = 1; h <= s.group && h <= rows; ++h)
    if (s.group % h == 0 && rows % h == 0)
      heads = h;
  int64_t capK = shape.maxBlockK;
  if (!ShapedType::isDynamic(s.staticTk) && s.staticTk > 0)
    capK = std::min<int64_t>(capK, llvm::alignTo(s.staticTk, 16));
  // The legal key blocks, largest first: the largest within capK, else
  // the smallest above it.
  SmallVector<GpuFlashAttentionAttr> legal;
  for (int64_t blockK = static_cast<int64_t>(
           llvm::bit_floor(static_cast<uint64_t>(shape.maxBlockK)));
       blockK >= 16; blockK /= 2) {
    auto config =
        GpuFlashAttentionAttr::get(ctx, rows / heads, heads, blockK,
                                   shape.warps, shape.rowTiles, shape.qShared);
    auto wholeCopies = [&](int64_t d) {
      return blockK * GpuFlashAttentionAttr::getPaddedDim(d) / 8 %
                 config.getThreads() ==
             0;
    };
    // Per thread: R x (block_k + Dv') x 16 f32 accumulators over 32 lanes.
    int64_t accumulators =
        shape.rowTiles *
        (blockK + GpuFlashAttentionAttr::getPaddedDim(s.valueDim)) / 2;
    if (wholeCopies(s.headDim) && wholeCopies(s.valueDim) &&
        config.getSharedMemoryBytes(s.headDim, s.valueDim) <= budget &&
        (!shape.maxAccumulators || accumulators <= shape.maxAccumulators))
      legal.push_back(config);
  }
  for (GpuFlashAttentionAttr config : legal)
    if (config.getBlockK() <= capK)
      return config;
  return legal.empty() ? GpuFlashAttentionAttr() : legal.back();
}

/// untiled-max-keys' cap with bf16 on a CPU with AMX or AVX512-BF16.
constexpr int64_t kAmxUntiledMaxKeys = 31;
/// The longest key block when max-block-k is 0: on AMX tiles when no mask
/// skips blocks (measured there; AVX512-BF16's dot products were not), and
/// otherwise.
constexpr int64_t kAmxUnmaskedMaxBlockK = 256, kDefaultMaxBlockK = 128;
/// The rows of an AMX tile kernel (-tfm-pack-amx takes query tiles of at
/// least this many rows).
constexpr int64_t kAmxTileRows = 32;

struct ConfigureAttentionPass
    : tfm::impl::ConfigureAttentionPassBase<ConfigureAttentionPass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  ConfigureAttentionPass(const ConfigureAttentionPass &other) : Base(other) {}

  void runOnOperation() override {
    Operation *root = getOperation();
    int64_t maxBq = maxBlockQ, maxBk = maxBlockK, maxUntiled = untiledMaxKeys;
    int64_t splits = decodeKeySplits;
    if (maxBq < 1 || maxBk < 0 || maxUntiled < 0 || splits < 0 ||
        budgetBytes < 0) {
      root->emitError() << "-tfm-configure-attention: invalid options: "
                           "max-block-q ("
                        << maxBq << ") must be >= 1, max-block-k (" << maxBk
                        << "), untiled-max-keys (" << maxUntiled
                        << "), decode-key-splits (" << splits
                        << ") and budget-bytes (" << int64_t(budgetBytes)
                        << ") >= 0";
      return signalPassFailure();
    }
    if (rescaleThreshold < 0 || rescaleThreshold > 64) {
      root->emitError() << "-tfm-configure-attention: invalid options: "
                           "rescale-threshold ("
                        << int64_t(rescaleThreshold) << ") must be in [0, 64]";
      return signalPassFailure();
    }
    FlashShape flashShape;
    if (!gpuFlash.empty()) {
      if ((gpuFlash.size() != 3 && gpuFlash.size() != 4) ||
          llvm::any_of(ArrayRef<int64_t>(gpuFlash).take_front(3),
                       [](int64_t v) { return v < 1; }) ||
          gpuFlash[2] % 16 ||
          (gpuFlash.size() == 4 && gpuFlash[3] != 0 && gpuFlash[3] != 1)) {
        root->emitError()
            << "-tfm-configure-attention: option 'gpu-flash': expected "
               "warps,row_tiles,max_block_k[,q_shared] (positive, "
               "max_block_k a multiple of 16, q_shared 0 or 1)";
        return signalPassFailure();
      }
      // A user's shape has no accumulator cap.
      flashShape = {gpuFlash[0], gpuFlash[1], gpuFlash[2],
                    gpuFlash.size() == 4 && gpuFlash[3] == 1, 0};
    }
    SmallVector<AttentionOp> ops;
    root->walk([&](AttentionOp op) {
      // A configuration already there (a user's, or an earlier run's)
      // stands.
      if (!op->hasAttr(kLoweringConfigAttr))
        ops.push_back(op);
    });
    if (ops.empty())
      return;
    Attribute target = getTarget(root);
    bool rounded = false, amxBf16 = false, amxTiles = false;
    auto module = dyn_cast<ModuleOp>(root);
    if (!module)
      module = root->getParentOfType<ModuleOp>();
    if (auto precision = module
                             ? module->getAttrOfType<TypeAttr>(kPrecisionAttr)
                             : TypeAttr()) {
      rounded = !precision.getValue().isF32();
      auto cpu = dyn_cast_or_null<CpuTargetAttr>(target);
      // AMX tiles, or AVX512-BF16 dot products: -tfm-pack-amx takes the
      // key blocks' contractions either way.
      amxBf16 = precision.getValue().isBF16() && cpu && cpu.hasBf16Products();
      amxTiles = amxBf16 && cpu.hasAmxBf16();
    }
    std::optional<FastMemory> fast = attentionBudget(target, amxBf16);
    if (!fast) {
      root->emitError() << "-tfm-configure-attention: the module has no "
                           "target to size attention tiles for ('"
                        << kTargetAttr
                        << "' is missing or neither #tfm.cpu_target nor "
                           "#tfm.gpu_target; tfmc sets it, -tfm-set-target "
                           "sets the host's)";
      return signalPassFailure();
    }
    // With the key blocks on AMX tiles, the tiled attention beats the
    // untiled one (f32 products on rounded inputs): 59 against 41 GFLOP/s
    // at 32 keys, 97 against 59 at 64, 235 against 33 at 256 (12 heads,
    // D = 64, one core, tfm-bench); shorter sequences have query tiles too
    // short for the tile kernels. AVX512-BF16's dot products likewise (Zen
    // 4, 12 heads, D = 64, one core: 128 keys 0.55 against 1.93 ms). A
    // decode step's query tile (a static Tq of 1: fewer than 32 rows) runs
    // the f32 kernels either way and keeps the option's bound (Zen 4, 256
    // keys: 146 us untiled, 338 tiled).
    bool failedAny = false;
    for (AttentionOp op : ops) {
      FailureOr<AttentionShape> shape = analyzeAttention(op);
      if (failed(shape)) {
        failedAny = true;
        continue;
      }
      int64_t opMaxUntiled =
          amxBf16 && shape->staticTq != 1
              ? std::min<int64_t>(maxUntiled, kAmxUntiledMaxKeys)
              : maxUntiled;
      shape->roundedInputs = rounded;
      auto gpu = dyn_cast_or_null<GpuTargetAttr>(target);
      // A decode step split by the option runs as tiled CTAs, a key range
      // each (the tensor-core kernel has no split).
      bool splitDecode = gpu && decodeKeySplits > 1 && shape->staticTq == 1;
      if (rounded && tensorCores && gpu && gpu.hasHalfMmaSync() &&
          !splitDecode) {
        if (!gpuFlash.empty() &&
            32 * flashShape.warps > gpu.getMaxThreadsPerBlock()) {
          op->emitError() << "-tfm-configure-attention: option 'gpu-flash': "
                          << flashShape.warps << " warps are more threads than "
                          << "the target's " << gpu.getMaxThreadsPerBlock()
                          << " per block";
          return signalPassFailure();
        }
        // Past 48 KiB, -tfm-gpu-dynamic-shared-memory moves the buffers to
        // the dynamic shared memory a block can opt into.
        GpuFlashAttentionAttr flash =
            chooseFlash(&getContext(), *shape,
                        gpu.getMaxBlockSharedMemoryBytes(), flashShape);
        if (!flash && gpuFlash.empty()) {
          // Heads too long for two row tiles' accumulators: one; and where
          // a Q buffer of its own does not fit either, Q in the K buffer.
          FlashShape oneTile = flashShape;
          oneTile.rowTiles = 1;
          flash = chooseFlash(&getContext(), *shape,
                              gpu.getMaxBlockSharedMemoryBytes(), oneTile);
          if (!flash) {
            oneTile.qShared = false;
            flash = chooseFlash(&getContext(), *shape,
                                gpu.getMaxBlockSharedMemoryBytes(), oneTile);
          }
        }
        if (flash) {
          op->setAttr(kLoweringConfigAttr, flash);
          ++flashConfigured;
          continue;
        }
      }
      if (opMaxUntiled > 0 && !ShapedType::isDynamic(shape->staticTk) &&
          shape->staticTk <= opMaxUntiled) {
        // Short enough to stay untiled, statically.
        op->setAttr(kLoweringConfigAttr,
                    AttentionUntiledAttr::get(&getContext()));
        ++keptUntiled;
        continue;
      }
      // max-block-k = 0: 128, but without a mask, key blocks on AMX tiles run
      // longer: nothing on a diagonal is wasted, and the online softmax's
      // per-block costs halve again (256 against 128: +7-9% at D = 64 and
      // 128, causal -4%; docs/performance.md, 2026-12-01). Only where that
      // was measured: query tiles of tiles' rows (not a decode step's f32
      // kernels, no static Tq under 32) and one query head per K/V head
      // (a GQA group would trade query rows for keys).
      bool queryTiles = ShapedType::isDynamic(shape->staticTq) ||
                        shape->staticTq >= kAmxTileRows;
      int64_t opMaxBk = maxBk;
      if (opMaxBk == 0)
        opMaxBk = amxTiles && op.getMask() == MaskKind::none && queryTiles &&
                          shape->group == 1
                      ? kAmxUnmaskedMaxBlockK
                      : kDefaultMaxBlockK;
      // A CPU's f32 kernels take the squarer of two tiles of one size: a
      // longer key block halves the online softmax's steps per row (row
      // max and sum, the accumulator's rescale), a taller query block
      // halves the K/V reads and K transposes per row; square balances
      // them (Zen 5, D = 64: 64 x 64 ran 1.05-1.09x 128 x 32; D = 128,
      // 32 x 64 and 64 x 32, equally skewed: even; docs/performance.md).
      bool cpuF32Kernels = isa<CpuTargetAttr>(target) && !amxBf16;
      int64_t budget =
          budgetBytes > 0 ? int64_t(budgetBytes)
          : cpuF32Kernels
              ? cpuTileBudget(cast<CpuTargetAttr>(target), *shape, fast->bytes)
              : fast->bytes;
      std::optional<AttentionTiles> tiles =
          chooseAttentionTiles(*shape, budget, fast->lanes, maxBq, opMaxBk,
                               /*squareTies=*/cpuF32Kernels);
      if (!tiles && isa<GpuTargetAttr>(target)) {
        // A GPU block's shared memory is small (48 KiB): an op no tile fits
        // (large heads in large GQA groups, with the rounded tiles of a
        // 16-bit precision) keeps the untiled lowering, whose GEMM and
        // row-reduction kernels need no such budget.
        op->setAttr(kLoweringConfigAttr,
                    AttentionUntiledAttr::get(&getContext()));
        ++keptUntiled;
        continue;
      }
      if (!tiles) {
        op.emitOpError()
            << "fast-memory budget of " << budget
            << " bytes is too small for any tile: the smallest legal tile, "
               "block_q = 1 and block_k = "
            << fast->lanes << " (one vector), with " << shape->group
            << " query head(s) per K/V head, D = " << shape->headDim
            << " and Dv = " << shape->valueDim << ", needs "
            << attentionFootprintBytes(*shape, 1, fast->lanes) << " bytes";
        failedAny = true;
        continue;
      }
      int64_t splits = decodeSplits(op, *tiles, target);
      op->setAttr(
          kLoweringConfigAttr,
          AttentionTilingAttr::get(
              &getContext(), tiles->blockQ, tiles->blockK, shape->group,
              tiles->footprint, budget,
              ShapedType::isDynamic(shape->staticTk) ? opMaxUntiled : 0, splits,
              transposedScores && cpuF32Kernels && splits == 1 &&
                  shape->staticTq != 1 &&
                  (shape->group * tiles->blockQ) % fast->lanes == 0,
              isa<CpuTargetAttr>(target) ? int64_t(rescaleThreshold) : 0));
      ++configured;
    }
    if (failedAny)
      signalPassFailure();
  }

  /// Split-K decode (Passes.td): the key ranges of one sequence and K/V
  /// head for an op with a static Tq of 1: the option's count where it
  /// is set (CPU or GPU), else the CPU's threads over its K/V heads; 1
  /// otherwise.
  int64_t decodeSplits(AttentionOp op, const AttentionTiles &tiles,
                       Attribute target) const {
    if (tiles.blockQ != 1 || op.getQuery().getType().getDimSize(2) != 1)
      return 1;
    if (decodeKeySplits > 0)
      return decodeKeySplits;
    auto cpu = dyn_cast_or_null<CpuTargetAttr>(target);
    if (!cpu)
      return 1;
    int64_t hkv = op.getKey().getType().getDimSize(1);
    int64_t threads = cpu.getThreads();
    return threads > hkv ? llvm::divideCeil(threads, hkv) : 1;
  }

  // The statistics of Passes.td (same names and descriptions), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h.
  PassStatistic configured{this, numConfigured, "configured",
                           "tfm.attention ops given tiles"};
  PassStatistic flashConfigured{
      this, numFlash, "flash",
      "tfm.attention ops given the tensor-core kernel"};
  PassStatistic keptUntiled{
      this, numKeptUntiled, "kept-untiled",
      "tfm.attention ops left untiled (static Tk <= untiled-max-keys, or no "
      "tile fits a GPU block)"};
};

} // namespace
