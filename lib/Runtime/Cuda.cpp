//===- Cuda.cpp - CUDA model instances and the mgpu* runtime calls --------===//
//
// The host code that MLIR's gpu-to-llvm conversion generates for a CUDA
// model calls these C functions (LLVM signatures as MLIR 22 emits them):
//
//   ptr  mgpuModuleLoad(ptr image, i64 size)          global constructor
//   ptr  mgpuModuleLoadJIT(ptr ptx, i32 optLevel)      global constructor
//   void mgpuModuleUnload(ptr module)                  global destructor
//   ptr  mgpuModuleGetFunction(ptr module, ptr name)   before each launch
//   ptr  mgpuStreamCreate()                            before each launch
//   void mgpuLaunchKernel(ptr function, i64 gridX, i64 gridY, i64 gridZ,
//                         i64 blockX, i64 blockY, i64 blockZ, i32 smem,
//                         ptr stream, ptr params, ptr extra, i64 nParams)
//   void mgpuStreamSynchronize(ptr stream)             after each launch
//   void mgpuStreamDestroy(ptr stream)                 after each launch
//   ptr  mgpuMemAlloc(i64 bytes, ptr stream, i8 isHostShared)
//   void mgpuMemFree(ptr p, ptr stream)
//   void mgpuMemcpy(ptr dst, ptr src, i64 bytes, ptr stream)
//   void mgpuMemset32(ptr dst, i32 value, i64 count, ptr stream)
//   void mgpuMemset16(ptr dst, i16 value, i64 count, ptr stream)
//   ptr  mgpuEventCreate(), void mgpuEventDestroy(ptr event),
//   void mgpuEventSynchronize(ptr event), mgpuEventRecord(ptr event,
//   ptr stream), mgpuStreamWaitEvent(ptr stream, ptr event)
//                                                      joins of async tokens
//
// They are defined with hidden visibility: the references of the generated
// object bind to them when the model library is linked, and the export map
// keeps them out of the dynamic symbol table (another library's mgpu*
// functions, e.g. MLIR's CUDA runtime wrappers, neither interpose on these
// nor are interposed by them).
//
// The design:
//
//  * No driver at load time. mgpuModuleLoad/LoadJIT only register the image
//    (pointer, size or PTX, optimization level) in a registry of this
//    library and return the registration as the module handle. The images
//    are loaded into the device's primary context by the first
//    tfm_model_create (createInstance), once per process.
//
//  * One stream per model instance. Instance::run makes the instance the
//    current one of the calling thread for a call into generated code;
//    mgpuStreamCreate returns its stream, and mgpuStreamSynchronize /
//    mgpuStreamDestroy and the event functions are no-ops: everything the
//    generated code does is ordered on that one stream, and run
//    synchronizes once, after copying the output back. (The generated host
//    code therefore must not read device results through host memory
//    before it returns: nothing would wait for them.)
//
//  * Stream-ordered memory. mgpuMemAlloc/Free are cuMemAllocFromPoolAsync /
//    cuMemFreeAsync on the device's default memory pool (named explicitly:
//    the host application may have made another pool the device's current
//    one), whose release threshold is set to UINT64_MAX: freed activation
//    memory stays cached for the next call, like an arena. The pool is
//    trimmed when the last instance of this library is destroyed.
//
//  * Launches. The stream argument of every mgpu* call is ignored in favour
//    of the instance's stream (the only one mgpuStreamCreate hands out); a
//    grid with a zero dimension launches nothing; paramsCount is not needed
//    (the driver knows each kernel's parameters).
//
//  * Errors. The mgpu* functions return nothing, so the first failure of a
//    call is recorded in the instance (CUDA error name, driver function,
//    kernel), every later launch, copy, memset and allocation of the call is
//    skipped (frees still run), and run returns it as a DeviceError, which
//    the C ABI turns into a status.
//
//===----------------------------------------------------------------------===//

#include "Cuda.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MathExtras.h"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <new>
#include <string>
#include <vector>

using namespace tfm;
using namespace tfm::runtime;
using namespace tfm::runtime::cuda;
using llvm::Twine;

//===----------------------------------------------------------------------===//
// The registry of kernel images
//===----------------------------------------------------------------------===//

namespace {

/// A kernel of a loaded module: what mgpuModuleGetFunction returns and
/// mgpuLaunchKernel receives. The name is kept for error messages.
struct Kernel {
  CUfunction function = nullptr;
  std::string name;
  /// The dynamic shared memory the function may take (its
  /// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, raised past the
  /// default 48 KiB by the first launch that needs more); under
  /// `mutex`, since instances on several threads launch the same kernel.
  std::mutex mutex;
  int maxDynamicSharedBytes = kStaticSharedBytes;
  static constexpr int kStaticSharedBytes = 48 * 1024;
};

/// One mgpuModuleLoad / mgpuModuleLoadJIT registration: the module handle
/// the generated code holds.
struct ModuleImage {
  /// The image (a fatbin, cubin or NUL-terminated PTX), in the library's
  /// read-only data.
  const void *data = nullptr;
  /// Bytes of the image (mgpuModuleLoad); 0 for PTX, which is measured.
  uint64_t size = 0;
  /// PTX to JIT-compile at optLevel (mgpuModuleLoadJIT).
  bool jit = false;
  int optLevel = 0;
  /// 1, 2, ... in registration order, for messages.
  unsigned number = 0;
  /// The module in the device's primary context; null until loaded.
  /// Written under the process lock, read without it by
  /// mgpuModuleGetFunction.
  std::atomic<CUmodule> module{nullptr};
  /// Kernels looked up in it, by the address of the name the generated code
  /// passes (a constant of the library, so one address per kernel name).
  std::mutex kernelsMutex;
  llvm::DenseMap<const char *, std::unique_ptr<Kernel>> kernels;
};

/// Process-wide state of this library's CUDA runtime. Leaked on purpose:
/// generated destructors (mgpuModuleUnload) run at exit or dlclose, possibly
/// after this library's static objects have been destroyed, and generated
/// constructors (mgpuModuleLoad) before they are constructed.
struct Process {
  std::mutex mutex;
  /// Registered images not yet unloaded, in registration order.
  std::vector<ModuleImage *> images;
  unsigned registrations = 0;

