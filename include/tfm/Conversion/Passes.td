//===- Passes.td - tfm Conversion passes -------------------*- tablegen -*-===//
//
// Conversions out of the tfm dialect, documented as contracts: what the input
// must look like, what the output is, and what stays untouched.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// TfmToLinalg
//===----------------------------------------------------------------------===//

def ConvertTfmToLinalgPass : Pass<"convert-tfm-to-linalg", "ModuleOp"> {
  let summary = "Lower tfm ops (except tfm.weight) to linalg, tensor, arith and math";
  let description = [{
    `tfm.* => linalg.generic / linalg.matmul / linalg.transpose + tensor + arith + math`

    **Input invariant.** Ranked tensors of f32 (f16 and bf16 are accepted and
    widened to f32 inside every computation). Model dimensions (hidden size,
    head count, head size, vocabulary, classes) are static; batch and
    sequence dimensions may be dynamic. Any other dialect already in the
    module (func, tensor, arith, linalg, ...) is left as it is.

    **Output.** Every tfm op except `tfm.weight` is replaced by linalg
    structured ops on tensors in destination-passing style: each result is
    computed into a `tensor.empty` whose dynamic sizes come from `tensor.dim`
    of the operands, reductions accumulate in f32 (`linalg.fill` of the
    neutral element, then a reduction `linalg.generic`), and a value is
    narrowed to the result element type only once, at the end.

    - `tfm.linear`, `tfm.lm_head`, `tfm.ffn` and the classifier head collapse
      the leading dimensions and use `linalg.matmul` (with `indexing_maps`
      transposing an `out_in` weight in place: weights are never copied), the
      bias broadcast into the accumulator.
    - `tfm.attention` computes the scores explicitly: query heads are
      regrouped as `[B, Hkv, G, Tq, D]` (a free `tensor.expand_shape`), so
      query head `h = n * G + g` reads K/V head `n` through a plain indexing
      map; repeats of K/V are never materialized. Scale, additive bias,
      ALiBi and the structured mask (causal with offset `Tk - Tq`, sliding
      window, key lengths) are applied in one elementwise op that writes
      `-inf` where a key is hidden; the softmax subtracts the row max, and a
      row whose keys are all hidden yields zeros (never NaN). Tiling with
      online softmax is `-tfm-tile-sram`'s job, before this pass.
    - `tfm.softmax` gives zeros for a slice of `-inf`.
    - `tfm.alibi_slopes` folds to a constant.

    **Untouched.** `tfm.weight` (see `-tfm-materialize-entry`), function
    signatures, and ops of other dialects.

    **Errors.** An op whose operands break the op's contract in a way the
    lowering depends on (a dynamic model dimension, `sliding_window` without
    `window`, a gated activation on `tfm.activation`) is reported with
    `emitOpError` and the pass fails.

    ```mlir
    // before
    %y = tfm.scale %x {factor = 0.5 : f64} : tensor<?x64xf32>
    // after
    %c0 = arith.constant 0 : index
    %d0 = tensor.dim %x, %c0 : tensor<?x64xf32>
    %e = tensor.empty(%d0) : tensor<?x64xf32>
    %y = linalg.generic {indexing_maps = [#id, #id],
                         iterator_types = ["parallel", "parallel"]}
        ins(%x : tensor<?x64xf32>) outs(%e : tensor<?x64xf32>) {
    ^bb0(%in: f32, %out: f32):
      %h = arith.constant 5.000000e-01 : f32
      %m = arith.mulf %in, %h : f32
      linalg.yield %m : f32
    } -> tensor<?x64xf32>
    ```
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Entry ABI
//===----------------------------------------------------------------------===//

def MaterializeEntryPass : Pass<"tfm-materialize-entry", "ModuleOp"> {
  let summary = "Turn tfm.weight into weights-table loads and @forward into the C entry ABI";
  let description = [{
    `tfm.weight "n" => llvm.load (weights[i]) + memref descriptor + bufferization.to_tensor`,
    `func @forward(inputs) -> R => func @forward(!llvm.ptr, inputs, memref<R>)`

    Implements the lowering contract of docs/architecture.md for the function
    marked `tfm.entry`:

    - a leading `!llvm.ptr` argument is added: the table of weight pointers.
      Every distinct `tfm.weight` name gets one slot, in order of first
      appearance; `tfm.weight` ops are replaced by a load of the slot and a
      memref descriptor (contiguous, row-major, static shape) built with
      `llvm` ops and cast to the memref type with
      `builtin.unrealized_conversion_cast` (the casts vanish in
      `reconcile-unrealized-casts` after `finalize-memref-to-llvm`), then
      `bufferization.to_tensor restrict`;
    - the table order is written to the module attribute `tfm.weights`, an
      array of `{name, shape}` dictionaries;
    - the tensor result becomes a trailing out-parameter memref (identity
      layout) written with `bufferization.materialize_in_destination`; the
      function returns nothing and carries `llvm.emit_c_interface`; input
      tensors are marked `bufferization.writable = false` so generated code
      never writes into the caller's buffers;
    - the global `tfm_model_manifest` (NUL-terminated JSON,
      `"format": "tfm-manifest/1"`) is emitted from the module attributes
      `tfm.model_name`, `tfm.architecture`, `tfm.vocab_size`,
      `tfm.max_seq_len`, `tfm.output`, the result's static trailing
      dimensions and the weight table;
    - with `embed-weights=<file>`, the bytes of that file become
      `tfm_embedded_weights` (64-byte aligned) and their count
      `tfm_embedded_weights_size` (i64).

    **Input invariant.** `tfm.weight` ops appear only in the entry function,
    each with a static f32 shape, one shape per name; the entry returns one
    ranked tensor. A module without a `tfm.entry` function is left
    unchanged (unless it contains `tfm.weight`, which is an error: nothing
    else can provide the data).
  }];
  let options = [
    Option<"embedWeights", "embed-weights", "std::string", /*default=*/"",
           "Path of a weights file (safetensors) whose bytes are embedded "
           "as tfm_embedded_weights">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::memref::MemRefDialect",
  ];
}

//===----------------------------------------------------------------------===//
// Final check
//===----------------------------------------------------------------------===//

def CheckLLVMLegalPass : Pass<"tfm-check-llvm-legal", "ModuleOp"> {
  let summary = "Fail unless only the llvm dialect (and builtin.module) is left";
  let description = [{
    Conversion passes succeed while leaving illegal ops behind; the failure
    would only show at translation to LLVM IR, far from its cause. This pass
    ends `-tfm-lower-to-llvm`: it reports every op that is neither in the
    `llvm` dialect nor a `builtin.module`, by name and location, and fails.
  }];
}

#endif // TFM_CONVERSION_PASSES_TD
