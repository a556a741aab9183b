//===- GPUDedupKernels.cpp - one kernel per distinct code -----------------===//
//
// -tfm-gpu-dedup-kernels: the layers of a Transformer repeat the same ops on
// tensors of the same shapes, so most of a model's kernels are copies of
// the kernels of its first layer (a 32-layer LLaMA: about 1,100 kernels, of
// which a few dozen differ). This pass keeps one kernel of each distinct
// code and points every launch of a copy at it; the NVVM lowering, LLVM,
// ptxas and the driver's module load then see each kernel once, and the
// emulation's host code (-tfm-gpu-emulate) shrinks the same way.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/StringSet.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPUDEDUPKERNELSPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// A cheap fingerprint of a kernel's code that equal kernels share: its
/// type, and the names and result types of its ops in order.
llvm::hash_code fingerprint(FunctionOpInterface fn) {
  llvm::hash_code h = hash_value(fn.getFunctionType());
  fn->walk([&](Operation *op) {
    if (op == fn.getOperation())
      return;
    h = llvm::hash_combine(h, op->getName(), op->getNumOperands(),
                           op->getNumRegions());
    for (Type t : op->getResultTypes())
      h = llvm::hash_combine(h, t);
  });
  return h;
}

/// Whether `a` and `b` are the same kernel up to their names and the
/// locations of their ops: same attributes (block sizes, workgroup
/// buffers, ...), same body.
bool sameCode(FunctionOpInterface a, FunctionOpInterface b) {
  StringAttr name = SymbolTable::getSymbolName(b);
  SymbolTable::setSymbolName(b, SymbolTable::getSymbolName(a));
  bool same = OperationEquivalence::isEquivalentTo(
      a, b, OperationEquivalence::IgnoreLocations);
  SymbolTable::setSymbolName(b, name);
  return same;
}

/// The name of a kernel that several ops share: their kernels' names with
/// each run of digits that differs between them replaced by `N`
/// (layers_0_attn_q_1, layers_1_attn_q_1 -> layers_N_attn_q_1), or the
/// first name when they differ otherwise.
std::string sharedName(ArrayRef<FunctionOpInterface> group) {
  SmallVector<std::string> owned;
  for (FunctionOpInterface fn : group)
    owned.push_back(fn.getName().str());
  SmallVector<StringRef> names(owned.begin(), owned.end());
  // Digit runs and the text between them.
  auto split = [](StringRef name) {
    SmallVector<StringRef> parts;
    while (!name.empty()) {
      bool digits = llvm::isDigit(name.front());
      size_t n = 1;
      while (n < name.size() && bool(llvm::isDigit(name[n])) == digits)
        ++n;
      parts.push_back(name.take_front(n));
      name = name.drop_front(n);
    }
    return parts;
  };
  SmallVector<StringRef> first = split(names.front());
  SmallVector<bool> differs(first.size(), false);
  for (StringRef other : ArrayRef(names).drop_front()) {
    SmallVector<StringRef> parts = split(other);
    if (parts.size() != first.size())
      return names.front().str();
    for (auto [i, part] : llvm::enumerate(parts)) {
      if (part == first[i])
        continue;
      if (!llvm::isDigit(part.front()) || !llvm::isDigit(first[i].front()))
        return names.front().str();
      differs[i] = true;
    }
  }
  std::string out;
  for (auto [i, part] : llvm::enumerate(first))
    out += differs[i] ? StringRef("N") : part;
  return out;
}

/// Whether kernels `a` and `b` live where one can stand for the other: in
/// one kernel module, or each alone in a module of the same targets.
bool samePlace(FunctionOpInterface a, FunctionOpInterface b) {
  Operation *ma = a->getParentOp(), *mb = b->getParentOp();
  if (ma == mb)
    return true;
  auto ga = dyn_cast<gpu::GPUModuleOp>(ma), gb = dyn_cast<gpu::GPUModuleOp>(mb);
  return ga && gb && llvm::hasSingleElement(ga.getOps()) &&
         llvm::hasSingleElement(gb.getOps()) &&
         ga.getTargetsAttr() == gb.getTargetsAttr() &&
         ga.getOffloadingHandlerAttr() == gb.getOffloadingHandlerAttr();
}

/// Groups of equal kernels among `candidates`, each led by the kernel that
/// stays, in the order of their first member.
SmallVector<SmallVector<FunctionOpInterface>>
equalKernels(ArrayRef<FunctionOpInterface> candidates) {
  SmallVector<SmallVector<FunctionOpInterface>> groups;
  DenseMap<llvm::hash_code, SmallVector<unsigned>> byPrint;
  for (FunctionOpInterface fn : candidates) {
    SmallVector<unsigned> &bucket = byPrint[fingerprint(fn)];
    auto it = llvm::find_if(bucket, [&](unsigned g) {
      FunctionOpInterface k = groups[g].front();
      return samePlace(k, fn) && sameCode(k, fn);
    });
    if (it != bucket.end()) {
      groups[*it].push_back(fn);
      continue;
    }
    bucket.push_back(groups.size());
    groups.push_back({fn});
  }
  return groups;
}

/// `name`, or `name_1`, `name_2`, ... : the first that `taken` lacks.
std::string uniqueName(StringRef name, const llvm::StringSet<> &taken) {
  std::string unique = name.str();
  for (unsigned i = 1; taken.contains(unique); ++i)
    unique = (name + "_" + Twine(i)).str();
  return unique;
}