  /// The device, chosen by the first successful createInstance.
  const DriverApi *api = nullptr;
  bool haveDevice = false;
  int ordinal = 0;
  CUdevice device = 0;
  std::string deviceText; // "CUDA device 0 (NVIDIA H100, sm_90)"
  int smVersion = 0;      // 90 for sm_90
  CUmemoryPool pool = nullptr;
  /// The device's primary context (the handle is the same for every
  /// retain). The loaded modules hold one reference of it, taken when the
  /// first image is loaded and dropped when the last one is unloaded.
  CUcontext context = nullptr;
  bool modulesHoldContext = false;
  /// Live instances of this library.
  unsigned instances = 0;
};

Process &process() {
  static Process *p = new Process();
  return *p;
}

/// Makes `context` current on the calling thread until destroyed (and the
/// caller's own context current again).
class ContextScope {
public:
  ContextScope(const DriverApi &api, CUcontext context) : api(api) {
    result = api.cuCtxPushCurrent(context);
  }
  ~ContextScope() {
    if (result == CUDA_SUCCESS) {
      CUcontext popped;
      api.cuCtxPopCurrent(&popped);
    }
  }
  ContextScope(const ContextScope &) = delete;
  ContextScope &operator=(const ContextScope &) = delete;
  /// The cuCtxPushCurrent result.
  CUresult status() const { return result; }

private:
  const DriverApi &api;
  CUresult result;
};

/// "function failed: CUDA_ERROR_X" plus " (detail)" when there is one.
std::string callFailed(const char *function, CUresult result,
                       const Twine &detail = Twine()) {
  std::string text = std::string(function) + " failed: " + errorName(result);
  std::string extra = detail.str();
  if (!extra.empty())
    text += " (" + extra + ")";
  return text;
}

/// What an image is, for messages: "fatbin image of 1234 bytes".
std::string describeImage(const ModuleImage &image) {
  if (image.jit)
    return "PTX of " +
           std::to_string(std::strlen(static_cast<const char *>(image.data))) +
           " bytes, JIT-compiled at -O" + std::to_string(image.optLevel);
  const auto *bytes = static_cast<const unsigned char *>(image.data);
  const char *kind = "image";
  if (image.size >= 4 && bytes[0] == 0x50 && bytes[1] == 0xed &&
      bytes[2] == 0x55 && bytes[3] == 0xba)
    kind = "fatbin";
  else if (image.size >= 4 && std::memcmp(bytes,
                                          "\x7f"
                                          "ELF",
                                          4) == 0)
    kind = "cubin";
  else if (image.size > 0 &&
           std::memchr(bytes, 0, image.size) == bytes + image.size - 1)
    kind = "PTX"; // a NUL-terminated text: cuModuleLoadData JIT-compiles it
  return std::string(kind) + " of " + std::to_string(image.size) + " bytes";
}

/// Loads `image` into the current context (the process's primary context
/// is current and the process lock held).
llvm::Error loadImage(Process &p, ModuleImage &image) {
  const DriverApi &api = *p.api;
  char log[8192];
  log[0] = 0;
  int options[3];
  void *values[3];
  unsigned count = 0;
  options[count] = CU_JIT_ERROR_LOG_BUFFER;
  values[count++] = log;
  options[count] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;
  values[count++] = reinterpret_cast<void *>(uintptr_t(sizeof(log)));
  if (image.jit) {
    // cuda.h: an unsigned int in [0, 4], passed in the pointer slot.
    options[count] = CU_JIT_OPTIMIZATION_LEVEL;
    values[count++] =
        reinterpret_cast<void *>(uintptr_t(std::clamp(image.optLevel, 0, 4)));
  }
  CUmodule module = nullptr;
  CUresult r =
      api.cuModuleLoadDataEx(&module, image.data, count, options, values);
  if (r == CUDA_SUCCESS) {
    image.module.store(module, std::memory_order_release);
    return llvm::Error::success();
  }
  log[sizeof(log) - 1] = 0;
  FailureKind kind = kindOf(r);
  std::string hint;
  switch (r) {
  case CUDA_ERROR_NO_BINARY_FOR_GPU:
    kind = FailureKind::Unsupported;
    hint = "; the library has no code for sm_" + std::to_string(p.smVersion) +
           ": compile it for this GPU (tfmc --gpu-arch=sm_" +
           std::to_string(p.smVersion) + ")";
    break;
  case CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
    kind = FailureKind::Unsupported;
    hint = "; the library's PTX is newer than this NVIDIA driver understands: "
           "update the driver";
    break;
  case CUDA_ERROR_INVALID_PTX:
  case CUDA_ERROR_INVALID_IMAGE:
    kind = FailureKind::Model;
    break;
  default:
    break;
  }
  std::string text = "cannot load GPU module " + std::to_string(image.number) +
                     " (" + describeImage(image) + ") on " + p.deviceText +
                     ": " + callFailed("cuModuleLoadDataEx", r) + hint;
  if (log[0]) {
    // One line: the log's lines joined with "; ".
    llvm::SmallVector<llvm::StringRef> lines;
    llvm::StringRef(log).split(lines, '\n', -1, /*KeepEmpty=*/false);
    text += "; JIT log: ";
    for (auto [i, line] : llvm::enumerate(lines))
      text += (i ? "; " : "") + line.trim().str();
  }
  return deviceError(kind, text);
}

/// Reads TFM_CUDA_DEVICE: nullopt when unset or empty, else the ordinal;
/// an error for anything but a non-negative decimal int.
llvm::Expected<std::optional<int>> requestedDevice() {
  const char *env = std::getenv("TFM_CUDA_DEVICE");
  if (!env || !*env)
    return std::nullopt;
  long long value = 0;
  bool valid = true;
  for (const char *c = env; *c && valid; ++c) {
    valid = *c >= '0' && *c <= '9';
    value = value * 10 + (*c - '0');
    valid = valid && value <= INT_MAX;
  }
  if (!valid)
    return deviceError(FailureKind::InvalidArgument,
                       "TFM_CUDA_DEVICE is '" + Twine(env) +
                           "', expected a CUDA device ordinal (0, 1, ...)");
  return std::optional<int>(static_cast<int>(value));
}

/// Chooses the process's device (under the process lock).
llvm::Error selectDevice(Process &p) {
  const DriverApi &api = *p.api;
  llvm::Expected<std::optional<int>> requested = requestedDevice();
  if (!requested)
    return requested.takeError();
  if (p.haveDevice) {
    if (*requested && **requested != p.ordinal)
      return deviceError(
          FailureKind::InvalidArgument,
          "TFM_CUDA_DEVICE is " + Twine(**requested) +
              ", but this library already runs on " + p.deviceText +
              " in this process (the first tfm_model_create chose it)");
    return llvm::Error::success();
  }
  int count = 0;
  if (CUresult r = api.cuDeviceGetCount(&count))
    return deviceError(FailureKind::Unsupported,
                       callFailed("cuDeviceGetCount", r));
  if (count <= 0)
    return deviceError(FailureKind::Unsupported, "no CUDA device");
  int ordinal = requested->value_or(0);
  if (ordinal >= count)
    return deviceError(FailureKind::InvalidArgument,
                       "TFM_CUDA_DEVICE is " + Twine(ordinal) + ", but there " +
                           (count == 1 ? "is 1 CUDA device (ordinal 0)"
                                       : "are " + Twine(count) +
                                             " CUDA devices (ordinals 0 to " +
                                             Twine(count - 1) + ")"));
  CUdevice device;
  if (CUresult r = api.cuDeviceGet(&device, ordinal))
    return deviceError(FailureKind::Unsupported, callFailed("cuDeviceGet", r));
  char name[256] = "unnamed";
  if (api.cuDeviceGetName(name, sizeof(name), device) != CUDA_SUCCESS)
    std::strcpy(name, "unnamed");
  name[sizeof(name) - 1] = 0;
  int major = 0, minor = 0, pools = 0;
  if (CUresult r = api.cuDeviceGetAttribute(
          &major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device))
    return deviceError(FailureKind::Device,
                       callFailed("cuDeviceGetAttribute", r));
  if (CUresult r = api.cuDeviceGetAttribute(
          &minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device))
    return deviceError(FailureKind::Device,
                       callFailed("cuDeviceGetAttribute", r));
  if (CUresult r = api.cuDeviceGetAttribute(
          &pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device))
    return deviceError(FailureKind::Device,
                       callFailed("cuDeviceGetAttribute", r));
  std::string text = "CUDA device " + std::to_string(ordinal) + " (" + name +
                     ", sm_" + std::to_string(major * 10 + minor) + ")";
  if (!pools)
    return deviceError(FailureKind::Unsupported,
                       text + " does not support stream-ordered memory pools "
                              "(cuMemAllocAsync), which CUDA models need");
  CUmemoryPool pool;
  if (CUresult r = api.cuDeviceGetDefaultMemPool(&pool, device))
    return deviceError(FailureKind::Device,
                       text + ": " +
                           callFailed("cuDeviceGetDefaultMemPool", r));
  p.haveDevice = true;
  p.ordinal = ordinal;
  p.device = device;
  p.deviceText = text;
  p.smVersion = major * 10 + minor;
  p.pool = pool;
  return llvm::Error::success();
}

/// Whether any registered image is loaded (under the process lock).
bool anyImageLoaded(const Process &p) {
  return std::any_of(p.images.begin(), p.images.end(),
                     [](const ModuleImage *image) {
                       return image->module.load(std::memory_order_relaxed);
                     });
}

/// Loads every registered image not loaded yet (under the process lock,
/// the primary context current).
llvm::Error loadImages(Process &p) {
  for (ModuleImage *image : p.images) {
    if (image->module.load(std::memory_order_relaxed))
      continue;
    if (!p.modulesHoldContext) {
      CUcontext context;
      if (CUresult r = p.api->cuDevicePrimaryCtxRetain(&context, p.device))
        return deviceError(kindOf(r),
                           p.deviceText + ": " +
                               callFailed("cuDevicePrimaryCtxRetain", r));
      p.modulesHoldContext = true;
    }
    if (llvm::Error e = loadImage(p, *image))
      return e;
  }
  return llvm::Error::success();
}

/// Prefixes the message of a DeviceError (other errors pass unchanged).
llvm::Error withPrefix(llvm::Error error, const std::string &prefix) {
  return llvm::handleErrors(
      std::move(error), [&](const DeviceError &e) -> llvm::Error {
        return deviceError(e.kind(), prefix + e.message());
      });
}

/// "; the device has F of T bytes free" (empty when that cannot be read),
/// for the errors of a failed allocation.
std::string freeMemoryText(const DriverApi &api) {
  size_t freeBytes = 0, totalBytes = 0;
  if (api.cuMemGetInfo(&freeBytes, &totalBytes) != CUDA_SUCCESS)
    return "";
  return "; the device has " + std::to_string(freeBytes) + " of " +
         std::to_string(totalBytes) + " bytes free";
}

/// Byte offsets of `sizes` laid out one after the other at 256-byte
/// boundaries (cudaMalloc's alignment) in one allocation; false on
/// overflow.
bool layOut(llvm::ArrayRef<uint64_t> sizes, std::vector<uint64_t> &offsets,
            uint64_t &total) {
  total = 0;
  offsets.clear();
  for (uint64_t size : sizes) {
    uint64_t offset = llvm::alignTo(total, 256);
    if (offset < total || offset + size < offset)
      return false;
    offsets.push_back(offset);
    total = offset + size;
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Instances
//===----------------------------------------------------------------------===//

class tfm::runtime::cuda::Instance {
public:
  const DriverApi *api = nullptr;
  /// "model 'x' on CUDA device 0 (NAME, sm_90)", the prefix of run errors.
  std::string where;
  std::string modelName;
  CUdevice device = 0;
  /// The primary context, retained by this instance (null until then).
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  /// The device's default memory pool: every stream-ordered allocation.
  CUmemoryPool pool = nullptr;
  /// The one allocation holding the weights and the prepared tensors.
  CUdeviceptr weights = 0;
  std::vector<void *> table;
  /// Counted in Process::instances.
  bool counted = false;
  /// Serializes the calls on this instance (they share the stream and the
  /// error slot).
  std::mutex callMutex;

  /// The error slot of the running call: its first failure.
  bool failed = false;
  FailureKind failureKind = FailureKind::Device;
  std::string failure;
  /// The kernel launched last in the running call, for errors reported at
  /// synchronization.
  const Kernel *lastKernel = nullptr;

  /// Records `message` unless the call already failed.
  void fail(FailureKind kind, const Twine &message) {
    if (failed)
      return;
    failed = true;
    failureKind = kind;
    failure = message.str();
  }
  /// Records a failing driver call unless the call already failed; false
  /// when `result` is a failure.
  bool check(CUresult result, const char *function,
             const Twine &detail = Twine()) {
    if (result == CUDA_SUCCESS)
      return true;
    if (!failed)
      fail(kindOf(result), callFailed(function, result, detail));
    return false;
  }
};

namespace {

/// The instance whose call into generated code runs on this thread.
thread_local Instance *currentInstance = nullptr;

/// Makes `instance` the current one (and its context current) for one call.
class CallScope {
public:
  explicit CallScope(Instance &instance)
      : context(*instance.api, instance.context) {
    instance.failed = false;
    instance.failure.clear();
    instance.lastKernel = nullptr;
    saved = currentInstance;
    currentInstance = &instance;
    if (context.status() != CUDA_SUCCESS)
      instance.check(context.status(), "cuCtxPushCurrent");
  }
  ~CallScope() { currentInstance = saved; }
  CallScope(const CallScope &) = delete;
  CallScope &operator=(const CallScope &) = delete;

private:
  ContextScope context;
  Instance *saved;
};

/// The current instance for an mgpu* call. Generated code only runs inside
/// run(), so a call without one is a bug of the caller: stop with a message
/// rather than touch a context that is not ours.
Instance &current(const char *entry) {
  Instance *instance = currentInstance;
  if (!instance) {
    std::fprintf(stderr,
                 "tfm runtime: %s called outside a call into a CUDA model "
                 "(generated code runs only inside tfm_model_create and "
                 "tfm_model_forward)\n",
                 entry);
    std::abort();
  }
  return *instance;
}

/// The instance's result of a call: its recorded failure, if any.
llvm::Error takeFailure(Instance &instance) {
  if (!instance.failed)
    return llvm::Error::success();
  instance.failed = false;
  return deviceError(instance.failureKind,
                     instance.where + ": " + instance.failure);
}

} // namespace

void InstanceDeleter::operator()(Instance *instance) const {
  if (!instance)
    return;
  if (instance->context) {
    const DriverApi &api = *instance->api;
    Process &p = process();
    {
      // Errors are ignored: destroy cannot fail, and after a kernel fault
      // every call returns that fault.
      ContextScope scope(api, instance->context);
      if (instance->stream) {
        api.cuStreamSynchronize(instance->stream);
        api.cuStreamDestroy(instance->stream);
      }
      if (instance->weights)
        api.cuMemFree(instance->weights);
      std::lock_guard<std::mutex> lock(p.mutex);
      if (instance->counted && --p.instances == 0 && p.pool)
        // The last instance: hand the cached activation memory back.
        api.cuMemPoolTrimTo(p.pool, 0);
    }
    api.cuDevicePrimaryCtxRelease(instance->device);
  }
  delete instance;
}

llvm::Expected<InstancePtr>
tfm::runtime::cuda::createInstance(const Manifest &manifest) {
  std::string prefix = "cannot run CUDA model '" + manifest.modelName + "': ";
  InstancePtr instance(new (std::nothrow) Instance());
  if (!instance)
    return deviceError(FailureKind::OutOfMemory,
                       prefix + "cannot allocate the instance");
  instance->modelName = manifest.modelName;

  llvm::Expected<const DriverApi *> api = openDriver();
  if (!api)
    return withPrefix(api.takeError(), prefix);
  const DriverApi &driver = **api;
  instance->api = &driver;

  Process &p = process();
  std::lock_guard<std::mutex> lock(p.mutex);
  p.api = &driver;
  if (llvm::Error e = selectDevice(p))
    return withPrefix(std::move(e), prefix);
  instance->where = "model '" + manifest.modelName + "' on " + p.deviceText;
  prefix = instance->where + ": ";

  CUcontext context;
  if (CUresult r = driver.cuDevicePrimaryCtxRetain(&context, p.device))
    return deviceError(kindOf(r),
                       prefix + callFailed("cuDevicePrimaryCtxRetain", r));
  instance->context = context;
  instance->device = p.device;
  instance->pool = p.pool;
  p.context = context;

  ContextScope scope(driver, context);
  if (CUresult r = scope.status())
    return deviceError(kindOf(r), prefix + callFailed("cuCtxPushCurrent", r));
  // Freed activation memory stays in the pool for the next call.
  uint64_t threshold = UINT64_MAX;
  if (CUresult r = driver.cuMemPoolSetAttribute(
          p.pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold))
    return deviceError(
        kindOf(r), prefix + callFailed("cuMemPoolSetAttribute", r,
                                       "CU_MEMPOOL_ATTR_RELEASE_THRESHOLD"));
  if (llvm::Error e = loadImages(p))
    return withPrefix(std::move(e),
                      "cannot run CUDA model '" + manifest.modelName + "': ");
  if (CUresult r =
          driver.cuStreamCreate(&instance->stream, CU_STREAM_NON_BLOCKING))
    return deviceError(kindOf(r), prefix + callFailed("cuStreamCreate", r));
  ++p.instances;
  instance->counted = true;
  return std::move(instance);
}

llvm::Error tfm::runtime::cuda::uploadWeights(Instance &instance,
                                              const Manifest &manifest,
                                              const BoundWeights &bound) {
  const DriverApi &api = *instance.api;
  size_t numWeights = manifest.weights.size();
  size_t numSlots = numWeights + manifest.prepared.size();
  if (bound.table.size() < numWeights)
    return deviceError(FailureKind::Model,
                       instance.where + ": the bound weights table has " +
                           Twine(bound.table.size()) +
                           " entries, the manifest " + Twine(numWeights) +
                           " weights");
  std::vector<uint64_t> sizes;
  auto bytesOf = [&](const ManifestWeight &w) -> std::optional<uint64_t> {
    uint64_t elements = 1;
    for (int64_t d : w.shape)
      if (d < 0 || __builtin_mul_overflow(elements, uint64_t(d), &elements))
        return std::nullopt;
    // f32, or 2 bytes for a weight stored in 16 bits (as bound).
    uint64_t width = w.storage == Precision::F32 ? 4 : 2;
    uint64_t bytes;
    if (__builtin_mul_overflow(elements, width, &bytes))
      return std::nullopt;
    return bytes;
  };
  for (const std::vector<ManifestWeight> *list :
       {&manifest.weights, &manifest.prepared})
    for (const ManifestWeight &w : *list) {
      std::optional<uint64_t> bytes = bytesOf(w);
      if (!bytes)
        return deviceError(FailureKind::Model, instance.where + ": tensor '" +
                                                   w.name + "' of shape " +
                                                   formatShape(w.shape) +
                                                   " is too large");
      sizes.push_back(*bytes);
    }
  std::vector<uint64_t> offsets;
  uint64_t total;
  if (!layOut(sizes, offsets, total))
    return deviceError(FailureKind::Model,
                       instance.where + ": the weights are too large");
  instance.table.assign(numSlots, nullptr);
  if (total == 0)
    return llvm::Error::success();

  ContextScope scope(api, instance.context);
  if (CUresult r = scope.status())
    return deviceError(kindOf(r), instance.where + ": " +
                                      callFailed("cuCtxPushCurrent", r));
  CUdeviceptr block;
  if (CUresult r = api.cuMemAlloc(&block, total)) {
    std::string memory = freeMemoryText(api);
    return deviceError(kindOf(r),
                       instance.where + ": cannot allocate " + Twine(total) +
                           " bytes of device memory for " + Twine(numWeights) +
                           " weights and " + Twine(manifest.prepared.size()) +
                           " prepared tensors: " + callFailed("cuMemAlloc", r) +
                           memory);
  }
  instance.weights = block;
  for (size_t i = 0; i < numWeights; ++i) {
    if (sizes[i] == 0)
      continue;
    if (CUresult r =
            api.cuMemcpyHtoD(block + offsets[i], bound.table[i], sizes[i]))
      return deviceError(
          kindOf(r),
          instance.where + ": copying weight '" + manifest.weights[i].name +
              "' (" + Twine(sizes[i]) +
              " bytes) to the device: " + callFailed("cuMemcpyHtoD", r));
  }
  for (size_t i = 0; i < numSlots; ++i)
    instance.table[i] = reinterpret_cast<void *>(block + offsets[i]);
  return llvm::Error::success();
}

void *const *tfm::runtime::cuda::weightTable(const Instance &instance) {
  return instance.table.data();
}

llvm::Error tfm::runtime::cuda::run(
    Instance &instance, llvm::ArrayRef<HostBuffer> inputs, void *out,
    size_t outBytes,
    llvm::function_ref<void(llvm::ArrayRef<void *>, void *)> body) {
  std::lock_guard<std::mutex> lock(instance.callMutex);
  const DriverApi &api = *instance.api;
  {
    CallScope scope(instance);
    // The inputs and the output share one stream-ordered allocation.
    std::vector<uint64_t> sizes, offsets;
    for (const HostBuffer &input : inputs)
      sizes.push_back(input.bytes);
    sizes.push_back(outBytes);
    uint64_t total = 0;
    if (!layOut(sizes, offsets, total))
      instance.fail(FailureKind::Device,
                    "the call's inputs and output are too large");
    CUdeviceptr block = 0;
    if (!instance.failed && total)
      instance.check(api.cuMemAllocFromPoolAsync(&block, total, instance.pool,
                                                 instance.stream),
                     "cuMemAllocFromPoolAsync",
                     Twine(total) + " bytes for the call's inputs and output");
    std::vector<void *> deviceInputs(inputs.size(), nullptr);
    void *deviceOut = nullptr;
    if (!instance.failed) {
      for (size_t i = 0; i < inputs.size() && !instance.failed; ++i) {
        deviceInputs[i] = reinterpret_cast<void *>(block + offsets[i]);
        if (inputs[i].bytes)
          instance.check(
              api.cuMemcpyHtoDAsync(block + offsets[i], inputs[i].data,
                                    inputs[i].bytes, instance.stream),
              "cuMemcpyHtoDAsync",
              "input " + Twine(i) + ", " + Twine(inputs[i].bytes) + " bytes");
      }
      deviceOut = reinterpret_cast<void *>(block + offsets.back());
    }
    if (!instance.failed)
      body(deviceInputs, deviceOut);
    if (!instance.failed && outBytes)
      instance.check(api.cuMemcpyDtoHAsync(out, block + offsets.back(),
                                           outBytes, instance.stream),
                     "cuMemcpyDtoHAsync",
                     "the output, " + Twine(outBytes) + " bytes");
    if (block)
      instance.check(api.cuMemFreeAsync(block, instance.stream),
                     "cuMemFreeAsync");
    // One synchronization per call; a kernel's fault surfaces here.
    if (CUresult r = api.cuStreamSynchronize(instance.stream)) {
      std::string detail;
      if (instance.lastKernel)
        detail = "after kernel '" + instance.lastKernel->name +
                 "', the last one launched";
      instance.check(r, "cuStreamSynchronize", detail);
    }
  }
  return takeFailure(instance);
}

//===----------------------------------------------------------------------===//
// Device memory beyond the weights (generation sessions)
//===----------------------------------------------------------------------===//

class tfm::runtime::cuda::DeviceMemory {
public:
  Instance *instance = nullptr;
  CUdeviceptr pointer = 0;
};

void DeviceMemoryDeleter::operator()(DeviceMemory *memory) const {
  if (!memory)
    return;
  if (memory->pointer) {
    Instance &instance = *memory->instance;
    std::lock_guard<std::mutex> lock(instance.callMutex);
    // Errors are ignored, as in the instance's destructor.
    ContextScope scope(*instance.api, instance.context);
    instance.api->cuStreamSynchronize(instance.stream);
    instance.api->cuMemFree(memory->pointer);
  }
  delete memory;
}

namespace {

/// Runs `body`, driver calls on the instance's stream that record their
/// failures in the instance, as one call of the instance, then waits for
/// the stream.
llvm::Error onStream(Instance &instance, llvm::function_ref<void()> body) {
  std::lock_guard<std::mutex> lock(instance.callMutex);
  {
    CallScope scope(instance);
    if (!instance.failed)
      body();
    if (CUresult r = instance.api->cuStreamSynchronize(instance.stream))
      instance.check(r, "cuStreamSynchronize");
  }
  return takeFailure(instance);
}

} // namespace

llvm::Expected<DeviceMemoryPtr>
tfm::runtime::cuda::allocateZeroed(Instance &instance, uint64_t bytes,
                                   const Twine &what) {
  const DriverApi &api = *instance.api;
  DeviceMemoryPtr memory(new (std::nothrow) DeviceMemory());
  if (!memory)
    return deviceError(FailureKind::OutOfMemory,
                       instance.where + ": cannot allocate " + what);
  memory->instance = &instance;
  {
    std::lock_guard<std::mutex> lock(instance.callMutex);
    ContextScope scope(api, instance.context);
    if (CUresult r = scope.status())
      return deviceError(kindOf(r), instance.where + ": " +
                                        callFailed("cuCtxPushCurrent", r));
    if (CUresult r = api.cuMemAlloc(&memory->pointer, bytes)) {
      memory->pointer = 0;
      return deviceError(kindOf(r),
                         instance.where + ": cannot allocate " + Twine(bytes) +
                             " bytes of device memory for " + what + ": " +
                             callFailed("cuMemAlloc", r) + freeMemoryText(api));
    }
  }
  if (llvm::Error e = zero(instance, address(*memory), bytes))
    return std::move(e);
  return std::move(memory);
}

void *tfm::runtime::cuda::address(const DeviceMemory &memory) {
  return reinterpret_cast<void *>(memory.pointer);
}

llvm::Error tfm::runtime::cuda::zero(Instance &instance, void *device,
                                     uint64_t bytes) {
  return onStream(instance, [&] {
    instance.check(
        instance.api->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(device), 0,
                                       bytes / 4, instance.stream),
        "cuMemsetD32Async", Twine(bytes) + " bytes");
  });
}

llvm::Error tfm::runtime::cuda::copy(Instance &instance, void *dst,
                                     const void *src, uint64_t bytes) {
  return onStream(instance, [&] {
    instance.check(
        instance.api->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                    reinterpret_cast<CUdeviceptr>(src), bytes,
                                    instance.stream),
        "cuMemcpyAsync", Twine(bytes) + " bytes, device to device");
  });
}

//===----------------------------------------------------------------------===//
// The mgpu* functions
//===----------------------------------------------------------------------===//

namespace {

/// Registers an image; never touches the driver (global constructors call
/// this at dlopen, on machines with or without one).
ModuleImage *registerImage(const void *data, uint64_t size, bool jit,
                           int optLevel) {
  auto *image = new (std::nothrow) ModuleImage();
  if (!image)
    return nullptr; // mgpuModuleGetFunction reports it
  image->data = data;
  image->size = size;
  image->jit = jit;
  image->optLevel = optLevel;
  Process &p = process();
  std::lock_guard<std::mutex> lock(p.mutex);
  image->number = ++p.registrations;
  p.images.push_back(image);
  return image;
}

std::string dims(intptr_t x, intptr_t y, intptr_t z) {
  return "[" + std::to_string(x) + ", " + std::to_string(y) + ", " +
         std::to_string(z) + "]";
}

} // namespace

#define TFM_MGPU extern "C" __attribute__((visibility("hidden")))

TFM_MGPU void *mgpuModuleLoad(void *data, uint64_t size) {
  return registerImage(data, size, /*jit=*/false, 0);
}

TFM_MGPU void *mgpuModuleLoadJIT(void *data, int optLevel) {
  return registerImage(data, 0, /*jit=*/true, optLevel);
}

TFM_MGPU void mgpuModuleUnload(void *module) {
  auto *image = static_cast<ModuleImage *>(module);
  if (!image)
    return;
  Process &p = process();
  std::lock_guard<std::mutex> lock(p.mutex);
  auto it = std::find(p.images.begin(), p.images.end(), image);
  if (it == p.images.end())
    return; // not ours, or unloaded twice
  p.images.erase(it);
  // Only what was loaded is released, and failures are ignored: at exit the
  // driver may already be shut down (it then answers
  // CUDA_ERROR_DEINITIALIZED; its library stays mapped, as it is never
  // dlclose'd).
  if (CUmodule loaded = image->module.load(std::memory_order_relaxed)) {
    ContextScope scope(*p.api, p.context);
    p.api->cuModuleUnload(loaded);
  }
  delete image;
  if (p.modulesHoldContext && !anyImageLoaded(p)) {
    p.api->cuDevicePrimaryCtxRelease(p.device);
    p.modulesHoldContext = false;
  }
}

TFM_MGPU void *mgpuModuleGetFunction(void *module, const char *name) {
  Instance &instance = current("mgpuModuleGetFunction");
  auto *image = static_cast<ModuleImage *>(module);
  if (!image) {
    instance.fail(FailureKind::OutOfMemory,
                  "no GPU module for kernel '" + Twine(name) +
                      "': registering it at load time ran out of memory");
    return nullptr;
  }
  CUmodule loaded = image->module.load(std::memory_order_acquire);
  if (!loaded) {
    // Registered after this instance was created (a library loaded later
    // sharing this runtime cannot happen, but a constructor running late
    // can): load it now.
    Process &p = process();
    std::lock_guard<std::mutex> lock(p.mutex);
    if (llvm::Error e = loadImages(p)) {
      llvm::handleAllErrors(std::move(e), [&](const DeviceError &d) {
        instance.fail(d.kind(), d.message());
      });
      return nullptr;
    }
    loaded = image->module.load(std::memory_order_acquire);
  }
  std::lock_guard<std::mutex> lock(image->kernelsMutex);
  std::unique_ptr<Kernel> &kernel = image->kernels[name];
  if (!kernel) {
    CUfunction function;
    if (!instance.check(
            instance.api->cuModuleGetFunction(&function, loaded, name),
            "cuModuleGetFunction",
            "kernel '" + Twine(name) + "' of GPU module " +
                Twine(image->number))) {
      image->kernels.erase(name);
      return nullptr;
    }
    kernel.reset(new (std::nothrow) Kernel);
    if (!kernel) {
      image->kernels.erase(name);
      instance.fail(FailureKind::OutOfMemory,
                    "cannot allocate the handle of kernel '" + Twine(name) +
                        "'");
      return nullptr;
    }
    kernel->function = function;
    kernel->name = name;
  }
  return kernel.get();
}

TFM_MGPU void *mgpuStreamCreate(void) {
  return current("mgpuStreamCreate").stream;
}

// Everything of a call runs on the instance's one stream, and run
// synchronizes it once at the end: waiting or destroying here would only
// cost time.
TFM_MGPU void mgpuStreamDestroy(void *) {}
TFM_MGPU void mgpuStreamSynchronize(void *) {}

// Events join async tokens of different streams; with one stream there is
// nothing to join. A non-null handle keeps generated null checks happy.
TFM_MGPU void *mgpuEventCreate(void) {
  static char event;
  return &event;
}
TFM_MGPU void mgpuEventDestroy(void *) {}
TFM_MGPU void mgpuEventSynchronize(void *) {}
TFM_MGPU void mgpuEventRecord(void *, void *) {}
TFM_MGPU void mgpuStreamWaitEvent(void *, void *) {}

TFM_MGPU void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                               intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                               intptr_t blockZ, int32_t sharedMemBytes,
                               void * /*stream*/, void **params, void **extra,
                               size_t /*paramsCount*/) {
  Instance &instance = current("mgpuLaunchKernel");
  if (instance.failed)
    return;
  auto *kernel = static_cast<Kernel *>(function);
  if (!kernel) {
    instance.fail(FailureKind::Device,
                  "mgpuLaunchKernel: no kernel (a null function handle)");
    return;
  }
  auto describe = [&] {
    return "kernel '" + kernel->name + "', grid " + dims(gridX, gridY, gridZ) +
           ", block " + dims(blockX, blockY, blockZ) + ", " +
           std::to_string(sharedMemBytes) + " bytes of dynamic shared memory";
  };
  // A grid with no block (a parallel loop over an empty range) has nothing
  // to run; CUDA itself would reject it.
  if (gridX == 0 || gridY == 0 || gridZ == 0)
    return;
  for (intptr_t d : {gridX, gridY, gridZ, blockX, blockY, blockZ})
    if (d < 1 || uint64_t(d) > UINT_MAX) {
      instance.fail(FailureKind::Device,
                    "cannot launch " + describe() +
                        ": a dimension is outside [1, 2^32-1]");
      return;
    }
  if (sharedMemBytes < 0) {
    instance.fail(FailureKind::Device, "cannot launch " + describe() +
                                           ": negative dynamic shared memory");
    return;
  }
  // Past 48 KiB a kernel must opt in to its dynamic shared memory (the
  // tensor-core GEMM's deeper pipelines, -tfm-gpu-dynamic-shared-memory);
  // the other launches take no lock.
  if (sharedMemBytes > Kernel::kStaticSharedBytes) {
    std::lock_guard<std::mutex> lock(kernel->mutex);
    if (sharedMemBytes > kernel->maxDynamicSharedBytes) {
      if (!instance.check(instance.api->cuFuncSetAttribute(
                              kernel->function,
                              CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                              sharedMemBytes),
                          "cuFuncSetAttribute", describe()))
        return;
      kernel->maxDynamicSharedBytes = sharedMemBytes;
    }
  }
  CUresult r = instance.api->cuLaunchKernel(
      kernel->function, unsigned(gridX), unsigned(gridY), unsigned(gridZ),
      unsigned(blockX), unsigned(blockY), unsigned(blockZ),
      unsigned(sharedMemBytes), instance.stream, params, extra);
  if (r != CUDA_SUCCESS) {
    instance.check(r, "cuLaunchKernel", describe());
    return;
  }
  instance.lastKernel = kernel;
}

