//===- Pipeline.cpp - the emit phases and the pipeline as steps -----------===//
//
// What --emit can ask for, the registration the compiler needs, the
// built-in pipeline for each phase and target (lib/Pipelines), and that
// pipeline flattened into steps of one pass each (printed back from a pass
// manager, so named pipelines expand), which Compile.cpp runs one by one.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/SliceSubsets.h"
#include "tfm/Compiler/Compile.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/Pipelines/Pipelines.h"

#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <mutex>

using namespace mlir;

namespace tfm {

//===----------------------------------------------------------------------===//
// Phases
//===----------------------------------------------------------------------===//

llvm::ArrayRef<EmitPhase> allEmitPhases() {
  static const EmitPhase phases[] = {
      EmitPhase::Tfm, EmitPhase::Linalg, EmitPhase::LLVMDialect,
      EmitPhase::Ptx, EmitPhase::LLVMIR, EmitPhase::Asm, EmitPhase::Obj,
      EmitPhase::So};
  return phases;
}

llvm::StringRef emitPhaseName(EmitPhase phase) {
  switch (phase) {
  case EmitPhase::Tfm:
    return "tfm";
  case EmitPhase::Linalg:
    return "linalg";
  case EmitPhase::LLVMDialect:
    return "llvm-dialect";
  case EmitPhase::Ptx:
    return "ptx";
  case EmitPhase::LLVMIR:
    return "llvm-ir";
  case EmitPhase::Asm:
    return "asm";
  case EmitPhase::Obj:
    return "obj";
  case EmitPhase::So:
    return "so";
  }
  llvm_unreachable("unknown phase");
}

bool isMLIRPhase(EmitPhase phase) { return phase <= EmitPhase::LLVMDialect; }

//===----------------------------------------------------------------------===//
// Registration and the pipeline
//===----------------------------------------------------------------------===//

void registerCompilerDialects(DialectRegistry &registry) {
  // First: an op keeps the first model of an interface attached to it.
  mlir::tfm::registerSliceSubsetModels(registry);
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<mlir::tfm::TfmDialect>();
}

void registerCompilerPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerAllPasses();
    mlir::tfm::registerAllTfmPasses();
  });
}

void buildCompilerPipeline(OpPassManager &pm,
                                const CompileOptions &options,
                                EmitPhase phase) {
  if (phase == EmitPhase::Tfm)
    return;
  mlir::tfm::TfmToLLVMPipelineOptions pipeline;
  pipeline.fuseAttention = options.fuseAttention;
  pipeline.packWeights = options.packWeights;
  pipeline.runtimeAllocator = options.runtimeAllocator;
  pipeline.embedWeights = options.embedWeights;
  pipeline.fuseElementwise = options.fuseElementwise;
  if (options.gpu) {
    mlir::tfm::TfmToNVVMPipelineOptions gpu;
    gpu.fuseAttention = options.fuseAttention;
    gpu.fuseElementwise = options.fuseElementwise;
    gpu.embedWeights = options.embedWeights;
    gpu.chip = options.gpu->chip;
    gpu.features = options.gpu->features;
    gpu.toolkit = options.gpu->toolkit;
    gpu.emulate = options.gpuEmulate;
    // --emit=ptx writes one .ptx per kernel: a module each.
    gpu.mergeKernelModules = phase != EmitPhase::Ptx;
    // --emit=ptx shows the PTX; a library embeds machine code when ptxas
    // is at hand (the driver JIT-compiles PTX otherwise).
    gpu.binaryFormat = phase == EmitPhase::Ptx || options.gpu->toolkit.empty()
                           ? "isa"
                           : "fatbin";
    if (phase == EmitPhase::Linalg)
      mlir::tfm::buildTfmToLinalgPipeline(pm, gpu);
    else
      mlir::tfm::buildTfmToNVVMPipeline(pm, gpu);
    return;
  }
  // The target comes from the module (Compilation::run sets it).
  if (phase == EmitPhase::Linalg)
    mlir::tfm::buildTfmToLinalgPipeline(pm, pipeline);
  else
    mlir::tfm::buildTfmToLLVMPipeline(pm, pipeline);
}

