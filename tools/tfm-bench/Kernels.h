//===- Kernels.h - single-op benchmarks -------------------------*- C++ -*-===//
//
// `tfm-bench attention|linear|ffn`: each builds a one-op tfm module, compiles
// it with the production pipeline, checks sampled outputs against a float64
// computation and times the compiled code.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_BENCH_KERNELS_H
#define TFM_BENCH_KERNELS_H

#include "Harness.h"

namespace tfm::bench {

int runAttentionBench(Args &args);
int runLinearBench(Args &args);
int runFfnBench(Args &args);

} // namespace tfm::bench

#endif // TFM_BENCH_KERNELS_H
