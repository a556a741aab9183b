//===- PassStatistics.cpp - pass statistics on every LLVM -----------------===//
//
// The counters register themselves (by owning pass instance) in a process
// registry; a collector's instrumentation looks a pass up there before and
// after each run and adds what it counted meanwhile to the report entry of
// that pass. Entries follow the pipeline as it runs: top-level passes in run
// order, passes of a nested pipeline under the adaptor that ran it, copies
// of a pass made for multithreading merged into the original (as MLIR's own
// report does).
//
//===----------------------------------------------------------------------===//

#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Pass/PassInstrumentation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Threading.h"

#include <mutex>
#include <string>
#include <vector>

using namespace mlir;
using namespace mlir::tfm;

//===----------------------------------------------------------------------===//
// PassStatistic and its registry
//===----------------------------------------------------------------------===//

namespace {

/// The PassStatistics of every live pass instance, in declaration order.
class Registry {
public:
  static Registry &get() {
    // Never destroyed: a pass may outlive static destruction.
    static Registry *registry = new Registry;
    return *registry;
  }

  void add(const Pass *owner, PassStatistic *stat) {
    std::lock_guard<std::mutex> lock(mutex);
    byPass[owner].push_back(stat);
  }

  void remove(const Pass *owner, PassStatistic *stat) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = byPass.find(owner);
    if (it == byPass.end())
      return;
    llvm::erase(it->second, stat);
    if (it->second.empty())
      byPass.erase(it);
  }

  /// The counters of `pass` with their current values.
  struct Reading {
    const char *name;
    const char *description;
    uint64_t value;
  };
  SmallVector<Reading, 8> read(const Pass *pass) {
    std::lock_guard<std::mutex> lock(mutex);
    SmallVector<Reading, 8> out;
    auto it = byPass.find(pass);
    if (it != byPass.end())
      for (PassStatistic *stat : it->second)
        out.push_back(
            {stat->getName(), stat->getDescription(), stat->getValue()});
    return out;
  }

private:
  std::mutex mutex;
  llvm::DenseMap<const Pass *, SmallVector<PassStatistic *, 8>> byPass;
};

} // namespace

PassStatistic::PassStatistic(Pass *owner, Pass::Statistic &mirror,
                             const char *name, const char *description)
    : owner(owner), mirror(mirror), name(name), description(description) {
#if LLVM_ENABLE_STATS
  // MLIR reports the mirror; it must be the same statistic.
  assert(llvm::StringRef(mirror.getName()) == name &&
         "a PassStatistic mirrors a Passes.td statistic of another name");
#else
  Registry::get().add(owner, this);
#endif
}

PassStatistic::~PassStatistic() {
#if !LLVM_ENABLE_STATS
  Registry::get().remove(owner, this);
#endif
}

//===----------------------------------------------------------------------===//
// PassStatisticsCollector
//===----------------------------------------------------------------------===//

namespace {

/// One line of the pipeline report: a pass (with its counters) or a nested
/// pipeline (`'func.func' Pipeline`). A pass that ran nested pipelines is an
/// adaptor; its children are the pipelines.
struct Entry {
  std::string name;
  bool isPipeline = false;
  /// True for an adaptor that never ran a nested pipeline (no op of its
  /// anchor): MLIR lists its passes, which were never seen here, so the
  /// entry is left out.
  bool isIdleAdaptor = false;
  SmallVector<Registry::Reading, 8> stats;
  std::vector<std::unique_ptr<Entry>> children;

  Entry *addChild(StringRef childName, bool pipeline) {
    children.push_back(std::make_unique<Entry>());
    Entry *child = children.back().get();
    child->name = childName.str();
    child->isPipeline = pipeline;
    return child;
  }

  Entry *getOrAddPipeline(StringRef anchor) {
    for (std::unique_ptr<Entry> &child : children)
      if (child->isPipeline && child->name == anchor)
        return child.get();
    return addChild(anchor, /*pipeline=*/true);
  }

  bool isAdaptor() const {
    return !children.empty() && children.front()->isPipeline;
  }
};

} // namespace

struct PassStatisticsCollector::Impl {
  std::mutex mutex;
  /// The top-level passes of every attached pass manager, in run order.
  Entry root;
};

namespace {

/// Records the passes of one pass manager into a collector.
class Recorder : public PassInstrumentation {
public:
  explicit Recorder(PassStatisticsCollector::Impl &impl) : impl(impl) {}

