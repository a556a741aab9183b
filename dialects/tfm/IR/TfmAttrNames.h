//===- TfmAttrNames.h - names of tfm's discardable attributes ---*- C++ -*-===//
//
// Every discardable attribute that one part of tfm writes and another reads,
// spelled once. The entry ABI's own names are in TfmEntryABI.h.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_IR_TFMATTRNAMES_H
#define TFM_IR_TFMATTRNAMES_H

#include "llvm/ADT/StringRef.h"

namespace mlir {
class Operation;
class Attribute;
class MLIRContext;
class Type;
namespace tfm {
class CpuTargetAttr;
class GpuTargetAttr;

/// Module attributes the frontend writes (docs/architecture.md): the model's
/// name and architecture, its vocabulary and context, and what the entry
/// returns ("logits", "hidden", "classes", ...).
constexpr llvm::StringLiteral kModelNameAttr = "tfm.model_name";
constexpr llvm::StringLiteral kArchitectureAttr = "tfm.architecture";
constexpr llvm::StringLiteral kVocabSizeAttr = "tfm.vocab_size";
constexpr llvm::StringLiteral kMaxSeqLenAttr = "tfm.max_seq_len";
constexpr llvm::StringLiteral kOutputAttr = "tfm.output";
/// Image models (ViT): the entry takes pixels [B, C, H, W]; this
/// DenseI64ArrayAttr holds [C, H, W]. Absent for token models.
constexpr llvm::StringLiteral kImageAttr = "tfm.image";
/// Generation: a sequence appended past this length (i64) is recomputed
/// from its first token (LongRoPE's switch to the long factors; the
/// manifest's kv_cache.recompute_after). Absent: never.
constexpr llvm::StringLiteral kRecomputeAfterAttr = "tfm.recompute_after";

/// The position of a sequence's first token when the caller gives none
/// (i64; RoBERTa's padding_idx + 1, the manifest's first_position). Absent:
/// 0.
constexpr llvm::StringLiteral kFirstPositionAttr = "tfm.first_position";

/// The module attribute that states the target (#tfm.cpu_target), set once
/// by the driver or -tfm-set-target.
constexpr llvm::StringLiteral kTargetAttr = "tfm.target";

/// The module attribute that states the precision of GEMM and attention
/// inputs (a TypeAttr: bf16 or f16; f32 when absent), set once by the
/// driver or -tfm-apply-precision.
constexpr llvm::StringLiteral kPrecisionAttr = "tfm.precision";

/// The module attribute that lists (an array of strings) the weights the
/// runtime rounds to the module's precision when a model instance is
/// created (the manifest's "round"), set by -tfm-apply-precision. A module
/// attribute, not one of the weight ops: later passes re-create those
/// (-tfm-pack-weights, -tfm-outline-prepare).
constexpr llvm::StringLiteral kRoundedWeightsAttr = "tfm.rounded_weights";

/// The module attribute that lists (an array of strings, LLVM feature
/// names) the CPU features the generated code needs beyond what every CPU
/// of its target runs, and that the runtime must check and enable when a
/// model instance is created (the manifest's "cpu_features"): "amx-bf16"
/// once -tfm-pack-amx has put a contraction on AMX tiles.
constexpr llvm::StringLiteral kCpuFeaturesAttr = "tfm.cpu_features";

/// A configuration pass's decision for one op (#tfm.attention_tiling,
/// #tfm.cpu_kernel), which the transforming pass carries out.
constexpr llvm::StringLiteral kLoweringConfigAttr = "tfm.lowering_config";

/// The role of a key-block loop of a tiled attention (#tfm.key_blocks).
constexpr llvm::StringLiteral kKeyBlocksAttr = "tfm.key_blocks";

/// On an op that runs inside the block-per-row kernel of the row reduction
/// before it (#tfm.gpu_reduction's `stages`): its stage, from 1.
constexpr llvm::StringLiteral kRowKernelStageAttr = "tfm.row_kernel_stage";

/// On a gpu.launch built for a kernel schedule: the blocks of it one
/// multiprocessor is planned to hold at once (an i64 attribute, kept on
/// the kernel by -tfm-gpu-outline-kernels and checked by --report against
/// the registers ptxas allocated).
constexpr llvm::StringLiteral kBlocksPerSMAttr = "tfm.blocks_per_sm";

/// On an scf.for whose iterations touch disjoint memory and may run in any
/// order or at once (the loop over sequences of a tfm.cache_append's
/// lowering): -tfm-gpu-cache-append runs it as one parallel loop nest.
constexpr llvm::StringLiteral kIndependentIterationsAttr =
    "tfm.independent_iterations";

/// On a kernel's k loop whose B rows come from cache, not memory: the
/// dot-product kernels of -tfm-cpu-lower-amx's whole 32-row steps, which
/// read each row of Wp in turn (only the first from memory). Software
/// prefetches there cost load slots and gain nothing: -tfm-cpu-prefetch
/// leaves such a loop alone.
constexpr llvm::StringLiteral kCachedPanelAttr = "tfm.cached_panel";

/// On a private function that runs one GPU kernel on the host
/// (-tfm-gpu-emulate): -tfm-gpu-dedup-kernels merges such functions as it
/// merges kernels.
constexpr llvm::StringLiteral kEmulatedKernelAttr = "tfm.emulated_kernel";

/// The type `tfm.precision` holds for a precision's spelling (`--precision`,
/// -tfm-apply-precision's option): "bf16", "f16" or "f32"; null for any
/// other spelling.
Type getPrecisionType(MLIRContext *ctx, llvm::StringRef spelling);

/// The target of the module that holds `op` (or of `op`, a module), or null.
Attribute getTarget(Operation *op);

/// getTarget() as a CPU target, or null.
CpuTargetAttr getCpuTarget(Operation *op);

/// getTarget() as an NVIDIA GPU target, or null.
GpuTargetAttr getGpuTarget(Operation *op);

} // namespace tfm
} // namespace mlir

#endif // TFM_IR_TFMATTRNAMES_H
