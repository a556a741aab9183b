//===- TfmAttrs.cpp - targets and kernel configuration attributes ---------===//

#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/IR/BuiltinOps.h"

using namespace mlir;
using namespace mlir::tfm;

bool CpuTargetAttr::hasFeature(llvm::StringRef feature) const {
  llvm::SmallVector<llvm::StringRef> features;
  getFeatures().split(features, ',', -1, /*KeepEmpty=*/false);
  return llvm::is_contained(features, ("+" + feature).str());
}

LogicalResult
CpuTargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                      StringRef triple, StringRef cpu, StringRef features,
                      unsigned vectorBits, unsigned vectorRegisters,
                      int64_t l1Bytes, int64_t l2Bytes, unsigned threads) {
  if (triple.empty())
    return emitError() << "'triple' must not be empty";
  if (vectorBits < 32 || vectorBits % 32 != 0)
    return emitError() << "'vector_bits' must be a positive multiple of 32, "
                          "found "
                       << vectorBits;
  if (vectorRegisters < 4)
    return emitError() << "'vector_registers' must be at least 4, found "
                       << vectorRegisters;
  if (l1Bytes <= 0 || l2Bytes <= 0)
    return emitError() << "'l1_bytes' and 'l2_bytes' must be positive";
  if (threads < 1)
    return emitError() << "'threads' must be at least 1";
  return success();
}

LogicalResult GpuTargetAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, StringRef chip,
    StringRef features, int64_t maxThreadsPerBlock, int64_t sharedMemoryBytes,
    int64_t multiprocessors, int64_t optInSharedMemoryBytes,
    int64_t sharedMemoryPerMultiprocessor, int64_t maxThreadsPerMultiprocessor,
    int64_t maxBlocksPerMultiprocessor) {
  if (!chip.starts_with("sm_"))
    return emitError() << "'chip' must be a compute capability such as "
                          "\"sm_80\", found \""
                       << chip << "\"";
  if (maxThreadsPerBlock < 32)
    return emitError() << "'max_threads_per_block' must be at least 32";
  if (sharedMemoryBytes < 0 || multiprocessors < 1)
    return emitError() << "'shared_memory_bytes' must not be negative and "
                          "'multiprocessors' must be positive";
  if (optInSharedMemoryBytes < 0)
    return emitError() << "'opt_in_shared_memory_bytes' must not be negative";
  if (sharedMemoryPerMultiprocessor < 0)
    return emitError()
           << "'shared_memory_per_multiprocessor' must not be negative";
  if (maxThreadsPerMultiprocessor < maxThreadsPerBlock)
    return emitError() << "'max_threads_per_multiprocessor' ("
                       << maxThreadsPerMultiprocessor
                       << ") must be at least 'max_threads_per_block' ("
                       << maxThreadsPerBlock << ")";
  if (maxBlocksPerMultiprocessor < 1)
    return emitError() << "'max_blocks_per_multiprocessor' must be positive";
  return success();
}

int64_t GpuTargetAttr::blocksByRegisters(int64_t threads, int64_t registers) {
  int64_t warps = llvm::divideCeil(std::max<int64_t>(threads, 1), 32);
  int64_t perWarp = llvm::alignTo(std::max<int64_t>(registers, 1) * 32, 256);
  return kRegistersPerMultiprocessor / (perWarp * warps);
}

int64_t GpuTargetAttr::blocksPerMultiprocessor(int64_t threads,
                                               int64_t sharedBytes,
                                               int64_t registers) const {
  int64_t blocks = getMaxBlocksPerMultiprocessor();
  if (threads > 0)
    blocks = std::min({blocks, getMaxThreadsPerMultiprocessor() / threads,
                       blocksByRegisters(threads, registers)});
  if (sharedBytes > 0)
    blocks =
        std::min(blocks, getSharedMemoryPerMultiprocessor() /
                             (sharedBytes + kReservedSharedMemoryPerBlock));
  return std::max<int64_t>(blocks, 1);
}

int64_t GpuTargetAttr::registerBudget(int64_t threads, int64_t blocks) {
  int64_t warps = llvm::divideCeil(std::max<int64_t>(threads, 1), 32);
  int64_t perWarp =
      kRegistersPerMultiprocessor / (warps * std::max<int64_t>(blocks, 1));
  return std::min<int64_t>(255, perWarp / 256 * 256 / 32);
}

