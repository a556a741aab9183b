/*===- tfm_runtime.h - C ABI of every tfm-compiled model ---------*- C -*-===*\
|*                                                                            *|
|* Every shared library that `tfmc --emit=so` produces exports this API. It   *|
|* is plain C (C99), so any language with a C FFI can call it.                *|
|*                                                                            *|
|* Life cycle:                                                                *|
|*   tfm_model *m;                                                            *|
|*   if (tfm_model_create("weights.safetensors", &m) != TFM_OK)               *|
|*     fprintf(stderr, "%s\n", tfm_last_error());                             *|
|*   int64_t shape[3]; int rank;                                              *|
|*   tfm_model_output_shape(m, batch, seq, shape, &rank);                     *|
|*   ... allocate shape[0] * shape[1] (* shape[2]) floats ...                 *|
|*   tfm_model_forward(m, ids, batch, seq, lengths, out, capacity);           *|
|*   tfm_model_destroy(m);                                                    *|
|*                                                                            *|
|* Errors: every function returns a tfm_status. On failure nothing is         *|
|* written to the caller's output arguments, and tfm_last_error() returns a   *|
|* message naming the argument, tensor or file at fault. The message is       *|
|* thread-local: it belongs to the last failing call made by the calling      *|
|* thread and stays until that thread's next failing call.                    *|
|*                                                                            *|
|* Threads: the library has no global state besides that thread-local         *|
|* message (and, for CUDA models, the driver and the kernel modules it loads  *|
|* once per process). Separate tfm_model instances may be used from separate  *|
|* threads at the same time. A forward call does not modify the model, so     *|
|* concurrent forward calls on one instance are also allowed: on a CPU model  *|
|* they run in parallel, on a CUDA model (manifest "device": "cuda") a mutex  *|
|* of the instance runs them one after the other, since they share the        *|
|* instance's stream. tfm_model_destroy must not race with any other call on  *|
|* the same instance.                                                         *|
|*                                                                            *|
|* Multithreading: a forward call runs its parallel loops (attention heads    *|
|* and query blocks, GEMM blocks) on an OpenMP team of                        *|
|* tfm_model_set_num_threads threads (default: all cores), set for the        *|
|* calling thread for the duration of the call only.                          *|
|*                                                                            *|
|* Memory: the model reads weights through a memory mapping of the            *|
|* safetensors file (zero-copy for aligned little-endian F32 tensors; F16 and *|
|* BF16 are widened to F32 copies at load time). Generated code writes to     *|
|* `out` only (and a session's own KV cache); inputs are never modified.      *|
|*                                                                            *|
|* CUDA models: tfm_model_create opens the NVIDIA driver (libcuda.so.1, at    *|
|* run time: the library has no link-time CUDA dependency and loads on any    *|
|* machine) and copies the weights to device memory; each forward call copies *|
|* its inputs to the device, runs the kernels on the instance's stream and    *|
|* copies `out` back before it returns. Without a driver or device, create    *|
|* fails with TFM_ERROR_UNSUPPORTED. TFM_CUDA_DEVICE=<ordinal> picks the      *|
|* device (default 0); it is read by the first successful create of the      *|
|* process.                                                                   *|
|*                                                                            *|
|* Generation: decoders compiled with tfmc --generation also run sessions     *|
|* (tfm_session_*, below) that keep each sequence's keys and values, so that  *|
|* a new token costs one step instead of a forward pass over the sequence.    *|
|*                                                                            *|
|* See docs/c-abi.md for the full contract.                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TFM_RUNTIME_TFM_RUNTIME_H
#define TFM_RUNTIME_TFM_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#define TFM_API __declspec(dllexport)
#else
#define TFM_API __attribute__((visibility("default")))
#endif

/* The ABI version this header describes; tfm_model_info's JSON repeats the
 * manifest format ("tfm-manifest/1"). */
#define TFM_RUNTIME_ABI_VERSION 1

