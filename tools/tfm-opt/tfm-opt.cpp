//===- tfm-opt.cpp - mlir-opt with the tfm dialect and passes --------------===//
//
// The lit suite's workhorse: every upstream dialect, pass, extension and LLVM
// IR translation, plus tfm's dialect, passes and pipelines.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tfm/Conversion/Passes.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/Pipelines/Pipelines.h"
#include "tfm/Transforms/Passes.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::tfm::registerTfmTransformsPasses();
  mlir::tfm::registerTfmConversionPasses();
  mlir::tfm::registerTfmPipelines();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::tfm::TfmDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "tfm optimizer driver\n", registry));
}
