//===- ModelBench.cpp - whole compiled models -----------------------------===//
//
// `tfm-bench model`: the tfmc path (frontend, then compileModule to a shared
// library linked with the runtime), loaded with dlopen and run through the
// C ABI of include/tfm/Runtime/tfm_runtime.h, with random weights written
// from the library's own manifest unless --weights names real ones.
//
//===----------------------------------------------------------------------===//

#include "ModelBench.h"

#include "tfm/Compiler/Compile.h"
#include "tfm/Compiler/Driver.h"
#include "tfm/Frontend/Frontend.h"
#include "tfm/Runtime/tfm_runtime.h"
#include "tfm/Support/Flops.h"
#include "tfm/Support/Manifest.h"
#include "tfm/Support/Npy.h"
#include "tfm/Support/SafeTensors.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"

#include <chrono>
#include <functional>
#include <cmath>

using namespace tfm::bench;

namespace {

/// The entry points of a model library.
struct ModelApi {
  decltype(&tfm_library_info) libraryInfo;
  decltype(&tfm_model_create) create;
  decltype(&tfm_model_destroy) destroy;
  decltype(&tfm_model_forward) forward;
  decltype(&tfm_model_forward_seq2seq) forwardSeq2seq;
  decltype(&tfm_model_output_shape) outputShape;
  decltype(&tfm_model_set_num_threads) setNumThreads;
  decltype(&tfm_model_get_num_threads) getNumThreads;
  decltype(&tfm_last_error) lastError;
};

llvm::Error bind(const Library &lib, ModelApi &api) {
  auto get = [&](const char *name, auto &fn) -> llvm::Error {
    auto sym = lib.symbol(name);
    if (!sym)
      return sym.takeError();
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(*sym);
    return llvm::Error::success();
  };
  if (auto e = get("tfm_library_info", api.libraryInfo))
    return e;
  if (auto e = get("tfm_model_create", api.create))
    return e;
  if (auto e = get("tfm_model_destroy", api.destroy))
    return e;
  if (auto e = get("tfm_model_forward", api.forward))
    return e;
  if (auto e = get("tfm_model_forward_seq2seq", api.forwardSeq2seq))
    return e;
  if (auto e = get("tfm_model_output_shape", api.outputShape))
    return e;
  if (auto e = get("tfm_model_set_num_threads", api.setNumThreads))
    return e;
  if (auto e = get("tfm_model_get_num_threads", api.getNumThreads))
    return e;
  return get("tfm_last_error", api.lastError);
}

/// Writes random weights for every tensor of the manifest: norm-like
/// vectors (rank 1, named *weight) near 1, everything else small and
/// centered like a fresh initialization.
llvm::Error writeRandomWeights(const tfm::Manifest &manifest,
                               llvm::StringRef path, uint64_t seed) {
  Rng rng(seed);
  tfm::SafeTensorsWriter writer;
  for (const tfm::ManifestWeight &w : manifest.weights) {
    std::optional<int64_t> n = checkedElements(w.shape);
    if (!n)
      return llvm::createStringError("manifest weight '" + w.name +
                                     "' has too many elements");
    std::vector<float> values(*n);
    bool normScale =
        w.shape.size() == 1 && llvm::StringRef(w.name).ends_with("weight");
    for (float &v : values)
      v = normScale ? 1.0f + rng.uniform(-0.05f, 0.05f)
                    : rng.uniform(-0.035f, 0.035f);
    writer.addF32(w.name, w.shape, values);
  }
  return writer.write(path);
}

/// Forward FLOPs of the GEMMs and attentions in the multiply-add convention
/// (tfm/Support/Flops.h): projections, FFN and LM head, attention over the
/// (query, key) pairs each layer's mask leaves visible; norms, embeddings,
/// bias, activation and softmax not counted.
double modelFlops(const tfm::ModelConfig &c, int64_t batch, int64_t seq) {
  namespace flops = tfm::flops;
  int64_t tokens = batch * seq, d = c.dModel, dh = c.headDim;
  int64_t qDim = c.numHeads * dh, kvDim = c.numKvHeads * dh;
  flops::Flops total;
  auto attention = [&](flops::Mask mask, int64_t window) {
    total += flops::gemm(1, tokens, d, qDim, false);
    total += flops::gemm(2, tokens, d, kvDim, false);
    total += flops::attention(batch, c.numHeads, seq, seq, dh, dh, mask,
                              window);
    total += flops::gemm(1, tokens, qDim, d, false);
  };
  auto layer = [&](const tfm::LayerConfig &l, bool cross) {
    flops::Mask mask = flops::Mask::None;
    if (l.mask == mlir::tfm::MaskKind::causal)
      mask = flops::Mask::Causal;
    else if (l.mask == mlir::tfm::MaskKind::sliding_window)
      mask = flops::Mask::SlidingWindow;
    attention(mask, l.window);
    if (cross)
      attention(flops::Mask::None, 0);
    total +=
        flops::ffn(tokens, d, l.ffnHidden, mlir::tfm::isGated(l.activation));
  };
  bool encDec = c.arch == tfm::Architecture::EncoderDecoder;
  for (const tfm::LayerConfig &l : c.encoderLayers)
    layer(l, false);
  for (const tfm::LayerConfig &l : c.decoderLayers)
    layer(l, encDec);
  if (c.head == tfm::HeadKind::Lm || c.head == tfm::HeadKind::MaskedLm)
    total += flops::gemm(1, tokens, d, c.vocabSize, false);
  return total.multiplyAdds;
}

/// One compiled model library with an instance of it on the bench's
/// weights and ids, and its own output buffer.
struct ModelVariant {
  std::unique_ptr<WorkDir> dir;
  std::unique_ptr<Library> lib;
  ModelApi api{};
  tfm_model *model = nullptr;
  std::unique_ptr<Buffer> out;
  double compileSeconds = 0;
  tfm_status status = TFM_OK;
  std::function<void()> call;
  ~ModelVariant() {
    if (model)
      api.destroy(model);
  }
};

/// Runs the tfmc path (frontend, compileModule) on `driver`'s model with
/// `options` into `keepDir` (a temporary folder when empty) and loads the
/// library.
llvm::Expected<std::unique_ptr<ModelVariant>>
compileModel(const tfm::DriverOptions &driver, const CommonOptions &options,
             llvm::StringRef keepDir) {
  auto v = std::make_unique<ModelVariant>();
  mlir::DialectRegistry registry;
  registerBenchDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module = tfm::runFrontend(context, driver);
  if (!module)
    return llvm::createStringError("the frontend rejected '" +
                                   driver.inputPath + "' (see above)");
  auto dir = WorkDir::create(keepDir);
  if (!dir)
    return dir.takeError();
  v->dir = std::move(*dir);
  std::string soPath = v->dir->file("model.so");
  tfm::CompileOptions compile;
  compile.target = benchTarget(options.threads);
  compile.writeHeader = false;
  compile.packWeights = options.packWeights;
  compile.precision = options.precision;
  compile.passOptions = options.passOptions;
  auto start = std::chrono::steady_clock::now();
  if (failed(tfm::compileModule(*module, compile, tfm::EmitPhase::So,
                                soPath)))
    return llvm::createStringError("compiling '" + driver.inputPath +
                                   "' failed (see the errors above)");
  v->compileSeconds = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
  auto lib = Library::open(soPath);
  if (!lib)
    return lib.takeError();
  v->lib = std::move(*lib);
  if (llvm::Error e = bind(*v->lib, v->api))
    return std::move(e);
  return std::move(v);
}

/// The index and value of the first non-finite element of `out`, counted
/// into `verify`.
void checkFinite(const Buffer &out, Verification &verify) {
  for (size_t i = 0; i < out.size(); ++i)
    if (!std::isfinite(out[i])) {
      verify.bad++;
      if (verify.firstBad.empty())
        verify.firstBad =
            "output[" + std::to_string(i) + "] = " + std::to_string(out[i]);
    }
  verify.checked = static_cast<int64_t>(out.size());
}

} // namespace

