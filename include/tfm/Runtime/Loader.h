//===- Loader.h - binding weights to a model's manifest ---------*- C++ -*-===//
//
// The C++ half of the runtime that the C ABI (tfm_runtime.h) is built on and
// that tools reuse: `tfm-run --check-weights` runs exactly the checks that
// tfm_model_create runs, without a compiled model.
//
//  * bindWeights: finds every manifest weight in a WeightSet by its exact
//    name, checks its shape and dtype, and produces the table of pointers
//    (f32 elements, or bf16/f16 ones for a weight whose manifest "storage"
//    says so) that the generated `_mlir_ciface_forward` takes as its first
//    argument, with one allocated slot per prepared tensor after them (the
//    generated `_mlir_ciface_tfm_prepare` writes those).
//
// Depends on TfmSupport and LLVMSupport only.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_RUNTIME_LOADER_H
#define TFM_RUNTIME_LOADER_H

#include "tfm/Support/Manifest.h"
#include "tfm/Support/SafeTensors.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tfm {
namespace runtime {

/// f32 buffers aligned to 64 bytes (a cache line, an AVX-512 vector).
struct AlignedFloatsDelete {
  void operator()(float *p) const;
};
using AlignedFloats = std::unique_ptr<float[], AlignedFloatsDelete>;

/// The weights of one model instance: the mapped files and the buffers that
/// hold converted (widened or realigned) tensors and the prepared tensors,
/// plus the pointer table.
struct BoundWeights {
  std::unique_ptr<WeightSet> files;
  std::vector<AlignedFloats> owned;
  /// One pointer per manifest weight, in manifest order, then one per
  /// prepared tensor (allocated, not yet written: the library's
  /// tfm_prepare fills them).
  std::vector<const void *> table;
  unsigned zeroCopy = 0;
  unsigned converted = 0;
};

/// Why binding failed: lets the C ABI pick a status code.
enum class BindFailure { Weights, OutOfMemory };

/// Binds `files` to `manifest`: every manifest weight is looked up under
/// exactly its manifest name (no prefix is added or removed). On failure
/// returns an error whose message names the weights file, the tensor and
/// the name tried (and expected vs found shape or dtype); `failure` (if
/// given) says which class of error it was. Without `withPrepared` the
/// prepared slots are not allocated (a check of the weights alone, as
/// `tfm-run --check-weights` makes).
llvm::Expected<BoundWeights> bindWeights(const Manifest &manifest,
                                         std::unique_ptr<WeightSet> files,
                                         BindFailure *failure = nullptr,
                                         bool withPrepared = true);

/// Formats a shape as "[2, 3]".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace runtime
} // namespace tfm

#endif // TFM_RUNTIME_LOADER_H