namespace {

/// One element of a textual pass pipeline: `name{options}` or
/// `anchor(elements)`.
struct PipelineElement {
  std::string name;
  std::string options; // with its braces, or empty
  bool isAnchor = false;
  std::vector<PipelineElement> nested;
};

/// Parses a comma-separated list of pipeline elements from `s` up to a
/// closing ')' (left in `s`) or the end.
LogicalResult parseElements(llvm::StringRef &s,
                            std::vector<PipelineElement> &out,
                            std::string &error) {
  while (true) {
    s = s.ltrim();
    if (s.empty() || s.front() == ')')
      return success();
    PipelineElement element;
    size_t n = s.find_first_of("{(,)");
    element.name = s.take_front(n).trim().str();
    s = s.drop_front(std::min(n, s.size()));
    if (element.name.empty()) {
      error = "empty pass name in the pipeline near '" +
              s.take_front(20).str() + "'";
      return failure();
    }
    if (!s.empty() && s.front() == '{') {
      // Balanced braces; quoted strings may hold anything.
      size_t i = 0;
      int depth = 0;
      char quote = 0;
      for (; i < s.size(); ++i) {
        char c = s[i];
        if (quote) {
          if (c == quote)
            quote = 0;
          continue;
        }
        if (c == '"' || c == '\'')
          quote = c;
        else if (c == '{')
          ++depth;
        else if (c == '}' && --depth == 0)
          break;
      }
      if (i == s.size()) {
        error = "unbalanced '{' in the options of '" + element.name + "'";
        return failure();
      }
      element.options = s.take_front(i + 1).str();
      s = s.drop_front(i + 1).ltrim();
    }
    if (!s.empty() && s.front() == '(') {
      element.isAnchor = true;
      s = s.drop_front();
      if (failed(parseElements(s, element.nested, error)))
        return failure();
      if (s.empty() || s.front() != ')') {
        error = "missing ')' after the passes nested in '" + element.name +
                "'";
        return failure();
      }
      s = s.drop_front().ltrim();
    }
    out.push_back(std::move(element));
    s = s.ltrim();
    if (!s.empty() && s.front() == ',')
      s = s.drop_front();
  }
}

void flatten(const std::vector<PipelineElement> &elements,
             llvm::ArrayRef<std::string> anchors,
             std::vector<PipelineStep> &steps) {
  for (const PipelineElement &e : elements) {
    if (e.isAnchor) {
      llvm::SmallVector<std::string> inner(anchors.begin(), anchors.end());
      inner.push_back(e.name);
      flatten(e.nested, inner, steps);
      continue;
    }
    PipelineStep step;
    step.pass = e.name;
    step.text = e.name + e.options;
    for (const std::string &anchor : llvm::reverse(anchors))
      step.text = anchor + "(" + step.text + ")";
    steps.push_back(std::move(step));
  }
}

/// The options of `{a=1 b={x y} c="q r"}`, one string each.
llvm::SmallVector<std::string> splitOptions(llvm::StringRef braces) {
  llvm::SmallVector<std::string> out;
  llvm::StringRef inner = braces.drop_front().drop_back();
  std::string current;
  int depth = 0;
  char quote = 0;
  for (char c : inner) {
    if (quote) {
      if (c == quote)
        quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}') {
      --depth;
    } else if (c == ' ' && depth == 0) {
      if (!current.empty())
        out.push_back(std::move(current));
      current.clear();
      continue;
    }
    current.push_back(c);
  }
  if (!current.empty())
    out.push_back(std::move(current));
  return out;
}

/// Gives every element that runs `pass` the option `name=value`, in place of
/// a value of its own; returns how many it changed.
unsigned setOption(std::vector<PipelineElement> &elements, llvm::StringRef pass,
                   llvm::StringRef name, llvm::StringRef value) {
  unsigned changed = 0;
  for (PipelineElement &e : elements) {
    if (e.isAnchor) {
      changed += setOption(e.nested, pass, name, value);
      continue;
    }
    if (e.name != pass)
      continue;
    llvm::SmallVector<std::string> options;
    if (!e.options.empty())
      for (std::string &option : splitOptions(e.options))
        if (llvm::StringRef(option).split('=').first.trim() != name)
          options.push_back(std::move(option));
    options.push_back((name + "=" + value).str());
    e.options = "{" + llvm::join(options, " ") + "}";
    ++changed;
  }
  return changed;
}

} // namespace

