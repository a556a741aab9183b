//===- CApi.cpp - the C ABI of compiled models ----------------------------===//
//
// Implements tfm_runtime.h on top of the generated code's symbols:
//
//   const char tfm_model_manifest[];      // JSON, see Loader.h
//   void _mlir_ciface_forward(void *const *weights, <input descriptors>...,
//                             <output descriptor>);
//   void _mlir_ciface_tfm_prepare(void *const *weights);
//   void _mlir_ciface_step(void *const *weights, <ids>, <offsets>,
//                          <lengths>, <cache>, <logits>);
//
// and, with --embed-weights, tfm_embedded_weights/_size (weak here, so a
// library without them links and reports a clear error for NULL paths).
// tfm_prepare writes the manifest's prepared tensors (packed weight layouts)
// into their table slots, once, when a model instance is created; it is weak
// too, and a manifest that lists prepared tensors without it is an error.
//
// Every entry point validates all arguments before generated code runs; the
// generated code only reads the inputs and weights and writes `out`. The
// only global is the thread-local error message.
//
// Generation sessions (tfm_session_*): a library whose manifest has
// "kv_cache" also defines the step (weak here too, like tfm_prepare), which
// appends tokens to sequence slots of a KV cache that the session owns and
// writes the logits of each slot's last new token. The session keeps how
// many tokens each slot holds and turns a call over some slots into one
// step over the contiguous range of slots from the lowest to the highest
// listed one: the cache is slot-major, so that range is one sub-buffer.
//
// Threads: the generated code's parallel loops are OpenMP worksharing loops
// (libomp, linked into the model library). Their team size is the calling
// thread's OpenMP setting, which ThreadCountScope sets from the instance's
// num_threads for the duration of the call. The OpenMP entry points are weak
// references: a library whose code has no parallel loop need not link
// libomp, and then there is nothing to set.
//
// CUDA models (manifest "device": "cuda", see Cuda.h): the same validation
// runs on the host; then the weights table, the inputs and the output the
// generated code receives are device memory, staged by cuda::run around
// each call, and the generated host code drives its kernels through the
// mgpu* functions of Cuda.cpp on the instance's stream. Device failures
// become TFM_ERROR_UNSUPPORTED (no driver or device), TFM_ERROR_DEVICE or
// TFM_ERROR_OUT_OF_MEMORY with the CUDA error in the message.
//
//===----------------------------------------------------------------------===//

#include "tfm/Runtime/tfm_runtime.h"

#include "tfm/Runtime/Loader.h"
#include "tfm/Runtime/MemRefDescriptor.h"
#include "tfm/Support/CpuFeatures.h"

#include "Cuda.h"

#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

using namespace tfm;
using namespace tfm::runtime;

//===----------------------------------------------------------------------===//
// Symbols the generated object defines
//===----------------------------------------------------------------------===//

// All six are referenced with hidden visibility: the static linker must
// bind them inside the model library (or, for the weak ones, resolve them to
// null). A default-visibility reference would stay in the dynamic symbol
// table and could bind at load time to another library's definition, e.g.
// the embedded weights of another model loaded with RTLD_GLOBAL.
#define TFM_GENERATED __attribute__((visibility("hidden")))
extern "C" {
TFM_GENERATED extern const char tfm_model_manifest[];
/// The real signature depends on the architecture (see callForward); the
/// function is only ever called through a pointer of its real type.
TFM_GENERATED void _mlir_ciface_forward(void);
TFM_GENERATED void _mlir_ciface_tfm_prepare(void *const *weights)
    __attribute__((weak));
/// The generation step (see callStep for its real signature); only in
/// libraries whose manifest has "kv_cache".
TFM_GENERATED void _mlir_ciface_step(void) __attribute__((weak));
/// The step specialized for one new token per slot (same signature, T = 1):
/// its attention has decode tiles. Libraries before it have only the step.
TFM_GENERATED void _mlir_ciface_decode(void) __attribute__((weak));
/// Encoder-decoder libraries ("cross": true): the encoder and each decoder
/// layer's cross-attention keys and values into a slot range's cross cache.
TFM_GENERATED void _mlir_ciface_encode(void) __attribute__((weak));
TFM_GENERATED extern const unsigned char tfm_embedded_weights[]
    __attribute__((weak));
TFM_GENERATED extern const uint64_t tfm_embedded_weights_size
    __attribute__((weak));

// libomp (omp.h is not needed for three functions). Default visibility:
// these bind to libomp.so when the model links it, else they are null.
__attribute__((weak)) void omp_set_num_threads(int);
__attribute__((weak)) int omp_get_max_threads(void);
__attribute__((weak)) int omp_get_num_procs(void);
}

struct tfm_model {
  Manifest manifest;
  /// CPU models: the weights and the table the generated code reads. CUDA
  /// models: empty (the weights were copied to the device at creation and
  /// the host copies released).
  BoundWeights weights;
  /// CUDA models only: the device side (stream, weights in device memory).
  cuda::InstancePtr cuda;
  /// tfm_model_set_num_threads's n (0: the default). Atomic so that a
  /// setter racing with forward calls on other threads is not a data race;
  /// each call uses the value it reads when it starts.
  std::atomic<int> numThreads{0};
};

namespace {

thread_local std::string lastError;

tfm_status fail(tfm_status status, const llvm::Twine &message) {
  lastError = message.str();
  return status;
}

tfm_status statusOf(cuda::FailureKind kind) {
  switch (kind) {
  case cuda::FailureKind::Unsupported:
    return TFM_ERROR_UNSUPPORTED;
  case cuda::FailureKind::InvalidArgument:
    return TFM_ERROR_INVALID_ARGUMENT;
  case cuda::FailureKind::Model:
    return TFM_ERROR_MODEL;
  case cuda::FailureKind::OutOfMemory:
    return TFM_ERROR_OUT_OF_MEMORY;
  case cuda::FailureKind::Device:
    return TFM_ERROR_DEVICE;
  }
  return TFM_ERROR_DEVICE;
}

/// Fails with the status and message of a device error.
tfm_status failWith(llvm::Error error) {
  tfm_status status = TFM_ERROR_DEVICE;
  std::string message;
  llvm::handleAllErrors(
      std::move(error),
      [&](const cuda::DeviceError &e) {
        status = statusOf(e.kind());
        message = e.message();
      },
      [&](const llvm::ErrorInfoBase &e) { message = e.message(); });
  return fail(status, message);
}

/// The descriptors of the generated entry's arguments: token ids [B, T],
/// lengths [B] (src/tgt alike) and positions [B], the output as [B, C]
/// classes or [B, T, V|D].
using IdsDesc = MemRefDescriptor<int32_t, 2>;
using LengthsDesc = MemRefDescriptor<int32_t, 1>;
using ClassesOutDesc = MemRefDescriptor<float, 2>;
using SequenceOutDesc = MemRefDescriptor<float, 3>;
/// An image model's input: pixels [B, C, H, W].
using PixelsDesc = MemRefDescriptor<float, 4>;

/// Output rank and dims for (batch, seq); checked for int64 overflow.
bool outputShape(const Manifest &m, int64_t batch, int64_t seq,
                 int64_t (&shape)[3], int &rank, int64_t &elements) {
  shape[0] = batch;
  if (m.output == OutputKind::Classes) {
    rank = 2;
    shape[1] = m.outputDim;
    shape[2] = 0;
  } else {
    rank = 3;
    shape[1] = seq;
    shape[2] = m.outputDim;
  }
  elements = 1;
  for (int i = 0; i < rank; ++i)
    if (__builtin_mul_overflow(elements, shape[i], &elements))
      return false;
  return true;
}

tfm_status checkDims(const Manifest &m, int64_t batch, int64_t seq,
                     const char *batchName, const char *seqName) {
  if (batch <= 0)
    return fail(TFM_ERROR_INVALID_ARGUMENT, llvm::Twine(batchName) + " is " +
                                                llvm::Twine(batch) +
                                                ", must be at least 1");
  if (seq <= 0 || seq > m.maxSeqLen)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                llvm::Twine(seqName) + " is " + llvm::Twine(seq) +
                    ", must lie in [1, " + llvm::Twine(m.maxSeqLen) +
                    "] (max_seq_len of model '" + m.modelName + "')");
  int64_t tokens;
  if (__builtin_mul_overflow(batch, seq, &tokens))
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                llvm::Twine(batchName) + " x " + seqName + " overflows");
  return TFM_OK;
}

tfm_status checkTokens(const Manifest &m, const int32_t *ids, int64_t batch,
                       int64_t seq, const char *name) {
  if (!ids)
    return fail(TFM_ERROR_INVALID_ARGUMENT, llvm::Twine(name) + " is NULL");
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t t = 0; t < seq; ++t) {
      int32_t id = ids[b * seq + t];
      if (id < 0 || id >= m.vocabSize)
        return fail(TFM_ERROR_INVALID_ARGUMENT,
                    llvm::Twine(name) + "[" + llvm::Twine(b) + "][" +
                        llvm::Twine(t) + "] (batch " + llvm::Twine(b) +
                        ", position " + llvm::Twine(t) + ") is token id " +
                        llvm::Twine(id) + ", outside [0, " +
                        llvm::Twine(m.vocabSize) + ")");
    }
  return TFM_OK;
}

