//===- GPUEmulate.cpp - run GPU kernels on the host -----------------------===//
//
// -tfm-gpu-emulate: every gpu.launch becomes the loop nest that a GPU runs
// in parallel, run on the host: blocks (z, y, x) outside, and inside each
// block, threads (z, y, x) as loops. The kernel body is the one the NVIDIA
// build compiles, unchanged, so the host run checks its indexing, bounds
// guards, shared-memory use and arithmetic.
//
// Barriers are synchronization points between thread loops (loop fission,
// as CPU implementations of CUDA and OpenCL run work-groups): the body is
// cut at every gpu.barrier into segments, each segment runs for all threads
// of the block before the next one starts, which is exactly what a barrier
// guarantees. A barrier inside an scf.for whose bounds every thread agrees
// on keeps the loop outside and cuts its body. A value one thread computes
// in one segment and uses in a later one lives in a per-thread slot of a
// scratch buffer (the thread's register, spilled); values every thread of
// the block computes alike (from block ids, sizes, constants) are computed
// once per block outside the thread loops.
//
// Workgroup memory (the launch's workgroup attributions) is a host buffer
// per launch, filled with NaN at the start of every block, so that a read
// of shared memory no thread wrote (a missing barrier or copy) shows in the
// results.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/Support/Manifest.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUEMULATEPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

bool containsBarrier(Operation *op) {
  return op
      ->walk([](gpu::BarrierOp) { return WalkResult::interrupt(); })
      .wasInterrupted();
}

/// A barrier, a warp shuffle, a warp's matrix load or product: where the
/// threads of a block synchronize.
bool containsSync(Operation *op) {
  return op
      ->walk([](Operation *inner) {
        return isa<gpu::BarrierOp, gpu::ShuffleOp, nvgpu::MmaSyncOp,
                   nvgpu::LdMatrixOp>(inner)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Emulates one gpu.launch. Values of the kernel body are of three kinds:
/// uniform (the same for every thread of a block: defined above the launch,
/// block ids and sizes, workgroup buffers, induction variables of loops
/// with barriers, and pure ops of uniform operands), thread ids, and
/// per-thread values. A per-thread value used outside the segment that
/// defines it is kept in a scratch slot.
class LaunchEmulator {
public:
  LaunchEmulator(IRRewriter &rw, gpu::LaunchOp launch)
      : rw(rw), launch(launch), loc(launch.getLoc()) {}

  LogicalResult run();
  /// Thread loop nests emitted (one more per barrier a block passes).
  unsigned segmentCount() const { return segments; }

private:
  LogicalResult check();
  LogicalResult emitBlock(OpBuilder &b, Block &src);
  LogicalResult emitSyncLoop(OpBuilder &b, scf::ForOp loop);
  void emitSegment(OpBuilder &b, Block &src, ArrayRef<Operation *> ops);
  void emitCopies(OpBuilder &b, ArrayRef<std::pair<Value, Value>> copies);
  LogicalResult emitShuffle(OpBuilder &b, gpu::ShuffleOp shuffle);
  LogicalResult emitMma(OpBuilder &b, nvgpu::MmaSyncOp mma);
  func::FuncOp mmaProducts(nvgpu::MmaSyncOp mma);
  LogicalResult emitLdMatrix(OpBuilder &b, nvgpu::LdMatrixOp load);
  /// Whether the block is a constant number of whole warps.
  bool wholeWarps();
  void poison(OpBuilder &b, Value buffer);

  /// The thread loops of one segment at `b`; returns a builder inside them
  /// and the thread's linear id.
  std::pair<OpBuilder, Value> threadLoops(OpBuilder &b);
  /// `v` as the current thread sees it inside a segment whose values are in
  /// `local` (loading it from its scratch slot at `b` when needed).
  Value lookup(OpBuilder &b, IRMapping &local, Value tid, Value v);
  /// The scratch buffer (one slot per thread) of per-thread value `v`.
  Value scratchFor(Value v);
  bool isUniform(Value v) {
    return uniform.contains(v) ||
           !launch.getBody().isAncestor(v.getParentRegion());
  }
  /// A load every thread of a block does alike: uniform indices into a
  /// buffer in device memory that the kernel never writes (no buffer the
  /// kernel writes has the same root allocation; two function arguments
  /// may alias).
  bool isReadOnlyLoad(Operation &op);
  Value uniformValue(Value v) const { return uniform.lookupOrDefault(v); }

  IRRewriter &rw;
  gpu::LaunchOp launch;
  Location loc;
  /// Kernel values that are uniform, mapped to their block-level values.
  IRMapping uniform;
  DenseMap<Value, Value> scratch;
  /// The root buffers the kernel writes (writesUnknown: some op's writes
  /// have no buffer).
  llvm::SmallPtrSet<Value, 8> writtenRoots;
  bool writesUnknown = false;
  SmallVector<Value> hostBuffers;
  Value numThreads;
  Value blockSize[3]; // x, y, z
  /// The launch's thread id arguments, and their loop variables in the
  /// segment being emitted.
  Value threadArgs[3], threadValues[3];
  unsigned segments = 0;
  Value zero, one;
  OpBuilder launchLevel{launch->getContext()};
};

bool LaunchEmulator::isReadOnlyLoad(Operation &op) {
  auto load = dyn_cast<memref::LoadOp>(op);
  if (!load || writesUnknown ||
      !llvm::all_of(load.getIndices(), [&](Value v) { return isUniform(v); }))
    return false;
  Value root = mlir::tfm::viewRoot(load.getMemRef());
  if (!isUniform(root) || launch.getBody().isAncestor(root.getParentRegion()))
    return false; // workgroup memory, or a view the kernel computes
  Region &body = launch.getBody();
  return llvm::none_of(writtenRoots, [&](Value written) {
    bool outside = !body.isAncestor(written.getParentRegion());
    return written == root || (outside && isa<BlockArgument>(written) &&
                               isa<BlockArgument>(root));
  });
}

/// Host buffers have no memory space: views of workgroup buffers lose it.
void stripWorkgroupSpace(Operation *clone) {
  clone->walk([](Operation *op) {
    for (Value result : op->getResults())
      if (auto type = dyn_cast<MemRefType>(result.getType());
          type && isa_and_nonnull<gpu::AddressSpaceAttr>(type.getMemorySpace()))
        result.setType(MemRefType::Builder(type).setMemorySpace(Attribute()));
  });
}

LogicalResult LaunchEmulator::check() {
  if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
    return launch.emitOpError("is asynchronous; the emulation runs "
                              "launches in program order only");
  if (launch.getClusterSizeX())
    return launch.emitOpError("uses thread-block clusters, which the "
                              "emulation does not model");
  if (!launch.getPrivateAttributions().empty())
    return launch.emitOpError("has private memory attributions, which the "
                              "emulation does not model");
  Region &body = launch.getBody();
  if (!body.hasOneBlock())
    return launch.emitOpError("has a multi-block body");
  // Workgroup buffers become host buffers without a memory space: they
  // and their views (whose types lose the space too) may only be read and
  // written by loads and stores.
  SmallVector<Value> worklist(launch.getWorkgroupAttributions());
  while (!worklist.empty()) {
    Value buffer = worklist.pop_back_val();
    for (Operation *user : buffer.getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user);
          view && view.getViewSource() == buffer) {
        llvm::append_range(worklist, user->getResults());
        continue;
      }
      if (!isa<memref::LoadOp, memref::StoreOp, vector::LoadOp, vector::StoreOp,
               nvgpu::LdMatrixOp>(user))
        return user->emitOpError(
            "uses a workgroup buffer other than by loads, stores and views, "
            "which the emulation does not model");
    }
  }
  // What the kernel writes, for isReadOnlyLoad.
  body.walk([&](Operation *op) {
    if (isa<gpu::BarrierOp, gpu::TerminatorOp>(op))
      return;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        writesUnknown = true;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> list;
    effects.getEffects(list);
    for (MemoryEffects::EffectInstance &e : list) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
        continue;
      if (Value v = e.getValue())
        writtenRoots.insert(mlir::tfm::viewRoot(v));
      else
        writesUnknown = true;
    }
  });
  // The launch's ids and sizes are its block arguments; barriers are the
  // synchronization the emulation models; any other gpu op (a shuffle, an
  // id op) has no host equivalent here.
  WalkResult other = body.walk([&](Operation *op) {
    if (isa<gpu::TerminatorOp, gpu::BarrierOp, gpu::ShuffleOp>(op) ||
        !isa<gpu::GPUDialect>(op->getDialect()))
      return WalkResult::advance();
    op->emitOpError("has no host emulation (barriers and warp shuffles "
                    "are the operations across threads it models)");
    return WalkResult::interrupt();
  });
  return failure(other.wasInterrupted());
}

