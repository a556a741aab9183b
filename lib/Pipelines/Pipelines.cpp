//===- Pipelines.cpp - named end-to-end pipelines -------------------------===//
//
// -tfm-lower-to-llvm: the tfm dialect to nothing but the LLVM dialect, with
// the entry ABI of docs/architecture.md. Every step is an ordinary pass, so
// --mlir-print-ir-after-all shows each one.
//
//===----------------------------------------------------------------------===//

#include "tfm/Pipelines/Pipelines.h"
#include "tfm/ABI/Passes.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/Codegen/GPU/Passes.h"
#include "tfm/Conversion/Passes.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include <mutex>

using namespace mlir;

/// Stage 0: the target (the host's unless the module states one), then the
/// tfm-level transforms: the KV cache's element type, fusion, attention
/// tiling (configured for the target, then carried out).
static void addTfmTransforms(OpPassManager &pm,
                             const tfm::TfmToLLVMPipelineOptions &options) {
  using namespace mlir::tfm;
  pm.addPass(createSetTargetPass());
  // Under a 16-bit precision the generation steps keep their KV cache in
  // it (a no-op otherwise).
  pm.addPass(createNarrowKvCachePass());
  if (options.fuseAttention)
    pm.addPass(createFuseAttentionPass());
  if (!options.tileAttention)
    return;
  ConfigureAttentionPassOptions configure;
  configure.untiledMaxKeys = options.attentionUntiledMaxKeys;
  pm.addPass(createConfigureAttentionPass(configure));
  pm.addPass(createTileSramPass());
}

/// Stage 1: tfm -> linalg on tensors. Elementwise arith on tensors (an
/// unfused attention chain's scale written as arith.mulf, say, which stays
/// when fusion is off) becomes linalg.generic too: bufferization and the
/// vectorizer only take linalg.
static void addTfmToLinalg(OpPassManager &pm, StringRef precision) {
  pm.addPass(mlir::tfm::createConvertTfmToLinalgPass());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  // GEMM and attention inputs rounded to the model's precision (a no-op
  // for f32).
  mlir::tfm::ApplyPrecisionPassOptions apply;
  apply.precision = precision.str();
  pm.addPass(mlir::tfm::createApplyPrecisionPass(apply));
}

/// One-shot bufferization across function boundaries with identity
/// layouts, buffer hoisting and the deallocation pipeline (both targets).
static void addBufferization(OpPassManager &pm) {
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addNestedPass<func::FuncOp>(bufferization::createBufferHoistingPass());
  pm.addNestedPass<func::FuncOp>(
      bufferization::createBufferLoopHoistingPass());
  bufferization::buildBufferDeallocationPipeline(pm);
}

