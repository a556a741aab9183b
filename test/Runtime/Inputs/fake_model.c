/*===- fake_model.c - a hand-written stand-in for generated code ----------===*\
|*                                                                            *|
|* Defines the two symbols the compiler emits (tfm_model_manifest and        *|
|* _mlir_ciface_forward) for tiny models whose math is easy to check, so the *|
|* runtime's ABI, validation and weight binding are tested independently of  *|
|* the compiler. Every call checks the memref descriptors the runtime built  *|
|* and aborts on any mismatch.                                               *|
|*                                                                            *|
|*   default       decoder, V = 6, out[b,t,:] = E[id] + bias + 100 * pos[b]  *|
|*                 (t < len; pos: the positions input), -1000 at padded     *|
|*                 positions                                                 *|
|*   FAKE_CLASSES  encoder, 3 classes, out[b,c] = sum_{t<len} W[c][id]       *|
|*   FAKE_SEQ2SEQ  encoder_decoder, out[b,t,:] = E[tgt] + E[src[len_src-1]]  *|
|*   FAKE_BAD_MANIFEST  a manifest without vocab_size (never runs)           *|
|*   FAKE_LEGACY_INPUTS  a decoder listing ids and lengths only, as before   *|
|*                 the positions input (never runs)                          *|
|*   FAKE_PREPARED the default model, reading E from a prepared tensor: its  *|
|*                 tfm_prepare writes E transposed (and bias + 1000) into    *|
|*                 the slots after the weights, forward reads them back      *|
|*   FAKE_PREPARED_MISSING  lists a prepared tensor, has no tfm_prepare      *|
|*   FAKE_STORAGE_BF16, FAKE_STORAGE_F16  one weight "w" of 8 elements stored *|
|*                 in 16 bits (the manifest's "storage"); out[b,t,j] is the  *|
|*                 bit pattern of w[j] the runtime bound, as a float         *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/MemRefDescriptor.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define V 6
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fake model: descriptor check failed: %s\n", #cond);     \
      abort();                                                                 \
    }                                                                          \
  } while (0)

__attribute__((unused)) static void checkIds(const tfm_memref_i32_2d *ids,
                                             const tfm_memref_i32_1d *lens) {
  EXPECT(ids->allocated == ids->aligned && ids->offset == 0);
  EXPECT(ids->strides[1] == 1 && ids->strides[0] == ids->sizes[1]);
  EXPECT(lens->offset == 0 && lens->strides[0] == 1);
  EXPECT(lens->sizes[0] == ids->sizes[0]);
  for (int64_t b = 0; b < ids->sizes[0]; ++b) {
    EXPECT(lens->aligned[b] >= 1 && lens->aligned[b] <= ids->sizes[1]);
    for (int64_t t = 0; t < ids->sizes[1]; ++t) {
      int32_t id = ids->aligned[b * ids->sizes[1] + t];
      EXPECT(id >= 0 && id < V);
    }
  }
}

/* The positions input of an encoder or decoder: one per sequence. */
__attribute__((unused)) static void
checkPositions(const tfm_memref_i32_2d *ids,
               const tfm_memref_i32_1d *positions) {
  EXPECT(positions->offset == 0 && positions->strides[0] == 1);
  EXPECT(positions->sizes[0] == ids->sizes[0]);
  for (int64_t b = 0; b < ids->sizes[0]; ++b)
    EXPECT(positions->aligned[b] >= 0);
}

__attribute__((unused)) static void checkOut3(const tfm_memref_f32_3d *out,
                                              int64_t b, int64_t t) {
  EXPECT(out->allocated == out->aligned && out->offset == 0);
  EXPECT(out->sizes[0] == b && out->sizes[1] == t && out->sizes[2] == V);
  EXPECT(out->strides[2] == 1 && out->strides[1] == V &&
         out->strides[0] == t * V);
}

/* out[b,t,:] = E[id] + bias - biasOffset + 100 * positions[b] (t < len),
 * -1000 at padded positions; E is read as stored ([V][V]) or transposed. */
__attribute__((unused)) static void
bigram(const tfm_memref_i32_2d *ids, const tfm_memref_i32_1d *lens,
       const tfm_memref_i32_1d *positions, tfm_memref_f32_3d *out,
       const float *e, int transposed, const float *bias, float biasOffset) {
  checkIds(ids, lens);
  checkPositions(ids, positions);
  int64_t B = ids->sizes[0], T = ids->sizes[1];
  checkOut3(out, B, T);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t) {
      int32_t id = ids->aligned[b * T + t];
      for (int v = 0; v < V; ++v)
        out->aligned[(b * T + t) * V + v] =
            t < lens->aligned[b]
                ? (transposed ? e[v * V + id] : e[id * V + v]) + bias[v] -
                      biasOffset + 100.0f * (float)positions->aligned[b]
                : -1000.0f;
    }
}

#if defined(FAKE_CLASSES)

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-classifier\", "
    "\"architecture\": \"encoder\", \"vocab_size\": 6, \"max_seq_len\": 4, "
    "\"output\": \"classes\", \"output_dims\": [3], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"classifier.weight\", \"shape\": [3, 6]}]}";

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_2d *out) {
  const float *w = weights[0];
  checkIds(ids, lens);
  checkPositions(ids, positions);
  EXPECT(out->offset == 0 && out->sizes[0] == ids->sizes[0]);
  EXPECT(out->sizes[1] == 3 && out->strides[1] == 1 && out->strides[0] == 3);
  for (int64_t b = 0; b < ids->sizes[0]; ++b)
    for (int c = 0; c < 3; ++c) {
      float sum = 0;
      for (int64_t t = 0; t < lens->aligned[b]; ++t)
        sum += w[c * V + ids->aligned[b * ids->sizes[1] + t]];
      out->aligned[b * 3 + c] = sum;
    }
}