std::pair<OpBuilder, Value> LaunchEmulator::threadLoops(OpBuilder &b) {
  OpBuilder inner = b;
  Value ids[3];
  // Outermost first: z, y, x.
  for (int d = 2; d >= 0; --d) {
    auto loop = scf::ForOp::create(inner, loc, zero, blockSize[d], one);
    ids[d] = loop.getInductionVar();
    inner.setInsertionPoint(loop.getBody()->getTerminator());
  }
  Value tid = arith::MulIOp::create(inner, loc, ids[2], blockSize[1]);
  tid = arith::AddIOp::create(inner, loc, tid, ids[1]);
  tid = arith::MulIOp::create(inner, loc, tid, blockSize[0]);
  tid = arith::AddIOp::create(inner, loc, tid, ids[0]);
  for (int d = 0; d < 3; ++d)
    threadValues[d] = ids[d];
  ++segments;
  return {inner, tid};
}

Value LaunchEmulator::scratchFor(Value v) {
  Value &slot = scratch[v];
  if (!slot) {
    auto type = MemRefType::get({ShapedType::kDynamic}, v.getType());
    slot = memref::AllocOp::create(launchLevel, loc, type, numThreads);
    hostBuffers.push_back(slot);
  }
  return slot;
}

Value LaunchEmulator::lookup(OpBuilder &b, IRMapping &local, Value tid,
                             Value v) {
  if (Value mapped = local.lookupOrNull(v))
    return mapped;
  if (isUniform(v))
    return uniformValue(v);
  for (int d = 0; d < 3; ++d)
    if (v == threadArgs[d])
      return threadValues[d];
  // A per-thread value of an earlier segment.
  Value loaded = memref::LoadOp::create(b, loc, scratchFor(v), tid);
  local.map(v, loaded);
  return loaded;
}

