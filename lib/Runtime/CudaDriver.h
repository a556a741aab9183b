//===- CudaDriver.h - the CUDA driver API, opened at run time ---*- C++ -*-===//
//
// Private to lib/Runtime. A model library has no link-time CUDA dependency:
// it loads on any machine, and only tfm_model_create of a CUDA model opens
// the NVIDIA driver:
//
//   dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)
//   dlsym: cuInit, cuGetProcAddress_v2 (5 arguments, CUDA 12.0+ drivers) or
//          else cuGetProcAddress (4 arguments, CUDA 11.3+)
//   cuInit(0)
//   cuGetProcAddress(name, CUDA version 12000): every other entry point
//
// Resolving through cuGetProcAddress for CUDA 12.0 gives the ABI that
// cuda.h 12.0 describes under the plain names (cuMemAlloc is cuMemAlloc_v2,
// cuCtxPushCurrent is cuCtxPushCurrent_v2, ...). The few types and
// constants used are declared here with the values of cuda.h, which is not
// included: the runtime builds where the CUDA toolkit is absent.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_RUNTIME_CUDADRIVER_H
#define TFM_LIB_RUNTIME_CUDADRIVER_H

#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstddef>
#include <cstdint>
#include <string>

namespace tfm {
namespace runtime {
namespace cuda {

//===----------------------------------------------------------------------===//
// Driver API types and constants (values as in cuda.h)
//===----------------------------------------------------------------------===//

using CUresult = int;
using CUdevice = int;
/// CUdeviceptr of the _v2 ABI: 64 bits on every 64-bit platform.
using CUdeviceptr = uint64_t;
using CUcontext = struct CUctx_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;
using CUstream = struct CUstream_st *;
using CUmemoryPool = struct CUmemPoolHandle_st *;

constexpr CUresult CUDA_SUCCESS = 0;
constexpr CUresult CUDA_ERROR_OUT_OF_MEMORY = 2;
constexpr CUresult CUDA_ERROR_STUB_LIBRARY = 34;
constexpr CUresult CUDA_ERROR_NO_DEVICE = 100;
constexpr CUresult CUDA_ERROR_INVALID_IMAGE = 200;
constexpr CUresult CUDA_ERROR_NO_BINARY_FOR_GPU = 209;
constexpr CUresult CUDA_ERROR_INVALID_PTX = 218;
constexpr CUresult CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222;

/// CUdevice_attribute
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75;
constexpr int CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76;
constexpr int CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = 115;
/// CUfunction_attribute
constexpr int CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8;
/// CUstream_flags
constexpr unsigned CU_STREAM_NON_BLOCKING = 1;
/// CUmemPool_attribute (value type cuuint64_t)
constexpr int CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = 4;
/// CUjit_option
constexpr int CU_JIT_ERROR_LOG_BUFFER = 5;
constexpr int CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6;
constexpr int CU_JIT_OPTIMIZATION_LEVEL = 7;
/// cuGetProcAddress: flags and the status of the _v2 variant.
constexpr uint64_t CU_GET_PROC_ADDRESS_DEFAULT = 0;
constexpr int CU_GET_PROC_ADDRESS_SUCCESS = 0;

/// The CUDA version whose ABI every entry point is resolved for.
constexpr int kDriverApiVersion = 12000;

/// The driver functions the runtime calls, name, result, parameters. Each
/// becomes a member of DriverApi resolved with cuGetProcAddress.
#define TFM_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuDriverGetVersion, (int *driverVersion))                                  \
  X(cuGetErrorName, (CUresult error, const char **name))                       \
  X(cuDeviceGetCount, (int *count))                                            \
  X(cuDeviceGet, (CUdevice * device, int ordinal))                             \
  X(cuDeviceGetName, (char *name, int length, CUdevice device))                \
  X(cuDeviceGetAttribute, (int *value, int attribute, CUdevice device))        \
  X(cuDevicePrimaryCtxRetain, (CUcontext * context, CUdevice device))          \
  X(cuDevicePrimaryCtxRelease, (CUdevice device))                              \
  X(cuCtxPushCurrent, (CUcontext context))                                     \
  X(cuCtxPopCurrent, (CUcontext * context))                                    \
  X(cuDeviceGetDefaultMemPool, (CUmemoryPool * pool, CUdevice device))         \
  X(cuMemPoolSetAttribute, (CUmemoryPool pool, int attribute, void *value))    \
  X(cuMemPoolTrimTo, (CUmemoryPool pool, size_t minBytesToKeep))               \
  X(cuMemGetInfo, (size_t * freeBytes, size_t * totalBytes))                   \
  X(cuModuleLoadDataEx, (CUmodule * module, const void *image,                 \
                         unsigned numOptions, int *options, void **values))    \
  X(cuModuleUnload, (CUmodule module))                                         \
  X(cuModuleGetFunction,                                                       \
    (CUfunction * function, CUmodule module, const char *name))                \
  X(cuFuncSetAttribute, (CUfunction function, int attribute, int value))       \
  X(cuStreamCreate, (CUstream * stream, unsigned flags))                       \
  X(cuStreamDestroy, (CUstream stream))                                        \
  X(cuStreamSynchronize, (CUstream stream))                                    \
  X(cuLaunchKernel,                                                            \
    (CUfunction function, unsigned gridX, unsigned gridY, unsigned gridZ,      \
     unsigned blockX, unsigned blockY, unsigned blockZ,                        \
     unsigned sharedMemBytes, CUstream stream, void **params, void **extra))   \
  X(cuMemAlloc, (CUdeviceptr * pointer, size_t bytes))                         \
  X(cuMemFree, (CUdeviceptr pointer))                                          \
  X(cuMemAllocFromPoolAsync,                                                   \
    (CUdeviceptr * pointer, size_t bytes, CUmemoryPool pool, CUstream stream)) \
  X(cuMemFreeAsync, (CUdeviceptr pointer, CUstream stream))                    \
  X(cuMemcpyHtoD, (CUdeviceptr dst, const void *src, size_t bytes))            \
  X(cuMemcpyHtoDAsync,                                                         \
    (CUdeviceptr dst, const void *src, size_t bytes, CUstream stream))         \
  X(cuMemcpyDtoHAsync,                                                         \
    (void *dst, CUdeviceptr src, size_t bytes, CUstream stream))               \
  X(cuMemcpyAsync,                                                             \
    (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream stream))         \
  X(cuMemsetD32Async,                                                          \
    (CUdeviceptr dst, unsigned value, size_t count, CUstream stream))          \
  X(cuMemsetD16Async,                                                          \
    (CUdeviceptr dst, unsigned short value, size_t count, CUstream stream))

/// The opened driver. Every pointer is non-null once openDriver succeeded.
struct DriverApi {
  /// The file the dynamic loader found for libcuda.so.1.
  std::string path;
  /// cuDriverGetVersion: 12040 for CUDA 12.4.
  int version = 0;
  CUresult (*cuInit)(unsigned flags) = nullptr;
#define TFM_CUDA_MEMBER(name, params) CUresult(*name) params = nullptr;
  TFM_CUDA_DRIVER_FUNCTIONS(TFM_CUDA_MEMBER)
#undef TFM_CUDA_MEMBER
};

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

/// Which tfm_status a device failure maps to.
enum class FailureKind {
  /// TFM_ERROR_UNSUPPORTED: no driver, no device, too old a driver, no
  /// code for this GPU.
  Unsupported,
  /// TFM_ERROR_INVALID_ARGUMENT: a bad TFM_CUDA_DEVICE.
  InvalidArgument,
  /// TFM_ERROR_MODEL: the library's kernels are not valid PTX / images.
  Model,
  /// TFM_ERROR_OUT_OF_MEMORY: device memory ran out.
  OutOfMemory,
  /// TFM_ERROR_DEVICE: any other failing driver call.
  Device,
};

/// An llvm::Error carrying a FailureKind; the message is complete (no
/// prefix is added by the error itself).
class DeviceError : public llvm::ErrorInfo<DeviceError> {
public:
  static char ID;
  DeviceError(FailureKind kind, std::string message)
      : failureKind(kind), text(std::move(message)) {}
  FailureKind kind() const { return failureKind; }
  std::string message() const override { return text; }
  void log(llvm::raw_ostream &os) const override;
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }

private:
  FailureKind failureKind;
  std::string text;
};

inline llvm::Error deviceError(FailureKind kind, const llvm::Twine &message) {
  return llvm::make_error<DeviceError>(kind, message.str());
}

/// The kind of a failing driver call: OutOfMemory for
/// CUDA_ERROR_OUT_OF_MEMORY, else `otherwise`.
FailureKind kindOf(CUresult result,
                   FailureKind otherwise = FailureKind::Device);

//===----------------------------------------------------------------------===//
// The process's driver
//===----------------------------------------------------------------------===//

/// Opens, initializes and resolves the driver (once per process; a failed
/// attempt is retried by the next call). Errors are DeviceErrors of kind
/// Unsupported whose message says what is missing: "no NVIDIA driver:
/// libcuda.so.1 not found (...)", "cuInit failed: CUDA_ERROR_...", a driver
/// older than CUDA 12.0, an entry point the driver does not provide.
/// Thread-safe.
llvm::Expected<const DriverApi *> openDriver();

/// "CUDA_ERROR_OUT_OF_MEMORY": cuGetErrorName when the driver is open and
/// knows the code, else a built-in table of the codes the runtime can meet
/// before that (the toolkit's stub library answers every call, the name
/// query included, with CUDA_ERROR_STUB_LIBRARY), else "CUDA error <n>".
std::string errorName(CUresult result);

} // namespace cuda
} // namespace runtime
} // namespace tfm

#endif // TFM_LIB_RUNTIME_CUDADRIVER_H
