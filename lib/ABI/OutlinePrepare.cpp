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
    func::FuncOp entry;
    for (auto f : module.getOps<func::FuncOp>())
      if (f->hasAttr(kEntryAttr))
        entry = f;
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
      if (failed(check(op, entry)))
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
    outline(module, entry, marked, roots);
  }

private:
  LogicalResult check(Operation *op, func::FuncOp entry);
  void outline(ModuleOp module, func::FuncOp entry,
               ArrayRef<Operation *> marked, ArrayRef<Operation *> roots);

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
LogicalResult OutlinePreparePass::check(Operation *op, func::FuncOp entry) {
  auto name = op->getAttrOfType<StringAttr>(kPrepareAttr);
  if (!name || name.getValue().empty())
    return op->emitOpError("'")
           << kPrepareAttr << "' must be a non-empty string (the prepared "
           << "tensor's name)";
  if (!entry || op->getParentOp() != entry)
    return op->emitOpError("is marked '")
           << kPrepareAttr << "' but is not at the top level of the '"
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

void OutlinePreparePass::outline(ModuleOp module, func::FuncOp entry,
                                 ArrayRef<Operation *> marked,
                                 ArrayRef<Operation *> roots) {
  MLIRContext *ctx = module.getContext();
  OpBuilder b(ctx);
  Location loc = entry.getLoc();

  // The union of the roots' slices, in entry order (a topological order).
  SetVector<Operation *> slice;
  for (Operation *op : roots)
    (void)readSlice(op, slice); // check() computed each already

  SmallVector<Operation *> ordered(slice.begin(), slice.end());
  llvm::sort(ordered, [](Operation *a, Operation *c) {
    return a->isBeforeInBlock(c);
  });

  SmallVector<Type> resultTypes;
  for (Operation *op : roots)
    resultTypes.push_back(op->getResult(0).getType());
  b.setInsertionPoint(entry);
  auto prepare = func::FuncOp::create(b, loc, kPrepareFunction,
                                      b.getFunctionType({}, resultTypes));
  prepare->setAttr(kPrepareAttr, b.getUnitAttr());
  Block *body = prepare.addEntryBlock();
  b.setInsertionPointToStart(body);
  IRMapping mapping;
  for (Operation *op : ordered) {
    Operation *clone = b.clone(*op, mapping);
    clone->removeAttr(kPrepareAttr);
  }
  SmallVector<Value> results;
  for (auto [i, op] : llvm::enumerate(roots)) {
    results.push_back(mapping.lookup(op->getResult(0)));
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
  for (Operation *op : marked)
    op->erase();
  for (Operation *op : llvm::reverse(ordered))
    if (!erased.contains(op) && op->use_empty())
      op->erase();
  outlined += roots.size();
}

} // namespace
