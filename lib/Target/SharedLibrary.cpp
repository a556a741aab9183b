//===- SharedLibrary.cpp - link a model object into a .so -----------------===//

#include "tfm/Target/SharedLibrary.h"
#include "tfm/Runtime/RuntimeLink.h"
#include "tfm/Support/Manifest.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

#include <cstdio>

using namespace mlir;
using namespace mlir::tfm;

namespace {

std::string fromEnv(const char *name, llvm::StringRef fallback) {
  if (std::optional<std::string> v = llvm::sys::Process::GetEnv(name))
    if (!v->empty())
      return *v;
  return fallback.str();
}

/// The include guard of a model's header: TFM_MODEL_<name>_H with the name
/// upper-cased and every run of other characters (punctuation, spaces, the
/// UTF-8 bytes of a name taken from the model) made one '_', none at its
/// ends, so that no "__" makes the identifier reserved.
std::string headerGuard(llvm::StringRef modelName) {
  std::string guard = "TFM_MODEL_";
  for (char c : modelName) {
    if (llvm::isAlnum(c))
      guard.push_back(llvm::toUpper(c));
    else if (guard.back() != '_')
      guard.push_back('_');
  }
  if (guard.back() != '_')
    guard.push_back('_');
  return guard + "H";
}

/// `s` as the contents of a C string literal: quotes, backslashes and '?'
/// (no trigraph can form) escaped, control bytes and DEL as three-digit
/// octal escapes (never \x, which would swallow the hex digits after it).
/// Bytes from 0x80 up stay as they are (UTF-8 text).
std::string cStringContents(llvm::StringRef s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '?':
      out += "\\?";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c == 0x7f) {
        char buf[5];
        std::snprintf(buf, sizeof(buf), "\\%03o", c);
        out += buf;
      } else {
        out.push_back(static_cast<char>(c));
      }
    }
  }
  return out;
}

/// `s` made safe inside a /* */ comment: escaped as in a string literal
/// (one line, no control bytes), with every "*/" and "/*" broken apart.
std::string commentText(llvm::StringRef s) {
  std::string text = cStringContents(s), out;
  for (size_t i = 0; i < text.size(); ++i) {
    out.push_back(text[i]);
    bool closes = text[i] == '*' && i + 1 < text.size() && text[i + 1] == '/';
    bool opens = text[i] == '/' && i + 1 < text.size() && text[i + 1] == '*';
    if (closes || opens)
      out.push_back(' ');
  }
  return out;
}

} // namespace

LogicalResult mlir::tfm::linkSharedLibrary(llvm::StringRef objectPath,
                                           llvm::StringRef outputPath,
                                           const LinkOptions &options,
                                           std::string &error) {
  std::string clangxx =
      options.clangxx.empty()
          ? fromEnv("TFM_CLANGXX", TFM_LLVM_TOOLS_DIR "/clang++")
          : options.clangxx;
  if (!llvm::sys::fs::exists(clangxx)) {
    error = "cannot link '" + outputPath.str() + "': the C++ driver '" +
            clangxx + "' does not exist (set TFM_CLANGXX)";
    return failure();
  }
  if (!llvm::sys::fs::exists(objectPath)) {
    error = "cannot link '" + outputPath.str() + "': the object '" +
            objectPath.str() + "' does not exist";
    return failure();
  }
  std::vector<std::string> args{clangxx, "-shared", "-o", outputPath.str(),
                                objectPath.str()};
  // The runtime archives (build outputs) and libomp (found at configure
  // time) are named by absolute path in RuntimeLink.h: say which one is
  // missing rather than leave it to the linker.
  auto missing = [&](llvm::StringRef path, llvm::StringRef what,
                     llvm::StringRef hint) {
    if (llvm::sys::fs::exists(path))
      return false;
    error = ("cannot link '" + outputPath + "': " + what + " '" + path +
             "' does not exist" + hint)
                .str();
    return true;
  };
  if (options.mode == LinkMode::Model) {
    for (llvm::StringRef arg : ::tfm::runtime::kRuntimeLinkArgs) {
      if (!arg.starts_with("-") && arg.ends_with(".a") &&
          missing(arg, "the runtime archive",
                  " (build the TfmRuntime target)"))
        return failure();
      args.push_back(arg.str());
    }
  }
  // libomp serves the parallel loops of a kernel and of a CPU model; a GPU
  // model's host code has none (options.openMP is off for it).
  if (options.mode == LinkMode::Kernel || options.openMP) {
    if (!::tfm::runtime::kOpenMPLinkArgs.empty() &&
        missing(::tfm::runtime::kOpenMPLibrary,
                "the OpenMP runtime found at configure time", ""))
      return failure();
    for (llvm::StringRef arg : ::tfm::runtime::kOpenMPLinkArgs)
      args.push_back(arg.str());
  }
  // A kernel calls libm (expf, tanhf, ...) and, at 16 bits on a CPU
  // without the conversion instructions, compiler-rt's builtins
  // (__truncsfbf2); kRuntimeLinkArgs has both for a model.
  if (options.mode == LinkMode::Kernel) {
    args.push_back("-lm");
    if (*::tfm::runtime::kBuiltinsLibrary)
      args.push_back(::tfm::runtime::kBuiltinsLibrary);
  }
  // A symbol that nothing defines (a runtime helper that generated code
  // calls, an OpenMP entry point without libomp) fails the link here, not
  // the dlopen of the library later. Not in sanitizer builds: there the
  // runtime's __asan_*/__ubsan_* references are resolved by the instrumented
  // executable that loads the library (tfm-run, the tests' clients).
#ifndef TFM_SANITIZED_RUNTIME
  args.push_back("-Wl,-z,defs");
#endif

  llvm::SmallVector<llvm::StringRef> argRefs(args.begin(), args.end());
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(clangxx, argRefs, std::nullopt, {}, 0, 0,
                                     &execError);
  if (rc != 0) {
    error = "linking '" + outputPath.str() + "' failed (exit " +
            std::to_string(rc) + (execError.empty() ? "" : ", " + execError) +
            "): " + llvm::join(args, " ");
    return failure();
  }
  return success();
}

