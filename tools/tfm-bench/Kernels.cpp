//===- Kernels.cpp - single-op benchmarks ---------------------------------===//
//
// Each op is wrapped in a kernel module (tfm.architecture = "kernel", see
// -tfm-materialize-entry): a `tfm.entry` @kernel whose inputs are the op's
// activations, its parameters (linear and FFN weights and biases) being
// `tfm.weight`s as in a model. The generated `_mlir_ciface_kernel` takes the
// weights table, one memref descriptor per input and one for the
// caller-allocated result, so the op runs on the caller's buffers with no
// copy; `_mlir_ciface_tfm_prepare` fills the table's prepared (packed)
// tensors once before the first call.
//
//===----------------------------------------------------------------------===//

#include "Kernels.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/Support/CpuFeatures.h"

#include "tfm/IR/TfmEntryABI.h"
#include "tfm/Runtime/MemRefDescriptor.h"
#include "tfm/Support/Flops.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <utility>

using namespace tfm::bench;

namespace {

using Shape = std::vector<int64_t>;

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (int64_t d : s)
    n *= d;
  return n;
}

std::string tensorType(const Shape &s, llvm::StringRef elt = "f32") {
  std::string t = "tensor<";
  for (int64_t d : s)
    t += std::to_string(d) + "x";
  return t + elt.str() + ">";
}

/// One operand of the op: an input of the kernel entry, or (`weight`) a
/// `tfm.weight` read from the weights table, as a model's parameters are,
/// so that the kernel gets the model's weight layouts (packed once by
/// `tfm_prepare`, outside the timed calls).
struct Operand {
  std::string name;
  Shape shape;
  float lo, hi;
  bool weight = false;
};

/// Makes every operand but the activation `x` a weight.
void weightsAllBut(std::vector<Operand> &operands, llvm::StringRef x) {
  for (Operand &o : operands)
    o.weight = o.name != x;
}

/// Everything a single-op benchmark needs.
struct KernelBench {
  std::string bench;
  llvm::json::Object shape;
  double flops = 0;
  std::vector<Operand> operands;
  Shape resultShape;
  /// The op itself: SSA lines using %<operand name>, defining %result.
  std::string body;
  std::string verifyMethod;
  /// Checks sampled results; operands by name.
  std::function<void(const llvm::StringMap<const Buffer *> &, const Buffer &,
                     Verification &)>
      verify;
};

/// Wraps `k.body` into a kernel module.
std::string moduleText(const KernelBench &k) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "module attributes {tfm.architecture = \"kernel\"} {\n"
     << "  func.func @kernel(";
  llvm::ListSeparator comma;
  for (const Operand &o : k.operands)
    if (!o.weight)
      os << comma << "%" << o.name << ": " << tensorType(o.shape);
  os << ") -> " << tensorType(k.resultShape) << " attributes {tfm.entry} {\n";
  for (const Operand &o : k.operands)
    if (o.weight)
      os << "    %" << o.name << " = tfm.weight \"" << o.name
         << "\" : " << tensorType(o.shape) << "\n";
  os << k.body;
  os << "    return %result : " << tensorType(k.resultShape) << "\n  }\n}\n";
  return s;
}

/// Checks that every operand, the result and the FLOP count have sizes
/// that fit (no int64_t or size_t overflow); the message names the tensor.
llvm::Error checkSizes(const KernelBench &k) {
  auto shapeText = [](const Shape &s) {
    std::string t;
    for (int64_t d : s)
      t += (t.empty() ? "" : "x") + std::to_string(d);
    return t;
  };
  for (const Operand &o : k.operands)
    if (!checkedElements(o.shape))
      return llvm::createStringError("operand '" + o.name + "' of shape " +
                                     shapeText(o.shape) +
                                     " has too many elements");
  if (!checkedElements(k.resultShape))
    return llvm::createStringError("the result of shape " +
                                   shapeText(k.resultShape) +
                                   " has too many elements");
  if (!std::isfinite(k.flops) || k.flops > 9.0e18)
    return llvm::createStringError("the FLOP count overflows");
  return llvm::Error::success();
}

