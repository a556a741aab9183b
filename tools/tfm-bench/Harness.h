//===- Harness.h - compile, load, time and report ---------------*- C++ -*-===//
//
// The measuring instrument behind tfm-bench: options shared by every
// subcommand, compilation of a tfm-dialect module with the production
// pipeline (tfm::compileModule) into a loadable shared library, a
// steady-clock timing loop with robust statistics, and the one-line JSON
// report.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_BENCH_HARNESS_H
#define TFM_BENCH_HARNESS_H

#include "tfm/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace tfm::bench {

/// Exit codes of tfm-bench.
enum class ExitCode : int {
  Success = 0,
  /// Compilation, linking, loading or running failed (message on stderr).
  Error = 1,
  /// Bad command line.
  Usage = 2,
  /// The compiled code computed a wrong result: nothing is reported.
  WrongResult = 3,
};

/// `--name value`, `--name=value` and bare `--flag` arguments of one
/// subcommand, with typed accessors that record errors instead of exiting.
class Args {
public:
  /// Parses argv[first..argc). `flags` are the options that take no value.
  Args(int argc, char **argv, int first,
       const std::vector<std::string> &flags);

  bool has(llvm::StringRef name) const;
  int64_t getInt(llvm::StringRef name, int64_t dflt, int64_t min = 1);
  double getDouble(llvm::StringRef name, double dflt);
  std::string getString(llvm::StringRef name, const std::string &dflt);
  /// One of `choices` (the first when absent); records an error otherwise.
  std::string getChoice(llvm::StringRef name,
                        llvm::ArrayRef<llvm::StringRef> choices);
  /// Required positive integer; records an error when missing.
  int64_t requireInt(llvm::StringRef name);
  std::string requireString(llvm::StringRef name);

  /// Fails (returns the first error) for parse errors, bad values, and any
  /// option that was given but never read by the subcommand.
  llvm::Error finish() const;

private:
  llvm::StringMap<std::string> values_;
  mutable llvm::StringMap<bool> used_;
  std::vector<std::string> errors_;
};

/// Options every subcommand understands.
struct CommonOptions {
  /// Threads the compiled code runs with: set at run time (the OpenMP
  /// thread count of the kernel's libomp, tfm_model_set_num_threads for a
  /// model). The code itself is compiled for the host, multithreaded when
  /// the host or this count is above one thread.
  int64_t threads = 1;
  int64_t warmup = 2;
  /// Upper bound on timed calls.
  int64_t iters = 10;
  /// Stop timing once this many seconds have been spent (at least
  /// `minIters` calls are always timed).
  double maxTime = 10.0;
  int64_t minIters = 3;
  uint64_t seed = 1;
  bool json = false;
  /// Keep the compiled library here instead of a temporary folder.
  std::string keepDir;
  /// Query rows / output rows checked against the float64 reference.
  int64_t verifyRows = 64;
  /// Self-test of the checker: perturb one result value after the
  /// verification call, which must then fail (exit 3).
  bool injectError = false;
  /// Compile with -tfm-pack-weights (off: --no-pack-weights, to measure
  /// what packing gives).
  bool packWeights = true;
  /// tfmc's --precision: "f32", "bf16" or "f16".
  std::string precision = "f32";
  /// tfmc's --pass-option settings (PASS:OPTION=VALUE), from the
  /// space-separated list of --pass-option.
  std::vector<std::string> passOptions;
  /// --versus: more pass options (same form) for a second library of the
  /// same op or model, timed call for call against the first.
  std::optional<std::vector<std::string>> versus;

  /// The relative error the result checks allow for rounding the inputs
  /// of GEMMs and attention to `precision` (f32: none beyond f32's own).
  double inputRounding() const {
    return precision == "bf16" ? 1e-2 : precision == "f16" ? 2e-3 : 0.0;
  }

  /// The unit roundoff of `precision` (the largest relative error of
  /// rounding to it): 2^-8 for bf16, 2^-11 for f16, 0 for f32.
  double unitRoundoff() const {
    return precision == "bf16" ? 0x1p-8 : precision == "f16" ? 0x1p-11 : 0.0;
  }

  static CommonOptions read(Args &args);

  /// The libraries a bench builds: these options, and with --versus the
  /// same with its pass options appended, kept (with --keep-dir) in the
  /// folder and in its `versus` subfolder.
  std::vector<std::pair<CommonOptions, std::string>> variants() const;
};

/// Registry with everything the compiler's pipeline needs
/// (tfm::registerCompilerDialects).
void registerBenchDialects(mlir::DialectRegistry &registry);

/// A scratch folder removed on destruction unless `keep` names one.
class WorkDir {
public:
  static llvm::Expected<std::unique_ptr<WorkDir>> create(llvm::StringRef keep);
  ~WorkDir();
  std::string file(llvm::StringRef name) const;

private:
  std::string path_;
  bool remove_ = true;
};

/// A dlopen'ed library, closed on destruction.
class Library {
public:
  static llvm::Expected<std::unique_ptr<Library>> open(llvm::StringRef path);
  ~Library();
  llvm::Expected<void *> symbol(llvm::StringRef name) const;

private:
  void *handle_ = nullptr;
  std::string path_;
};

