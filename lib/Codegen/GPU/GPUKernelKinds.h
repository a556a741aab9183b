//===- GPUKernelKinds.h - which linalg ops each GPU kernel takes -*- C++ -*-===//
//
// Shared by -tfm-gpu-configure (which chooses each kernel's schedule) and
// the passes that build the kernels (-tfm-gpu-tile-contraction,
// -tfm-gpu-tile-reduction), with the helpers those builders share. An op
// no kernel takes becomes loops (-tfm-gpu-linalg-to-loops).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_CODEGEN_GPU_GPUKERNELKINDS_H
#define TFM_LIB_CODEGEN_GPU_GPUKERNELKINDS_H

#include "tfm/Codegen/Common/Contraction.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {

/// A kernel's name from the model op it computes: the innermost name in
/// `loc` (the frontend names every op, e.g. `layers.0.attn.q`) as a C
/// identifier (`layers_0_attn_q`); "" when `loc` has no name.
std::string kernelBaseName(Location loc);

/// The GEMM roles of `op` when the shared-memory GEMM kernel takes it: a
/// contraction on buffers (inferGemmDims) with an f32 output, float inputs
/// of at most 32 bits, projected-permutation indexing maps and no
/// reduction loop other than `k`; none otherwise.
std::optional<GemmDims> matchGpuContraction(linalg::LinalgOp op);

/// A reduction along one loop whose payload folds each element into the
/// output with one associative operation: `out = combine(out, f(ins))`.
struct RowReduction {
  /// The reduction loop.
  unsigned dim;
  /// `combine` in the payload (arith.addf, mulf, maximumf, maxnumf,
  /// minimumf or minnumf) and which of its operands is the output.
  Operation *combiner;
  unsigned outOperand;
  /// The value of `combine` that changes nothing (0 for a sum, -inf for a
  /// maximum, ...).
  TypedAttr identity;
};

/// The reduction of `op` when the row-reduction kernel takes it: buffers,
/// one float output indexed by the parallel loops, one reduction loop,
/// projected-permutation maps, a payload of that form, and not a
/// contraction the GEMM kernel takes; none otherwise.
std::optional<RowReduction> matchGpuRowReduction(linalg::LinalgOp op);

/// One op of a block-per-row kernel: which of its loops enumerate the rows
/// (in the order of the first reduction's output indices) and which one
/// runs along a row.
struct RowKernelStage {
  // Mutable: an op interface's accessors are not const.
  mutable linalg::LinalgOp op;
  SmallVector<unsigned> rowDims;
  unsigned lengthDim;
};

/// The ops one block-per-row kernel can run, `first` (a row reduction)
/// first: the linalg ops after it in its block, up to `maxStages` in all,
/// that read the statistics of earlier stages at their own row only and
/// iterate the same rows and row length: further row reductions, and at
/// most one all-parallel op, which ends the kernel (a layer norm's mean,
/// variance and normalization). The kernel runs where the last stage is:
/// the ops between stages neither write what a stage reads or writes nor
/// read what a stage writes, so the stages can move down past them.
/// Statistics stay in the buffers the reductions write too, so later
/// readers see them unchanged.
SmallVector<RowKernelStage> findRowKernel(linalg::LinalgOp first,
                                          const RowReduction &r,
                                          unsigned maxStages);

/// The registers per thread a kernel of `schedule` is planned with, from
/// which its planned occupancy follows (createKernelLaunch): for a
/// tensor-core GEMM (#tfm.gpu_mma), a warp tile's f32 accumulators over its
/// 32 lanes plus the operand fragments of one staged k slice; for the f32
/// GEMM (#tfm.gpu_contraction), its thread_m x thread_n outputs and one k
/// step of operands; each plus 64 for addresses, counters and the
/// epilogue, rounded up to 8 (128 x 128 x 32 tiles of 2 x 4 warps: 176;
/// 64 x 64 x 64 of 2 x 2: 160). 255 for the FlashAttention-2 kernel
/// (#tfm.gpu_flash_attention: scores, output and softmax state of its row tiles
/// live in registers), 64 for row and attention-tiling kernels, 0 (no plan) for
/// anything else. The plan is checked, not imposed: --report compares each
/// kernel's `ptxas -v` registers with the budget that keeps the planned blocks
/// resident (docs/gpu.md, "Occupancy"); holding ptxas to it with
/// `.minnctapersm` made it spill where free allocation did not.
int64_t plannedRegisters(Attribute schedule);