/// Calls `fn(table, args[0], ..., args[N-1])`.
template <size_t... I>
void callWith(void *fn, void *table, void *const *args,
              std::index_sequence<I...>) {
  using Fn = void (*)(void *, decltype((void)I, (void *)nullptr)...);
  reinterpret_cast<Fn>(fn)(table, args[I]...);
}

/// The kernel entry with its descriptor arguments bound.
std::function<void()> bindEntry(void *fn, void *table,
                                const std::vector<void *> &args) {
  const std::vector<void *> a = args;
  switch (a.size()) {
#define TFM_BENCH_ARITY(N)                                                     \
  case N:                                                                      \
    return [=] { callWith(fn, table, a.data(), std::make_index_sequence<N>{}); };
    TFM_BENCH_ARITY(2)
    TFM_BENCH_ARITY(3)
    TFM_BENCH_ARITY(4)
    TFM_BENCH_ARITY(5)
    TFM_BENCH_ARITY(6)
    TFM_BENCH_ARITY(7)
    TFM_BENCH_ARITY(8)
    TFM_BENCH_ARITY(9)
#undef TFM_BENCH_ARITY
  default:
    return nullptr;
  }
}

/// One compiled library of a kernel bench, bound to the bench's operands:
/// its own prepared tensors and result buffer, and the call that runs it.
struct Variant {
  std::unique_ptr<WorkDir> dir;
  std::unique_ptr<Library> lib;
  std::vector<std::unique_ptr<Buffer>> prepared;
  std::unique_ptr<Buffer> out;
  std::vector<std::vector<int64_t>> descriptors;
  std::vector<void *> table, args;
  std::function<void()> call;
  double compileSeconds = 0;
  int64_t preparedTensors = 0;
  int64_t threads = 1;
};