/* Status codes. The numeric values are part of the ABI. */
typedef enum tfm_status {
  TFM_OK = 0,
  /* A NULL pointer, a non-positive or too large dimension, a token id
   * outside [0, vocab_size), a length outside [1, seq]; for sessions also a
   * slot out of range or listed twice, a full slot, decode on an empty
   * slot. */
  TFM_ERROR_INVALID_ARGUMENT = 1,
  /* `out_capacity_elements` (`logits_capacity`) is smaller than the
   * output. */
  TFM_ERROR_BUFFER_TOO_SMALL = 2,
  /* The weights cannot be read, are not valid safetensors, or do not match
   * the model (missing tensor, wrong shape, unsupported dtype). */
  TFM_ERROR_WEIGHTS = 3,
  /* The library's own manifest is malformed (a compiler bug). */
  TFM_ERROR_MODEL = 4,
  /* An allocation failed (converted weights, the lengths buffer). */
  TFM_ERROR_OUT_OF_MEMORY = 5,
  /* The model does not have this entry point, e.g. tfm_model_forward on an
   * encoder-decoder model, tfm_session_create on a model compiled without
   * generation entries, or no weights path and no embedded weights; or a
   * CUDA model cannot run here: no NVIDIA driver, no CUDA device, a driver
   * older than CUDA 12.0, or no code for this GPU in the library. */
  TFM_ERROR_UNSUPPORTED = 6,
  /* A CUDA model's device failed: a CUDA driver call or a kernel launch
   * returned an error (the message names the CUDA error, the driver
   * function and, for launches, the kernel). After a kernel fault (e.g.
   * CUDA_ERROR_ILLEGAL_ADDRESS) the process's CUDA context is unusable and
   * every later call on a CUDA model fails the same way. */
  TFM_ERROR_DEVICE = 7
} tfm_status;

/* A loaded model: the manifest, the bound weights. Opaque. */
typedef struct tfm_model tfm_model;

/* Loads and validates the weights and creates a model.
 *
 * `weights_path`: a .safetensors file, a folder holding model.safetensors,
 * or a folder (or the index file itself) of a sharded checkpoint described
 * by model.safetensors.index.json. NULL uses the weights embedded in the
 * library (`tfmc --embed-weights`); without embedded weights NULL fails with
 * TFM_ERROR_UNSUPPORTED.
 *
 * Every weight the model needs must be present under exactly the name and
 * with the shape the model was compiled with (its manifest's "weights"), in
 * F32, F16 or BF16. No prefix is added or removed: a Hugging Face
 * checkpoint's prefix ("transformer.", "bert.", ...) is fixed when the model
 * is compiled from it. When a tensor is missing, the message names a tensor
 * of the file that differs from it only by a prefix, if there is one. Extra
 * tensors in the file are ignored.
 *
 * On success stores a new model in *out; on failure *out is left alone. */
TFM_API tfm_status tfm_model_create(const char *weights_path, tfm_model **out);

/* The most threads tfm_model_set_num_threads accepts. */
#define TFM_MAX_THREADS 1024

/* Sets how many threads the forward calls of this instance use: n in
 * [1, TFM_MAX_THREADS], or 0 for the default, one thread per core available
 * to the process (or OMP_NUM_THREADS, when that environment variable holds a
 * positive number). A negative or larger n fails with
 * TFM_ERROR_INVALID_ARGUMENT and keeps the previous setting.
 *
 * The setting belongs to the instance: two instances used from two threads
 * may run with different counts at the same time. A forward call applies it
 * to the OpenMP thread count of the calling thread when it starts and
 * restores the caller's own setting when it returns. Results do not depend
 * on the thread count: the threads split independent blocks of work, and
 * every sum is accumulated in the same order whatever the split. A model
 * compiled without multithreading (for a target with one thread: tfmc
 * --target-threads=1) runs on the calling thread and ignores the setting, and
 * so does a CUDA model (its host code is sequential); the calls still
 * validate and store n. */
TFM_API tfm_status tfm_model_set_num_threads(tfm_model *model, int n);

/* The thread count a forward call of this instance will use, after
 * resolving 0 to the default, in *n. */
TFM_API tfm_status tfm_model_get_num_threads(const tfm_model *model, int *n);

/* Releases the model and its weight mappings (for a CUDA model also its
 * device memory, its stream and its reference to the device's primary
 * context). NULL is a no-op. */