#elif defined(FAKE_BAD_MANIFEST)

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"broken\", "
    "\"architecture\": \"decoder\", \"max_seq_len\": 4, "
    "\"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], \"weights\": []}";

void _mlir_ciface_forward(void) { abort(); }

#elif defined(FAKE_LEGACY_INPUTS)

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"old\", "
    "\"architecture\": \"decoder\", \"vocab_size\": 6, \"max_seq_len\": 4, "
    "\"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"ids\", \"lengths\"], \"weights\": []}";

void _mlir_ciface_forward(void) { abort(); }

#elif defined(FAKE_SEQ2SEQ)

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-seq2seq\", "
    "\"architecture\": \"encoder_decoder\", \"vocab_size\": 6, "
    "\"max_seq_len\": 5, \"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"src\", \"src_lengths\", \"tgt\", \"tgt_lengths\"], "
    "\"weights\": [{\"name\": \"embed.tokens\", \"shape\": [6, 6]}]}";

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *src,
                          tfm_memref_i32_1d *srcLens, tfm_memref_i32_2d *tgt,
                          tfm_memref_i32_1d *tgtLens, tfm_memref_f32_3d *out) {
  const float *e = weights[0];
  checkIds(src, srcLens);
  checkIds(tgt, tgtLens);
  EXPECT(src->sizes[0] == tgt->sizes[0]);
  checkOut3(out, tgt->sizes[0], tgt->sizes[1]);
  int64_t T = tgt->sizes[1], S = src->sizes[1];
  for (int64_t b = 0; b < tgt->sizes[0]; ++b) {
    int32_t last = src->aligned[b * S + srcLens->aligned[b] - 1];
    for (int64_t t = 0; t < T; ++t)
      for (int v = 0; v < V; ++v)
        out->aligned[(b * T + t) * V + v] =
            t < tgtLens->aligned[b]
                ? e[tgt->aligned[b * T + t] * V + v] + e[last * V + v]
                : -1000.0f;
  }
}

#elif defined(FAKE_STORAGE_BF16) || defined(FAKE_STORAGE_F16)

#if defined(FAKE_STORAGE_BF16)
#define STORAGE "bf16"
#else
#define STORAGE "f16"
#endif
const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-storage\", "
    "\"architecture\": \"decoder\", \"precision\": \"" STORAGE "\", "
    "\"vocab_size\": 8, \"max_seq_len\": 2, \"output\": \"logits\", "
    "\"output_dims\": [8], \"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"w\", \"shape\": [8], \"round\": \"" STORAGE
    "\", \"storage\": \"" STORAGE "\"}]}";

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_3d *out) {
  const uint16_t *w = weights[0];
  (void)lens;
  (void)positions;
  int64_t B = ids->sizes[0], T = ids->sizes[1];
  EXPECT(((uintptr_t)w % 2) == 0);
  EXPECT(out->sizes[0] == B && out->sizes[1] == T && out->sizes[2] == 8);
  for (int64_t i = 0; i < B * T; ++i)
    for (int j = 0; j < 8; ++j)
      out->aligned[i * 8 + j] = (float)w[j];
}

#elif defined(FAKE_PREPARED) || defined(FAKE_PREPARED_MISSING)

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-prepared\", "
    "\"architecture\": \"decoder\", \"vocab_size\": 6, \"max_seq_len\": 5, "
    "\"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"embed.tokens\", \"shape\": [6, 6]}, "
    "{\"name\": \"lm_head.bias\", \"shape\": [6]}], "
    "\"prepared\": [{\"name\": \"embed.tokens:transposed\", \"shape\": [6, "
    "6]}, "
    "{\"name\": \"lm_head.bias:plus1000\", \"shape\": [6]}]}";

#if defined(FAKE_PREPARED)
static int prepared; /* tfm_prepare must run once, before any forward */

void _mlir_ciface_tfm_prepare(void *const *weights) {
  const float *e = weights[0], *bias = weights[1];
  float *et = weights[2], *bias1000 = weights[3];
  EXPECT(!prepared);
  EXPECT(((uintptr_t)et % 64) == 0 && ((uintptr_t)bias1000 % 64) == 0);
  for (int i = 0; i < V; ++i) {
    for (int j = 0; j < V; ++j)
      et[j * V + i] = e[i * V + j];
    bias1000[i] = bias[i] + 1000.0f;
  }
  prepared = 1;
}

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_3d *out) {
  EXPECT(prepared);
  bigram(ids, lens, positions, out, weights[2], /*transposed=*/1, weights[3],
         1000.0f);
}
#else
void _mlir_ciface_forward(void) { abort(); }
#endif

#else

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-bigram\", "
    "\"architecture\": \"decoder\", \"vocab_size\": 6, \"max_seq_len\": 5, "
    "\"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"embed.tokens\", \"shape\": [6, 6]}, "
    "{\"name\": \"lm_head.bias\", \"shape\": [6]}]}";

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_3d *out) {
  bigram(ids, lens, positions, out, weights[0], /*transposed=*/0, weights[1],
         0.0f);
}

#endif