/// Compiles `text` with `options` (its pass options included) into a
/// library in `keepDir` (a temporary folder when empty), loads it, fills
/// its prepared tensors from the weights among `byName` and binds its
/// entry to the activations in `inputs` (the operands' order) and a result
/// buffer of its own.
llvm::Expected<std::unique_ptr<Variant>>
buildVariant(const KernelBench &k, const std::string &text,
             const CommonOptions &options, llvm::StringRef keepDir,
             const llvm::StringMap<const Buffer *> &byName,
             const std::vector<std::pair<const Buffer *, Shape>> &inputs) {
  auto v = std::make_unique<Variant>();
  mlir::DialectRegistry registry;
  registerBenchDialects(registry);
  mlir::MLIRContext context(registry);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, &context,
                                              "tfm-bench:" + k.bench);
  if (!module || failed(mlir::verify(*module)))
    return llvm::createStringError("the generated " + k.bench +
                                   " module does not parse or verify:\n" +
                                   text);
  auto dir = WorkDir::create(keepDir);
  if (!dir)
    return dir.takeError();
  v->dir = std::move(*dir);
  std::string soPath = v->dir->file("kernel.so");
  auto compileSeconds = compileKernelLibrary(
      *module, options, v->dir->file("kernel.o"), soPath);
  if (!compileSeconds)
    return compileSeconds.takeError();
  v->compileSeconds = *compileSeconds;
  // What the runtime does at tfm_model_create (the kernel links without
  // it): the CPU features the code needs (AMX's tile state).
  std::vector<std::string> features;
  if (auto list = (*module)->getAttrOfType<mlir::ArrayAttr>(
          mlir::tfm::kCpuFeaturesAttr))
    for (auto f : list.getAsRange<mlir::StringAttr>())
      features.push_back(f.getValue().str());
  if (std::optional<std::string> why = tfm::enableCpuFeatures(features))
    return llvm::createStringError(k.bench + ": the kernel needs " + *why);
  auto lib = Library::open(soPath);
  if (!lib)
    return lib.takeError();
  v->lib = std::move(*lib);
  auto sym = v->lib->symbol("_mlir_ciface_kernel");
  if (!sym)
    return sym.takeError();
  auto threads = setKernelThreads(*v->lib, options.threads);
  if (!threads)
    return llvm::createStringError(k.bench + ": " +
                                   llvm::toString(threads.takeError()));
  v->threads = *threads;
  auto prepare = v->lib->symbol(
      ("_mlir_ciface_" + mlir::tfm::abi::kPrepareFunction).str());
  if (!prepare)
    return prepare.takeError();

  for (const auto &[in, shape] : inputs)
    v->descriptors.push_back(
        tfm::runtime::describeContiguousWords(const_cast<float *>(in->data()),
                                              shape));
  // The weights table: the weights in the order of the module's
  // `tfm.weights`, then the prepared tensors of `tfm.prepared`, which
  // tfm_prepare writes (once, untimed).
  for (llvm::StringRef attr :
       {mlir::tfm::abi::kWeightsAttr, mlir::tfm::abi::kPreparedAttr}) {
    auto list = (*module)->getAttrOfType<mlir::ArrayAttr>(attr);
    if (!list)
      return llvm::createStringError("the lowered kernel module has no '" +
                                     attr.str() + "' table");
    for (mlir::Attribute a : list) {
      auto entry = llvm::cast<mlir::DictionaryAttr>(a);
      auto name = entry.getAs<mlir::StringAttr>("name");
      auto shape = entry.getAs<mlir::ArrayAttr>("shape");
      if (!name || !shape)
        return llvm::createStringError("malformed '" + attr.str() +
                                       "' entry in the lowered kernel module");
      if (attr == mlir::tfm::abi::kWeightsAttr) {
        const Buffer *w = byName.lookup(name.getValue());
        if (!w)
          return llvm::createStringError(
              "the lowered kernel module reads weight '" +
              name.getValue().str() + "', which is not an operand");
        v->table.push_back(const_cast<float *>(w->data()));
        continue;
      }
      int64_t count = 1;
      for (mlir::Attribute d : shape)
        count *= llvm::cast<mlir::IntegerAttr>(d).getInt();
      v->prepared.push_back(std::make_unique<Buffer>(count));
      v->table.push_back(v->prepared.back()->data());
      ++v->preparedTensors;
    }
  }
  v->table.push_back(nullptr); // never empty
  reinterpret_cast<void (*)(void *const *)>(*prepare)(v->table.data());
  v->out = std::make_unique<Buffer>(numel(k.resultShape));
  for (size_t i = 0; i < v->out->size(); ++i)
    (*v->out)[i] = NAN;
  v->descriptors.push_back(
      tfm::runtime::describeContiguousWords(v->out->data(), k.resultShape));
  for (std::vector<int64_t> &d : v->descriptors)
    v->args.push_back(d.data());
  v->call = bindEntry(*sym, v->table.data(), v->args);
  if (!v->call)
    return llvm::createStringError(k.bench + ": " +
                                   std::to_string(v->args.size()) +
                                   " entry arguments are more than tfm-bench "
                                   "can call");
  return std::move(v);
}

