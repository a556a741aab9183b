//===- Passes.td - the model ABI ---------------------------*- tablegen -*-===//
//
// The entry ABI of a compiled model, the same for every target: the entry
// function, the weights table, the prepared tensors and the manifest
// (docs/c-abi.md, docs/architecture.md).
//
//===----------------------------------------------------------------------===//

#ifndef TFM_ABI_PASSES_TD
#define TFM_ABI_PASSES_TD

include "mlir/Pass/PassBase.td"

def OutlinePreparePass : Pass<"tfm-outline-prepare", "ModuleOp"> {
  let summary = "Move the weight computations marked tfm.prepare into @tfm_prepare, run once per model instance";
  let description = [{
    `%p = op(weights) {tfm.prepare = "name"} in @forward => %p = tfm.weight "name" prepared`
    `+ func @tfm_prepare() -> (tensor..) { %p = op(weights) ; return %p }`

    In the functions marked `tfm.entry` (`@forward` and, with
    `tfmc --generation`, the generation steps), every op carrying the string
    attribute `tfm.prepare` (made by `-tfm-pack-weights`) is computed once,
    when a model instance is created, instead of on every call: the op and
    the ops it reads (which may only be `tfm.weight`, constants,
    `tensor.empty`, reshapes and other side-effect-free ops on those) are
    cloned into a new function `@tfm_prepare` (attribute `tfm.prepare`)
    that returns the prepared tensors in order; in the entry, the op's
    result becomes `tfm.weight "<name>" prepared` and the op is erased
    (with whatever it read that nothing else uses).
    `-tfm-materialize-entry` then gives each prepared tensor a slot of the
    weights table after the file weights, lists it in the manifest's
    `prepared` field, and turns `@tfm_prepare` into
    `void _mlir_ciface_tfm_prepare(void *const *weights)`, which writes the
    prepared slots from the file weights.

    One name is one tensor: an op of a second entry function marked with a
    name already outlined is replaced by the same prepared weight (what it
    read goes too), so the steps and `@forward` share the prepared slots.

    Errors: a marked op with more than one result, inside a loop, reading
    a value that is not computed from weights alone, or two ops with one
    name and different types.
  }];
  let dependentDialects = ["::mlir::tfm::TfmDialect", "::mlir::func::FuncDialect"];
  let statistics = [
    Statistic<"numOutlined", "outlined", "Tensors moved into @tfm_prepare">,
  ];
}

def MaterializeEntryPass : Pass<"tfm-materialize-entry", "ModuleOp"> {
  let summary = "Turn tfm.weight into weights-table loads and @forward into the C entry ABI";
  let description = [{
    `tfm.weight "n" => llvm.load (weights[i]) + memref descriptor + bufferization.to_tensor`,
    `func @forward(inputs) -> R => func @forward(!llvm.ptr, inputs, memref<R>)`

    Implements the lowering contract of docs/architecture.md for the function
    marked `tfm.entry`:

    - a leading `!llvm.ptr` argument is added: the table of weight pointers.
      Every distinct `tfm.weight` name gets one slot, in order of first
      appearance (in the entry, then in `@tfm_prepare`), and every prepared
      tensor (a result of `@tfm_prepare`, read in the entry as
      `tfm.weight "name" prepared`) one of the slots after them, in
      `@tfm_prepare`'s result order; `tfm.weight` ops are replaced by a load of the slot and a
      memref descriptor (contiguous, row-major, static shape) built with
      `llvm` ops and cast to the memref type with
      `builtin.unrealized_conversion_cast` (the casts vanish in
      `reconcile-unrealized-casts` after `finalize-memref-to-llvm`), then
      `bufferization.to_tensor restrict`;
    - the table order is written to the module attribute `tfm.weights`, an
      array of `{name, shape}` dictionaries, and that of the prepared slots
      to `tfm.prepared`;
    - `@tfm_prepare` (made by `-tfm-outline-prepare`, or here with an empty
      body when there is none, so that every library exports it) gets the
      same table argument, writes each result into its prepared slot with
      `bufferization.materialize_in_destination`, returns nothing and
      carries `llvm.emit_c_interface`:
      `void _mlir_ciface_tfm_prepare(void *const *weights)`, which the
      runtime calls once per model instance;
    - the tensor result becomes a trailing out-parameter memref (identity
      layout) written with `bufferization.materialize_in_destination`; the
      function returns nothing and carries `llvm.emit_c_interface`; input
      tensors are marked `bufferization.writable = false` so generated code
      never writes into the caller's buffers;
    - the global `tfm_model_manifest` (NUL-terminated JSON,
      `"format": "tfm-manifest/1"`) is emitted from the module attributes
      `tfm.model_name`, `tfm.architecture`, `tfm.vocab_size`,
      `tfm.max_seq_len`, `tfm.output`, the result's static trailing
      dimensions, the weight table and (when there are any) the prepared
      tensors;
    - with `embed-weights=<file>`, the bytes of that file become
      `tfm_embedded_weights` (64-byte aligned) and their count
      `tfm_embedded_weights_size` (i64).

    **Generation entries.** Beside the main entry, functions named `@step`,
    `@decode` and `@encode` marked `tfm.entry` (docs/architecture.md,
    "Generation") get the same table argument and the same treatment; an
    argument carrying `tfm.inout = r` (an i64) becomes a memref that the
    function reads through `bufferization.to_tensor restrict writable` and
    writes its result `r` back into (`materialize_in_destination`), in
    place: the KV cache. Each has exactly one other result (the output
    out-parameter), `@encode` none. The manifest gets
    `"kv_cache": {"layers", "kv_heads", "head_dim"}` from `@step`'s
    `tensor<?xLx2xHkvx?xDhxf32>` in-out argument, with `"cross": true` when
    `@encode` exists. Errors: an in-out index that is not a result, is taken
    twice or has another type; a wrong result count; another entry name; a
    step without the main entry, `@decode` without `@step` or with other
    arguments, `@encode` without `@step`; a cache that is not such a
    tensor.

    **Kernel entries.** With the module attribute
    `tfm.architecture = "kernel"` the entry is a single op or fragment (what
    `tfm-bench` and tests compile), not a model: its inputs may be any
    ranked tensors, in any number; it gets the same weights table (possibly
    unused), `bufferization.writable = false` inputs, out-parameter and
    `llvm.emit_c_interface`, but no manifest, and no other model attribute
    is needed. Its C signature is
    `void _mlir_ciface_<name>(void *const *weights, <input descriptors>...,
    <output descriptor>)`. A kernel cannot be loaded by the runtime
    (`tfm_model_create` needs a manifest).

    **Input invariant.** `tfm.weight` ops appear only in the entry function
    and (not prepared) in `@tfm_prepare`, each with a static f32 shape, one
    shape per name; a prepared one names a result of `@tfm_prepare` (its
    `tfm.name`) of the same type; the entry returns one
    ranked tensor. A module without a `tfm.entry` function is left
    unchanged (unless it contains `tfm.weight`, which is an error: nothing
    else can provide the data).
  }];
  let options = [
    Option<"device", "device", "std::string", /*default=*/"\"\"",
           "Where the generated code runs, written to the manifest's "
           "\"device\" field: cpu, or cuda (the weights table, inputs and "
           "output hold device pointers; the runtime drives the kernels); "
           "empty: cuda for a module whose target is #tfm.gpu_target, else "
           "cpu">,
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

#endif // TFM_ABI_PASSES_TD