TFM_API tfm_status tfm_model_destroy(tfm_model *model);

/* Runs an encoder or decoder model.
 *
 * `ids`: batch x seq token ids, row-major. Each must lie in
 * [0, vocab_size). `lengths`: batch entries in [1, seq], the number of valid
 * (left-aligned) tokens per sequence, or NULL for "all seq tokens valid".
 * `out` receives the output in row-major order; its shape is what
 * tfm_model_output_shape returns: [batch, seq, vocab] logits,
 * [batch, seq, hidden] states, or [batch, classes] class logits.
 * `out_capacity_elements` is the number of floats `out` can hold.
 *
 * On a CUDA model every argument is validated on the host before anything is
 * sent to the device; `ids`, `lengths` and `out` stay host memory (the call
 * copies them). Concurrent calls on one CUDA instance are serialized. */
TFM_API tfm_status tfm_model_forward(const tfm_model *model,
                                     const int32_t *ids, int64_t batch,
                                     int64_t seq, const int32_t *lengths,
                                     float *out, size_t out_capacity_elements);

/* Runs an encoder or decoder model on a batch padded the way Hugging Face
 * tokenizers pad it, on either side, and gives what the Hugging Face model
 * gives for the same `input_ids`, `attention_mask` and `position_ids`.
 *
 * `ids`: batch x seq token ids as for tfm_model_forward (every one, masked
 * or not, in [0, vocab_size)). `attention_mask`: batch x seq, each 0 or 1,
 * or NULL for all 1; the 1s of a row must form one run (left padding, right
 * padding or both), with at least one 1. `position_ids`: batch x seq or
 * NULL; where given, a row's positions must count up by one along its run
 * of 1s (their values under the 0s are ignored), and lie in
 * [0, first_position + max_seq_len) (first_position: the manifest's, 0 for
 * most models). NULL gives Hugging Face's default: the token's index in
 * the padded row (so left padding shifts positions), or, for models whose
 * manifest has "first_position" (RoBERTa), first_position for the first
 * token of the run (Hugging Face's RoBERTa counts the ids that are not
 * pad_token_id: the same when the padding is made of pad_token_id).
 *
 * The output is that of tfm_model_forward; the rows of masked positions
 * of a [batch, seq, *] output are 0. A pooled [batch, classes] output pools
 * the first or last token of each run. A mask with a 0 between 1s, a value
 * other than 0 and 1, a row without a 1 or positions that do not count up
 * are TFM_ERROR_INVALID_ARGUMENT naming the element: the compiled kernels
 * represent each sequence as one run of tokens, and the call refuses what
 * they cannot compute rather than compute it wrong.
 *
 * RoPE, ALiBi and relative position biases depend only on differences of
 * positions: for those models the positions change nothing but the choice
 * of LongRoPE factors, which follows seq as in tfm_model_forward. */
TFM_API tfm_status tfm_model_forward_masked(
    const tfm_model *model, const int32_t *ids, int64_t batch, int64_t seq,
    const int32_t *attention_mask, const int32_t *position_ids, float *out,
    size_t out_capacity_elements);

/* Runs an encoder-decoder model: `src` (batch x src_seq) feeds the encoder,
 * `tgt` (batch x tgt_seq) the decoder. Lengths as for tfm_model_forward,
 * each may be NULL. The output is [batch, tgt_seq, vocab]. */
TFM_API tfm_status tfm_model_forward_seq2seq(
    const tfm_model *model, const int32_t *src, int64_t batch, int64_t src_seq,
    const int32_t *src_lengths, const int32_t *tgt, int64_t tgt_seq,
    const int32_t *tgt_lengths, float *out, size_t out_capacity_elements);

/* Runs an image model (manifest field "image", e.g. a ViT): `pixels` is
 * batch x channels x height x width floats, row-major, with the channels,
 * height and width of the manifest; every value must be finite. The output
 * is [batch, classes] class logits or [batch, tokens, hidden] states, where
 * tokens is the model's max_seq_len (a [CLS] token and one per patch). */