int runKernelBench(KernelBench &k, const CommonOptions &options) {
  if (llvm::Error e = checkSizes(k)) {
    reportError(k.bench + ": " + llvm::toString(std::move(e)));
    return static_cast<int>(ExitCode::Usage);
  }
  std::string text = moduleText(k);

  // The operands, in the entry's argument order, then the result.
  Rng rng(options.seed);
  std::vector<std::unique_ptr<Buffer>> buffers;
  llvm::StringMap<const Buffer *> byName;
  std::vector<std::pair<const Buffer *, Shape>> inputs;
  for (const Operand &o : k.operands) {
    auto buf = std::make_unique<Buffer>(numel(o.shape));
    for (size_t i = 0; i < buf->size(); ++i)
      (*buf)[i] = rng.uniform(o.lo, o.hi);
    byName[o.name] = buf.get();
    if (!o.weight)
      inputs.push_back({buf.get(), o.shape});
    buffers.push_back(std::move(buf));
  }

  // The bench's library, and with --versus a second one with more pass
  // options, compiled from the same module and run on the same operands.
  std::vector<std::unique_ptr<Variant>> variants;
  for (const auto &[o, keep] : options.variants()) {
    auto v = buildVariant(k, text, o, keep, byName, inputs);
    if (!v) {
      reportError(llvm::toString(v.takeError()));
      return static_cast<int>(ExitCode::Error);
    }
    variants.push_back(std::move(*v));
  }

  // Verify each once before any timing: a wrong kernel is never reported.
  Report report;
  std::vector<double> firstCall;
  for (size_t i = 0; i < variants.size(); ++i) {
    Variant &v = *variants[i];
    firstCall.push_back(timeOnce(v.call));
    if (options.injectError)
      (*v.out)[0] += 0.5f; // the first row is always among the checked ones
    Verification check;
    k.verify(byName, *v.out, check);
    if (!check.ok()) {
      reportError(k.bench + ": the compiled code" +
                  (i ? " of --versus" : "") + " is wrong: " +
                  std::to_string(check.bad) + " of " +
                  std::to_string(check.checked) +
                  " checked values are off; first: " + check.firstBad);
      return static_cast<int>(ExitCode::WrongResult);
    }
    if (i == 0)
      report.verify = check;
  }

  Variant &base = *variants.front();
  report.bench = k.bench;
  report.shape = std::move(k.shape);
  report.flops = k.flops;
  report.compileSeconds = base.compileSeconds;
  report.verifyMethod = k.verifyMethod;
  report.threads = base.threads;
  report.extra["pack_weights"] = options.packWeights;
  report.extra["precision"] = options.precision;
  report.extra["prepared_tensors"] = base.preparedTensors;
  if (variants.size() == 1) {
    report.timing = timeCalls(options, firstCall[0], base.call);
  } else {
    Variant &other = *variants.back();
    PairedTiming paired = timePairs(options, firstCall[0] + firstCall[1],
                                    base.call, other.call);
    report.timing = paired.first;
    report.versus = Report::Versus{*options.versus, paired.second,
                                   paired.speedups, other.compileSeconds};
  }
  report.print(options.json);
  return static_cast<int>(ExitCode::Success);
}

/// Rows to check: the first and last, the rest spread evenly.
std::vector<int64_t> sampleRows(int64_t rows, int64_t want) {
  std::vector<int64_t> r;
  if (want >= rows) {
    for (int64_t i = 0; i < rows; ++i)
      r.push_back(i);
    return r;
  }
  for (int64_t i = 0; i < want; ++i)
    r.push_back(want == 1 ? 0 : i * (rows - 1) / (want - 1));
  return r;
}

double activate(llvm::StringRef act, double x) {
  if (act == "relu")
    return x > 0 ? x : 0;
  if (act == "gelu" || act == "geglu")
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  if (act == "gelu_tanh")
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  if (act == "silu" || act == "swiglu")
    return x / (1 + std::exp(-x));
  return std::tanh(x); // tanh
}

bool isGated(llvm::StringRef act) { return act == "swiglu" || act == "geglu"; }

/// Absolute tolerance for an f32 dot product of `n` terms whose absolute
/// values sum to `sumAbs`: generous against rounding in any summation
/// order, far below what a wrong index or a dropped block produces.
double dotTolerance(double sumAbs, int64_t n) {
  return 1e-5 * sumAbs + 4e-7 * std::sqrt(static_cast<double>(n)) + 1e-6;
}

} // namespace

