//===- ModelBench.h - whole compiled models ---------------------*- C++ -*-===//
//
// `tfm-bench model`: compile a model with the tfmc path and time its
// forward pass through the C ABI.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_BENCH_MODELBENCH_H
#define TFM_BENCH_MODELBENCH_H

#include "Harness.h"

namespace tfm::bench {

int runModelBench(Args &args);

} // namespace tfm::bench

#endif // TFM_BENCH_MODELBENCH_H
