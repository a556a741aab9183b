//===- AttentionOps.cpp - attention and masking ---------------------------===//
//
// tfm.attention and its unfused pieces: tfm.split_heads, tfm.merge_heads,
// tfm.transpose, tfm.softmax, tfm.make_mask, tfm.masked_fill,
// tfm.alibi_bias, tfm.repeat_kv.
//
//===----------------------------------------------------------------------===//

#include "TfmVerify.h"
#include "tfm/IR/TfmOps.h"

#include "llvm/ADT/SmallVector.h"

#include <cmath>

using namespace mlir;
using namespace mlir::tfm;
using mlir::tfm::detail::ShapeVerifier;

namespace {
/// The mask rules shared by tfm.attention and tfm.make_mask: `window` is
/// present iff the kind is sliding_window, and positive; `key_lengths` is
/// `[B]` with B compatible with dim 0 of `ref`.
LogicalResult verifyMaskSpec(Operation *op, MaskKind kind, IntegerAttr window,
                             Value keyLengths, StringRef refName,
                             RankedTensorType ref) {
  if (kind == MaskKind::sliding_window && !window)
    return op->emitOpError("mask kind sliding_window requires a 'window' "
                           "attribute (the number of visible keys)");
  if (kind != MaskKind::sliding_window && window)
    return op->emitOpError() << "'window' is only allowed with mask kind "
                                "sliding_window, found mask kind "
                             << stringifyMaskKind(kind);
  if (window && window.getInt() <= 0)
    return op->emitOpError() << "'window' must be > 0, found "
                             << window.getInt();
  return ShapeVerifier(op).perSequence("key_lengths", keyLengths, refName,
                                       ref);
}
} // namespace

//===----------------------------------------------------------------------===//
// AttentionOp
//===----------------------------------------------------------------------===//

LogicalResult AttentionOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType q = getQuery().getType(), k = getKey().getType(),
                   val = getValue().getType(), result = getResult().getType();
  if (failed(v.rank("query", q, 4, "[B, Hq, Tq, D]")) ||
      failed(v.rank("key", k, 4, "[B, Hkv, Tk, D]")) ||
      failed(v.rank("value", val, 4, "[B, Hkv, Tk, Dv]")) ||
      failed(v.rank("result", result, 4, "[B, Hq, Tq, Dv]")))
    return failure();
  if (failed(v.sameDim("key", k, 0, "B", "query", q, 0)) ||
      failed(v.sameDim("value", val, 0, "B", "query", q, 0)) ||
      failed(v.sameDim("value", val, 1, "Hkv", "key", k, 1)) ||
      failed(v.sameDim("key", k, 3, "D, head size", "query", q, 3)) ||
      failed(v.sameDim("value", val, 2, "Tk", "key", k, 2)) ||
      failed(v.sameDim("result", result, 0, "B", "query", q, 0)) ||
      failed(v.sameDim("result", result, 1, "Hq", "query", q, 1)) ||
      failed(v.sameDim("result", result, 2, "Tq", "query", q, 2)) ||
      failed(v.sameDim("result", result, 3, "Dv", "value", val, 3)))
    return failure();
  // K and V have Q's element type, or are the 16-bit keys and values of a
  // KV cache stored in the model's precision (-tfm-narrow-kv-cache) read
  // by an f32 query.
  auto isHalf = [](Type t) { return t.isBF16() || t.isF16(); };
  bool cachedHalfKv = q.getElementType().isF32() && isHalf(k.getElementType());
  if ((!cachedHalfKv && failed(v.elementType("key", k, "query", q))) ||
      failed(v.elementType("value", val, "key", k)))
    return failure();
  // 16-bit inputs with an f32 result: Q, K and V rounded for tensor cores
  // (-tfm-apply-precision), the arithmetic in f32.
  bool halfInputs = isHalf(q.getElementType());
  if (halfInputs && !result.getElementType().isF32() &&
      result.getElementType() != q.getElementType())
    return emitOpError() << "'result' element type must be f32 or match "
                            "that of 'query' ("
                         << q.getElementType() << "), found "
                         << result.getElementType();
  if (!halfInputs && failed(v.elementType("result", result, "query", q)))
    return failure();

  int64_t hq = q.getDimSize(1), hkv = k.getDimSize(1);
  if (!ShapedType::isDynamic(hkv) && hkv <= 0)
    return emitOpError() << "'key' dim 1 (Hkv) must be > 0, found " << hkv;
  if (!ShapedType::isDynamic(hq) && !ShapedType::isDynamic(hkv) &&
      hq % hkv != 0)
    return emitOpError() << "query heads must be a multiple of key/value "
                            "heads (Hq % Hkv == 0): 'query' dim 1 is "
                         << hq << ", 'key' dim 1 is " << hkv;

  double scale = getScale().convertToDouble();
  if (!std::isfinite(scale))
    return emitOpError() << "'scale' must be finite, found " << scale;

  if (failed(verifyMaskSpec(*this, getMask(), getWindowAttr(),
                            getKeyLengths(), "query", q)))
    return failure();

  if (failed(v.perSequence("offsets", getOffsets(), "query", q)))
    return failure();

  if (Value alibi = getAlibiSlopes()) {
    auto type = cast<RankedTensorType>(alibi.getType());
    if (failed(v.rank("alibi_slopes", type, 1, "[Hq]")) ||
        failed(v.sameDim("alibi_slopes", type, 0, "Hq", "query", q, 1)) ||
        failed(v.elementType("alibi_slopes", type, "result", result)))
      return failure();
  }
  if (Value bias = getBias()) {
    auto type = cast<RankedTensorType>(bias.getType());
    if (failed(v.rank("bias", type, 4, "[B, Hq, Tq, Tk]")) ||
        failed(v.sameDim("bias", type, 0, "B", "query", q, 0)) ||
        failed(v.sameDim("bias", type, 1, "Hq", "query", q, 1)) ||
        failed(v.sameDim("bias", type, 2, "Tq", "query", q, 2)) ||
        failed(v.sameDim("bias", type, 3, "Tk", "key", k, 2)) ||
        failed(v.elementType("bias", type, "result", result)))
      return failure();
  }
  return success();
}

