//===- ExpandBf16.cpp - f32 <-> bf16 conversions as integer ops -----------===//
//
// -tfm-expand-bf16: on a CPU target without AVX512-BF16, every arith.truncf
// to bf16 and arith.extf from it (scalar or vector) becomes integer ops
// (upstream's bf16 expansion: round to nearest even on the bits, NaN kept
// quiet). LLVM would otherwise call compiler-rt's __truncsfbf2 once per
// element, unvectorized: a --precision=bf16 decode step that rounds its KV
// cache slices made millions of calls.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_EXPANDBF16PASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

struct ExpandBf16Pass : tfm::impl::ExpandBf16PassBase<ExpandBf16Pass> {
  using Base::Base;

  void runOnOperation() override {
    // A CPU with AVX512-BF16 converts 16 floats per instruction
    // (vcvtneps2bf16), which LLVM emits itself; a GPU target has its own.
    tfm::CpuTargetAttr cpu = tfm::getCpuTarget(getOperation());
    if (!cpu || cpu.hasAvx512Bf16())
      return;
    RewritePatternSet patterns(&getContext());
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
