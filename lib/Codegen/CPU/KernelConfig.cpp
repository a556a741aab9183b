//===- KernelConfig.cpp - the CPU schedule of each linalg op --------------===//
//
// -tfm-cpu-configure: the configuration half of the CPU code generator. It
// reads the module's #tfm.cpu_target and records, on every linalg op that
// -tfm-tile-and-vectorize should take, the schedule it is to carry out:
// #tfm.cpu_contraction (register and cache tiles, row blocks for threads)
// on contractions, #tfm.cpu_elementwise (vector tiles, row blocks) on the
// rest. Every number the CPU code generator tiles by is decided here.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

#include <algorithm>

namespace mlir::tfm {
#define GEN_PASS_DEF_CPUCONFIGUREPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether `op` is a statically shaped op inside the key loop of a tiled
/// attention: the online softmax's row max, exp2, row sum and rescaling on
/// the [G*Br, Bc] score tile. They are vectorized whatever `elementwise`
/// says (their loops are static, so the compile-time cost that keeps
/// `elementwise` off does not apply), and they run once per key block: left
/// to LLVM's loop vectorizer they were 256-bit vectors, and the row max
/// gathered down columns.
bool isStaticInKeyLoop(linalg::LinalgOp op) {
  if (llvm::any_of(op.getStaticLoopRanges(), ShapedType::isDynamic))
    return false;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa_and_nonnull<KeyBlocksAttr>(p->getAttr(kKeyBlocksAttr)))
      return true;
  return false;
}

/// Whether `op` converts f32 to bf16 elementwise: the conversions of
/// -tfm-pack-amx and the roundings of -tfm-apply-precision
/// (`extf(truncf(x))`). LLVM's loop vectorizer leaves f32 -> bf16 loops
/// scalar (a vcvtneps2bf16 and a vpextrw per element), so they are
/// vectorized here whatever `elementwise` says.
bool convertsToBf16(linalg::LinalgOp op) {
  if (op.getNumReductionLoops() != 0 || !isa<linalg::GenericOp>(op))
    return false;
  bool found = false;
  op->walk([&](arith::TruncFOp t) {
    found |= getElementTypeOrSelf(t.getType()).isBF16();
  });
  return found;
}

/// Whether contraction `op` (loops `g`) takes the dot-product kernel: a
/// plain `C[m, n] += A[m, k] * B[n, k]` (no other loop) whose static `m` is
/// at most `maxRows` and whose static `n` and `k` are multiples of `vl`.
/// Such a B (k innermost, a decode step's key block) is what the GEMM
/// kernel would transpose into a packed panel, once per cache tile, for
/// too few rows to pay for it: at one row the pack took most of a decode
/// step's attention. The dot products read B's rows as they are.
bool takesDotKernel(linalg::LinalgOp op, const GemmDims &g, int64_t vl,
                    int64_t maxRows) {
  if (!isPlainABt(op, g))
    return false;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  int64_t m = ranges[g.m], n = ranges[g.n], k = ranges[g.k];
  return !ShapedType::isDynamic(m) && !ShapedType::isDynamic(n) &&
         !ShapedType::isDynamic(k) && m <= maxRows && n % vl == 0 &&
         k % vl == 0 && llvm::isPowerOf2_64(vl);
}

/// Whether `op`'s result is (a reshape of it is) the init of an AMX
/// contraction, and nothing else reads it.
bool fillsAmxAccumulator(linalg::LinalgOp op) {
  Value v = op->getResult(0);
  while (v.hasOneUse()) {
    Operation *user = *v.getUsers().begin();
    if (isa<tensor::ExpandShapeOp, tensor::CollapseShapeOp>(user)) {
      v = user->getResult(0);
      continue;
    }
    auto linalgUser = dyn_cast<linalg::LinalgOp>(user);
    return linalgUser && matchAmxContraction(linalgUser) &&
           linalgUser.getDpsInitOperand(0)->get() == v;
  }
  return false;
}