int64_t AttentionOp::getGroupSize() {
  int64_t hq = getQuery().getType().getDimSize(1);
  int64_t hkv = getKey().getType().getDimSize(1);
  if (ShapedType::isDynamic(hq) || ShapedType::isDynamic(hkv))
    return ShapedType::kDynamic;
  return hq / hkv;
}

//===----------------------------------------------------------------------===//
// CacheAppendOp
//===----------------------------------------------------------------------===//

LogicalResult CacheAppendOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType update = getUpdate().getType(), cache = getCache().getType();
  ArrayRef<int64_t> index = getIndex();
  int64_t k = static_cast<int64_t>(index.size());
  if (failed(v.rank("update", update, 4, "[B, H, T, D]")) ||
      failed(v.rank("cache", cache, 4 + k,
                    k ? "[B, <index dims>, H, C, D]" : "[B, H, C, D]")))
    return failure();
  for (auto [i, at] : llvm::enumerate(index)) {
    int64_t size = cache.getDimSize(1 + i);
    if (ShapedType::isDynamic(size))
      return emitOpError() << "'cache' dim " << 1 + i
                           << " is selected by 'index' and must be static";
    if (at < 0 || at >= size)
      return emitOpError() << "'index' element " << i << " is " << at
                           << ", outside 'cache' dim " << 1 + i << " of size "
                           << size;
  }
  if (failed(v.sameDim("update", update, 0, "B", "cache", cache, 0)) ||
      failed(v.sameDim("update", update, 1, "H", "cache", cache, 1 + k)) ||
      failed(v.sameDim("update", update, 3, "D", "cache", cache, 3 + k)) ||
      failed(v.perSequence("offsets", getOffsets(), "cache", cache)) ||
      failed(v.perSequence("lengths", getLengths(), "cache", cache)))
    return failure();
  // The same element type, or f32 keys or values written, rounded, into a
  // 16-bit cache (-tfm-narrow-kv-cache).
  Type ut = update.getElementType(), ct = cache.getElementType();
  if (ut.isF32() && (ct.isBF16() || ct.isF16()))
    return success();
  return v.elementType("update", update, "cache", cache);
}

//===----------------------------------------------------------------------===//
// SplitHeadsOp, MergeHeadsOp
//===----------------------------------------------------------------------===//

