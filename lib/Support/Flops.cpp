//===- Flops.cpp - the FLOP conventions of tfm's reports ------------------===//
//
// See Flops.h for what each convention counts and who uses it.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/Flops.h"

#include <algorithm>

using namespace tfm;
using namespace tfm::flops;

double flops::visiblePairs(int64_t tq, int64_t tk, Mask mask,
                           int64_t window) {
  if (mask == Mask::None || tq <= 0 || tk <= 0)
    return double(std::max<int64_t>(tq, 0)) * std::max<int64_t>(tk, 0);
  int64_t off = tk - tq;
  double pairs = 0;
  for (int64_t i = 0; i < tq; ++i) {
    // Keys [first, last] are visible to query i.
    int64_t last = std::min(i + off, tk - 1);
    int64_t first = mask == Mask::SlidingWindow
                        ? std::max<int64_t>(i + off - window + 1, 0)
                        : 0;
    if (last >= first)
      pairs += double(last - first + 1);
  }
  return pairs;
}

Flops flops::gemm(int64_t batch, int64_t m, int64_t k, int64_t n,
                  bool bias) {
  Flops f;
  f.multiplyAdds = 2.0 * batch * m * k * n;
  f.opWork = f.multiplyAdds + (bias ? double(batch) * m * n : 0.0);
  return f;
}

Flops flops::attention(int64_t batch, int64_t heads, int64_t tq, int64_t tk,
                       int64_t d, int64_t dv, Mask mask, int64_t window) {
  double heads2 = double(batch) * heads;
  Flops f;
  // Q.K^T: d multiply-adds per score, P.V: dv per score.
  f.multiplyAdds =
      heads2 * visiblePairs(tq, tk, mask, window) * (2.0 * d + 2.0 * dv);
  // Every score of the op, plus scale, max, exp and sum for each.
  f.opWork = heads2 * tq * tk * (2.0 * d + 2.0 * dv + 4.0);
  return f;
}

Flops flops::ffn(int64_t tokens, int64_t dModel, int64_t hidden, bool gated) {
  Flops f;
  f.multiplyAdds = 2.0 * tokens * dModel * hidden * (gated ? 3 : 2);
  f.opWork = f.multiplyAdds + double(tokens) * hidden;
  return f;
}
