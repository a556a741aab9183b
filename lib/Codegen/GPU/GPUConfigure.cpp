//===- GPUConfigure.cpp - the GPU schedule of each contraction ------------===//
//
// -tfm-gpu-configure: decides, from the module's #tfm.gpu_target, the tiles
// of the shared-memory GEMM kernel for each contraction
// (#tfm.gpu_contraction, carried out by -tfm-gpu-tile-contraction) and the
// block of each row reduction (#tfm.gpu_reduction,
// -tfm-gpu-tile-reduction).
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUCONFIGUREPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The most ops one block-per-row kernel runs (a layer norm takes 3).
constexpr unsigned kMaxRowKernelStages = 8;

/// The static extent of loop `d` of `op`, if known.
std::optional<int64_t> staticExtent(linalg::LinalgOp op, unsigned d) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (ranges[d] == ShapedType::kDynamic)
    return std::nullopt;
  return ranges[d];
}

struct GPUConfigurePass : tfm::impl::GPUConfigurePassBase<GPUConfigurePass> {
  using Base::Base;
  GPUConfigurePass(const GPUConfigurePass &other) : Base(other) {}

  /// The schedule of option `name` (six numbers), or null where it is not
  /// given; failure where it is malformed.
  FailureOr<GpuMmaAttr> parseMmaOption(ArrayRef<int64_t> values,
                                       StringRef name) {
    if (values.empty())
      return GpuMmaAttr();
    auto error = [&] {
      return getOperation()->emitError("-tfm-gpu-configure: option '")
             << name << "': ";
    };
    if (values.size() != 6) {
      error() << "expected 6 numbers (block_m,block_n,block_k,warps_m,"
                 "warps_n,stages), got "
              << values.size();
      return failure();
    }
    GpuMmaAttr attr =
        GpuMmaAttr::getChecked(error, &getContext(), values[0], values[1],
                               values[2], values[3], values[4], values[5]);
    if (!attr)
      return failure();
    return attr;
  }