/// The entry ABI (weights table, out-param, manifest naming the target's
/// device), then clean-up.
static void addEntryABI(OpPassManager &pm, StringRef embedWeights) {
  tfm::MaterializeEntryPassOptions entry;
  entry.embedWeights = embedWeights.str();
  pm.addPass(tfm::createMaterializeEntryPass(entry));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

/// tfm's elementwise fusion on tensors, then clean-up. Not upstream's
/// -linalg-fuse-elementwise-ops: that one fuses producers into
/// contractions, which then run as scalar loops.
static void addElementwiseFusion(OpPassManager &pm) {
  pm.addPass(tfm::createFuseElementwisePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void tfm::buildTfmToLinalgPipeline(OpPassManager &pm,
                                   const TfmToLLVMPipelineOptions &options) {
  addTfmTransforms(pm, options);
  addTfmToLinalg(pm, options.precision);
}

void tfm::buildTfmToLLVMPipeline(OpPassManager &pm,
                                 const TfmToLLVMPipelineOptions &options) {
  // 0-1. The target, tfm -> tfm (fusion, attention tiling), tfm -> linalg
  // on tensors: what --emit=linalg shows, exactly.
  buildTfmToLinalgPipeline(pm, options);
  // 1. Entry ABI. Weights that GEMM register kernels stream get panels of
  // register tiles, made once per model instance in @tfm_prepare.
  if (options.packWeights) {
    // bf16 on AMX first: the contractions it takes are no longer f32 ones.
    pm.addPass(createPackAmxPass());
    pm.addPass(createPackWeightsPass());
    pm.addPass(createOutlinePreparePass());
  }
  addEntryABI(pm, options.embedWeights);

  // 2. Bufferization, after the CPU schedule is chosen and carried out.
  if (options.fuseElementwise)
    addElementwiseFusion(pm);
  if (options.vectorize) {
    CpuConfigurePassOptions configure;
    configure.elementwise = options.vectorizeElementwise;
    configure.parallelRows = options.parallelRows;
    configure.parallelCols = options.parallelCols;
    pm.addNestedPass<func::FuncOp>(createCpuConfigurePass(configure));
    pm.addNestedPass<func::FuncOp>(createTileAndVectorizePass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
  }
  addBufferization(pm);
  // AMX tile kernels (bf16 contractions -tfm-pack-amx took).
  pm.addPass(createCpuLowerAmxPass());

  // 3. Loops. Strided copies become loops too (no memrefCopy calls).
  pm.addPass(createExpandMemRefCopyPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Each activation freed after its last use (the canonicalizer has made
  // the deallocation pipeline's always-taken conditions plain deallocs):
  // one layer's buffers live at a time, not the whole model's.
  pm.addNestedPass<func::FuncOp>(createFreeAfterLastUsePass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  if (options.vectorize) {
    pm.addPass(createApproximateMathPass());
    pm.addPass(createLowerVectorOpsPass());
    pm.addPass(createCpuPrefetchPass());
    pm.addPass(createCpuUnrollKernelsPass());
  }
  // bf16 conversions without AVX512-BF16: integer ops, not libcalls.
  pm.addPass(createExpandBf16Pass());
  // Multithreading, when the target has threads: every scf.forall becomes
  // an OpenMP worksharing loop. Otherwise scf-to-cf runs them serially.
  pm.addPass(createCpuOpenMPPass());

  // 4. LLVM dialect. n-D vector transfers become unrolled 1-D ones first.
  VectorTransferToSCFOptions vectorToSCF;
  vectorToSCF.enableFullUnroll();
  pm.addPass(createConvertVectorToSCFPass(vectorToSCF));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createCpuConvertAmxToLLVMPass());
  pm.addPass(createSCFToControlFlowPass());
  ConvertVectorToLLVMPassOptions vectorToLLVM;
  vectorToLLVM.vectorContractLowering =
      vector::VectorContractLowering::OuterProduct;
  vectorToLLVM.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle16x16;
  vectorToLLVM.reassociateFPReductions = true;
  // AVX512-BF16 dot products (-tfm-cpu-lower-amx without AMX).
  vectorToLLVM.x86Vector = true;
  // Math first: math-to-libm unrolls vector math it cannot keep whole into
  // vector ops that convert-vector-to-llvm then lowers.
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass(vectorToLLVM));
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  FinalizeMemRefToLLVMConversionPassOptions memrefToLLVM;
  memrefToLLVM.useGenericFunctions = options.runtimeAllocator;
  pm.addPass(createFinalizeMemRefToLLVMConversionPass(memrefToLLVM));
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
  // One function per parallel region: the translation's OpenMP outlining
  // analyses the whole enclosing function for each region.
  pm.addPass(createCpuOutlineParallelPass());

  // 5. The target in LLVM's terms; nothing else may be left.
  pm.addPass(createLowerTargetPass());
  pm.addPass(createCheckLLVMLegalPass());
}

/// The host side of the GPU pipeline to the LLVM dialect (no OpenMP; the
/// emulated kernels' vector loads and stores lowered as they are); with
/// `gpuLaunches`, launch_func and the gpu allocation ops become mgpu*
/// runtime calls.
static void addHostToLLVM(OpPassManager &pm, bool gpuLaunches = false) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertIndexToLLVMPass());
  if (gpuLaunches)
    pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void tfm::buildTfmToLinalgPipeline(OpPassManager &pm,
                                   const TfmToNVVMPipelineOptions &options) {
  // The GPU, unless the module states a target.
  SetTargetPassOptions target;
  target.gpuChip = options.chip;
  target.gpuFeatures = options.features;
  pm.addPass(createSetTargetPass(target));
  // A 16-bit KV cache under a 16-bit precision, as on the CPU (its appends
  // round on the way in: -tfm-gpu-cache-append).
  pm.addPass(createNarrowKvCachePass());
  if (options.fuseAttention)
    pm.addPass(createFuseAttentionPass());
  if (options.tileAttention) {
    // The same online-softmax loop nest as for the CPU, with tiles sized for
    // one block's shared memory (-tfm-gpu-map-attention maps it to CTAs);
    // always tiled: no runtime switch to the untiled chain.
    ConfigureAttentionPassOptions configure;
    configure.untiledMaxKeys = 0;
    pm.addPass(createConfigureAttentionPass(configure));
    pm.addPass(createTileSramPass());
  }
  addTfmToLinalg(pm, options.precision);
}

void tfm::buildTfmToNVVMPipeline(OpPassManager &pm,
                                 const TfmToNVVMPipelineOptions &options) {
  using namespace mlir::tfm;
  // 0-1. tfm -> linalg on tensors (what --emit=linalg shows), entry ABI (no
  // weight packing: that layout is the CPU register kernel's).
  buildTfmToLinalgPipeline(pm, options);
  // (-tfm-gpu-emulate makes the manifest's device "cpu" again: the
  // emulated build stays identical to this one up to the kernels.)
  addEntryABI(pm, options.embedWeights);

  // 2. Bufferization. Attention on tensor cores goes on buffers first
  // (tfm.attention_kernel: its kernel is built in step 3).
  if (options.fuseElementwise)
    addElementwiseFusion(pm);
  pm.addNestedPass<func::FuncOp>(createGPUBufferizeAttentionPass());
  addBufferization(pm);

  // 3. Kernels: loop nests on blocks and threads, buffers on the device.
  // Tiled attention: a CTA per tile of the loop nest, its tiles in shared
  // memory (its copies are tile ops of the CTA). Every other copy becomes
  // a loop nest (on a GPU target, all of them).
  // Attention on tensor cores: a FlashAttention-2 kernel per op.
  pm.addNestedPass<func::FuncOp>(createGPUFlashAttentionPass());
  pm.addNestedPass<func::FuncOp>(createGPUMapAttentionPass());
  // A generation step's KV cache appends: one kernel each.
  pm.addNestedPass<func::FuncOp>(createGPUCacheAppendPass());
  pm.addPass(createExpandMemRefCopyPass());
  // Contractions: shared-memory GEMM kernels; row reductions: a block per
  // row; everything else: one thread per output (or per few rows of a
  // reduction the block kernel does not take).
  pm.addNestedPass<func::FuncOp>(createGPUConfigurePass());
  pm.addNestedPass<func::FuncOp>(createGPUTileContractionPass());
  pm.addNestedPass<func::FuncOp>(createGPUTileReductionPass());
  GPULinalgToLoopsPassOptions loops;
  loops.rowsPerThread = options.rowsPerThread;
  pm.addNestedPass<func::FuncOp>(createGPULinalgToLoopsPass(loops));
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  pm.addPass(createLoopInvariantCodeMotionPass());
  GPUDistributePassOptions distribute;
  distribute.threadsPerBlock = options.threadsPerBlock;
  pm.addNestedPass<func::FuncOp>(createGPUDistributePass(distribute));
  // Folds the tiles' bound arithmetic: convert-parallel-loops-to-gpu needs
  // a constant upper bound for the thread loop.
  pm.addPass(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  if (options.emulate) {
    // The same kernels, run as host loops over blocks and threads, with the
    // same polynomial math; then the host's lowering.
    pm.addPass(createGPUEmulatePass());
    pm.addPass(createGPUDedupKernelsPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createApproximateMathPass());
    addHostToLLVM(pm);
    pm.addPass(createLowerTargetPass());
    pm.addPass(createCheckLLVMLegalPass());
    return;
  }
  pm.addPass(createGPUDeviceMemoryPass());
  pm.addPass(createGPUOutlineKernelsPass());
  if (options.mergeKernelModules)
    pm.addPass(createGPUMergeKernelModulesPass());
  pm.addPass(createGPUDedupKernelsPass());
  pm.addPass(createGPUDynamicSharedMemoryPass());
  pm.addPass(createGPUCheckKernelsPass());

  // 4. NVVM for the kernels, LLVM with runtime calls for the host.
  GpuNVVMAttachTargetOptions nvvm;
  nvvm.chip = options.chip;
  nvvm.features = options.features;
  nvvm.optLevel = 3;
  if (!options.toolkit.empty()) {
    // libdevice for the math that stays a call (__nv_*).
    nvvm.linkLibs.push_back(options.toolkit +
                            "/nvvm/libdevice/libdevice.10.bc");
  }
  pm.addPass(createGpuNVVMAttachTarget(nvvm));
  OpPassManager &kernels = pm.nest<gpu::GPUModuleOp>();
  // Views made inside a kernel (the tiles of attention, in shared memory)
  // to address arithmetic: convert-gpu-to-nvvm takes no subview.
  kernels.addPass(memref::createExpandStridedMetadataPass());
  kernels.addPass(createLowerAffinePass());
  kernels.addPass(createApproximateMathPass());
  // Tensor-core products (bf16 included, which upstream's nvgpu lowering
  // does not take).
  kernels.addPass(createGPULowerMmaPass());
  // ldmatrix rows and cp.async destinations: 16-byte aligned buffers.
  kernels.addPass(createGPUAlignSharedPass());
  // cp.async copies, groups and waits.
  kernels.addPass(createConvertNVGPUToNVVMPass());
  kernels.addPass(createConvertGpuOpsToNVVMOps());
  kernels.addPass(createCanonicalizerPass());
  kernels.addPass(createCSEPass());
  kernels.addPass(createReconcileUnrealizedCastsPass());
  addHostToLLVM(pm, /*gpuLaunches=*/true);

  // 5. Kernels to PTX / cubin, embedded in the host module.
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = options.binaryFormat;
  binary.toolkitPath = options.toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createLowerTargetPass());
  CheckLLVMLegalPassOptions legal;
  legal.allowGpuBinaries = true;
  pm.addPass(createCheckLLVMLegalPass(legal));
}

void tfm::registerAllTfmPasses() {
  static std::once_flag once;
  std::call_once(once, [] {
    registerTfmTransformsPasses();
    registerTfmConversionPasses();
    registerTfmABIPasses();
    registerTfmCodegenCommonPasses();
    registerTfmCodegenCPUPasses();
    registerTfmCodegenGPUPasses();
    registerTfmPipelines();
  });
}

void tfm::registerTfmPipelines() {
  PassPipelineRegistration<TfmToLLVMPipelineOptions>(
      "tfm-lower-to-llvm",
      "Lower a tfm module to the LLVM dialect with the tfm entry ABI "
      "(weights table, out-param, manifest)",
      buildTfmToLLVMPipeline);
  PassPipelineRegistration<TfmToLLVMPipelineOptions>(
      "tfm-lower-to-linalg",
      "The prefix of -tfm-lower-to-llvm that ends on linalg on tensors "
      "(no entry ABI)",
      [](OpPassManager &pm, const TfmToLLVMPipelineOptions &options) {
        buildTfmToLinalgPipeline(pm, options);
      });
  PassPipelineRegistration<TfmToNVVMPipelineOptions>(
      "tfm-lower-to-nvvm",
      "Lower a tfm module to the LLVM dialect for the host and NVVM/PTX "
      "for the kernels, with the tfm entry ABI",
      buildTfmToNVVMPipeline);
}