LogicalResult SplitHeadsOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  int64_t heads = getNumHeadsAttr().getInt();
  if (heads <= 0)
    return emitOpError() << "'num_heads' must be > 0, found " << heads;
  if (failed(v.rank("input", input, 3, "[B, T, H*D]")) ||
      failed(v.rank("result", result, 4, "[B, H, T, D]")) ||
      failed(v.sameDim("result", result, 0, "B", "input", input, 0)) ||
      failed(v.dim("result", result, 1, "H", heads, "'num_heads'")) ||
      failed(v.sameDim("result", result, 2, "T", "input", input, 1)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  int64_t features = input.getDimSize(2);
  if (ShapedType::isDynamic(features))
    return success();
  if (features % heads != 0)
    return emitOpError() << "'input' dim 2 (H*D) must be divisible by "
                            "'num_heads': "
                         << features << " is not a multiple of " << heads;
  return v.dim("result", result, 3, "D", features / heads,
               "'input' dim 2 / num_heads");
}

LogicalResult MergeHeadsOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  if (failed(v.rank("input", input, 4, "[B, H, T, D]")) ||
      failed(v.rank("result", result, 3, "[B, T, H*D]")) ||
      failed(v.sameDim("result", result, 0, "B", "input", input, 0)) ||
      failed(v.sameDim("result", result, 1, "T", "input", input, 2)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  int64_t h = input.getDimSize(1), d = input.getDimSize(3);
  if (ShapedType::isDynamic(h) || ShapedType::isDynamic(d))
    return success();
  return v.dim("result", result, 2, "H*D", h * d,
               "'input' dim 1 * 'input' dim 3");
}

//===----------------------------------------------------------------------===//
// TransposeOp
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  ArrayRef<int64_t> perm = getPermutation();
  int64_t rank = input.getRank();
  if (static_cast<int64_t>(perm.size()) != rank)
    return emitOpError() << "'permutation' must have one entry per 'input' "
                            "dimension: expected "
                         << rank << ", found " << perm.size();
  SmallVector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank)
      return emitOpError() << "'permutation' entry " << p
                           << " is out of range [0, " << rank << ")";
    if (seen[p])
      return emitOpError() << "'permutation' is not a permutation: " << p
                           << " appears twice";
    seen[p] = true;
  }
  if (failed(v.rank("result", result, rank, "the rank of 'input'")))
    return failure();
  for (int64_t i = 0; i < rank; ++i)
    if (failed(v.dim("result", result, i, "", input.getDimSize(perm[i]),
                     "'input' dim " + Twine(perm[i]) +
                         " (permutation[" + Twine(i) + "])")))
      return failure();
  return v.elementType("result", result, "input", input);
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> perm = getPermutation();
  bool identity = true;
  for (auto [i, p] : llvm::enumerate(perm))
    identity &= static_cast<int64_t>(i) == p;
  if (identity && getInput().getType() == getType())
    return getInput();
  // transpose(transpose(x, p1), p2) == transpose(x, p1[p2[k]]): fold in place.
  if (auto inner = getInput().getDefiningOp<TransposeOp>()) {
    ArrayRef<int64_t> innerPerm = inner.getPermutation();
    SmallVector<int64_t> composed;
    for (int64_t p : perm)
      composed.push_back(innerPerm[p]);
    getInputMutable().assign(inner.getInput());
    setPermutation(composed);
    return getResult();
  }
  return {};
}

//===----------------------------------------------------------------------===//
// SoftmaxOp
//===----------------------------------------------------------------------===//

LogicalResult SoftmaxOp::verify() {
  int64_t axis = getAxisAttr().getInt();
  int64_t rank = getInput().getType().getRank();
  if (axis < 0 || axis >= rank)
    return emitOpError() << "'axis' must be in [0, " << rank
                         << ") for 'input' of rank " << rank << ", found "
                         << axis;
  return success();
}

//===----------------------------------------------------------------------===//
// MakeMaskOp, MaskedFillOp, AlibiBiasOp
//===----------------------------------------------------------------------===//

LogicalResult MakeMaskOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType scores = getScores().getType(),
                   result = getResult().getType();
  if (failed(v.rank("scores", scores, 4, "[B, H, Tq, Tk]")) ||
      failed(v.sameShape("result", result, "scores", scores)))
    return failure();
  return verifyMaskSpec(*this, getKind(), getWindowAttr(), getKeyLengths(),
                        "scores", scores);
}

LogicalResult MaskedFillOp::verify() {
  ShapeVerifier v(*this);
  if (failed(v.sameShape("mask", getMask().getType(), "input",
                         getInput().getType())))
    return failure();
  if (getValue().isNaN())
    return emitOpError("'value' must not be NaN");
  return success();
}

LogicalResult AlibiBiasOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType scores = getScores().getType(),
                   slopes = getSlopes().getType(),
                   result = getResult().getType();
  if (failed(v.rank("scores", scores, 4, "[B, H, Tq, Tk]")) ||
      failed(v.rank("slopes", slopes, 1, "[H]")) ||
      failed(v.sameDim("slopes", slopes, 0, "H", "scores", scores, 1)) ||
      failed(v.elementType("slopes", slopes, "scores", scores)) ||
      failed(v.sameShape("result", result, "scores", scores)) ||
      failed(v.elementType("result", result, "scores", scores)))
    return failure();
  return success();
}

//===----------------------------------------------------------------------===//
// RepeatKvOp
//===----------------------------------------------------------------------===//

LogicalResult RepeatKvOp::verify() {
  ShapeVerifier v(*this);
  RankedTensorType input = getInput().getType(), result = getResult().getType();
  int64_t repeats = getRepeatsAttr().getInt();
  if (repeats <= 0)
    return emitOpError() << "'repeats' must be > 0, found " << repeats;
  if (failed(v.rank("input", input, 4, "[B, Hkv, T, D]")) ||
      failed(v.rank("result", result, 4, "[B, Hkv*repeats, T, D]")) ||
      failed(v.sameDim("result", result, 0, "B", "input", input, 0)) ||
      failed(v.sameDim("result", result, 2, "T", "input", input, 2)) ||
      failed(v.sameDim("result", result, 3, "D", "input", input, 3)) ||
      failed(v.elementType("result", result, "input", input)))
    return failure();
  int64_t hkv = input.getDimSize(1);
  if (ShapedType::isDynamic(hkv))
    return success();
  return v.dim("result", result, 1, "heads", hkv * repeats,
               "'input' dim 1 * repeats = " + Twine(hkv) + " * " +
                   Twine(repeats));
}

OpFoldResult RepeatKvOp::fold(FoldAdaptor) {
  if (getRepeatsAttr().getInt() == 1 && getInput().getType() == getType())
    return getInput();
  return {};
}
