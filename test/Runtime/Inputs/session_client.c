/*===- session_client.c - drives the generation sessions of the C ABI -----===*\
|*                                                                            *|
|* session_client WEIGHTS [TOLERANCE]                                        *|
|*                                                                            *|
|* Links against a model library, creates a model and tries a session; a      *|
|* model without generation entries stops there (the error is the output).    *|
|* Otherwise makes one call per class of bad argument, printing "<case>:      *|
|* <status>: <message>" and whether the call left the session and the logits  *|
|* buffer alone, then appends to slots in every pattern (ragged, out of order *|
|* with gaps, chunked, decode on a subset, reset, copies) and compares every  *|
|* row of logits with tfm_model_forward over the slot's whole history: the    *|
|* same bits (the stand-in model) or, with TOLERANCE, values within TOLERANCE *|
|* x max(1, |forward|) (generated code, whose step sums in another order).    *|
|* Last, two sessions of one model run from two threads at once.              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/tfm_runtime.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 4
#define CONTEXT 8
#define GUARD 12345.0f

static tfm_model *model;
static long long vocab, maxSeq;
static double tolerance;
static int32_t history[SLOTS][CONTEXT];
static int64_t held[SLOTS];

static long long manifestInt(const char *json, const char *key) {
  const char *p = strstr(json, key);
  if (!p)
    return -1;
  p = strchr(p, ':');
  return p ? atoll(p + 1) : -1;
}

static void report(const char *name, tfm_status status) {
  printf("%s: %s: %s\n", name, tfm_status_string(status),
         status == TFM_OK ? "" : tfm_last_error());
}

/* The logits after the whole of `tokens` by a forward pass, into `row`. */
static int forwardLast(const int32_t *tokens, int64_t count, float *row) {
  float *out = malloc(sizeof(float) * count * vocab);
  if (tfm_model_forward(model, tokens, 1, count, NULL, out,
                        (size_t)(count * vocab)) != TFM_OK) {
    printf("forward failed: %s\n", tfm_last_error());
    free(out);
    return 0;
  }
  memcpy(row, out + (count - 1) * vocab, sizeof(float) * vocab);
  free(out);
  return 1;
}

/* Whether a row of session logits matches the forward pass's. */
static int rowMatches(const float *got, const float *expected) {
  if (tolerance == 0)
    return memcmp(got, expected, sizeof(float) * vocab) == 0;
  for (long long v = 0; v < vocab; ++v) {
    double scale = fabs(expected[v]) > 1 ? fabs(expected[v]) : 1;
    if (!(fabs((double)got[v] - expected[v]) <= tolerance * scale))
      return 0;
  }
  return 1;
}

/* How many of the n rows equal the forward pass over their slot's history
 * (which the caller has already extended), bit for bit. */
static int rowsMatching(const int64_t *slots, int64_t n, const float *logits) {
  int matching = 0;
  float *row = malloc(sizeof(float) * vocab);
  for (int64_t i = 0; i < n; ++i)
    if (forwardLast(history[slots[i]], held[slots[i]], row) &&
        rowMatches(logits + i * vocab, row))
      ++matching;
  free(row);
  return matching;
}

/* Whether the session's lengths are what the client recorded. */
static int lengthsIntact(const tfm_session *s) {
  for (int slot = 0; slot < SLOTS; ++slot) {
    int64_t length = -1;
    if (tfm_session_length(s, slot, &length) != TFM_OK || length != held[slot])
      return 0;
  }
  return 1;
}

static int guardIntact(const float *logits, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (logits[i] != GUARD)
      return 0;
  return 1;
}

static float logits[SLOTS * 64];

static void fillGuard(void) {
  for (size_t i = 0; i < sizeof(logits) / sizeof(float); ++i)
    logits[i] = GUARD;
}

/* A call that must fail: its status and message, and that nothing moved. */
static void refused(const char *name, tfm_status status, const tfm_session *s) {
  report(name, status);
  if (status == TFM_OK)
    printf("  unexpectedly accepted\n");
  else if (!lengthsIntact(s) || !guardIntact(logits, SLOTS * vocab))
    printf("  session or logits changed by a failed call\n");
}

