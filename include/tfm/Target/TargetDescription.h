//===- TargetDescription.h - what the compiler knows of a CPU ---*- C++ -*-===//
//
// The CPU a model is compiled for. Passes that pick tile sizes, vector widths
// or thread counts read them from here, never from constants of their own.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_TARGET_TARGETDESCRIPTION_H
#define TFM_TARGET_TARGETDESCRIPTION_H

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
};

/// The machine the compiler runs on: LLVM's host triple, CPU name and
/// features, cache sizes from sysfs when available (else the defaults
/// above), the hardware thread count, and the widest vector width the
/// features enable.
TargetDescription hostTarget();

/// The widest float vector width (bits) that an LLVM feature string enables
/// on the triple's architecture.
unsigned vectorBitsForFeatures(const std::string &triple,
                               const std::string &features);

} // namespace mlir::tfm

#endif // TFM_TARGET_TARGETDESCRIPTION_H
