//===- TargetDescription.cpp - the host CPU -------------------------------===//

#include "tfm/Target/TargetDescription.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <algorithm>

using namespace mlir::tfm;

namespace {

/// Reads a sysfs cache attribute ("1", "Data", "48K").
std::string readSysfs(const std::string &path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
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

} // namespace

unsigned mlir::tfm::vectorBitsForFeatures(const std::string &triple,
                                          const std::string &features) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(features).split(parts, ',', -1, /*KeepEmpty=*/false);
  auto has = [&](llvm::StringRef f) {
    return std::find(parts.begin(), parts.end(), ("+" + f).str()) !=
           parts.end();
  };
  llvm::Triple t(triple);
  if (t.isX86()) {
    if (has("avx512f"))
      return 512;
    if (has("avx"))
      return 256;
    return 128;
  }
  // AArch64 NEON and everything else: 128-bit vectors.
  return 128;
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
  return t;
}
