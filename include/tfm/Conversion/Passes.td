//===- Passes.td - tfm Conversion passes -----------------------*- tablegen -*-===//

#ifndef TFM_CONVERSION_PASSES_TD
#define TFM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

#endif // TFM_CONVERSION_PASSES_TD