void LaunchEmulator::emitSegment(OpBuilder &b, Block &src,
                                 ArrayRef<Operation *> ops) {
  if (ops.empty())
    return;
  llvm::SmallPtrSet<Operation *, 16> inSegment(ops.begin(), ops.end());
  auto [inner, tid] = threadLoops(b);
  IRMapping local;
  for (Operation *op : ops) {
    // Every value the op reads from outside itself, nested regions too.
    SetVector<Value> used(op->operand_begin(), op->operand_end());
    getUsedValuesDefinedAbove(op->getRegions(), used);
    for (Value v : used)
      if (!local.contains(v))
        local.map(v, lookup(inner, local, tid, v));
    Operation *clone = inner.clone(*op, local);
    stripWorkgroupSpace(clone);
    // Results used outside this segment go to their scratch slots.
    for (auto [result, cloned] :
         llvm::zip(op->getResults(), clone->getResults())) {
      bool escapes = llvm::any_of(result.getUsers(), [&](Operation *user) {
        Operation *ancestor = src.findAncestorOpInBlock(*user);
        return !ancestor || !inSegment.contains(ancestor);
      });
      if (escapes)
        memref::StoreOp::create(inner, loc, cloned, scratchFor(result), tid);
    }
  }
}

void LaunchEmulator::emitCopies(OpBuilder &b,
                                ArrayRef<std::pair<Value, Value>> copies) {
  if (copies.empty())
    return;
  auto [inner, tid] = threadLoops(b);
  IRMapping local;
  // All reads before all writes: a copy may read a slot another writes
  // (loop-carried values that swap).
  SmallVector<Value> values;
  for (auto [from, to] : copies)
    values.push_back(lookup(inner, local, tid, from));
  for (auto [value, copy] : llvm::zip(values, copies))
    memref::StoreOp::create(inner, loc, value, scratchFor(copy.second), tid);
}

/// Whether the ops in [begin, end) read (`reads`) or write (`writes`)
/// workgroup memory of `launch`.
static void workgroupAccesses(gpu::LaunchOp launch, Block::iterator begin,
                              Block::iterator end, bool &reads, bool &writes) {
  auto isWorkgroup = [&](Value memref) {
    return llvm::is_contained(launch.getWorkgroupAttributions(),
                              mlir::tfm::viewRoot(memref));
  };
  for (Operation &op : llvm::make_range(begin, end))
    op.walk([&](Operation *inner) {
      if (auto load = dyn_cast<memref::LoadOp>(inner))
        reads |= isWorkgroup(load.getMemRef());
      else if (auto load = dyn_cast<vector::LoadOp>(inner))
        reads |= isWorkgroup(load.getBase());
      else if (auto load = dyn_cast<nvgpu::LdMatrixOp>(inner))
        reads |= isWorkgroup(load.getSrcMemref());
      else if (auto store = dyn_cast<memref::StoreOp>(inner))
        writes |= isWorkgroup(store.getMemRef());
      else if (auto store = dyn_cast<vector::StoreOp>(inner))
        writes |= isWorkgroup(store.getBase());
    });
}

LogicalResult LaunchEmulator::emitSyncLoop(OpBuilder &b, scf::ForOp loop) {
  for (Value bound : {loop.getLowerBound(), loop.getUpperBound(),
                      loop.getStep()})
    if (!isUniform(bound))
      return loop.emitOpError(
          "holds a barrier but its bounds may differ between the threads of "
          "a block; the emulation (and the GPU) needs every thread to reach "
          "every barrier");
  // The emulation runs every thread's last segment of iteration i before
  // any thread's first segment of iteration i + 1, as if a barrier closed
  // the body. Without one, shared memory that the last segment and the
  // next iteration's first segment both use, one of them writing, is a
  // race on a GPU (a missing barrier at the back edge) that the emulation
  // would hide: refuse it.
  Block &src = *loop.getBody();
  Block::iterator first = src.end(), last = src.end();
  for (auto it = src.begin(); it != src.end(); ++it)
    if (containsBarrier(&*it)) {
      if (first == src.end())
        first = it;
      last = std::next(it);
    }
  bool headReads = false, headWrites = false, tailReads = false,
       tailWrites = false;
  workgroupAccesses(launch, src.begin(), first, headReads, headWrites);
  workgroupAccesses(launch, last, src.end(), tailReads, tailWrites);
  if ((tailWrites && (headReads || headWrites)) || (tailReads && headWrites))
    return loop.emitOpError(
        "uses shared memory after its last barrier and again, one of them "
        "writing, before its first: without a barrier at the end of the "
        "body, iteration i + 1 can overwrite what iteration i still reads "
        "(or the reverse) on a GPU, which the emulation cannot show");
  // Loop-carried values are per thread: they live in the slots of the
  // loop's region arguments, which the loop's results share.
  SmallVector<std::pair<Value, Value>> copies;
  for (auto [init, arg] :
       llvm::zip(loop.getInitArgs(), loop.getRegionIterArgs()))
    copies.push_back({init, arg});
  emitCopies(b, copies);
  for (auto [arg, result] :
       llvm::zip(loop.getRegionIterArgs(), loop.getResults()))
    scratch[result] = scratchFor(arg);

  auto emulated = scf::ForOp::create(b, loc, uniformValue(loop.getLowerBound()),
                                     uniformValue(loop.getUpperBound()),
                                     uniformValue(loop.getStep()));
  uniform.map(loop.getInductionVar(), emulated.getInductionVar());
  OpBuilder body = OpBuilder::atBlockTerminator(emulated.getBody());
  if (failed(emitBlock(body, *loop.getBody())))
    return failure();
  copies.clear();
  for (auto [yielded, arg] :
       llvm::zip(loop.getBody()->getTerminator()->getOperands(),
                 loop.getRegionIterArgs()))
    copies.push_back({yielded, arg});
  emitCopies(body, copies);
  return success();
}

