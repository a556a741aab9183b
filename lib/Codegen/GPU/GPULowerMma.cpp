//===- GPULowerMma.cpp - 16-bit warp MMA to NVVM --------------------------===//
//
// -tfm-gpu-lower-mma: nvgpu.mma.sync m16n8k16 on bf16 or f16 fragments
// becomes nvvm.mma.sync, whose PTX is mma.sync.aligned.m16n8k16.row.col.
// Upstream's nvgpu lowering deduces no PTX type for bf16. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "GPUKernelKinds.h"

#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_GPULOWERMMAPASS
#include "tfm/Codegen/GPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

struct GPULowerMmaPass : tfm::impl::GPULowerMmaPassBase<GPULowerMmaPass> {
  using Base::Base;
  GPULowerMmaPass(const GPULowerMmaPass &other) : Base(other) {}

  void runOnOperation() override {
    SmallVector<nvgpu::MmaSyncOp> ops;
    getOperation()->walk([&](nvgpu::MmaSyncOp op) { ops.push_back(op); });
    IRRewriter rw(&getContext());
    for (nvgpu::MmaSyncOp op : ops)
      if (lower(rw, op))
        ++lowered;
  }

  /// Lowers `op` if it is a 16-bit m16n8k16 product into f32.
  static bool lower(IRRewriter &rw, nvgpu::MmaSyncOp op) {
    if (!isHalfMmaSync(op))
      return false;
    VectorType cType = op.getMatrixC().getType();
    Type half = op.getMatrixA().getType().getElementType();
    rw.setInsertionPoint(op);
    Location loc = op.getLoc();
    Type i32 = rw.getI32Type(), f32 = rw.getF32Type();
    // One 32-bit register per pair: i32 for bf16, vector<2xf16> for f16.
    auto registers = [&](Value fragment, int64_t count) {
      SmallVector<Value> regs;
      for (int64_t p = 0; p < count; ++p) {
        Value pair = vector::ExtractOp::create(rw, loc, fragment, p);
        if (half.isBF16()) {
          Value word = vector::BitCastOp::create(
              rw, loc, VectorType::get({1}, i32), pair);
          pair = vector::ExtractOp::create(rw, loc, word, 0);
        }
        regs.push_back(pair);
      }
      return regs;
    };
    SmallVector<Value> a = registers(op.getMatrixA(), 4);
    SmallVector<Value> b = registers(op.getMatrixB(), 2);
    SmallVector<Value> c;
    for (int64_t r = 0; r < 2; ++r)
      for (int64_t col = 0; col < 2; ++col)
        c.push_back(vector::ExtractOp::create(rw, loc, op.getMatrixC(),
                                              ArrayRef<int64_t>{r, col}));
    auto resultType = LLVM::LLVMStructType::getLiteral(
        rw.getContext(), SmallVector<Type>(4, f32));
    NVVM::MMATypes ptx =
        half.isBF16() ? NVVM::MMATypes::bf16 : NVVM::MMATypes::f16;
    auto mma = NVVM::MmaOp::create(
        rw, loc, resultType, a, b, c, ArrayRef<int64_t>{16, 8, 16},
        std::nullopt, std::nullopt, std::array<NVVM::MMATypes, 2>{ptx, ptx},
        std::array<NVVM::MMALayout, 2>{NVVM::MMALayout::row,
                                       NVVM::MMALayout::col});
    SmallVector<Value> d;
    for (int64_t e = 0; e < 4; ++e)
      d.push_back(LLVM::ExtractValueOp::create(rw, loc, mma, e));
    rw.replaceOpWithNewOp<vector::FromElementsOp>(op, cType, d);
    return true;
  }

  PassStatistic lowered{this, numLowered, "lowered",
                        "nvgpu.mma.sync ops lowered to nvvm.mma.sync"};
};

} // namespace
