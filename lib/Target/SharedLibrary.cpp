//===- SharedLibrary.cpp - link a model object into a .so -----------------===//

#include "tfm/Target/SharedLibrary.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::tfm;

namespace {

std::string fromEnv(const char *name, llvm::StringRef fallback) {
  if (std::optional<std::string> v = llvm::sys::Process::GetEnv(name))
    if (!v->empty())
      return *v;
  return fallback.str();
}

/// <dir of the running executable>/../lib
std::string defaultRuntimeLibDir() {
  std::string exe = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
  llvm::SmallString<256> dir(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(dir, "..", "lib");
  llvm::sys::path::remove_dots(dir, /*remove_dot_dot=*/true);
  return std::string(dir);
}

/// A C identifier made of `s` (upper case, other characters as '_').
std::string macroName(llvm::StringRef s) {
  std::string out;
  for (char c : s)
    out.push_back(llvm::isAlnum(c) ? llvm::toUpper(c) : '_');
  return out;
}

} // namespace

LogicalResult mlir::tfm::linkSharedLibrary(
    llvm::StringRef objectPath, llvm::StringRef outputPath,
    llvm::ArrayRef<std::string> extraArchives, const LinkOptions &options,
    std::string &error) {
  std::string clangxx =
      options.clangxx.empty()
          ? fromEnv("TFM_CLANGXX", TFM_LLVM_TOOLS_DIR "/clang++")
          : options.clangxx;
  std::string libDir = options.runtimeLibDir.empty()
                           ? fromEnv("TFM_RUNTIME_LIB_DIR",
                                     defaultRuntimeLibDir())
                           : options.runtimeLibDir;
  std::string llvmLibDir =
      options.llvmLibDir.empty() ? TFM_LLVM_LIB_DIR : options.llvmLibDir;
  std::string exportMap = options.exportMap;
  if (exportMap.empty() && llvm::sys::fs::exists(TFM_RUNTIME_EXPORT_MAP))
    exportMap = TFM_RUNTIME_EXPORT_MAP;

  auto inDir = [](llvm::StringRef dir, llvm::StringRef file) {
    llvm::SmallString<256> p(dir);
    llvm::sys::path::append(p, file);
    return std::string(p);
  };
  std::string runtime = inDir(libDir, "libTfmRuntime.a");
  std::string support = inDir(libDir, "libTfmSupport.a");
  std::string llvmSupport = inDir(llvmLibDir, "libLLVMSupport.a");
  std::string llvmDemangle = inDir(llvmLibDir, "libLLVMDemangle.a");
  for (const std::string &f :
       {clangxx, objectPath.str(), runtime, support, llvmSupport}) {
    if (!llvm::sys::fs::exists(f)) {
      error = "cannot link '" + outputPath.str() + "': '" + f +
              "' does not exist";
      if (f == runtime || f == support)
        error += " (set TFM_RUNTIME_LIB_DIR to the folder with the tfm "
                 "runtime archives)";
      return failure();
    }
  }

  std::vector<std::string> args{clangxx, "-shared", "-o", outputPath.str(),
                                objectPath.str(), "-Wl,--whole-archive",
                                runtime, "-Wl,--no-whole-archive", support};
  for (const std::string &a : extraArchives)
    args.push_back(a);
  args.push_back(llvmSupport);
  if (llvm::sys::fs::exists(llvmDemangle))
    args.push_back(llvmDemangle);
  if (!exportMap.empty())
    args.push_back("-Wl,--version-script=" + exportMap);
  for (const char *a : {"-Wl,--gc-sections", "-Wl,-z,defs", "-lpthread",
                        "-lrt", "-ldl", "-lm"})
    args.push_back(a);

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
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(manifestJson);
  if (!parsed) {
    error = "the model manifest is not valid JSON: " +
            llvm::toString(parsed.takeError());
    return failure();
  }
  const llvm::json::Object *m = parsed->getAsObject();
  if (!m) {
    error = "the model manifest is not a JSON object";
    return failure();
  }
  std::string headerPath =
      runtimeHeader.empty() ? TFM_RUNTIME_HEADER : runtimeHeader.str();
  auto abi = llvm::MemoryBuffer::getFile(headerPath, /*IsText=*/true);
  if (!abi) {
    error = "cannot read the runtime C ABI header '" + headerPath +
            "': " + abi.getError().message();
    return failure();
  }

  std::error_code ec;
  llvm::ToolOutputFile out(outputPath, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    error = "cannot write '" + outputPath.str() + "': " + ec.message();
    return failure();
  }
  llvm::raw_ostream &os = out.os();
  std::string name = m->getString("model_name").value_or("model").str();
  std::string guard = "TFM_MODEL_" + macroName(name) + "_H";
  auto dims = [](const llvm::json::Array *a) {
    std::string s;
    if (!a)
      return s;
    for (const llvm::json::Value &v : *a) {
      if (!s.empty())
        s += ", ";
      s += std::to_string(v.getAsInteger().value_or(-1));
    }
    return s;
  };
  const llvm::json::Array *weights = m->getArray("weights");
  const llvm::json::Array *inputs = m->getArray("inputs");
  std::string inputList;
  if (inputs)
    for (const llvm::json::Value &v : *inputs)
      inputList += (inputList.empty() ? "" : ", ") +
                   v.getAsString().value_or("?").str();

  os << "/* " << llvm::sys::path::filename(outputPath)
     << ": generated by tfm for model '" << name
     << "'. Do not edit.\n"
     << " *\n"
     << " * architecture: " << m->getString("architecture").value_or("?")
     << "\n"
     << " * vocab_size:   " << m->getInteger("vocab_size").value_or(-1) << "\n"
     << " * max_seq_len:  " << m->getInteger("max_seq_len").value_or(-1)
     << "\n"
     << " * inputs:       " << inputList << "\n"
     << " * output:       " << m->getString("output").value_or("?")
     << ", trailing dims [" << dims(m->getArray("output_dims")) << "]\n"
     << " * weights (" << (weights ? weights->size() : 0)
     << " tensors, f32, in weights-table order):\n";
  if (weights)
    for (const llvm::json::Value &w : *weights) {
      const llvm::json::Object *o = w.getAsObject();
      if (!o)
        continue;
      os << " *   " << o->getString("name").value_or("?") << " ["
         << dims(o->getArray("shape")) << "]\n";
    }
  os << " */\n#ifndef " << guard << "\n#define " << guard << "\n\n";
  os << "#define TFM_MODEL_NAME \"" << name << "\"\n";
  os << "#define TFM_MODEL_VOCAB_SIZE "
     << m->getInteger("vocab_size").value_or(-1) << "\n";
  os << "#define TFM_MODEL_MAX_SEQ_LEN "
     << m->getInteger("max_seq_len").value_or(-1) << "\n";
  os << "#define TFM_MODEL_NUM_WEIGHTS " << (weights ? weights->size() : 0)
     << "\n\n";
  os << "/* The C ABI of the library (include/tfm/Runtime/tfm_runtime.h). */\n";
  os << (*abi)->getBuffer() << "\n#endif /* " << guard << " */\n";
  out.keep();
  return success();
}