// isHostShared is an i8 in MLIR's declaration, passed without an extension
// attribute: only its low byte is defined, so it is taken as a 32-bit
// integer and masked (a C `bool` parameter would let the compiler assume the
// caller extended it).
TFM_MGPU void *mgpuMemAlloc(uint64_t bytes, void * /*stream*/,
                            uint32_t isHostShared) {
  Instance &instance = current("mgpuMemAlloc");
  if (instance.failed)
    return nullptr;
  if (isHostShared & 0xff) {
    instance.fail(FailureKind::Unsupported,
                  "mgpuMemAlloc: host-shared allocations (gpu.alloc "
                  "host_shared, " +
                      Twine(bytes) +
                      " bytes) are not supported by the tfm runtime");
    return nullptr;
  }
  if (bytes == 0)
    return nullptr; // nothing reads through it; mgpuMemFree skips null
  CUdeviceptr pointer = 0;
  if (!instance.check(instance.api->cuMemAllocFromPoolAsync(
                          &pointer, bytes, instance.pool, instance.stream),
                      "cuMemAllocFromPoolAsync", Twine(bytes) + " bytes"))
    return nullptr;
  return reinterpret_cast<void *>(pointer);
}

// Frees run even after a failure, so that nothing the call allocated leaks.
TFM_MGPU void mgpuMemFree(void *pointer, void * /*stream*/) {
  Instance &instance = current("mgpuMemFree");
  if (!pointer)
    return;
  instance.check(instance.api->cuMemFreeAsync(
                     reinterpret_cast<CUdeviceptr>(pointer), instance.stream),
                 "cuMemFreeAsync");
}

