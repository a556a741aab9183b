//===- CApi.cpp - the C ABI of compiled models ----------------------------===//
//
// Implements tfm_runtime.h on top of the generated code's symbols:
//
//   const char tfm_model_manifest[];      // JSON, see Loader.h
//   void _mlir_ciface_forward(void *const *weights, <input descriptors>...,
//                             <output descriptor>);
//   void _mlir_ciface_tfm_prepare(void *const *weights);
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

#include "Cuda.h"

#include "llvm/ADT/Twine.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <atomic>
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

// All five are referenced with hidden visibility: the static linker must
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

/// The descriptors of the generated entry's arguments: token ids [B, T] and
/// lengths [B] (src/tgt alike), the output as [B, C] classes or [B, T, V|D].
using IdsDesc = MemRefDescriptor<int32_t, 2>;
using LengthsDesc = MemRefDescriptor<int32_t, 1>;
using ClassesOutDesc = MemRefDescriptor<float, 2>;
using SequenceOutDesc = MemRefDescriptor<float, 3>;

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

using Forward2 = void (*)(void *const *, IdsDesc *, LengthsDesc *, void *);
using Forward4 = void (*)(void *const *, IdsDesc *, LengthsDesc *, IdsDesc *,
                          LengthsDesc *, void *);

/// Calls generated code through a pointer of its real type. The generated
/// function has no UBSan function-type prologue, so the -fsanitize=function
/// check is off here. `weights` is the table of the model's device.
__attribute__((no_sanitize("function"))) void
callForward(void *const *weights, IdsDesc *ids, LengthsDesc *lengths,
            IdsDesc *tgt, LengthsDesc *tgtLengths, void *out) {
  if (tgt)
    reinterpret_cast<Forward4>(&_mlir_ciface_forward)(weights, ids, lengths,
                                                      tgt, tgtLengths, out);
  else
    reinterpret_cast<Forward2>(&_mlir_ciface_forward)(weights, ids, lengths,
                                                      out);
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
/// `tgt` (batch x tgtSeq) and `tgtLengths` for encoder-decoder models (null
/// otherwise), into `out` of `outElements` floats. CPU models run the
/// generated code on the caller's buffers; CUDA models on device copies.
tfm_status runForward(const tfm_model *model, const int32_t *ids,
                      int64_t batch, int64_t seq, const int32_t *lengths,
                      const int32_t *tgt, int64_t tgtSeq,
                      const int32_t *tgtLengths, float *out,
                      int64_t outElements) {
  const Manifest &m = model->manifest;
  int64_t outSeq = tgt ? tgtSeq : seq;
  // The descriptors of one call, over host or device buffers.
  IdsDesc idsDesc, tgtDesc;
  LengthsDesc lensDesc, tgtLensDesc;
  ClassesOutDesc out2;
  SequenceOutDesc out3;
  auto call = [&](void *const *weights, const void *idsData,
                  const void *lensData, const void *tgtData,
                  const void *tgtLensData, void *outData) {
    idsDesc = describeContiguous<int32_t, 2>(idsData, {batch, seq});
    lensDesc = describeContiguous<int32_t, 1>(lensData, {batch});
    if (tgt) {
      tgtDesc = describeContiguous<int32_t, 2>(tgtData, {batch, tgtSeq});
      tgtLensDesc = describeContiguous<int32_t, 1>(tgtLensData, {batch});
    }
    void *outDesc = describeOutput(m, static_cast<float *>(outData), batch,
                                   outSeq, out2, out3);
    callForward(weights, &idsDesc, &lensDesc, tgt ? &tgtDesc : nullptr,
                tgt ? &tgtLensDesc : nullptr, outDesc);
  };

  if (!model->cuda) {
    ThreadCountScope threads(model);
    call(hostTable(model), ids, lengths, tgt, tgtLengths, out);
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
  }
  cuda::Instance &instance = *model->cuda;
  if (llvm::Error e = cuda::run(
          instance, inputs, out, outBytes,
          [&](llvm::ArrayRef<void *> device, void *deviceOut) {
            call(cuda::weightTable(instance), device[0], device[1],
                 tgt ? device[2] : nullptr, tgt ? device[3] : nullptr,
                 deviceOut);
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

  if (!manifest->prepared.empty() && !_mlir_ciface_tfm_prepare)
    return fail(TFM_ERROR_MODEL,
                "model manifest lists " +
                    llvm::Twine(manifest->prepared.size()) +
                    " prepared tensors (the first is '" +
                    manifest->prepared.front().name +
                    "') but the library has no _mlir_ciface_tfm_prepare");

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

tfm_status tfm_model_forward(const tfm_model *model, const int32_t *ids,
                             int64_t batch, int64_t seq,
                             const int32_t *lengths, float *out,
                             size_t out_capacity_elements) {
  if (!model)
    return fail(TFM_ERROR_INVALID_ARGUMENT, "model is NULL");
  const Manifest &m = model->manifest;
  if (m.architecture == Architecture::EncoderDecoder)
    return fail(TFM_ERROR_UNSUPPORTED,
                "model '" + m.modelName +
                    "' is an encoder_decoder: call tfm_model_forward_seq2seq");
  if (tfm_status s = checkDims(m, batch, seq, "batch", "seq"))
    return s;
  if (tfm_status s = checkTokens(m, ids, batch, seq, "ids"))
    return s;
  std::vector<int32_t> lengthStorage;
  const int32_t *lens;
  if (tfm_status s =
          checkLengths(lengths, batch, seq, "lengths", lengthStorage, lens))
    return s;
  if (tfm_status s = checkOutput(m, batch, seq, out, out_capacity_elements))
    return s;
  return runForward(model, ids, batch, seq, lens, nullptr, 0, nullptr, out,
                    outputElements(m, batch, seq));
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
  return runForward(model, src, batch, src_seq, srcLens, tgt, tgt_seq, tgtLens,
                    out, outputElements(m, batch, tgt_seq));
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