/// A shuffle is a cut like a barrier (every thread has its value in its
/// scratch slot before any reads another's), then one thread loop in which
/// each thread takes the value of its source lane in its warp (32
/// consecutive linear thread ids): xor, down, up or idx, as PTX's
/// shfl.sync. A source lane outside the warp (or past the block's last
/// thread) gives the thread its own value and `valid` false.
LogicalResult LaunchEmulator::emitShuffle(OpBuilder &b,
                                          gpu::ShuffleOp shuffle) {
  std::optional<int64_t> width = getConstantIntValue(shuffle.getWidth());
  if (!width || *width != 32)
    return shuffle.emitOpError(
        "has a width other than a constant 32; the emulation models "
        "shuffles across whole warps");
  auto [inner, tid] = threadLoops(b);
  IRMapping local;
  Location l = shuffle.getLoc();
  Value warp = arith::ConstantIndexOp::create(inner, l, 32);
  Value lane = arith::RemUIOp::create(inner, l, tid, warp);
  Value base = arith::SubIOp::create(inner, l, tid, lane);
  Value offset = arith::IndexCastOp::create(
      inner, l, inner.getIndexType(),
      lookup(inner, local, tid, shuffle.getOffset()));
  Value src;
  switch (shuffle.getMode()) {
  case gpu::ShuffleMode::XOR:
    src = arith::XOrIOp::create(inner, l, lane, offset);
    break;
  case gpu::ShuffleMode::DOWN:
    src = arith::AddIOp::create(inner, l, lane, offset);
    break;
  case gpu::ShuffleMode::UP:
    src = arith::SubIOp::create(inner, l, lane, offset);
    break;
  case gpu::ShuffleMode::IDX:
    src = offset;
    break;
  }
  // In [0, 32) (an index below 0 is a huge unsigned one) and in the block.
  Value srcTid = arith::AddIOp::create(inner, l, base, src);
  Value valid = arith::AndIOp::create(
      inner, l,
      arith::CmpIOp::create(inner, l, arith::CmpIPredicate::ult, src, warp),
      arith::CmpIOp::create(inner, l, arith::CmpIPredicate::ult, srcTid,
                            numThreads));
  Value from = arith::SelectOp::create(inner, l, valid, srcTid, tid);
  Value value = shuffle.getValue();
  Value result;
  if (isUniform(value))
    result = uniformValue(value);
  else if (scratch.count(value))
    result = memref::LoadOp::create(inner, l, scratch[value], from);
  else
    return shuffle.emitOpError("shuffles a value the emulation keeps in no "
                               "per-thread slot (a thread id?)");
  memref::StoreOp::create(inner, l, result,
                          scratchFor(shuffle.getShuffleResult()), tid);
  memref::StoreOp::create(inner, l, valid, scratchFor(shuffle.getValid()),
                          tid);
  return success();
}