/// Validates `lengths` or fills `storage` with `seq` for NULL.
tfm_status checkLengths(const int32_t *lengths, int64_t batch, int64_t seq,
                        const char *name, std::vector<int32_t> &storage,
                        const int32_t *&result) {
  if (lengths) {
    for (int64_t b = 0; b < batch; ++b)
      if (lengths[b] < 1 || lengths[b] > seq)
        return fail(TFM_ERROR_INVALID_ARGUMENT,
                    llvm::Twine(name) + "[" + llvm::Twine(b) + "] is " +
                        llvm::Twine(lengths[b]) + ", must lie in [1, " +
                        llvm::Twine(seq) + "]");
    result = lengths;
    return TFM_OK;
  }
  // seq <= max_seq_len was checked, so it fits int32 whenever the manifest
  // is sane; guard anyway.
  if (seq > INT32_MAX)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                llvm::Twine(name) + ": sequence length does not fit int32");
  storage.assign(static_cast<size_t>(batch), static_cast<int32_t>(seq));
  result = storage.data();
  return TFM_OK;
}

/// The output's element count (checkOutput verified that it fits).
int64_t outputElements(const Manifest &m, int64_t batch, int64_t seq) {
  int64_t shape[3];
  int rank;
  int64_t elements = 0;
  outputShape(m, batch, seq, shape, rank, elements);
  return elements;
}

tfm_status checkOutput(const Manifest &m, int64_t batch, int64_t seq,
                       float *out, size_t capacity) {
  if (!out)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "out is NULL");
  int64_t shape[3];
  int rank;
  int64_t elements;
  if (!outputShape(m, batch, seq, shape, rank, elements))
    return fail(TFM_ERROR_INVALID_ARGUMENT, "the output size overflows");
  if (capacity < static_cast<uint64_t>(elements))
    return fail(TFM_ERROR_BUFFER_TOO_SMALL,
                "out_capacity_elements is " + llvm::Twine(capacity) +
                    " but the output " + formatShape({shape, size_t(rank)}) +
                    " has " + llvm::Twine(elements) + " elements");
  return TFM_OK;
}

/// The default thread count: OMP_NUM_THREADS when it starts with a positive
/// number (as libomp reads it: the first entry of a list), else every
/// processor available to the process.
int defaultThreads() {
  if (const char *env = std::getenv("OMP_NUM_THREADS")) {
    char *end = nullptr;
    long n = std::strtol(env, &end, 10);
    if (end != env && n > 0)
      return static_cast<int>(std::min<long>(n, TFM_MAX_THREADS));
  }
  int procs = omp_get_num_procs ? omp_get_num_procs() : 1;
  return procs > 0 ? std::min(procs, TFM_MAX_THREADS) : 1;
}

int resolveThreads(const tfm_model *model) {
  int n = model->numThreads.load(std::memory_order_relaxed);
  return n > 0 ? n : defaultThreads();
}

/// Sets the calling thread's OpenMP thread count for one call into
/// generated code and restores the caller's own setting afterwards.
class ThreadCountScope {
public:
  explicit ThreadCountScope(const tfm_model *model) {
    if (!omp_set_num_threads || !omp_get_max_threads)
      return;
    saved = omp_get_max_threads();
    omp_set_num_threads(resolveThreads(model));
  }
  ~ThreadCountScope() {
    if (saved > 0)
      omp_set_num_threads(saved);
  }
  ThreadCountScope(const ThreadCountScope &) = delete;
  ThreadCountScope &operator=(const ThreadCountScope &) = delete;

private:
  int saved = 0;
};

using Forward3 = void (*)(void *const *, IdsDesc *, LengthsDesc *,
                          LengthsDesc *, void *);
using ForwardPixels = void (*)(void *const *, PixelsDesc *, void *);
using Forward4 = void (*)(void *const *, IdsDesc *, LengthsDesc *, IdsDesc *,
                          LengthsDesc *, void *);

/// Calls generated code through a pointer of its real type. The generated
/// function has no UBSan function-type prologue, so the -fsanitize=function
/// check is off here. `weights` is the table of the model's device.
__attribute__((no_sanitize("function"))) void
callForward(void *const *weights, IdsDesc *ids, LengthsDesc *lengths,
            LengthsDesc *positions, IdsDesc *tgt, LengthsDesc *tgtLengths,
            void *out) {
  if (tgt)
    reinterpret_cast<Forward4>(&_mlir_ciface_forward)(weights, ids, lengths,
                                                      tgt, tgtLengths, out);
  else
    reinterpret_cast<Forward3>(&_mlir_ciface_forward)(weights, ids, lengths,
                                                      positions, out);
}

__attribute__((no_sanitize("function"))) void
callForwardPixels(void *const *weights, PixelsDesc *pixels, void *out) {
  reinterpret_cast<ForwardPixels> (&_mlir_ciface_forward)(weights, pixels, out);
}

/// Fills the prepared slots of a weights table (see the file comment).
__attribute__((no_sanitize("function"))) void
callPrepare(void *const *weights) {
  _mlir_ciface_tfm_prepare(weights);
}

/// The host table of a CPU model.
void *const *hostTable(const tfm_model *model) {
  return const_cast<void *const *>(model->weights.table.data());
}

void *describeOutput(const Manifest &m, float *out, int64_t batch, int64_t seq,
                     ClassesOutDesc &out2, SequenceOutDesc &out3) {
  if (m.output == OutputKind::Classes) {
    out2 = describeContiguous<float, 2>(out, {batch, m.outputDim});
    return &out2;
  }
  out3 = describeContiguous<float, 3>(out, {batch, seq, m.outputDim});
  return &out3;
}

/// Runs a validated forward call: `ids` (batch x seq) and `lengths`, plus
/// `positions` (batch) for encoders and decoders or `tgt` (batch x tgtSeq)
/// and `tgtLengths` for encoder-decoder models (null otherwise), into `out`
/// of `outElements` floats. CPU models run the generated code on the
/// caller's buffers; CUDA models on device copies.
tfm_status runForward(const tfm_model *model, const int32_t *ids, int64_t batch,
                      int64_t seq, const int32_t *lengths,
                      const int32_t *positions, const int32_t *tgt,
                      int64_t tgtSeq, const int32_t *tgtLengths, float *out,
                      int64_t outElements) {
  const Manifest &m = model->manifest;
  int64_t outSeq = tgt ? tgtSeq : seq;
  // The descriptors of one call, over host or device buffers.
  IdsDesc idsDesc, tgtDesc;
  LengthsDesc lensDesc, positionsDesc, tgtLensDesc;
  ClassesOutDesc out2;
  SequenceOutDesc out3;
  auto call = [&](void *const *weights, const void *idsData,
                  const void *lensData, const void *positionsData,
                  const void *tgtData, const void *tgtLensData, void *outData) {
    idsDesc = describeContiguous<int32_t, 2>(idsData, {batch, seq});
    lensDesc = describeContiguous<int32_t, 1>(lensData, {batch});
    if (positions)
      positionsDesc = describeContiguous<int32_t, 1>(positionsData, {batch});
    if (tgt) {
      tgtDesc = describeContiguous<int32_t, 2>(tgtData, {batch, tgtSeq});
      tgtLensDesc = describeContiguous<int32_t, 1>(tgtLensData, {batch});
    }
    void *outDesc = describeOutput(m, static_cast<float *>(outData), batch,
                                   outSeq, out2, out3);
    callForward(weights, &idsDesc, &lensDesc, &positionsDesc,
                tgt ? &tgtDesc : nullptr, tgt ? &tgtLensDesc : nullptr,
                outDesc);
  };

  if (!model->cuda) {
    ThreadCountScope threads(model);
    call(hostTable(model), ids, lengths, positions, tgt, tgtLengths, out);
    return TFM_OK;
  }

  // batch x seq and the output's elements fit int64 (checked); their bytes
  // fit size_t on any machine that could hold them, but check anyway.
  size_t idsBytes, tgtBytes = 0, lensBytes, outBytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(batch) * seq,
                             sizeof(int32_t), &idsBytes) ||
      (tgt && __builtin_mul_overflow(static_cast<uint64_t>(batch) * tgtSeq,
                                     sizeof(int32_t), &tgtBytes)) ||
      __builtin_mul_overflow(static_cast<uint64_t>(batch), sizeof(int32_t),
                             &lensBytes) ||
      __builtin_mul_overflow(static_cast<uint64_t>(outElements), sizeof(float),
                             &outBytes))
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "the inputs or the output are too large for this machine");
  std::vector<cuda::HostBuffer> inputs = {{ids, idsBytes},
                                          {lengths, lensBytes}};
  if (tgt) {
    inputs.push_back({tgt, tgtBytes});
    inputs.push_back({tgtLengths, lensBytes});
  } else {
    inputs.push_back({positions, lensBytes});
  }
  cuda::Instance &instance = *model->cuda;
  if (llvm::Error e =
          cuda::run(instance, inputs, out, outBytes,
                    [&](llvm::ArrayRef<void *> device, void *deviceOut) {
                      call(cuda::weightTable(instance), device[0], device[1],
                           tgt ? nullptr : device[2], tgt ? device[2] : nullptr,
                           tgt ? device[3] : nullptr, deviceOut);
                    }))
    return failWith(std::move(e));
  return TFM_OK;
}

