//===- Passes.td - GPU code generation passes --------------*- tablegen -*-===//
//
// The NVIDIA target's passes between bufferized loops and the upstream GPU
// lowering (convert-parallel-loops-to-gpu, gpu-kernel-outlining,
// convert-gpu-to-nvvm, gpu-to-llvm, gpu-module-to-binary). Contracts in the
// style of the Conversion passes: input, output, untouched, errors.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CODEGEN_GPU_PASSES_TD
#define TFM_CODEGEN_GPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def GPUDistributePass : Pass<"tfm-gpu-distribute", "func::FuncOp"> {
  let summary = "Map every top-level parallel loop nest of a host function to GPU blocks and threads";
  let description = [{
    `scf.parallel (i0, ..., in) => scf.parallel (block) { scf.parallel (thread) }`
    with `#gpu.loop_dim_map` mappings that `convert-parallel-loops-to-gpu`
    turns into a `gpu.launch`.

    **Input invariant.** A bufferized host function (the entry or
    `@tfm_prepare`) whose computations are `scf.parallel` loop nests, as
    `convert-linalg-to-parallel-loops` leaves them: one nest per linalg op,
    the op's parallel dimensions in the `scf.parallel`, its reduction
    dimensions as `scf.for` loops inside. Copies were expanded into loops
    (`-tfm-expand-memref-copy{all}`).

    **Output.** Every `scf.parallel` directly in the function body is
    collapsed into one dimension (row-major, so the innermost dimension of
    the op is the fastest-varying one and neighbouring threads touch
    neighbouring elements: coalesced accesses), then tiled by
    `threads-per-block`: the outer loop maps to `block_x`, the inner one to
    `thread_x`. A nest with fewer iterations than `threads-per-block` (known
    statically) gets that many threads, rounded up to a whole warp. A body
    of reduction loops runs sequentially in its thread.

    Any other top-level op that reads or writes memory (a stray
    `memref.load`/`memref.store`, an `scf.for` or `scf.if` around them) is
    wrapped into a one-iteration `scf.parallel` that becomes a one-thread
    kernel: the host never touches device memory. Ops of the `llvm`
    dialect (reads of the host weights table) stay on the host.

    **Untouched.** Nested `scf.parallel` ops (they run sequentially inside
    their kernel), allocations, views and metadata ops.

    **Errors.** A top-level op that touches memory and whose results are used
    outside it (it cannot become a kernel), or a nest whose tiling fails.
  }];
  let options = [
    Option<"threadsPerBlock", "threads-per-block", "int64_t",
           /*default=*/"256",
           "Threads of one block (a multiple of 32, at most 1024)">,
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Parallel loop nests mapped to a grid of blocks">,
    Statistic<"numWrapped", "host-ops-wrapped",
              "Top-level memory ops wrapped into one-thread kernels">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def GPUDeviceMemoryPass : Pass<"tfm-gpu-device-memory", "ModuleOp"> {
  let summary = "Allocate the host functions' buffers in device memory";
  let description = [{
    `memref.alloc / memref.dealloc (host) => gpu.alloc async / gpu.dealloc async`

    **Input invariant.** Host functions whose kernels are `gpu.launch` ops
    (after `convert-parallel-loops-to-gpu`); every buffer they allocate is
    read and written only by those kernels.

    **Output.** Each `memref.alloc` outside a `gpu.launch` becomes a
    `gpu.alloc async` ordered after a `gpu.wait async` and followed by a
    `gpu.wait` on its token; each `memref.dealloc` likewise becomes a
    `gpu.dealloc async`. `gpu-to-llvm` lowers them to `mgpuMemAlloc` and
    `mgpuMemFree` on the stream that `mgpuStreamCreate` gives, which the tfm
    runtime makes the model instance's one stream (allocation is
    stream-ordered, from a pool that keeps freed memory: no synchronization
    per buffer).

    **Untouched.** Kernel bodies, `memref.alloca`, views.

    **Errors.** A `memref.alloc` inside a `gpu.launch` in the default memory
    space: lowered, it would become a per-thread `malloc` of device heap
    (MLIR's known trap); workgroup buffers must be kernel attributions.
  }];
  let statistics = [
    Statistic<"numAllocs", "device-allocs", "Host allocations moved to device memory">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect"];
}

def GPUCheckKernelsPass : Pass<"tfm-gpu-check-kernels", "ModuleOp"> {
  let summary = "Fail unless every kernel is outlined and the host touches no device memory";
  let description = [{
    A check after `gpu-kernel-outlining`: host functions may hold
    `gpu.launch_func`, `gpu.alloc`/`gpu.dealloc`/`gpu.wait`, index
    arithmetic, memref views and metadata, and `llvm` dialect ops (the host
    weights table); any `memref.load`, `memref.store`, `vector` transfer or
    leftover `gpu.launch` outside a `gpu.module` is reported, naming the op,
    and the pass fails. Without it such an op would segfault at run time
    (a host read of a device pointer).
  }];
}

#endif // TFM_CODEGEN_GPU_PASSES_TD