FailureOr<std::vector<PipelineStep>>
getPipelineSteps(MLIRContext *context, const CompileOptions &options,
                      EmitPhase phase, std::string &error) {
  registerCompilerPasses();
  // The pipeline is printed back from a pass manager, so that named
  // pipelines (tfm-lower-to-llvm{...}) expand to their passes.
  PassManager pm(context, ModuleOp::getOperationName());
  if (!options.passPipeline.empty()) {
    llvm::StringRef user = llvm::StringRef(options.passPipeline).trim();
    // Accept the pipeline with or without its builtin.module(...) anchor.
    std::string anchored =
        user.starts_with(ModuleOp::getOperationName().str() + "(")
            ? user.str()
            : (ModuleOp::getOperationName() + "(" + user + ")").str();
    std::string parseError;
    llvm::raw_string_ostream es(parseError);
    FailureOr<OpPassManager> parsed = parsePassPipeline(anchored, es);
    if (failed(parsed)) {
      error = "--pass-pipeline: " + llvm::StringRef(parseError).trim().str();
      return failure();
    }
    static_cast<OpPassManager &>(pm) = std::move(*parsed);
  } else {
    buildCompilerPipeline(pm, options, phase);
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  pm.printAsTextualPipeline(os);

  std::vector<PipelineElement> elements;
  llvm::StringRef rest(text);
  if (failed(parseElements(rest, elements, error)))
    return failure();
  if (!rest.trim().empty()) {
    error = "unexpected '" + rest.trim().str() + "' in the pass pipeline";
    return failure();
  }
  // The root anchor is where the steps run anyway.
  if (elements.size() == 1 && elements[0].isAnchor &&
      elements[0].name == ModuleOp::getOperationName()) {
    std::vector<PipelineElement> inner = std::move(elements[0].nested);
    elements = std::move(inner);
  }
  // --pass-option PASS:OPTION=VALUE.
  for (const std::string &setting : options.passOptions) {
    auto [pass, assignment] = llvm::StringRef(setting).split(':');
    auto [name, value] = assignment.split('=');
    pass = pass.trim();
    name = name.trim();
    if (pass.empty() || name.empty() || !assignment.contains('=')) {
      error = "--pass-option '" + setting +
              "': expected PASS:OPTION=VALUE, e.g. "
              "tfm-gpu-configure:mma-large=128,128,32,2,2,4";
      return failure();
    }
    if (setOption(elements, pass, name, value.trim()) == 0) {
      error = "--pass-option '" + setting +
              "': no step of the pipeline runs '" + pass.str() +
              "' (tfmc --list-pipeline lists them)";
      return failure();
    }
  }

  std::vector<PipelineStep> steps;
  flatten(elements, {}, steps);

  // An input at a later phase continues the pipeline where that phase
  // ended: the steps before are a prefix of this pipeline.
  if (options.inputPhase != EmitPhase::Tfm && options.passPipeline.empty()) {
    size_t done = steps.size();
    if (options.inputPhase == EmitPhase::Linalg) {
      CompileOptions fromStart = options;
      fromStart.inputPhase = EmitPhase::Tfm;
      FailureOr<std::vector<PipelineStep>> prefix =
          getPipelineSteps(context, fromStart, EmitPhase::Linalg, error);
      if (failed(prefix))
        return failure();
      done = prefix->size();
    }
    steps.erase(steps.begin(), steps.begin() + std::min(done, steps.size()));
  }

  // Every step must parse on its own: that is how it runs.
  for (const PipelineStep &step : steps) {
    OpPassManager pm(ModuleOp::getOperationName());
    std::string parseError;
    llvm::raw_string_ostream es(parseError);
    if (failed(parsePassPipeline(step.text, pm, es))) {
      error = "the pipeline step '" + step.text +
              "' cannot run on its own: " +
              llvm::StringRef(parseError).trim().str();
      return failure();
    }
  }
  return steps;
}

std::vector<std::string> getBackendSteps(EmitPhase phase) {
  std::vector<std::string> steps;
  if (phase >= EmitPhase::LLVMIR) {
    steps.push_back("translate-to-llvm-ir");
    steps.push_back("llvm-opt");
  }
  if (phase >= EmitPhase::Asm)
    steps.push_back("codegen");
  if (phase == EmitPhase::So)
    steps.push_back("link");
  return steps;
}

} // namespace tfm
