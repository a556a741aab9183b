//===- TargetDescription.cpp - the host CPU -------------------------------===//

#include "tfm/Target/TargetDescription.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>
#include <cstdlib>

using namespace mlir::tfm;

namespace {

/// Reads a sysfs attribute ("1", "Data", "48K"). As a stream: sysfs
/// reports every attribute as 4096 bytes long, and getFile would return the
/// value padded with that many NULs, which trim() keeps.
std::string readSysfs(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFileAsStream(path);
  if (!buf)
    return "";
  return llvm::StringRef((*buf)->getBuffer()).trim().str();
}

/// Parses "48K", "2M" or a plain byte count; 0 when unparsable.
int64_t parseCacheSize(llvm::StringRef s) {
  int64_t scale = 1;
  if (s.consume_back("K"))
    scale = 1024;
  else if (s.consume_back("M"))
    scale = 1024 * 1024;
  int64_t v;
  if (s.getAsInteger(10, v))
    return 0;
  return v * scale;
}

/// L1 data and L2 sizes of CPU 0 from Linux sysfs; leaves the arguments
/// alone where sysfs has no answer.
void readCacheSizes(int64_t &l1, int64_t &l2) {
  for (int i = 0; i < 8; ++i) {
    std::string dir =
        "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(i) + "/";
    std::string level = readSysfs(dir + "level");
    if (level.empty())
      break;
    std::string type = readSysfs(dir + "type");
    int64_t size = parseCacheSize(readSysfs(dir + "size"));
    if (size <= 0)
      continue;
    if (level == "1" && (type == "Data" || type == "Unified"))
      l1 = size;
    else if (level == "2")
      l2 = size;
  }
}

/// The core clock in GHz: cpufreq's maximum, else /proc/cpuinfo's "cpu MHz"
/// (a virtual machine often reports only the nominal clock there), else 0.
double readClockGHz() {
  std::string maxKHz =
      readSysfs("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double v;
  if (!maxKHz.empty() && !llvm::StringRef(maxKHz).getAsDouble(v) && v > 0)
    return v / 1e6;
  // As a stream: procfs reports a size of 0.
  auto buf = llvm::MemoryBuffer::getFileAsStream("/proc/cpuinfo");
  if (!buf)
    return 0;
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef((*buf)->getBuffer()).split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (!line.starts_with("cpu MHz"))
      continue;
    llvm::StringRef value = line.split(':').second.trim();
    if (!value.getAsDouble(v) && v > 0)
      return v / 1e3;
  }
  return 0;
}

/// A positive number from the environment variable `name`, else 0.
double envNumber(const char *name) {
  const char *s = std::getenv(name);
  double v;
  if (!s || llvm::StringRef(s).trim().getAsDouble(v) || v <= 0)
    return 0;
  return v;
}

} // namespace

double mlir::tfm::derivedPeakFlopsPerCore(const TargetDescription &target) {
  return double(target.vectorBits / 32) * 2.0 * target.fmaUnits *
         target.clockGHz * 1e9;
}

TargetDescription mlir::tfm::hostTarget() {
  TargetDescription t;
  t.triple = llvm::sys::getProcessTriple();
  t.cpu = llvm::sys::getHostCPUName().str();
  llvm::SmallVector<std::string> feats;
  for (const auto &f : llvm::sys::getHostCPUFeatures())
    feats.push_back((f.second ? "+" : "-") + f.first().str());
  std::sort(feats.begin(), feats.end());
  for (const std::string &f : feats) {
    if (!t.features.empty())
      t.features += ",";
    t.features += f;
  }
  readCacheSizes(t.l1Bytes, t.l2Bytes);
  t.threads = std::max(
      1u, llvm::heavyweight_hardware_concurrency().compute_thread_count());
  t.vectorBits = vectorBitsForFeatures(t.triple, t.features);
  t.vectorRegisters = vectorRegistersFor(t.triple, t.vectorBits);
  // Two FMA pipes per core is the common case on current x86 and AArch64
  // server cores (Intel since Haswell, Zen 5, Neoverse); override the peak
  // with TFM_PEAK_GFLOPS where that is wrong (Zen 4 issues one 512-bit FMA).
  t.fmaUnits = 2;
  if (double ghz = readClockGHz())
    t.clockGHz = ghz;
  t.peakFlopsPerCore = derivedPeakFlopsPerCore(t);
  if (double g = envNumber("TFM_PEAK_GFLOPS"))
    t.peakFlopsPerCore = g * 1e9;
  // No portable way to measure DRAM bandwidth at compile time: the
  // documented default, overridable.
  t.memoryBandwidth = defaultMemoryBandwidth(t.threads);
  if (double g = envNumber("TFM_MEM_BANDWIDTH_GBS"))
    t.memoryBandwidth = g * 1e9;
  return t;
}

llvm::ArrayRef<llvm::StringRef> mlir::tfm::knownGpuChips() {
  static const llvm::StringRef chips[] = {"sm_80", "sm_86", "sm_89", "sm_90",
                                          "sm_90a"};
  return chips;
}

mlir::tfm::GpuTargetDescription
mlir::tfm::gpuTargetFor(llvm::StringRef chip, llvm::StringRef toolkit) {
  GpuTargetDescription gpu;
  gpu.chip = chip.str();
  gpu.toolkit = toolkit.str();
  // The architecture's reference part (data-sheet numbers).
  if (chip == "sm_86") {
    gpu.multiprocessors = 82;
    gpu.optInSharedMemoryBytes = 99 * 1024;
    gpu.sharedMemoryPerMultiprocessor = 100 * 1024;
    gpu.maxThreadsPerMultiprocessor = 1536;
    gpu.maxBlocksPerMultiprocessor = 16;
    gpu.referencePart = "RTX 3090";
    gpu.peakFlops = 35.6e12;
    gpu.peakTensorFlops = 71e12;
    gpu.memoryBandwidth = 936e9;
  } else if (chip == "sm_89") {
    gpu.multiprocessors = 128;
    gpu.optInSharedMemoryBytes = 99 * 1024;
    gpu.sharedMemoryPerMultiprocessor = 100 * 1024;
    gpu.maxThreadsPerMultiprocessor = 1536;
    gpu.maxBlocksPerMultiprocessor = 24;
    gpu.referencePart = "RTX 4090";
    gpu.peakFlops = 82.6e12;
    gpu.peakTensorFlops = 165.2e12;
    gpu.memoryBandwidth = 1008e9;
  } else if (chip.starts_with("sm_90")) {
    gpu.multiprocessors = 132;
    gpu.optInSharedMemoryBytes = 227 * 1024;
    gpu.sharedMemoryPerMultiprocessor = 228 * 1024;
    gpu.referencePart = "H100 SXM";
    gpu.peakFlops = 67e12;
    gpu.peakTensorFlops = 989e12;
    gpu.memoryBandwidth = 3.35e12;
  }
  if (double g = envNumber("TFM_PEAK_GFLOPS"))
    gpu.peakFlops = g * 1e9;
  if (double g = envNumber("TFM_PEAK_TENSOR_GFLOPS"))
    gpu.peakTensorFlops = g * 1e9;
  if (double g = envNumber("TFM_MEM_BANDWIDTH_GBS"))
    gpu.memoryBandwidth = g * 1e9;
  return gpu;
}
