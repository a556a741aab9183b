//===- Harness.cpp - compile, load, time and report -----------------------===//

#include "Harness.h"

#include "llvm/ADT/StringExtras.h"

#include "tfm/Compiler/Compile.h"

#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <dlfcn.h>

using namespace tfm::bench;

//===----------------------------------------------------------------------===//
// Args
//===----------------------------------------------------------------------===//

Args::Args(int argc, char **argv, int first,
           const std::vector<std::string> &flags) {
  for (int i = first; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (!arg.starts_with("--") || arg.size() == 2) {
      errors_.push_back("unexpected argument '" + arg.str() +
                        "' (options are --name value)");
      continue;
    }
    arg = arg.drop_front(2);
    auto [name, inlineValue] = arg.split('=');
    bool isFlag = std::find(flags.begin(), flags.end(), name.str()) !=
                  flags.end();
    if (isFlag) {
      if (arg.contains('='))
        errors_.push_back("--" + name.str() + " takes no value");
      values_[name] = "";
      continue;
    }
    if (arg.contains('=')) {
      values_[name] = inlineValue.str();
      continue;
    }
    if (i + 1 >= argc) {
      errors_.push_back("--" + name.str() + " needs a value");
      continue;
    }
    values_[name] = argv[++i];
  }
}

bool Args::has(llvm::StringRef name) const {
  used_[name] = true;
  return values_.count(name);
}

int64_t Args::getInt(llvm::StringRef name, int64_t dflt, int64_t min) {
  if (!has(name))
    return dflt;
  int64_t v;
  if (llvm::StringRef(values_[name]).getAsInteger(10, v)) {
    errors_.push_back("--" + name.str() + " expects an integer, got '" +
                      values_[name] + "'");
    return dflt;
  }
  if (v < min) {
    errors_.push_back("--" + name.str() + " must be >= " +
                      std::to_string(min) + ", got " + std::to_string(v));
    return dflt;
  }
  return v;
}

double Args::getDouble(llvm::StringRef name, double dflt) {
  if (!has(name))
    return dflt;
  double v;
  if (llvm::StringRef(values_[name]).getAsDouble(v) || !(v > 0)) {
    errors_.push_back("--" + name.str() +
                      " expects a positive number, got '" + values_[name] +
                      "'");
    return dflt;
  }
  return v;
}

std::string Args::getString(llvm::StringRef name, const std::string &dflt) {
  if (!has(name))
    return dflt;
  return values_[name];
}

std::string Args::getChoice(llvm::StringRef name,
                            llvm::ArrayRef<llvm::StringRef> choices) {
  std::string value = getString(name, choices.front().str());
  if (!llvm::is_contained(choices, value))
    errors_.push_back("--" + name.str() + " must be one of " +
                      llvm::join(choices, ", ") + ", got '" + value + "'");
  return value;
}

int64_t Args::requireInt(llvm::StringRef name) {
  if (!has(name)) {
    errors_.push_back("missing required option --" + name.str());
    return 1;
  }
  return getInt(name, 1);
}

std::string Args::requireString(llvm::StringRef name) {
  if (!has(name) || values_[name].empty()) {
    errors_.push_back("missing required option --" + name.str());
    return "";
  }
  return values_[name];
}

llvm::Error Args::finish() const {
  std::vector<std::string> all = errors_;
  for (auto &entry : values_)
    if (!used_.lookup(entry.getKey()))
      all.push_back("unknown option --" + entry.getKey().str());
  if (all.empty())
    return llvm::Error::success();
  std::string msg = all.front();
  for (size_t i = 1; i < all.size(); ++i)
    msg += "\n" + all[i];
  return llvm::createStringError(msg);
}

CommonOptions CommonOptions::read(Args &args) {
  CommonOptions o;
  o.threads = args.getInt("threads", o.threads);
  o.warmup = args.getInt("warmup", o.warmup, /*min=*/0);
  o.iters = args.getInt("iters", o.iters);
  o.minIters = std::min<int64_t>(args.getInt("min-iters", o.minIters), o.iters);
  o.maxTime = args.getDouble("max-time", o.maxTime);
  o.seed = static_cast<uint64_t>(args.getInt("seed", 1, /*min=*/0));
  o.json = args.has("json");
  o.keepDir = args.getString("keep-dir", "");
  o.verifyRows = args.getInt("verify-rows", o.verifyRows);
  o.injectError = args.has("inject-error");
  o.packWeights = !args.has("no-pack-weights");
  o.precision = args.getChoice("precision", {"f32", "bf16", "f16"});
  // Space-separated PASS:OPTION=VALUE settings.
  auto settings = [](llvm::StringRef list) {
    llvm::SmallVector<llvm::StringRef> parts;
    list.split(parts, ' ', -1, /*KeepEmpty=*/false);
    return std::vector<std::string>(parts.begin(), parts.end());
  };
  o.passOptions = settings(args.getString("pass-option", ""));
  if (args.has("versus"))
    o.versus = settings(args.getString("versus", ""));
  return o;
}

