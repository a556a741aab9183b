//===- GPUEmulate.cpp - run GPU kernels on the host -----------------------===//
//
// -tfm-gpu-emulate: every gpu.launch becomes the loop nest that a GPU runs
// in parallel, run sequentially on the host: blocks (z, y, x) outside,
// threads (z, y, x) inside, the kernel body once per (block, thread) with
// the launch's block/thread ids and sizes bound to the loop variables and
// bounds. The kernel body is the one the NVIDIA build compiles, unchanged,
// so the host run checks its indexing, bounds guards and arithmetic.
//
// Sequential threads are exact while a kernel has no barrier: no thread
// then reads what another thread of its launch writes. Kernels with
// barriers or workgroup memory need the fiber emulation (threads as
// coroutines switching at each barrier); until it exists this pass rejects
// them by name rather than run them wrongly.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/Support/Manifest.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUEMULATEPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct GPUEmulatePass
    : mlir::tfm::impl::GPUEmulatePassBase<GPUEmulatePass> {
  using Base::Base;
  GPUEmulatePass(const GPUEmulatePass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    IRRewriter rw(&getContext());
    for (gpu::LaunchOp launch : launches) {
      if (failed(emulate(rw, launch)))
        return signalPassFailure();
      ++emulated;
    }
    if (failed(runOnHost()))
      signalPassFailure();
  }

  /// The model's buffers are host memory now: its manifest (when it has
  /// one) says "cpu", so the runtime drives no GPU.
  LogicalResult runOnHost() {
    auto global = getOperation().lookupSymbol<LLVM::GlobalOp>(
        mlir::tfm::abi::kManifestSymbol);
    if (!global)
      return success();
    auto text = dyn_cast_or_null<StringAttr>(global.getValueOrNull());
    if (!text)
      return global.emitOpError("holds no manifest text");
    StringRef json = text.getValue();
    json.consume_back(StringRef("\0", 1));
    llvm::Expected<::tfm::Manifest> manifest =
        ::tfm::Manifest::parse(json, "model manifest");
    if (!manifest)
      return global.emitOpError(llvm::toString(manifest.takeError()));
    manifest->device = ::tfm::Device::CPU;
    std::string data = manifest->toJSON();
    data.push_back('\0');
    global.setValueAttr(StringAttr::get(&getContext(), data));
    global.setGlobalType(LLVM::LLVMArrayType::get(
        IntegerType::get(&getContext(), 8), data.size()));
    return success();
  }

  LogicalResult emulate(IRRewriter &rw, gpu::LaunchOp launch) {
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
      return launch.emitOpError("is asynchronous; the emulation runs "
                                "launches in program order only");
    if (launch.getClusterSizeX())
      return launch.emitOpError("uses thread-block clusters, which the "
                                "emulation does not model");
    if (!launch.getWorkgroupAttributions().empty() ||
        !launch.getPrivateAttributions().empty())
      return launch.emitOpError(
          "has workgroup or private memory attributions; the sequential "
          "emulation cannot run kernels that share memory between threads");
    Region &body = launch.getBody();
    if (!body.hasOneBlock())
      return launch.emitOpError("has a multi-block body");
    // The launch's ids and sizes are its block arguments; any other gpu op
    // (a barrier, a shuffle, an id op) has no sequential equivalent.
    WalkResult barriers = body.walk([&](Operation *op) {
      if (op == launch.getOperation() || isa<gpu::TerminatorOp>(op) ||
          !isa<gpu::GPUDialect>(op->getDialect()))
        return WalkResult::advance();
      op->emitOpError("has no sequential host emulation (barriers, "
                      "shuffles and other operations between the threads of "
                      "a block need the fiber emulation)");
      return WalkResult::interrupt();
    });
    if (barriers.wasInterrupted())
      return failure();

    Location loc = launch.getLoc();
    rw.setInsertionPoint(launch);
    Value zero = arith::ConstantIndexOp::create(rw, loc, 0);
    Value one = arith::ConstantIndexOp::create(rw, loc, 1);
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    // Outermost first: block z, y, x, then thread z, y, x.
    Value bounds[6] = {grid.z, grid.y, grid.x, block.z, block.y, block.x};
    Value ivs[6];
    OpBuilder b = rw;
    for (int i = 0; i < 6; ++i) {
      auto loop = scf::ForOp::create(b, loc, zero, bounds[i], one);
      ivs[i] = loop.getInductionVar();
      b.setInsertionPoint(loop.getBody()->getTerminator());
    }

    IRMapping map;
    gpu::KernelDim3 blockIds = launch.getBlockIds();
    gpu::KernelDim3 threadIds = launch.getThreadIds();
    gpu::KernelDim3 gridArgs = launch.getGridSize();
    gpu::KernelDim3 blockArgs = launch.getBlockSize();
    map.map(blockIds.z, ivs[0]);
    map.map(blockIds.y, ivs[1]);
    map.map(blockIds.x, ivs[2]);
    map.map(threadIds.z, ivs[3]);
    map.map(threadIds.y, ivs[4]);
    map.map(threadIds.x, ivs[5]);
    map.map(gridArgs.x, grid.x);
    map.map(gridArgs.y, grid.y);
    map.map(gridArgs.z, grid.z);
    map.map(blockArgs.x, block.x);
    map.map(blockArgs.y, block.y);
    map.map(blockArgs.z, block.z);
    for (Operation &op : body.front().without_terminator())
      b.clone(op, map);
    rw.eraseOp(launch);
    return success();
  }

  mlir::tfm::PassStatistic emulated{this, numEmulated, "emulated-launches",
                              "gpu.launch ops turned into host loop nests"};
};

} // namespace