static void prefill(tfm_session *s, const char *name, const int64_t *slots,
                    int64_t n, const int32_t *ids, int64_t seq,
                    const int32_t *lengths) {
  fillGuard();
  tfm_status status = tfm_session_prefill(s, slots, n, ids, seq, lengths,
                                          logits, n * vocab);
  if (status == TFM_OK)
    for (int64_t i = 0; i < n; ++i)
      for (int32_t t = 0; t < lengths[i]; ++t)
        history[slots[i]][held[slots[i]]++] = ids[i * seq + t];
  if (status != TFM_OK) {
    report(name, status);
    return;
  }
  printf("%s: rows match %d/%lld, guard after them intact %d\n", name,
         rowsMatching(slots, n, logits), (long long)n,
         guardIntact(logits + n * vocab, SLOTS * vocab - n * vocab));
  printf("  lengths %lld %lld %lld %lld intact %d\n", (long long)held[0],
         (long long)held[1], (long long)held[2], (long long)held[3],
         lengthsIntact(s));
}

static void decode(tfm_session *s, const char *name, const int64_t *slots,
                   int64_t n, const int32_t *ids) {
  fillGuard();
  tfm_status status =
      tfm_session_decode(s, slots, n, ids, logits, n * vocab);
  if (status == TFM_OK)
    for (int64_t i = 0; i < n; ++i)
      history[slots[i]][held[slots[i]]++] = ids[i];
  if (status != TFM_OK) {
    report(name, status);
    return;
  }
  printf("%s: rows match %d/%lld\n", name, rowsMatching(slots, n, logits),
         (long long)n);
  printf("  lengths %lld %lld %lld %lld intact %d\n", (long long)held[0],
         (long long)held[1], (long long)held[2], (long long)held[3],
         lengthsIntact(s));
}

/* tfm_session_copy_slot(src, dst), mirrored in the client's history. */
static void copySlot(tfm_session *s, const char *name, int64_t src,
                     int64_t dst) {
  tfm_status status = tfm_session_copy_slot(s, src, dst);
  report(name, status);
  if (status == TFM_OK) {
    memcpy(history[dst], history[src], sizeof(int32_t) * held[src]);
    held[dst] = held[src];
  }
  printf("  lengths %lld %lld %lld %lld intact %d\n", (long long)held[0],
         (long long)held[1], (long long)held[2], (long long)held[3],
         lengthsIntact(s));
}

/* Decodes the same token into slot `a` and its copy `b`, then empties slot
 * `fresh` and prefills it with a's whole history: the two decoded rows must
 * be the same bits, equal the forward pass (within TOLERANCE), and equal
 * the fresh slot's prefill (within TOLERANCE: one step against another). */
static void continueCopies(tfm_session *s, const char *name, int64_t a,
                           int64_t b, int64_t fresh, int32_t token) {
  int64_t pair[2] = {a, b};
  int32_t ids[2] = {token, token};
  fillGuard();
  tfm_status status = tfm_session_decode(s, pair, 2, ids, logits, 2 * vocab);
  if (status != TFM_OK) {
    report(name, status);
    return;
  }
  history[a][held[a]++] = token;
  history[b][held[b]++] = token;
  int identical = memcmp(logits, logits + vocab, sizeof(float) * vocab) == 0;
  int matching = rowsMatching(pair, 2, logits);
  float *decoded = malloc(sizeof(float) * vocab);
  memcpy(decoded, logits, sizeof(float) * vocab);
  int freshMatches = 0;
  if (tfm_session_reset(s, fresh) == TFM_OK) {
    memcpy(history[fresh], history[a], sizeof(int32_t) * held[a]);
    held[fresh] = held[a];
    int32_t length[1] = {(int32_t)held[a]};
    fillGuard();
    freshMatches = tfm_session_prefill(s, &fresh, 1, history[a], held[a],
                                       length, logits, vocab) == TFM_OK &&
                   rowMatches(logits, decoded);
  }
  free(decoded);
  printf("%s: rows match %d/2, identical %d, fresh prefill matches %d\n", name,
         matching, identical, freshMatches);
  printf("  lengths %lld %lld %lld %lld intact %d\n", (long long)held[0],
         (long long)held[1], (long long)held[2], (long long)held[3],
         lengthsIntact(s));
}

