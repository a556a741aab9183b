//===- Target.h - the target in the IR --------------------------*- C++ -*-===//
//
// Between a TargetDescription (what the driver and the LLVM back half use)
// and #tfm.cpu_target, the module attribute `tfm.target` that code
// generation reads (tfm/IR/TfmAttrNames.h).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_COMMON_TARGET_H
#define TFM_CODEGEN_COMMON_TARGET_H

#include "tfm/IR/TfmOps.h"
#include "tfm/Target/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"

namespace mlir::tfm {

/// The attribute that states `target`'s code generation facts.
CpuTargetAttr getCpuTargetAttr(MLIRContext *ctx,
                               const TargetDescription &target);

/// What `attr` states, as a TargetDescription for the LLVM back half and the
/// report (clock, peak and bandwidth derived as for a cross target).
TargetDescription getTargetDescription(CpuTargetAttr attr);

/// The attribute that states `gpu`'s code generation facts.
GpuTargetAttr getGpuTargetAttr(MLIRContext *ctx,
                               const GpuTargetDescription &gpu);

/// Sets `module`'s target to `target` (replacing any).
void setTarget(ModuleOp module, const TargetDescription &target);
void setTarget(ModuleOp module, const GpuTargetDescription &gpu);

} // namespace mlir::tfm

#endif // TFM_CODEGEN_COMMON_TARGET_H