unsigned GpuTargetAttr::getComputeCapability() const {
  StringRef chip = getChip();
  unsigned version = 0;
  if (!chip.consume_front("sm_") || chip.consumeInteger(10, version))
    return 0;
  return version;
}

LogicalResult
GpuReductionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         int64_t threads, int64_t stages) {
  if (threads < 1 || !llvm::isPowerOf2_64(threads))
    return emitError() << "'threads' must be a power of two";
  if (stages < 1)
    return emitError() << "'stages' must be positive";
  return success();
}

LogicalResult
GpuContractionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           int64_t blockM, int64_t blockN, int64_t blockK,
                           int64_t threadM, int64_t threadN) {
  if (blockM < 1 || blockN < 1 || blockK < 1 || threadM < 1 || threadN < 1)
    return emitError() << "tile sizes must be positive";
  if (blockM % threadM || blockN % threadN)
    return emitError() << "'block_m' and 'block_n' must be multiples of "
                          "'thread_m' and 'thread_n'";
  return success();
}

LogicalResult GpuMmaAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t blockM, int64_t blockN, int64_t blockK,
                                 int64_t warpsM, int64_t warpsN,
                                 int64_t stages) {
  if (stages < 1 || stages > 4)
    return emitError() << "'stages' must be 1 (synchronous copies) or 2 to "
                          "4 (a cp.async pipeline)";
  if (blockM < 1 || blockN < 1 || blockK < 1 || warpsM < 1 || warpsN < 1)
    return emitError() << "tile sizes and warp counts must be positive";
  if (blockM % (16 * warpsM) || blockN % (8 * warpsN))
    return emitError() << "'block_m' must be a multiple of 16 x 'warps_m' "
                          "and 'block_n' of 8 x 'warps_n' (the mma.sync "
                          "m16n8k16 fragments of each warp)";
  if (blockK % 16)
    return emitError() << "'block_k' must be a multiple of 16 (the "
                          "fragments' k)";
  return success();
}

LogicalResult
GpuMmaChoiceAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         GpuMmaAttr large, GpuMmaAttr small,
                         int64_t minBlocks) {
  if (minBlocks < 1)
    return emitError() << "'min_blocks' must be positive";
  if (large.getBlockM() * large.getBlockN() <=
      small.getBlockM() * small.getBlockN())
    return emitError() << "'large' must have larger output tiles than "
                          "'small'";
  return success();
}

LogicalResult
GpuFlashAttentionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t blockQ, int64_t heads, int64_t blockK,
                              int64_t warps, int64_t rowTiles, bool) {
  if (blockQ < 1 || heads < 1 || blockK < 1 || warps < 1 || rowTiles < 1)
    return emitError() << "'block_q', 'heads', 'block_k', 'warps' and "
                          "'row_tiles' must be positive";
  if (blockQ * heads != 16 * warps * rowTiles)
    return emitError() << "'block_q' x 'heads' (" << blockQ * heads
                       << ") must be 16 x 'warps' x 'row_tiles' ("
                       << 16 * warps * rowTiles
                       << "): each warp owns 'row_tiles' tiles of 16 rows";
  if (blockK % 16)
    return emitError() << "'block_k' must be a multiple of 16 (the k of P V's "
                          "fragments)";
  return success();
}

LogicalResult
AttentionTilingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                            int64_t blockQ, int64_t blockK, int64_t group,
                            int64_t footprintBytes, int64_t budgetBytes,
                            int64_t untiledMaxKeys, int64_t keySplits,
                            bool transposedScores, int64_t rescaleThreshold) {
  if (blockQ < 1 || blockK < 1 || group < 1)
    return emitError() << "'block_q', 'block_k' and 'group' must be positive";
  if (footprintBytes < 0 || budgetBytes < 0 || untiledMaxKeys < 0)
    return emitError() << "'footprint_bytes', 'budget_bytes' and "
                          "'untiled_max_keys' must not be negative";
  if (keySplits < 1)
    return emitError() << "'key_splits' must be positive";
  if (keySplits > 1 && blockQ != 1)
    return emitError() << "'key_splits' > 1 (split-K decode) needs 'block_q' "
                          "= 1, not "
                       << blockQ;
  if (transposedScores && keySplits > 1)
    return emitError() << "'transposed_scores' is for query blocks, not "
                          "split-K decode ('key_splits' > 1)";
  // 2^64 still fits f32 many times over: weights of at most 2^τ summed
  // over any key length stay finite.
  if (rescaleThreshold < 0 || rescaleThreshold > 64)
    return emitError() << "'rescale_threshold' must be in [0, 64], not "
                       << rescaleThreshold;
  return success();
}