/* A session of its own: generates greedily from a prompt, checking every
 * step against the forward pass. */
static void *threadRun(void *arg) {
  int32_t tokens[CONTEXT];
  int64_t count = 0;
  tokens[count++] = (int32_t)(uintptr_t)arg;
  tokens[count++] = 2;
  tfm_session *s = NULL;
  if (tfm_session_create(model, 1, CONTEXT, &s) != TFM_OK)
    return (void *)"session create failed in thread";
  const char *result = NULL;
  float *row = malloc(sizeof(float) * vocab);
  float *expected = malloc(sizeof(float) * vocab);
  for (int round = 0; round < 50 && !result; ++round) {
    int64_t slot = 0;
    int32_t lengths[1] = {2};
    count = 2;
    tfm_session_reset(s, 0);
    if (tfm_session_prefill(s, &slot, 1, tokens, 2, lengths, row, vocab) !=
        TFM_OK)
      result = "prefill failed in thread";
    while (!result && count < CONTEXT) {
      int32_t next = 0;
      for (int v = 1; v < vocab; ++v)
        if (row[v] > row[next])
          next = v;
      tokens[count++] = next;
      if (tfm_session_decode(s, &slot, 1, &next, row, vocab) != TFM_OK)
        result = "decode failed in thread";
      else if (!forwardLast(tokens, count, expected) ||
               !rowMatches(row, expected))
        result = "thread's logits differ from the forward pass";
    }
  }
  free(row);
  free(expected);
  tfm_session_destroy(s);
  return (void *)result;
}