/// The names of the symbols in `table`'s region.
llvm::StringSet<> symbolNames(Operation *table) {
  llvm::StringSet<> taken;
  for (Operation &op : table->getRegion(0).front())
    if (auto sym = dyn_cast<SymbolOpInterface>(&op))
      taken.insert(sym.getName());
  return taken;
}

/// Renames `symbol` to `name`, made unique among `taken` (the names of its
/// symbol table, its own included), and returns the new name.
StringAttr renameUnique(Operation *symbol, StringRef name,
                        llvm::StringSet<> &taken) {
  taken.erase(SymbolTable::getSymbolName(symbol).getValue());
  std::string unique = uniqueName(name, taken);
  taken.insert(unique);
  auto newName = StringAttr::get(symbol->getContext(), unique);
  SymbolTable::setSymbolName(symbol, newName);
  return newName;
}

struct GPUDedupKernelsPass
    : mlir::tfm::impl::GPUDedupKernelsPassBase<GPUDedupKernelsPass> {
  using Base::Base;
  GPUDedupKernelsPass(const GPUDedupKernelsPass &other) : Base(other) {}

  void runOnOperation() override {
    dedupDeviceKernels();
    dedupEmulatedKernels();
  }

  /// gpu.func kernels, in one kernel module or each in its own
  /// (tfmc --emit=ptx keeps one module per kernel: a copy's module goes
  /// with it, and the kept kernel's module takes its new name too).
  void dedupDeviceKernels() {
    ModuleOp module = getOperation();
    SmallVector<FunctionOpInterface> candidates;
    for (auto kernels : module.getOps<gpu::GPUModuleOp>())
      for (auto fn : kernels.getOps<gpu::GPUFuncOp>())
        if (fn.isKernel())
          candidates.push_back(fn);
    // What each launch's (module, kernel) launches now (its name read once
    // every kernel has its final one).
    llvm::StringMap<FunctionOpInterface> launches;
    auto key = [](StringRef module, StringRef kernel) {
      return (module + "::" + kernel).str();
    };
    llvm::StringSet<> topNames = symbolNames(module);
    for (SmallVector<FunctionOpInterface> &group : equalKernels(candidates)) {
      if (group.size() < 2)
        continue;
      FunctionOpInterface kept = group.front();
      for (FunctionOpInterface fn : group)
        launches[key(SymbolTable::getSymbolName(fn->getParentOp()),
                     fn.getName())] = kept;
      std::string name = sharedName(group);
      auto keptModule = cast<gpu::GPUModuleOp>(kept->getParentOp());
      bool alone = keptModule != group[1]->getParentOp();
      for (FunctionOpInterface copy : ArrayRef(group).drop_front()) {
        ++merged;
        Operation *gone = alone ? copy->getParentOp() : copy.getOperation();
        if (alone)
          topNames.erase(SymbolTable::getSymbolName(gone).getValue());
        gone->erase();
      }
      if (name == kept.getName())
        continue;
      if (alone) {
        StringAttr newName = renameUnique(keptModule, name, topNames);
        SymbolTable::setSymbolName(kept, newName);
      } else {
        llvm::StringSet<> localNames = symbolNames(keptModule);
        renameUnique(kept, name, localNames);
      }
    }
    if (launches.empty())
      return;
    module.walk([&](gpu::LaunchFuncOp launch) {
      FunctionOpInterface kernel = launches.lookup(
          key(launch.getKernelModuleName(), launch.getKernelName()));
      if (!kernel)
        return;
      launch.setKernelAttr(SymbolRefAttr::get(
          SymbolTable::getSymbolName(kernel->getParentOp()),
          {FlatSymbolRefAttr::get(SymbolTable::getSymbolName(kernel))}));
    });
  }

  /// The emulation's host functions (-tfm-gpu-emulate), called by name from
  /// func.call ops (rewritten in one walk, not one per merged function).
  void dedupEmulatedKernels() {
    ModuleOp module = getOperation();
    SmallVector<FunctionOpInterface> candidates;
    for (auto fn : module.getOps<func::FuncOp>())
      if (fn->hasAttr(mlir::tfm::kEmulatedKernelAttr) && fn.isPrivate())
        candidates.push_back(fn);
    llvm::StringMap<FunctionOpInterface> calls;
    llvm::StringSet<> taken = symbolNames(module);
    for (SmallVector<FunctionOpInterface> &group : equalKernels(candidates)) {
      if (group.size() < 2)
        continue;
      FunctionOpInterface kept = group.front();
      for (FunctionOpInterface fn : group)
        calls[fn.getName()] = kept;
      std::string name = sharedName(group);
      for (FunctionOpInterface copy : ArrayRef(group).drop_front()) {
        ++merged;
        taken.erase(copy.getName());
        copy->erase();
      }
      if (name != kept.getName())
        renameUnique(kept, name, taken);
    }
    if (calls.empty())
      return;
    module.walk([&](func::CallOp call) {
      if (FunctionOpInterface fn = calls.lookup(call.getCallee()))
        call.setCallee(fn.getName());
    });
  }

  mlir::tfm::PassStatistic merged{
      this, numMerged, "merged-kernels",
      "Kernels whose launches now run an equal kernel"};
};

} // namespace
