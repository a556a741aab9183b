//===- SharedLibrary.cpp - link a model object into a .so -----------------===//

#include "tfm/Target/SharedLibrary.h"
#include "tfm/Runtime/RuntimeLink.h"

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
  // The runtime's archives must have been built (they are build outputs,
  // named by absolute path in the generated list).
  for (llvm::StringRef arg : ::tfm::runtime::kRuntimeLinkArgs) {
    if (arg.starts_with("-") || !arg.ends_with(".a") ||
        llvm::sys::fs::exists(arg))
      continue;
    error = "cannot link '" + outputPath.str() + "': the runtime archive '" +
            arg.str() + "' does not exist (build the TfmRuntime target)";
    return failure();
  }

  std::vector<std::string> args{clangxx, "-shared", "-o", outputPath.str(),
                                objectPath.str()};
  for (const std::string &a : extraArchives)
    args.push_back(a);
  for (llvm::StringRef a : ::tfm::runtime::kRuntimeLinkArgs)
    args.push_back(a.str());
  // A symbol that nothing defines (a runtime helper that generated code
  // calls) fails the link here, not the dlopen of the library later.
  args.push_back("-Wl,-z,defs");

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
      runtimeHeader.empty() ? std::string(::tfm::runtime::kRuntimeHeader)
                            : runtimeHeader.str();
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
