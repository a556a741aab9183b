//===- GPUDeviceMemory.cpp - host buffers into device memory --------------===//
//
// -tfm-gpu-device-memory: the host functions' memref.alloc/dealloc become
// stream-ordered gpu.alloc/gpu.dealloc (every buffer is only ever touched by
// kernels), constant globals a kernel reads are taken inside the kernel (so
// that outlining puts a copy in the device module), and an allocation
// inside a kernel is an error.
//
// -tfm-gpu-check-kernels: after outlining, nothing on the host may read or
// write a buffer, and no kernel may be given a host global.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUDEVICEMEMORYPASS
#define GEN_PASS_DEF_GPUCHECKKERNELSPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// The memref.get_global that `v` is, or is a view of; null if none.
memref::GetGlobalOp globalRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto get = dyn_cast<memref::GetGlobalOp>(def))
      return get;
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view)
      return {};
    v = view.getViewSource();
  }
  return {};
}

/// Whether `memref` lives in the default (global) memory space.
bool isGlobalMemory(MemRefType type) {
  Attribute space = type.getMemorySpace();
  if (!space)
    return true;
  if (auto gpuSpace = dyn_cast<gpu::AddressSpaceAttr>(space))
    return gpuSpace.getValue() == gpu::AddressSpace::Global;
  if (auto intSpace = dyn_cast<IntegerAttr>(space))
    return intSpace.getInt() == 0;
  return false;
}