std::vector<std::pair<CommonOptions, std::string>>
CommonOptions::variants() const {
  std::vector<std::pair<CommonOptions, std::string>> all{{*this, keepDir}};
  if (versus) {
    CommonOptions o = *this;
    llvm::append_range(o.passOptions, *versus);
    all.push_back({o, keepDir.empty() ? "" : keepDir + "/versus"});
  }
  return all;
}

//===----------------------------------------------------------------------===//
// Compilation and loading
//===----------------------------------------------------------------------===//

void tfm::bench::registerBenchDialects(mlir::DialectRegistry &registry) {
  tfm::registerCompilerDialects(registry);
}

llvm::Expected<std::unique_ptr<WorkDir>>
WorkDir::create(llvm::StringRef keep) {
  auto dir = std::unique_ptr<WorkDir>(new WorkDir());
  if (!keep.empty()) {
    if (std::error_code ec = llvm::sys::fs::create_directories(keep))
      return llvm::createStringError("cannot create --keep-dir '" + keep +
                                     "': " + ec.message());
    dir->path_ = keep.str();
    dir->remove_ = false;
    return std::move(dir);
  }
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueDirectory("tfm-bench", path))
    return llvm::createStringError("cannot create a temporary folder: " +
                                   ec.message());
  dir->path_ = std::string(path);
  return std::move(dir);
}

WorkDir::~WorkDir() {
  if (remove_ && !path_.empty())
    llvm::sys::fs::remove_directories(path_);
}

std::string WorkDir::file(llvm::StringRef name) const {
  llvm::SmallString<256> p(path_);
  llvm::sys::path::append(p, name);
  return std::string(p);
}

llvm::Expected<std::unique_ptr<Library>> Library::open(llvm::StringRef path) {
  auto lib = std::unique_ptr<Library>(new Library());
  lib->path_ = path.str();
  lib->handle_ = dlopen(lib->path_.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_)
    return llvm::createStringError("cannot load '" + path +
                                   "': " + dlerror());
  return std::move(lib);
}

Library::~Library() {
  if (handle_)
    dlclose(handle_);
}

llvm::Expected<void *> Library::symbol(llvm::StringRef name) const {
  dlerror();
  void *sym = dlsym(handle_, name.str().c_str());
  if (!sym)
    return llvm::createStringError("'" + path_ + "' has no symbol '" + name +
                                   "'");
  return sym;
}

mlir::tfm::TargetDescription tfm::bench::benchTarget(int64_t threads) {
  mlir::tfm::TargetDescription target = mlir::tfm::hostTarget();
  target.threads =
      std::max<unsigned>(target.threads, static_cast<unsigned>(threads));
  return target;
}

llvm::Expected<double>
tfm::bench::compileKernelLibrary(mlir::ModuleOp module,
                                 const CommonOptions &common,
                                 llvm::StringRef objPath,
                                 llvm::StringRef soPath) {
  auto start = std::chrono::steady_clock::now();
  tfm::CompileOptions options;
  options.target = benchTarget(common.threads);
  options.packWeights = common.packWeights;
  options.precision = common.precision;
  options.passOptions = common.passOptions;
  // The kernel links without the runtime: malloc/free.
  options.runtimeAllocator = false;
  if (failed(tfm::compileModule(module, options, tfm::EmitPhase::Obj,
                                objPath)))
    return llvm::createStringError(
        "the tfm pipeline failed to compile the benchmark module (see the "
        "errors above)");
  double seconds = std::chrono::duration<double>(
                       std::chrono::steady_clock::now() - start)
                       .count();

  // The kernel object links without the runtime (its entry point stays
  // exported), through the one place that knows how generated code links.
  mlir::tfm::LinkOptions link;
  link.mode = mlir::tfm::LinkMode::Kernel;
  std::string error;
  if (failed(mlir::tfm::linkSharedLibrary(objPath, soPath, link, error)))
    return llvm::createStringError("linking the benchmark kernel: " + error);
  return seconds;
}