LogicalResult
CpuContractionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           int64_t lanes, int64_t mr, int64_t nr, int64_t kc,
                           int64_t nc, int64_t parallelRows,
                           int64_t parallelCols, bool dot) {
  if (lanes < 1 || mr < 1 || nr < 1 || kc < 1 || nc < 1)
    return emitError() << "'lanes', 'mr', 'nr', 'kc' and 'nc' must be "
                          "positive";
  if (nc % nr != 0)
    return emitError() << "'nc' (" << nc << ") must be a multiple of 'nr' ("
                       << nr << ")";
  if (parallelRows < 0)
    return emitError() << "'parallel_rows' must not be negative";
  if (parallelCols < 0 || parallelCols % nr != 0)
    return emitError() << "'parallel_cols' (" << parallelCols
                       << ") must be a non-negative multiple of 'nr' (" << nr
                       << ")";
  if (parallelCols > 0 && parallelRows == 0)
    return emitError() << "'parallel_cols' needs 'parallel_rows' (threads)";
  if (dot && (parallelRows > 0 || !llvm::isPowerOf2_64(lanes)))
    return emitError() << "'dot' needs a serial schedule ('parallel_rows' = "
                          "0) and a power-of-two 'lanes'";
  return success();
}

LogicalResult
CpuAmxContractionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t cacheCols, int64_t kBlock,
                              int64_t parallelRows, bool dotProducts,
                              int64_t tailDotRows) {
  if (cacheCols < 32 || cacheCols % 32 != 0)
    return emitError() << "'cache_cols' (" << cacheCols
                       << ") must be a positive multiple of 32 (the "
                          "kernel's two 16-column tiles)";
  if (kBlock < 32 || kBlock % 32 != 0)
    return emitError() << "'k_block' (" << kBlock
                       << ") must be a positive multiple of 32 (a k step)";
  if (parallelRows < 0 || parallelRows % 32 != 0)
    return emitError() << "'parallel_rows' (" << parallelRows
                       << ") must be a non-negative multiple of 32 (the "
                          "kernel's two 16-row tiles)";
  if (tailDotRows < 0 || tailDotRows >= 32)
    return emitError() << "'tail_dot_rows' (" << tailDotRows
                       << ") must be in [0, 32) (the rows after the last "
                          "32-row step)";
  if (dotProducts && tailDotRows > 0)
    return emitError() << "'tail_dot_rows' is for tile kernels; with "
                          "'dot_products' every row takes dot products";
  return success();
}

LogicalResult
CpuElementwiseAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                           int64_t lanes, int64_t wholeReduction,
                           int64_t parallelBlockBytes, bool vectorize) {
  if (lanes < 1 || wholeReduction < 1)
    return emitError() << "'lanes' and 'whole_reduction' must be positive";
  if (parallelBlockBytes < 0)
    return emitError() << "'parallel_block_bytes' must not be negative";
  return success();
}

Attribute mlir::tfm::getTarget(Operation *op) {
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  // A gpu.module or another nested module: the outermost one states it.
  while (module && !module->hasAttr(kTargetAttr))
    module = module->getParentOfType<ModuleOp>();
  return module ? module->getAttr(kTargetAttr) : Attribute();
}

CpuTargetAttr mlir::tfm::getCpuTarget(Operation *op) {
  return dyn_cast_or_null<CpuTargetAttr>(getTarget(op));
}

Type mlir::tfm::getPrecisionType(MLIRContext *ctx, StringRef spelling) {
  Builder b(ctx);
  if (spelling == "bf16")
    return b.getBF16Type();
  if (spelling == "f16")
    return b.getF16Type();
  if (spelling == "f32")
    return b.getF32Type();
  return {};
}

GpuTargetAttr mlir::tfm::getGpuTarget(Operation *op) {
  return dyn_cast_or_null<GpuTargetAttr>(getTarget(op));
}
