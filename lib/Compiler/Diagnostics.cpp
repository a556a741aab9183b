//===- Diagnostics.cpp - diagnostics in the words of the model ------------===//

#include "tfm/Compiler/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace tfm {

std::string describeLocation(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string child = describeLocation(name.getChildLoc());
    return child.empty() ? name.getName().str()
                         : child + ": " + name.getName().str();
  }
  if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    // The frontend points every op at the model file itself (1:1).
    if (file.getLine() == 1 && file.getColumn() == 1)
      return file.getFilename().str();
    return (file.getFilename().getValue() + ":" +
            llvm::Twine(file.getLine()) + ":" +
            llvm::Twine(file.getColumn()))
        .str();
  }
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    std::string out;
    llvm::StringSet<> seen;
    for (Location part : fused.getLocations()) {
      std::string s = describeLocation(part);
      if (s.empty() || !seen.insert(s).second)
        continue;
      out += (out.empty() ? "" : ", ") + s;
    }
    return out;
  }
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return describeLocation(call.getCallee());
  if (auto opaque = dyn_cast<OpaqueLoc>(loc))
    return describeLocation(opaque.getFallbackLocation());
  return "";
}

LogicalResult printDiagnostic(Diagnostic &diag) {
  llvm::raw_ostream &os = llvm::errs();
  auto print = [&](Diagnostic &d) {
    switch (d.getSeverity()) {
    case DiagnosticSeverity::Error:
      llvm::WithColor::error(os, "tfmc");
      break;
    case DiagnosticSeverity::Warning:
      llvm::WithColor::warning(os, "tfmc");
      break;
    case DiagnosticSeverity::Note:
      llvm::WithColor::note(os, "tfmc");
      break;
    case DiagnosticSeverity::Remark:
      llvm::WithColor::remark(os, "tfmc");
      break;
    }
    std::string where = describeLocation(d.getLocation());
    if (!where.empty())
      os << where << ": ";
    os << d << "\n";
  };
  print(diag);
  for (Diagnostic &note : diag.getNotes())
    print(note);
  return success();
}

std::string modelPlace(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc)) {
    std::string inner = modelPlace(name.getChildLoc());
    bool innerIsName = isa<NameLoc>(name.getChildLoc());
    return innerIsName ? name.getName().str() + "." + inner
                       : name.getName().str();
  }
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location part : fused.getLocations())
      if (isa<NameLoc>(part))
        return modelPlace(part);
  if (auto call = dyn_cast<CallSiteLoc>(loc))
    return modelPlace(call.getCallee());
  return describeLocation(loc);
}

} // namespace tfm
