/*===- team_model.c - a stand-in model that reports its OpenMP team -------===*\
|*                                                                            *|
|* A decoder (V = 2, one weight "w" of shape [1]) whose forward runs one      *|
|* OpenMP parallel region, as generated code does, and writes what it saw:    *|
|* out[b, t, 0] = the team size, out[b, t, 1] = omp_get_max_threads() at     *|
|* entry. Compiled with -fopenmp, so the runtime's thread-count setting is    *|
|* observable without timing.                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include <omp.h>
#include <stdint.h>

#include "tfm/Runtime/MemRefDescriptor.h"

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"team\", "
    "\"architecture\": \"decoder\", \"vocab_size\": 2, \"max_seq_len\": 4, "
    "\"output\": \"logits\", \"output_dims\": [2], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"w\", \"shape\": [1]}]}";

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_3d *out) {
  (void)weights;
  (void)lens;
  (void)positions;
  int maxThreads = omp_get_max_threads();
  int team = 0;
#pragma omp parallel
  {
#pragma omp single
    team = omp_get_num_threads();
  }
  int64_t n = ids->sizes[0] * ids->sizes[1];
  for (int64_t i = 0; i < n; ++i) {
    out->aligned[2 * i] = (float)team;
    out->aligned[2 * i + 1] = (float)maxThreads;
  }
}