int tfm::bench::runAttentionBench(Args &args) {
  int64_t b = args.requireInt("batch");
  int64_t h = args.requireInt("heads");
  int64_t hkv = args.getInt("kv-heads", -1);
  int64_t t = args.requireInt("seq");
  int64_t tk = args.getInt("kv-seq", -1);
  int64_t d = args.requireInt("head-dim");
  bool causal = args.has("causal");
  CommonOptions options = CommonOptions::read(args);
  if (hkv < 0)
    hkv = h;
  if (tk < 0)
    tk = t;
  if (llvm::Error e = args.finish()) {
    reportError("attention: " + llvm::toString(std::move(e)));
    return static_cast<int>(ExitCode::Usage);
  }
  if (h % hkv != 0) {
    reportError("attention: --heads (" + std::to_string(h) +
                ") must be a multiple of --kv-heads (" + std::to_string(hkv) +
                ")");
    return static_cast<int>(ExitCode::Usage);
  }
  if (causal && tk < t) {
    reportError("attention: --causal needs --kv-seq >= --seq");
    return static_cast<int>(ExitCode::Usage);
  }

  KernelBench k;
  k.bench = "attention";
  k.shape = llvm::json::Object{{"batch", b},      {"heads", h},
                               {"kv_heads", hkv}, {"seq", t},
                               {"kv_seq", tk},    {"head_dim", d},
                               {"causal", causal}};
  // QK^T and PV over the visible (query, key) pairs.
  k.flops = tfm::flops::attention(b, h, t, tk, d, d,
                                  causal ? tfm::flops::Mask::Causal
                                         : tfm::flops::Mask::None)
                .multiplyAdds;
  Shape qShape{b, h, t, d}, kvShape{b, hkv, tk, d};
  k.operands = {{"q", qShape, -1, 1}, {"k", kvShape, -1, 1},
                {"v", kvShape, -1, 1}};
  k.resultShape = qShape;
  double scale = 1.0 / std::sqrt(static_cast<double>(d));
  std::string attrs = llvm::formatv("{{mask = #tfm.mask<{0}>, scale = {1} : "
                                    "f64}",
                                    causal ? "causal" : "none",
                                    llvm::format("%.17g", scale))
                          .str();
  k.body = "    %result = tfm.attention %q, %k, %v " + attrs + " : " +
           tensorType(qShape) + ", " + tensorType(kvShape) + ", " +
           tensorType(kvShape) + " -> " + tensorType(qShape) + "\n";
  k.verifyMethod = "float64 softmax(QK^T)V on sampled query rows";
  int64_t rows = options.verifyRows;
  // With rounded inputs (--precision), each of q, k, v and the
  // probabilities p is rounded once, with a relative error of at most u.
  // A score s_j = scale * q.k then moves by at most
  // e_j = 2u * scale * sum_d |q_d k_d|, each normalized p_j by a factor
  // within exp(+-2 max_j e_j), and the output by at most
  // (2 max_j e_j + 2u) * sum_j p_j |v_j| (first order, doubled below).
  double u = options.unitRoundoff();
  k.verify = [=](const llvm::StringMap<const Buffer *> &in, const Buffer &out,
                 Verification &v) {
    const Buffer &q = *in.lookup("q"), &kk = *in.lookup("k"),
                 &vv = *in.lookup("v");
    int64_t group = h / hkv, off = tk - t;
    std::vector<double> s(tk), o(d), spread(d);
    for (int64_t r : sampleRows(b * h * t, rows)) {
      int64_t bi = r / (h * t), hi = (r / t) % h, i = r % t;
      // Spread rows over heads too, not only over positions.
      hi = (hi + r) % h;
      int64_t n = hi / group;
      const float *qrow = q.data() + (((bi * h + hi) * t + i) * d);
      int64_t last = causal ? std::min(tk - 1, i + off) : tk - 1;
      double mx = -INFINITY, maxAbsDot = 0;
      for (int64_t j = 0; j <= last; ++j) {
        const float *krow = kk.data() + (((bi * hkv + n) * tk + j) * d);
        double dot = 0, absDot = 0;
        for (int64_t c = 0; c < d; ++c) {
          dot += static_cast<double>(qrow[c]) * krow[c];
          absDot += std::fabs(static_cast<double>(qrow[c]) * krow[c]);
        }
        s[j] = dot * scale;
        maxAbsDot = std::max(maxAbsDot, absDot * scale);
        mx = std::max(mx, s[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j <= last; ++j)
        sum += (s[j] = std::exp(s[j] - mx));
      std::fill(o.begin(), o.end(), 0.0);
      std::fill(spread.begin(), spread.end(), 0.0);
      for (int64_t j = 0; j <= last; ++j) {
        const float *vrow = vv.data() + (((bi * hkv + n) * tk + j) * d);
        for (int64_t c = 0; c < d; ++c) {
          o[c] += s[j] / sum * vrow[c];
          spread[c] += s[j] / sum * std::fabs(vrow[c]);
        }
      }
      double rounding = 2 * (4 * u * maxAbsDot + 2 * u);
      for (int64_t c = 0; c < d; ++c)
        v.check(out[((bi * h + hi) * t + i) * d + c], o[c],
                2e-5 + 1e-4 * std::fabs(o[c]) + rounding * spread[c],
                llvm::formatv("result[{0},{1},{2},{3}]", bi, hi, i, c));
    }
  };
  return runKernelBench(k, options);
}

int tfm::bench::runLinearBench(Args &args) {
  int64_t m = args.requireInt("m");
  int64_t kdim = args.requireInt("k");
  int64_t n = args.requireInt("n");
  bool bias = !args.has("no-bias");
  CommonOptions options = CommonOptions::read(args);
  if (llvm::Error e = args.finish()) {
    reportError("linear: " + llvm::toString(std::move(e)));
    return static_cast<int>(ExitCode::Usage);
  }
  KernelBench k;
  k.bench = "linear";
  k.shape = llvm::json::Object{{"m", m}, {"k", kdim}, {"n", n}, {"bias", bias}};
  k.flops = tfm::flops::gemm(1, m, kdim, n, bias).multiplyAdds;
  float w = 1.0f / std::sqrt(static_cast<float>(kdim));
  k.operands = {{"x", {m, kdim}, -1, 1}, {"w", {n, kdim}, -w, w}};
  if (bias)
    k.operands.push_back({"b", {n}, -0.1f, 0.1f});
  weightsAllBut(k.operands, "x");
  k.resultShape = {m, n};
  k.body = "    %result = tfm.linear %x, %w" + std::string(bias ? ", %b" : "") +
           " : (" + tensorType({m, kdim}) + ", " + tensorType({n, kdim}) +
           (bias ? ", " + tensorType({n}) : "") + ") -> " +
           tensorType({m, n}) + "\n";
  k.verifyMethod = "float64 x W^T + b on sampled rows";
  int64_t rows = options.verifyRows;
  k.verify = [=](const llvm::StringMap<const Buffer *> &in, const Buffer &out,
                 Verification &v) {
    const Buffer &x = *in.lookup("x"), &wt = *in.lookup("w");
    const Buffer *b = bias ? in.lookup("b") : nullptr;
    for (int64_t r : sampleRows(m, rows))
      for (int64_t o = 0; o < n; ++o) {
        double acc = b ? (*b)[o] : 0.0, sumAbs = std::fabs(acc);
        for (int64_t i = 0; i < kdim; ++i) {
          double p = static_cast<double>(x[r * kdim + i]) * wt[o * kdim + i];
          acc += p;
          sumAbs += std::fabs(p);
        }
        v.check(out[r * n + o], acc,
                dotTolerance(sumAbs, kdim) + options.inputRounding() * sumAbs,
                llvm::formatv("result[{0},{1}]", r, o));
      }
  };
  return runKernelBench(k, options);
}

int tfm::bench::runFfnBench(Args &args) {
  int64_t tokens = args.requireInt("tokens");
  int64_t dm = args.requireInt("d-model");
  int64_t hidden = args.requireInt("hidden");
  std::string act = args.getString("activation", "gelu_tanh");
  bool bias = !args.has("no-bias");
  CommonOptions options = CommonOptions::read(args);
  if (llvm::Error e = args.finish()) {
    reportError("ffn: " + llvm::toString(std::move(e)));
    return static_cast<int>(ExitCode::Usage);
  }
  static const char *kinds[] = {"relu",  "gelu",   "gelu_tanh", "silu",
                                "tanh",  "swiglu", "geglu"};
  if (std::find_if(std::begin(kinds), std::end(kinds), [&](const char *s) {
        return act == s;
      }) == std::end(kinds)) {
    reportError("ffn: --activation must be one of relu, gelu, gelu_tanh, "
                "silu, tanh, swiglu, geglu; got '" +
                act + "'");
    return static_cast<int>(ExitCode::Usage);
  }
  bool gated = isGated(act);
  KernelBench k;
  k.bench = "ffn";
  k.shape = llvm::json::Object{{"tokens", tokens},
                               {"d_model", dm},
                               {"hidden", hidden},
                               {"activation", act},
                               {"bias", bias}};
  k.flops = tfm::flops::ffn(tokens, dm, hidden, gated).multiplyAdds;
  float wu = 1.0f / std::sqrt(static_cast<float>(dm));
  float wd = 1.0f / std::sqrt(static_cast<float>(hidden));
  Shape up{hidden, dm}, down{dm, hidden};
  k.operands = {{"x", {tokens, dm}, -1, 1}, {"wu", up, -wu, wu}};
  std::string operands = "%x up(%wu", types = tensorType({tokens, dm}) + ", " +
                                              tensorType(up);
  if (bias) {
    k.operands.push_back({"bu", {hidden}, -0.1f, 0.1f});
    operands += ", %bu";
    types += ", " + tensorType({hidden});
  }
  operands += ")";
  if (gated) {
    k.operands.push_back({"wg", up, -wu, wu});
    operands += " gate(%wg)";
    types += ", " + tensorType(up);
    if (bias) {
      k.operands.push_back({"bg", {hidden}, -0.1f, 0.1f});
      operands += " gate_bias(%bg)";
      types += ", " + tensorType({hidden});
    }
  }
  k.operands.push_back({"wd", down, -wd, wd});
  operands += " down(%wd";
  types += ", " + tensorType(down);
  if (bias) {
    k.operands.push_back({"bd", {dm}, -0.1f, 0.1f});
    operands += ", %bd";
    types += ", " + tensorType({dm});
  }
  operands += ")";
  weightsAllBut(k.operands, "x");
  k.resultShape = {tokens, dm};
  k.body = "    %result = tfm.ffn " + operands + " <" + act + "> : (" + types +
           ") -> " + tensorType({tokens, dm}) + "\n";
  k.verifyMethod = "float64 down(act(up x)) on sampled rows";
  int64_t rows = options.verifyRows;
  k.verify = [=](const llvm::StringMap<const Buffer *> &in, const Buffer &out,
                 Verification &v) {
    const Buffer &x = *in.lookup("x"), &Wu = *in.lookup("wu"),
                 &Wd = *in.lookup("wd");
    const Buffer *Wg = gated ? in.lookup("wg") : nullptr;
    const Buffer *bu = bias ? in.lookup("bu") : nullptr;
    const Buffer *bg = bias && gated ? in.lookup("bg") : nullptr;
    const Buffer *bd = bias ? in.lookup("bd") : nullptr;
    std::vector<double> hrow(hidden);
    for (int64_t r : sampleRows(tokens, std::max<int64_t>(1, rows / 4))) {
      for (int64_t f = 0; f < hidden; ++f) {
        double u = bu ? (*bu)[f] : 0.0, g = bg ? (*bg)[f] : 0.0;
        for (int64_t i = 0; i < dm; ++i) {
          double xi = x[r * dm + i];
          u += xi * Wu[f * dm + i];
          if (Wg)
            g += xi * (*Wg)[f * dm + i];
        }
        hrow[f] = gated ? activate(act, g) * u : activate(act, u);
      }
      for (int64_t o = 0; o < dm; ++o) {
        double acc = bd ? (*bd)[o] : 0.0, sumAbs = std::fabs(acc);
        for (int64_t f = 0; f < hidden; ++f) {
          double p = hrow[f] * Wd[o * hidden + f];
          acc += p;
          sumAbs += std::fabs(p);
        }
        // The hidden activations carry f32 rounding from the first matmul
        // and the activation function (libm's erf/tanh in f32).
        v.check(out[r * dm + o], acc,
                (1e-4 + 2 * options.inputRounding()) * sumAbs + 1e-5,
                llvm::formatv("result[{0},{1}]", r, o));
      }
    }
  };
  return runKernelBench(k, options);
}