/// A warp's mma.sync m16n8k16 (16-bit A and B, f32 C) is a cut like a
/// shuffle, then one thread loop in which each lane computes its four
/// elements of D = A B + C from the fragments of the lanes of its warp, in
/// PTX's layout: lane 4g + t holds A's rows g and g + 8 at k = 2t, 2t + 1
/// (registers 0, 1) and 2t + 8, 2t + 9 (registers 2, 3), B's column g at
/// k = 2t, 2t + 1 (register 0) and 2t + 8, 2t + 9 (register 1), and C's and
/// D's rows g and g + 8 at columns 2t, 2t + 1. Products are exact in f32
/// (16-bit inputs); they are summed in k order onto C.
LogicalResult LaunchEmulator::emitMma(OpBuilder &b, nvgpu::MmaSyncOp mma) {
  if (!mlir::tfm::isHalfMmaSync(mma))
    return mma.emitOpError("has no host emulation: the emulation models "
                           "m16n8k16 products of bf16 or f16 into f32");
  if (!wholeWarps())
    return mma.emitOpError("runs in a block that is not a constant number "
                           "of whole warps; mma.sync needs every lane");
  // Named, not bound: the lambdas below capture them.
  std::pair<OpBuilder, Value> loops = threadLoops(b);
  OpBuilder &inner = loops.first;
  Value tid = loops.second;
  IRMapping local;
  Location l = mma.getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(inner, l, v);
  };
  Value lane = arith::RemUIOp::create(inner, l, tid, index(32));
  Value base = arith::SubIOp::create(inner, l, tid, lane);
  Value group = arith::DivUIOp::create(inner, l, lane, index(4));
  Value thread = arith::RemUIOp::create(inner, l, lane, index(4));
  // The fragment `v` of warp lane `laneOf`.
  auto fragmentOf = [&](Value v, Value laneOf) -> Value {
    if (isUniform(v))
      return uniformValue(v);
    auto it = scratch.find(v);
    if (it == scratch.end())
      return {};
    Value owner = arith::AddIOp::create(inner, l, base, laneOf);
    return memref::LoadOp::create(inner, l, it->second, owner);
  };
  // A's rows g, g + 8 sit with lanes 4g + q; B's columns 2t + c with
  // lanes 4 (2t + c) + q (q = (k mod 8) / 2).
  Value aFrags[4], bFrags[2][4];
  for (int64_t q = 0; q < 4; ++q) {
    Value aLane = arith::AddIOp::create(
        inner, l, arith::MulIOp::create(inner, l, group, index(4)), index(q));
    aFrags[q] = fragmentOf(mma.getMatrixA(), aLane);
    for (int64_t c = 0; c < 2; ++c) {
      Value column = arith::AddIOp::create(
          inner, l, arith::MulIOp::create(inner, l, thread, index(2)),
          index(c));
      Value bLane = arith::AddIOp::create(
          inner, l, arith::MulIOp::create(inner, l, column, index(4)),
          index(q));
      bFrags[c][q] = fragmentOf(mma.getMatrixB(), bLane);
    }
  }
  if (!aFrags[0] || !bFrags[0][0])
    return mma.emitOpError("multiplies a fragment the emulation keeps in no "
                           "per-thread slot");
  // The products themselves: one function per fragment type, called from
  // every mma.sync (64 products each, which inlined at every site made
  // most of an emulated library's code and compile time).
  SmallVector<Value> operands(std::begin(aFrags), std::end(aFrags));
  for (int64_t col = 0; col < 2; ++col)
    llvm::append_range(operands, bFrags[col]);
  operands.push_back(lookup(inner, local, tid, mma.getMatrixC()));
  func::FuncOp products = mmaProducts(mma);
  Value result =
      func::CallOp::create(inner, l, products, operands).getResult(0);
  memref::StoreOp::create(inner, l, result, scratchFor(mma.getRes()), tid);
  return success();
}

/// `@tfm_emulated_mma_<type>(a[4], b[2][4], c) -> d`: the four elements of
/// D = A B + C that one lane of an m16n8k16 product holds, from the A
/// fragments of the four lanes that hold its rows (lanes 4g + q) and the B
/// fragments of the eight that hold its columns (lanes 4 (2t + c) + q), in
/// PTX's k order.
func::FuncOp LaunchEmulator::mmaProducts(nvgpu::MmaSyncOp mma) {
  VectorType aType = mma.getMatrixA().getType();
  VectorType bType = mma.getMatrixB().getType();
  VectorType cType = mma.getMatrixC().getType();
  auto module = launch->getParentOfType<ModuleOp>();
  std::string name = "tfm_emulated_mma_m16n8k16_";
  llvm::raw_string_ostream(name) << aType.getElementType();
  if (auto existing = module.lookupSymbol<func::FuncOp>(name))
    return existing;
  SmallVector<Type> inputs(4, aType);
  inputs.append(8, bType);
  inputs.push_back(cType);
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  Location l = mma.getLoc();
  auto fn = func::FuncOp::create(
      b, l, name, b.getFunctionType(inputs, TypeRange{cType}));
  fn.setPrivate();
  // One copy of the code, not one per call site.
  fn->setAttr("llvm.no_inline", b.getUnitAttr());
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToStart(entry);
  ValueRange args = entry->getArguments();
  Type f32 = b.getF32Type();
  SmallVector<Value> d;
  for (int64_t r = 0; r < 2; ++r)
    for (int64_t col = 0; col < 2; ++col) {
      Value acc =
          vector::ExtractOp::create(b, l, args[12], ArrayRef<int64_t>{r, col});
      for (int64_t k = 0; k < 16; ++k) {
        int64_t q = (k % 8) / 2;
        Value a = vector::ExtractOp::create(
            b, l, args[q], ArrayRef<int64_t>{r + 2 * (k / 8), k % 2});
        Value bv = vector::ExtractOp::create(b, l, args[4 + 4 * col + q],
                                             ArrayRef<int64_t>{k / 8, k % 2});
        Value product =
            arith::MulFOp::create(b, l, arith::ExtFOp::create(b, l, f32, a),
                                  arith::ExtFOp::create(b, l, f32, bv));
        acc = arith::AddFOp::create(b, l, acc, product);
      }
      d.push_back(acc);
    }
  Value result = vector::FromElementsOp::create(b, l, cType, d);
  func::ReturnOp::create(b, l, result);
  return fn;
}

bool LaunchEmulator::wholeWarps() {
  std::optional<int64_t> x = getConstantIntValue(blockSize[0]);
  std::optional<int64_t> y = getConstantIntValue(blockSize[1]);
  std::optional<int64_t> z = getConstantIntValue(blockSize[2]);
  return x && y && z && (*x * *y * *z) % 32 == 0;
}