TFM_MGPU void mgpuMemcpy(void *dst, void *src, size_t bytes,
                         void * /*stream*/) {
  Instance &instance = current("mgpuMemcpy");
  if (instance.failed || bytes == 0)
    return;
  instance.check(instance.api->cuMemcpyAsync(reinterpret_cast<CUdeviceptr>(dst),
                                             reinterpret_cast<CUdeviceptr>(src),
                                             bytes, instance.stream),
                 "cuMemcpyAsync", Twine(bytes) + " bytes");
}

TFM_MGPU void mgpuMemset32(void *dst, unsigned value, size_t count,
                           void * /*stream*/) {
  Instance &instance = current("mgpuMemset32");
  if (instance.failed || count == 0)
    return;
  instance.check(
      instance.api->cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(dst), value,
                                     count, instance.stream),
      "cuMemsetD32Async", Twine(count) + " words");
}

// The value is an i16 without an extension attribute (see mgpuMemAlloc).
TFM_MGPU void mgpuMemset16(void *dst, uint32_t value, size_t count,
                           void * /*stream*/) {
  Instance &instance = current("mgpuMemset16");
  if (instance.failed || count == 0)
    return;
  instance.check(instance.api->cuMemsetD16Async(
                     reinterpret_cast<CUdeviceptr>(dst),
                     static_cast<unsigned short>(value & 0xffff), count,
                     instance.stream),
                 "cuMemsetD16Async", Twine(count) + " half-words");
}