llvm::Expected<int64_t> tfm::bench::setKernelThreads(const Library &lib,
                                                     int64_t threads) {
  auto set = lib.symbol("omp_set_num_threads");
  auto get = lib.symbol("omp_get_max_threads");
  if (!set || !get) {
    llvm::consumeError(set.takeError());
    llvm::consumeError(get.takeError());
    if (threads == 1)
      return 1;
    return llvm::createStringError(
        "--threads " + llvm::Twine(threads) +
        ": the kernel library does not load libomp (omp_set_num_threads "
        "not found), so it runs on one thread");
  }
  reinterpret_cast<void (*)(int)>(*set)(static_cast<int>(threads));
  int actual = reinterpret_cast<int (*)()>(*get)();
  if (actual != threads)
    return llvm::createStringError(
        "--threads " + llvm::Twine(threads) + ": libomp runs " +
        llvm::Twine(actual) + " threads after omp_set_num_threads");
  return actual;
}

std::optional<int64_t>
tfm::bench::checkedElements(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || llvm::MulOverflow(n, d, n))
      return std::nullopt;
  int64_t bytes;
  if (llvm::MulOverflow(n, static_cast<int64_t>(sizeof(float)), bytes) ||
      static_cast<uint64_t>(bytes) > SIZE_MAX / 2)
    return std::nullopt;
  return n;
}

//===----------------------------------------------------------------------===//
// Timing and statistics
//===----------------------------------------------------------------------===//

namespace {
std::vector<double> sorted(const std::vector<double> &v) {
  std::vector<double> s = v;
  std::sort(s.begin(), s.end());
  return s;
}
} // namespace

