/*===- fake_step_model.c - a stand-in for a library with generation -------===*\
|*                                                                            *|
|* Defines what tfmc --generation emits for a decoder (the manifest with     *|
|* "kv_cache", _mlir_ciface_forward and _mlir_ciface_step) for a tiny model  *|
|* whose next token depends on the whole sequence, so that generation with   *|
|* the cache (tfm_session_*) and without it (a forward pass over the whole   *|
|* sequence per token) must agree, and any slip in the runtime's slot        *|
|* bookkeeping changes the result.                                           *|
|*                                                                            *|
|* V = 8, max_seq_len 12, cache [L = 2][2][Hkv = 2][C][Dh = 3]. For a        *|
|* sequence x_0..x_p the logits after x_p are                                *|
|*                                                                            *|
|*   logits[v] = E[x_p][v] + bias[v] + (v == h ? 3 : 0),                     *|
|*   h = (5 * (x_0 + ... + x_p) + 3 * p + x_p) mod V.                        *|
|*                                                                            *|
|* The step stores at cache position q the key id(x_q) and the value         *|
|* value(q) (below, distinct in every layer, head and lane) and reads the    *|
|* sum back from the cached keys. Every call checks the descriptors, that    *|
|* the cached positions before each row's offset hold what earlier steps     *|
|* stored, that the rest of every slot is zero (a fresh or reset slot), and  *|
|* aborts on any mismatch. Rows of length 0 get NaN logits: the runtime must *|
|* never report them. With FAKE_STEP_TRACE set, each step prints its         *|
|* shapes, offsets and lengths to stderr.                                    *|
|*                                                                            *|
|*   FAKE_NO_STEP     the manifest has kv_cache but the step is missing       *|
|*   FAKE_HALF_CACHE  the manifest's precision and cache "storage" are bf16:  *|
|*                    the cache has 16-bit elements (the step stores its      *|
|*                    numbers as 16-bit integers: the runtime only sizes,     *|
|*                    zeroes and copies them)                                 *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/MemRefDescriptor.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define V 8
#define L 2
#define HKV 2
#define DH 3
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fake step model: check failed: %s\n", #cond);          \
      abort();                                                                 \
    }                                                                          \
  } while (0)

#if defined(FAKE_HALF_CACHE)
typedef uint16_t cache_t;
#define PRECISION "\"precision\": \"bf16\", "
#define STORAGE ", \"storage\": \"bf16\""
#else
typedef float cache_t;
#define PRECISION ""
#define STORAGE ""
#endif

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-generator\", "
    PRECISION
    "\"architecture\": \"decoder\", \"vocab_size\": 8, \"max_seq_len\": 12, "
    "\"output\": \"logits\", \"output_dims\": [8], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"embed.tokens\", \"shape\": [8, 8]}, "
    "{\"name\": \"lm_head.bias\", \"shape\": [8]}], "
    "\"kv_cache\": {\"layers\": 2, \"kv_heads\": 2, \"head_dim\": 3" STORAGE "}}";

static int32_t hashNext(int64_t sum, int64_t position, int32_t last) {
  return (int32_t)((5 * sum + 3 * position + last) % V);
}

static void writeLogits(float *row, const float *e, const float *bias,
                        int32_t last, int32_t h) {
  for (int v = 0; v < V; ++v)
    row[v] = e[last * V + v] + bias[v] + (v == h ? 3.0f : 0.0f);
}

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_3d *out) {
  const float *e = weights[0], *bias = weights[1];
  int64_t B = ids->sizes[0], T = ids->sizes[1];
  EXPECT(ids->offset == 0 && ids->strides[0] == T && ids->strides[1] == 1);
  EXPECT(positions->sizes[0] == B && positions->aligned[0] == 0);
  EXPECT(lens->sizes[0] == B && out->sizes[0] == B && out->sizes[1] == T &&
         out->sizes[2] == V);
  for (int64_t b = 0; b < B; ++b) {
    int32_t len = lens->aligned[b];
    EXPECT(len >= 1 && len <= T);
    int64_t sum = 0;
    for (int64_t t = 0; t < T; ++t) {
      float *row = &out->aligned[(b * T + t) * V];
      if (t >= len) {
        for (int v = 0; v < V; ++v)
          row[v] = -1000.0f;
        continue;
      }
      int32_t id = ids->aligned[b * T + t];
      EXPECT(id >= 0 && id < V);
      sum += id;
      writeLogits(row, e, bias, id, hashNext(sum, t, id));
    }
  }
}

#if !defined(FAKE_NO_STEP)

typedef struct {
  TFM_MEMREF_DESCRIPTOR_FIELDS(cache_t, 6);
} memref_cache_6d;

/* What the step stores for token `id` at position q (below 2^16, exact in
   both element types). */