int tfm::bench::runModelBench(Args &args) {
  std::string modelPath = args.requireString("model");
  int64_t seq = args.requireInt("seq");
  int64_t batch = args.getInt("batch", 1);
  std::string weightsPath = args.getString("weights", "");
  std::string saveOutput = args.getString("save-output", "");
  std::string saveIds = args.getString("save-ids", "");
  CommonOptions options = CommonOptions::read(args);
  if (llvm::Error e = args.finish()) {
    reportError("model: " + llvm::toString(std::move(e)));
    return static_cast<int>(ExitCode::Usage);
  }
  auto fail = [](const llvm::Twine &msg) {
    reportError("model: " + msg);
    return static_cast<int>(ExitCode::Error);
  };
  if (!checkedElements({batch, seq})) {
    reportError("model: --batch " + llvm::Twine(batch) + " times --seq " +
                llvm::Twine(seq) + " overflows");
    return static_cast<int>(ExitCode::Usage);
  }

  // The tfmc path: frontend, then the lowering to a shared library; with
  // --versus a second library with more pass options.
  auto loaded = tfm::loadModel(modelPath, weightsPath);
  if (!loaded)
    return fail(llvm::toString(loaded.takeError()));
  tfm::DriverOptions driver;
  driver.inputPath = modelPath;
  driver.weightsPath = weightsPath;
  std::vector<std::unique_ptr<ModelVariant>> variants;
  for (const auto &[o, keep] : options.variants()) {
    auto v = compileModel(driver, o, keep);
    if (!v)
      return fail(llvm::toString(v.takeError()));
    variants.push_back(std::move(*v));
  }
  ModelVariant &base = *variants.front();

  const char *manifestText = nullptr;
  if (base.api.libraryInfo(&manifestText) != TFM_OK || !manifestText)
    return fail(std::string("tfm_library_info failed: ") +
                base.api.lastError());
  std::string soPath = base.dir->file("model.so");
  llvm::Expected<tfm::Manifest> manifest =
      tfm::Manifest::parse(manifestText, soPath + ": tfm_library_info");
  if (!manifest)
    return fail(llvm::toString(manifest.takeError()));
  if (seq > manifest->maxSeqLen)
    return fail("--seq " + llvm::Twine(seq) + " exceeds the model's "
                "max_seq_len " + llvm::Twine(manifest->maxSeqLen));

  // --weights, else the model's own (an HF folder), else random ones.
  std::string weightsFile =
      weightsPath.empty() ? loaded->weightsPath : weightsPath;
  std::string randomWeights = base.dir->file("weights.safetensors");
  if (weightsFile.empty()) {
    weightsFile = randomWeights;
    if (llvm::Error e =
            writeRandomWeights(*manifest, weightsFile, options.seed))
      return fail("writing random weights: " + llvm::toString(std::move(e)));
  }

  Rng rng(options.seed + 1);
  std::vector<int32_t> ids(batch * seq);
  for (int32_t &id : ids)
    id = static_cast<int32_t>(rng.next() %
                              static_cast<uint64_t>(manifest->vocabSize));
  bool seq2seq = manifest->architecture == tfm::Architecture::EncoderDecoder;
  int threads = 0;
  int64_t shape[3];
  int rank = 0;
  for (std::unique_ptr<ModelVariant> &vp : variants) {
    ModelVariant &v = *vp;
    const ModelApi &api = v.api;
    if (api.create(weightsFile.c_str(), &v.model) != TFM_OK)
      return fail("tfm_model_create('" + weightsFile + "'): " +
                  api.lastError());
    if (api.setNumThreads(v.model, static_cast<int>(options.threads)) !=
            TFM_OK ||
        api.getNumThreads(v.model, &threads) != TFM_OK)
      return fail(std::string("--threads: ") + api.lastError());
    if (api.outputShape(v.model, batch, seq, shape, &rank) != TFM_OK)
      return fail(std::string("tfm_model_output_shape: ") + api.lastError());
    std::optional<int64_t> outElems =
        checkedElements(llvm::ArrayRef<int64_t>(shape, rank));
    if (!outElems) {
      reportError("model: the output of --batch " + llvm::Twine(batch) +
                  " --seq " + llvm::Twine(seq) + " has too many elements");
      return static_cast<int>(ExitCode::Usage);
    }
    v.out = std::make_unique<Buffer>(*outElems);
    for (size_t i = 0; i < v.out->size(); ++i)
      (*v.out)[i] = NAN;
    v.call = [&v, &ids, batch, seq, seq2seq] {
      v.status =
          seq2seq ? v.api.forwardSeq2seq(v.model, ids.data(), batch, seq,
                                         nullptr, ids.data(), seq, nullptr,
                                         v.out->data(), v.out->size())
                  : v.api.forward(v.model, ids.data(), batch, seq, nullptr,
                                  v.out->data(), v.out->size());
    };
  }

  // Each library's first call is checked: every output finite.
  Report report;
  std::vector<double> firstCall;
  for (size_t i = 0; i < variants.size(); ++i) {
    ModelVariant &v = *variants[i];
    firstCall.push_back(timeOnce(v.call));
    if (v.status != TFM_OK)
      return fail(std::string("forward: ") + v.api.lastError());
    if (options.injectError)
      (*v.out)[0] = NAN;
    Verification check;
    checkFinite(*v.out, check);
    if (!check.ok()) {
      reportError(std::string("model: the compiled model") +
                  (i ? " of --versus" : "") + " produced " +
                  std::to_string(check.bad) + " non-finite outputs; first: " +
                  check.firstBad);
      return static_cast<int>(ExitCode::WrongResult);
    }
    if (i == 0)
      report.verify = check;
  }
  std::vector<int64_t> outShape(shape, shape + rank);
  if (!saveOutput.empty())
    if (llvm::Error e = tfm::writeNpyF32(
            saveOutput, outShape,
            llvm::ArrayRef<float>(base.out->data(), base.out->size())))
      return fail("--save-output: " + llvm::toString(std::move(e)));
  if (!saveIds.empty()) {
    // Token ids as float32 (exact below 2^24).
    std::vector<float> asFloat(ids.begin(), ids.end());
    if (llvm::Error e = tfm::writeNpyF32(saveIds, {batch, seq}, asFloat))
      return fail("--save-ids: " + llvm::toString(std::move(e)));
  }

  report.bench = "model";
  report.shape = llvm::json::Object{{"model", modelPath},
                                    {"name", loaded->config.name},
                                    {"batch", batch},
                                    {"seq", seq}};
  report.flops = modelFlops(loaded->config, batch, seq);
  report.compileSeconds = base.compileSeconds;
  report.verifyMethod = "all outputs finite (compare --save-output with a "
                        "reference for accuracy)";
  report.threads = threads;
  report.extra["pack_weights"] = options.packWeights;
  report.extra["precision"] = options.precision;
  report.extra["weights"] =
      weightsFile == randomWeights ? "random" : weightsFile;
  if (variants.size() == 1) {
    report.timing = timeCalls(options, firstCall[0], base.call);
  } else {
    // The two libraries on the same ids: how far apart their outputs are
    // (a schedule changes the summation order, not the function).
    ModelVariant &other = *variants.back();
    double maxDiff = 0, maxAbs = 0;
    for (size_t i = 0; i < base.out->size(); ++i) {
      maxDiff = std::max<double>(maxDiff,
                                 std::fabs((*base.out)[i] - (*other.out)[i]));
      maxAbs = std::max<double>(maxAbs, std::fabs((*base.out)[i]));
    }
    report.extra["versus_max_abs_diff"] = maxDiff;
    report.extra["max_abs_output"] = maxAbs;
    PairedTiming paired = timePairs(options, firstCall[0] + firstCall[1],
                                    base.call, other.call);
    report.timing = paired.first;
    report.versus = Report::Versus{*options.versus, paired.second,
                                   paired.speedups, other.compileSeconds};
  }
  for (std::unique_ptr<ModelVariant> &v : variants)
    if (v->status != TFM_OK)
      return fail(std::string("forward: ") + v->api.lastError());
  report.print(options.json);
  return static_cast<int>(ExitCode::Success);
}
