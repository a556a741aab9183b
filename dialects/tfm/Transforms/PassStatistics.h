//===- PassStatistics.h - pass statistics on every LLVM ---------*- C++ -*-===//
//
// `-mlir-pass-statistics` for tfm's passes, also on an LLVM built without
// statistics.
//
// MLIR's `Pass::Statistic` is an `llvm::Statistic`, and an LLVM built with
// NDEBUG and without LLVM_FORCE_ENABLE_STATS (Debian's release packages, for
// one) makes that an `llvm::NoopStatistic`: it forgets its value and even its
// name, and `-mlir-pass-statistics` prints an empty report. Turning
// statistics back on in tfm's own code is not an option: the layout of
// `Pass::Statistic` would then differ from the one libMLIR was compiled with.
//
// So a tfm pass counts with a `tfm::PassStatistic` beside each statistic that
// its Passes.td declares (same name, same description; the Passes.td one keeps
// the generated docs and, on an LLVM with statistics, MLIR's own report). On
// an LLVM with statistics the tfm counter forwards to MLIR's and nothing else
// happens. Without them it counts itself, and a `PassStatisticsCollector`
// attached to the pass manager (by tfm-opt and by tfmc when the user gives
// `-mlir-pass-statistics`) prints the report in MLIR's format, honouring
// `-mlir-pass-statistics-display=list|pipeline`.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TRANSFORMS_PASSSTATISTICS_H
#define TFM_TRANSFORMS_PASSSTATISTICS_H

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

namespace mlir::tfm {

/// One counter of a pass, reported by `-mlir-pass-statistics` whatever the
/// LLVM build. Declare it as a member of the pass, next to the Passes.td
/// statistic it mirrors:
///
/// ```
///   PassStatistic fused{this, numFused, "fused", "Chains fused"};
///   ...
///   ++fused;
/// ```
///
/// It is not copyable: a pass that holds one defines its copy constructor
/// as `MyPass(const MyPass &other) : Base(other) {}`, so that the copies MLIR
/// makes for multithreading get counters of their own (the generated pass
/// bases do the same for their statistics and options).
class PassStatistic {
public:
  /// `mirror` is the Passes.td statistic with this `name` and
  /// `description` (string literals: they are kept, not copied).
  PassStatistic(Pass *owner, Pass::Statistic &mirror, const char *name,
                const char *description);
  PassStatistic(const PassStatistic &) = delete;
  PassStatistic &operator=(const PassStatistic &) = delete;
  ~PassStatistic();

  PassStatistic &operator++() { return *this += 1; }
  PassStatistic &operator+=(uint64_t n) {
#if LLVM_ENABLE_STATS
    mirror += n;
#else
    value.fetch_add(n, std::memory_order_relaxed);
#endif
    return *this;
  }

  uint64_t getValue() const {
#if LLVM_ENABLE_STATS
    return mirror.getValue();
#else
    return value.load(std::memory_order_relaxed);
#endif
  }
  const char *getName() const { return name; }
  const char *getDescription() const { return description; }

private:
  // Only one of these counts, depending on the LLVM build.
  [[maybe_unused]] Pass *owner;
  [[maybe_unused]] Pass::Statistic &mirror;
  const char *name;
  const char *description;
  std::atomic<uint64_t> value{0};
};

/// Gathers the PassStatistic counts of the passes that run under the pass
/// managers it is attached to, in MLIR's two report layouts: `list` (one
/// entry per pass name, summed) and `pipeline` (the pass pipeline as it
/// ran, nested pipelines indented under their anchor).
class PassStatisticsCollector {
public:
  PassStatisticsCollector();
  ~PassStatisticsCollector();
  PassStatisticsCollector(const PassStatisticsCollector &) = delete;
  PassStatisticsCollector &operator=(const PassStatisticsCollector &) = delete;

  /// Adds an instrumentation to `pm` that records every pass it runs and
  /// what the pass counted. Several pass managers run one after another
  /// (tfmc runs one per pipeline step) add up into one report. The
  /// collector must outlive `pm`.
  void attach(PassManager &pm);

  /// Prints the report in MLIR's format: the "Pass statistics report"
  /// banner, then per pass `(S) <value> <name> - <description>`.
  void print(llvm::raw_ostream &os, PassDisplayMode mode) const;

  struct Impl;

private:
  std::unique_ptr<Impl> impl;
};

/// On an LLVM built without statistics: if the command line asked for
/// `-mlir-pass-statistics`, takes the request over and returns the display
/// mode of `-mlir-pass-statistics-display`. MLIR's own option is switched
/// off so that MLIR does not print its empty report beside tfm's. Returns
/// nothing when statistics were not asked for, and always on an LLVM with
/// statistics, where MLIR reports them itself. Call after the command line
/// is parsed and before a pass manager reads MLIR's options.
std::optional<PassDisplayMode> takeOverPassStatisticsOption();

/// Attaches a collector owned by `pm` that prints its report on stderr
/// when `pm` is destroyed (tfm-opt: one report per pass manager, like
/// MLIR's).
void addPassStatisticsReport(PassManager &pm, PassDisplayMode mode);

} // namespace mlir::tfm

#endif // TFM_TRANSFORMS_PASSSTATISTICS_H