/// The device half of tfm_model_create for a CUDA model: driver, device,
/// kernels, stream, then the weights copied to device memory (`bound`, the
/// host copies and the file mappings, is released on return) and the
/// prepared tensors computed there.
tfm_status createOnDevice(tfm_model &model, BoundWeights bound) {
  llvm::Expected<cuda::InstancePtr> instance =
      cuda::createInstance(model.manifest);
  if (!instance)
    return failWith(instance.takeError());
  model.cuda = std::move(*instance);
  if (llvm::Error e = cuda::uploadWeights(*model.cuda, model.manifest, bound))
    return failWith(std::move(e));
  if (!model.manifest.prepared.empty()) {
    void *const *table = cuda::weightTable(*model.cuda);
    if (llvm::Error e = cuda::run(*model.cuda, {}, nullptr, 0,
                                  [&](llvm::ArrayRef<void *>, void *) {
                                    callPrepare(table);
                                  }))
      return failWith(std::move(e));
  }
  return TFM_OK;
}

} // namespace

//===----------------------------------------------------------------------===//
// Generation sessions
//===----------------------------------------------------------------------===//

namespace {

/// A zeroed array of `T`, 64-byte aligned like the prepared tensors, from
/// calloc: a large one is fresh zero pages from the kernel, so a session's
/// cache costs memory only as far as its slots are filled.
template <typename T>
class ZeroedArray {
public:
  ZeroedArray() = default;
  ZeroedArray(const ZeroedArray &) = delete;
  ZeroedArray &operator=(const ZeroedArray &) = delete;
  ~ZeroedArray() { std::free(raw); }

  /// False when `count` elements do not fit size_t or calloc fails.
  bool allocate(uint64_t count) {
    size_t bytes;
    if (__builtin_mul_overflow(count, sizeof(T), &bytes) ||
        __builtin_add_overflow(bytes, kAlignment, &bytes))
      return false;
    raw = std::calloc(bytes, 1);
    if (!raw)
      return false;
    uintptr_t address = reinterpret_cast<uintptr_t>(raw);
    address = (address + kAlignment - 1) & ~uintptr_t(kAlignment - 1);
    data = reinterpret_cast<T *>(address);
    return true;
  }

  T &operator[](int64_t i) const { return data[i]; }
  T *get() const { return data; }

private:
  static constexpr size_t kAlignment = 64;
  void *raw = nullptr;
  T *data = nullptr;
};

/// A KV cache's elements are float or 16 bits (the manifest's "storage"):
/// the descriptor counts elements and never reads them.
using CacheDesc = MemRefDescriptor<void, 6>;
using StepLogitsDesc = MemRefDescriptor<float, 2>;
using Step = void (*)(void *const *, IdsDesc *, LengthsDesc *, LengthsDesc *,
                      CacheDesc *, StepLogitsDesc *);
/// An encoder-decoder's step also reads the cross cache and the source
/// lengths.
using CrossStep = void (*)(void *const *, IdsDesc *, LengthsDesc *,
                           LengthsDesc *, CacheDesc *, CacheDesc *,
                           LengthsDesc *, StepLogitsDesc *);
using Encode = void (*)(void *const *, IdsDesc *, LengthsDesc *, CacheDesc *);

/// Calls the generation step through a pointer of its real type (no
/// -fsanitize=function check, as for callForward): ids [B, T], offsets and
/// lengths [B], the cache [B, L, 2, Hkv, C, Dh] (updated in place), logits
/// [B, V].
__attribute__((no_sanitize("function"))) void
callStep(void *const *weights, IdsDesc *ids, LengthsDesc *offsets,
         LengthsDesc *lengths, CacheDesc *cache, CacheDesc *cross,
         LengthsDesc *sourceLengths, StepLogitsDesc *logits) {
  // One token per slot: the decode specialization, where the library has
  // it.
  void (*fn)(void) = ids->sizes[1] == 1 && _mlir_ciface_decode
                         ? &_mlir_ciface_decode
                         : &_mlir_ciface_step;
  if (cross)
    reinterpret_cast<CrossStep>(fn)(weights, ids, offsets, lengths, cache,
                                    cross, sourceLengths, logits);
  else
    reinterpret_cast<Step>(fn)(weights, ids, offsets, lengths, cache, logits);
}

__attribute__((no_sanitize("function"))) void
callEncode(void *const *weights, IdsDesc *src, LengthsDesc *srcLengths,
           CacheDesc *cross) {
  reinterpret_cast<Encode>(&_mlir_ciface_encode)(weights, src, srcLengths,
                                                  cross);
}

} // namespace

struct tfm_session {
  const tfm_model *model = nullptr;
  int64_t maxSlots = 0;
  int64_t maxContext = 0;
  /// The manifest's cache shape and vocabulary size, copied for brevity.
  ManifestKvCache kv;
  int64_t vocab = 0;
  /// Bytes of one slot's cache: [L][2][Hkv][maxContext][Dh] elements of
  /// kv.elementBytes() bytes.
  int64_t bytesPerSlot = 0;
  /// [maxSlots] of those, slot-major: in host memory for a CPU model, in
  /// device memory for a CUDA model (deviceCache), where the generated
  /// step reads and writes it.
  ZeroedArray<unsigned char> cache;
  cuda::DeviceMemoryPtr deviceCache;
  /// The tokens each slot holds, [maxSlots].
  ZeroedArray<int64_t> lengths;
  /// Scratch of one step over a range of slots, allocated with the session
  /// so that a call never fails for memory: ids [B, T] (T <= maxContext),
  /// offsets and lengths [B], logits [B, V] (B <= maxSlots).
  ZeroedArray<int32_t> stepIds;
  ZeroedArray<int32_t> stepOffsets;
  ZeroedArray<int32_t> stepLengths;
  ZeroedArray<float> stepLogits;
  /// While a call validates its slots: 1 + the argument row that lists the
  /// slot, 0 for unlisted slots; all 0 between calls.
  ZeroedArray<int64_t> rowOf;
  /// Encoder-decoder models (kv.cross): each slot's cross-attention keys
  /// and values, [maxSlots][L][2][Hkv][maxSource][Dh] written by
  /// tfm_session_encode, and each slot's source length (0: not encoded).
  int64_t maxSource = 0;
  int64_t bytesPerCrossSlot = 0;
  ZeroedArray<unsigned char> cross;
  cuda::DeviceMemoryPtr deviceCross;
  ZeroedArray<int32_t> sourceLengths;
  /// Scratch of an encode call: the sources [B, S] (S <= maxSource).
  ZeroedArray<int32_t> encodeIds;
  /// Models whose positions change meaning past a length (kv.recomputeAfter,
  /// LongRoPE): every slot's tokens, [maxSlots][maxContext], so that the
  /// call that takes a slot past that length recomputes it from them.
  ZeroedArray<int32_t> history;
};

namespace {

/// The model's device side, for a CUDA model's session (else null).
cuda::Instance *deviceOf(const tfm_session *s) { return s->model->cuda.get(); }

/// Slot `slot` of a slot-major cache of `bytesPerSlot`-byte slots, in
/// `device` memory when that is allocated (a CUDA model), else in `host`.
unsigned char *slotOf(const ZeroedArray<unsigned char> &host,
                      const cuda::DeviceMemoryPtr &device, int64_t bytesPerSlot,
                      int64_t slot) {
  auto *base = device ? static_cast<unsigned char *>(cuda::address(*device))
                      : host.get();
  return base + slot * bytesPerSlot;
}

/// Slot `slot` of the session's cache (a device address for a CUDA model).
unsigned char *cacheOf(const tfm_session *s, int64_t slot) {
  return slotOf(s->cache, s->deviceCache, s->bytesPerSlot, slot);
}

/// Slot `slot` of the cross-attention cache (encoder-decoder models).
unsigned char *crossOf(const tfm_session *s, int64_t slot) {
  return slotOf(s->cross, s->deviceCross, s->bytesPerCrossSlot, slot);
}

/// A zeroed cache of `bytes` bytes: host memory for a CPU model, device
/// memory for a CUDA model. `what` describes it in errors.
tfm_status allocateCache(const tfm_model &model, int64_t bytes,
                         const std::string &what,
                         ZeroedArray<unsigned char> &host,
                         cuda::DeviceMemoryPtr &device) {
  if (!model.cuda) {
    if (!host.allocate(static_cast<uint64_t>(bytes)))
      return fail(TFM_ERROR_OUT_OF_MEMORY, "cannot allocate " + what);
    return TFM_OK;
  }
  llvm::Expected<cuda::DeviceMemoryPtr> memory =
      cuda::allocateZeroed(*model.cuda, bytes, what);
  if (!memory)
    return failWith(memory.takeError());
  device = std::move(*memory);
  return TFM_OK;
}

tfm_status checkSlot(const tfm_session *s, int64_t slot, const char *name) {
  if (slot < 0 || slot >= s->maxSlots)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                llvm::Twine(name) + " is " + llvm::Twine(slot) +
                    ", outside [0, " + llvm::Twine(s->maxSlots) +
                    ") (max_slots of the session)");
  return TFM_OK;
}