  void runBeforePipeline(std::optional<OperationName> name,
                         const PipelineParentInfo &parentInfo) override {
    std::lock_guard<std::mutex> lock(impl.mutex);
    Entry *adaptor = getEntry(parentInfo.parentPass);
    if (!adaptor)
      adaptor = impl.root.addChild("(unknown pass)", /*pipeline=*/false);
    adaptor->isIdleAdaptor = false;
    std::string anchor = name ? name->getStringRef().str() : "any";
    pipelineStack[llvm::get_threadid()].push_back(
        adaptor->getOrAddPipeline(anchor));
  }

  void runAfterPipeline(std::optional<OperationName>,
                        const PipelineParentInfo &) override {
    std::lock_guard<std::mutex> lock(impl.mutex);
    auto it = pipelineStack.find(llvm::get_threadid());
    if (it != pipelineStack.end() && !it->second.empty())
      it->second.pop_back();
  }

  void runBeforePass(Pass *pass, Operation *) override {
    SmallVector<Registry::Reading, 8> now = Registry::get().read(pass);
    std::lock_guard<std::mutex> lock(impl.mutex);
    Entry *&entry = entries[pass->getThreadingSiblingOrThis()];
    if (!entry) {
      auto it = pipelineStack.find(llvm::get_threadid());
      Entry *parent = it != pipelineStack.end() && !it->second.empty()
                          ? it->second.back()
                          : &impl.root;
      entry = parent->addChild(pass->getName(), /*pipeline=*/false);
      // Pass managers nest through an adaptor pass, whose name MLIR's
      // report never shows; it stays out unless it runs a pipeline.
      entry->isIdleAdaptor = pass->getArgument().empty() &&
                             pass->getName().ends_with("OpToOpPassAdaptor");
      for (const Registry::Reading &r : now)
        entry->stats.push_back({r.name, r.description, 0});
    }
    SmallVector<uint64_t, 8> &values = before[pass];
    values.clear();
    for (const Registry::Reading &r : now)
      values.push_back(r.value);
  }

  void runAfterPass(Pass *pass, Operation *) override { record(pass); }
  void runAfterPassFailed(Pass *pass, Operation *) override { record(pass); }

private:
  Entry *getEntry(const Pass *pass) {
    if (!pass)
      return nullptr;
    return entries.lookup(pass->getThreadingSiblingOrThis());
  }

  /// Adds what `pass` counted since runBeforePass to its entry.
  void record(Pass *pass) {
    SmallVector<Registry::Reading, 8> now = Registry::get().read(pass);
    std::lock_guard<std::mutex> lock(impl.mutex);
    Entry *entry = getEntry(pass);
    auto it = before.find(pass);
    if (!entry || it == before.end())
      return;
    for (auto [i, r] : llvm::enumerate(now))
      if (i < entry->stats.size() && i < it->second.size())
        entry->stats[i].value += r.value - it->second[i];
    before.erase(it);
  }

  PassStatisticsCollector::Impl &impl;
  /// Report entries of this pass manager's passes (by the original of a
  /// pass copied for multithreading).
  llvm::DenseMap<const Pass *, Entry *> entries;
  /// The nested pipelines each thread is running, innermost last.
  llvm::DenseMap<uint64_t, SmallVector<Entry *, 4>> pipelineStack;
  /// Counter values of each running pass instance when it started.
  llvm::DenseMap<const Pass *, SmallVector<uint64_t, 8>> before;
};

constexpr llvm::StringLiteral kReportTitle = "... Pass statistics report ...";

/// `name`, then its counters sorted by name, as MLIR prints them:
/// `(S) <value right-aligned> <name left-aligned> - <description>`.
void printEntry(llvm::raw_ostream &os, unsigned indent, StringRef name,
                ArrayRef<Registry::Reading> stats = {}) {
  os.indent(indent) << name << "\n";
  if (stats.empty())
    return;
  SmallVector<Registry::Reading, 8> sorted(stats.begin(), stats.end());
  llvm::sort(sorted,
             [](const Registry::Reading &a, const Registry::Reading &b) {
               return StringRef(a.name) < StringRef(b.name);
             });
  size_t nameWidth = 0, valueWidth = 0;
  for (const Registry::Reading &s : sorted) {
    nameWidth = std::max(nameWidth, StringRef(s.name).size());
    valueWidth = std::max(valueWidth, llvm::utostr(s.value).size());
  }
  for (const Registry::Reading &s : sorted) {
    std::string value = llvm::utostr(s.value);
    os.indent(indent + 2) << "(S) ";
    os.indent(valueWidth - value.size()) << value << " " << s.name;
    os.indent(nameWidth - StringRef(s.name).size())
        << " - " << s.description << "\n";
  }
}

void printPipeline(llvm::raw_ostream &os, unsigned indent, const Entry &entry) {
  if (entry.isAdaptor()) {
    // An adaptor over several anchors is MLIR's "Pipeline Collection".
    if (entry.children.size() > 1) {
      std::string collection = "Pipeline Collection : [";
      llvm::raw_string_ostream cs(collection);
      llvm::interleaveComma(entry.children, cs,
                            [&](const std::unique_ptr<Entry> &pipeline) {
                              cs << "'" << pipeline->name << "'";
                            });
      cs << "]";
      printEntry(os, indent, collection);
      indent += 2;
    }
    for (const std::unique_ptr<Entry> &pipeline : entry.children) {
      printEntry(os, indent, "'" + pipeline->name + "' Pipeline");
      for (const std::unique_ptr<Entry> &pass : pipeline->children)
        printPipeline(os, indent + 2, *pass);
    }
    return;
  }
  if (entry.isIdleAdaptor)
    return;
  printEntry(os, indent, entry.name, entry.stats);
}

/// Sums the counters of every pass with counters by pass name.
void mergeByName(const Entry &entry,
                 llvm::StringMap<SmallVector<Registry::Reading, 8>> &merged) {
  for (const std::unique_ptr<Entry> &child : entry.children)
    mergeByName(*child, merged);
  if (entry.isPipeline || entry.stats.empty())
    return;
  SmallVector<Registry::Reading, 8> &sum = merged[entry.name];
  if (sum.empty()) {
    sum = entry.stats;
    return;
  }
  for (auto [i, s] : llvm::enumerate(entry.stats))
    if (i < sum.size())
      sum[i].value += s.value;
}

} // namespace

