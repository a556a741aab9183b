//===- TfmVerify.cpp - shape checks shared by tfm verifiers ---------------===//

#include "TfmVerify.h"

using namespace mlir;
using namespace mlir::tfm::detail;

namespace {
/// Prints a dimension size the way MLIR types do (`?` for dynamic).
std::string dimString(int64_t size) {
  return ShapedType::isDynamic(size) ? std::string("?") : std::to_string(size);
}
} // namespace

LogicalResult ShapeVerifier::rank(StringRef name, ShapedType type,
                                  int64_t rank, StringRef layout) {
  if (type.getRank() == rank)
    return success();
  return op->emitOpError() << "'" << name << "' must have rank " << rank
                           << " (" << layout << "), found rank "
                           << type.getRank() << " (" << type << ")";
}

LogicalResult ShapeVerifier::minRank(StringRef name, ShapedType type,
                                     int64_t rank, StringRef layout) {
  if (type.getRank() >= rank)
    return success();
  return op->emitOpError() << "'" << name << "' must have rank >= " << rank
                           << " (" << layout << "), found rank "
                           << type.getRank() << " (" << type << ")";
}

LogicalResult ShapeVerifier::dim(StringRef name, ShapedType type, int64_t idx,
                                 StringRef dimName, int64_t expected,
                                 const Twine &source) {
  int64_t found = type.getDimSize(idx);
  if (dimsCompatible(found, expected))
    return success();
  InFlightDiagnostic diag = op->emitOpError()
                            << "'" << name << "' dim " << idx;
  if (!dimName.empty())
    diag << " (" << dimName << ")";
  diag << " must equal " << source << ": expected " << dimString(expected)
       << ", found " << dimString(found);
  return diag;
}

LogicalResult ShapeVerifier::sameDim(StringRef name, ShapedType type,
                                     int64_t idx, StringRef dimName,
                                     StringRef otherName, ShapedType other,
                                     int64_t otherIdx) {
  return dim(name, type, idx, dimName, other.getDimSize(otherIdx),
             "'" + otherName + "' dim " + Twine(otherIdx));
}

LogicalResult ShapeVerifier::elementType(StringRef name, ShapedType type,
                                         StringRef refName, ShapedType ref) {
  if (type.getElementType() == ref.getElementType())
    return success();
  return op->emitOpError() << "'" << name
                           << "' element type must match that of '" << refName
                           << "': expected " << ref.getElementType()
                           << ", found " << type.getElementType();
}

LogicalResult ShapeVerifier::sameShape(StringRef name, ShapedType type,
                                       StringRef refName, ShapedType ref) {
  if (type.getRank() != ref.getRank())
    return op->emitOpError()
           << "'" << name << "' must have the rank of '" << refName
           << "': expected " << ref.getRank() << ", found " << type.getRank();
  for (int64_t i = 0, e = type.getRank(); i < e; ++i)
    if (failed(sameDim(name, type, i, "", refName, ref, i)))
      return failure();
  return success();
}

LogicalResult ShapeVerifier::perSequence(StringRef name, Value v,
                                         StringRef refName, ShapedType ref) {
  if (!v)
    return success();
  auto type = cast<ShapedType>(v.getType());
  if (failed(rank(name, type, 1, "[B]")) ||
      failed(sameDim(name, type, 0, "B", refName, ref, 0)))
    return failure();
  return success();
}
