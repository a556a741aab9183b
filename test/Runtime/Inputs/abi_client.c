/*===- abi_client.c - drives the C ABI of a model library -----------------===*\
|*                                                                            *|
|* abi_client WEIGHTS                                                        *|
|*                                                                            *|
|* Links against any tfm model library (hand-written fake or tfmc output),   *|
|* reads the model's limits from tfm_model_info, and makes one call per      *|
|* class of bad input, printing "<case>: <status>: <message>" so lit can     *|
|* check both the status and the message. Then checks that the error message *|
|* is thread-local and that separate instances run from separate threads.    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/tfm_runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void report(const char *name, tfm_status status) {
  printf("%s: %s: %s\n", name, tfm_status_string(status),
         status == TFM_OK ? "" : tfm_last_error());
}

static long long manifestInt(const char *json, const char *key) {
  const char *p = strstr(json, key);
  if (!p)
    return -1;
  p = strchr(p, ':');
  return p ? atoll(p + 1) : -1;
}

static const char *weightsPath;
static int seq2seq;
static long long vocab, maxSeq;

/* One forward call on either entry point; src = tgt for seq2seq models. */
static tfm_status forward(const tfm_model *m, const int32_t *ids, int64_t b,
                          int64_t t, const int32_t *lengths, float *out,
                          size_t capacity) {
  if (seq2seq)
    return tfm_model_forward_seq2seq(m, ids, b, t, lengths, ids, t, lengths,
                                     out, capacity);
  return tfm_model_forward(m, ids, b, t, lengths, out, capacity);
}

