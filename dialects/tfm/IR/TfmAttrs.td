//===- TfmAttrs.td - tfm attributes and enums --------------*- tablegen -*-===//

#ifndef TFM_IR_TFMATTRS_TD
#define TFM_IR_TFMATTRS_TD

include "tfm/IR/TfmBase.td"
include "mlir/IR/EnumAttr.td"

def Tfm_MaskKind : I32EnumAttr<"MaskKind", "structured attention mask", [
    I32EnumAttrCase<"none", 0>,
    I32EnumAttrCase<"causal", 1>,
    I32EnumAttrCase<"sliding_window", 2>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_MaskKindAttr : EnumAttr<Tfm_Dialect, Tfm_MaskKind, "mask"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_Activation : I32EnumAttr<"Activation", "activation function", [
    I32EnumAttrCase<"relu", 0>,
    I32EnumAttrCase<"gelu", 1>,
    I32EnumAttrCase<"gelu_tanh", 2>,
    I32EnumAttrCase<"silu", 3>,
    I32EnumAttrCase<"swiglu", 4>,
    I32EnumAttrCase<"geglu", 5>,
    I32EnumAttrCase<"tanh", 6>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_ActivationAttr : EnumAttr<Tfm_Dialect, Tfm_Activation, "activation"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_WeightLayout : I32EnumAttr<"WeightLayout", "storage layout of a projection weight", [
    I32EnumAttrCase<"out_in", 0>,
    I32EnumAttrCase<"in_out", 1>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_WeightLayoutAttr : EnumAttr<Tfm_Dialect, Tfm_WeightLayout, "layout"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_RopeStyle : I32EnumAttr<"RopeStyle", "how RoPE pairs the features of a head", [
    I32EnumAttrCase<"rotate_half", 0>,
    I32EnumAttrCase<"interleaved", 1>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_RopeStyleAttr : EnumAttr<Tfm_Dialect, Tfm_RopeStyle, "rope_style"> {
  let assemblyFormat = "`<` $value `>`";
}

def Tfm_Pooling : I32EnumAttr<"Pooling", "which position a classifier head reads", [
    I32EnumAttrCase<"first", 0>,
    I32EnumAttrCase<"last", 1>
  ]> {
  let cppNamespace = "::mlir::tfm";
  let genSpecializedAttr = 0;
}
def Tfm_PoolingAttr : EnumAttr<Tfm_Dialect, Tfm_Pooling, "pooling"> {
  let assemblyFormat = "`<` $value `>`";
}

#endif // TFM_IR_TFMATTRS_TD
