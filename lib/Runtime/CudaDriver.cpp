//===- CudaDriver.cpp - the CUDA driver API, opened at run time -----------===//
//
// See CudaDriver.h. The driver is opened by the first tfm_model_create of a
// CUDA model and stays open for the life of the process (never dlclose'd:
// kernel modules, streams and device memory of live instances belong to it,
// and the destructors that unload modules at exit may still call it).
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <mutex>

using namespace tfm::runtime::cuda;

char DeviceError::ID = 0;

void DeviceError::log(llvm::raw_ostream &os) const { os << text; }

FailureKind tfm::runtime::cuda::kindOf(CUresult result, FailureKind otherwise) {
  return result == CUDA_ERROR_OUT_OF_MEMORY ? FailureKind::OutOfMemory
                                            : otherwise;
}

namespace {

using GetProcAddressV2 = CUresult (*)(const char *symbol, void **function,
                                      int cudaVersion, uint64_t flags,
                                      int *symbolStatus);
using GetProcAddressV1 = CUresult (*)(const char *symbol, void **function,
                                      int cudaVersion, uint64_t flags);

/// The process's driver state. Leaked on purpose: the destructors of model
/// libraries (mgpuModuleUnload) may use it at exit after static objects of
/// this library have been destroyed.
struct DriverState {
  std::mutex mutex;
  /// The dlopen handle, kept once the library was found.
  void *handle = nullptr;
  /// Set once cuInit succeeded and every entry point was resolved.
  bool ready = false;
  DriverApi api;
};

DriverState &state() {
  static DriverState *s = new DriverState();
  return *s;
}

/// The codes met before cuGetErrorName can be trusted, and the common ones.
const char *builtinErrorName(CUresult result) {
  switch (result) {
  case 0:
    return "CUDA_SUCCESS";
  case 1:
    return "CUDA_ERROR_INVALID_VALUE";
  case 2:
    return "CUDA_ERROR_OUT_OF_MEMORY";
  case 3:
    return "CUDA_ERROR_NOT_INITIALIZED";
  case 4:
    return "CUDA_ERROR_DEINITIALIZED";
  case 34:
    return "CUDA_ERROR_STUB_LIBRARY";
  case 35:
    return "CUDA_ERROR_INSUFFICIENT_DRIVER";
  case 36:
    return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
  case 46:
    return "CUDA_ERROR_DEVICE_UNAVAILABLE";
  case 100:
    return "CUDA_ERROR_NO_DEVICE";
  case 101:
    return "CUDA_ERROR_INVALID_DEVICE";
  case 102:
    return "CUDA_ERROR_DEVICE_NOT_LICENSED";
  case 500:
    return "CUDA_ERROR_NOT_FOUND";
  case 801:
    return "CUDA_ERROR_NOT_SUPPORTED";
  case 802:
    return "CUDA_ERROR_SYSTEM_NOT_READY";
  case 803:
    return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
  case 804:
    return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
  case 999:
    return "CUDA_ERROR_UNKNOWN";
  default:
    return nullptr;
  }
}

/// What to tell the user about a failing cuInit, after its error name.
std::string cuInitHint(CUresult result, const std::string &path) {
  switch (result) {
  case CUDA_ERROR_STUB_LIBRARY:
    return " (libcuda.so.1 is " + path +
           ", the CUDA toolkit's stub library, not an NVIDIA driver: install "
           "the driver or take the stubs folder off LD_LIBRARY_PATH)";
  case CUDA_ERROR_NO_DEVICE:
    return " (no CUDA device)";
  case 35:  // CUDA_ERROR_INSUFFICIENT_DRIVER
  case 803: // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
    return " (the NVIDIA kernel driver and " + path + " do not match)";
  default:
    return " (libcuda.so.1 is " + path + ")";
  }
}

/// "CUDA 12.4" for a cuDriverGetVersion of 12040 ("CUDA version unknown"
/// before it is known).
std::string cudaVersionText(int version) {
  if (version <= 0)
    return "CUDA version unknown";
  return "CUDA " + std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

llvm::Error unsupported(const llvm::Twine &message) {
  return deviceError(FailureKind::Unsupported, message);
}

/// Opens libcuda.so.1 and resolves everything; called under the state lock
/// until it succeeds once.
llvm::Error open(DriverState &s) {
  if (!s.handle) {
    s.handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!s.handle) {
      const char *why = dlerror();
      return unsupported("no NVIDIA driver: libcuda.so.1 not found (" +
                         llvm::Twine(why ? why : "dlopen failed") + ")");
    }
  }
  DriverApi &api = s.api;
  // cuInit and cuGetProcAddress are the only symbols looked up by name;
  // both have kept their ABI since they were introduced.
  api.cuInit =
      reinterpret_cast<CUresult (*)(unsigned)>(dlsym(s.handle, "cuInit"));
  void *gpa2 = dlsym(s.handle, "cuGetProcAddress_v2");
  void *gpa1 = gpa2 ? nullptr : dlsym(s.handle, "cuGetProcAddress");
  Dl_info info;
  api.path = api.cuInit &&
                     dladdr(reinterpret_cast<void *>(api.cuInit), &info) &&
                     info.dli_fname
                 ? info.dli_fname
                 : "libcuda.so.1";
  if (!api.cuInit)
    return unsupported("no NVIDIA driver: " + api.path +
                       " (found as libcuda.so.1) has no cuInit");
  if (!gpa2 && !gpa1)
    return unsupported("NVIDIA driver too old: " + api.path +
                       " has no cuGetProcAddress (CUDA 12.0 or newer needed)");

  if (CUresult r = api.cuInit(0))
    return unsupported("cuInit failed: " + errorName(r) +
                       cuInitHint(r, api.path));

  auto resolve = [&](const char *name, void **function) -> llvm::Error {
    *function = nullptr;
    int status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult r = gpa2 ? reinterpret_cast<GetProcAddressV2>(gpa2)(
                            name, function, kDriverApiVersion,
                            CU_GET_PROC_ADDRESS_DEFAULT, &status)
                      : reinterpret_cast<GetProcAddressV1>(gpa1)(
                            name, function, kDriverApiVersion,
                            CU_GET_PROC_ADDRESS_DEFAULT);
    if (r == CUDA_SUCCESS && status == CU_GET_PROC_ADDRESS_SUCCESS && *function)
      return llvm::Error::success();
    std::string why = r != CUDA_SUCCESS ? errorName(r)
                      : status == 1     ? "symbol not found"
                      : status == 2     ? "the driver's CUDA version is too old"
                                        : "no function returned";
    return unsupported("NVIDIA driver " + api.path + " (" +
                       cudaVersionText(api.version) + ") does not provide " +
                       name + " for CUDA 12.0: " + why);
  };
  // The version first: it decides whether the rest can exist.
  if (llvm::Error e =
          resolve("cuDriverGetVersion",
                  reinterpret_cast<void **>(&api.cuDriverGetVersion)))
    return e;
  if (CUresult r = api.cuDriverGetVersion(&api.version))
    return unsupported("cuDriverGetVersion failed: " + errorName(r));
  if (api.version < kDriverApiVersion)
    return unsupported("NVIDIA driver too old: " + api.path + " supports " +
                       cudaVersionText(api.version) +
                       ", CUDA 12.0 or newer is needed");
#define TFM_CUDA_RESOLVE(name, params)                                         \
  if (llvm::Error e = resolve(#name, reinterpret_cast<void **>(&api.name)))    \
    return e;
  TFM_CUDA_DRIVER_FUNCTIONS(TFM_CUDA_RESOLVE)
#undef TFM_CUDA_RESOLVE
  return llvm::Error::success();
}

} // namespace

llvm::Expected<const DriverApi *> tfm::runtime::cuda::openDriver() {
  DriverState &s = state();
  std::lock_guard<std::mutex> lock(s.mutex);
  if (s.ready)
    return &s.api;
  if (llvm::Error e = open(s)) {
    // Keep the handle (dlopen succeeded) but no half-resolved table: the
    // next attempt starts over from cuInit.
    std::string path = s.api.path;
    s.api = DriverApi();
    s.api.path = path;
    return std::move(e);
  }
  s.ready = true;
  return &s.api;
}

std::string tfm::runtime::cuda::errorName(CUresult result) {
  // Reading api.cuGetErrorName without the lock is safe: it is written once,
  // before `ready` is published under the lock, and callers only reach here
  // after openDriver returned (or failed, when it is still null).
  DriverState &s = state();
  const char *name = nullptr;
  if (s.api.cuGetErrorName && s.api.cuGetErrorName(result, &name) != 0)
    name = nullptr;
  if (!name)
    name = builtinErrorName(result);
  if (name)
    return name;
  return "CUDA error " + std::to_string(result);
}
