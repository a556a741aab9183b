//===- Cuda.h - CUDA model instances for the C ABI --------------*- C++ -*-===//
//
// Private to lib/Runtime: what CApi.cpp needs to run a library whose
// manifest says "device": "cuda". Cuda.cpp also defines the mgpu* functions
// that the generated host code calls (MLIR's gpu-to-llvm runtime-call ABI);
// they reach the instance of the running call through a thread-local
// pointer that Instance::run sets.
//
// Life of a CUDA model:
//
//   dlopen        generated global constructors call mgpuModuleLoad /
//                 mgpuModuleLoadJIT: the images are only registered, the
//                 driver is not touched (the library loads on any machine).
//   create        createInstance: open the driver, pick the device, retain
//                 its primary context, load every registered image (once per
//                 process), create the instance's stream; uploadWeights
//                 copies the bound weights to device memory.
//   forward       run: inputs to the device, the generated code on the
//                 instance's stream, the output back, one synchronization.
//   destroy       the instance's memory, stream and context reference go.
//   dlclose/exit  generated destructors call mgpuModuleUnload.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_RUNTIME_CUDA_H
#define TFM_LIB_RUNTIME_CUDA_H

#include "CudaDriver.h"

#include "tfm/Runtime/Loader.h"
#include "tfm/Support/Manifest.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <memory>

namespace tfm {
namespace runtime {
namespace cuda {

/// One model instance on the device (defined in Cuda.cpp).
class Instance;
struct InstanceDeleter {
  void operator()(Instance *instance) const;
};
using InstancePtr = std::unique_ptr<Instance, InstanceDeleter>;

/// Opens the driver and the device (TFM_CUDA_DEVICE, default 0; fixed by
/// the first successful call in the process), retains its primary context,
/// loads the library's registered kernel images and creates the instance's
/// stream. Errors are DeviceErrors; their messages name the model.
llvm::Expected<InstancePtr> createInstance(const Manifest &manifest);

/// Copies every weight of `weights` (host f32 tensors in manifest order) to
/// one device allocation and reserves the prepared tensors' slots after
/// them; afterwards weightTable holds their device addresses. The host
/// tensors can be released when this returns.
llvm::Error uploadWeights(Instance &instance, const Manifest &manifest,
                          const BoundWeights &weights);

/// The table of device pointers the generated code takes as its first
/// argument (weights, then prepared slots, in manifest order).
void *const *weightTable(const Instance &instance);

/// A host buffer copied to the device for one call.
struct HostBuffer {
  const void *data;
  size_t bytes;
};

/// One call into generated code, serialized with every other call on this
/// instance. Copies `inputs` to device buffers, calls `body` with their
/// device addresses and a device buffer of `outBytes` while this instance is
/// the current one of the calling thread (its context pushed), then copies
/// that buffer to `out` and synchronizes the stream. The first CUDA failure
/// of the call (in `body`'s mgpu* calls or here) skips the rest of the
/// call's device work and is returned as a DeviceError naming the driver
/// function, the CUDA error and, for a launch, the kernel; `out` is not
/// written then.
llvm::Error run(Instance &instance, llvm::ArrayRef<HostBuffer> inputs,
                void *out, size_t outBytes,
                llvm::function_ref<void(llvm::ArrayRef<void *> deviceInputs,
                                        void *deviceOut)>
                    body);

/// Device memory an instance holds beyond its weights: a generation
/// session's KV cache. Freed (in the instance's context) with the pointer;
/// the instance must outlive it.
class DeviceMemory;
struct DeviceMemoryDeleter {
  void operator()(DeviceMemory *memory) const;
};
using DeviceMemoryPtr = std::unique_ptr<DeviceMemory, DeviceMemoryDeleter>;

/// `bytes` (a multiple of 4) of zeroed device memory; `what` names them in
/// errors ("the KV cache").
llvm::Expected<DeviceMemoryPtr>
allocateZeroed(Instance &instance, uint64_t bytes, const llvm::Twine &what);

/// The device address of `memory`, as the generated code takes it.
void *address(const DeviceMemory &memory);

/// Zeroes `bytes` (a multiple of 4) of device memory at `device`, ordered
/// after the instance's earlier calls; returns when done.
llvm::Error zero(Instance &instance, void *device, uint64_t bytes);

/// Copies `bytes` of device memory from `src` to `dst` (not overlapping);
/// returns when done.
llvm::Error copy(Instance &instance, void *dst, const void *src,
                 uint64_t bytes);

} // namespace cuda
} // namespace runtime
} // namespace tfm

#endif // TFM_LIB_RUNTIME_CUDA_H
