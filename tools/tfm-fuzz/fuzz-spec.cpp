//===- fuzz-spec.cpp - libFuzzer harness: tfm specs and HF configs --------===//
//
// Any text as a model file given to tfmc: a tfm spec (FUZZ_HF undefined) or
// a Hugging Face config.json (FUZZ_HF). The reader either accepts it, and
// then the model's tensors can be listed and its tfm module built and
// verified (for models of at most a few layers, to keep runs fast), or it
// returns an error naming the file and the field; it never crashes.
//
//===----------------------------------------------------------------------===//

#include "tfm/Frontend/Frontend.h"
#include "tfm/IR/TfmDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
#ifdef FUZZ_HF
  llvm::Expected<tfm::ModelConfig> config =
      tfm::parseHFConfig(text, "fuzz/config.json");
#else
  llvm::Expected<tfm::ModelConfig> config =
      tfm::parseSpec(text, "fuzz.json");
#endif
  if (!config) {
    llvm::consumeError(config.takeError());
    return 0;
  }
  (void)tfm::getExpectedTensors(*config);
  if (config->encoderLayers.size() + config->decoderLayers.size() > 4 ||
      config->vocabSize > 4096 || config->dModel > 1024)
    return 0;
  static mlir::MLIRContext *context = [] {
    auto *ctx = new mlir::MLIRContext();
    ctx->loadDialect<mlir::tfm::TfmDialect, mlir::func::FuncDialect,
                     mlir::tensor::TensorDialect, mlir::arith::ArithDialect>();
    ctx->allowUnregisteredDialects(false);
    return ctx;
  }();
  // An accepted model builds a module that verifies: the reader's checks
  // are what the dialect's verifiers require.
  mlir::OwningOpRef<mlir::ModuleOp> module =
      tfm::buildModule(*context, *config, tfm::BuildOptions());
  if (!module || failed(mlir::verify(*module)))
    __builtin_trap();
  return 0;
}