/// ldmatrix (x1, x2 or x4 8 x 8 matrices of 16-bit elements) is a cut like
/// a shuffle, then one thread loop: lane 4g + t takes, from each matrix i,
/// the elements 2t and 2t + 1 of the row whose address lane 8i + g named
/// (its indices, from that lane's slots); transposed (.trans), element g
/// of the rows lanes 8i + 2t and 8i + 2t + 1 named.
LogicalResult LaunchEmulator::emitLdMatrix(OpBuilder &b,
                                           nvgpu::LdMatrixOp load) {
  auto type = cast<VectorType>(load.getRes().getType());
  int64_t tiles = load.getNumTiles();
  bool transpose = load.getTranspose();
  if (type.getRank() != 2 || type.getDimSize(0) != tiles ||
      type.getDimSize(1) != 2 || type.getElementTypeBitWidth() != 16)
    return load.emitOpError("has no host emulation: the emulation models "
                            "ldmatrix of 16-bit 8 x 8 matrices");
  if (!wholeWarps())
    return load.emitOpError("runs in a block that is not a constant number "
                            "of whole warps; ldmatrix needs every lane");
  // Named, not bound: the lambdas below capture them.
  std::pair<OpBuilder, Value> loops = threadLoops(b);
  OpBuilder &inner = loops.first;
  Value tid = loops.second;
  IRMapping local;
  Location l = load.getLoc();
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(inner, l, v);
  };
  Value lane = arith::RemUIOp::create(inner, l, tid, index(32));
  Value base = arith::SubIOp::create(inner, l, tid, lane);
  Value group = arith::DivUIOp::create(inner, l, lane, index(4));
  Value pair = arith::MulIOp::create(
      inner, l, arith::RemUIOp::create(inner, l, lane, index(4)), index(2));
  Value memref = lookup(inner, local, tid, load.getSrcMemref());
  SmallVector<Value> elements;
  for (int64_t i = 0; i < tiles; ++i) {
    for (int64_t e = 0; e < 2; ++e) {
      // The lane that named the row, and the column in it.
      Value rowLane =
          transpose ? arith::AddIOp::create(inner, l, pair, index(e)) : group;
      Value columnOffset =
          transpose ? group : arith::AddIOp::create(inner, l, pair, index(e));
      Value owner = arith::AddIOp::create(
          inner, l, base,
          arith::AddIOp::create(inner, l, rowLane, index(8 * i)));
      SmallVector<Value> indices;
      for (Value v : load.getIndices()) {
        if (isUniform(v)) {
          indices.push_back(uniformValue(v));
          continue;
        }
        auto it = scratch.find(v);
        if (it == scratch.end())
          return load.emitOpError("reads at an index the emulation keeps in "
                                  "no per-thread slot");
        indices.push_back(memref::LoadOp::create(inner, l, it->second, owner));
      }
      indices.back() =
          arith::AddIOp::create(inner, l, indices.back(), columnOffset);
      elements.push_back(memref::LoadOp::create(inner, l, memref, indices));
    }
  }
  Value result = vector::FromElementsOp::create(inner, l, type, elements);
  memref::StoreOp::create(inner, l, result, scratchFor(load.getRes()), tid);
  return success();
}

LogicalResult LaunchEmulator::emitBlock(OpBuilder &b, Block &src) {
  SmallVector<Operation *> segment;
  for (Operation &op : src.without_terminator()) {
    if (isa<gpu::BarrierOp>(op)) {
      emitSegment(b, src, segment);
      segment.clear();
      continue;
    }
    if (auto shuffle = dyn_cast<gpu::ShuffleOp>(op)) {
      emitSegment(b, src, segment);
      segment.clear();
      if (failed(emitShuffle(b, shuffle)))
        return failure();
      continue;
    }
    if (auto mma = dyn_cast<nvgpu::MmaSyncOp>(op)) {
      emitSegment(b, src, segment);
      segment.clear();
      if (failed(emitMma(b, mma)))
        return failure();
      continue;
    }
    if (auto load = dyn_cast<nvgpu::LdMatrixOp>(op)) {
      emitSegment(b, src, segment);
      segment.clear();
      if (failed(emitLdMatrix(b, load)))
        return failure();
      continue;
    }
    if (containsSync(&op)) {
      auto loop = dyn_cast<scf::ForOp>(op);
      if (!loop)
        return op.emitOpError(
            "holds a barrier or a shuffle; the emulation runs them at the "
            "top level of a kernel or in scf.for loops with uniform bounds");
      emitSegment(b, src, segment);
      segment.clear();
      if (failed(emitSyncLoop(b, loop)))
        return failure();
      continue;
    }
    bool isUniformOp =
        op.getNumRegions() == 0 &&
        ((isMemoryEffectFree(&op) &&
          llvm::all_of(op.getOperands(),
                       [&](Value v) { return isUniform(v); })) ||
         isReadOnlyLoad(op));
    if (isUniformOp) {
      // Once per block, before the segment that uses it.
      stripWorkgroupSpace(b.clone(op, uniform));
      continue;
    }
    segment.push_back(&op);
  }
  emitSegment(b, src, segment);
  return success();
}

void LaunchEmulator::poison(OpBuilder &b, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  auto elementType = dyn_cast<FloatType>(type.getElementType());
  if (!elementType)
    return;
  Value nan = arith::ConstantOp::create(
      b, loc, FloatAttr::get(elementType,
                             APFloat::getQNaN(elementType.getFloatSemantics())));
  OpBuilder inner = b;
  SmallVector<Value> ivs;
  for (int64_t size : type.getShape()) {
    Value ub = arith::ConstantIndexOp::create(inner, loc, size);
    auto loop = scf::ForOp::create(inner, loc, zero, ub, one);
    ivs.push_back(loop.getInductionVar());
    inner.setInsertionPoint(loop.getBody()->getTerminator());
  }
  memref::StoreOp::create(inner, loc, nan, buffer, ivs);
}