struct GPUDeviceMemoryPass
    : tfm::impl::GPUDeviceMemoryPassBase<GPUDeviceMemoryPass> {
  using Base::Base;
  GPUDeviceMemoryPass(const GPUDeviceMemoryPass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::DeallocOp> deallocs;
    bool bad = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (op->getParentOfType<gpu::GPUModuleOp>())
        return WalkResult::skip();
      bool inKernel = op->getParentOfType<gpu::LaunchOp>() != nullptr;
      if (auto alloc = dyn_cast<memref::AllocOp>(op)) {
        if (!inKernel) {
          allocs.push_back(alloc);
        } else if (isGlobalMemory(alloc.getType())) {
          alloc.emitOpError(
              "allocates global memory inside a GPU kernel (it would become "
              "a per-thread device malloc); shared buffers must be "
              "workgroup attributions of the kernel");
          bad = true;
        }
      } else if (auto dealloc = dyn_cast<memref::DeallocOp>(op)) {
        if (!inKernel)
          deallocs.push_back(dealloc);
      }
      return WalkResult::advance();
    });
    if (bad)
      return signalPassFailure();

    if (failed(sinkGlobals()))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    Type token = gpu::AsyncTokenType::get(&getContext());
    for (memref::AllocOp alloc : allocs) {
      rewriter.setInsertionPoint(alloc);
      Location loc = alloc.getLoc();
      Value ready = gpu::WaitOp::create(rewriter, loc, token, ValueRange{})
                        .getAsyncToken();
      auto deviceAlloc = gpu::AllocOp::create(
          rewriter, loc, alloc.getType(), token, ValueRange{ready},
          alloc.getDynamicSizes(), alloc.getSymbolOperands(),
          /*hostShared=*/nullptr);
      gpu::WaitOp::create(rewriter, loc, Type(),
                          ValueRange{deviceAlloc.getAsyncToken()});
      rewriter.replaceOp(alloc, deviceAlloc.getMemref());
      ++moved;
    }
    for (memref::DeallocOp dealloc : deallocs) {
      rewriter.setInsertionPoint(dealloc);
      Location loc = dealloc.getLoc();
      Value ready = gpu::WaitOp::create(rewriter, loc, token, ValueRange{})
                        .getAsyncToken();
      auto free = gpu::DeallocOp::create(rewriter, loc, token,
                                         ValueRange{ready},
                                         dealloc.getMemref());
      gpu::WaitOp::create(rewriter, loc, Type(),
                          ValueRange{free.getAsyncToken()});
      rewriter.eraseOp(dealloc);
    }
  }

  /// A memref.get_global on the host names the host's copy of the global:
  /// a kernel given it (or a view of it) would read host memory (an
  /// illegal address on the device). Each launch that reads one gets its
  /// own get_global, and the views of it, inside its body
  /// (sinkOperationsIntoLaunchOp), and gpu-kernel-outlining then copies the
  /// global into the kernel module. Only constant globals can be shared
  /// this way: a kernel that reads any other global is an error.
  LogicalResult sinkGlobals() {
    SymbolTableCollection symbols;
    auto isConstant = [&](memref::GetGlobalOp get) {
      auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          get, get.getNameAttr());
      return global && global.getConstant();
    };
    // The globals kernels read, inside them or from above.
    bool bad = false;
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      auto launch = dyn_cast<gpu::LaunchOp>(op);
      if (!launch)
        return WalkResult::advance();
      launches.push_back(launch);
      llvm::SetVector<Value> above;
      getUsedValuesDefinedAbove(launch.getBody(), above);
      SmallVector<memref::GetGlobalOp> gets;
      for (Value v : above)
        if (memref::GetGlobalOp get = globalRoot(v))
          gets.push_back(get);
      launch.getBody().walk([&](memref::GetGlobalOp get) { gets.push_back(get); });
      for (memref::GetGlobalOp get : gets)
        if (!isConstant(get)) {
          get.emitOpError("is read by a GPU kernel but names a global that "
                          "is not constant: kernels can only share constant "
                          "globals (copied into the device module)");
          bad = true;
        }
      return WalkResult::skip();
    });
    if (bad)
      return failure();
    // Index constants (extents, tile sizes, strides) go in too, so that
    // ptxas folds them; MLIR 22's outlining would pass them as parameters.
    // Not into the attention CTAs: folded, their tile loops unroll until
    // ptxas spills (8 bytes per thread on examples/gpt-decoder.json).
    bool constants = true;
    auto sinkable = [&](Operation *op) {
      if (auto c = dyn_cast<arith::ConstantOp>(op))
        return constants && c.getType().isIndex();
      if (auto get = dyn_cast<memref::GetGlobalOp>(op))
        return isConstant(get);
      if (auto view = dyn_cast<ViewLikeOpInterface>(op))
        return static_cast<bool>(globalRoot(view.getViewSource()));
      return false;
    };
    for (gpu::LaunchOp launch : launches) {
      auto count = [&] {
        unsigned n = 0;
        launch.getBody().walk([&](memref::GetGlobalOp) { ++n; });
        return n;
      };
      unsigned before = count();
      constants = !isa_and_nonnull<tfm::AttentionTilingAttr>(
          launch->getAttr(tfm::kLoweringConfigAttr));
      if (failed(sinkOperationsIntoLaunchOp(launch, sinkable)))
        return launch.emitOpError("cannot take the constant globals it "
                                  "reads inside the kernel");
      globals += count() - before;
    }
    return success();
  }

  tfm::PassStatistic moved{this, numAllocs, "device-allocs",
                           "Host allocations moved to device memory"};
  tfm::PassStatistic globals{
      this, numGlobals, "kernel-globals",
      "Constant globals read inside a kernel instead of from the host"};
};

struct GPUCheckKernelsPass
    : tfm::impl::GPUCheckKernelsPassBase<GPUCheckKernelsPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation()->walk<WalkOrder::PreOrder>([&](Operation *op) {
      if (isa<gpu::GPUModuleOp>(op))
        return WalkResult::skip();
      if (isa<gpu::LaunchOp>(op)) {
        op->emitOpError("is not outlined into a gpu.module (run "
                        "gpu-kernel-outlining)");
        failed = true;
        return WalkResult::skip();
      }
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        for (Value arg : launch.getKernelOperands())
          if (memref::GetGlobalOp get = globalRoot(arg)) {
            launch.emitOpError("passes the host's global @")
                << get.getName()
                << " to the kernel, which cannot read host memory (run "
                   "-tfm-gpu-device-memory before outlining)";
            failed = true;
          }
        return WalkResult::advance();
      }
      if (isa<memref::LoadOp, memref::StoreOp, memref::CopyOp,
              vector::TransferReadOp, vector::TransferWriteOp,
              vector::LoadOp, vector::StoreOp>(op)) {
        op->emitOpError("reads or writes a buffer on the host; every buffer "
                        "of a GPU model is in device memory, so this must "
                        "run in a kernel (-tfm-gpu-distribute)");
        failed = true;
      }
      return WalkResult::advance();
    });
    if (failed)
      signalPassFailure();
  }
};

} // namespace
