//===- GPUAlignShared.cpp - 16-byte aligned workgroup buffers -------------===//
//
// -tfm-gpu-align-shared: every workgroup attribution of every kernel gets
// llvm.align = 16, which convert-gpu-to-nvvm gives its shared-memory
// global (ldmatrix rows and cp.async destinations need 16 bytes). See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUALIGNSHAREDPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

constexpr int64_t kSharedAlignment = 16;

struct GPUAlignSharedPass
    : tfm::impl::GPUAlignSharedPassBase<GPUAlignSharedPass> {
  using Base::Base;
  GPUAlignSharedPass(const GPUAlignSharedPass &other) : Base(other) {}

  void runOnOperation() override {
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    Builder b(&getContext());
    getOperation()->walk([&](gpu::GPUFuncOp func) {
      for (unsigned i = 0; i < func.getNumWorkgroupAttributions(); ++i) {
        auto stated = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, name));
        if (stated && stated.getInt() >= kSharedAlignment)
          continue;
        func.setWorkgroupAttributionAttr(
            i, name, b.getI64IntegerAttr(kSharedAlignment));
        ++aligned;
      }
    });
  }

  PassStatistic aligned{this, numAligned, "aligned",
                        "Workgroup buffers given 16-byte alignment"};
};

} // namespace
