//===- SharedLibrary.h - link a model object into a .so ---------*- C++ -*-===//
//
// The model object plus the runtime archives become one self-contained
// shared library (linked with LLVM 22's clang++), and a C header describes
// it. A kernel object (tfm.architecture = "kernel": one op behind an
// exported `_mlir_ciface_<name>`, no manifest) links without the runtime.
// This file is the one place that knows how generated code is linked.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_SHAREDLIBRARY_H
#define TFM_TARGET_SHAREDLIBRARY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::tfm {

/// What the object being linked is.
enum class LinkMode {
  /// A model (-tfm-materialize-entry with a manifest): the runtime archive
  /// whole, its support libraries and its export map (only tfm_* symbols
  /// are exported), libomp, system libraries.
  Model,
  /// A kernel (tfm.architecture = "kernel"): the object alone with what
  /// generated code calls, libomp (the parallel loops' __kmpc_* entry
  /// points; found through an rpath) and libm; every global symbol of the
  /// object, `_mlir_ciface_<entry>` included, stays exported.
  Kernel,
};

/// How to link generated code. The runtime's own inputs (archives, the
/// export map, libomp, system libraries) come from the list that
/// lib/Runtime/CMakeLists.txt generates (tfm/Runtime/RuntimeLink.h), the
/// one place that knows them.
struct LinkOptions {
  LinkMode mode = LinkMode::Model;
  /// The C++ driver. Default: $TFM_CLANGXX when set, else clang++ in LLVM
  /// 22's tool directory (baked in at configure time).
  std::string clangxx;
  /// Link LLVM's OpenMP runtime (a model's parallel CPU loops need it). A
  /// GPU model's host code has no parallel loop: without libomp its
  /// library loads on machines that have no LLVM installed.
  bool openMP = true;
};

/// Links `objectPath` and `extraArchives` into the shared library
/// `outputPath`. LinkMode::Model adds the runtime link arguments
/// (tfm::runtime::kRuntimeLinkArgs: the runtime archive whole, TfmSupport,
/// a static LLVMSupport, the export map, libomp); LinkMode::Kernel adds
/// libomp (when the build found one, tfm::runtime::kRuntimeOpenMPLibrary)
/// and libm only. Either way a symbol that nothing defines fails the link
/// (-z defs), not a later dlopen. Returns failure with a message in `error`
/// (the command line and the linker's exit status) when anything is missing
/// or the link fails.
LogicalResult linkSharedLibrary(llvm::StringRef objectPath,
                                llvm::StringRef outputPath,
                                llvm::ArrayRef<std::string> extraArchives,
                                const LinkOptions &options, std::string &error);

/// Writes the C header of a compiled model: a summary of its manifest (JSON
/// text of the `tfm_model_manifest` global) as comments and macros, followed
/// by the runtime's C ABI (tfm::runtime::kRuntimeHeader, copied so the
/// header stands alone). `runtimeHeader` overrides that header's path.
/// The model name is written as an escaped C string literal
/// (TFM_MODEL_NAME) and, sanitised, into comments. The manifest is read by
/// tfm::Manifest::parse, the check the runtime applies when the library
/// loads: an invalid one is an error naming the field.
LogicalResult writeModelHeader(llvm::StringRef manifestJson,
                               llvm::StringRef outputPath,
                               llvm::StringRef runtimeHeader,
                               std::string &error);

} // namespace mlir::tfm

#endif // TFM_TARGET_SHAREDLIBRARY_H
