//===- tfm-run.cpp - run a compiled tfm model -----------------------------===//
//
//   tfm-run model.so [--weights W] --tokens ids.npy [--lengths len.npy]
//           [--decoder-tokens tgt.npy] [--decoder-lengths len.npy]
//           [--out out.npy] [--top-k N] [--threads N]
//   tfm-run --check-weights W --manifest manifest.json
//   tfm-run --list-weights W
//
// Loads the model through its C ABI only (dlopen + dlsym), so it exercises
// exactly what any other host would. See docs/tfm-run.md.
//
//===----------------------------------------------------------------------===//

#include "tfm/Runtime/Loader.h"
#include "tfm/Runtime/tfm_runtime.h"
#include "tfm/Support/Npy.h"
#include "tfm/Support/InputFiles.h"
#include "tfm/Support/SafeTensors.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

using namespace tfm;
using llvm::StringRef;

namespace {

/// Exit codes (docs/tfm-run.md).
enum ExitCode : int {
  Success = 0,
  /// Bad command line, unreadable or invalid .npy/.json input files.
  InputError = 1,
  /// The library cannot be loaded, is not a tfm model, or its weights do not
  /// load (tfm_model_create failed); --check-weights failures.
  LoadError = 2,
  /// The forward call rejected the inputs.
  RunError = 3,
  /// The output file cannot be written.
  OutputError = 4,
};

llvm::cl::OptionCategory category("tfm-run options");

llvm::cl::opt<std::string> modelPath(llvm::cl::Positional,
                                     llvm::cl::desc("<model.so>"),
                                     llvm::cl::cat(category));
llvm::cl::opt<std::string>
    weightsPath("weights",
                llvm::cl::desc("Safetensors file or folder (default: the "
                               "weights embedded in the library)"),
                llvm::cl::value_desc("path"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    tokensPath("tokens",
               llvm::cl::desc("Token ids, int32/int64 .npy, [batch, seq] or "
                              "[seq] (the encoder input of seq2seq models)"),
               llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    lengthsPath("lengths",
                llvm::cl::desc("Valid tokens per sequence, .npy [batch]"),
                llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string> decoderTokensPath(
    "decoder-tokens",
    llvm::cl::desc("Decoder token ids of an encoder-decoder model"),
    llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string> decoderLengthsPath(
    "decoder-lengths",
    llvm::cl::desc("Valid decoder tokens per sequence, .npy [batch]"),
    llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    outPath("out",
            llvm::cl::desc("Write the output as float32 .npy instead of "
                           "printing a summary"),
            llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
/// --threads. libLLVM.so registers a hidden option named "threads" of its
/// own (unused by tfm-run), so this one is created in main, after that one
/// has been unregistered; a global would abort at load time ("registered
/// more than once").
llvm::cl::opt<int> &numThreadsOption() {
  static llvm::cl::opt<int> *option = [] {
    if (llvm::cl::Option *llvmOwn =
            llvm::cl::getRegisteredOptions().lookup("threads"))
      llvmOwn->removeArgument();
    return new llvm::cl::opt<int>(
        "threads",
        llvm::cl::desc("Threads for the model's parallel loops "
                       "(tfm_model_set_num_threads; 0: one per core, the "
                       "default)"),
        llvm::cl::value_desc("N"), llvm::cl::init(0), llvm::cl::cat(category));
  }();
  return *option;
}
llvm::cl::opt<unsigned> topK("top-k",
                             llvm::cl::desc("Tokens to print per sequence"),
                             llvm::cl::init(5), llvm::cl::cat(category));
llvm::cl::opt<bool> printManifest("print-manifest",
                                  llvm::cl::desc("Print the model's manifest "
                                                 "JSON (no weights needed) "
                                                 "and exit"),
                                  llvm::cl::cat(category));
llvm::cl::opt<std::string> checkWeights(
    "check-weights",
    llvm::cl::desc("Validate a weights file against --manifest the way "
                   "tfm_model_create does, without a model library"),
    llvm::cl::value_desc("path"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    manifestPath("manifest",
                 llvm::cl::desc("Manifest JSON for --check-weights"),
                 llvm::cl::value_desc("file.json"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    listWeights("list-weights",
                llvm::cl::desc("Validate a safetensors file or folder and "
                               "list its tensors"),
                llvm::cl::value_desc("path"), llvm::cl::cat(category));

int error(int code, const llvm::Twine &message) {
  llvm::WithColor::error(llvm::errs(), "tfm-run") << message << "\n";
  return code;
}

//===----------------------------------------------------------------------===//
// Weight-only modes
//===----------------------------------------------------------------------===//

int runListWeights() {
  llvm::Expected<WeightSet> set = WeightSet::open(listWeights);
  if (!set)
    return error(LoadError, llvm::toString(set.takeError()));
  for (const auto &file : set->files()) {
    llvm::outs() << "file " << file->path() << "\n";
    std::vector<std::pair<std::string, std::string>> meta;
    for (const auto &entry : file->metadata())
      meta.emplace_back(entry.getKey().str(), entry.getValue());
    llvm::sort(meta);
    for (const auto &[k, v] : meta)
      llvm::outs() << "  metadata " << k << " = " << v << "\n";
    for (const TensorInfo &t : file->tensors())
      llvm::outs() << "  " << t.name << " " << dtypeName(t.dtype) << " "
                   << runtime::formatShape(t.shape) << " [" << t.begin << ", "
                   << t.end << ")\n";
  }
  return Success;
}

int runCheckWeights() {
  if (manifestPath.empty())
    return error(InputError, "--check-weights needs --manifest");
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> text =
      readRegularFile(manifestPath, /*isText=*/true);
  if (!text)
    return error(InputError, llvm::toString(text.takeError()));
  llvm::Expected<Manifest> manifest =
      Manifest::parse((*text)->getBuffer(), manifestPath);
  if (!manifest)
    return error(InputError, llvm::toString(manifest.takeError()));
  llvm::Expected<WeightSet> set = WeightSet::open(checkWeights);
  if (!set)
    return error(LoadError, llvm::toString(set.takeError()));
  llvm::Expected<runtime::BoundWeights> bound = runtime::bindWeights(
      *manifest, std::make_unique<WeightSet>(std::move(*set)),
      /*failure=*/nullptr, /*withPrepared=*/false);
  if (!bound)
    return error(LoadError, llvm::toString(bound.takeError()));
  llvm::outs() << "ok: " << manifest->weights.size() << " weights of model '"
               << manifest->modelName << "' bound (" << bound->zeroCopy
               << " zero-copy, " << bound->converted << " converted)\n";
  return Success;
}

//===----------------------------------------------------------------------===//
// Running a model
//===----------------------------------------------------------------------===//

/// The C ABI, resolved with dlsym.
struct Api {
  decltype(&tfm_model_create) create;
  decltype(&tfm_model_destroy) destroy;
  decltype(&tfm_model_forward) forward;
  decltype(&tfm_model_forward_seq2seq) forwardSeq2seq;
  decltype(&tfm_model_output_shape) outputShape;
  decltype(&tfm_model_info) info;
  decltype(&tfm_library_info) libraryInfo;
  decltype(&tfm_last_error) lastError;
  decltype(&tfm_model_set_num_threads) setNumThreads;
};

struct Tokens {
  std::vector<int32_t> ids;
  int64_t batch = 0, seq = 0;
};

llvm::Expected<Tokens> readTokens(StringRef path) {
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return array.takeError();
  Tokens tokens;
  if (array->shape.size() == 1) {
    tokens.batch = 1;
    tokens.seq = array->shape[0];
  } else if (array->shape.size() == 2) {
    tokens.batch = array->shape[0];
    tokens.seq = array->shape[1];
  } else {
    return llvm::createStringError(
        path + ": token ids must have shape [batch, seq] or [seq], found " +
        runtime::formatShape(array->shape));
  }
  llvm::Expected<std::vector<int32_t>> ids = array->toInt32(path);
  if (!ids)
    return ids.takeError();
  tokens.ids = std::move(*ids);
  return tokens;
}

/// Reads an optional lengths file; an empty path gives an empty vector.
llvm::Expected<std::vector<int32_t>> readLengths(StringRef path,
                                                 int64_t batch) {
  if (path.empty())
    return std::vector<int32_t>{};
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return array.takeError();
  if (array->shape.size() != 1 || array->shape[0] != batch)
    return llvm::createStringError(
        path + ": lengths must have shape [" + llvm::Twine(batch) +
        "] (one per sequence), found " + runtime::formatShape(array->shape));
  return array->toInt32(path);
}

void printSummary(OutputKind output, llvm::ArrayRef<float> values,
                  llvm::ArrayRef<int64_t> shape,
                  llvm::ArrayRef<int32_t> lengths) {
  auto softmax = [](llvm::ArrayRef<float> logits) {
    std::vector<double> p(logits.begin(), logits.end());
    double max = *std::max_element(p.begin(), p.end());
    double sum = 0;
    for (double &v : p)
      sum += (v = std::exp(v - max));
    for (double &v : p)
      v /= sum;
    return p;
  };
  if (output == OutputKind::Classes) {
    int64_t classes = shape[1];
    for (int64_t b = 0; b < shape[0]; ++b) {
      std::vector<double> p = softmax(values.slice(b * classes, classes));
      llvm::outs() << "sequence " << b << ": class probabilities\n";
      for (int64_t c = 0; c < classes; ++c)
        llvm::outs() << "  class " << c << "  "
                     << llvm::format("%.6f", p[c]) << "\n";
    }
    return;
  }
  if (output != OutputKind::Logits) {
    llvm::outs() << "output '" << outputKindName(output) << "' "
                 << runtime::formatShape(shape)
                 << " computed; pass --out to save it\n";
    return;
  }
  int64_t seq = shape[1], vocab = shape[2];
  for (int64_t b = 0; b < shape[0]; ++b) {
    int64_t position = (lengths.empty() ? seq : lengths[b]) - 1;
    std::vector<double> p =
        softmax(values.slice((b * seq + position) * vocab, vocab));
    std::vector<int64_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    int64_t k = std::min<int64_t>(topK, vocab);
    std::partial_sort(order.begin(), order.begin() + k, order.end(),
                      [&](int64_t x, int64_t y) {
                        return p[x] > p[y] || (p[x] == p[y] && x < y);
                      });
    llvm::outs() << "sequence " << b << ", position " << position << ": top-"
                 << k << " next tokens\n";
    for (int64_t i = 0; i < k; ++i)
      llvm::outs() << "  token " << order[i] << "  "
                   << llvm::format("%.6f", p[order[i]]) << "\n";
  }
}

int runModel() {
  if (modelPath.empty())
    return error(InputError, "no model library given (see --help)");

  // Inputs first: they are cheap to check and need no library.
  Tokens tokens, decoderTokens;
  std::vector<int32_t> lengths, decoderLengths;
  if (!printManifest) {
    if (tokensPath.empty())
      return error(InputError, "--tokens is required");
    llvm::Expected<Tokens> t = readTokens(tokensPath);
    if (!t)
      return error(InputError, llvm::toString(t.takeError()));
    tokens = std::move(*t);
    llvm::Expected<std::vector<int32_t>> l =
        readLengths(lengthsPath, tokens.batch);
    if (!l)
      return error(InputError, llvm::toString(l.takeError()));
    lengths = std::move(*l);
    if (!decoderTokensPath.empty()) {
      llvm::Expected<Tokens> d = readTokens(decoderTokensPath);
      if (!d)
        return error(InputError, llvm::toString(d.takeError()));
      decoderTokens = std::move(*d);
      if (decoderTokens.batch != tokens.batch)
        return error(InputError, decoderTokensPath + ": batch " +
                                     llvm::Twine(decoderTokens.batch) +
                                     " differs from --tokens batch " +
                                     llvm::Twine(tokens.batch));
      llvm::Expected<std::vector<int32_t>> dl =
          readLengths(decoderLengthsPath, tokens.batch);
      if (!dl)
        return error(InputError, llvm::toString(dl.takeError()));
      decoderLengths = std::move(*dl);
    } else if (!decoderLengthsPath.empty()) {
      return error(InputError, "--decoder-lengths needs --decoder-tokens");
    }
  }

  // dlopen searches the library path for names without a slash.
  std::string path = modelPath;
  if (StringRef(path).find('/') == StringRef::npos)
    path = "./" + path;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return error(LoadError,
                 "cannot load '" + modelPath + "': " + dlerror());
  Api api;
  auto lookup = [&](auto &fn, const char *name) {
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(
        dlsym(handle, name));
    return fn != nullptr;
  };
  if (!lookup(api.create, "tfm_model_create") ||
      !lookup(api.destroy, "tfm_model_destroy") ||
      !lookup(api.forward, "tfm_model_forward") ||
      !lookup(api.forwardSeq2seq, "tfm_model_forward_seq2seq") ||
      !lookup(api.outputShape, "tfm_model_output_shape") ||
      !lookup(api.info, "tfm_model_info") ||
      !lookup(api.libraryInfo, "tfm_library_info") ||
      !lookup(api.lastError, "tfm_last_error"))
    return error(LoadError, "'" + modelPath +
                                "' is not a tfm model library (it lacks the "
                                "tfm_* C ABI of tfm_runtime.h)");
  // Libraries built before the thread-count entry point lack it; only
  // --threads needs it.
  lookup(api.setNumThreads, "tfm_model_set_num_threads");
  llvm::cl::opt<int> &numThreads = numThreadsOption();
  if (numThreads.getNumOccurrences() && !api.setNumThreads)
    return error(LoadError, "'" + modelPath +
                                "' does not export tfm_model_set_num_threads "
                                "(built by an older tfm): drop --threads");

  const char *manifest = nullptr;
  if (api.libraryInfo(&manifest) != TFM_OK)
    return error(LoadError, api.lastError());
  if (printManifest) {
    llvm::outs() << manifest << "\n";
    return Success;
  }

  tfm_model *model = nullptr;
  if (api.create(weightsPath.empty() ? nullptr : weightsPath.c_str(),
                 &model) != TFM_OK)
    return error(LoadError, api.lastError());
  llvm::scope_exit destroy([&] { api.destroy(model); });
  // tfm_model_create has validated the manifest (and reported a bad one
  // in its own words); parsed again here for the inputs and the summary.
  llvm::Expected<Manifest> parsed =
      Manifest::parse(manifest, modelPath + ": tfm_library_info");
  if (!parsed)
    return error(LoadError, llvm::toString(parsed.takeError()));
  if (numThreads.getNumOccurrences() &&
      api.setNumThreads(model, numThreads) != TFM_OK)
    return error(InputError, "--threads: " + llvm::Twine(api.lastError()));

  bool seq2seq = parsed->architecture == Architecture::EncoderDecoder;
  if (seq2seq && decoderTokensPath.empty())
    return error(InputError, "'" + modelPath + "' is an encoder-decoder " +
                                 "model: pass --decoder-tokens");
  if (!seq2seq && !decoderTokensPath.empty())
    return error(InputError, "--decoder-tokens given but '" + modelPath +
                                 "' is not an encoder-decoder model");

  int64_t outSeq = seq2seq ? decoderTokens.seq : tokens.seq;
  int64_t shape[3];
  int rank;
  if (api.outputShape(model, tokens.batch, outSeq, shape, &rank) != TFM_OK)
    return error(RunError, api.lastError());
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i)
    elements *= shape[i];
  std::vector<float> out(static_cast<size_t>(elements));

  tfm_status status =
      seq2seq
          ? api.forwardSeq2seq(
                model, tokens.ids.data(), tokens.batch, tokens.seq,
                lengths.empty() ? nullptr : lengths.data(),
                decoderTokens.ids.data(), decoderTokens.seq,
                decoderLengths.empty() ? nullptr : decoderLengths.data(),
                out.data(), out.size())
          : api.forward(model, tokens.ids.data(), tokens.batch, tokens.seq,
                        lengths.empty() ? nullptr : lengths.data(), out.data(),
                        out.size());
  if (status != TFM_OK)
    return error(RunError, api.lastError());

  llvm::ArrayRef<int64_t> outShape(shape, rank);
  if (!outPath.empty()) {
    if (llvm::Error e = writeNpyF32(outPath, outShape, out))
      return error(OutputError, llvm::toString(std::move(e)));
    return Success;
  }
  printSummary(parsed->output, out, outShape,
               seq2seq ? decoderLengths : lengths);
  return Success;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  numThreadsOption();
  llvm::cl::HideUnrelatedOptions(category);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "tfm-run: run a model compiled by tfmc\n\n"
      "  tfm-run model.so [--weights W] --tokens ids.npy [--lengths l.npy]\n"
      "          [--decoder-tokens tgt.npy] [--out out.npy] [--threads N]\n"
      "  tfm-run --check-weights W --manifest manifest.json\n"
      "  tfm-run --list-weights W\n");
  if (!listWeights.empty())
    return runListWeights();
  if (!checkWeights.empty())
    return runCheckWeights();
  return runModel();
}