int main(int argc, char **argv) {
  if (argc != 2 && argc != 3) {
    fprintf(stderr, "usage: session_client WEIGHTS [TOLERANCE]\n");
    return 2;
  }
  if (argc == 3)
    tolerance = atof(argv[2]);
  if (tfm_model_create(argv[1], &model) != TFM_OK) {
    printf("model create failed: %s\n", tfm_last_error());
    return 1;
  }
  const char *json = NULL;
  tfm_model_info(model, &json);
  vocab = manifestInt(json, "\"vocab_size\"");
  maxSeq = manifestInt(json, "\"max_seq_len\"");
  tfm_session *s = NULL;
  tfm_status created = tfm_session_create(model, 1, 1, &s);
  report("create", created);
  if (created != TFM_OK) {
    tfm_model_destroy(model);
    return 0;
  }
  if (vocab <= 0 || vocab > 64 || maxSeq < CONTEXT) {
    printf("model too large or too short for this client\n");
    return 1;
  }
  tfm_session_destroy(s);
  s = NULL;

  report("create null model", tfm_session_create(NULL, 1, 1, &s));
  report("create null out", tfm_session_create(model, 1, 1, NULL));
  report("create zero slots", tfm_session_create(model, 0, 1, &s));
  report("create zero context", tfm_session_create(model, 1, 0, &s));
  report("create long context",
         tfm_session_create(model, 1, maxSeq + 1, &s));
  report("create overflow",
         tfm_session_create(model, INT64_MAX / 2, maxSeq, &s));
  printf("out untouched: %d\n", s == NULL);
  report("create", tfm_session_create(model, SLOTS, CONTEXT, &s));
  printf("lengths fresh: %d\n", lengthsIntact(s));

  int64_t length = 0;
  report("length null session", tfm_session_length(NULL, 0, &length));
  report("length null out", tfm_session_length(s, 0, NULL));
  report("length slot", tfm_session_length(s, SLOTS, &length));
  report("reset null session", tfm_session_reset(NULL, 0));
  report("reset slot", tfm_session_reset(s, -1));

  /* Every bad argument of prefill, on a fresh session. */
  int64_t two[2] = {0, 1};
  int32_t ids[2 * 3] = {1, 2, 3, 4, 5, 99};  /* 99 is past lengths[1] */
  int32_t lengths[2] = {3, 2};
  fillGuard();
  refused("prefill null session",
          tfm_session_prefill(NULL, two, 2, ids, 3, lengths, logits, 64), s);
  refused("prefill null slots",
          tfm_session_prefill(s, NULL, 2, ids, 3, lengths, logits, 64), s);
  refused("prefill null ids",
          tfm_session_prefill(s, two, 2, NULL, 3, lengths, logits, 64), s);
  refused("prefill null lengths",
          tfm_session_prefill(s, two, 2, ids, 3, NULL, logits, 64), s);
  refused("prefill null logits",
          tfm_session_prefill(s, two, 2, ids, 3, lengths, NULL, 64), s);
  refused("prefill zero n",
          tfm_session_prefill(s, two, 0, ids, 3, lengths, logits, 64), s);
  int64_t five[5] = {0, 1, 2, 3, 0};
  int32_t fiveIds[5] = {1, 1, 1, 1, 1}, fiveLengths[5] = {1, 1, 1, 1, 1};
  refused("prefill too many",
          tfm_session_prefill(s, five, 5, fiveIds, 1, fiveLengths, logits,
                              5 * vocab),
          s);
  refused("prefill zero seq",
          tfm_session_prefill(s, two, 2, ids, 0, lengths, logits, 64), s);
  int64_t badSlot[2] = {0, SLOTS};
  refused("prefill slot too large",
          tfm_session_prefill(s, badSlot, 2, ids, 3, lengths, logits, 64), s);
  int64_t negSlot[2] = {-1, 0};
  refused("prefill negative slot",
          tfm_session_prefill(s, negSlot, 2, ids, 3, lengths, logits, 64), s);
  int64_t dup[3] = {2, 0, 2};
  int32_t dupIds[3] = {1, 1, 1}, dupLengths[3] = {1, 1, 1};
  refused("prefill duplicate",
          tfm_session_prefill(s, dup, 3, dupIds, 1, dupLengths, logits, 64),
          s);
  int32_t zeroLength[2] = {3, 0};
  refused("prefill zero length",
          tfm_session_prefill(s, two, 2, ids, 3, zeroLength, logits, 64), s);
  int32_t longLength[2] = {3, 4};
  refused("prefill length past seq",
          tfm_session_prefill(s, two, 2, ids, 3, longLength, logits, 64), s);
  int32_t badIds[2 * 3] = {1, 2, 3, 4, (int32_t)vocab, 0};
  refused("prefill id too large",
          tfm_session_prefill(s, two, 2, badIds, 3, lengths, logits, 64), s);
  badIds[4] = -1;
  refused("prefill negative id",
          tfm_session_prefill(s, two, 2, badIds, 3, lengths, logits, 64), s);
  int32_t longIds[CONTEXT + 1] = {0};
  int32_t tooLong[1] = {CONTEXT + 1};
  refused("prefill past context",
          tfm_session_prefill(s, two, 1, longIds, CONTEXT + 1, tooLong, logits,
                              64),
          s);
  refused("prefill small buffer",
          tfm_session_prefill(s, two, 2, ids, 3, lengths, logits,
                              2 * vocab - 1),
          s);
  int32_t one[2] = {1, 1};
  refused("decode empty slot",
          tfm_session_decode(s, two, 2, one, logits, 64), s);
  refused("decode null session",
          tfm_session_decode(NULL, two, 2, one, logits, 64), s);

  /* Appends in every pattern; each row must equal the forward pass. */
  prefill(s, "prefill ragged", two, 2, ids, 3, lengths);
  int64_t gaps[2] = {3, 0};  /* out of order, slots 1 and 2 carried along */
  int32_t gapIds[2 * 4] = {7, 6, 5, 4, 3, 3, 9, 9};
  int32_t gapLengths[2] = {4, 2};
  prefill(s, "prefill chunked out of order", gaps, 2, gapIds, 4, gapLengths);
  int64_t solo[1] = {2};
  int32_t soloIds[1] = {5}, soloLength[1] = {1};
  prefill(s, "prefill one token", solo, 1, soloIds, 1, soloLength);
  int64_t three[3] = {2, 3, 1};
  int32_t next3[3] = {0, 7, 1};
  decode(s, "decode subset", three, 3, next3);
  int64_t inOrder[4] = {0, 1, 2, 3};
  int32_t next4[4] = {1, 2, 3, 4};
  decode(s, "decode all in order", inOrder, 4, next4);

  /* Two more fill slot 3; slot 0 holds 6. */
  int64_t full[1] = {3};
  int32_t fullIds[2] = {6, 6}, fullLength[1] = {2};
  prefill(s, "prefill to the end", full, 1, fullIds, 2, fullLength);
  int32_t fullId[1] = {1};
  fillGuard();
  refused("decode full slot",
          tfm_session_decode(s, full, 1, fullId, logits, vocab), s);
  int64_t zero[1] = {0};
  int32_t chunk[3] = {1, 1, 1}, chunkLength[1] = {3};
  refused("prefill chunk past context",
          tfm_session_prefill(s, zero, 1, chunk, 3, chunkLength, logits,
                              vocab),
          s);
  int32_t badNext[2] = {1, (int32_t)vocab};
  refused("decode id too large",
          tfm_session_decode(s, two, 2, badNext, logits, 2 * vocab), s);
  refused("decode small buffer",
          tfm_session_decode(s, two, 2, one, logits, vocab), s);

  /* A reset slot is a fresh one; its neighbours keep their tokens. */
  report("reset", tfm_session_reset(s, 3));
  held[3] = 0;
  int32_t again[3] = {2, 4, 6}, againLength[1] = {3};
  prefill(s, "prefill after reset", full, 1, again, 3, againLength);
  decode(s, "decode neighbours", two, 2, one);

  /* Copies: a copy continues exactly like its source and like a fresh slot
   * prefilled with the same tokens; a longer source over a shorter slot, a
   * shorter one over a longer slot (what the old one held beyond the new
   * length is zeroed: the stand-in's step checks it), an empty one. */
  fillGuard();
  refused("copy null session", tfm_session_copy_slot(NULL, 0, 1), s);
  refused("copy src", tfm_session_copy_slot(s, SLOTS, 1), s);
  refused("copy dst", tfm_session_copy_slot(s, 0, -1), s);
  copySlot(s, "copy same slot", 1, 1);
  copySlot(s, "copy longer over shorter", 1, 2);
  continueCopies(s, "decode copies", 1, 2, 3, 6);
  report("reset", tfm_session_reset(s, 3));
  held[3] = 0;
  copySlot(s, "copy empty", 3, 2);
  int32_t shortIds[2] = {5, 2}, shortLength[1] = {2};
  prefill(s, "prefill short", full, 1, shortIds, 2, shortLength);
  copySlot(s, "copy shorter over longer", 3, 0);
  continueCopies(s, "decode copies again", 3, 0, 2, 1);

  report("destroy", tfm_session_destroy(s));
  report("destroy null", tfm_session_destroy(NULL));

  /* Two sessions of one model from two threads at once. */
  pthread_t threads[2];
  for (uintptr_t i = 0; i < 2; ++i)
    pthread_create(&threads[i], NULL, threadRun, (void *)(i + 3));
  const char *failure = NULL;
  for (int i = 0; i < 2; ++i) {
    void *result = NULL;
    pthread_join(threads[i], &result);
    if (result)
      failure = result;
  }
  printf("threads: %s\n", failure ? failure : "ok");
  tfm_model_destroy(model);
  return 0;
}
