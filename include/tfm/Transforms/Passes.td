//===- Passes.td - tfm Transforms passes -----------------------*- tablegen -*-===//

#ifndef TFM_TRANSFORMS_PASSES_TD
#define TFM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // TFM_TRANSFORMS_PASSES_TD
