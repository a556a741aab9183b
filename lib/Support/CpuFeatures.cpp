//===- CpuFeatures.cpp - CPU features a compiled model needs --------------===//

#include "tfm/Support/CpuFeatures.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#if defined(__linux__)
#include <sys/syscall.h>
#include <unistd.h>
#endif

/// Whether the CPU runs AVX512-BF16's vdpbf16ps on 512-bit registers:
/// CPUID leaf 7 EBX bit 16 (AVX512F) and, in sub-leaf 1, EAX bit 5
/// (AVX512_BF16), and the OS saves the opmask and ZMM state (XCR0 bits 1,
/// 2, 5, 6 and 7).
static bool hasAvx512Bf16() {
#if defined(__x86_64__)
  unsigned eax, ebx, ecx, edx;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx) || !(ecx >> 27 & 1))
    return false; // no OSXSAVE: XCR0 cannot be read
  unsigned xcr0Low, xcr0High;
  __asm__("xgetbv" : "=a"(xcr0Low), "=d"(xcr0High) : "c"(0));
  if ((xcr0Low & 0xe6) != 0xe6)
    return false;
  if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) || !(ebx >> 16 & 1))
    return false;
  return __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx) && (eax >> 5 & 1);
#else
  return false;
#endif
}

/// Checks the CPU for each of the manifest's "cpu_features" and enables
/// what the OS hands out only on request; the reason it cannot, or none.
/// TFM_DISABLE_CPU_FEATURES (a comma-separated list) makes the runtime
/// treat those features as absent, to try the refusal on any machine.
std::optional<std::string>
tfm::enableCpuFeatures(const std::vector<std::string> &features) {
  llvm::SmallVector<llvm::StringRef> disabled;
  if (const char *env = std::getenv("TFM_DISABLE_CPU_FEATURES"))
    llvm::StringRef(env).split(disabled, ',', -1, /*KeepEmpty=*/false);
  for (const std::string &feature : features) {
    if (feature == "avx512bf16") {
      if (llvm::is_contained(disabled, feature) || !hasAvx512Bf16())
        return std::string("AVX512-BF16 (avx512bf16: it was compiled with "
                           "--precision=bf16 for a CPU with AVX512-BF16), "
                           "which this CPU lacks (recompile with "
                           "--target-cpu for this CPU)");
      continue;
    }
    if (feature != "amx-bf16")
      return "the CPU feature '" + feature +
             "', which this runtime does "
             "not know";
    bool present = false;
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    // CPUID leaf 7: EDX bit 22 AMX-BF16, bit 24 AMX-TILE.
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx))
      present = (edx >> 22 & 1) && (edx >> 24 & 1);
#endif
    if (llvm::is_contained(disabled, feature))
      present = false;
    if (!present)
      return std::string("AMX (amx-bf16: it was compiled with --precision="
                         "bf16 for a CPU with AMX), which this CPU lacks "
                         "(recompile with --target-cpu for this CPU)");
#if defined(__linux__) && defined(__x86_64__)
    // Linux gives a process the AMX tile data state only on request
    // (arch_prctl ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA = 18); without
    // it the first tile instruction raises SIGILL.
    if (syscall(SYS_arch_prctl, 0x1023, 18) != 0)
      return "AMX (amx-bf16), but the kernel refused the tile state "
             "(arch_prctl ARCH_REQ_XCOMP_PERM: " +
             std::string(std::strerror(errno)) + ")";
#endif
  }
  return std::nullopt;
}
