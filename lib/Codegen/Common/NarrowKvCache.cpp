//===- NarrowKvCache.cpp - a 16-bit KV cache under a 16-bit precision -----===//
//
// -tfm-narrow-kv-cache: with a bf16 or f16 precision, the generation steps'
// KV cache arguments take that element type. Each tfm.cache_append then
// rounds what it writes, and each tfm.attention reads 16-bit keys and
// values: the numbers -tfm-apply-precision would round the f32 cache to at
// every read, stored once. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_NARROWKVCACHEPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The values of a cache argument's chains and what reads them.
struct CacheUses {
  /// The argument and every value derived from it by tfm.cache_append
  /// (as the cache) and tensor.extract_slice, in def-before-use order.
  SmallVector<Value> chain;
  /// Whether a tfm.cache_append writes into the chain.
  bool appended = false;
  /// Whether a tfm.attention reads the chain as keys or values.
  bool attended = false;
  /// The first reader that is none of those (nor tensor.dim nor the
  /// function's return).
  Operation *other = nullptr;
};

CacheUses collectUses(BlockArgument arg) {
  CacheUses uses;
  llvm::SetVector<Value> chain;
  chain.insert(arg);
  for (size_t i = 0; i < chain.size(); ++i) {
    for (OpOperand &use : chain[i].getUses()) {
      Operation *user = use.getOwner();
      if (auto append = dyn_cast<CacheAppendOp>(user)) {
        if (&use == &append.getCacheMutable()) {
          uses.appended = true;
          chain.insert(append.getResult());
          continue;
        }
      } else if (auto slice = dyn_cast<tensor::ExtractSliceOp>(user)) {
        chain.insert(slice.getResult());
        continue;
      } else if (auto attention = dyn_cast<AttentionOp>(user)) {
        if (&use == &attention.getKeyMutable() ||
            &use == &attention.getValueMutable()) {
          uses.attended = true;
          continue;
        }
      } else if (isa<tensor::DimOp, func::ReturnOp>(user)) {
        continue;
      }
      if (!uses.other)
        uses.other = user;
    }
  }
  uses.chain.assign(chain.begin(), chain.end());
  return uses;
}

Type withElement(Type type, Type element) {
  return cast<RankedTensorType>(type).clone(element);
}

struct NarrowKvCachePass : tfm::impl::NarrowKvCachePassBase<NarrowKvCachePass> {
  using Base::Base;
  NarrowKvCachePass(const NarrowKvCachePass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto stated = module->getAttrOfType<TypeAttr>(kPrecisionAttr);
    Type half = stated ? stated.getValue() : Type();
    if (!narrow || !half || !(half.isBF16() || half.isF16()))
      return;
    bool failedAny = false;
    module.walk([&](func::FuncOp func) {
      if (!func.isDeclaration() && failed(narrowFunction(func, half)))
        failedAny = true;
    });
    if (failedAny)
      signalPassFailure();
  }

  LogicalResult narrowFunction(func::FuncOp func, Type half) {
    // The caches: arguments a tfm.cache_append writes; and, in a function
    // that has one (a generation step), arguments only attention reads as
    // keys and values (an encoder-decoder step's cross cache).
    SmallVector<std::pair<BlockArgument, CacheUses>> caches;
    bool anyAppended = false;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type || !type.getElementType().isF32())
        continue;
      CacheUses uses = collectUses(arg);
      if (!uses.appended && !uses.attended)
        continue;
      anyAppended |= uses.appended;
      caches.push_back({arg, std::move(uses)});
    }
    if (!anyAppended)
      return success();
    for (auto &[arg, uses] : caches) {
      if (uses.other)
        return uses.other->emitOpError()
               << "reads the KV cache argument " << arg.getArgNumber()
               << " of @" << func.getSymName()
               << ", which -tfm-narrow-kv-cache stores in " << half
               << ": only tfm.cache_append, tensor.extract_slice, "
                  "tfm.attention "
                  "(keys, values), tensor.dim and func.return may";
    }
    for (auto &[arg, uses] : caches) {
      for (Value v : uses.chain)
        v.setType(withElement(v.getType(), half));
      ++narrowed;
    }
    // The function returns the updated cache: its type follows.
    Operation *terminator = func.getBody().back().getTerminator();
    func.setType(FunctionType::get(func.getContext(),
                                   func.getBody().getArgumentTypes(),
                                   terminator->getOperandTypes()));
    return success();
  }

  // The statistics of Passes.td (same names and descriptions), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h.
  PassStatistic narrowed{this, numNarrowed, "narrowed-caches",
                         "KV cache arguments stored in 16 bits"};
};

} // namespace
