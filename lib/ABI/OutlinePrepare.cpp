//===- OutlinePrepare.cpp - weight computations into @tfm_prepare ---------===//
//
// -tfm-outline-prepare: the ops of the entry function marked `tfm.prepare`
// (packed weight layouts from -tfm-pack-weights) are computed once per model
// instance in @tfm_prepare; the entry reads their results as prepared
// weights. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"
#include "tfm/ABI/Passes.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_OUTLINEPREPAREPASS
#include "tfm/ABI/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

using namespace mlir::tfm::abi;

struct OutlinePreparePass
    : tfm::impl::OutlinePreparePassBase<OutlinePreparePass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  OutlinePreparePass(const OutlinePreparePass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The model's entry functions (forward and the generation step) share
    // the prepared tensors: one name, one tensor.
    llvm::SmallPtrSet<Operation *, 2> entries;
    for (auto f : module.getOps<func::FuncOp>())
      if (f->hasAttr(kEntryAttr))
        entries.insert(f);
    SmallVector<Operation *> marked;
    module.walk([&](Operation *op) {
      if (op->hasAttr(kPrepareAttr))
        marked.push_back(op);
    });
    if (marked.empty())
      return;
    if (module.lookupSymbol(kPrepareFunction)) {
      module.emitError("a symbol named '")
          << kPrepareFunction << "' exists already; -tfm-outline-prepare "
          << "makes it";
      return signalPassFailure();
    }
    // One result per distinct name: two marked ops with one name compute
    // the same tensor (the first is the root that is outlined).
    llvm::StringMap<Operation *> byName;
    SmallVector<Operation *> roots;
    for (Operation *op : marked) {
      if (failed(check(op, entries)))
        return signalPassFailure();
      auto name = op->getAttrOfType<StringAttr>(kPrepareAttr);
      auto [it, inserted] = byName.try_emplace(name.getValue(), op);
      if (inserted) {
        roots.push_back(op);
        continue;
      }
      if (it->second->getResult(0).getType() != op->getResult(0).getType()) {
        op->emitOpError("computes the prepared tensor '")
            << name.getValue() << "' as " << op->getResult(0).getType()
            << "; another op computes it as "
            << it->second->getResult(0).getType();
        return signalPassFailure();
      }
    }
    outline(module, marked, roots);
  }

private:
  LogicalResult check(Operation *op,
                      const llvm::SmallPtrSetImpl<Operation *> &entries);
  void outline(ModuleOp module, ArrayRef<Operation *> marked,
               ArrayRef<Operation *> roots);

  tfm::PassStatistic outlined{this, numOutlined, "outlined",
                              "Tensors moved into @tfm_prepare"};
};

/// Adds `op` and every op it reads, its regions' reads from outside
/// included, to `slice`.
LogicalResult readSlice(Operation *op, SetVector<Operation *> &slice) {
  BackwardSliceOptions options;
  options.inclusive = true;
  options.omitUsesFromAbove = false;
  return getBackwardSlice(op, &slice, options);
}

/// What a marked op may read: weights and side-effect-free ops on them,
/// outside any region (the entry's body, top level).
LogicalResult
OutlinePreparePass::check(Operation *op,
                          const llvm::SmallPtrSetImpl<Operation *> &entries) {
  auto name = op->getAttrOfType<StringAttr>(kPrepareAttr);
  if (!name || name.getValue().empty())
    return op->emitOpError("'")
           << kPrepareAttr << "' must be a non-empty string (the prepared "
           << "tensor's name)";
  auto entry = dyn_cast<func::FuncOp>(op->getParentOp());
  if (!entry || !entries.contains(entry))
    return op->emitOpError("is marked '")
           << kPrepareAttr << "' but is not at the top level of a '"
           << kEntryAttr << "' function";
  if (op->getNumResults() != 1 ||
      !isa<RankedTensorType>(op->getResult(0).getType()) ||
      !cast<RankedTensorType>(op->getResult(0).getType()).hasStaticShape())
    return op->emitOpError("is marked '")
           << kPrepareAttr << "' but does not have one statically shaped "
           << "tensor result";
  SetVector<Operation *> slice;
  if (failed(readSlice(op, slice)))
    return op->emitOpError("cannot compute what '")
           << kPrepareAttr << "' op reads";
  for (Operation *s : slice) {
    // `op` is at the entry's top level, so is everything it reads.
    assert(s->getParentOp() == entry && "a read from inside a region");
    if (auto w = dyn_cast<WeightOp>(s); w && w.getPrepared())
      return op->emitOpError("is marked '")
             << kPrepareAttr << "' but reads the prepared weight '"
             << w.getName() << "'";
    if (!isa<WeightOp>(s) && !isMemoryEffectFree(s))
      return op->emitOpError("is marked '")
             << kPrepareAttr << "' but reads '" << s->getName()
             << "', which has side effects";
    SetVector<Value> read(s->operand_begin(), s->operand_end());
    getUsedValuesDefinedAbove(s->getRegions(), read);
    for (Value v : read)
      if (auto arg = dyn_cast<BlockArgument>(v);
          arg && arg.getOwner() == &entry.front())
        return op->emitOpError("is marked '")
               << kPrepareAttr << "' but depends on an input of the entry "
               << "function, not on weights alone";
  }
  return success();
}

