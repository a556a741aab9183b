//===- CpuFeatures.h - CPU features a compiled model needs ------*- C++ -*-===//
//
// The manifest's "cpu_features": features the generated code uses beyond
// what every CPU of its target has. Whoever runs generated code (the
// runtime at tfm_model_create, tfm-bench's kernel harness) checks the CPU
// for them and enables what the OS hands out only on request.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_SUPPORT_CPUFEATURES_H
#define TFM_SUPPORT_CPUFEATURES_H

#include <optional>
#include <string>
#include <vector>

namespace tfm {

/// Checks the CPU for each feature (LLVM's names; "amx-bf16" is the only
/// one known) and enables it where the OS asks for that (Linux hands a
/// process the AMX tile state only after arch_prctl ARCH_REQ_XCOMP_PERM).
/// Returns what is missing, as the end of a sentence ("AMX (amx-bf16),
/// which this CPU lacks"), or nothing when all is there.
/// TFM_DISABLE_CPU_FEATURES (comma-separated names) makes features count as
/// absent, to try the refusal on any machine.
std::optional<std::string>
enableCpuFeatures(const std::vector<std::string> &features);

} // namespace tfm

#endif // TFM_SUPPORT_CPUFEATURES_H