PassStatisticsCollector::PassStatisticsCollector()
    : impl(std::make_unique<Impl>()) {}

PassStatisticsCollector::~PassStatisticsCollector() = default;

void PassStatisticsCollector::attach(PassManager &pm) {
  pm.addInstrumentation(std::make_unique<Recorder>(*impl));
}

void PassStatisticsCollector::print(llvm::raw_ostream &os,
                                    PassDisplayMode mode) const {
  std::lock_guard<std::mutex> lock(impl->mutex);
  std::string rule = "===" + std::string(73, '-') + "===\n";
  os << rule;
  os.indent((80 - kReportTitle.size()) / 2) << kReportTitle << "\n";
  os << rule;
  switch (mode) {
  case PassDisplayMode::List: {
    llvm::StringMap<SmallVector<Registry::Reading, 8>> merged;
    mergeByName(impl->root, merged);
    SmallVector<StringRef> names;
    for (const auto &it : merged)
      names.push_back(it.getKey());
    llvm::sort(names);
    for (StringRef name : names)
      printEntry(os, /*indent=*/2, name, merged[name]);
    break;
  }
  case PassDisplayMode::Pipeline:
    for (const std::unique_ptr<Entry> &pass : impl->root.children)
      printPipeline(os, /*indent=*/0, *pass);
    break;
  }
  os << "\n";
  os.flush();
}

//===----------------------------------------------------------------------===//
// Command line and tfm-opt
//===----------------------------------------------------------------------===//

std::optional<PassDisplayMode> mlir::tfm::takeOverPassStatisticsOption() {
#if LLVM_ENABLE_STATS
  // MLIR's Pass::Statistic counts on this LLVM and MLIR prints the report.
  return std::nullopt;
#else
  // Both options belong to MLIR's pass manager (registerPassManagerCLOptions)
  // and have these types there: cl::opt<bool> and cl::opt<PassDisplayMode>.
  auto &options = llvm::cl::getRegisteredOptions();
  auto enabled = options.find("mlir-pass-statistics");
  if (enabled == options.end())
    return std::nullopt;
  auto *flag = static_cast<llvm::cl::opt<bool> *>(enabled->second);
  if (!flag->getValue())
    return std::nullopt;
  PassDisplayMode mode = PassDisplayMode::Pipeline;
  auto display = options.find("mlir-pass-statistics-display");
  if (display != options.end())
    mode = static_cast<llvm::cl::opt<PassDisplayMode> *>(display->second)
               ->getValue();
  // MLIR would print an empty report (its counters are compiled out); tfm's
  // report replaces it.
  flag->setValue(false);
  return mode;
#endif
}

namespace {

/// A collector owned by a pass manager, printed when the pass manager goes.
class OwnedReport : public PassInstrumentation {
public:
  OwnedReport(PassDisplayMode mode) : mode(mode) {}
  ~OwnedReport() override { collector.print(llvm::errs(), mode); }

  PassStatisticsCollector collector;

private:
  PassDisplayMode mode;
};

} // namespace

void mlir::tfm::addPassStatisticsReport(PassManager &pm, PassDisplayMode mode) {
  auto report = std::make_unique<OwnedReport>(mode);
  report->collector.attach(pm);
  pm.addInstrumentation(std::move(report));
}
