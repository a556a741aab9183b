//===- FreeAfterLastUse.cpp - deallocations at a buffer's last use --------===//
//
// Ownership-based buffer deallocation frees each buffer at the end of its
// block. This pass moves every unconditional dealloc of a buffer allocated
// in the same block up to right after the buffer's last use there, so that
// a model's layers reuse each other's activation buffers instead of all of
// them staying allocated until the entry returns.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Bufferization/Transforms/BufferViewFlowAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_FREEAFTERLASTUSEPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct FreeAfterLastUsePass
    : tfm::impl::FreeAfterLastUsePassBase<FreeAfterLastUsePass> {
  FreeAfterLastUsePass() = default;
  FreeAfterLastUsePass(const FreeAfterLastUsePass &other) : Base(other) {}

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    BufferViewFlowAnalysis aliases(func);
    SmallVector<memref::DeallocOp> deallocs;
    func.walk([&](memref::DeallocOp d) { deallocs.push_back(d); });
    for (memref::DeallocOp dealloc : deallocs) {
      Operation *last = lastUse(dealloc, aliases);
      if (!last || last->getNextNode() == dealloc.getOperation())
        continue;
      dealloc->moveAfter(last);
      ++moved;
    }
  }

  /// The last op of the dealloc's block that uses its buffer or an alias,
  /// where the dealloc may go right after; null where it must stay.
  static Operation *lastUse(memref::DeallocOp dealloc,
                            BufferViewFlowAnalysis &aliases) {
    Value buffer = dealloc.getMemref();
    Operation *alloc = buffer.getDefiningOp<memref::AllocOp>();
    Block *block = dealloc->getBlock();
    if (!alloc || alloc->getBlock() != block)
      return nullptr;
    Operation *last = alloc;
    for (Value alias : aliases.resolve(buffer)) {
      for (Operation *user : alias.getUsers()) {
        if (user == dealloc.getOperation())
          continue;
        // An address the analysis cannot follow.
        if (isa<memref::ExtractAlignedPointerAsIndexOp>(user) ||
            isa<LLVM::LLVMDialect>(user->getDialect()))
          return nullptr;
        Operation *at = block->findAncestorOpInBlock(*user);
        if (!at || at->hasTrait<OpTrait::IsTerminator>())
          return nullptr;
        if (last->isBeforeInBlock(at))
          last = at;
      }
    }
    // A use after the dealloc would already be a use after free: leave it.
    if (dealloc->isBeforeInBlock(last))
      return nullptr;
    return last;
  }

  // The statistic of Passes.td, counted on every LLVM build:
  // tfm/Transforms/PassStatistics.h.
  tfm::PassStatistic moved{this, numMoved, "moved-deallocs",
                           "Deallocations moved up to their buffer's last use"};
};

} // namespace
