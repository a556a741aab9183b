//===- OutlineParallel.cpp - one function per OpenMP parallel region ------===//
//
// -tfm-cpu-outline-parallel: see Passes.td. The translation to LLVM IR
// outlines every omp.parallel with a CodeExtractor whose analysis covers
// the whole enclosing function; with a region per kernel, an entry point's
// translation was quadratic in its kernels.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CPUOUTLINEPARALLELPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// Ops the outlined function recreates instead of taking as arguments.
bool isClonedConstant(Operation *op) {
  return isa_and_nonnull<LLVM::ConstantOp, LLVM::ZeroOp, LLVM::UndefOp,
                         LLVM::PoisonOp, LLVM::AddressOfOp>(op);
}

struct CpuOutlineParallelPass
    : tfm::impl::CpuOutlineParallelPassBase<CpuOutlineParallelPass> {
  using Base::Base;
  CpuOutlineParallelPass(const CpuOutlineParallelPass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    for (auto func : llvm::to_vector(module.getOps<LLVM::LLVMFuncOp>())) {
      if (func.isExternal())
        continue;
      SmallVector<omp::ParallelOp> regions;
      func.walk<WalkOrder::PreOrder>([&](omp::ParallelOp op) {
        regions.push_back(op);
        return WalkResult::skip();
      });
      if (regions.size() < 2)
        continue;
      Operation *after = func;
      for (auto [i, region] : llvm::enumerate(regions))
        after = outline(symbols, func, after, region, i);
    }
  }

  /// Moves `region` of `parent` into a new function placed after `after`,
  /// and returns that function.
  Operation *outline(SymbolTable &symbols, LLVM::LLVMFuncOp parent,
                     Operation *after, omp::ParallelOp region, size_t index) {
    // What the region reads from above: its operands and the values its
    // body uses, constants aside.
    llvm::SetVector<Value> used(region->getOperands().begin(),
                                region->getOperands().end());
    getUsedValuesDefinedAbove(region->getRegions(), used);
    SmallVector<Value> captured;
    SmallVector<Operation *> constants;
    for (Value v : used) {
      if (isClonedConstant(v.getDefiningOp()))
        constants.push_back(v.getDefiningOp());
      else
        captured.push_back(v);
    }

    OpBuilder b(parent);
    b.setInsertionPointAfter(after);
    Location loc = region.getLoc();
    auto type = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(&getContext()),
        llvm::to_vector(llvm::map_range(captured, [](Value v) {
          return v.getType();
        })));
    auto func = LLVM::LLVMFuncOp::create(
        b, loc, (parent.getSymName() + "_parallel_" + Twine(index)).str(),
        type, LLVM::Linkage::Internal);
    symbols.insert(func, Block::iterator(func)); // renamed if taken
    Block *entry = func.addEntryBlock(b);
    b.setInsertionPointToStart(entry);
    IRMapping map;
    for (auto [value, arg] : llvm::zip_equal(captured, entry->getArguments()))
      map.map(value, arg);
    for (Operation *constant : constants)
      b.clone(*constant, map);
    b.clone(*region.getOperation(), map);
    LLVM::ReturnOp::create(b, loc, ValueRange());

    b.setInsertionPoint(region);
    LLVM::CallOp::create(b, loc, func, captured);
    region.erase();
    ++outlined;
    return func;
  }

  tfm::PassStatistic outlined{this, numOutlined, "outlined",
                              "omp.parallel regions moved into functions of "
                              "their own"};
};

} // namespace
