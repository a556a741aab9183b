//===- Passes.td - tfm conversions -------------------------*- tablegen -*-===//
//
// Conversions out of the tfm dialect, documented as contracts: what the input
// must look like, what the output is, and what stays untouched.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

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

    `tfm.cache_append` becomes an `scf.for` over the sequences that
    inserts each one's new rows into the loop-carried cache; afterwards a
    `tensor.dim` of such a loop's result is folded to the dim of its init,
    so that a generation step's chain of appends has the dims of the
    function's cache argument (bufferization's subset analysis would
    otherwise prove them equal through every loop, minutes for GPT-2).

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
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

#endif // TFM_CONVERSION_PASSES_TD