/// Bytes of shared memory the statically shaped workgroup buffers of
/// `types` (memrefs) take together.
int64_t workgroupBytes(TypeRange types);

/// A gpu.launch of `grid` blocks of `block` threads (x, y, z) with the
/// given workgroup buffers, its body ending in its terminator; returns it
/// and a builder before that terminator. A kernel planned with
/// `registers` per thread (plannedRegisters; 0: no plan) carries its
/// planned occupancy, `tfm.blocks_per_sm`: the most blocks of its threads
/// and workgroup buffers one multiprocessor of the module's GPU target
/// holds at that many registers per thread, which -tfm-gpu-outline-kernels
/// keeps on the kernel for the report to check.
std::pair<gpu::LaunchOp, OpBuilder>
createKernelLaunch(OpBuilder &b, Location loc, ArrayRef<Value> grid,
                   ArrayRef<Value> block, TypeRange workgroupBuffers,
                   int64_t registers = 0);

/// Clones `op`'s payload at `b` with its block arguments bound to `args`
/// and its linalg.index ops to `ivs`; returns the yielded values.
SmallVector<Value> inlinePayload(OpBuilder &b, linalg::LinalgOp op,
                                 ValueRange args, ValueRange ivs);

/// Whether `type`'s elements along its last dimension are contiguous and
/// every run of `width` of them that starts at a multiple of `width`
/// (counting from the buffer's first element) is aligned to `width`
/// elements: a unit last stride, and the offset and other strides
/// multiples of `width` (known statically, or implied by an identity
/// layout whose last dimension is a static multiple of `width`). The
/// buffer itself is aligned by the runtime (device allocations, weights at
/// 256 bytes).
bool hasAlignedRows(MemRefType type, int64_t width);

/// Whether input `operand` of contraction `op` (GEMM roles `g`) can be
/// staged with 16-byte `cp.async` copies of 8 16-bit elements: its
/// innermost dimension is `k` or its own row dimension (`m` for A, `n`
/// for B: staged k-major and read with `ldmatrix .trans`), and its rows are
/// aligned to 8 elements (hasAlignedRows).
bool isAsyncCopyable(linalg::LinalgOp op, const GemmDims &g,
                     OpOperand &operand);

/// Whether `op` is the tensor-core product tfm's GEMM kernel issues and
/// its lowering and emulation take: m16n8k16, A and B both bf16 or both
/// f16 (fragments vector<4x2> and vector<2x2>), C and D f32 (vector<2x2>).
bool isHalfMmaSync(nvgpu::MmaSyncOp op);

/// The buffer `v` views, through view ops (subview, reshapes, casts).
Value viewRoot(Value v);

/// Whether lowerToRegisterLoops takes `op`: buffers, and outputs indexed
/// by parallel dimensions only (every linalg reduction is written so).
bool canLowerToRegisterLoops(linalg::LinalgOp op);

/// -tfm-gpu-linalg-to-loops' lowering of one op: an scf.parallel over its
/// parallel dimensions (returned) whose body computes one output element
/// (`rows` consecutive rows of a GEMM-like reduction), the reduction
/// dimensions as scf.for loops carrying the accumulators in registers.
/// `initialValues` (one per output, if given) replace the outputs' current
/// values (a fill the op overwrites entirely, folded in). With
/// `vectorWidth` > 1, an all-parallel op whose output rows are contiguous
/// and aligned computes `vectorWidth` consecutive elements per iteration
/// with vector loads and stores. Erases `op`.
scf::ParallelOp lowerToRegisterLoops(IRRewriter &rw, linalg::LinalgOp op,
                                     unsigned rows,
                                     ValueRange initialValues = {},
                                     int64_t vectorWidth = 1);

} // namespace mlir::tfm

#endif // TFM_LIB_CODEGEN_GPU_GPUKERNELKINDS_H