LogicalResult LaunchEmulator::run() {
  if (failed(check()))
    return failure();
  rw.setInsertionPoint(launch);
  zero = arith::ConstantIndexOp::create(rw, loc, 0);
  one = arith::ConstantIndexOp::create(rw, loc, 1);
  gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
  gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
  blockSize[0] = block.x;
  blockSize[1] = block.y;
  blockSize[2] = block.z;
  gpu::KernelDim3 threadIds = launch.getThreadIds();
  threadArgs[0] = threadIds.x;
  threadArgs[1] = threadIds.y;
  threadArgs[2] = threadIds.z;
  numThreads = arith::MulIOp::create(rw, loc, block.x, block.y);
  numThreads = arith::MulIOp::create(rw, loc, numThreads, block.z);

  // Workgroup buffers: host memory for the whole launch.
  SmallVector<Value> workgroup;
  for (BlockArgument arg : launch.getWorkgroupAttributions()) {
    auto type = cast<MemRefType>(arg.getType());
    auto host = MemRefType::get(type.getShape(), type.getElementType());
    Value buffer = memref::AllocOp::create(rw, loc, host);
    hostBuffers.push_back(buffer);
    workgroup.push_back(buffer);
    uniform.map(arg, buffer);
  }

  // Outermost first: block z, y, x.
  Value gridBounds[3] = {grid.z, grid.y, grid.x};
  Value blockIvs[3];
  OpBuilder b = rw;
  for (int i = 0; i < 3; ++i) {
    auto loop = scf::ForOp::create(b, loc, zero, gridBounds[i], one);
    if (i == 0) // Scratch buffers go before the block loops.
      launchLevel.setInsertionPoint(loop);
    blockIvs[i] = loop.getInductionVar();
    b.setInsertionPoint(loop.getBody()->getTerminator());
  }
  gpu::KernelDim3 blockIds = launch.getBlockIds();
  gpu::KernelDim3 gridArgs = launch.getGridSize();
  gpu::KernelDim3 blockArgs = launch.getBlockSize();
  uniform.map(blockIds.z, blockIvs[0]);
  uniform.map(blockIds.y, blockIvs[1]);
  uniform.map(blockIds.x, blockIvs[2]);
  uniform.map(gridArgs.x, grid.x);
  uniform.map(gridArgs.y, grid.y);
  uniform.map(gridArgs.z, grid.z);
  uniform.map(blockArgs.x, block.x);
  uniform.map(blockArgs.y, block.y);
  uniform.map(blockArgs.z, block.z);
  for (Value buffer : workgroup)
    poison(b, buffer);

  if (failed(emitBlock(b, launch.getBody().front())))
    return failure();

  rw.setInsertionPointAfter(launch);
  for (Value buffer : hostBuffers)
    memref::DeallocOp::create(rw, loc, buffer);
  rw.eraseOp(launch);
  return success();
}

/// cp.async on the host: each nvgpu.device_async_copy becomes the copy it
/// describes, done at once by the thread that issues it (`dstElements`
/// elements, the first `srcElements` read from the source and the rest
/// zero); its groups and waits go. The kernel's barrier after the wait is
/// what makes the copies visible to the other threads, on the GPU as in
/// the emulation.
void lowerAsyncCopies(IRRewriter &rw, gpu::LaunchOp launch) {
  SmallVector<Operation *> waits, groups;
  SmallVector<nvgpu::DeviceAsyncCopyOp> copies;
  launch.getBody().walk([&](Operation *op) {
    if (isa<nvgpu::DeviceAsyncWaitOp>(op))
      waits.push_back(op);
    else if (isa<nvgpu::DeviceAsyncCreateGroupOp>(op))
      groups.push_back(op);
    else if (auto copy = dyn_cast<nvgpu::DeviceAsyncCopyOp>(op))
      copies.push_back(copy);
  });
  for (Operation *op : llvm::concat<Operation *>(waits, groups))
    rw.eraseOp(op);
  for (nvgpu::DeviceAsyncCopyOp copy : copies) {
    rw.setInsertionPoint(copy);
    Location loc = copy.getLoc();
    Type element = copy.getDst().getType().getElementType();
    Value zero = arith::ConstantOp::create(rw, loc, rw.getZeroAttr(element));
    int64_t count = copy.getDstElements().getZExtValue();
    Value read = copy.getSrcElements();
    SmallVector<Value> src(copy.getSrcIndices()), dst(copy.getDstIndices());
    Value srcLast = src.back(), dstLast = dst.back();
    for (int64_t e = 0; e < count; ++e) {
      Value offset = arith::ConstantIndexOp::create(rw, loc, e);
      src.back() = arith::AddIOp::create(rw, loc, srcLast, offset);
      dst.back() = arith::AddIOp::create(rw, loc, dstLast, offset);
      Value value = zero;
      if (read) {
        Value inside = arith::CmpIOp::create(rw, loc, arith::CmpIPredicate::slt,
                                             offset, read);
        auto guarded = scf::IfOp::create(
            rw, loc, inside,
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(
                  b, l,
                  ValueRange{memref::LoadOp::create(b, l, copy.getSrc(), src)});
            },
            [&](OpBuilder &b, Location l) {
              scf::YieldOp::create(b, l, ValueRange{zero});
            });
        value = guarded.getResult(0);
      } else {
        value = memref::LoadOp::create(rw, loc, copy.getSrc(), src);
      }
      memref::StoreOp::create(rw, loc, value, copy.getDst(), dst);
    }
    rw.eraseOp(copy);
  }
}

