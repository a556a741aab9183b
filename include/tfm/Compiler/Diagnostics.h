//===- Diagnostics.h - diagnostics in the words of the model ----*- C++ -*-===//
//
// tfmc prints diagnostics as `tfmc: error: <model file>: <place in the
// model>: <message>`, using the NameLocs the frontend gives every op
// ("layers.3.attn"), and never dumps the op or the module with them.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_COMPILER_DIAGNOSTICS_H
#define TFM_COMPILER_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"

#include <string>

namespace tfm {

/// "model.json: layers.3.attn" for the frontend's NameLocs over the model
/// file, "file:line:col" for IR read from text, "" when unknown.
std::string describeLocation(mlir::Location loc);

/// The place in the model alone: the NameLoc names ("layers.3.attn"), else
/// describeLocation().
std::string modelPlace(mlir::Location loc);

/// Prints `diag` and its notes to stderr as `tfmc: <severity>: <where>:
/// <message>`.
mlir::LogicalResult printDiagnostic(mlir::Diagnostic &diag);

} // namespace tfm

#endif // TFM_COMPILER_DIAGNOSTICS_H