static cache_t keyOf(int32_t id, int l, int h, int d) {
  return (cache_t)(id * 1000 + l * 100 + h * 10 + d + 1);
}
static cache_t valueOf(int64_t q, int l, int h, int d) {
  return (cache_t)(20000 + q * 1000 + l * 100 + h * 10 + d + 1);
}

void _mlir_ciface_step(void *const *weights, tfm_memref_i32_2d *ids,
                       tfm_memref_i32_1d *offsets, tfm_memref_i32_1d *lengths,
                       memref_cache_6d *cache,
                       tfm_memref_f32_2d *logits) {
  const float *e = weights[0], *bias = weights[1];
  int64_t B = ids->sizes[0], T = ids->sizes[1], C = cache->sizes[4];
  EXPECT(B >= 1 && T >= 1);
  EXPECT(ids->allocated == ids->aligned && ids->offset == 0 &&
         ids->strides[0] == T && ids->strides[1] == 1);
  EXPECT(offsets->offset == 0 && offsets->sizes[0] == B &&
         offsets->strides[0] == 1);
  EXPECT(lengths->offset == 0 && lengths->sizes[0] == B &&
         lengths->strides[0] == 1);
  EXPECT(cache->offset == 0 && cache->allocated == cache->aligned);
  EXPECT(cache->sizes[0] == B && cache->sizes[1] == L && cache->sizes[2] == 2 &&
         cache->sizes[3] == HKV && cache->sizes[5] == DH);
  EXPECT(cache->strides[5] == 1 && cache->strides[4] == DH &&
         cache->strides[3] == C * DH && cache->strides[2] == HKV * C * DH &&
         cache->strides[1] == 2 * HKV * C * DH &&
         cache->strides[0] == L * 2 * HKV * C * DH);
  EXPECT(logits->offset == 0 && logits->sizes[0] == B &&
         logits->sizes[1] == V && logits->strides[0] == V &&
         logits->strides[1] == 1);
  if (getenv("FAKE_STEP_TRACE")) {
    fprintf(stderr, "step: B=%lld T=%lld C=%lld", (long long)B, (long long)T,
            (long long)C);
    for (int64_t b = 0; b < B; ++b)
      fprintf(stderr, " %d+%d", offsets->aligned[b], lengths->aligned[b]);
    fprintf(stderr, "\n");
  }

  int64_t maxLength = 0;
  for (int64_t b = 0; b < B; ++b) {
    int32_t off = offsets->aligned[b], len = lengths->aligned[b];
    EXPECT(off >= 0 && len >= 0 && off + len <= C);
    if (len > maxLength)
      maxLength = len;
    for (int64_t t = 0; t < T; ++t) {
      int32_t id = ids->aligned[b * T + t];
      EXPECT(id >= 0 && id < V);
    }
  }
  EXPECT(T >= maxLength);

  for (int64_t b = 0; b < B; ++b) {
    int32_t off = offsets->aligned[b], len = lengths->aligned[b];
    cache_t *slot = cache->aligned + b * cache->strides[0];
    /* The past: exactly what earlier steps stored, zero after it. */
    int64_t sum = 0;
    for (int l = 0; l < L; ++l)
      for (int kv = 0; kv < 2; ++kv)
        for (int h = 0; h < HKV; ++h)
          for (int64_t q = 0; q < C; ++q)
            for (int d = 0; d < DH; ++d) {
              cache_t got = slot[l * cache->strides[1] + kv * cache->strides[2] +
                                 h * cache->strides[3] + q * DH + d];
              if (q >= off) {
                EXPECT(got == 0);
                continue;
              }
              if (kv == 1) {
                EXPECT(got == valueOf(q, l, h, d));
                continue;
              }
              int32_t id = (int32_t)(got - (l * 100 + h * 10 + d + 1)) / 1000;
              EXPECT(id >= 0 && id < V && got == keyOf(id, l, h, d));
              if (l == 0 && h == 0 && d == 0)
                sum += id;
            }
    float *row = &logits->aligned[b * V];
    if (len == 0) {
      for (int v = 0; v < V; ++v)
        row[v] = NAN;
      continue;
    }
    /* Append, then read the whole sum back from the cache. */
    for (int32_t t = 0; t < len; ++t) {
      int32_t id = ids->aligned[b * T + t];
      int64_t q = off + t;
      for (int l = 0; l < L; ++l)
        for (int h = 0; h < HKV; ++h)
          for (int d = 0; d < DH; ++d) {
            slot[l * cache->strides[1] + h * cache->strides[3] + q * DH + d] =
                keyOf(id, l, h, d);
            slot[l * cache->strides[1] + cache->strides[2] +
                 h * cache->strides[3] + q * DH + d] = valueOf(q, l, h, d);
          }
    }
    sum = 0;
    for (int64_t q = 0; q < off + len; ++q)
      sum += (int32_t)(slot[q * DH] - 1) / 1000;
    int32_t last = ids->aligned[b * T + len - 1];
    writeLogits(row, e, bias, last, hashNext(sum, off + len - 1, last));
  }
}

#endif
