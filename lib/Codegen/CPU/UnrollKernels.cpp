//===- UnrollKernels.cpp - the vector kernels' k loops unrolled -----------===//
//
// -tfm-cpu-unroll-kernels: every vector kernel's k loop (an scf.for that
// carries only vector accumulators and multiplies into them) is unrolled
// by `factor`, so that its
// loop control and the address arithmetic of -tfm-cpu-prefetch are paid
// once per `factor` steps. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/X86Vector/X86VectorDialect.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_CPUUNROLLKERNELSPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Whether `loop`'s body (not its nested regions) multiplies-accumulates
/// into its vectors: a register kernel's vector.contract, a GEMV kernel's
/// vector.fma, a dot-product kernel's vdpbf16ps. The loops of vectorized
/// reductions (a softmax's row maxima and sums) carry vectors too, but
/// unrolled they made AMX attention slower (D = 128: 11 %).
bool multipliesInto(scf::ForOp loop) {
  return llvm::any_of(loop.getBody()->without_terminator(), [](Operation &op) {
    return isa<vector::ContractionOp, vector::FMAOp, x86vector::DotBF16Op>(op);
  });
}

struct CpuUnrollKernelsPass
    : tfm::impl::CpuUnrollKernelsPassBase<CpuUnrollKernelsPass> {
  using Base::Base;
  CpuUnrollKernelsPass(const CpuUnrollKernelsPass &other) : Base(other) {}

  void runOnOperation() override {
    if (factor < 1) {
      getOperation()->emitError()
          << "-tfm-cpu-unroll-kernels: factor must be 1 or more, got "
          << int64_t(factor);
      return signalPassFailure();
    }
    if (factor == 1)
      return;
    SmallVector<scf::ForOp> loops;
    getOperation()->walk([&](scf::ForOp loop) {
      if (isVectorKernelLoop(loop) && multipliesInto(loop))
        loops.push_back(loop);
    });
    for (scf::ForOp loop : loops) {
      // A loop of a single step, or of fewer steps than the factor (a
      // static count), gains nothing.
      std::optional<APInt> trips = loop.getStaticTripCount();
      if (trips && trips->getSExtValue() < int64_t(factor))
        continue;
      if (failed(loopUnrollByFactor(loop, factor)))
        continue;
      ++unrolled;
    }
  }

  tfm::PassStatistic unrolled{this, numUnrolled, "unrolled",
                              "Vector kernel k loops unrolled"};
};

} // namespace