LogicalResult mlir::tfm::writeModelHeader(llvm::StringRef manifestJson,
                                          llvm::StringRef outputPath,
                                          llvm::StringRef runtimeHeader,
                                          std::string &error) {
  // The same validation the runtime applies when the library loads.
  llvm::Expected<::tfm::Manifest> manifest =
      ::tfm::Manifest::parse(manifestJson, "the model manifest");
  if (!manifest) {
    error = llvm::toString(manifest.takeError());
    return failure();
  }
  std::string headerPath =
      runtimeHeader.empty() ? std::string(::tfm::runtime::kRuntimeHeader)
                            : runtimeHeader.str();
  auto abi = llvm::MemoryBuffer::getFile(headerPath, /*IsText=*/true);
  if (!abi) {
    error = "cannot read the runtime C ABI header '" + headerPath +
            "': " + abi.getError().message();
    return failure();
  }

  const ::tfm::Manifest &m = *manifest;
  std::string inputList;
  for (llvm::StringRef input : m.inputs())
    inputList += (inputList.empty() ? "" : ", ") + input.str();

  std::error_code ec;
  llvm::ToolOutputFile out(outputPath, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write '" + outputPath.str() + "': " + ec.message();
    return failure();
  }
  llvm::raw_ostream &os = out.os();
  std::string guard = headerGuard(m.modelName);
  os << "/* " << commentText(llvm::sys::path::filename(outputPath))
     << ": generated by tfm for model '" << commentText(m.modelName)
     << "'. Do not edit.\n"
     << " *\n"
     << " * architecture: " << ::tfm::architectureName(m.architecture) << "\n"
     << " * vocab_size:   " << m.vocabSize << "\n"
     << " * max_seq_len:  " << m.maxSeqLen << "\n"
     << " * inputs:       " << inputList << "\n"
     << " * output:       " << ::tfm::outputKindName(m.output)
     << ", trailing dims [" << m.outputDim << "]\n"
     << " * weights (" << m.weights.size()
     << " tensors, in weights-table order; f32 unless marked):\n";
  for (const ::tfm::ManifestWeight &w : m.weights) {
    os << " *   " << commentText(w.name) << " [";
    llvm::interleaveComma(w.shape, os);
    os << "]";
    if (w.storage != ::tfm::Precision::F32)
      os << " " << ::tfm::precisionName(w.storage);
    os << "\n";
  }
  os << " */\n#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#define TFM_MODEL_NAME \"" << cStringContents(m.modelName) << "\"\n";
  os << "#define TFM_MODEL_VOCAB_SIZE " << m.vocabSize << "\n";
  os << "#define TFM_MODEL_MAX_SEQ_LEN " << m.maxSeqLen << "\n";
  os << "#define TFM_MODEL_NUM_WEIGHTS " << m.weights.size() << "\n\n";
  os << "/* The C ABI of the library (include/tfm/Runtime/tfm_runtime.h). */\n";
  os << (*abi)->getBuffer() << "\n#endif /* " << guard << " */\n";
  out.keep();
  return success();
}
