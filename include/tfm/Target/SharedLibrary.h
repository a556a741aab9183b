//===- SharedLibrary.h - link a model object into a .so ---------*- C++ -*-===//
//
// The model object plus the runtime archives become one self-contained
// shared library (linked with LLVM 22's clang++), and a C header describes
// it.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_SHAREDLIBRARY_H
#define TFM_TARGET_SHAREDLIBRARY_H

#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringRef.h"

#include <string>
#include <vector>

namespace mlir::tfm {

/// Where the pieces of a model library come from. Empty fields take the
/// defaults documented on each.
struct LinkOptions {
  /// The C++ driver. Default: clang++ in LLVM 22's tool directory (baked in
  /// at configure time), or $TFM_CLANGXX when set.
  std::string clangxx;
  /// Folder with libTfmRuntime.a and libTfmSupport.a. Default: <dir of the
  /// running executable>/../lib, or $TFM_RUNTIME_LIB_DIR when set.
  std::string runtimeLibDir;
  /// Folder with LLVM's static libLLVMSupport.a and libLLVMDemangle.a.
  /// Default: LLVM 22's library directory (baked in at configure time).
  std::string llvmLibDir;
  /// Version script exporting only the C ABI. Default: the runtime's
  /// lib/Runtime/exports.map in the source tree, when it exists.
  std::string exportMap;
};

/// Links `objectPath` with the runtime (whole archive: the object references
/// none of the tfm_* entry points), TfmSupport, a static LLVMSupport and
/// `extraArchives` into the shared library `outputPath`. Returns failure
/// with a message in `error` (the command line and the linker's exit
/// status) when anything is missing or the link fails.
LogicalResult linkSharedLibrary(llvm::StringRef objectPath,
                                llvm::StringRef outputPath,
                                llvm::ArrayRef<std::string> extraArchives,
                                const LinkOptions &options, std::string &error);

/// Writes the C header of a compiled model: a summary of its manifest (JSON
/// text of the `tfm_model_manifest` global) as comments and macros, followed
/// by the runtime's C ABI (include/tfm/Runtime/tfm_runtime.h, copied so the
/// header stands alone). `runtimeHeader` overrides that header's path.
LogicalResult writeModelHeader(llvm::StringRef manifestJson,
                               llvm::StringRef outputPath,
                               llvm::StringRef runtimeHeader,
                               std::string &error);

} // namespace mlir::tfm

#endif // TFM_TARGET_SHAREDLIBRARY_H