/// The slots of one call, checked and marked in the session's rowOf (1 +
/// the listing row), with their range [lo, hi]; the marks are cleared when
/// the call returns, so that a failed call leaves the session as it was.
class SlotMarks {
public:
  /// `once` ends the message for a slot listed twice: what a call does
  /// to each slot only once.
  SlotMarks(tfm_session *s, const int64_t *slots, const char *once)
      : s(s), slots(slots), once(once) {}
  ~SlotMarks() {
    for (int64_t i = 0; i < marked; ++i)
      s->rowOf[slots[i]] = 0;
  }
  SlotMarks(const SlotMarks &) = delete;
  SlotMarks &operator=(const SlotMarks &) = delete;

  /// Checks and marks slots[i].
  tfm_status mark(int64_t i) {
    std::string name = ("slots[" + llvm::Twine(i) + "]").str();
    int64_t slot = slots[i];
    if (tfm_status st = checkSlot(s, slot, name.c_str()))
      return st;
    if (int64_t other = s->rowOf[slot])
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  name + " is " + llvm::Twine(slot) +
                      ", the same slot as slots[" + llvm::Twine(other - 1) +
                      "] (" + once + ")");
    s->rowOf[slot] = i + 1;
    marked = i + 1;
    lo = std::min(lo, slot);
    hi = std::max(hi, slot);
    return TFM_OK;
  }

  int64_t lo = INT64_MAX, hi = -1;

private:
  tfm_session *s;
  const int64_t *slots;
  const char *once;
  int64_t marked = 0;
};

/// tfm_session_prefill, and tfm_session_decode with `decode` set (one
/// token per row: ids [n], seq 1, no lengths). Validates everything, then
/// runs one step over the slots [lo, hi] and writes the logits in the
/// caller's row order.
tfm_status append(tfm_session *s, const int64_t *slots, int64_t n,
                  const int32_t *ids, int64_t seq, const int32_t *lengths,
                  bool decode, float *logits, int64_t logitsCapacity) {
  if (!s)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "session is NULL");
  if (!slots)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "slots is NULL");
  if (!ids)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "ids is NULL");
  if (!decode && !lengths)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "lengths is NULL");
  if (!logits)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "logits is NULL");
  if (n <= 0)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "n is " + llvm::Twine(n) + ", must be at least 1");
  // n distinct slots of [0, maxSlots): at most maxSlots, which also bounds
  // n x vocab (checked at creation).
  if (n > s->maxSlots)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "n is " + llvm::Twine(n) + ", more than the session's " +
                    llvm::Twine(s->maxSlots) + " slots (max_slots)");
  if (seq <= 0)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "seq is " + llvm::Twine(seq) + ", must be at least 1");
  int64_t idsElements;
  if (__builtin_mul_overflow(n, seq, &idsElements))
    return fail(TFM_ERROR_INVALID_ARGUMENT, "n x seq overflows");

  // Every row, marking its slot.
  SlotMarks marks(s, slots, "a call appends to each slot once");
  int64_t longest = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (tfm_status st = marks.mark(i))
      return st;
    int64_t slot = slots[i];
    std::string name = ("slots[" + llvm::Twine(i) + "]").str();
    int64_t held = s->lengths[slot];
    if (s->kv.cross && s->sourceLengths[slot] == 0)
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "slot " + llvm::Twine(slot) + " (" + name +
                      ") has no source: an encoder-decoder session encodes "
                      "a source into the slot first (tfm_session_encode)");
    if (decode && held == 0)
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "slot " + llvm::Twine(slot) + " (" + name +
                      ") holds no tokens: decode appends after them, "
                      "prefill it first");
    int64_t count = decode ? 1 : lengths[i];
    if (count < 1 || count > seq)
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "lengths[" + llvm::Twine(i) + "] is " + llvm::Twine(count) +
                      ", must lie in [1, " + llvm::Twine(seq) + "]");
    for (int64_t t = 0; t < count; ++t) {
      int32_t id = ids[i * seq + t];
      if (id >= 0 && id < s->vocab)
        continue;
      std::string where =
          decode
              ? ("ids[" + llvm::Twine(i) + "] (slot " + llvm::Twine(slot) + ")")
                    .str()
              : ("ids[" + llvm::Twine(i) + "][" + llvm::Twine(t) + "] (row " +
                 llvm::Twine(i) + ", slot " + llvm::Twine(slot) +
                 ", position " + llvm::Twine(t) + ")")
                    .str();
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  where + " is token id " + llvm::Twine(id) + ", outside [0, " +
                      llvm::Twine(s->vocab) + ")");
    }
    if (count > s->maxContext - held)
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "slot " + llvm::Twine(slot) + " holds " + llvm::Twine(held) +
                      " tokens; appending " + llvm::Twine(count) +
                      " exceeds max_context " + llvm::Twine(s->maxContext));
    longest = std::max(longest, count);
  }
  int64_t logitsElements = n * s->vocab;
  if (logitsCapacity < logitsElements)
    return fail(TFM_ERROR_BUFFER_TOO_SMALL,
                "logits_capacity is " + llvm::Twine(logitsCapacity) +
                    " but the logits [" + llvm::Twine(n) + ", " +
                    llvm::Twine(s->vocab) + "] have " +
                    llvm::Twine(logitsElements) + " elements");

  // A slot that holds tokens and grows past kv.recomputeAfter (LongRoPE's
  // switch to the long factors) is recomputed from its first token in this
  // step, as transformers' Phi-3 recomputes its cache: the keys it holds
  // were rotated with the short factors.
  int64_t after = s->kv.recomputeAfter;
  auto recomputes = [&](int64_t slot, int64_t count) {
    int64_t held = s->lengths[slot];
    return after > 0 && held > 0 && held <= after && held + count > after;
  };
  for (int64_t i = 0; i < n; ++i) {
    int64_t count = decode ? 1 : lengths[i];
    if (recomputes(slots[i], count))
      longest = std::max(longest, s->lengths[slots[i]] + count);
  }

  // The step's inputs over the slots [lo, hi]: the rows at slot - lo, the
  // unlisted slots as filler rows (id 0, length 0: untouched). T is the
  // longest row, not seq: padding costs the step work.
  int64_t lo = marks.lo, hi = marks.hi;
  int64_t batch = hi - lo + 1, steps = longest;
  std::memset(s->stepIds.get(), 0, sizeof(int32_t) * batch * steps);
  for (int64_t b = 0; b < batch; ++b) {
    int64_t slot = lo + b;
    s->stepOffsets[b] = static_cast<int32_t>(s->lengths[slot]);
    s->stepLengths[b] = 0;
    if (int64_t row = s->rowOf[slot]) {
      int64_t i = row - 1;
      int32_t count = decode ? 1 : lengths[i];
      int32_t *dst = &s->stepIds[b * steps];
      if (recomputes(slot, count)) {
        int32_t held = static_cast<int32_t>(s->lengths[slot]);
        std::memcpy(dst, &s->history[slot * s->maxContext],
                    sizeof(int32_t) * held);
        dst += held;
        s->stepOffsets[b] = 0;
        s->stepLengths[b] = held;
      }
      s->stepLengths[b] += count;
      std::memcpy(dst, &ids[i * seq], sizeof(int32_t) * count);
    }
  }
  // Listed in slot order without gaps, the rows are the step's rows: its
  // logits go straight to the caller's buffer.
  bool inOrder = n == batch;
  for (int64_t i = 0; inOrder && i < n; ++i)
    inOrder = slots[i] == lo + i;
  float *stepLogits = inOrder ? logits : s->stepLogits.get();

  // The step over host buffers (a CPU model) or over their device copies
  // (a CUDA model; the caches are device memory already).
  auto step = [&](void *const *table, int32_t *stepIds, int32_t *offsets,
                  int32_t *stepLengths, int32_t *sources, float *out) {
    IdsDesc idsDesc = describeContiguous<int32_t, 2>(stepIds, {batch, steps});
    LengthsDesc offsetsDesc = describeContiguous<int32_t, 1>(offsets, {batch});
    LengthsDesc lengthsDesc =
        describeContiguous<int32_t, 1>(stepLengths, {batch});
    CacheDesc cacheDesc = describeContiguous<void, 6>(
        cacheOf(s, lo),
        {batch, s->kv.layers, 2, s->kv.kvHeads, s->maxContext, s->kv.headDim});
    StepLogitsDesc logitsDesc =
        describeContiguous<float, 2>(out, {batch, s->vocab});
    CacheDesc crossDesc;
    LengthsDesc sourceDesc;
    if (s->kv.cross) {
      crossDesc = describeContiguous<void, 6>(
          crossOf(s, lo),
          {batch, s->kv.layers, 2, s->kv.kvHeads, s->maxSource, s->kv.headDim});
      sourceDesc = describeContiguous<int32_t, 1>(sources, {batch});
    }
    callStep(table, &idsDesc, &offsetsDesc, &lengthsDesc, &cacheDesc,
             s->kv.cross ? &crossDesc : nullptr,
             s->kv.cross ? &sourceDesc : nullptr, &logitsDesc);
  };
  if (cuda::Instance *device = deviceOf(s)) {
    // batch x steps and batch x vocab fit int64 (bounded at creation).
    size_t rowBytes = sizeof(int32_t) * batch;
    std::vector<cuda::HostBuffer> inputs = {
        {s->stepIds.get(), rowBytes * steps},
        {s->stepOffsets.get(), rowBytes},
        {s->stepLengths.get(), rowBytes}};
    if (s->kv.cross)
      inputs.push_back({&s->sourceLengths[lo], rowBytes});
    if (llvm::Error e = cuda::run(
            *device, inputs, stepLogits, sizeof(float) * batch * s->vocab,
            [&](llvm::ArrayRef<void *> in, void *out) {
              step(cuda::weightTable(*device), static_cast<int32_t *>(in[0]),
                   static_cast<int32_t *>(in[1]), static_cast<int32_t *>(in[2]),
                   s->kv.cross ? static_cast<int32_t *>(in[3]) : nullptr,
                   static_cast<float *>(out));
            }))
      return failWith(std::move(e));
  } else {
    ThreadCountScope threads(s->model);
    step(hostTable(s->model), s->stepIds.get(), s->stepOffsets.get(),
         s->stepLengths.get(), s->kv.cross ? &s->sourceLengths[lo] : nullptr,
         stepLogits);
  }

  for (int64_t i = 0; i < n; ++i) {
    int64_t slot = slots[i];
    if (!inOrder)
      std::memcpy(&logits[i * s->vocab], &stepLogits[(slot - lo) * s->vocab],
                  sizeof(float) * s->vocab);
    int64_t start = s->stepOffsets[slot - lo],
            total = start + s->stepLengths[slot - lo];
    if (after > 0)
      std::memcpy(&s->history[slot * s->maxContext + start],
                  &s->stepIds[(slot - lo) * steps],
                  sizeof(int32_t) * (total - start));
    s->lengths[slot] = total;
  }
  return TFM_OK;
}

} // namespace

