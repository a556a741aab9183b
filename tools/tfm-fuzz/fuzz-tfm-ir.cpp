//===- fuzz-tfm-ir.cpp - libFuzzer harness: tfm IR through the verifiers --===//
//
// Any text as tfm IR (tfm-opt's and tfmc's `.mlir` input): MLIR's parser
// reads it with the tfm, func, arith and tensor dialects loaded, and every
// op that parses goes through the tfm verifiers (ODS constraints, the
// shape rules of TfmVerify.cpp, the attributes' verifiers). A verifier
// may reject anything; it must never crash, read out of bounds or
// overflow on the way.
//
//===----------------------------------------------------------------------===//

#include "tfm/IR/TfmDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/SourceMgr.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::MLIRContext *context = [] {
    auto *ctx = new mlir::MLIRContext(mlir::MLIRContext::Threading::DISABLED);
    ctx->loadDialect<mlir::tfm::TfmDialect, mlir::func::FuncDialect,
                     mlir::tensor::TensorDialect, mlir::arith::ArithDialect>();
    // Diagnostics are expected; they go nowhere.
    ctx->getDiagEngine().registerHandler([](mlir::Diagnostic &) {});
    return ctx;
  }();
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(
          llvm::StringRef(reinterpret_cast<const char *>(data), size),
          "fuzz.mlir"),
      llvm::SMLoc());
  // The parser verifies what it parsed (the tfm verifiers included).
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, context);
  return 0;
}