double Timing::median() const {
  std::vector<double> s = sorted(seconds);
  if (s.empty())
    return 0;
  size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

double Timing::min() const {
  return seconds.empty() ? 0 : *std::min_element(seconds.begin(), seconds.end());
}

double Timing::p90() const {
  std::vector<double> s = sorted(seconds);
  if (s.empty())
    return 0;
  // Nearest rank.
  size_t rank = static_cast<size_t>(std::ceil(0.9 * s.size()));
  return s[std::max<size_t>(rank, 1) - 1];
}

double tfm::bench::timeOnce(const std::function<void()> &fn) {
  auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

namespace {
/// The timed loop of timeCalls and timePairs: `warmup` untimed calls of
/// `warm` (none when the checked first call alone took more than
/// `maxTime`), then `round(i)`, which returns the seconds it timed, until
/// `iters` rounds are done or `maxTime` has been spent (at least
/// `minIters` rounds).
void timedRounds(const CommonOptions &options, double firstCallSeconds,
                 const std::function<void()> &warm,
                 const std::function<double(int64_t)> &round) {
  int64_t warmup = firstCallSeconds > options.maxTime ? 0 : options.warmup;
  for (int64_t i = 0; i < warmup; ++i)
    warm();
  double total = 0;
  for (int64_t i = 0; i < options.iters; ++i) {
    total += round(i);
    if (total >= options.maxTime && i + 1 >= options.minIters)
      break;
  }
}
} // namespace

Timing tfm::bench::timeCalls(const CommonOptions &options,
                             double firstCallSeconds,
                             const std::function<void()> &fn) {
  Timing t;
  timedRounds(options, firstCallSeconds, fn, [&](int64_t) {
    t.seconds.push_back(timeOnce(fn));
    return t.seconds.back();
  });
  return t;
}

PairedTiming tfm::bench::timePairs(const CommonOptions &options,
                                   double firstCallSeconds,
                                   const std::function<void()> &a,
                                   const std::function<void()> &b) {
  PairedTiming t;
  auto both = [&] {
    a();
    b();
  };
  timedRounds(options, firstCallSeconds, both, [&](int64_t i) {
    double sa, sb;
    if (i % 2 == 0) {
      sa = timeOnce(a);
      sb = timeOnce(b);
    } else {
      sb = timeOnce(b);
      sa = timeOnce(a);
    }
    t.first.seconds.push_back(sa);
    t.second.seconds.push_back(sb);
    // A call too short for the clock says nothing about the ratio.
    if (sa > 0 && sb > 0)
      t.speedups.push_back(sa / sb);
    return sa + sb;
  });
  return t;
}

void Verification::check(double got, double ref, double tol,
                         const llvm::Twine &where) {
  ++checked;
  double err = std::fabs(got - ref);
  if (!std::isfinite(got))
    err = INFINITY;
  maxAbsErr = std::max(maxAbsErr, err);
  double ratio = tol > 0 ? err / tol : (err > 0 ? INFINITY : 0);
  worstRatio = std::max(worstRatio, ratio);
  if (!(err <= tol)) {
    if (bad == 0) {
      std::string s;
      llvm::raw_string_ostream os(s);
      os << where << ": got " << llvm::format("%.9g", got) << ", expected "
         << llvm::format("%.9g", ref) << " (tolerance "
         << llvm::format("%.3g", tol) << ")";
      firstBad = s;
    }
    ++bad;
  }
}

void Report::print(bool json) const {
  double median = timing.median();
  double gflops = median > 0 ? flops / median * 1e-9 : 0;
  if (json) {
    llvm::json::Object o;
    o["bench"] = bench;
    o["shape"] = llvm::json::Object(shape);
    o["threads"] = threads;
    o["flops"] = flops;
    o["iters"] = static_cast<int64_t>(timing.seconds.size());
    o["median_s"] = median;
    o["min_s"] = timing.min();
    o["p90_s"] = timing.p90();
    o["gflops"] = gflops;
    o["compile_s"] = compileSeconds;
    o["verified"] = verify.ok();
    o["verify"] = llvm::json::Object{{"method", verifyMethod},
                                     {"checked", verify.checked},
                                     {"max_abs_err", verify.maxAbsErr},
                                     {"worst_err_over_tol", verify.worstRatio}};
    for (auto &kv : extra)
      o[kv.first] = kv.second;
    if (versus) {
      double vMedian = versus->timing.median();
      Timing speedups{versus->speedups};
      o["versus"] = llvm::json::Object{
          {"pass_options", llvm::json::Array(versus->passOptions)},
          {"median_s", vMedian},
          {"min_s", versus->timing.min()},
          {"p90_s", versus->timing.p90()},
          {"gflops", vMedian > 0 ? flops / vMedian * 1e-9 : 0},
          {"compile_s", versus->compileSeconds},
          {"verified", true},
          {"speedup_median", speedups.median()},
          {"speedup_min", speedups.min()},
          {"speedup_p90", speedups.p90()}};
    }
    llvm::outs() << llvm::json::Value(std::move(o)) << "\n";
    return;
  }
  llvm::outs() << bench << " " << llvm::json::Value(llvm::json::Object(shape))
               << " threads=" << threads << "\n";
  llvm::outs() << llvm::format(
      "  median %.6f s  min %.6f s  p90 %.6f s  (%zu calls)\n", median,
      timing.min(), timing.p90(), timing.seconds.size());
  llvm::outs() << llvm::format("  %.3f GFLOP/s  (%.4g FLOP/call)\n", gflops,
                               flops);
  llvm::outs() << llvm::format("  compile %.2f s; verified %lld values (%s), "
                               "max |err| %.3g\n",
                               compileSeconds,
                               static_cast<long long>(verify.checked),
                               verifyMethod.c_str(), verify.maxAbsErr);
  if (versus) {
    Timing speedups{versus->speedups};
    llvm::outs() << "  versus '" << llvm::join(versus->passOptions, " ")
                 << "' (verified too):\n";
    llvm::outs() << llvm::format(
        "  median %.6f s  min %.6f s  p90 %.6f s  (%zu calls)\n",
        versus->timing.median(), versus->timing.min(), versus->timing.p90(),
        versus->timing.seconds.size());
    llvm::outs() << llvm::format(
        "  speedup (first's time / versus's, per pair of calls): median "
        "%.3f, min %.3f, p90 %.3f\n",
        speedups.median(), speedups.min(), speedups.p90());
  }
}

//===----------------------------------------------------------------------===//
// Random numbers and buffers
//===----------------------------------------------------------------------===//

uint64_t Rng::next() {
  // splitmix64
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

float Rng::uniform(float lo, float hi) {
  double u = (next() >> 11) * (1.0 / 9007199254740992.0);
  return static_cast<float>(lo + (hi - lo) * u);
}

void Rng::fill(std::vector<float> &v, float lo, float hi) {
  for (float &x : v)
    x = uniform(lo, hi);
}

Buffer::Buffer(size_t n) : n_(n) {
  size_t bytes = ((n * sizeof(float) + 63) / 64) * 64;
  data_ = static_cast<float *>(std::aligned_alloc(64, bytes ? bytes : 64));
  if (!data_) {
    reportError("out of memory allocating " + llvm::Twine(bytes) + " bytes");
    std::exit(static_cast<int>(ExitCode::Error));
  }
}

Buffer::~Buffer() { std::free(data_); }

void tfm::bench::reportError(const llvm::Twine &msg) {
  llvm::WithColor::error(llvm::errs(), "tfm-bench") << msg << "\n";
}