  void runOnOperation() override {
    GpuTargetAttr target = getGpuTarget(getOperation());
    if (!target)
      return;
    FailureOr<GpuMmaAttr> large = parseMmaOption(mmaLarge, "mma-large");
    FailureOr<GpuMmaAttr> small = parseMmaOption(mmaSmall, "mma-small");
    if (failed(large) || failed(small))
      return signalPassFailure();
    mmaLargeOverride = *large;
    mmaSmallOverride = *small;
    // Ops already given to the row kernel of a reduction before them.
    DenseSet<Operation *> taken;
    WalkResult result = getOperation()->walk([&](linalg::LinalgOp op) {
      if (taken.contains(op))
        return WalkResult::advance();
      if (std::optional<RowReduction> r = matchGpuRowReduction(op)) {
        // A power of two from a warp to 256 threads, by the row length.
        int64_t threads = 256;
        if (std::optional<int64_t> length = staticExtent(op, r->dim))
          threads = std::clamp<int64_t>(
              llvm::PowerOf2Ceil(std::max<int64_t>(*length, 1)), 32, 256);
        threads = std::min(threads, target.getMaxThreadsPerBlock());
        // The ops after it on the same rows run in its kernel.
        SmallVector<RowKernelStage> stages =
            fuseRows ? findRowKernel(op, *r, kMaxRowKernelStages)
                     : SmallVector<RowKernelStage>{{op, {}, r->dim}};
        for (auto [k, stage] : llvm::enumerate(stages)) {
          if (k == 0)
            continue;
          stage.op->setAttr(
              kRowKernelStageAttr,
              IntegerAttr::get(IntegerType::get(&getContext(), 64), k));
          taken.insert(stage.op);
          ++fusedOps;
        }
        op->setAttr(
            kLoweringConfigAttr,
            GpuReductionAttr::get(&getContext(), threads, stages.size()));
        ++reductions;
        return WalkResult::advance();
      }
      std::optional<GemmDims> g = matchGpuContraction(op);
      if (!g)
        return WalkResult::advance();
      if (Attribute mma = chooseMma(op, *g, target)) {
        op->setAttr(kLoweringConfigAttr, mma);
        ++mmaConfigured;
        return WalkResult::advance();
      }
      GpuContractionAttr config = choose(op, *g, target);
      if (config.getThreads() > target.getMaxThreadsPerBlock() ||
          config.getSharedMemoryBytes() > target.getSharedMemoryBytes()) {
        op->emitOpError("-tfm-gpu-configure: no GEMM tile fits the "
                        "target's ")
            << target.getMaxThreadsPerBlock() << " threads and "
            << target.getSharedMemoryBytes()
            << " bytes of shared memory per block";
        return WalkResult::interrupt();
      }
      op->setAttr(kLoweringConfigAttr, config);
      ++configured;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }

  /// 4 x 4 outputs per thread, 16 threads across n; 16 threads along m
  /// (64-row tiles) unless m is small or 64-row tiles leave
  /// multiprocessors idle, then 8 (32-row tiles). With m unknown at
  /// compile time (the tokens of a call), 32-row tiles where the columns
  /// and batch loops alone give fewer tiles than multiprocessors: a
  /// per-head projection (12 heads x 64 columns) or GPT-2's FFN down
  /// (768 columns) launched 96 blocks of 64 rows at 512 tokens on a
  /// 132-SM H200, 0.36-0.73 waves (Nsight Compute, docs/performance.md).
  GpuContractionAttr choose(linalg::LinalgOp op, const GemmDims &g,
                            GpuTargetAttr target) {
    const int64_t thread = 4, threadsN = 16, blockK = 16;
    int64_t blockM = 64;
    std::optional<int64_t> m = staticExtent(op, g.m);
    std::optional<int64_t> n = staticExtent(op, g.n);
    if (m && *m <= 32)
      blockM = 32;
    if (n) {
      // Tiles per 64 rows (or per all of them, when m is known).
      int64_t blocks = llvm::divideCeil(*n, thread * threadsN);
      if (m)
        blocks *= llvm::divideCeil(*m, 64);
      for (unsigned d : g.unit)
        if (std::optional<int64_t> e = staticExtent(op, d))
          blocks *= *e;
      if (blocks < target.getMultiprocessors())
        blockM = 32;
    }
    return GpuContractionAttr::get(&getContext(), blockM, thread * threadsN,
                                   blockK, thread, thread);
  }

  /// Tensor cores (mma.sync m16n8k16, sm_80+) for a contraction whose
  /// inputs are both bf16 or both f16. Where both operands can be copied
  /// 16 bytes at a time (cp.async), two schedules: 128 x 128 tiles of 2 x 4
  /// warps (64 x 32 each) in a 3-stage pipeline, 48 KiB, for a problem
  /// with at least a wave of such tiles, and 64 x 64 tiles (32 rows for a
  /// static m of at most 32) of 2 x 2 warps in 3 stages otherwise, 64 deep
  /// (48 KiB) on sm_90 and 32 deep (24 KiB) before it: the choice is
  /// made here when the output's extents are static, else at run time
  /// (#tfm.gpu_mma_choice). Without cp.async, the small tiles in one
  /// padded stage. Null where tensor cores do not apply.
  Attribute chooseMma(linalg::LinalgOp op, const GemmDims &g,
                      GpuTargetAttr target) {
    if (!tensorCores)
      return {};
    Type a = getElementTypeOrSelf(op.getDpsInputs()[g.a].getType());
    Type b = getElementTypeOrSelf(op.getDpsInputs()[g.b].getType());
    if (a != b || !(a.isBF16() || a.isF16()) || !target.hasHalfMmaSync())
      return {};
    auto fits = [&](GpuMmaAttr config) {
      return config.getThreads() <= target.getMaxThreadsPerBlock() &&
             config.getSharedMemoryBytes() <=
                 target.getMaxBlockSharedMemoryBytes();
    };
    // Small tiles: 64 x 64 of 2 x 2 warps (32 rows where a static m has
    // no more). On an H200 the 64-deep slices (half the barriers and
    // waits of 32-deep ones) and 64 rows made GPT-2's 512-token GEMMs 18-26%
    // faster than 32 x 64 x 32 (docs/performance.md, session 19). Before
    // sm_90, ptxas 13 hoists a 64-deep slice's four k steps of fragments
    // into 176-226 registers (three blocks planned, two resident) on
    // sm_80 and spills 88-200 bytes at 255 on sm_86 and sm_89 (BERT's
    // classifier, transformer-base's LM head and output projections);
    // 32-deep slices take 78-160, no spills: 32 deep there (docs/gpu.md,
    // "Occupancy"; not timed on such a GPU).
    std::optional<int64_t> staticM = staticExtent(op, g.m);
    int64_t blockM = staticM && *staticM <= 32 ? 32 : 64;
    int64_t smallK = target.getComputeCapability() >= 90 ? 64 : 32;
    bool async = isAsyncCopyable(op, g, *op.getDpsInputOperand(g.a)) &&
                 isAsyncCopyable(op, g, *op.getDpsInputOperand(g.b));
    auto small = mmaSmallOverride
                     ? mmaSmallOverride
                     : GpuMmaAttr::get(&getContext(), blockM, 64, smallK, 2, 2,
                                       async ? 3 : 1);
    if (!fits(small))
      return {};
    if (mmaLargeOverride && !fits(mmaLargeOverride)) {
      op->emitWarning("-tfm-gpu-configure: option 'mma-large' (")
          << mmaLargeOverride << ") does not fit the target's "
          << target.getMaxThreadsPerBlock() << " threads and "
          << target.getMaxBlockSharedMemoryBytes()
          << " bytes of shared memory per block; the small schedule is used";
    }
    // 2 x 2 warps of 64 x 64 in 4 stages (64 KiB, dynamic shared memory)
    // measured 13% faster on an H200 (mma-large=128,128,32,2,2,4;
    // docs/performance.md, session 19), but their 128 accumulators per
    // thread leave ptxas at 254-255 registers, and it spills 4-44 bytes
    // in some kernels (LM heads, one FFN; most kernels on sm_80): not the
    // default until the kernel's address arithmetic takes fewer registers.
    GpuMmaAttr large = mmaLargeOverride ? mmaLargeOverride
                                        : GpuMmaAttr::get(&getContext(), 128,
                                                          128, 32, 2, 4, 3);
    if (!async || !fits(large))
      return small;
    // An option's large tiles no larger than the small ones: no choice.
    if (large.getBlockM() * large.getBlockN() <=
        small.getBlockM() * small.getBlockN())
      return large;
    auto choice = GpuMmaChoiceAttr::get(
        &getContext(), large, small,
        mmaMinBlocks > 0 ? mmaMinBlocks : target.getMultiprocessors());
    std::optional<int64_t> m = staticExtent(op, g.m);
    std::optional<int64_t> n = staticExtent(op, g.n);
    if (!m || !n)
      return choice;
    int64_t batch = 1;
    for (unsigned d : g.unit) {
      std::optional<int64_t> e = staticExtent(op, d);
      if (!e)
        return choice;
      batch *= *e;
    }
    return choice.select(*m, *n, batch);
  }

  /// The schedules of options mma-large and mma-small, where given.
  GpuMmaAttr mmaLargeOverride, mmaSmallOverride;

  PassStatistic mmaConfigured{this, numMmaConfigured, "mma-contractions",
                              "Contractions given a tensor-core schedule"};
  PassStatistic configured{this, numConfigured, "contractions",
                           "Contractions given a shared-memory GEMM schedule"};
  PassStatistic reductions{this, numReductions, "reductions",
                           "Row reductions given a block per row"};
  PassStatistic fusedOps{this, numFusedOps, "row-kernel-stages",
                         "Ops run in the block-per-row kernel of a "
                         "reduction before them"};
};

} // namespace