//===----------------------------------------------------------------------===//
// The C ABI
//===----------------------------------------------------------------------===//

extern "C" {

tfm_status tfm_model_create(const char *weights_path, tfm_model **out) {
  if (!out)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "out (tfm_model **) is NULL");

  llvm::Expected<Manifest> manifest =
      Manifest::parse(tfm_model_manifest, "model manifest");
  if (!manifest)
    return fail(TFM_ERROR_MODEL, llvm::toString(manifest.takeError()));

  if (!manifest->positionsInput)
    return fail(TFM_ERROR_MODEL,
                "model manifest lists the inputs ids and lengths, without "
                "positions: its generated code predates this runtime");

  if (!manifest->prepared.empty() && !_mlir_ciface_tfm_prepare)
    return fail(TFM_ERROR_MODEL,
                "model manifest lists " +
                    llvm::Twine(manifest->prepared.size()) +
                    " prepared tensors (the first is '" +
                    manifest->prepared.front().name +
                    "') but the library has no _mlir_ciface_tfm_prepare");

  if (std::optional<std::string> why = enableCpuFeatures(manifest->cpuFeatures))
    return fail(TFM_ERROR_UNSUPPORTED,
                "model '" + manifest->modelName + "' needs " + *why);

  // The address of an undefined weak symbol is null.
  const unsigned char *embedded = tfm_embedded_weights;
  const uint64_t *embeddedSize = &tfm_embedded_weights_size;
  if (!weights_path && (!embedded || !embeddedSize || *embeddedSize == 0))
    return fail(TFM_ERROR_UNSUPPORTED,
                "no weights path given and model '" + manifest->modelName +
                    "' has no embedded weights (compile with "
                    "--embed-weights or pass a safetensors path)");
  llvm::Expected<WeightSet> files =
      weights_path
          ? WeightSet::open(weights_path)
          : WeightSet::fromBuffer(llvm::MemoryBuffer::getMemBuffer(
                llvm::StringRef(reinterpret_cast<const char *>(embedded),
                                *embeddedSize),
                "<embedded weights>", /*RequiresNullTerminator=*/false));
  if (!files)
    return fail(TFM_ERROR_WEIGHTS, llvm::toString(files.takeError()));

  std::unique_ptr<WeightSet> set(new (std::nothrow) WeightSet(std::move(*files)));
  if (!set)
    return fail(TFM_ERROR_OUT_OF_MEMORY, "cannot allocate the weight set");
  // On CUDA the prepared tensors live in device memory only.
  bool onDevice = manifest->device == Device::CUDA;
  BindFailure failure;
  llvm::Expected<BoundWeights> bound =
      bindWeights(*manifest, std::move(set), &failure,
                  /*withPrepared=*/!onDevice);
  if (!bound)
    return fail(failure == BindFailure::OutOfMemory ? TFM_ERROR_OUT_OF_MEMORY
                                                    : TFM_ERROR_WEIGHTS,
                llvm::toString(bound.takeError()));

  std::unique_ptr<tfm_model> model(new (std::nothrow) tfm_model);
  if (!model)
    return fail(TFM_ERROR_OUT_OF_MEMORY, "cannot allocate the model");
  model->manifest = std::move(*manifest);
  if (onDevice) {
    if (tfm_status s = createOnDevice(*model, std::move(*bound)))
      return s;
  } else {
    model->weights = std::move(*bound);
    if (!model->manifest.prepared.empty()) {
      ThreadCountScope threads(model.get());
      callPrepare(hostTable(model.get()));
    }
  }
  *out = model.release();
  return TFM_OK;
}

tfm_status tfm_model_destroy(tfm_model *model) {
  delete model;
  return TFM_OK;
}

tfm_status tfm_model_set_num_threads(tfm_model *model, int n) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  if (n < 0 || n > TFM_MAX_THREADS)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "num_threads is " + llvm::Twine(n) + ", must lie in [0, " +
                    llvm::Twine(TFM_MAX_THREADS) +
                    "] (0: one thread per core)");
  model->numThreads.store(n, std::memory_order_relaxed);
  return TFM_OK;
}

tfm_status tfm_model_get_num_threads(const tfm_model *model, int *n) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  if (!n)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "n is NULL");
  *n = resolveThreads(model);
  return TFM_OK;
}

/// The error for a token entry point called on an image model.
tfm_status pixelsOnly(const Manifest &m) {
  return fail(TFM_ERROR_UNSUPPORTED,
              "model '" + m.modelName +
                  "' is an image model (it takes pixels, not token ids): "
                  "call tfm_model_forward_pixels");
}

/// The checks tfm_model_forward and tfm_model_forward_masked share: a model
/// of tokens with one stack, and its output buffer.
tfm_status checkSingleStack(const tfm_model *model, int64_t batch, int64_t seq,
                            const int32_t *ids, float *out, size_t capacity) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  const Manifest &m = model->manifest;
  if (m.image)
    return pixelsOnly(m);
  if (m.architecture == Architecture::EncoderDecoder)
    return fail(TFM_ERROR_UNSUPPORTED,
                "model '" + m.modelName +
                    "' is an encoder_decoder: call tfm_model_forward_seq2seq");
  if (tfm_status s = checkDims(m, batch, seq, "batch", "seq"))
    return s;
  if (tfm_status s = checkTokens(m, ids, batch, seq, "ids"))
    return s;
  return checkOutput(m, batch, seq, out, capacity);
}

tfm_status tfm_model_forward(const tfm_model *model, const int32_t *ids,
                             int64_t batch, int64_t seq, const int32_t *lengths,
                             float *out, size_t out_capacity_elements) {
  if (tfm_status s =
          checkSingleStack(model, batch, seq, ids, out, out_capacity_elements))
    return s;
  const Manifest &m = model->manifest;
  std::vector<int32_t> lengthStorage;
  const int32_t *lens;
  if (tfm_status s =
          checkLengths(lengths, batch, seq, "lengths", lengthStorage, lens))
    return s;
  // Every sequence starts at the model's first position.
  ZeroedArray<int32_t> positions;
  if (!positions.allocate(static_cast<uint64_t>(batch)))
    return fail(TFM_ERROR_OUT_OF_MEMORY, "cannot allocate the positions");
  std::fill_n(positions.get(), batch, static_cast<int32_t>(m.firstPosition));
  return runForward(model, ids, batch, seq, lens, positions.get(), nullptr, 0,
                    nullptr, out, outputElements(m, batch, seq));
}

