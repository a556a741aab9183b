//===- Pipelines.h - named end-to-end pipelines -----------------*- C++ -*-===//
//
// Named pass pipelines from the tfm dialect to a target dialect. Each has an
// options struct and a builder function, and is registered once with the
// global pass registry by registerTfmPipelines().
//
//===----------------------------------------------------------------------===//

#ifndef TFM_PIPELINES_PIPELINES_H
#define TFM_PIPELINES_PIPELINES_H

#include "mlir/Pass/PassOptions.h"

#include <string>

namespace mlir {
class OpPassManager;
namespace tfm {

/// Options of -tfm-lower-to-llvm.
struct TfmToLLVMPipelineOptions
    : public PassPipelineOptions<TfmToLLVMPipelineOptions> {
  PassOptions::Option<std::string> embedWeights{
      *this, "embed-weights",
      llvm::cl::desc("Weights file (safetensors) whose bytes are embedded as "
                     "tfm_embedded_weights"),
      llvm::cl::init("")};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse single-use elementwise linalg producers into "
                     "their consumers before bufferization"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> runtimeAllocator{
      *this, "runtime-allocator",
      llvm::cl::desc("Heap buffers through tfm's runtime "
                     "(_mlir_memref_to_llvm_alloc/free, lib/Runtime/Alloc.cpp: "
                     "blocks kept between calls) instead of malloc/free; "
                     "for code linked with the runtime (tfmc sets it)"),
      llvm::cl::init(false)};
  PassOptions::Option<bool> packWeights{
      *this, "pack-weights",
      llvm::cl::desc("Give contraction weights a panel-major layout made once "
                     "per model instance in @tfm_prepare "
                     "(-tfm-pack-weights, -tfm-outline-prepare)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorize{
      *this, "vectorize",
      llvm::cl::desc("Tile and vectorize linalg ops (-tfm-tile-and-vectorize) "
                     "and approximate f32 math with polynomials; off: "
                     "scalar loops"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> vectorizeElementwise{
      *this, "vectorize-elementwise",
      llvm::cl::desc("Also tile and vectorize the non-contraction linalg ops "
                     "(off by default: with many nested dynamic loops, "
                     "bufferization's slice analysis makes compile time "
                     "grow several-fold; LLVM's loop vectorizer takes "
                     "those loops instead)"),
      llvm::cl::init(false)};
  PassOptions::Option<int64_t> parallelRows{
      *this, "parallel-rows",
      llvm::cl::desc("Rows per parallel block of a contraction (0: four "
                     "register tiles; -tfm-cpu-configure)"),
      llvm::cl::init(0)};
  PassOptions::Option<int64_t> parallelCols{
      *this, "parallel-cols",
      llvm::cl::desc("Columns per parallel block of a contraction, a "
                     "multiple of nr (-1: four register tiles; 0: whole "
                     "cache tiles; -tfm-cpu-configure)"),
      llvm::cl::init(-1)};
  PassOptions::Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Raise unfused scale-softmax-matmul chains into "
                     "tfm.attention (-tfm-fuse-attention); off: they are "
                     "lowered op by op, as written"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tileAttention{
      *this, "tile-attention",
      llvm::cl::desc("Tile tfm.attention into an online-softmax loop nest "
                     "sized for fast memory (-tfm-tile-sram)"),
      llvm::cl::init(true)};
  PassOptions::Option<int64_t> attentionUntiledMaxKeys{
      *this, "attention-untiled-max-keys",
      llvm::cl::desc("Attention over at most this many keys keeps the "
                     "untiled lowering (measured crossover, docs/passes.md)"),
      llvm::cl::init(256)};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Precision of GEMM and attention inputs when the module "
                     "states none (tfm.precision): f32, bf16 or f16 "
                     "(-tfm-apply-precision)"),
      llvm::cl::init("")};
};

/// The stages of -tfm-lower-to-llvm, in order. Every size and schedule
/// comes from the module's target (#tfm.cpu_target, `tfm.target`): the
/// configuration passes record their choices on the ops as
/// `tfm.lowering_config`, the passes after them carry those out.
///
/// 0. tfm-set-target (the host's, unless the module states a target),
///    tfm-fuse-attention (raises unfused chains), tfm-configure-attention
///    (block sizes for an eighth of L2), tfm-tile-sram (the online-softmax
///    loop nest);
/// 1. convert-tfm-to-linalg, convert-elementwise-to-linalg (the end of
///    --emit=linalg); tfm-pack-weights and tfm-outline-prepare (optional),
///    tfm-materialize-entry (weights table, out-param, manifest),
///    canonicalize, cse;
/// 2. elementwise fusion on tensors (optional), tfm-cpu-configure and
///    tfm-tile-and-vectorize (cache and register tiles, vector ops, row
///    blocks for threads; optional), one-shot bufferization across
///    function boundaries with identity layouts, buffer hoisting and the
///    deallocation pipeline;
/// 3. what was not vectorized to loops, canonicalize, cse, loop-invariant
///    code motion, tfm-approximate-math, tfm-lower-vector-ops,
///    tfm-cpu-prefetch and tfm-cpu-unroll-kernels (optional), tfm-cpu-openmp
///    (scf.forall -> OpenMP worksharing loops when the target has threads);
/// 4. vector transfers to scf, scf/affine/vector/math/arith/index/memref/
///    func/cf/omp to the LLVM dialect (contractions as outer products),
///    reconcile-unrealized-casts;
/// 5. tfm-check-llvm-legal: fails naming any op outside the llvm and omp
///    dialects.
void buildTfmToLLVMPipeline(OpPassManager &pm,
                            const TfmToLLVMPipelineOptions &options);

/// Stages 0 and the first half of 1, the prefix of -tfm-lower-to-llvm that
/// ends on linalg on tensors (what `tfmc --emit=linalg` shows).
void buildTfmToLinalgPipeline(
    OpPassManager &pm,
    const TfmToLLVMPipelineOptions &options = TfmToLLVMPipelineOptions());

/// Options of -tfm-lower-to-nvvm: the NVIDIA GPU target.
struct TfmToNVVMPipelineOptions
    : public PassPipelineOptions<TfmToNVVMPipelineOptions> {
  PassOptions::Option<std::string> embedWeights{
      *this, "embed-weights",
      llvm::cl::desc("Weights file (safetensors) whose bytes are embedded as "
                     "tfm_embedded_weights"),
      llvm::cl::init("")};
  PassOptions::Option<bool> fuseAttention{
      *this, "fuse-attention",
      llvm::cl::desc("Raise unfused scale-softmax-matmul chains into "
                     "tfm.attention (-tfm-fuse-attention)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> fuseElementwise{
      *this, "fuse-elementwise",
      llvm::cl::desc("Fuse single-use elementwise linalg producers into "
                     "their consumers before bufferization (fewer kernels)"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> tileAttention{
      *this, "tile-attention",
      llvm::cl::desc("Tile tfm.attention for shared memory "
                     "(-tfm-configure-attention, -tfm-tile-sram) and run "
                     "each tile as a CTA (-tfm-gpu-map-attention); off: "
                     "attention's GEMMs and reductions over the whole score "
                     "tensor"),
      llvm::cl::init(true)};
  PassOptions::Option<bool> mergeKernelModules{
      *this, "merge-kernel-modules",
      llvm::cl::desc("One gpu.module for all kernels "
                     "(-tfm-gpu-merge-kernel-modules): one NVVM lowering, "
                     "libdevice link, ptxas run and driver load per model; "
                     "off: a module per kernel (tfmc --emit=ptx, one .ptx "
                     "file each)"),
      llvm::cl::init(true)};
  PassOptions::Option<std::string> chip{
      *this, "chip", llvm::cl::desc("GPU architecture, e.g. sm_80 or sm_90"),
      llvm::cl::init("sm_80")};
  PassOptions::Option<std::string> features{
      *this, "features",
      llvm::cl::desc("PTX features (the PTX ISA version), e.g. +ptx80"),
      llvm::cl::init("+ptx80")};
  PassOptions::Option<std::string> toolkit{
      *this, "toolkit",
      llvm::cl::desc("CUDA toolkit folder (ptxas, fatbinary, libdevice); "
                     "empty: PTX only, the driver compiles it at load"),
      llvm::cl::init("")};
  PassOptions::Option<std::string> binaryFormat{
      *this, "binary-format",
      llvm::cl::desc("What gpu-module-to-binary embeds: isa (PTX text), bin "
                     "(cubin) or fatbin (cubin and PTX; needs the toolkit)"),
      llvm::cl::init("isa")};
  PassOptions::Option<int64_t> threadsPerBlock{
      *this, "threads-per-block",
      llvm::cl::desc("Threads of a block of the elementwise and loop-nest "
                     "kernels (-tfm-gpu-distribute)"),
      llvm::cl::init(256)};
  PassOptions::Option<unsigned> rowsPerThread{
      *this, "rows-per-thread",
      llvm::cl::desc("Consecutive rows of a GEMM-like reduction one thread "
                     "computes, reading their shared operand once "
                     "(-tfm-gpu-linalg-to-loops); 8 measured fastest of "
                     "1, 4, 8 on an H100 (docs/performance.md)"),
      llvm::cl::init(8)};
  PassOptions::Option<bool> emulate{
      *this, "emulate",
      llvm::cl::desc("Host build of the same kernels: after stage 3's "
                     "convert-parallel-loops-to-gpu, run each launch as "
                     "host loops over its blocks and threads "
                     "(-tfm-gpu-emulate) and lower for the CPU; the library "
                     "needs no GPU"),
      llvm::cl::init(false)};
  PassOptions::Option<std::string> precision{
      *this, "precision",
      llvm::cl::desc("Precision of GEMM and attention inputs when the module "
                     "states none (tfm.precision): f32, bf16 or f16 "
                     "(-tfm-apply-precision)"),
      llvm::cl::init("")};
};

/// The stages of -tfm-lower-to-nvvm, in order:
///
/// 0. tfm-fuse-attention, tfm-configure-attention (tiles for one block's
///    shared memory), tfm-tile-sram (the CPU's online-softmax loop nest);
/// 1. convert-tfm-to-linalg, tfm-materialize-entry, canonicalize, cse;
/// 2. elementwise fusion on tensors (optional), one-shot bufferization as
///    for the CPU;
/// 3. each tiled attention to a gpu.launch of a CTA per tile, its tiles in
///    shared memory (tfm-gpu-map-attention); contractions to shared-memory
///    GEMM kernels and row reductions to a block per row
///    (tfm-gpu-configure, tfm-gpu-tile-contraction, tfm-gpu-tile-reduction);
///    every other copy and linalg op to scf.parallel loop nests, each mapped to
///    a grid of blocks of threads (tfm-gpu-distribute), gpu.launch ops
///    (convert-parallel-loops-to-gpu), buffers in device memory
///    (tfm-gpu-device-memory), kernels outlined into gpu.modules, named
///    after their ops, keeping their planned occupancy for the report
///    (tfm-gpu-outline-kernels), merged into one module
///    (tfm-gpu-merge-kernel-modules, optional) and checked
///    (tfm-gpu-check-kernels);
/// 4. nvvm-attach-target; in each gpu.module: polynomial f32 math
///    (tfm-approximate-math), convert-gpu-to-nvvm; the host to the LLVM
///    dialect with gpu-to-llvm (launches become mgpu* runtime calls, which
///    the tfm runtime implements over the CUDA driver);
/// 5. gpu-module-to-binary (PTX, cubin or fatbin per `binary-format`),
///    tfm-check-llvm-legal{allow-gpu-binaries}.
///
/// With `emulate`, stages 0-3 up to convert-parallel-loops-to-gpu are the
/// same passes; then tfm-gpu-emulate, polynomial math as in the kernels,
/// and the host's lowering to the LLVM dialect.
void buildTfmToNVVMPipeline(OpPassManager &pm,
                            const TfmToNVVMPipelineOptions &options);

/// Stages 0 and the first half of 1 of -tfm-lower-to-nvvm: the prefix
/// that ends on linalg on tensors (`tfmc --target=nvptx --emit=linalg`).
void buildTfmToLinalgPipeline(OpPassManager &pm,
                              const TfmToNVVMPipelineOptions &options);

/// Registers every tfm pass (dialect transforms, conversions, GPU code
/// generation) and the named pipelines: the one registration that tfm-opt
/// and the compiler share.
void registerAllTfmPasses();

/// Registers the named pipelines (-tfm-lower-to-llvm, ...) with the global
/// pass registry so that tfm-opt and --pass-pipeline can use them.
void registerTfmPipelines();

} // namespace tfm
} // namespace mlir

#endif // TFM_PIPELINES_PIPELINES_H
