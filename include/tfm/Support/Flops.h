//===- Flops.h - the FLOP conventions of tfm's reports ----------*- C++ -*-===//
//
// The one place where tfm counts FLOPs. tfm-bench (and bench/run.py, which
// reads its JSON) and `tfmc --report` answer different questions, so there
// are two conventions, and every count carries both:
//
//  * multiplyAdds ("mul-add"): 2 FLOPs per multiply-add of a GEMM or of
//    attention's two matmuls (Q.K^T and P.V), attention counted over the
//    (query, key) pairs its mask leaves visible. Bias, activation, softmax,
//    norms and embeddings are not counted. This is what a benchmark divides
//    by time: GFLOP/s comparable with a peer's GEMM/SDPA and with the
//    machine's FMA peak.
//
//  * opWork ("all"): the arithmetic of the op as the dialect defines it,
//    which `tfmc --report` uses for its roofline estimate: the multiply-adds
//    over every (query, key) score (a mask selects scores, the op still
//    defines them all), plus 4 per score for softmax (scale, max, exp,
//    sum), 1 per output element for a linear's bias and 1 per hidden
//    element for an FFN's activation (its biases are not counted).
//
// Plain integers in, no MLIR: the frontend's ModelConfig (tfm-bench model)
// and the ops' shapes (the report) both map onto these functions.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_SUPPORT_FLOPS_H
#define TFM_SUPPORT_FLOPS_H

#include <cstdint>

namespace tfm {
namespace flops {

/// Both counts of one kernel (or a sum of kernels).
struct Flops {
  double multiplyAdds = 0;
  double opWork = 0;

  Flops &operator+=(const Flops &other) {
    multiplyAdds += other.multiplyAdds;
    opWork += other.opWork;
    return *this;
  }
};

/// The structured masks of tfm.attention (mirrors mlir::tfm::MaskKind).
enum class Mask { None, Causal, SlidingWindow };

/// (query, key) pairs of one head that `mask` leaves visible, by the
/// dialect's rule: with off = tk - tq, key j is visible to query i iff
/// j <= i + off (causal) and also i + off - j < window (sliding window).
/// Exact, whatever tk - tq is; tq * tk for Mask::None.
double visiblePairs(int64_t tq, int64_t tk, Mask mask, int64_t window = 0);

/// `batch` GEMMs [m, k] x [k, n], plus a bias add per output when `bias`
/// (opWork only).
Flops gemm(int64_t batch, int64_t m, int64_t k, int64_t n, bool bias);

/// Attention of `batch` x `heads` heads, queries [tq, d], keys [tk, d],
/// values [tk, dv].
Flops attention(int64_t batch, int64_t heads, int64_t tq, int64_t tk,
                int64_t d, int64_t dv, Mask mask, int64_t window = 0);

/// An FFN block on `tokens` rows: up (and gate, when `gated`) [d, f], an
/// activation on the [tokens, f] hidden values (opWork only), down [f, d].
Flops ffn(int64_t tokens, int64_t dModel, int64_t hidden, bool gated);

} // namespace flops
} // namespace tfm

#endif // TFM_SUPPORT_FLOPS_H
