//===- tfm-opt.cpp - mlir-opt with the tfm dialect and passes --------------===//
//
// The lit suite's workhorse: every upstream dialect, pass, extension and LLVM
// IR translation, plus tfm's dialect, passes and pipelines.
//
// It is MlirOptMain with one addition: on an LLVM built without statistics,
// `-mlir-pass-statistics` reports the counters of tfm's passes
// (tfm/Transforms/PassStatistics.h), which MLIR's own report cannot.
//
//===----------------------------------------------------------------------===//

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "tfm/Codegen/Common/SliceSubsets.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/Pipelines/Pipelines.h"
#include "tfm/Transforms/PassStatistics.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdio>

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAllPasses();
  mlir::tfm::registerAllTfmPasses();
  mlir::DialectRegistry registry;
  // First: an op keeps the first model of an interface attached to it.
  mlir::tfm::registerSliceSubsetModels(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  mlir::registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::tfm::TfmDialect>();

  auto [inputFilename, outputFilename] = mlir::registerAndParseCLIOptions(
      argc, argv, "tfm optimizer driver\n", registry);
  std::optional<mlir::PassDisplayMode> statistics =
      mlir::tfm::takeOverPassStatisticsOption();
  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (statistics) {
    // The command line's pipeline, then tfm's report on it.
    mlir::MlirOptMainConfig commandLine = config;
    config.setPassPipelineSetupFn(
        [commandLine, mode = *statistics](mlir::PassManager &pm) {
          if (mlir::failed(commandLine.setupPassPipeline(pm)))
            return mlir::failure();
          mlir::tfm::addPassStatisticsReport(pm, mode);
          return mlir::success();
        });
  }

  // From here on what MlirOptMain(argc, argv, ...) does with its own config.
  if (config.shouldShowDialects() || config.shouldListPasses())
    return mlir::asMainReturnCode(mlir::MlirOptMain(
        llvm::outs(), llvm::MemoryBuffer::getMemBuffer(""), registry, config));
  if (inputFilename == "-" &&
      llvm::sys::Process::FileDescriptorIsDisplayed(fileno(stdin)))
    llvm::errs() << "(processing input from stdin now, hit ctrl-c/ctrl-d to "
                    "interrupt)\n";
  std::string errorMessage;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFilename, &errorMessage);
  if (!input) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFilename, &errorMessage);
  if (!output) {
    llvm::errs() << errorMessage << "\n";
    return EXIT_FAILURE;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return EXIT_FAILURE;
  output->keep();
  return EXIT_SUCCESS;
}