tfm_status tfm_model_forward_masked(const tfm_model *model, const int32_t *ids,
                                    int64_t batch, int64_t seq,
                                    const int32_t *attention_mask,
                                    const int32_t *position_ids, float *out,
                                    size_t out_capacity_elements) {
  if (tfm_status s =
          checkSingleStack(model, batch, seq, ids, out, out_capacity_elements))
    return s;
  const Manifest &m = model->manifest;
  auto element = [](const char *name, int64_t b, int64_t t) {
    return (llvm::Twine(name) + "[" + llvm::Twine(b) + "][" + llvm::Twine(t) +
            "]")
        .str();
  };
  // Each row's run of 1s [start, start + length) and its first position
  // (int32: seq <= max_seq_len, which Manifest::parse bounds to int32).
  ZeroedArray<int32_t> starts, lengths, positions;
  if (!starts.allocate(batch) || !lengths.allocate(batch) ||
      !positions.allocate(batch))
    return fail(TFM_ERROR_OUT_OF_MEMORY,
                "cannot allocate the lengths and positions");
  for (int64_t b = 0; b < batch; ++b) {
    int64_t first = -1, last = -1;
    for (int64_t t = 0; t < seq; ++t) {
      int32_t v = attention_mask ? attention_mask[b * seq + t] : 1;
      if (v != 0 && v != 1)
        return fail(TFM_ERROR_INVALID_ARGUMENT,
                    element("attention_mask", b, t) + " is " + llvm::Twine(v) +
                        ", must be 0 or 1");
      if (v == 1) {
        if (first < 0)
          first = t;
        else if (last != t - 1)
          return fail(TFM_ERROR_INVALID_ARGUMENT,
                      element("attention_mask", b, t - 1) +
                          " is 0 between 1s (at positions " +
                          llvm::Twine(last) + " and " + llvm::Twine(t) +
                          "): tfm runs each sequence as one run of tokens, "
                          "padded on the left, the right or both");
        last = t;
      }
    }
    if (first < 0)
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "attention_mask[" + llvm::Twine(b) +
                      "] has no 1: every sequence needs at least one token");
    int64_t length = last - first + 1;
    // Hugging Face's default: the index in the padded row, or
    // first_position for the first token (RoBERTa counts from its ids).
    int64_t position = m.firstPosition ? m.firstPosition : first;
    if (position_ids) {
      const int32_t *row = position_ids + b * seq;
      position = row[first];
      for (int64_t t = first + 1; t <= last; ++t)
        if (row[t] != position + (t - first))
          return fail(TFM_ERROR_INVALID_ARGUMENT,
                      element("position_ids", b, t) + " is " +
                          llvm::Twine(row[t]) + ", expected " +
                          llvm::Twine(position + (t - first)) +
                          ": positions count up by one along a sequence");
      int64_t limit = m.firstPosition + m.maxSeqLen;
      if (position < 0 || position + length > limit)
        return fail(TFM_ERROR_INVALID_ARGUMENT,
                    "position_ids[" + llvm::Twine(b) + "] run from " +
                        llvm::Twine(position) + " to " +
                        llvm::Twine(position + length - 1) + ", outside [0, " +
                        llvm::Twine(limit) + ") (the positions of model '" +
                        m.modelName + "')");
    }
    starts[b] = static_cast<int32_t>(first);
    lengths[b] = static_cast<int32_t>(length);
    positions[b] = static_cast<int32_t>(position);
  }

  // Left padding: run every sequence from column 0 (the padding after it
  // repeats its first token, a valid id the lengths mask out).
  bool shifted = std::any_of(starts.get(), starts.get() + batch,
                             [](int32_t s) { return s != 0; });
  ZeroedArray<int32_t> moved;
  if (shifted) {
    if (!moved.allocate(static_cast<uint64_t>(batch * seq)))
      return fail(TFM_ERROR_OUT_OF_MEMORY,
                  "cannot allocate the shifted token ids");
    for (int64_t b = 0; b < batch; ++b) {
      const int32_t *row = ids + b * seq + starts[b];
      int32_t *dst = moved.get() + b * seq;
      std::copy_n(row, lengths[b], dst);
      std::fill(dst + lengths[b], dst + seq, row[0]);
    }
  }
  if (tfm_status s = runForward(model, shifted ? moved.get() : ids, batch, seq,
                                lengths.get(), positions.get(), nullptr, 0,
                                nullptr, out, outputElements(m, batch, seq)))
    return s;
  if (m.output == OutputKind::Classes)
    return TFM_OK;
  // Each row's outputs back under its tokens, zeros under the padding.
  size_t width = static_cast<size_t>(m.outputDim);
  for (int64_t b = 0; b < batch; ++b) {
    float *row = out + b * seq * width;
    size_t start = starts[b], length = lengths[b];
    if (start)
      std::memmove(row + start * width, row, length * width * sizeof(float));
    std::fill(row, row + start * width, 0.0f);
    std::fill(row + (start + length) * width, row + seq * width, 0.0f);
  }
  return TFM_OK;
}

tfm_status tfm_model_forward_seq2seq(const tfm_model *model,
                                     const int32_t *src, int64_t batch,
                                     int64_t src_seq,
                                     const int32_t *src_lengths,
                                     const int32_t *tgt, int64_t tgt_seq,
                                     const int32_t *tgt_lengths, float *out,
                                     size_t out_capacity_elements) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  const Manifest &m = model->manifest;
  if (m.image)
    return pixelsOnly(m);
  if (m.architecture != Architecture::EncoderDecoder)
    return fail(TFM_ERROR_UNSUPPORTED,
                "model '" + m.modelName + "' is " +
                    (m.architecture == Architecture::Encoder ? "an " : "a ") +
                    architectureName(m.architecture) +
                    ", not an encoder_decoder: call tfm_model_forward");
  if (tfm_status s = checkDims(m, batch, src_seq, "batch", "src_seq"))
    return s;
  if (tfm_status s = checkDims(m, batch, tgt_seq, "batch", "tgt_seq"))
    return s;
  if (tfm_status s = checkTokens(m, src, batch, src_seq, "src"))
    return s;
  if (tfm_status s = checkTokens(m, tgt, batch, tgt_seq, "tgt"))
    return s;
  std::vector<int32_t> srcStorage, tgtStorage;
  const int32_t *srcLens, *tgtLens;
  if (tfm_status s = checkLengths(src_lengths, batch, src_seq, "src_lengths",
                                  srcStorage, srcLens))
    return s;
  if (tfm_status s = checkLengths(tgt_lengths, batch, tgt_seq, "tgt_lengths",
                                  tgtStorage, tgtLens))
    return s;
  if (tfm_status s = checkOutput(m, batch, tgt_seq, out, out_capacity_elements))
    return s;
  return runForward(model, src, batch, src_seq, srcLens, nullptr, tgt, tgt_seq,
                    tgtLens, out, outputElements(m, batch, tgt_seq));
}

tfm_status tfm_model_forward_pixels(const tfm_model *model, const float *pixels,
                                    int64_t batch, float *out,
                                    size_t out_capacity_elements) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  const Manifest &m = model->manifest;
  if (!m.image)
    return fail(TFM_ERROR_UNSUPPORTED,
                "model '" + m.modelName +
                    "' takes token ids, not pixels: call " +
                    (m.architecture == Architecture::EncoderDecoder
                         ? "tfm_model_forward_seq2seq"
                         : "tfm_model_forward"));
  const ManifestImage &image = *m.image;
  int64_t seq = m.maxSeqLen; // [CLS] and the patches
  if (tfm_status s = checkDims(m, batch, seq, "batch", "tokens"))
    return s;
  int64_t count;
  if (__builtin_mul_overflow(batch, image.pixelsPerImage(), &count))
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "batch x channels x height x width overflows");
  if (!pixels)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "pixels is NULL");
  // A NaN or infinity would spread to every output of its image.
  for (int64_t i = 0; i < count; ++i)
    if (!std::isfinite(pixels[i])) {
      int64_t per = image.pixelsPerImage(), plane = image.height * image.width;
      int64_t b = i / per, c = (i % per) / plane, y = (i % plane) / image.width,
              x = i % image.width;
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "pixels[" + llvm::Twine(b) + "][" + llvm::Twine(c) + "][" +
                      llvm::Twine(y) + "][" + llvm::Twine(x) + "] is " +
                      (std::isnan(pixels[i]) ? "NaN" : "infinite") +
                      ": pixels must be finite");
    }
  if (tfm_status s = checkOutput(m, batch, seq, out, out_capacity_elements))
    return s;
  PixelsDesc pixelsDesc;
  ClassesOutDesc out2;
  SequenceOutDesc out3;
  auto call = [&](void *const *weights, const void *pixelsData, void *outData) {
    pixelsDesc = describeContiguous<float, 4>(
        pixelsData, {batch, image.channels, image.height, image.width});
    void *outDesc = describeOutput(m, static_cast<float *>(outData), batch, seq,
                                   out2, out3);
    callForwardPixels(weights, &pixelsDesc, outDesc);
  };
  if (!model->cuda) {
    ThreadCountScope threads(model);
    call(hostTable(model), pixels, out);
    return TFM_OK;
  }
  size_t pixelBytes, outBytes;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), sizeof(float),
                             &pixelBytes) ||
      __builtin_mul_overflow(
          static_cast<uint64_t>(outputElements(m, batch, seq)), sizeof(float),
          &outBytes))
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "the inputs or the output are too large for this machine");
  cuda::Instance &instance = *model->cuda;
  if (llvm::Error e =
          cuda::run(instance, {{pixels, pixelBytes}}, out, outBytes,
                    [&](llvm::ArrayRef<void *> device, void *deviceOut) {
                      call(cuda::weightTable(instance), device[0], deviceOut);
                    }))
    return failWith(std::move(e));
  return TFM_OK;
}

