//===- TfmBase.td - tfm dialect definition -----------------*- tablegen -*-===//
//
// The tfm dialect: what a Transformer program is.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_IR_TFMBASE_TD
#define TFM_IR_TFMBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tfm_Dialect : Dialect {
  let name = "tfm";
  let cppNamespace = "::mlir::tfm";
  let summary = "Transformer models: attention, masking, FFN, norms, positions";
  let description = [{
    The `tfm` dialect describes the forward pass of a Transformer model in
    terms of the concepts the model is made of, not loops: token embeddings,
    positional encodings (sinusoidal, learned, RoPE, ALiBi), normalization
    (LayerNorm, RMSNorm), linear projections, scaled dot-product attention
    with structured masks and grouped K/V heads, feed-forward blocks and
    output heads. It also has the unfused building blocks (matmul, scale,
    mask construction and application, softmax) so that graphs arriving from
    elsewhere can be expressed and raised by `-tfm-fuse-attention`.

    Values are ranked tensors. Model dimensions (hidden size, heads, head
    size, vocabulary) are static; batch and sequence dimensions may be
    dynamic. Model parameters are named values produced by `tfm.weight`, so a
    module describes a model independently of where its weights live.
  }];
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::tensor::TensorDialect"];
}

class Tfm_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tfm_Dialect, mnemonic, traits>;

// Floating-point tensors the dialect computes on.
def Tfm_FloatTensor : RankedTensorOf<[F32, F16, BF16]>;
def Tfm_IndexTensor : RankedTensorOf<[I32, I64]>;
def Tfm_BoolTensor : RankedTensorOf<[I1]>;

#endif // TFM_IR_TFMBASE_TD