TFM_API tfm_status tfm_model_forward_pixels(const tfm_model *model,
                                            const float *pixels, int64_t batch,
                                            float *out,
                                            size_t out_capacity_elements);

/* The output shape for a batch of `batch` sequences of `seq` tokens (for
 * encoder-decoder models, `seq` is the decoder length; for image models,
 * the token count, max_seq_len). Stores the rank (2 or
 * 3) in *rank and the dimensions in shape[0 .. rank-1]; shape[rank..2] are
 * set to 0. */
TFM_API tfm_status tfm_model_output_shape(const tfm_model *model,
                                          int64_t batch, int64_t seq,
                                          int64_t shape[3], int *rank);

/* The model's manifest, a NUL-terminated JSON object (format
 * "tfm-manifest/1": model_name, architecture, device (only when not "cpu":
 * "cuda"), precision (only when not "f32"), vocab_size, max_seq_len, output,
 * output_dims, inputs, weights, prepared, kv_cache (only for libraries with
 * generation entries)). The string lives as long as the library is
 * loaded. */
TFM_API tfm_status tfm_model_info(const tfm_model *model,
                                  const char **manifest_json);

/* The manifest of this library, without creating a model: lets a host find
 * out which weights (names, shapes) the library needs before it has them.
 * Same string as tfm_model_info returns. */
TFM_API tfm_status tfm_library_info(const char **manifest_json);

/*===--------------------------------------------------------------------===*
 * Generation sessions (KV cache)
 *===--------------------------------------------------------------------===*/

/* A generation session: the keys and values of up to max_slots sequences
 * (slots), each holding up to max_context tokens, so that a new token costs
 * one step over that token instead of a forward pass over the whole
 * sequence. Opaque. Only decoders compiled with generation entries (tfmc
 * --generation; their manifest has "kv_cache") have sessions.
 *
 *   tfm_session *s;
 *   tfm_session_create(m, 2, 64, &s);            2 slots of 64 tokens
 *   int64_t slots[2] = {0, 1};
 *   tfm_session_prefill(s, slots, 2, prompts, seq, lengths, logits, cap);
 *   ... pick next[0], next[1] from logits [2 x vocab] ...
 *   tfm_session_decode(s, slots, 2, next, logits, cap);
 *   tfm_session_copy_slot(s, 0, 1);              slot 1 continues slot 0
 *   tfm_session_reset(s, 1);                     slot 1 is empty again
 *   tfm_session_destroy(s);
 *
 * Threads: a session must not be used from two threads at once (every call
 * but tfm_session_length modifies it); separate sessions may be used from
 * separate threads at the same time, also when they share one model. A
 * session refers to its model: destroy it before the model. Steps run with
 * the model's thread count (tfm_model_set_num_threads), like forward calls.
 *
 * Errors: every argument is validated before generated code runs. A failed
 * call writes nothing (neither `logits` nor the cache) and leaves the
 * session as it was, usable. */
typedef struct tfm_session tfm_session;

/* Creates a session of `max_slots` >= 1 empty slots, each holding up to
 * `max_context` tokens, 1 <= max_context <= the manifest's max_seq_len.
 *
 * Memory: the cache, max_slots * max_context * layers * 2 * kv_heads *
 * head_dim floats (the manifest's "kv_cache"), zeroed, allocated here once,
 * plus about max_slots * (max_context + vocab_size) words of scratch, so
 * that no later call allocates; nothing of size T x T is ever allocated.
 *
 * TFM_ERROR_UNSUPPORTED when the model has no generation step (a library
 * compiled without tfmc --generation, an encoder) or is a CUDA model
 * (sessions run on the CPU only, for now). TFM_ERROR_INVALID_ARGUMENT when
 * the cache size overflows, TFM_ERROR_OUT_OF_MEMORY when it cannot be
 * allocated. On success stores the session in *out; on failure *out is left
 * alone. */
TFM_API tfm_status tfm_session_create(const tfm_model *model, int64_t max_slots,
                                      int64_t max_context, tfm_session **out);

/* Releases the session and its cache. NULL is a no-op. */
TFM_API tfm_status tfm_session_destroy(tfm_session *session);

