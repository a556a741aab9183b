//===- GPUDynamicSharedMemory.cpp - shared memory past 48 KiB -------------===//
//
// -tfm-gpu-dynamic-shared-memory: a kernel whose workgroup buffers take
// more than a block's static shared memory (48 KiB) gets them as views of
// its dynamic shared memory instead, and every launch of it passes their
// size (the runtime raises the kernel's limit before such a launch). See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUDYNAMICSHAREDMEMORYPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Each buffer starts on a 128-byte boundary (a whole row of banks; cp.async
/// and ldmatrix need 16).
constexpr int64_t kBufferAlignment = 128;

/// Bytes of a statically shaped workgroup buffer, or nullopt.
std::optional<int64_t> bufferBytes(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  if (!memref || !memref.hasStaticShape() || !memref.getLayout().isIdentity() ||
      !memref.getElementType().isIntOrFloat())
    return std::nullopt;
  return memref.getNumElements() *
         llvm::divideCeil(memref.getElementTypeBitWidth(), 8);
}

struct GPUDynamicSharedMemoryPass
    : tfm::impl::GPUDynamicSharedMemoryPassBase<GPUDynamicSharedMemoryPass> {
  using Base::Base;
  GPUDynamicSharedMemoryPass(const GPUDynamicSharedMemoryPass &other)
      : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    GpuTargetAttr target = getGpuTarget(module);
    if (!target)
      return;
    // Kernels moved to dynamic shared memory (@module::@kernel), and their
    // bytes.
    DenseMap<SymbolRefAttr, int64_t> moved;
    WalkResult result = module.walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel() || func.getNumWorkgroupAttributions() == 0)
        return WalkResult::advance();
      SmallVector<int64_t> offsets;
      int64_t total = 0;
      for (BlockArgument buffer : func.getWorkgroupAttributions()) {
        std::optional<int64_t> bytes = bufferBytes(buffer.getType());
        if (!bytes) {
          // Not movable: its size is unknown here; leave the kernel.
          return WalkResult::advance();
        }
        total = llvm::alignTo(total, kBufferAlignment);
        offsets.push_back(total);
        total += *bytes;
      }
      if (total <= target.getSharedMemoryBytes())
        return WalkResult::advance();
      if (total > target.getMaxBlockSharedMemoryBytes()) {
        func.emitOpError("-tfm-gpu-dynamic-shared-memory: the workgroup "
                         "buffers take ")
            << total << " bytes, more than the "
            << target.getMaxBlockSharedMemoryBytes()
            << " bytes of shared memory a block of " << target.getChip()
            << " may have";
        return WalkResult::interrupt();
      }
      move(func, offsets);
      auto gpuModule = func->getParentOfType<gpu::GPUModuleOp>();
      moved[SymbolRefAttr::get(gpuModule.getNameAttr(),
                               {FlatSymbolRefAttr::get(func.getNameAttr())})] =
          total;
      ++kernels;
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (moved.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      auto it = moved.find(launch.getKernel());
      if (it == moved.end())
        return;
      OpBuilder b(launch);
      Value bytes = arith::ConstantIntOp::create(b, launch.getLoc(),
                                                 b.getI32Type(), it->second);
      launch.getDynamicSharedMemorySizeMutable().assign(bytes);
      ++launches;
    });
  }

  /// The buffers of `func` become views of its dynamic shared memory at
  /// `offsets`; the attributions go.
  void move(gpu::GPUFuncOp func, ArrayRef<int64_t> offsets) {
    Block &entry = func.getBody().front();
    OpBuilder b = OpBuilder::atBlockBegin(&entry);
    Location loc = func.getLoc();
    auto workgroup =
        gpu::AddressSpaceAttr::get(&getContext(), gpu::AddressSpace::Workgroup);
    auto bytesType = MemRefType::get({ShapedType::kDynamic}, b.getI8Type(),
                                     MemRefLayoutAttrInterface(), workgroup);
    Value dynamic = gpu::DynamicSharedMemoryOp::create(b, loc, bytesType);
    unsigned first = func.getFirstWorkgroupAttributionIndex();
    SmallVector<BlockArgument> buffers(func.getWorkgroupAttributions());
    for (auto [buffer, offset] : llvm::zip(buffers, offsets)) {
      Value at = arith::ConstantIndexOp::create(b, loc, offset);
      Value view = memref::ViewOp::create(b, loc, buffer.getType(), dynamic, at,
                                          ValueRange{});
      buffer.replaceAllUsesWith(view);
    }
    llvm::BitVector erase(entry.getNumArguments());
    erase.set(first, first + buffers.size());
    entry.eraseArguments(erase);
    func->removeAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName());
    func.removeWorkgroupAttribAttrsAttr();
  }

  PassStatistic kernels{this, numKernels, "kernels",
                        "Kernels given dynamic shared memory"};
  PassStatistic launches{this, numLaunches, "launches",
                         "Launches given their kernel's dynamic shared memory "
                         "size"};
};

} // namespace