/// Moves the host code that emulates one launch, the ops [begin, end) of
/// their block, into a private function of its own (marked
/// tfm.emulated_kernel, named after the model op the launch computed),
/// called in their place: the values they read from outside become the
/// function's arguments, the constants among them are copied in. Two
/// launches of the same kernel then are two calls of equal functions,
/// which -tfm-gpu-dedup-kernels merges, as it merges a GPU build's kernels.
/// (After the emulation, not before: which loads are uniform depends on
/// which buffers may alias, which the launch's own function knows.)
void outlineEmulation(IRRewriter &rw, Location loc, Block::iterator begin,
                      Block::iterator end, SymbolTable &symbols) {
  llvm::SmallPtrSet<Operation *, 32> inside;
  for (Operation &op : llvm::make_range(begin, end))
    inside.insert(&op);
  if (inside.empty())
    return;
  auto isConstant = [](Operation *op) {
    return op && matchPattern(op, m_Constant());
  };
  SetVector<Value> captured;
  SetVector<Operation *> constants;
  for (Operation &op : llvm::make_range(begin, end)) {
    SetVector<Value> used(op.operand_begin(), op.operand_end());
    getUsedValuesDefinedAbove(op.getRegions(), used);
    for (Value v : used) {
      Operation *def = v.getDefiningOp();
      if (def && inside.contains(def))
        continue;
      if (isConstant(def))
        constants.insert(def);
      else
        captured.insert(v);
    }
    for (Value result : op.getResults())
      for (Operation *user : result.getUsers())
        if (!inside.contains(begin->getBlock()->findAncestorOpInBlock(*user)))
          return; // a value leaves the emulation: left where it is
  }
  Operation *first = &*begin;
  // At the module's end: the functions follow the order of the launches.
  auto module = first->getParentOfType<ModuleOp>();
  auto b = OpBuilder::atBlockEnd(module.getBody());
  // Unique among the module's symbols: name, name_1, ...
  std::string base = mlir::tfm::kernelBaseName(loc);
  if (base.empty())
    base = "kernel";
  std::string name = base;
  for (unsigned i = 1; symbols.lookup(name); ++i)
    name = base + "_" + std::to_string(i);
  auto fn = func::FuncOp::create(
      b, loc, name,
      b.getFunctionType(ValueRange(captured.getArrayRef()).getTypes(), {}));
  fn.setPrivate();
  fn->setAttr(mlir::tfm::kEmulatedKernelAttr, b.getUnitAttr());
  symbols.insert(fn);
  Block *entry = fn.addEntryBlock();
  IRMapping map;
  map.map(captured.getArrayRef(), entry->getArguments());
  b.setInsertionPointToStart(entry);
  for (Operation *op : constants)
    b.clone(*op, map);
  SmallVector<Operation *> ops;
  for (Operation &op : llvm::make_range(begin, end)) {
    b.clone(op, map);
    ops.push_back(&op);
  }
  func::ReturnOp::create(b, loc);
  rw.setInsertionPoint(first);
  func::CallOp::create(rw, loc, fn, captured.getArrayRef());
  for (Operation *op : llvm::reverse(ops))
    rw.eraseOp(op);
}

struct GPUEmulatePass
    : mlir::tfm::impl::GPUEmulatePassBase<GPUEmulatePass> {
  using Base::Base;
  GPUEmulatePass(const GPUEmulatePass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation()->walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    IRRewriter rw(&getContext());
    SymbolTable symbols(getOperation());
    for (gpu::LaunchOp launch : launches) {
      lowerAsyncCopies(rw, launch);
      // The emulation goes where the launch was: between these two.
      Block *block = launch->getBlock();
      Operation *before = launch->getPrevNode();
      Block::iterator end = std::next(launch->getIterator());
      Location loc = launch.getLoc();
      LaunchEmulator emulator(rw, launch);
      if (failed(emulator.run()))
        return signalPassFailure();
      Block::iterator begin =
          before ? std::next(before->getIterator()) : block->begin();
      outlineEmulation(rw, loc, begin, end, symbols);
      ++emulated;
      segments += emulator.segmentCount();
    }
    // The alignment a kernel's vector accesses state is the device
    // buffers' (the runtime's allocations and weight layout, 256 bytes);
    // the host's weights can sit at any 8-byte offset of a safetensors
    // file: the emulation loads and stores unaligned.
    getOperation()->walk([](Operation *op) {
      if (isa<vector::LoadOp, vector::StoreOp>(op))
        op->removeAttr("alignment");
    });
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

  mlir::tfm::PassStatistic emulated{this, numEmulated, "emulated-launches",
                              "gpu.launch ops turned into host loop nests"};
  mlir::tfm::PassStatistic segments{
      this, numSegments, "thread-segments",
      "Thread loop nests (a kernel has one more per barrier it passes)"};
};

} // namespace