/* Appends tokens to `n` >= 1 distinct slots at once and computes the logits
 * of each one's last new token.
 *
 * `slots`: n slot indices in [0, max_slots), no two equal, in any order.
 * `ids`: n x seq token ids, row-major: row i holds the tokens for slots[i].
 * `lengths`: n counts in [1, seq]; row i appends its first lengths[i]
 * tokens (the rest of the row is ignored, and need not be valid ids).
 * Counted ids must lie in [0, vocab_size). A slot that already holds tokens
 * gets the new ones after them (chunked prefill); it may hold at most
 * max_context tokens afterwards.
 * `logits`: receives n x vocab_size floats, row i the next-token logits
 * after slots[i]'s last new token; `logits_capacity` is how many floats it
 * can hold (TFM_ERROR_BUFFER_TOO_SMALL when fewer than n x vocab_size).
 *
 * The work is one step over the slots from the lowest to the highest listed
 * one (unlisted slots in between are carried along untouched): list slots
 * that lie close together. */
TFM_API tfm_status tfm_session_prefill(tfm_session *session,
                                       const int64_t *slots, int64_t n,
                                       const int32_t *ids, int64_t seq,
                                       const int32_t *lengths, float *logits,
                                       int64_t logits_capacity);

/* Appends one token, ids[i], to each of the `n` distinct slots[i] and
 * computes its logits into row i of `logits` (n x vocab_size floats), as
 * tfm_session_prefill with seq = 1. Every listed slot must already hold at
 * least one token (prefill it first) and fewer than max_context. */
TFM_API tfm_status tfm_session_decode(tfm_session *session,
                                      const int64_t *slots, int64_t n,
                                      const int32_t *ids, float *logits,
                                      int64_t logits_capacity);

/* Empties one slot: it holds no token afterwards and behaves like a slot of
 * a new session. */
TFM_API tfm_status tfm_session_reset(tfm_session *session, int64_t slot);

/* Copies slot `src` into slot `dst`: afterwards dst holds the same tokens
 * as src (the keys and values of src's first tfm_session_length(src)
 * positions, every layer) and behaves exactly like src, bit for bit; what
 * dst held before is discarded. src itself is not changed; src == dst is a
 * no-op. No step runs: the cost is a copy of src's cached positions (and
 * the zeroing of what dst held beyond them). Beam search uses it to let a
 * sequence continue in several ways (copy its slot, then decode a different
 * token into each copy). TFM_ERROR_INVALID_ARGUMENT for a NULL session or a
 * slot outside [0, max_slots). */
TFM_API tfm_status tfm_session_copy_slot(tfm_session *session, int64_t src,
                                         int64_t dst);

/* Encoder-decoder models (manifest "kv_cache" with "cross": true): runs
 * the encoder on the sources of `n` distinct slots, src [n x src_seq]
 * row-major with src_lengths[n] (1..src_seq, src_seq <= max_seq_len)
 * tokens each, and caches every decoder layer's cross-attention keys and
 * values in the session (memory: max_slots x max_seq_len x the kv_cache's
 * floats per token, allocated by tfm_session_create). The listed slots
 * start over: no decoder tokens (as after tfm_session_reset), the new
 * source; prefill the decoder's first tokens (its start token) next.
 * Prefill and decode on a slot with no source are errors. Decoders:
 * TFM_ERROR_UNSUPPORTED. Errors as for tfm_session_prefill. */
TFM_API tfm_status tfm_session_encode(tfm_session *session,
                                      const int64_t *slots, int64_t n,
                                      const int32_t *src, int64_t src_seq,
                                      const int32_t *src_lengths);

/* The number of tokens `slot` holds, in *length. */
TFM_API tfm_status tfm_session_length(const tfm_session *session, int64_t slot,
                                      int64_t *length);

/* The message of the last failing call on this thread; "" if none failed.
 * Valid until the next failing call on this thread. Never NULL. */
TFM_API const char *tfm_last_error(void);

/* A short constant name for a status ("TFM_ERROR_WEIGHTS"). Never NULL. */
TFM_API const char *tfm_status_string(tfm_status status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFM_RUNTIME_TFM_RUNTIME_H */
