//===- TargetDescription.h - what the compiler knows of a CPU ---*- C++ -*-===//
//
// The CPU a model is compiled for. Passes that pick tile sizes, vector widths
// or thread counts read them from here, never from constants of their own.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_TARGETDESCRIPTION_H
#define TFM_TARGET_TARGETDESCRIPTION_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/TargetParser/Triple.h"

#include <cstdint>
#include <string>

namespace mlir::tfm {

/// A CPU target: what LLVM needs to generate code (triple, cpu, features)
/// and what tiling needs to size its tiles.
struct TargetDescription {
  /// LLVM target triple, e.g. "x86_64-pc-linux-gnu".
  std::string triple;
  /// LLVM CPU name, e.g. "znver4" or "generic".
  std::string cpu;
  /// LLVM feature string, e.g. "+avx2,+fma,-avx512f".
  std::string features;
  /// Per-core L1 data cache and L2 cache sizes in bytes.
  int64_t l1Bytes = 32 * 1024;
  int64_t l2Bytes = 1024 * 1024;
  /// Hardware threads available to generated code.
  unsigned threads = 1;
  /// Widest native float vector register, in bits (128, 256 or 512).
  unsigned vectorBits = 128;
  /// Architectural vector registers: vectorRegistersFor(triple,
  /// vectorBits).
  unsigned vectorRegisters = 16;
  /// Fused multiply-add units per core (each retires one vectorBits-wide
  /// FMA per cycle).
  unsigned fmaUnits = 2;
  /// Sustained core clock in GHz, for the peak below.
  double clockGHz = 3.0;
  /// Peak f32 FLOP/s of one core: vectorBits / 32 lanes × 2 (multiply and
  /// add) × fmaUnits × clockGHz·1e9. Overridable (TFM_PEAK_GFLOPS).
  double peakFlopsPerCore = 0;
  /// Sustained DRAM bandwidth of the whole socket in bytes/s (the roofline's
  /// memory slope). Overridable (TFM_MEM_BANDWIDTH_GBS).
  double memoryBandwidth = 0;
};

/// An NVIDIA GPU target: what the NVVM back end needs (architecture, PTX
/// features, the CUDA toolkit for ptxas and libdevice) and the limits
/// kernel configuration sizes kernels by.
struct GpuTargetDescription {
  /// Compute capability, e.g. "sm_80" (the default: Ampere, the oldest GPU
  /// with the features the kernels use) or "sm_90".
  std::string chip = "sm_80";
  /// PTX ISA features for the NVPTX back end.
  std::string features = "+ptx80";
  /// Most threads of one block (1024 on every architecture tfm supports).
  int64_t maxThreadsPerBlock = 1024;
  /// Static shared memory of one block (48 KiB on every architecture).
  int64_t sharedMemoryBytes = 48 * 1024;
  /// Shared memory one block may opt into as dynamic shared memory
  /// (cudaDevAttrMaxSharedMemoryPerBlockOptin: 163 KiB on sm_80, 99 KiB on
  /// sm_86 and sm_89, 227 KiB on sm_90).
  int64_t optInSharedMemoryBytes = 163 * 1024;
  /// What one multiprocessor holds at once, from the CUDA programming
  /// guide's table of compute capabilities: shared memory (164 KiB on
  /// sm_80, 100 KiB on sm_86 and sm_89, 228 KiB on sm_90), threads (2048,
  /// 1536, 1536, 2048) and blocks (32, 16, 24, 32). The kernels' planned
  /// occupancy is computed from them (GpuTargetAttr).
  int64_t sharedMemoryPerMultiprocessor = 164 * 1024;
  int64_t maxThreadsPerMultiprocessor = 2048;
  int64_t maxBlocksPerMultiprocessor = 32;
  /// Streaming multiprocessors of the architecture's reference part
  /// (A100: 108, RTX 3090: 82, RTX 4090: 128, H100 SXM: 132).
  int64_t multiprocessors = 108;
  /// The reference part's name and its peak f32 FLOP/s without tensor
  /// cores and DRAM bandwidth (bytes/s), from the vendors' data sheets:
  /// the roofline of `tfmc --report` (TFM_PEAK_GFLOPS and
  /// TFM_MEM_BANDWIDTH_GBS override them, for the whole device).
  std::string referencePart = "A100 SXM 80GB";
  double peakFlops = 19.5e12;
  double memoryBandwidth = 2.039e12;
  /// The same part's dense 16-bit tensor-core peak with f32 accumulation
  /// (mma.sync bf16/f16): the roofline of tensor-core GEMM kernels
  /// (TFM_PEAK_TENSOR_GFLOPS overrides it).
  double peakTensorFlops = 312e12;
  /// CUDA toolkit folder (bin/ptxas, nvvm/libdevice); empty: none, and the
  /// library embeds PTX that the driver compiles when the model is created.
  std::string toolkit;
};

/// The GPU architectures tfm compiles for ("sm_80", "sm_86", "sm_89",
/// "sm_90", "sm_90a").
llvm::ArrayRef<llvm::StringRef> knownGpuChips();

/// The description of `chip` (one of knownGpuChips()), with `toolkit`.
GpuTargetDescription gpuTargetFor(llvm::StringRef chip,
                                  llvm::StringRef toolkit);

/// vectorBits / 32 × 2 × fmaUnits × clockGHz × 1e9.
double derivedPeakFlopsPerCore(const TargetDescription &target);

/// The documented default for a machine whose bandwidth was not measured:
/// 10 GB/s per hardware thread.
inline double defaultMemoryBandwidth(unsigned threads) {
  return 10e9 * threads;
}

/// The machine the compiler runs on: LLVM's host triple, CPU name and
/// features, cache sizes from sysfs when available (else the defaults
/// above), the hardware thread count, and the widest vector width the
/// features enable.
TargetDescription hostTarget();

/// The widest float vector width (bits) that an LLVM feature string enables
/// on the triple's architecture (hostTarget and tfmc's cross-compilation
/// target call it).
inline unsigned vectorBitsForFeatures(const std::string &triple,
                                      const std::string &features) {
  llvm::SmallVector<llvm::StringRef> parts;
  llvm::StringRef(features).split(parts, ',', -1, /*KeepEmpty=*/false);
  auto has = [&](llvm::StringRef f) {
    return llvm::is_contained(parts, ("+" + f.str()));
  };
  if (llvm::Triple(triple).isX86()) {
    if (has("avx512f"))
      return 512;
    if (has("avx"))
      return 256;
    return 128;
  }
  // AArch64 NEON and everything else: 128-bit vectors.
  return 128;
}

/// The architectural vector registers a register tile may use: x86 has 32
/// (zmm0-31) with AVX-512 (`vectorBits` 512) and 16 (xmm/ymm 0-15)
/// without; AArch64 has 32 (v0-v31, NEON and SVE alike); any other
/// architecture is assumed to have 16, which only makes register tiles
/// smaller than they could be, never spill. The one statement of this rule:
/// hostTarget, tfmc's cross-compilation target and -tfm-set-target's
/// vector-bits override all call it.
inline unsigned vectorRegistersFor(const std::string &triple,
                                   unsigned vectorBits) {
  llvm::Triple t(triple);
  if (t.isX86())
    return vectorBits >= 512 ? 32 : 16;
  if (t.isAArch64())
    return 32;
  return 16;
}

} // namespace mlir::tfm

#endif // TFM_TARGET_TARGETDESCRIPTION_H
