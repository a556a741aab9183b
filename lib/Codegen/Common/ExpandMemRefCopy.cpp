//===- ExpandMemRefCopy.cpp - strided memref.copy to linalg.copy ----------===//
//
// finalize-memref-to-llvm lowers a memref.copy between contiguous buffers to
// a memcpy, and any other to a call of `memrefCopy`, a function of MLIR's C
// runner utilities that no model library links. This pass turns those other
// copies into linalg.copy, which convert-linalg-to-loops makes into plain
// loops, so that generated objects need libc and libm only.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "tfm-expand-memref-copy"

namespace mlir::tfm {
#define GEN_PASS_DEF_EXPANDMEMREFCOPYPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;

namespace {

/// What finalize-memref-to-llvm copies with a memcpy.
bool isContiguous(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    memref::isStaticShapeAndContiguousRowMajor(memref));
}

struct ExpandMemRefCopyPass
    : tfm::impl::ExpandMemRefCopyPassBase<ExpandMemRefCopyPass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  ExpandMemRefCopyPass(const ExpandMemRefCopyPass &other) : Base(other) {}

  void runOnOperation() override {
    // On a GPU the host cannot touch the buffers: every copy is a kernel.
    bool every = all || tfm::getGpuTarget(getOperation());
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp copy) {
      if (every || !isContiguous(copy.getSource().getType()) ||
          !isContiguous(copy.getTarget().getType()))
        copies.push_back(copy);
    });
    IRRewriter rw(&getContext());
    for (memref::CopyOp copy : copies) {
      rw.setInsertionPoint(copy);
      rw.replaceOpWithNewOp<linalg::CopyOp>(copy, copy.getSource(),
                                            copy.getTarget());
      ++expanded;
    }
  }

  // The statistic of Passes.td (same name and description), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h.
  tfm::PassStatistic expanded{this, numExpanded, "expanded-copies",
                              "memref.copy ops rewritten into linalg.copy"};
};

} // namespace