static void *threadRun(void *arg) {
  (void)arg;
  tfm_model *m = NULL;
  if (tfm_model_create(weightsPath, &m) != TFM_OK)
    return (void *)"create failed in thread";
  int32_t ids[2 * 2] = {1, 2, 3, 4};
  float *out = malloc(sizeof(float) * 2 * 2 * vocab);
  const char *result = NULL;
  for (int i = 0; i < 200 && !result; ++i)
    if (forward(m, ids, 2, 2, NULL, out, 2 * 2 * vocab) != TFM_OK)
      result = "forward failed in thread";
  /* An error in this thread must not show up in the main thread. */
  if (!result && forward(m, ids, 0, 2, NULL, out, 4) == TFM_OK)
    result = "zero batch accepted in thread";
  free(out);
  tfm_model_destroy(m);
  return (void *)result;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: abi_client WEIGHTS\n");
    return 2;
  }
  weightsPath = argv[1];
  printf("initial error: '%s'\n", tfm_last_error());

  tfm_model *m = NULL;
  report("create null out", tfm_model_create(weightsPath, NULL));
  report("create missing file", tfm_model_create("/nonexistent/w.st", &m));
  report("create embedded", tfm_model_create(NULL, &m));
  if (m) {
    /* The library has embedded weights: use those from here on. */
    tfm_model_destroy(m);
    m = NULL;
  }
  tfm_status created = tfm_model_create(weightsPath, &m);
  report("create", created);
  if (created != TFM_OK)
    return 1;

  const char *json = NULL;
  report("info null", tfm_model_info(m, NULL));
  report("info", tfm_model_info(m, &json));
  const char *libraryJson = NULL;
  report("library info null", tfm_library_info(NULL));
  tfm_status libraryStatus = tfm_library_info(&libraryJson);
  printf("library info: %s: same string %d\n", tfm_status_string(libraryStatus),
         libraryJson == json);
  seq2seq = strstr(json, "\"encoder_decoder\"") != NULL;
  vocab = manifestInt(json, "\"vocab_size\"");
  maxSeq = manifestInt(json, "\"max_seq_len\"");
  int classes = strstr(json, "\"classes\"") != NULL;
  printf("model: seq2seq=%d classes=%d vocab>0=%d max_seq>0=%d\n", seq2seq,
         classes, vocab > 0, maxSeq > 0);

  int64_t shape[3];
  int rank = -1;
  report("shape null model", tfm_model_output_shape(NULL, 1, 1, shape, &rank));
  report("shape null shape", tfm_model_output_shape(m, 1, 1, NULL, &rank));
  report("shape null rank", tfm_model_output_shape(m, 1, 1, shape, NULL));
  report("shape zero batch", tfm_model_output_shape(m, 0, 1, shape, &rank));
  report("shape too long", tfm_model_output_shape(m, 1, maxSeq + 1, shape, &rank));
  report("shape", tfm_model_output_shape(m, 2, 3, shape, &rank));
  printf("shape: rank %d [%lld, %lld, %lld] (last is vocab: %d)\n", rank,
         (long long)shape[0], (long long)shape[1], (long long)shape[2],
         rank == 3 ? shape[2] == vocab : shape[2] == 0);

  enum { B = 2, T = 3 };
  int32_t ids[B * T] = {0, 1, 2, 3, 4, 5};
  for (int i = 0; i < B * T; ++i)
    ids[i] %= vocab;
  int32_t lengths[B] = {3, 2};
  size_t capacity = (size_t)shape[0] * shape[1] * (rank == 3 ? shape[2] : 1);
  float *out = malloc(sizeof(float) * (capacity + 1));

  report("forward null model", forward(NULL, ids, B, T, lengths, out, capacity));
  report("forward null ids", forward(m, NULL, B, T, lengths, out, capacity));
  report("forward null out", forward(m, ids, B, T, lengths, NULL, capacity));
  report("forward zero batch", forward(m, ids, 0, T, lengths, out, capacity));
  report("forward negative batch", forward(m, ids, -1, T, lengths, out, capacity));
  report("forward zero seq", forward(m, ids, B, 0, lengths, out, capacity));
  int32_t *longIds = calloc((size_t)maxSeq + 1, sizeof(int32_t));
  report("forward too long",
         forward(m, longIds, 1, maxSeq + 1, NULL, out, capacity));
  free(longIds);
  ids[4] = (int32_t)vocab;
  report("forward id too large", forward(m, ids, B, T, lengths, out, capacity));
  ids[4] = -1;
  report("forward negative id", forward(m, ids, B, T, lengths, out, capacity));
  ids[4] = 1;
  lengths[1] = 0;
  report("forward zero length", forward(m, ids, B, T, lengths, out, capacity));
  lengths[1] = T + 1;
  report("forward length past seq", forward(m, ids, B, T, lengths, out, capacity));
  lengths[1] = 2;
  report("forward small buffer",
         forward(m, ids, B, T, lengths, out, capacity - 1));
  out[capacity] = 12345.0f;
  report("forward", forward(m, ids, B, T, lengths, out, capacity));
  printf("guard intact: %d\n", out[capacity] == 12345.0f);
  report("forward null lengths", forward(m, ids, B, T, NULL, out, capacity));
  if (seq2seq)
    report("wrong entry", tfm_model_forward(m, ids, B, T, lengths, out, capacity));
  else
    report("wrong entry", tfm_model_forward_seq2seq(m, ids, B, T, lengths, ids,
                                                    T, lengths, out, capacity));
  {
    float pixels[4] = {0, 0, 0, 0};
    report("pixels entry",
           tfm_model_forward_pixels(m, pixels, 1, out, capacity));
  }
  if (seq2seq) {
    report("masked entry", tfm_model_forward_masked(m, ids, B, T, NULL, NULL,
                                                    out, capacity));
  } else if (strstr(json, "\"fake-bigram\"")) {
    /* Hugging Face masks: row 1 is left-padded by one token. The fake model
     * adds 100 * the row's first position to E[id] (E[id][0] = 6 id). */
    int32_t mask[B * T] = {1, 1, 1, 0, 1, 1};
    int64_t v = shape[2];
    report("masked", tfm_model_forward_masked(m, ids, B, T, mask, NULL, out,
                                              capacity));
    printf("masked row 1: %g %g %g\n", out[(T + 0) * v], out[(T + 1) * v],
           out[(T + 2) * v]);
    int32_t positions[B * T] = {0, 1, 2, -7, 3, 4};
    report("masked positions", tfm_model_forward_masked(m, ids, B, T, mask,
                                                        positions, out,
                                                        capacity));
    printf("masked positions row 1: %g %g %g\n", out[(T + 0) * v],
           out[(T + 1) * v], out[(T + 2) * v]);
    int32_t hole[B * T] = {1, 0, 1, 1, 1, 1};
    report("masked hole", tfm_model_forward_masked(m, ids, B, T, hole, NULL,
                                                   out, capacity));
    positions[5] = 5;
    report("masked jump", tfm_model_forward_masked(m, ids, B, T, mask,
                                                   positions, out, capacity));
    report("masked null ids", tfm_model_forward_masked(m, NULL, B, T, mask,
                                                       NULL, out, capacity));
  }
  free(out);

  /* Errors are per thread; instances are independent. */
  forward(m, ids, 0, T, lengths, NULL, 0);
  char before[512];
  snprintf(before, sizeof before, "%s", tfm_last_error());
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i)
    pthread_create(&threads[i], NULL, threadRun, NULL);
  int threadFailures = 0;
  for (int i = 0; i < 4; ++i) {
    void *result;
    pthread_join(threads[i], &result);
    if (result) {
      printf("thread %d: %s\n", i, (const char *)result);
      ++threadFailures;
    }
  }
  printf("threads ok: %d\n", threadFailures == 0);
  printf("error unchanged by other threads: %d\n",
         strcmp(before, tfm_last_error()) == 0);

  report("destroy", tfm_model_destroy(m));
  report("destroy null", tfm_model_destroy(NULL));
  return 0;
}