tfm_status tfm_model_output_shape(const tfm_model *model, int64_t batch,
                                  int64_t seq, int64_t shape[3], int *rank) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  if (!shape || !rank)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                !shape ? "shape is NULL" : "rank is NULL");
  const Manifest &m = model->manifest;
  // For an encoder-decoder `seq` is the decoder length: named as
  // tfm_model_forward_seq2seq names it.
  const char *seqName =
      m.architecture == Architecture::EncoderDecoder ? "seq (tgt_seq)" : "seq";
  if (tfm_status s = checkDims(m, batch, seq, "batch", seqName))
    return s;
  if (m.image && seq != m.maxSeqLen)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "seq is " + llvm::Twine(seq) + ", but every image of model '" +
                    m.modelName + "' is " + llvm::Twine(m.maxSeqLen) +
                    " tokens ([CLS] and one per patch)");
  int64_t dims[3];
  int r;
  int64_t elements;
  if (!outputShape(m, batch, seq, dims, r, elements))
    return fail(TFM_ERROR_INVALID_ARGUMENT, "the output size overflows");
  std::memcpy(shape, dims, sizeof(dims));
  *rank = r;
  return TFM_OK;
}

tfm_status tfm_model_info(const tfm_model *model, const char **manifest_json) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  if (!manifest_json)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "manifest_json is NULL");
  *manifest_json = tfm_model_manifest;
  return TFM_OK;
}

tfm_status tfm_library_info(const char **manifest_json) {
  if (!manifest_json)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "manifest_json is NULL");
  *manifest_json = tfm_model_manifest;
  return TFM_OK;
}

tfm_status tfm_session_create(const tfm_model *model, int64_t max_slots,
                              int64_t max_context, tfm_session **out) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  if (!out)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "out (tfm_session **) is NULL");
  const Manifest &m = model->manifest;
  if (!m.kvCache) {
    if (m.architecture != Architecture::Decoder)
      return fail(TFM_ERROR_UNSUPPORTED,
                  "model '" + m.modelName + "' is " +
                      (m.architecture == Architecture::Encoder ? "an " : "a ") +
                      architectureName(m.architecture) +
                      ": generation sessions need a decoder compiled with "
                      "generation entries (tfmc --generation)");
    return fail(TFM_ERROR_UNSUPPORTED,
                "model '" + m.modelName +
                    "' has no generation step: it was compiled without "
                    "generation entries (tfmc --generation)");
  }
  if (!_mlir_ciface_step)
    return fail(TFM_ERROR_MODEL, "model manifest has 'kv_cache' but the "
                                 "library has no _mlir_ciface_step");
  if (m.kvCache->cross && !_mlir_ciface_encode)
    return fail(TFM_ERROR_MODEL, "model manifest has 'kv_cache' with "
                                 "'cross' but the library has no "
                                 "_mlir_ciface_encode");
  if (max_slots < 1)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "max_slots is " +
                                                llvm::Twine(max_slots) +
                                                ", must be at least 1");
  // Offsets and lengths reach the step as int32.
  int64_t contextLimit = std::min<int64_t>(m.maxSeqLen, INT32_MAX);
  if (max_context < 1 || max_context > contextLimit)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "max_context is " + llvm::Twine(max_context) +
                    ", must lie in [1, " + llvm::Twine(contextLimit) +
                    "] (max_seq_len of model '" + m.modelName + "')");

  // The cache and the scratch, whose sizes bound every call's.
  // Bytes per token: elements times 4 (f32) or 2 (a 16-bit cache).
  int64_t perPosition = m.kvCache->elementsPerPosition();
  std::string elementName =
      (precisionName(m.kvCache->storage) + " elements").str();
  int64_t positionBytes, perSlot, cacheBytes, idsElements, logitsElements;
  if (__builtin_mul_overflow(perPosition, m.kvCache->elementBytes(),
                             &positionBytes) ||
      __builtin_mul_overflow(max_context, positionBytes, &perSlot) ||
      __builtin_mul_overflow(max_slots, perSlot, &cacheBytes) ||
      __builtin_mul_overflow(max_slots, max_context, &idsElements) ||
      __builtin_mul_overflow(max_slots, m.vocabSize, &logitsElements))
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "max_slots " + llvm::Twine(max_slots) + " x max_context " +
                    llvm::Twine(max_context) + " x " +
                    llvm::Twine(perPosition) + " " + elementName +
                    " per token: the KV cache's size overflows");
  std::unique_ptr<tfm_session> s(new (std::nothrow) tfm_session);
  if (!s)
    return fail(TFM_ERROR_OUT_OF_MEMORY, "cannot allocate the session");
  s->model = model;
  std::string cacheText =
      ("the KV cache: " + llvm::Twine(cacheBytes) + " bytes (max_slots " +
       llvm::Twine(max_slots) + " x max_context " + llvm::Twine(max_context) +
       " x " + llvm::Twine(perPosition) + " " + elementName + " per token)")
          .str();
  if (tfm_status st = allocateCache(*model, cacheBytes, cacheText, s->cache,
                                    s->deviceCache))
    return st;
  if (!s->lengths.allocate(max_slots) || !s->rowOf.allocate(max_slots) ||
      !s->stepOffsets.allocate(max_slots) ||
      !s->stepLengths.allocate(max_slots) ||
      !s->stepIds.allocate(idsElements) ||
      !s->stepLogits.allocate(logitsElements) ||
      (m.kvCache->recomputeAfter > 0 && !s->history.allocate(idsElements)))
    return fail(TFM_ERROR_OUT_OF_MEMORY,
                "cannot allocate the session's scratch (" +
                    llvm::Twine(max_slots) + " slots)");
  if (m.kvCache->cross) {
    // Sources up to the model's max_seq_len (int32 lengths, as above).
    int64_t source = contextLimit, crossPerSlot, crossBytes, srcElements;
    if (__builtin_mul_overflow(source, positionBytes, &crossPerSlot) ||
        __builtin_mul_overflow(max_slots, crossPerSlot, &crossBytes) ||
        __builtin_mul_overflow(max_slots, source, &srcElements))
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "max_slots " + llvm::Twine(max_slots) +
                      ": the cross-attention cache's size overflows");
    std::string crossText =
        ("the cross-attention cache: " + llvm::Twine(crossBytes) +
         " bytes (max_slots " + llvm::Twine(max_slots) + " x max_seq_len " +
         llvm::Twine(source) + " x " + llvm::Twine(perPosition) + " " +
         elementName + " per source token)")
            .str();
    if (!s->sourceLengths.allocate(max_slots) ||
        !s->encodeIds.allocate(srcElements))
      return fail(TFM_ERROR_OUT_OF_MEMORY,
                  "cannot allocate the session's scratch (" +
                      llvm::Twine(max_slots) + " slots)");
    if (tfm_status st = allocateCache(*model, crossBytes, crossText, s->cross,
                                      s->deviceCross))
      return st;
    s->maxSource = source;
    s->bytesPerCrossSlot = crossPerSlot;
  }
  s->maxSlots = max_slots;
  s->maxContext = max_context;
  s->kv = *m.kvCache;
  s->vocab = m.vocabSize;
  s->bytesPerSlot = perSlot;
  *out = s.release();
  return TFM_OK;
}

tfm_status tfm_session_destroy(tfm_session *session) {
  delete session;
  return TFM_OK;
}

tfm_status tfm_session_prefill(tfm_session *session, const int64_t *slots,
                               int64_t n, const int32_t *ids, int64_t seq,
                               const int32_t *lengths, float *logits,
                               int64_t logits_capacity) {
  return append(session, slots, n, ids, seq, lengths, /*decode=*/false, logits,
                logits_capacity);
}

tfm_status tfm_session_decode(tfm_session *session, const int64_t *slots,
                              int64_t n, const int32_t *ids, float *logits,
                              int64_t logits_capacity) {
  return append(session, slots, n, ids, /*seq=*/1, /*lengths=*/nullptr,
                /*decode=*/true, logits, logits_capacity);
}

