//===- TfmEntryABI.h - names of the entry ABI's attributes ------*- C++ -*-===//
//
// The attribute and symbol names through which the frontend, the passes
// around the entry ABI (-tfm-pack-weights, -tfm-outline-prepare,
// -tfm-materialize-entry) and the tools that load a lowered module
// (tfm-bench) talk to each other. docs/architecture.md describes the
// contract; this header spells it once.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_IR_TFMENTRYABI_H
#define TFM_IR_TFMENTRYABI_H

#include "llvm/ADT/StringRef.h"

namespace mlir::tfm::abi {

/// Unit attribute of the function that becomes `_mlir_ciface_<name>`.
constexpr llvm::StringLiteral kEntryAttr = "tfm.entry";
/// The generation step's entry function (`_mlir_ciface_step`), next to
/// `forward`.
constexpr llvm::StringLiteral kStepFunction = "step";
/// The same step for one new token per sequence (`_mlir_ciface_decode`):
/// a static Tq = 1 lets the attention's configuration choose decode tiles
/// (one query row per K/V head group).
constexpr llvm::StringLiteral kDecodeFunction = "decode";
/// Encoder-decoder models: the encoder and every decoder layer's
/// cross-attention keys and values, written into the cross cache that
/// @step and @decode read (`_mlir_ciface_encode`).
constexpr llvm::StringLiteral kEncodeFunction = "encode";
/// An i64 attribute on an entry argument: the index of the entry result
/// that is the argument's new value. -tfm-materialize-entry writes that
/// result back into the caller's buffer, in place (the step's KV cache).
constexpr llvm::StringLiteral kInOutAttr = "tfm.inout";
/// Module attributes written by -tfm-materialize-entry: the weights table
/// (`[{name, shape}]`), then the prepared tensors' slots after it.
constexpr llvm::StringLiteral kWeightsAttr = "tfm.weights";
constexpr llvm::StringLiteral kPreparedAttr = "tfm.prepared";
/// The function that computes the prepared tensors once per model
/// instance, `_mlir_ciface_tfm_prepare(void *const *weights)`.
constexpr llvm::StringLiteral kPrepareFunction = "tfm_prepare";
/// On an op of the entry: compute it in @tfm_prepare (a string, the
/// prepared tensor's name); on @tfm_prepare itself: a unit attribute.
constexpr llvm::StringLiteral kPrepareAttr = "tfm.prepare";
/// The name of each result of @tfm_prepare (a result attribute).
constexpr llvm::StringLiteral kPreparedNameAttr = "tfm.name";
/// The NUL-terminated JSON manifest global (tfm/Support/Manifest.h) that
/// -tfm-materialize-entry writes and the runtime reads.
constexpr llvm::StringLiteral kManifestSymbol = "tfm_model_manifest";

} // namespace mlir::tfm::abi

#endif // TFM_IR_TFMENTRYABI_H
