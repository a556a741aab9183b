//===- tfm-run.cpp - run a compiled tfm model -----------------------------===//
//
//   tfm-run model.so [--weights W] --tokens ids.npy [--lengths len.npy]
//           [--decoder-tokens tgt.npy] [--decoder-lengths len.npy]
//   tfm-run model.so [--weights W] --tokens ids.npy
//           [--attention-mask mask.npy] [--position-ids pos.npy]
//   tfm-run model.so [--weights W] --pixels images.npy   (image models)
//           [--out out.npy] [--top-k N] [--threads N]
//   tfm-run model.so [--weights W] --prompt-ids 5,17,3 [--prompt-ids ...]
//           --max-new-tokens N [--greedy | --top-k K | --top-p P]
//           [--temperature T] [--seed S] [--stop-id ID] [--no-cache]
//   tfm-run model.so [--weights W] --prompt-ids 5,17,3 [--prompt-ids ...]
//           --max-new-tokens N --beam B [--length-penalty A]
//           [--length-penalty-form gnmt|power]
//           [--num-return N] [--stop-id ID] [--no-cache]
//   tfm-run --check-weights W --manifest manifest.json
//   tfm-run --list-weights W
//
// Loads the model through its C ABI only (dlopen + dlsym), so it exercises
// exactly what any other host would. See docs/tfm-run.md.
//
// Generation (--prompt-ids) runs a tfm_session: one prefill of every prompt,
// then one decode step per token. Picking the next token from the logits
// (greedy, top-k, top-p, temperature) is done here: it is the host's choice,
// not model arithmetic; so is beam search (--beam), which moves the beams'
// caches between slots with tfm_session_copy_slot. --no-cache generates the
// same way with a forward pass over each whole sequence per token, the
// reference the session is tested against.
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
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <random>
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
    pixelsPath("pixels",
               llvm::cl::desc("Images of an image model (ViT), float32 .npy "
                              "[batch, channels, height, width] or "
                              "[channels, height, width]"),
               llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    lengthsPath("lengths",
                llvm::cl::desc("Valid tokens per sequence, .npy [batch]"),
                llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string> attentionMaskPath(
    "attention-mask",
    llvm::cl::desc("Hugging Face's attention_mask, integer .npy [batch, seq] "
                   "of 0 and 1: padding on the left, the right or both"),
    llvm::cl::value_desc("file.npy"), llvm::cl::cat(category));
llvm::cl::opt<std::string> positionIdsPath(
    "position-ids",
    llvm::cl::desc("Hugging Face's position_ids, integer .npy [batch, seq] "
                   "(default: as the Hugging Face model's forward computes "
                   "them: the index in the padded row)"),
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
/// Two meanings, one idea (the K most likely tokens): how many the summary
/// of a forward run lists, and what generation samples from.
llvm::cl::opt<int>
    topK("top-k",
         llvm::cl::desc("Tokens to print per sequence (default 5); with "
                        "--prompt-ids, sample among the K most likely"),
         llvm::cl::value_desc("K"), llvm::cl::init(5), llvm::cl::cat(category));
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

// Generation.
llvm::cl::list<std::string> promptIds(
    "prompt-ids",
    llvm::cl::desc("Generate from this prompt: token ids separated by commas "
                   "(repeat for several prompts, generated together)"),
    llvm::cl::value_desc("5,17,3"), llvm::cl::cat(category));
llvm::cl::list<std::string> sourceIds(
    "source-ids",
    llvm::cl::desc("Encoder-decoder models: the source of each --prompt-ids, "
                   "in order (token ids separated by commas); each "
                   "--prompt-ids is then the decoder's prefix, e.g. its start "
                   "token"),
    llvm::cl::value_desc("5,17,3"), llvm::cl::cat(category));
llvm::cl::opt<int> maxNewTokens(
    "max-new-tokens",
    llvm::cl::desc("Tokens to generate per prompt (fewer when a --stop-id "
                   "comes first)"),
    llvm::cl::value_desc("N"), llvm::cl::init(-1), llvm::cl::cat(category));
llvm::cl::opt<bool>
    greedy("greedy",
           llvm::cl::desc("Pick the most likely token (the default; lowest "
                          "id on ties)"),
           llvm::cl::cat(category));
llvm::cl::opt<double>
    topP("top-p",
         llvm::cl::desc("Sample from the most likely tokens whose "
                        "probabilities add up to at least P, in (0, 1]"),
         llvm::cl::value_desc("P"), llvm::cl::init(1.0),
         llvm::cl::cat(category));
llvm::cl::opt<double> temperature(
    "temperature",
    llvm::cl::desc("Divide the logits by T > 0 before sampling (default 1)"),
    llvm::cl::value_desc("T"), llvm::cl::init(1.0), llvm::cl::cat(category));
llvm::cl::opt<unsigned long long>
    seed("seed",
         llvm::cl::desc("Seed of the sampler's std::mt19937_64 (default 0)"),
         llvm::cl::value_desc("S"), llvm::cl::init(0), llvm::cl::cat(category));
llvm::cl::list<int>
    stopIds("stop-id",
            llvm::cl::desc("Stop a sequence after it generates this token "
                           "(included in the output; may be repeated)"),
            llvm::cl::value_desc("ID"), llvm::cl::cat(category));
llvm::cl::opt<int> beamWidth(
    "beam",
    llvm::cl::desc("Beam search with B >= 1 beams per prompt instead of "
                   "picking one token at a time: the sequence with the best "
                   "length-normalized log-probability"),
    llvm::cl::value_desc("B"), llvm::cl::init(0), llvm::cl::cat(category));
/// How beam search normalizes a hypothesis's log-probability by its length
/// n (docs/tfm-run.md, "Beam search").
enum class PenaltyForm {
  /// ((5 + n) / 6)^A: Wu et al. (2016), the penalty of the Transformer
  /// paper's beam search (Vaswani et al. 2017: B = 4, A = 0.6).
  GNMT,
  /// n^A: Hugging Face transformers' `length_penalty`.
  Power,
};
llvm::cl::opt<PenaltyForm> lengthPenaltyForm(
    "length-penalty-form",
    llvm::cl::desc("Beam search: how a hypothesis's log-probability is "
                   "normalized by its n new tokens"),
    llvm::cl::values(
        clEnumValN(PenaltyForm::GNMT, "gnmt",
                   "divided by ((5 + n) / 6)^A, Wu et al. 2016 (the "
                   "default; A defaults to 0.6)"),
        clEnumValN(PenaltyForm::Power, "power",
                   "divided by n^A, Hugging Face transformers' "
                   "length_penalty (A defaults to 1)")),
    llvm::cl::init(PenaltyForm::GNMT), llvm::cl::cat(category));
llvm::cl::opt<double> lengthPenalty(
    "length-penalty",
    llvm::cl::desc("Beam search: the exponent A of the length penalty "
                   "(--length-penalty-form; default 0.6 for gnmt, 1 for "
                   "power; 0: no normalization)"),
    llvm::cl::value_desc("A"), llvm::cl::init(0.6), llvm::cl::cat(category));
llvm::cl::opt<int> numReturn(
    "num-return",
    llvm::cl::desc("Beam search: also print the N best hypotheses of each "
                   "prompt with their scores, 1 <= N <= B"),
    llvm::cl::value_desc("N"), llvm::cl::init(1), llvm::cl::cat(category));
llvm::cl::opt<bool>
    noCache("no-cache",
            llvm::cl::desc("Debugging aid: generate without a session, by a "
                           "forward pass over each whole sequence per token"),
            llvm::cl::cat(category));

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
// The library and the inputs
//===----------------------------------------------------------------------===//

/// The C ABI, resolved with dlsym.
struct Api {
  decltype(&tfm_model_create) create;
  decltype(&tfm_model_destroy) destroy;
  decltype(&tfm_model_forward) forward;
  decltype(&tfm_model_forward_seq2seq) forwardSeq2seq;
  /// Null in libraries built before attention masks.
  decltype(&tfm_model_forward_masked) forwardMasked;
  /// Null in libraries built before image models.
  decltype(&tfm_model_forward_pixels) forwardPixels;
  decltype(&tfm_model_output_shape) outputShape;
  decltype(&tfm_model_info) info;
  decltype(&tfm_library_info) libraryInfo;
  decltype(&tfm_last_error) lastError;
  decltype(&tfm_model_set_num_threads) setNumThreads;
  /// Generation sessions; null in libraries built before them.
  decltype(&tfm_session_create) sessionCreate;
  decltype(&tfm_session_destroy) sessionDestroy;
  decltype(&tfm_session_prefill) sessionPrefill;
  decltype(&tfm_session_decode) sessionDecode;
  decltype(&tfm_session_copy_slot) sessionCopySlot;
  decltype(&tfm_session_encode) sessionEncode;
};

/// Images for tfm_model_forward_pixels: [batch, channels, height, width].
struct Pixels {
  std::vector<float> values;
  std::vector<int64_t> shape;
};

llvm::Expected<Pixels> readPixels(StringRef path) {
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return array.takeError();
  if (array->dtype != DType::F32)
    return llvm::createStringError(path + ": pixels must be float32");
  Pixels pixels;
  pixels.shape = array->shape;
  if (pixels.shape.size() == 3)
    pixels.shape.insert(pixels.shape.begin(), 1);
  if (pixels.shape.size() != 4)
    return llvm::createStringError(
        path +
        ": pixels must have shape [batch, channels, height, width] "
        "or [channels, height, width], found " +
        runtime::formatShape(array->shape));
  pixels.values.resize(array->numElements());
  std::memcpy(pixels.values.data(), array->data.data(),
              pixels.values.size() * sizeof(float));
  return pixels;
}

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

/// Reads an optional [batch, seq] integer file (--attention-mask,
/// --position-ids); an empty path gives an empty vector.
llvm::Expected<std::vector<int32_t>>
readPerToken(StringRef path, const Tokens &tokens, StringRef what) {
  if (path.empty())
    return std::vector<int32_t>{};
  llvm::Expected<NpyArray> array = readNpy(path);
  if (!array)
    return array.takeError();
  std::vector<int64_t> expected{tokens.batch, tokens.seq};
  // A single sequence's tokens may be [seq]; so may its mask.
  if (array->shape != expected &&
      !(tokens.batch == 1 && array->shape.size() == 1 &&
        array->shape[0] == tokens.seq))
    return llvm::createStringError(path + ": " + what +
                                   " must have the shape of the token ids " +
                                   runtime::formatShape(expected) + ", found " +
                                   runtime::formatShape(array->shape));
  return array->toInt32(path);
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

/// A model library opened with dlopen: its C ABI and its manifest.
struct Library {
  Api api;
  /// The manifest text (tfm_library_info) and its parse.
  const char *manifestText = nullptr;
  Manifest manifest;
};

/// Opens --model's library and resolves the C ABI. Returns an exit code.
int openLibrary(Library &lib) {
  // dlopen searches the library path for names without a slash.
  std::string path = modelPath;
  if (StringRef(path).find('/') == StringRef::npos)
    path = "./" + path;
  void *handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle)
    return error(LoadError, "cannot load '" + modelPath + "': " + dlerror());
  Api &api = lib.api;
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
  // Libraries built before the thread-count and session entry points lack
  // them; only --threads and generation need them.
  lookup(api.setNumThreads, "tfm_model_set_num_threads");
  lookup(api.forwardPixels, "tfm_model_forward_pixels");
  lookup(api.forwardMasked, "tfm_model_forward_masked");
  lookup(api.sessionCreate, "tfm_session_create");
  lookup(api.sessionDestroy, "tfm_session_destroy");
  lookup(api.sessionPrefill, "tfm_session_prefill");
  lookup(api.sessionDecode, "tfm_session_decode");
  lookup(api.sessionCopySlot, "tfm_session_copy_slot");
  lookup(api.sessionEncode, "tfm_session_encode");
  if (numThreadsOption().getNumOccurrences() && !api.setNumThreads)
    return error(LoadError, "'" + modelPath +
                                "' does not export tfm_model_set_num_threads "
                                "(built by an older tfm): drop --threads");

  if (api.libraryInfo(&lib.manifestText) != TFM_OK)
    return error(LoadError, api.lastError());
  if (printManifest)
    return Success;
  // tfm_model_create validates the manifest too (and reports a bad one in
  // its own words, which the tests expect): a parse failure here is only
  // reported if create succeeds.
  llvm::Expected<Manifest> parsed =
      Manifest::parse(lib.manifestText, modelPath + ": tfm_library_info");
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return Success;
  }
  lib.manifest = std::move(*parsed);
  return Success;
}

/// Creates the model with --weights and applies --threads. Returns an exit
/// code; on success the caller owns `model`.
int createModel(Library &lib, tfm_model *&model) {
  const Api &api = lib.api;
  if (api.create(weightsPath.empty() ? nullptr : weightsPath.c_str(), &model) !=
      TFM_OK)
    return error(LoadError, api.lastError());
  llvm::Expected<Manifest> parsed =
      Manifest::parse(lib.manifestText, modelPath + ": tfm_library_info");
  if (!parsed) {
    api.destroy(model);
    model = nullptr;
    return error(LoadError, llvm::toString(parsed.takeError()));
  }
  lib.manifest = std::move(*parsed);
  llvm::cl::opt<int> &numThreads = numThreadsOption();
  if (numThreads.getNumOccurrences() &&
      api.setNumThreads(model, numThreads) != TFM_OK) {
    std::string message = api.lastError();
    api.destroy(model);
    model = nullptr;
    return error(InputError, "--threads: " + llvm::Twine(message));
  }
  return Success;
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

/// How the next token is picked from a row of logits. Glue, not model
/// arithmetic: every host picks its own way; this one is specified exactly
/// so that a seed gives the same tokens with any standard library.
class Sampler {
public:
  /// Greedy when neither topK nor topP is set.
  Sampler(std::optional<int64_t> topK, std::optional<double> topP,
          double temperature, uint64_t seed)
      : topK(topK), topP(topP), temperature(temperature), rng(seed) {}

  bool isGreedy() const { return !topK && !topP; }

  /// The next token. Greedy: the largest logit, the lowest id on ties.
  /// Sampling: the ids ordered by logit (descending, then by id), the first
  /// K of them (top-k), probabilities from a float64 softmax of logit / T
  /// over those, then (top-p) the shortest prefix whose mass reaches P;
  /// one draw u in [0, 1) from the top 53 bits of the next mt19937_64
  /// output picks the first id of that prefix whose cumulative mass
  /// exceeds u times the prefix's mass. NaN logits count as -infinity; if
  /// the largest is not finite, the first id in that order is taken.
  int32_t next(llvm::ArrayRef<float> logits) {
    auto key = [&](int32_t v) {
      float x = logits[v];
      return std::isnan(x) ? -std::numeric_limits<float>::infinity() : x;
    };
    int32_t vocab = static_cast<int32_t>(logits.size());
    if (isGreedy()) {
      int32_t best = 0;
      for (int32_t v = 1; v < vocab; ++v)
        if (key(v) > key(best))
          best = v;
      return best;
    }
    std::vector<int32_t> order(vocab);
    std::iota(order.begin(), order.end(), 0);
    auto before = [&](int32_t x, int32_t y) {
      return key(x) > key(y) || (key(x) == key(y) && x < y);
    };
    size_t kept = topK ? std::min<size_t>(*topK, order.size()) : order.size();
    std::partial_sort(order.begin(), order.begin() + kept, order.end(), before);
    order.resize(kept);
    // A draw is taken in every case, so that a sequence's later draws do
    // not depend on whether its logits were finite.
    double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    double largest = key(order[0]) / temperature;
    if (!std::isfinite(largest))
      return order[0];
    std::vector<double> mass(kept);
    double total = 0;
    for (size_t i = 0; i < kept; ++i)
      total += mass[i] = std::exp(key(order[i]) / temperature - largest);
    if (topP) {
      double cumulative = 0;
      size_t prefix = 0;
      while (prefix < kept) {
        cumulative += mass[prefix++];
        if (cumulative >= *topP * total)
          break;
      }
      kept = prefix;
      total = cumulative;
    }
    double target = u * total, cumulative = 0;
    for (size_t i = 0; i < kept; ++i) {
      cumulative += mass[i];
      if (target < cumulative)
        return order[i];
    }
    return order[kept - 1];
  }

private:
  std::optional<int64_t> topK;
  std::optional<double> topP;
  double temperature;
  std::mt19937_64 rng;
};

/// --prompt-ids: "5,17,3" per occurrence.
llvm::Expected<std::vector<std::vector<int32_t>>>
parseIdLists(const llvm::cl::list<std::string> &option, StringRef name) {
  std::vector<std::vector<int32_t>> prompts;
  for (const std::string &text : option) {
    std::vector<int32_t> &prompt = prompts.emplace_back();
    llvm::SmallVector<StringRef> pieces;
    StringRef(text).split(pieces, ',');
    for (StringRef piece : pieces) {
      long long id;
      if (piece.trim().getAsInteger(10, id) || id < INT32_MIN || id > INT32_MAX)
        return llvm::createStringError(
            "--" + name + " '" + text + "': '" + piece.trim() +
            "' is not a token id (give ids separated by commas, e.g. "
            "5,17,3)");
      prompt.push_back(static_cast<int32_t>(id));
    }
  }
  return prompts;
}

llvm::Expected<std::vector<std::vector<int32_t>>> parsePrompts() {
  return parseIdLists(promptIds, "prompt-ids");
}

/// Encoder-decoder models: the source of each prompt (--source-ids); empty
/// for decoders.
std::vector<std::vector<int32_t>> sources;

/// Row i's logits after the last token of `sequences[i]`, by one forward
/// pass over all of them (--no-cache); `rowSources[i]` is row i's source
/// for an encoder-decoder model (the sources are empty for decoders).
tfm_status forwardLast(const Api &api, tfm_model *model, int64_t vocab,
                       const std::vector<std::vector<int32_t>> &sequences,
                       llvm::ArrayRef<const std::vector<int32_t> *> rowSources,
                       std::vector<float> &logits) {
  int64_t n = sequences.size();
  size_t seq = 1, srcSeq = 1;
  for (const std::vector<int32_t> &sequence : sequences)
    seq = std::max(seq, sequence.size());
  for (const std::vector<int32_t> *source : rowSources)
    srcSeq = std::max(srcSeq, source->size());
  std::vector<int32_t> ids(n * seq, 0), lengths;
  for (auto [i, sequence] : llvm::enumerate(sequences)) {
    llvm::copy(sequence, ids.begin() + i * seq);
    lengths.push_back(static_cast<int32_t>(sequence.size()));
  }
  std::vector<float> out(n * seq * vocab);
  tfm_status status;
  if (rowSources.empty()) {
    status = api.forward(model, ids.data(), n, seq, lengths.data(), out.data(),
                         out.size());
  } else {
    std::vector<int32_t> src(n * srcSeq, 0), srcLengths;
    for (auto [i, source] : llvm::enumerate(rowSources)) {
      llvm::copy(*source, src.begin() + i * srcSeq);
      srcLengths.push_back(static_cast<int32_t>(source->size()));
    }
    status = api.forwardSeq2seq(model, src.data(), n, srcSeq,
                                srcLengths.data(), ids.data(), seq,
                                lengths.data(), out.data(), out.size());
  }
  if (status != TFM_OK)
    return status;
  logits.resize(n * vocab);
  for (int64_t i = 0; i < n; ++i)
    std::copy_n(&out[(i * seq + lengths[i] - 1) * vocab], vocab,
                &logits[i * vocab]);
  return TFM_OK;
}

/// Encodes row i's source into slot `slots[i]` (encoder-decoder sessions).
tfm_status encodeSlots(const Api &api, tfm_session *session,
                       llvm::ArrayRef<int64_t> slots,
                       llvm::ArrayRef<const std::vector<int32_t> *> rowSources) {
  int64_t n = slots.size();
  size_t srcSeq = 1;
  for (const std::vector<int32_t> *source : rowSources)
    srcSeq = std::max(srcSeq, source->size());
  std::vector<int32_t> src(n * srcSeq, 0), srcLengths;
  for (auto [i, source] : llvm::enumerate(rowSources)) {
    llvm::copy(*source, src.begin() + i * srcSeq);
    srcLengths.push_back(static_cast<int32_t>(source->size()));
  }
  return api.sessionEncode(session, slots.data(), n, src.data(), srcSeq,
                           srcLengths.data());
}

/// A double as printf's %g writes it.
std::string formatDouble(double value) {
  std::string text;
  llvm::raw_string_ostream(text) << llvm::format("%g", value);
  return text;
}

/// Generation options without --prompt-ids, or with what only a forward
/// run takes. Returns an exit code.
int checkGenerationOptions() {
  bool generating = !promptIds.empty();
  if (!generating) {
    for (const llvm::cl::Option *o :
         std::initializer_list<const llvm::cl::Option *>{
             &maxNewTokens, &greedy, &topP, &temperature, &seed,
             std::addressof(stopIds), &noCache, &beamWidth, &lengthPenalty,
             &lengthPenaltyForm, &numReturn})
      if (o->getNumOccurrences())
        return error(InputError, "--" + o->ArgStr +
                                     " is a generation option: it needs "
                                     "--prompt-ids");
    return Success;
  }
  for (const llvm::cl::Option *o :
       std::initializer_list<const llvm::cl::Option *>{
           &tokensPath, &lengthsPath, &decoderTokensPath, &decoderLengthsPath,
           &attentionMaskPath, &positionIdsPath, &outPath})
    if (o->getNumOccurrences())
      return error(InputError, "--prompt-ids and --" + o->ArgStr +
                                   " cannot be combined (generation takes "
                                   "its prompts from --prompt-ids)");
  if (!maxNewTokens.getNumOccurrences())
    return error(InputError, "--prompt-ids needs --max-new-tokens");
  if (maxNewTokens < 0)
    return error(InputError, "--max-new-tokens is " +
                                 llvm::Twine(maxNewTokens.getValue()) +
                                 ", must be at least 0");
  if (beamWidth.getNumOccurrences()) {
    if (beamWidth < 1)
      return error(InputError, "--beam is " +
                                   llvm::Twine(beamWidth.getValue()) +
                                   ", must be at least 1");
    for (const llvm::cl::Option *o :
         std::initializer_list<const llvm::cl::Option *>{&greedy, &topK, &topP,
                                                         &temperature, &seed})
      if (o->getNumOccurrences())
        return error(InputError,
                     "--beam cannot be combined with --" + o->ArgStr +
                         " (beam search keeps the most likely sequences; "
                         "--greedy, --top-k, --top-p, --temperature and "
                         "--seed pick one token at a time)");
    if (!std::isfinite(lengthPenalty))
      return error(InputError, "--length-penalty is " +
                                   formatDouble(lengthPenalty) +
                                   ", must be a finite number");
    if (numReturn < 1 || numReturn > beamWidth)
      return error(InputError,
                   "--num-return is " + llvm::Twine(numReturn.getValue()) +
                       ", must lie in [1, " +
                       llvm::Twine(beamWidth.getValue()) + "] (--beam)");
    return Success;
  }
  for (const llvm::cl::Option *o :
       std::initializer_list<const llvm::cl::Option *>{
           &lengthPenalty, &lengthPenaltyForm, &numReturn})
    if (o->getNumOccurrences())
      return error(InputError, "--" + o->ArgStr +
                                   " only applies to beam search: add "
                                   "--beam B");
  bool sampling = topK.getNumOccurrences() || topP.getNumOccurrences();
  if (greedy && sampling)
    return error(InputError,
                 "--greedy cannot be combined with --top-k or --top-p "
                 "(which sample)");
  if (topK.getNumOccurrences() && topK <= 0)
    return error(InputError, "--top-k is " + llvm::Twine(topK.getValue()) +
                                 ", must be at least 1");
  if (topP.getNumOccurrences() && !(topP > 0 && topP <= 1))
    return error(InputError,
                 "--top-p is " + formatDouble(topP) + ", must lie in (0, 1]");
  if (temperature.getNumOccurrences()) {
    if (!(temperature > 0) || !std::isfinite(temperature))
      return error(InputError, "--temperature is " + formatDouble(temperature) +
                                   ", must be a positive number");
    if (!sampling)
      return error(InputError,
                   "--temperature only applies to sampling: add --top-k or "
                   "--top-p (--top-p 1 samples from every token)");
  }
  return Success;
}

/// The prompts, the stop ids and the number of new tokens against the
/// model's limits. Returns an exit code.
int checkPrompts(const Manifest &m,
                 const std::vector<std::vector<int32_t>> &prompts) {
  std::string model = "model '" + m.modelName + "'";
  for (auto [i, prompt] : llvm::enumerate(prompts)) {
    std::string name = "--prompt-ids '" + promptIds[i] + "'";
    for (auto [t, id] : llvm::enumerate(prompt))
      if (id < 0 || id >= m.vocabSize)
        return error(InputError, name + ": token id " + llvm::Twine(id) +
                                     " at position " + llvm::Twine(t) +
                                     " is outside [0, " +
                                     llvm::Twine(m.vocabSize) +
                                     ") (vocab_size of " + model + ")");
    int64_t length = prompt.size();
    if (length > m.maxSeqLen)
      return error(InputError, name + " has " + llvm::Twine(length) +
                                   " tokens, more than max_seq_len " +
                                   llvm::Twine(m.maxSeqLen) + " of " + model);
    // The last generated token is never fed back: N new tokens need
    // length + N - 1 positions.
    int64_t needed = length + std::max(maxNewTokens - 1, 0);
    if (needed > m.maxSeqLen)
      return error(InputError,
                   name + " has " + llvm::Twine(length) +
                       " tokens: generating " +
                       llvm::Twine(maxNewTokens.getValue()) +
                       " more feeds the model " + llvm::Twine(needed) +
                       " tokens (all but the last generated one), more than "
                       "max_seq_len " +
                       llvm::Twine(m.maxSeqLen) + " of " + model +
                       " (--max-new-tokens " +
                       llvm::Twine(m.maxSeqLen - length + 1) + " at most)");
  }
  for (int id : stopIds)
    if (id < 0 || id >= m.vocabSize)
      return error(InputError, "--stop-id " + llvm::Twine(id) +
                                   " is outside [0, " +
                                   llvm::Twine(m.vocabSize) +
                                   ") (vocab_size of " + model + ")");
  return Success;
}

/// Where the logits of the next tokens come from: a session (prefill, then
/// one decode per token) or, with --no-cache, a forward pass over every
/// sequence still running, keeping the last position's logits.
class LogitsSource {
public:
  LogitsSource(const Api &api, tfm_model *model, tfm_session *session,
               int64_t vocab)
      : api(api), model(model), session(session), vocab(vocab) {}

  /// The logits after each of `sequences[active[j]]` into row j of
  /// `logits`; `first` is the call after the prompts. The session has seen
  /// every token but the last of each active sequence. False on failure
  /// (the runtime's message is in tfm_last_error).
  bool next(const std::vector<std::vector<int32_t>> &sequences,
            llvm::ArrayRef<int64_t> active, bool first,
            std::vector<float> &logits) {
    int64_t n = active.size();
    logits.resize(n * vocab);
    int64_t seq = 1;
    for (int64_t i : active)
      seq = std::max<int64_t>(seq, sequences[i].size());
    if (session && !first) {
      std::vector<int32_t> ids;
      for (int64_t i : active)
        ids.push_back(sequences[i].back());
      return api.sessionDecode(session, active.data(), n, ids.data(),
                               logits.data(), logits.size()) == TFM_OK;
    }
    std::vector<const std::vector<int32_t> *> rowSources;
    if (!sources.empty())
      for (int64_t i : active)
        rowSources.push_back(&sources[i]);
    if (!session) {
      std::vector<std::vector<int32_t>> rows;
      for (int64_t i : active)
        rows.push_back(sequences[i]);
      return forwardLast(api, model, vocab, rows, rowSources, logits) ==
             TFM_OK;
    }
    // An encoder-decoder's slots get their sources first.
    if (!rowSources.empty() &&
        encodeSlots(api, session, active, rowSources) != TFM_OK)
      return false;
    std::vector<int32_t> ids(n * seq, 0), lengths;
    for (auto [j, i] : llvm::enumerate(active)) {
      llvm::copy(sequences[i], ids.begin() + j * seq);
      lengths.push_back(static_cast<int32_t>(sequences[i].size()));
    }
    return api.sessionPrefill(session, active.data(), n, ids.data(), seq,
                              lengths.data(), logits.data(),
                              logits.size()) == TFM_OK;
  }

private:
  const Api &api;
  tfm_model *model;
  tfm_session *session;
  int64_t vocab;
};

//===----------------------------------------------------------------------===//
// Beam search
//===----------------------------------------------------------------------===//

/// One prompt's beam search (docs/tfm-run.md, "Beam search"), specified
/// exactly, like the sampler, so that python/tfm/_generate.py reproduces it
/// operation for operation. It knows nothing of sessions or models: the
/// caller hands it the next-token logits of every running beam, then gives
/// each new beam the cache of the beam it extends (parent) and feeds it its
/// last token, so an encoder-decoder's search can reuse it as it is.
/// The divisor of a hypothesis's log-probability: its length penalty.
struct LengthPenalty {
  PenaltyForm form;
  double alpha;
  /// lp(n) for n new tokens; both forms grow with n for alpha > 0 and are 1
  /// for alpha = 0.
  double operator()(double n) const {
    return std::pow(form == PenaltyForm::GNMT ? (5.0 + n) / 6.0 : n, alpha);
  }
};

class BeamGroup {
public:
  /// A running beam: its new tokens and the sum of their log-probabilities.
  struct Beam {
    std::vector<int32_t> tokens;
    double sum = 0;
    /// The index in the previous running() that this beam extends.
    int64_t parent = 0;
  };
  /// A finished hypothesis: its new tokens (a stop id last, or
  /// --max-new-tokens of them), their log-probability and its score.
  struct Hypothesis {
    std::vector<int32_t> tokens;
    double sum = 0, score = 0;
  };

  BeamGroup(int64_t width, LengthPenalty penalty, int64_t maxNew,
            llvm::ArrayRef<int32_t> stops, int64_t vocab)
      : width(width), penalty(penalty), maxNew(maxNew), stops(stops),
        vocab(vocab), beams(maxNew > 0 ? 1 : 0) {}

  /// The beams that go on, best first (by sum); empty once the search is
  /// over. Before the first step, one beam without tokens: the prompt.
  const std::vector<Beam> &running() const { return beams; }
  bool done() const { return beams.empty(); }
  /// The finished hypotheses, best first (by score, then by which was found
  /// first); at most the beam width of them.
  const std::vector<Hypothesis> &hypotheses() const { return finished; }

  /// One token more: `logits` holds running().size() rows of vocab floats,
  /// row j the next-token logits after running()[j].
  void step(llvm::ArrayRef<float> logits) {
    int64_t count = beams.size();
    int64_t generated = beams.front().tokens.size() + 1;
    bool last = generated == maxNew;
    // Every (beam, token) candidate's sum: the beam's plus the token's
    // log-softmax, in float64, with NaN logits counted as -infinity.
    std::vector<double> sums(count * vocab);
    for (int64_t j = 0; j < count; ++j) {
      llvm::ArrayRef<float> row = logits.slice(j * vocab, vocab);
      auto key = [&](int64_t v) -> double {
        float x = row[v];
        return std::isnan(x) ? -std::numeric_limits<double>::infinity() : x;
      };
      double max = key(0);
      for (int64_t v = 1; v < vocab; ++v)
        max = std::max(max, key(v));
      double *out = &sums[j * vocab];
      if (!std::isfinite(max)) {
        // No finite normalization: the largest logits get log-probability
        // 0, the others -infinity.
        for (int64_t v = 0; v < vocab; ++v)
          out[v] =
              beams[j].sum +
              (key(v) == max ? 0.0 : -std::numeric_limits<double>::infinity());
        continue;
      }
      double total = 0;
      for (int64_t v = 0; v < vocab; ++v)
        total += std::exp(key(v) - max);
      double logNormalizer = max + std::log(total);
      for (int64_t v = 0; v < vocab; ++v)
        out[v] = beams[j].sum + (key(v) - logNormalizer);
    }
    // The candidates by sum (largest first), then by beam, then by token:
    // enough of them that width ones are not stop ids.
    int64_t total = count * vocab;
    int64_t distinctStops = 0;
    for (auto [i, id] : llvm::enumerate(stops))
      if (!llvm::is_contained(stops.take_front(i), id))
        ++distinctStops;
    int64_t considered = std::min(total, width * (1 + distinctStops));
    std::vector<int64_t> order(total);
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + considered, order.end(),
                      [&](int64_t x, int64_t y) {
                        return sums[x] > sums[y] ||
                               (sums[x] == sums[y] && x < y);
                      });
    // The first width candidates that end their hypothesis (a stop id, or
    // the last new token) are finished; the first width others run on.
    std::vector<Beam> next;
    for (int64_t rank = 0; rank < considered; ++rank) {
      int64_t j = order[rank] / vocab;
      int32_t token = static_cast<int32_t>(order[rank] % vocab);
      bool ends = last || llvm::is_contained(stops, token);
      if (ends ? rank >= width : static_cast<int64_t>(next.size()) >= width)
        continue;
      std::vector<int32_t> tokens = beams[j].tokens;
      tokens.push_back(token);
      if (ends)
        add(std::move(tokens), sums[order[rank]]);
      else
        next.push_back({std::move(tokens), sums[order[rank]], j});
    }
    beams = std::move(next);
    // Early stopping, exact: once width hypotheses are finished, stop when
    // no running beam can reach a better score than the worst of them. A
    // sum only decreases; over the lengths still possible (generated + 1
    // .. maxNew), sum / lp(length) is largest at maxNew for alpha > 0, at
    // generated + 1 otherwise (lp grows with the length for alpha > 0).
    if (!beams.empty() && static_cast<int64_t>(finished.size()) == width) {
      double length = penalty.alpha > 0 ? maxNew : generated + 1;
      double bound = beams.front().sum / penalty(length);
      if (bound <= finished.back().score)
        beams.clear();
    }
  }

private:
  /// Adds a finished hypothesis of `sum` if it is among the width best
  /// (a later one must be strictly better than the worst to displace it).
  void add(std::vector<int32_t> tokens, double sum) {
    double score = sum / penalty(static_cast<double>(tokens.size()));
    if (static_cast<int64_t>(finished.size()) == width) {
      if (!(score > finished.back().score))
        return;
      finished.pop_back();
    }
    auto at =
        std::find_if(finished.begin(), finished.end(),
                     [&](const Hypothesis &h) { return h.score < score; });
    finished.insert(at, {std::move(tokens), sum, score});
  }

  int64_t width;
  LengthPenalty penalty;
  int64_t maxNew;
  llvm::ArrayRef<int32_t> stops;
  int64_t vocab;
  std::vector<Beam> beams;
  std::vector<Hypothesis> finished;
};

/// --beam: one BeamGroup per prompt. With a session, group g owns the slots
/// [g * B, (g + 1) * B): the prompts are prefilled together into each
/// group's first slot, every step decodes the running beams of all groups
/// in one call, and between steps the caches follow the beams (a beam's
/// first child keeps its slot, the others get copies of it in slots whose
/// beam has no child: no copy overwrites a slot still to be read). With
/// --no-cache, every step is a forward pass over each running beam's whole
/// sequence.
int runBeamSearch(const Api &api, const Manifest &m, tfm_model *model,
                  const std::vector<std::vector<int32_t>> &prompts) {
  int64_t count = prompts.size(), vocab = m.vocabSize, width = beamWidth;
  std::vector<int32_t> stops(stopIds.begin(), stopIds.end());
  std::vector<BeamGroup> groups;
  // --length-penalty's default is the form's: 0.6 (GNMT), 1 (power).
  double alpha = lengthPenalty;
  if (lengthPenaltyForm == PenaltyForm::Power &&
      !lengthPenalty.getNumOccurrences())
    alpha = 1.0;
  LengthPenalty penalty{lengthPenaltyForm, alpha};
  for (int64_t g = 0; g < count; ++g)
    groups.emplace_back(width, penalty, maxNewTokens, stops, vocab);

  tfm_session *session = nullptr;
  llvm::scope_exit destroySession([&] {
    if (session)
      api.sessionDestroy(session);
  });
  size_t longest = 0;
  for (const std::vector<int32_t> &prompt : prompts)
    longest = std::max(longest, prompt.size());
  if (!noCache && maxNewTokens > 0 &&
      api.sessionCreate(model, count * width, longest + maxNewTokens - 1,
                        &session) != TFM_OK)
    return error(RunError, api.lastError());
  // slots[g][j]: the slot of running beam j of group g.
  std::vector<std::vector<int64_t>> slots(count);
  for (int64_t g = 0; g < count; ++g)
    slots[g] = {g * width};

  std::vector<float> logits;
  for (bool first = true;; first = false) {
    // The running beams of every group, in group then beam order.
    std::vector<std::pair<int64_t, int64_t>> rows;
    for (int64_t g = 0; g < count; ++g)
      for (int64_t j = 0; j < static_cast<int64_t>(groups[g].running().size());
           ++j)
        rows.push_back({g, j});
    if (rows.empty())
      break;
    int64_t n = rows.size();
    logits.resize(n * vocab);
    // Only a session tracks slots (with --no-cache `slots` keeps each
    // group's first slot while its beams multiply).
    std::vector<int64_t> rowSlots;
    for (auto [g, j] : rows)
      if (session)
        rowSlots.push_back(slots[g][j]);
    tfm_status status;
    if (session && !first) {
      std::vector<int32_t> ids;
      for (auto [g, j] : rows)
        ids.push_back(groups[g].running()[j].tokens.back());
      status = api.sessionDecode(session, rowSlots.data(), n, ids.data(),
                                 logits.data(), logits.size());
    } else {
      // Whole sequences: the prompts (prefill), or with --no-cache every
      // beam's prompt and new tokens.
      std::vector<std::vector<int32_t>> sequences;
      std::vector<const std::vector<int32_t> *> rowSources;
      size_t seq = 1;
      for (auto [g, j] : rows) {
        std::vector<int32_t> &sequence = sequences.emplace_back(prompts[g]);
        llvm::append_range(sequence, groups[g].running()[j].tokens);
        seq = std::max(seq, sequence.size());
        if (!sources.empty())
          rowSources.push_back(&sources[g]);
      }
      std::vector<int32_t> ids(n * seq, 0), lengths;
      for (auto [i, sequence] : llvm::enumerate(sequences)) {
        llvm::copy(sequence, ids.begin() + i * seq);
        lengths.push_back(static_cast<int32_t>(sequence.size()));
      }
      if (session) {
        // An encoder-decoder's first beams get their sources; the beams
        // that branch off later copy them with the slot.
        status = rowSources.empty()
                     ? TFM_OK
                     : encodeSlots(api, session, rowSlots, rowSources);
        if (status == TFM_OK)
          status = api.sessionPrefill(session, rowSlots.data(), n, ids.data(),
                                      seq, lengths.data(), logits.data(),
                                      logits.size());
      } else {
        status = forwardLast(api, model, vocab, sequences, rowSources, logits);
      }
    }
    if (status != TFM_OK)
      return error(RunError, api.lastError());

    int64_t row = 0;
    for (int64_t g = 0; g < count; ++g) {
      BeamGroup &group = groups[g];
      int64_t running = group.running().size();
      if (running == 0)
        continue;
      group.step(llvm::ArrayRef(logits).slice(row * vocab, running * vocab));
      row += running;
      if (!session || group.done())
        continue;
      // Each new beam's cache: its parent's slot for the parent's first
      // child, a copy of it in a free slot (ascending) for the others.
      std::vector<int64_t> &old = slots[g];
      std::vector<bool> parentTaken(old.size(), false), slotBusy(width, false);
      for (const BeamGroup::Beam &beam : group.running())
        slotBusy[old[beam.parent] - g * width] = true;
      std::vector<int64_t> next;
      int64_t free = 0;
      for (const BeamGroup::Beam &beam : group.running()) {
        if (!parentTaken[beam.parent]) {
          parentTaken[beam.parent] = true;
          next.push_back(old[beam.parent]);
          continue;
        }
        while (slotBusy[free])
          ++free;
        slotBusy[free] = true;
        int64_t slot = g * width + free;
        if (api.sessionCopySlot(session, old[beam.parent], slot) != TFM_OK)
          return error(RunError, api.lastError());
        next.push_back(slot);
      }
      old = std::move(next);
    }
  }

  for (int64_t g = 0; numReturn.getNumOccurrences() && g < count; ++g)
    for (auto [k, h] : llvm::enumerate(groups[g].hypotheses())) {
      if (static_cast<int64_t>(k) >= numReturn)
        break;
      llvm::outs() << "hypothesis[" << g << "][" << k << "]: score "
                   << llvm::format("%.6f", h.score) << ":";
      for (int32_t token : h.tokens)
        llvm::outs() << " " << token;
      llvm::outs() << "\n";
    }
  for (int64_t g = 0; g < count; ++g) {
    llvm::outs() << "generated[" << g << "]:";
    if (!groups[g].hypotheses().empty())
      for (int32_t token : groups[g].hypotheses().front().tokens)
        llvm::outs() << " " << token;
    llvm::outs() << "\n";
  }
  return Success;
}

int runGenerate() {
  if (int code = checkGenerationOptions())
    return code;
  llvm::Expected<std::vector<std::vector<int32_t>>> parsedPrompts =
      parsePrompts();
  if (!parsedPrompts)
    return error(InputError, llvm::toString(parsedPrompts.takeError()));
  std::vector<std::vector<int32_t>> sequences = std::move(*parsedPrompts);

  Library lib;
  if (int code = openLibrary(lib))
    return code;
  if (printManifest) {
    llvm::outs() << lib.manifestText << "\n";
    return Success;
  }
  // A manifest that does not parse is reported by tfm_model_create, in the
  // runtime's words (or by createModel's own parse, should create pass).
  const Manifest &m = lib.manifest;
  if (m.vocabSize <= 0) {
    tfm_model *model = nullptr;
    int code = createModel(lib, model);
    if (model)
      lib.api.destroy(model);
    return code ? code : error(LoadError, "cannot read the manifest");
  }
  // Checked from the manifest, before any weight is read.
  if (m.architecture == Architecture::Encoder ||
      m.output != OutputKind::Logits)
    return error(InputError,
                 "'" + modelPath + "' is not a language model (" +
                     architectureName(m.architecture) + " with " +
                     outputKindName(m.output) +
                     " output): --prompt-ids needs a decoder with logits");
  bool seq2seq = m.architecture == Architecture::EncoderDecoder;
  if (seq2seq != !sourceIds.empty())
    return error(InputError,
                 seq2seq ? "'" + modelPath + "' (model '" + m.modelName +
                               "') is an encoder-decoder: give the source of "
                               "each --prompt-ids with --source-ids (the "
                               "prompt is the decoder's prefix, e.g. its start "
                               "token)"
                         : "--source-ids is for encoder-decoder models; '" +
                               modelPath + "' (model '" + m.modelName +
                               "') is a decoder");
  if (seq2seq) {
    llvm::Expected<std::vector<std::vector<int32_t>>> parsed =
        parseIdLists(sourceIds, "source-ids");
    if (!parsed)
      return error(InputError, llvm::toString(parsed.takeError()));
    sources = std::move(*parsed);
    if (sources.size() != sequences.size())
      return error(InputError,
                   "--source-ids is given " + llvm::Twine(sources.size()) +
                       " times and --prompt-ids " +
                       llvm::Twine(sequences.size()) +
                       ": one source per prompt");
    for (auto [i, source] : llvm::enumerate(sources)) {
      if (source.empty() ||
          static_cast<int64_t>(source.size()) > m.maxSeqLen)
        return error(InputError, "--source-ids '" + sourceIds[i] + "' has " +
                                     llvm::Twine(source.size()) +
                                     " tokens; a source has 1 to max_seq_len " +
                                     llvm::Twine(m.maxSeqLen));
      for (auto [t, id] : llvm::enumerate(source))
        if (id < 0 || id >= m.vocabSize)
          return error(InputError,
                       "--source-ids '" + sourceIds[i] + "': token id " +
                           llvm::Twine(id) + " at position " + llvm::Twine(t) +
                           " is outside [0, " + llvm::Twine(m.vocabSize) +
                           ") (vocab_size of model '" + m.modelName + "')");
    }
  }
  if (!m.kvCache && !noCache)
    return error(InputError,
                 "'" + modelPath + "' (model '" + m.modelName +
                     "') has no generation step: it was compiled without "
                     "generation entries (tfmc --generation); --no-cache "
                     "generates with a forward pass per token instead");
  if (int code = checkPrompts(m, sequences))
    return code;
  if (!noCache && !(lib.api.sessionCreate && lib.api.sessionDestroy &&
                    lib.api.sessionPrefill && lib.api.sessionDecode &&
                    (!seq2seq || lib.api.sessionEncode)))
    return error(LoadError, "'" + modelPath +
                                "' does not export tfm_session_create "
                                "(built by an older tfm): add --no-cache");
  if (!noCache && beamWidth.getNumOccurrences() && !lib.api.sessionCopySlot)
    return error(LoadError, "'" + modelPath +
                                "' does not export tfm_session_copy_slot "
                                "(built by an older tfm): recompile it for "
                                "--beam, or add --no-cache");

  tfm_model *model = nullptr;
  if (int code = createModel(lib, model))
    return code;
  llvm::scope_exit destroyModel([&] { lib.api.destroy(model); });
  if (beamWidth.getNumOccurrences())
    return runBeamSearch(lib.api, m, model, sequences);

  const Api &api = lib.api;
  int64_t count = sequences.size(), vocab = m.vocabSize;
  size_t longest = 0;
  for (const std::vector<int32_t> &prompt : sequences)
    longest = std::max(longest, prompt.size());
  tfm_session *session = nullptr;
  llvm::scope_exit destroySession([&] {
    if (session)
      api.sessionDestroy(session);
  });
  if (!noCache && maxNewTokens > 0) {
    int64_t context = longest + maxNewTokens - 1;
    if (api.sessionCreate(model, count, context, &session) != TFM_OK)
      return error(RunError, api.lastError());
  }

  std::optional<int64_t> k;
  std::optional<double> p;
  if (topK.getNumOccurrences())
    k = topK;
  if (topP.getNumOccurrences())
    p = topP;
  Sampler sampler(k, p, temperature, seed);
  LogitsSource source(api, model, session, vocab);

  // Every sequence runs until it has --max-new-tokens new tokens or ends
  // with a stop id; the draws go to the running sequences in order.
  std::vector<size_t> promptLengths;
  for (const std::vector<int32_t> &prompt : sequences)
    promptLengths.push_back(prompt.size());
  std::vector<int64_t> active;
  if (maxNewTokens > 0)
    for (int64_t i = 0; i < count; ++i)
      active.push_back(i);
  std::vector<float> logits;
  for (bool first = true; !active.empty(); first = false) {
    if (!source.next(sequences, active, first, logits))
      return error(RunError, api.lastError());
    std::vector<int64_t> running;
    for (auto [j, i] : llvm::enumerate(active)) {
      int32_t token =
          sampler.next(llvm::ArrayRef(logits).slice(j * vocab, vocab));
      sequences[i].push_back(token);
      bool stop = llvm::is_contained(stopIds, token) ||
                  sequences[i].size() - promptLengths[i] >=
                      static_cast<size_t>(maxNewTokens);
      if (!stop)
        running.push_back(i);
    }
    active = std::move(running);
  }

  for (int64_t i = 0; i < count; ++i) {
    llvm::outs() << "generated[" << i << "]:";
    for (size_t t = promptLengths[i]; t < sequences[i].size(); ++t)
      llvm::outs() << " " << sequences[i][t];
    llvm::outs() << "\n";
  }
  return Success;
}

//===----------------------------------------------------------------------===//
// Running a model
//===----------------------------------------------------------------------===//

/// The output of a forward call: to --out, or a summary on stdout.
int writeOutput(OutputKind kind, llvm::ArrayRef<float> out,
                llvm::ArrayRef<int64_t> shape,
                llvm::ArrayRef<int32_t> lengths) {
  if (!outPath.empty()) {
    if (llvm::Error e = writeNpyF32(outPath, shape, out))
      return error(OutputError, llvm::toString(std::move(e)));
    return Success;
  }
  printSummary(kind, out, shape, lengths);
  return Success;
}

/// Runs an image model on --pixels.
int runPixels() {
  if (!tokensPath.empty() || !lengthsPath.empty() ||
      !decoderTokensPath.empty() || !decoderLengthsPath.empty() ||
      !attentionMaskPath.empty() || !positionIdsPath.empty())
    return error(InputError, "--pixels is the whole input of an image "
                             "model: drop --tokens, --lengths, "
                             "--attention-mask, --position-ids and "
                             "--decoder-tokens");
  llvm::Expected<Pixels> pixels = readPixels(pixelsPath);
  if (!pixels)
    return error(InputError, llvm::toString(pixels.takeError()));
  Library lib;
  if (int code = openLibrary(lib))
    return code;
  const Manifest &m = lib.manifest;
  if (!m.image)
    return error(InputError, "--pixels given but '" + modelPath + "' (model '" +
                                 m.modelName +
                                 "') takes token ids: pass --tokens");
  if (!lib.api.forwardPixels)
    return error(LoadError, "'" + modelPath +
                                "' does not export tfm_model_forward_pixels "
                                "(built by an older tfm): recompile it");
  llvm::ArrayRef<int64_t> image = llvm::ArrayRef(pixels->shape).drop_front();
  int64_t expected[] = {m.image->channels, m.image->height, m.image->width};
  if (image != llvm::ArrayRef<int64_t>(expected))
    return error(InputError, pixelsPath + ": images are " +
                                 runtime::formatShape(image) + " but model '" +
                                 m.modelName + "' takes " +
                                 runtime::formatShape(expected) +
                                 " (channels, height, width)");
  tfm_model *model = nullptr;
  if (int code = createModel(lib, model))
    return code;
  llvm::scope_exit destroy([&] { lib.api.destroy(model); });
  const Api &api = lib.api;
  int64_t batch = pixels->shape[0];
  int64_t shape[3];
  int rank;
  if (api.outputShape(model, batch, m.maxSeqLen, shape, &rank) != TFM_OK)
    return error(RunError, api.lastError());
  int64_t elements = 1;
  for (int i = 0; i < rank; ++i)
    elements *= shape[i];
  std::vector<float> out(static_cast<size_t>(elements));
  if (api.forwardPixels(model, pixels->values.data(), batch, out.data(),
                        out.size()) != TFM_OK)
    return error(RunError, api.lastError());
  return writeOutput(m.output, out, llvm::ArrayRef<int64_t>(shape, rank), {});
}

int runModel() {
  if (modelPath.empty())
    return error(InputError, "no model library given (see --help)");
  if (!promptIds.empty())
    return runGenerate();
  if (!pixelsPath.empty())
    return runPixels();
  if (int code = checkGenerationOptions())
    return code;
  if (topK < 0)
    return error(InputError, "--top-k is " + llvm::Twine(topK.getValue()) +
                                 ", must be at least 0");

  // Inputs first: they are cheap to check and need no library.
  Tokens tokens, decoderTokens;
  std::vector<int32_t> lengths, decoderLengths, attentionMask, positionIds;
  if (!printManifest) {
    if (tokensPath.empty())
      return error(InputError, "--tokens (or --prompt-ids) is required");
    llvm::Expected<Tokens> t = readTokens(tokensPath);
    if (!t)
      return error(InputError, llvm::toString(t.takeError()));
    tokens = std::move(*t);
    llvm::Expected<std::vector<int32_t>> l =
        readLengths(lengthsPath, tokens.batch);
    if (!l)
      return error(InputError, llvm::toString(l.takeError()));
    lengths = std::move(*l);
    llvm::Expected<std::vector<int32_t>> mask =
        readPerToken(attentionMaskPath, tokens, "the attention mask");
    if (!mask)
      return error(InputError, llvm::toString(mask.takeError()));
    attentionMask = std::move(*mask);
    llvm::Expected<std::vector<int32_t>> positions =
        readPerToken(positionIdsPath, tokens, "the position ids");
    if (!positions)
      return error(InputError, llvm::toString(positions.takeError()));
    positionIds = std::move(*positions);
    if (!lengths.empty() && (!attentionMask.empty() || !positionIds.empty()))
      return error(InputError,
                   "--lengths and --attention-mask/--position-ids describe "
                   "the same padding: give one or the other");
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

  Library lib;
  if (int code = openLibrary(lib))
    return code;
  if (printManifest) {
    llvm::outs() << lib.manifestText << "\n";
    return Success;
  }
  tfm_model *model = nullptr;
  if (int code = createModel(lib, model))
    return code;
  llvm::scope_exit destroy([&] { lib.api.destroy(model); });
  const Api &api = lib.api;
  const Manifest *parsed = &lib.manifest;

  if (parsed->image)
    return error(InputError, "'" + modelPath + "' (model '" +
                                 parsed->modelName +
                                 "') is an image model: pass --pixels");
  bool seq2seq = parsed->architecture == Architecture::EncoderDecoder;
  if (seq2seq && decoderTokensPath.empty())
    return error(InputError, "'" + modelPath + "' is an encoder-decoder " +
                                 "model: pass --decoder-tokens");
  if (!seq2seq && !decoderTokensPath.empty())
    return error(InputError, "--decoder-tokens given but '" + modelPath +
                                 "' is not an encoder-decoder model");
  bool masked = !attentionMask.empty() || !positionIds.empty();
  if (masked && seq2seq)
    return error(InputError,
                 "--attention-mask and --position-ids are for encoders and "
                 "decoders; '" +
                     modelPath +
                     "' is an encoder-decoder model: "
                     "pass right-padded batches with --lengths and "
                     "--decoder-lengths");
  if (masked && !api.forwardMasked)
    return error(LoadError, "'" + modelPath +
                                "' does not export tfm_model_forward_masked "
                                "(built by an older tfm): recompile it");
  // The summary's "last token" of each masked row: the end of its 1s.
  if (!attentionMask.empty()) {
    for (int64_t b = 0; b < tokens.batch; ++b) {
      int32_t end = 0;
      for (int64_t t = 0; t < tokens.seq; ++t)
        if (attentionMask[b * tokens.seq + t] == 1)
          end = static_cast<int32_t>(t + 1);
      lengths.push_back(std::max(end, 1));
    }
  }

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
      seq2seq ? api.forwardSeq2seq(
                    model, tokens.ids.data(), tokens.batch, tokens.seq,
                    lengths.empty() ? nullptr : lengths.data(),
                    decoderTokens.ids.data(), decoderTokens.seq,
                    decoderLengths.empty() ? nullptr : decoderLengths.data(),
                    out.data(), out.size())
      : masked ? api.forwardMasked(
                     model, tokens.ids.data(), tokens.batch, tokens.seq,
                     attentionMask.empty() ? nullptr : attentionMask.data(),
                     positionIds.empty() ? nullptr : positionIds.data(),
                     out.data(), out.size())
               : api.forward(model, tokens.ids.data(), tokens.batch, tokens.seq,
                             lengths.empty() ? nullptr : lengths.data(),
                             out.data(), out.size());
  if (status != TFM_OK)
    return error(RunError, api.lastError());

  return writeOutput(parsed->output, out, llvm::ArrayRef<int64_t>(shape, rank),
                     seq2seq ? decoderLengths : lengths);
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
      "  tfm-run model.so [--weights W] --pixels images.npy [--out out.npy]\n"
      "  tfm-run model.so [--weights W] --prompt-ids 5,17,3 [--prompt-ids "
      "...]\n"
      "          --max-new-tokens N [--greedy | --top-k K | --top-p P]\n"
      "          [--temperature T] [--seed S] [--stop-id ID] [--no-cache]\n"
      "  tfm-run model.so [--weights W] --prompt-ids 5,17,3 [--prompt-ids "
      "...]\n"
      "          --max-new-tokens N --beam B [--length-penalty A]\n"
      "          [--length-penalty-form gnmt|power]\n"
      "          [--num-return N] [--stop-id ID] [--no-cache]\n"
      "  tfm-run --check-weights W --manifest manifest.json\n"
      "  tfm-run --list-weights W\n");
  if (!listWeights.empty())
    return runListWeights();
  if (!checkWeights.empty())
    return runCheckWeights();
  return runModel();
}
