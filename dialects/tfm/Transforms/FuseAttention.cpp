//===- FuseAttention.cpp - raise unfused attention into tfm.attention -----===//
//
// matmul(softmax(mask(scale * matmul(Q, K^T)) + bias), V) => tfm.attention.
// The matcher walks backwards from the P.V matmul and records every op it
// consumes; it rewrites only when the whole chain matched and no intermediate
// escapes. See Passes.td for the exact rules.
//
//===----------------------------------------------------------------------===//

#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"
#include "tfm/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/Debug.h"

#include <cmath>
#include <optional>

#define DEBUG_TYPE "tfm-fuse-attention"

namespace mlir::tfm {
#define GEN_PASS_DEF_FUSEATTENTIONPASS
#include "tfm/Transforms/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// Why a candidate was left alone; one pass statistic each.
enum class Reject {
  SoftmaxAxis,
  OtherUses,
  Mask,
  FillValue,
  Scale,
  Structure,
};

/// The statistic that counts `reason`, as named in Passes.td.
StringRef getReasonName(Reject reason) {
  switch (reason) {
  case Reject::SoftmaxAxis:
    return "rejected-softmax-axis";
  case Reject::OtherUses:
    return "rejected-other-uses";
  case Reject::Mask:
    return "rejected-mask";
  case Reject::FillValue:
    return "rejected-fill-value";
  case Reject::Scale:
    return "rejected-scale";
  case Reject::Structure:
    return "rejected-structure";
  }
  llvm_unreachable("unknown rejection reason");
}

/// A masked_fill value at or below this is treated like -inf.
constexpr double kMaxFillValue = -1.0e4;

/// What a candidate matched so far: the operands and attributes of the
/// tfm.attention to build and the ops it replaces.
struct Chain {
  Value query, key, value;
  double scale = 1.0;
  // Mask, from a tfm.make_mask feeding a tfm.masked_fill.
  MakeMaskOp mask;
  // ALiBi, from a tfm.alibi_bias added to the scores.
  AlibiBiasOp alibi;
  // Any other additive bias.
  Value bias;
  /// The score values of the chain, from S = Q.K^T to the softmax input.
  llvm::SmallPtrSet<Value, 8> scores;
  /// Every op the fused op replaces (the P.V matmul included).
  llvm::SetVector<Operation *> ops;
  /// tfm.make_mask and tfm.alibi_bias ops the fused op absorbs. They read
  /// only a shape, so they may be shared with other chains; they are erased
  /// when nothing else uses them.
  llvm::SetVector<Operation *> side;
  /// tfm.repeat_kv ops folded into GQA grouping; erased if they become dead.
  SmallVector<Operation *, 2> repeats;
};

/// A failed match: the reason and a message for the remark.
struct Failure {
  Reject reason;
  std::string message;
};

/// Either success or the first reason a candidate does not match.
using MatchResult = std::optional<Failure>;

MatchResult reject(Reject reason, const Twine &message) {
  return Failure{reason, message.str()};
}

/// Returns the value of a splat floating-point constant.
std::optional<double> getSplatConstant(Value v) {
  DenseElementsAttr attr;
  if (!matchPattern(v, m_Constant(&attr)) || !attr.isSplat() ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  return attr.getSplatValue<APFloat>().convertToDouble();
}

/// If `v` is produced by a scale-like op (tfm.scale, arith.mulf or
/// arith.divf by a splat constant), returns the op's scaled input and its
/// factor. Sets `bad` when `v` comes from an arith.mulf/divf that is not a
/// finite constant scale.
std::optional<std::pair<Value, double>> matchScale(Value v, bool &bad) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return std::nullopt;
  if (auto scale = dyn_cast<ScaleOp>(def))
    return std::make_pair(scale.getInput(),
                          scale.getFactor().convertToDouble());
  if (auto mul = dyn_cast<arith::MulFOp>(def)) {
    if (std::optional<double> c = getSplatConstant(mul.getRhs()))
      return std::make_pair(mul.getLhs(), *c);
    if (std::optional<double> c = getSplatConstant(mul.getLhs()))
      return std::make_pair(mul.getRhs(), *c);
    bad = true;
    return std::nullopt;
  }
  if (auto div = dyn_cast<arith::DivFOp>(def)) {
    std::optional<double> c = getSplatConstant(div.getRhs());
    if (c && *c != 0.0 && std::isfinite(1.0 / *c))
      return std::make_pair(div.getLhs(), 1.0 / *c);
    bad = true;
    return std::nullopt;
  }
  return std::nullopt;
}

/// Peels any number of scale-like ops off `v`, multiplying their factors
/// into `chain.scale`. `what` names the value for messages.
MatchResult peelScales(Value &v, Chain &chain, StringRef what) {
  while (true) {
    bool bad = false;
    std::optional<std::pair<Value, double>> s = matchScale(v, bad);
    if (bad)
      return reject(Reject::Scale, "the " + what + " are multiplied or "
                                       "divided by something that is not a "
                                       "finite splat constant");
    if (!s)
      return std::nullopt;
    if (!std::isfinite(s->second))
      return reject(Reject::Scale,
                    "a scale factor of the " + what + " is not finite");
    chain.ops.insert(v.getDefiningOp());
    chain.scale *= s->second;
    v = s->first;
  }
}

/// True if `perm` swaps the last two of four dimensions.
bool isKeyTranspose(ArrayRef<int64_t> perm) {
  return perm.size() == 4 && perm[0] == 0 && perm[1] == 1 && perm[2] == 3 &&
         perm[3] == 2;
}

/// Steps 3 and 4: scales on the scores, then S = Q.K^T with scales on Q and
/// K folded in.
MatchResult matchScores(Value x, Chain &chain) {
  chain.scores.insert(x);
  if (MatchResult r = peelScales(x, chain, "scores"))
    return r;
  chain.scores.insert(x);
  auto qk = x.getDefiningOp<MatmulOp>();
  if (!qk)
    return reject(Reject::Structure,
                  "the softmax input does not come from a tfm.matmul through "
                  "scales, masks and biases");
  chain.ops.insert(qk);
  Value q = qk.getLhs(), k = qk.getRhs();
  if (MatchResult r = peelScales(q, chain, "queries"))
    return r;
  if (MatchResult r = peelScales(k, chain, "keys"))
    return r;
  if (!qk.getTransposeRhs()) {
    auto t = k.getDefiningOp<TransposeOp>();
    if (!t || !isKeyTranspose(t.getPermutation()))
      return reject(Reject::Structure,
                    "the scores matmul's right operand is not K transposed "
                    "(tfm.transpose [0, 1, 3, 2] or transpose_rhs)");
    chain.ops.insert(t);
    k = t.getInput();
    if (MatchResult r = peelScales(k, chain, "keys"))
      return r;
  }
  chain.query = q;
  chain.key = k;
  return std::nullopt;
}

/// Step 2: mask and bias layers between the scaled scores and the softmax.
/// `last` is true for the softmax input itself.
MatchResult matchLayers(Value x, Chain &chain, bool last) {
  Operation *def = x.getDefiningOp();
  if (auto fill = dyn_cast_or_null<MaskedFillOp>(def)) {
    if (chain.mask)
      return reject(Reject::Structure, "more than one masked_fill");
    double value = fill.getValue().convertToDouble();
    if (!(value <= kMaxFillValue)) {
      std::string text;
      llvm::raw_string_ostream(text) << value;
      return reject(Reject::FillValue, "the masked_fill value " + text +
                                           " is neither -inf nor <= -1e4");
    }
    // A finite fill stays "very negative" only if nothing is added to it.
    if (!last && !std::isinf(value))
      return reject(Reject::FillValue,
                    "a bias is added after a masked_fill with a finite value; "
                    "only -inf stays masked whatever is added");
    auto mask = fill.getMask().getDefiningOp<MakeMaskOp>();
    if (!mask)
      return reject(Reject::Mask, "the masked_fill mask is not a "
                                  "tfm.make_mask, so its kind is unknown");
    chain.mask = mask;
    chain.scores.insert(x);
    chain.ops.insert(fill);
    chain.side.insert(mask);
    return matchLayers(fill.getInput(), chain, /*last=*/false);
  }
  if (auto add = dyn_cast_or_null<AddOp>(def)) {
    chain.scores.insert(x);
    chain.ops.insert(add);
    // ALiBi on either side.
    for (auto [scores, other] : {std::make_pair(add.getLhs(), add.getRhs()),
                                 std::make_pair(add.getRhs(), add.getLhs())}) {
      auto alibi = other.getDefiningOp<AlibiBiasOp>();
      if (!alibi)
        continue;
      if (chain.alibi)
        return reject(Reject::Structure, "more than one ALiBi bias");
      chain.alibi = alibi;
      chain.side.insert(alibi);
      return matchLayers(scores, chain, /*last=*/false);
    }
    if (chain.bias)
      return reject(Reject::Structure, "more than one additive bias");
    // A plain additive bias: try the left operand as the scores, then the
    // right one.
    Chain saved = chain;
    chain.bias = add.getRhs();
    MatchResult first = matchLayers(add.getLhs(), chain, /*last=*/false);
    if (!first)
      return std::nullopt;
    chain = saved;
    chain.bias = add.getLhs();
    MatchResult second = matchLayers(add.getRhs(), chain, /*last=*/false);
    if (!second)
      return std::nullopt;
    // Report the attempt that got further: a structural mismatch usually
    // means the wrong operand was taken for the scores.
    return first->reason == Reject::Structure &&
                   second->reason != Reject::Structure
               ? second
               : first;
  }
  return matchScores(x, chain);
}

/// True if the shape of `v` provably equals that of the chain's scores.
bool isOverScores(Value v, const Chain &chain) {
  if (chain.scores.contains(v))
    return true;
  auto type = cast<RankedTensorType>(v.getType());
  Value s = *chain.scores.begin();
  return type.hasStaticShape() &&
         type.getShape() == cast<RankedTensorType>(s.getType()).getShape();
}

/// Steps 1 to 5 from the P.V matmul `pv`.
MatchResult matchChain(MatmulOp pv, Chain &chain) {
  auto softmax = pv.getLhs().getDefiningOp<SoftmaxOp>();
  if (!softmax)
    return reject(Reject::Structure, "not a softmax");
  chain.ops.insert(pv);
  chain.ops.insert(softmax);
  int64_t rank = softmax.getType().getRank();
  if (rank != 4)
    return reject(Reject::Structure,
                  "the scores have rank " + Twine(rank) + ", not 4");
  if (softmax.getAxisAttr().getInt() != rank - 1)
    return reject(Reject::SoftmaxAxis,
                  "the softmax runs over axis " +
                      Twine(softmax.getAxisAttr().getInt()) +
                      ", not the key axis 3");
  if (pv.getTransposeRhs())
    return reject(Reject::Structure, "the P.V matmul has transpose_rhs");
  chain.value = pv.getRhs();
  if (MatchResult r = matchLayers(softmax.getInput(), chain, /*last=*/true))
    return r;

  // The mask and the ALiBi bias must be built over these scores.
  if (chain.mask && !isOverScores(chain.mask.getScores(), chain))
    return reject(Reject::Mask, "the tfm.make_mask is not built over these "
                                "scores, so its shape is not provably theirs");
  if (chain.alibi && !isOverScores(chain.alibi.getScores(), chain))
    return reject(Reject::Mask, "the tfm.alibi_bias is not built over these "
                                "scores, so its shape is not provably theirs");
  if (!std::isfinite(chain.scale))
    return reject(Reject::Scale, "the product of the scale factors is not "
                                 "finite");

  // Nothing the chain computes may escape it. A make_mask or alibi_bias
  // that reads a score value must die with the chain.
  for (Operation *op : chain.ops) {
    if (op == pv)
      continue;
    for (Operation *user : op->getUsers()) {
      if (chain.ops.contains(user))
        continue;
      if (chain.side.contains(user) &&
          llvm::all_of(user->getUsers(), [&](Operation *sideUser) {
            return chain.ops.contains(sideUser);
          }))
        continue;
      return reject(Reject::OtherUses,
                    "the result of " + op->getName().getStringRef() +
                        " has a user outside the attention chain");
    }
  }
  // Operands of the fused op must not come from ops that are erased.
  for (Value v : {chain.query, chain.key, chain.value, chain.bias})
    if (v && v.getDefiningOp() && chain.ops.contains(v.getDefiningOp()))
      return reject(Reject::Structure,
                    "an attention operand is computed by the chain itself");

  // Fold the K/V repetition into GQA grouping.
  auto rk = chain.key.getDefiningOp<RepeatKvOp>();
  auto rv = chain.value.getDefiningOp<RepeatKvOp>();
  if (rk && rv && rk.getRepeats() == rv.getRepeats()) {
    chain.key = rk.getInput();
    chain.value = rv.getInput();
    chain.repeats = {rk, rv};
  }
  return std::nullopt;
}

/// Replaces the chain by one tfm.attention and erases what became dead.
/// Records every erased op in `erased`.
void rewrite(MatmulOp pv, Chain &chain, RewriterBase &rewriter,
             llvm::DenseSet<Operation *> &erased) {
  rewriter.setInsertionPoint(pv);
  MaskKind kind = chain.mask ? chain.mask.getKind() : MaskKind::none;
  IntegerAttr window = chain.mask ? chain.mask.getWindowAttr() : nullptr;
  Value keyLengths = chain.mask ? chain.mask.getKeyLengths() : Value();
  Value slopes = chain.alibi ? chain.alibi.getSlopes() : Value();
  auto attention = AttentionOp::create(
      rewriter, pv.getLoc(), pv.getType(), chain.query, chain.key, chain.value,
      keyLengths, /*offsets=*/Value(), slopes, chain.bias,
      APFloat(chain.scale), kind, window);
  rewriter.replaceOp(pv, attention.getResult());
  erased.insert(pv);

  // Erase users before producers: repeatedly erase every op that has no
  // uses left. The match guaranteed that all of chain.ops die; side ops and
  // repeats die unless something else still uses them.
  llvm::SetVector<Operation *> pending;
  for (Operation *op : chain.ops)
    if (op != pv)
      pending.insert(op);
  pending.insert(chain.side.begin(), chain.side.end());
  pending.insert(chain.repeats.begin(), chain.repeats.end());
  bool progress = true;
  while (progress) {
    progress = false;
    for (Operation *op : llvm::to_vector(pending)) {
      if (!op->use_empty())
        continue;
      // The splat constants of arith scales die with them.
      for (Value operand : op->getOperands())
        if (auto cst = operand.getDefiningOp<arith::ConstantOp>())
          pending.insert(cst);
      pending.remove(op);
      erased.insert(op);
      rewriter.eraseOp(op);
      progress = true;
    }
  }
  assert(llvm::none_of(pending,
                       [&](Operation *op) { return chain.ops.contains(op); }) &&
         "a chain op survived the rewrite");
}

struct FuseAttentionPass
    : public tfm::impl::FuseAttentionPassBase<FuseAttentionPass> {
  using Base::Base;
  // The counters are per instance: a copy starts from zero.
  FuseAttentionPass(const FuseAttentionPass &other) : Base(other) {}

  void runOnOperation() override {
    // Collect first: rewriting erases ops the walk would visit.
    SmallVector<MatmulOp> candidates;
    getOperation()->walk([&](MatmulOp op) {
      if (op.getLhs().getDefiningOp<SoftmaxOp>())
        candidates.push_back(op);
    });
    IRRewriter rewriter(&getContext());
    llvm::DenseSet<Operation *> erased;
    for (MatmulOp pv : candidates) {
      // A candidate can be part of an earlier chain (as its Q.K^T matmul).
      if (erased.contains(pv))
        continue;
      Chain chain;
      if (MatchResult failure = matchChain(pv, chain)) {
        ++getRejectionCounter(failure->reason);
        LLVM_DEBUG(llvm::dbgs() << "rejected " << pv << ": "
                                << failure->message << "\n");
        if (reportRejections)
          pv.emitRemark() << "not fused into tfm.attention ("
                          << getReasonName(failure->reason)
                          << "): " << failure->message;
        continue;
      }
      rewrite(pv, chain, rewriter, erased);
      ++fused;
    }
  }

  PassStatistic &getRejectionCounter(Reject reason) {
    switch (reason) {
    case Reject::SoftmaxAxis:
      return rejectedSoftmaxAxis;
    case Reject::OtherUses:
      return rejectedOtherUses;
    case Reject::Mask:
      return rejectedMask;
    case Reject::FillValue:
      return rejectedFillValue;
    case Reject::Scale:
      return rejectedScale;
    case Reject::Structure:
      return rejectedStructure;
    }
    llvm_unreachable("unknown rejection reason");
  }

  // The statistics of Passes.td (same names and descriptions), counted on
  // every LLVM build: see tfm/Transforms/PassStatistics.h.
  PassStatistic fused{this, numFused, "fused",
                      "Attention chains fused into tfm.attention"};
  PassStatistic rejectedSoftmaxAxis{
      this, numRejectedSoftmaxAxis, "rejected-softmax-axis",
      "Candidates rejected: softmax not over the key (last) axis"};
  PassStatistic rejectedOtherUses{
      this, numRejectedOtherUses, "rejected-other-uses",
      "Candidates rejected: an intermediate result has users outside the "
      "chain"};
  PassStatistic rejectedMask{
      this, numRejectedMask, "rejected-mask",
      "Candidates rejected: a mask or ALiBi bias is not a "
      "tfm.make_mask/tfm.alibi_bias provably over these scores"};
  PassStatistic rejectedFillValue{
      this, numRejectedFillValue, "rejected-fill-value",
      "Candidates rejected: masked_fill value is neither -inf nor <= -1e4, "
      "or finite with a bias added after it"};
  PassStatistic rejectedScale{
      this, numRejectedScale, "rejected-scale",
      "Candidates rejected: a scale is not a finite splat constant"};
  PassStatistic rejectedStructure{
      this, numRejectedStructure, "rejected-structure",
      "Candidates rejected: the chain is not matmul, scale, mask/bias, "
      "softmax, matmul"};
};

} // namespace