/// The compile target of a run with `threads` run-time threads: the host,
/// with at least `threads` hardware threads, so that the generated code is
/// multithreaded whenever the run asks for more than one thread.
mlir::tfm::TargetDescription benchTarget(int64_t threads);

/// Lowers `module` (a kernel module: tfm.architecture = "kernel", one
/// `tfm.entry` function, see -tfm-materialize-entry) with
/// tfm::compileModule to an object file, and links it into `soPath` with
/// mlir::tfm::linkSharedLibrary in LinkMode::Kernel (libomp, libm, no
/// runtime). Returns the compile time in seconds.
llvm::Expected<double> compileKernelLibrary(mlir::ModuleOp module,
                                            const CommonOptions &options,
                                            llvm::StringRef objPath,
                                            llvm::StringRef soPath);

/// Sets the OpenMP thread count of the calling thread through the libomp
/// that `lib` loaded (omp_set_num_threads) and returns the count libomp
/// then reports (omp_get_max_threads). A library without libomp runs on
/// one thread: 1 when `threads` is 1, an error otherwise.
llvm::Expected<int64_t> setKernelThreads(const Library &lib, int64_t threads);

/// Per-call times of the timed loop.
struct Timing {
  std::vector<double> seconds;
  double median() const;
  double min() const;
  double p90() const;
};

/// Calls `fn` `warmup` times, then times calls until `iters` are done or
/// `maxTime` has been spent (never fewer than `minIters` unless `iters` is
/// smaller). `firstCallSeconds` is the duration of the (untimed)
/// verification call: when it alone exceeds `maxTime`, that call was the
/// warm-up and no more are made.
Timing timeCalls(const CommonOptions &options, double firstCallSeconds,
                 const std::function<void()> &fn);

/// Per-call times of two functions timed in alternation, and each pair's
/// speedup of the second (first's time / second's).
struct PairedTiming {
  Timing first, second;
  std::vector<double> speedups;
};

/// timeCalls for two functions at once: warm-up calls of both, then pairs
/// of calls (a b, then b a: neither always runs on the other's caches)
/// until `iters` pairs are done or `maxTime` has been spent by both
/// together (each side gets about half the calls of a run alone; pairs
/// with a call too short for the clock give no speedup). On a shared
/// machine whose speed drifts, both sides of a pair see the same moment,
/// so the pairs' median speedup holds where separate runs disagree.
PairedTiming timePairs(const CommonOptions &options, double firstCallSeconds,
                       const std::function<void()> &a,
                       const std::function<void()> &b);

/// Seconds taken by one call of `fn`.
double timeOnce(const std::function<void()> &fn);

/// Result of checking computed values against the float64 reference.
struct Verification {
  int64_t checked = 0;
  int64_t bad = 0;
  double maxAbsErr = 0;
  /// Largest |err| / tolerance seen (<= 1 passes).
  double worstRatio = 0;
  std::string firstBad;
  bool ok() const { return bad == 0 && checked > 0; }
  /// Compares one value. `tol` is the allowed absolute error; NaN/Inf in
  /// `got` always fail.
  void check(double got, double ref, double tol, const llvm::Twine &where);
};

/// Assembles the report line.
struct Report {
  std::string bench;
  llvm::json::Object shape;
  double flops = 0;
  double compileSeconds = 0;
  Timing timing;
  Verification verify;
  std::string verifyMethod;
  /// Run-time threads (as the library reported them back).
  int64_t threads = 1;
  llvm::json::Object extra;
  /// With --versus: the second library's pass options and timing, and the
  /// speedup of each pair of calls.
  struct Versus {
    std::vector<std::string> passOptions;
    Timing timing;
    std::vector<double> speedups;
    double compileSeconds = 0;
  };
  std::optional<Versus> versus;

  /// One JSON line (with --json) or a short human-readable block.
  void print(bool json) const;
};

/// Deterministic random numbers for inputs and weights.
class Rng {
public:
  explicit Rng(uint64_t seed) : state_(seed * 0x9E3779B97F4A7C15ull + 1) {}
  uint64_t next();
  /// Uniform in [lo, hi).
  float uniform(float lo, float hi);
  void fill(std::vector<float> &v, float lo, float hi);

private:
  uint64_t state_;
};

/// A 64-byte aligned float buffer.
class Buffer {
public:
  explicit Buffer(size_t n);
  ~Buffer();
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  float *data() { return data_; }
  const float *data() const { return data_; }
  size_t size() const { return n_; }
  float &operator[](size_t i) { return data_[i]; }
  float operator[](size_t i) const { return data_[i]; }

private:
  float *data_;
  size_t n_;
};

/// The product of `dims`, or std::nullopt when it overflows int64_t or
/// the byte size of that many floats overflows size_t.
std::optional<int64_t> checkedElements(llvm::ArrayRef<int64_t> dims);

/// Prints `tfm-bench: error: msg` to stderr.
void reportError(const llvm::Twine &msg);

} // namespace tfm::bench

#endif // TFM_BENCH_HARNESS_H
