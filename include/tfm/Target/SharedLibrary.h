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

/// How to link a model library. The runtime's own inputs (archives, the
/// export map, system libraries) come from the list that
/// lib/Runtime/CMakeLists.txt generates (tfm/Runtime/RuntimeLink.h), the
/// one place that knows them.
struct LinkOptions {
  /// The C++ driver. Default: $TFM_CLANGXX when set, else clang++ in LLVM
  /// 22's tool directory (baked in at configure time).
  std::string clangxx;
};

/// Links `objectPath` and `extraArchives`, then the runtime link arguments
/// (tfm::runtime::kRuntimeLinkArgs: the runtime archive whole, TfmSupport,
/// a static LLVMSupport, the export map), into the shared library
/// `outputPath`. Returns failure
/// with a message in `error` (the command line and the linker's exit
/// status) when anything is missing or the link fails.
LogicalResult linkSharedLibrary(llvm::StringRef objectPath,
                                llvm::StringRef outputPath,
                                llvm::ArrayRef<std::string> extraArchives,
                                const LinkOptions &options, std::string &error);

/// Writes the C header of a compiled model: a summary of its manifest (JSON
/// text of the `tfm_model_manifest` global) as comments and macros, followed
/// by the runtime's C ABI (tfm::runtime::kRuntimeHeader, copied so the
/// header stands alone). `runtimeHeader` overrides that header's path.
LogicalResult writeModelHeader(llvm::StringRef manifestJson,
                               llvm::StringRef outputPath,
                               llvm::StringRef runtimeHeader,
                               std::string &error);

} // namespace mlir::tfm

#endif // TFM_TARGET_SHAREDLIBRARY_H