tfm_status tfm_session_reset(tfm_session *session, int64_t slot) {
  if (!session)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "session is NULL");
  if (tfm_status s = checkSlot(session, slot, "slot"))
    return s;
  // Zero what the slot's tokens wrote, so that a reset slot is bit for bit
  // a fresh one (the step may read cached positions past a slot's length
  // under a mask); the rest is still zero and need not be touched.
  const ManifestKvCache &kv = session->kv;
  int64_t held = session->lengths[slot];
  int64_t tokenBytes = kv.headDim * kv.elementBytes();
  unsigned char *base = cacheOf(session, slot);
  if (cuda::Instance *device = deviceOf(session)) {
    // One memset of the whole slot (also past what the slot held: a step
    // that failed on the device may have written there).
    if (llvm::Error e = cuda::zero(*device, base, session->bytesPerSlot))
      return failWith(std::move(e));
  } else {
    for (int64_t row = 0; row < kv.layers * 2 * kv.kvHeads; ++row)
      std::memset(base + row * session->maxContext * tokenBytes, 0,
                  held * tokenBytes);
  }
  session->lengths[slot] = 0;
  // An encoder-decoder slot also forgets its source (its cross cache rows
  // are rewritten by the next encode, up to the new source's length; the
  // step never reads past a source's length).
  if (kv.cross)
    session->sourceLengths[slot] = 0;
  return TFM_OK;
}

tfm_status tfm_session_copy_slot(tfm_session *session, int64_t src,
                                 int64_t dst) {
  if (!session)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "session is NULL");
  if (tfm_status s = checkSlot(session, src, "src"))
    return s;
  if (tfm_status s = checkSlot(session, dst, "dst"))
    return s;
  if (src == dst)
    return TFM_OK;
  // Per cache row ([layer][K or V][kv head]), the positions src holds, then
  // zeros over what dst held beyond them: dst is bit for bit the slot that
  // src's tokens would have made (the rest of a slot is zero, as for
  // tfm_session_reset).
  const ManifestKvCache &kv = session->kv;
  int64_t copied = session->lengths[src], held = session->lengths[dst];
  int64_t tokenBytes = kv.headDim * kv.elementBytes();
  int64_t rowBytes = session->maxContext * tokenBytes;
  const unsigned char *from = cacheOf(session, src);
  unsigned char *to = cacheOf(session, dst);
  if (cuda::Instance *device = deviceOf(session)) {
    // The whole slot, zeros past src's tokens included: the same result.
    if (llvm::Error e = cuda::copy(*device, to, from, session->bytesPerSlot))
      return failWith(std::move(e));
    if (kv.cross)
      if (llvm::Error e =
              cuda::copy(*device, crossOf(session, dst), crossOf(session, src),
                         session->bytesPerCrossSlot))
        return failWith(std::move(e));
  } else {
    for (int64_t row = 0; row < kv.layers * 2 * kv.kvHeads; ++row) {
      std::memcpy(to + row * rowBytes, from + row * rowBytes,
                  copied * tokenBytes);
      if (held > copied)
        std::memset(to + row * rowBytes + copied * tokenBytes, 0,
                    (held - copied) * tokenBytes);
    }
    if (kv.cross)
      std::memcpy(crossOf(session, dst), crossOf(session, src),
                  session->bytesPerCrossSlot);
  }
  session->lengths[dst] = copied;
  if (kv.recomputeAfter > 0)
    std::memcpy(&session->history[dst * session->maxContext],
                &session->history[src * session->maxContext],
                sizeof(int32_t) * copied);
  if (kv.cross) {
    // The source goes with the decoder state (beam search over a
    // translation; its cross cache was copied above).
    session->sourceLengths[dst] = session->sourceLengths[src];
  }
  return TFM_OK;
}

tfm_status tfm_session_encode(tfm_session *s, const int64_t *slots,
                              int64_t n, const int32_t *src, int64_t src_seq,
                              const int32_t *src_lengths) {
  if (!s)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "session is NULL");
  if (!s->kv.cross)
    return fail(TFM_ERROR_UNSUPPORTED,
                "the session's model is a decoder: tfm_session_encode is for "
                "encoder-decoder models (prefill the prompt instead)");
  if (!slots)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "slots is NULL");
  if (!src)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "src is NULL");
  if (!src_lengths)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "src_lengths is NULL");
  if (n <= 0 || n > s->maxSlots)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "n is " + llvm::Twine(n) + ", must lie in [1, " +
                    llvm::Twine(s->maxSlots) + "] (max_slots)");
  if (src_seq <= 0 || src_seq > s->maxSource)
    return fail(TFM_ERROR_INVALID_ARGUMENT,
                "src_seq is " + llvm::Twine(src_seq) + ", must lie in [1, " +
                    llvm::Twine(s->maxSource) + "] (max_seq_len)");
  SlotMarks marks(s, slots, "a call encodes each slot once");
  int64_t longest = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (tfm_status st = marks.mark(i))
      return st;
    int64_t slot = slots[i];
    int64_t count = src_lengths[i];
    if (count < 1 || count > src_seq)
      return fail(TFM_ERROR_INVALID_ARGUMENT,
                  "src_lengths[" + llvm::Twine(i) + "] is " +
                      llvm::Twine(count) + ", must lie in [1, " +
                      llvm::Twine(src_seq) + "]");
    for (int64_t t = 0; t < count; ++t) {
      int32_t id = src[i * src_seq + t];
      if (id < 0 || id >= s->vocab)
        return fail(TFM_ERROR_INVALID_ARGUMENT,
                    "src[" + llvm::Twine(i) + "][" + llvm::Twine(t) +
                        "] (slot " + llvm::Twine(slot) + ") is token id " +
                        llvm::Twine(id) + ", outside [0, " +
                        llvm::Twine(s->vocab) + ")");
    }
    longest = std::max(longest, count);
  }
  // The listed slots start over: no decoder tokens, a new source.
  for (int64_t i = 0; i < n; ++i)
    if (tfm_status st = tfm_session_reset(s, slots[i]))
      return st;
  int64_t lo = marks.lo, hi = marks.hi;
  int64_t batch = hi - lo + 1;
  std::memset(s->encodeIds.get(), 0, sizeof(int32_t) * batch * longest);
  for (int64_t b = 0; b < batch; ++b) {
    s->stepLengths[b] = 0; // filler rows write nothing
    if (int64_t row = s->rowOf[lo + b]) {
      int64_t i = row - 1;
      s->stepLengths[b] = src_lengths[i];
      std::memcpy(&s->encodeIds[b * longest], &src[i * src_seq],
                  sizeof(int32_t) * src_lengths[i]);
    }
  }
  auto encode = [&](void *const *table, int32_t *sources,
                    int32_t *sourceLengths) {
    IdsDesc srcDesc = describeContiguous<int32_t, 2>(sources, {batch, longest});
    LengthsDesc lengthsDesc =
        describeContiguous<int32_t, 1>(sourceLengths, {batch});
    CacheDesc crossDesc = describeContiguous<void, 6>(
        crossOf(s, lo),
        {batch, s->kv.layers, 2, s->kv.kvHeads, s->maxSource, s->kv.headDim});
    callEncode(table, &srcDesc, &lengthsDesc, &crossDesc);
  };
  if (cuda::Instance *device = deviceOf(s)) {
    size_t rowBytes = sizeof(int32_t) * batch;
    if (llvm::Error e = cuda::run(
            *device,
            {{s->encodeIds.get(), rowBytes * longest},
             {s->stepLengths.get(), rowBytes}},
            nullptr, 0, [&](llvm::ArrayRef<void *> in, void *) {
              encode(cuda::weightTable(*device), static_cast<int32_t *>(in[0]),
                     static_cast<int32_t *>(in[1]));
            }))
      return failWith(std::move(e));
  } else {
    ThreadCountScope threads(s->model);
    encode(hostTable(s->model), s->encodeIds.get(), s->stepLengths.get());
  }
  for (int64_t i = 0; i < n; ++i)
    s->sourceLengths[slots[i]] = src_lengths[i];
  return TFM_OK;
}

tfm_status tfm_session_length(const tfm_session *session, int64_t slot,
                              int64_t *length) {
  if (!session)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "session is NULL");
  if (!length)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "length is NULL");
  if (tfm_status s = checkSlot(session, slot, "slot"))
    return s;
  *length = session->lengths[slot];
  return TFM_OK;
}

const char *tfm_last_error(void) { return lastError.c_str(); }

const char *tfm_status_string(tfm_status status) {
  switch (status) {
  case TFM_OK:
    return "TFM_OK";
  case TFM_ERROR_INVALID_ARGUMENT:
    return "TFM_ERROR_INVALID_ARGUMENT";
  case TFM_ERROR_BUFFER_TOO_SMALL:
    return "TFM_ERROR_BUFFER_TOO_SMALL";
  case TFM_ERROR_WEIGHTS:
    return "TFM_ERROR_WEIGHTS";
  case TFM_ERROR_MODEL:
    return "TFM_ERROR_MODEL";
  case TFM_ERROR_OUT_OF_MEMORY:
    return "TFM_ERROR_OUT_OF_MEMORY";
  case TFM_ERROR_UNSUPPORTED:
    return "TFM_ERROR_UNSUPPORTED";
  case TFM_ERROR_DEVICE:
    return "TFM_ERROR_DEVICE";
  }
  return "TFM_ERROR_UNKNOWN";
}

} // extern "C"