void OutlinePreparePass::outline(ModuleOp module,
                                 ArrayRef<Operation *> marked,
                                 ArrayRef<Operation *> roots) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  auto firstEntry = roots.front()->getParentOfType<func::FuncOp>();
  Location loc = firstEntry.getLoc();

  // Per entry function, the union of its roots' slices in its order (a
  // topological order).
  llvm::MapVector<Operation *, SmallVector<Operation *>> rootsOf;
  for (Operation *op : roots)
    rootsOf[op->getParentOp()].push_back(op);
  llvm::MapVector<Operation *, SmallVector<Operation *>> orderedOf;
  for (auto &[f, fRoots] : rootsOf) {
    SetVector<Operation *> slice;
    for (Operation *op : fRoots)
      (void)readSlice(op, slice); // check() computed each already
    SmallVector<Operation *> ordered(slice.begin(), slice.end());
    llvm::sort(ordered, [](Operation *a, Operation *c) {
      return a->isBeforeInBlock(c);
    });
    orderedOf[f] = std::move(ordered);
  }

  SmallVector<Type> resultTypes;
  for (Operation *op : roots)
    resultTypes.push_back(op->getResult(0).getType());
  b.setInsertionPoint(firstEntry);
  auto prepare = func::FuncOp::create(b, loc, kPrepareFunction,
                                      b.getFunctionType({}, resultTypes));
  prepare->setAttr(kPrepareAttr, b.getUnitAttr());
  Block *body = prepare.addEntryBlock();
  b.setInsertionPointToStart(body);
  DenseMap<Operation *, Value> computed;
  for (auto &[f, ordered] : orderedOf) {
    IRMapping mapping;
    for (Operation *op : ordered) {
      Operation *clone = b.clone(*op, mapping);
      clone->removeAttr(kPrepareAttr);
    }
    for (Operation *op : rootsOf[f])
      computed[op] = mapping.lookup(op->getResult(0));
  }
  SmallVector<Value> results;
  for (auto [i, op] : llvm::enumerate(roots)) {
    results.push_back(computed.lookup(op));
    prepare.setResultAttr(
        i, kPreparedNameAttr,
        b.getStringAttr(
            op->getAttrOfType<StringAttr>(kPrepareAttr).getValue()));
  }
  func::ReturnOp::create(b, loc, results);

  // In the entry: prepared weights instead of the marked ops; the ops they
  // read go when nothing else reads them.
  for (Operation *op : marked) {
    b.setInsertionPoint(op);
    auto name = op->getAttrOfType<StringAttr>(kPrepareAttr);
    Value w = WeightOp::create(b, op->getLoc(), op->getResult(0).getType(),
                               name, b.getUnitAttr());
    op->getResult(0).replaceAllUsesWith(w);
  }
  llvm::SmallPtrSet<Operation *, 8> erased(marked.begin(), marked.end());
  // What every marked op read (not only the roots: a second function's
  // copy of a prepared tensor reads its own weights), users first.
  llvm::MapVector<Operation *, SetVector<Operation *>> readOf;
  for (Operation *op : marked)
    (void)readSlice(op, readOf[op->getParentOp()]);
  SmallVector<Operation *> dead;
  for (auto &[f, read] : readOf) {
    SmallVector<Operation *> ordered;
    for (Operation *op : read)
      if (!erased.contains(op))
        ordered.push_back(op);
    llvm::sort(ordered, [](Operation *a, Operation *c) {
      return a->isBeforeInBlock(c);
    });
    dead.append(ordered.rbegin(), ordered.rend());
  }
  for (Operation *op : marked)
    op->erase();
  for (Operation *op : dead)
    if (op->use_empty())
      op->erase();
  outlined += roots.size();
}

} // namespace