struct CpuConfigurePass
    : tfm::impl::CpuConfigurePassBase<CpuConfigurePass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  CpuConfigurePass(const CpuConfigurePass &other) : Base(other) {}

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    CpuTargetAttr target = getCpuTarget(func);
    if (!target) {
      func.emitError() << "-tfm-cpu-configure: the module has no CPU target "
                          "('"
                       << kTargetAttr
                       << "' is missing or not #tfm.cpu_target; tfmc sets "
                          "it, -tfm-set-target sets the host's)";
      return signalPassFailure();
    }
    MLIRContext *ctx = &getContext();

    // The register and cache tiles of a contraction.
    int64_t vl = std::max<int64_t>(1, target.getVectorBits() / 32);
    int64_t nr = registerTileWidth(target);
    // MR rows of NR lanes: 2·MR accumulator registers, plus 2 for the B row
    // and the broadcast A element (and slack for address arithmetic).
    if (registerRows < 0 || registerRows > 16) {
      func.emitError() << "-tfm-cpu-configure: register-rows is "
                       << int64_t(registerRows) << ", must be 0 to 16";
      return signalPassFailure();
    }
    int64_t mr =
        registerRows > 0
            ? int64_t(registerRows)
            : std::clamp<int64_t>(
                  (int64_t(target.getVectorRegisters()) - 4) / 2, 1, 8);
    int64_t l1 = target.getL1Bytes(), l2 = target.getL2Bytes();
    // cache-k and cache-cols (A/B runs): at most 2^20 (a 4 MiB panel row
    // of k, or a 4 MiB row of columns), checked before any use.
    constexpr int64_t kMaxCacheOption = int64_t(1) << 20;
    if (cacheK < 0 || cacheCols < 0 || cacheK > kMaxCacheOption ||
        cacheCols > kMaxCacheOption || cacheCols % nr != 0) {
      func.emitError() << "-tfm-cpu-configure: cache-k is " << int64_t(cacheK)
                       << " and cache-cols " << int64_t(cacheCols)
                       << ", must be 0 to " << kMaxCacheOption
                       << ", cache-cols a multiple of nr (" << nr
                       << " on this target)";
      return signalPassFailure();
    }
    // The B micro-panel (KC × NR floats) fills half of L1.
    int64_t kc = cacheK > 0 ? int64_t(cacheK)
                            : std::max<int64_t>(1, l1 / 2 / (4 * nr));
    // The packed B block (KC × NC floats) fills half of L2.
    int64_t nc = cacheCols > 0
                     ? int64_t(cacheCols)
                     : std::max<int64_t>(nr, (l2 / 2 / 4 / kc) / nr * nr);
    // Four register tiles of rows per parallel block: 32 rows on AVX-512,
    // so a 128-token prompt gives four blocks; each block reads the whole
    // packed B tile from L2 for 4·MR·KC·NC FMAs.
    int64_t mc = parallelRows > 0 ? int64_t(parallelRows) : 4 * mr;
    // Four register tiles of columns: a block of few rows (a decode step's
    // GEMM has one per sequence) still gives every thread columns of the
    // cache tile, each block reading its own part of the packed B tile.
    int64_t ncBlock = parallelCols >= 0 ? int64_t(parallelCols) : 4 * nr;
    if (parallelCols < -1 || ncBlock % nr != 0) {
      func.emitError() << "-tfm-cpu-configure: parallel-cols is "
                       << int64_t(parallelCols)
                       << ", must be -1, 0 or a multiple of nr (" << nr
                       << " on this target)";
      return signalPassFailure();
    }
    // A static reduction of at most an L1 / 16 of f32 stays whole.
    int64_t wholeReduction = std::max<int64_t>(vl, l1 / 16 / 4);
    // A block of an elementwise op or a row reduction streams its data
    // once: an L1's worth (32-48 KiB) is a microsecond or more of work,
    // well above the cost of handing the block to a thread.
    int64_t blockBytes = std::max<int64_t>(
        1, parallelBlockBytes > 0 ? int64_t(parallelBlockBytes) : l1);
    bool threads = target.getThreads() > 1;
    // At most half the GEMM kernel's rows: the dot kernel reads B once per
    // row, the GEMM kernel once per MR rows after packing it (measured in
    // docs/performance.md, "Decode attention on the CPU").
    if (dotRows < -1) {
      func.emitError() << "-tfm-cpu-configure: dot-rows is "
                       << int64_t(dotRows) << ", must be -1 or at least 0";
      return signalPassFailure();
    }
    int64_t maxDotRows = dotRows >= 0 ? int64_t(dotRows) : mr / 2;
    if (amxTailDotRows < 0 || amxTailDotRows >= 32) {
      func.emitError() << "-tfm-cpu-configure: amx-tail-dot-rows is "
                       << int64_t(amxTailDotRows) << ", must be in [0, 32)";
      return signalPassFailure();
    }
    for (auto [name, value] : {std::pair<StringRef, int64_t>{"amx-cols",
                                                             amxCols},
                               {"amx-k-block", amxKBlock}})
      if (value < 0 || value % 32 != 0) {
        func.emitError() << "-tfm-cpu-configure: " << name << " is " << value
                         << ", must be 0 or a multiple of 32";
        return signalPassFailure();
      }

    func.walk([&](linalg::LinalgOp op) {
      // An op with an empty static loop computes nothing: left as it is
      // (tiling it would divide by its extent).
      if (!op.hasPureTensorSemantics() ||
          llvm::is_contained(op.getStaticLoopRanges(), 0))
        return;
      // Threads split only ops that no loop encloses: one level of
      // parallelism (the tiled attention's ops run in its forall).
      bool topLevel = !op->getParentOfType<LoopLikeOpInterface>();
      if (std::optional<AmxContraction> amx = matchAmxContraction(op)) {
        if (!contractions)
          return;
        // The K x cache_cols bf16 block of Wp fills at most half of L2;
        // with threads, at least two column blocks per thread.
        auto wp = cast<ShapedType>(amx->wp.getType());
        int64_t n = 16 * wp.getDimSize(0), k = 2 * wp.getDimSize(1);
        int64_t cols = std::max<int64_t>(32, l2 / 2 / (2 * k) / 32 * 32);
        if (threads)
          cols = std::min(
              cols,
              std::max<int64_t>(32, n / (2 * target.getThreads()) / 32 * 32));
        // Then the blocks evened out, rounding the block up: N in as many
        // equal blocks (multiples of 32) as whole budgets fit. A short last
        // block cost 6-7 % (512 x 768 x 3072 on two threads: 672 -> 768,
        // 512 x 3072 x 768: 160 -> 192; docs/performance.md).
        int64_t blocks = std::max<int64_t>(1, n / cols);
        cols = llvm::divideCeil(llvm::divideCeil(n, blocks), 32) * 32;
        if (amxCols > 0)
          cols = amxCols;
        // The 32 x k_block bf16 rows of A: at most an eighth of L2 (the
        // accumulators go to C and back once per k block, which cost more
        // than A's rows streaming from L2: measured with tiles, and with
        // vector dot products, where half of L1 ran 1.02-1.04x slower on
        // Zen 4; docs/performance.md).
        bool tiles = target.hasAmxBf16();
        int64_t aBudget = l2 / 8;
        int64_t kBlock = std::min<int64_t>(
            amxKBlock > 0 ? int64_t(amxKBlock)
                          : std::max<int64_t>(aBudget / (32 * 2) / 32 * 32, 32),
            k);
        bool split = threads && topLevel;
        // With tiles, a few last rows on dot products where the target has
        // them: a tile kernel costs 32 rows for any count. Without AMX
        // (-tfm-pack-amx took it for AVX512-BF16): vector dot products over
        // the same blocks, every row.
        int64_t tailDotRows =
            tiles && target.hasAvx512Bf16() ? int64_t(amxTailDotRows) : 0;
        op->setAttr(kLoweringConfigAttr,
                    CpuAmxContractionAttr::get(ctx, cols, kBlock,
                                               split ? 128 : 0, !tiles,
                                               tailDotRows));
        ++configuredContractions;
        return;
      }
      if (std::optional<GemmDims> g = classifyCpuContraction(op)) {
        if (!contractions)
          return;
        bool split = threads && topLevel;
        bool dot = !split && takesDotKernel(op, *g, vl, maxDotRows);
        op->setAttr(kLoweringConfigAttr,
                    CpuContractionAttr::get(ctx, vl, mr, nr, kc, nc,
                                            split ? mc : 0, split ? ncBlock : 0,
                                            dot));
        ++configuredContractions;
        return;
      }
      // A fill of an AMX contraction's accumulator stays a fill:
      // -tfm-cpu-lower-amx replaces a fill of zeros by tilezero.
      if (isa<linalg::FillOp>(op) && fillsAmxAccumulator(op))
        return;
      bool vectorize = elementwise || isStaticInKeyLoop(op) ||
                       convertsToBf16(op);
      // A fill that only initializes another op's result is not split by
      // itself: it moves into the blocks of that op.
      bool split = threads && topLevel && !initializesOther(op);
      if (!vectorize && !split)
        return;
      op->setAttr(kLoweringConfigAttr,
                  CpuElementwiseAttr::get(ctx, vl, wholeReduction,
                                          split ? blockBytes : 0, vectorize));
      ++configuredOthers;
    });
  }

  // The statistics of Passes.td (same names and descriptions), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h.
  PassStatistic configuredContractions{this, numContractions, "contractions",
                                       "Contractions given a schedule"};
  PassStatistic configuredOthers{this, numOthers, "other-ops",
                                 "Other linalg ops given a schedule"};
};

} // namespace
