/*===- fake_cuda_model.c - a hand-written stand-in for CUDA generated code ===*\
|*                                                                            *|
|* What the compiler emits for a model whose manifest says "device": "cuda", *|
|* written by hand: the manifest, global constructors/destructors that       *|
|* register and unregister kernel images (mgpuModuleLoad, mgpuModuleLoadJIT, *|
|* mgpuModuleUnload, as MLIR's gpu-to-llvm emits them), and a forward pass   *|
|* and a tfm_prepare whose host code drives real kernels (PTX in             *|
|* fake_cuda_kernels.h) through the mgpu* runtime calls, with the signatures *|
|* MLIR 22 declares. On a machine without a GPU only the constructors and    *|
|* destructors run.                                                          *|
|*                                                                            *|
|*   default        decoder "fake-cuda-bigram", V = 6: tfm_prepare writes    *|
|*                  embed.tokens transposed into the prepared slot           *|
|*                  (kernel `transpose` of the JIT-registered module); the   *|
|*                  forward pass sets the output to -1000 (mgpuMemset32),    *|
|*                  copies the bias device-to-device (mgpuMemcpy) into a     *|
|*                  stream-ordered buffer (mgpuMemAlloc), fills a marker     *|
|*                  with mgpuMemset16, and launches `bigram` of the          *|
|*                  binary-registered module:                                *|
|*                    out[b,t,:] = E[id] + bias   (t < len), else -1000      *|
|*                  Batch sizes that make the generated code fail on         *|
|*                  purpose: 3 looks up a kernel that does not exist, 4      *|
|*                  launches 4096 threads per block, 5 asks for a            *|
|*                  host-shared allocation.                                  *|
|*   FAKE_CUDA_BAD_DEVICE  the manifest says "device": "tpu" (never runs)    *|
|*   FAKE_CUDA_BAD_PTX     also registers PTX that does not compile          *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "fake_cuda_kernels.h"
#include "tfm/Runtime/MemRefDescriptor.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define V 6
#define EXPECT(cond)                                                           \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "fake CUDA model: check failed: %s\n", #cond);           \
      abort();                                                                 \
    }                                                                          \
  } while (0)

/* The runtime calls, as `mlir-translate` declares them after gpu-to-llvm:
 * ptr mgpuModuleLoad(ptr, i64), ptr mgpuModuleLoadJIT(ptr, i32),
 * ptr mgpuMemAlloc(i64, ptr, i8), void mgpuMemset16(ptr, i16, i64, ptr)... */
void *mgpuModuleLoad(void *data, uint64_t size);
void *mgpuModuleLoadJIT(void *ptx, int optLevel);
void mgpuModuleUnload(void *module);
void *mgpuModuleGetFunction(void *module, const char *name);
void *mgpuStreamCreate(void);
void mgpuStreamSynchronize(void *stream);
void mgpuStreamDestroy(void *stream);
void mgpuLaunchKernel(void *function, intptr_t gridX, intptr_t gridY,
                      intptr_t gridZ, intptr_t blockX, intptr_t blockY,
                      intptr_t blockZ, int32_t smem, void *stream,
                      void **params, void **extra, size_t paramsCount);
void *mgpuMemAlloc(uint64_t bytes, void *stream, bool isHostShared);
void mgpuMemFree(void *pointer, void *stream);
void mgpuMemcpy(void *dst, void *src, size_t bytes, void *stream);
void mgpuMemset32(void *dst, unsigned value, size_t count, void *stream);
void mgpuMemset16(void *dst, unsigned short value, size_t count,
                  void *stream);
void *mgpuEventCreate(void);
void mgpuEventRecord(void *event, void *stream);
void mgpuStreamWaitEvent(void *stream, void *event);
void mgpuEventSynchronize(void *event);
void mgpuEventDestroy(void *event);

#if defined(FAKE_CUDA_BAD_DEVICE)

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-tpu\", "
    "\"architecture\": \"decoder\", \"device\": \"tpu\", \"vocab_size\": 6, "
    "\"max_seq_len\": 5, \"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"embed.tokens\", \"shape\": [6, 6]}]}";

void _mlir_ciface_forward(void) { abort(); }

#else

const char tfm_model_manifest[] =
    "{\"format\": \"tfm-manifest/1\", \"model_name\": \"fake-cuda-bigram\", "
    "\"architecture\": \"decoder\", \"device\": \"cuda\", \"vocab_size\": 6, "
    "\"max_seq_len\": 5, \"output\": \"logits\", \"output_dims\": [6], "
    "\"inputs\": [\"ids\", \"lengths\", \"positions\"], "
    "\"weights\": [{\"name\": \"embed.tokens\", \"shape\": [6, 6]}, "
    "{\"name\": \"lm_head.bias\", \"shape\": [6]}], "
    "\"prepared\": [{\"name\": \"embed.tokens:transposed\", "
    "\"shape\": [6, 6]}]}";

/* The module handles, as the generated globals hold them. */
static void *binaryModule, *jitModule;
#if defined(FAKE_CUDA_BAD_PTX)
static void *brokenModule;
static const char kBrokenPtx[] =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry broken() { this is not PTX; }\n";
#endif

/* Priority 123, like the constructors gpu-to-llvm emits: these run at
 * dlopen, before the runtime's own static objects are constructed. */
__attribute__((constructor(123))) static void loadModules(void) {
  binaryModule = mgpuModuleLoad((void *)kFakeCudaPtx, sizeof(kFakeCudaPtx));
  jitModule = mgpuModuleLoadJIT((void *)kFakeCudaPtx, 2);
#if defined(FAKE_CUDA_BAD_PTX)
  brokenModule = mgpuModuleLoadJIT((void *)kBrokenPtx, 3);
#endif
}

__attribute__((destructor(123))) static void unloadModules(void) {
  mgpuModuleUnload(binaryModule);
  mgpuModuleUnload(jitModule);
#if defined(FAKE_CUDA_BAD_PTX)
  mgpuModuleUnload(brokenModule);
#endif
}

/* tfm_prepare runs once per instance, before any forward call. */
static int prepared;

void _mlir_ciface_tfm_prepare(void *const *weights) {
  void *stream = mgpuStreamCreate();
  void *transpose = mgpuModuleGetFunction(jitModule, "transpose");
  void *e = weights[0], *et = weights[2];
  int v = V;
  void *params[] = {&e, &et, &v};
  mgpuLaunchKernel(transpose, 1, 1, 1, V * V, 1, 1, 0, stream, params, NULL,
                   3);
  /* A join of two async tokens: an event recorded on one stream and
   * waited for on another (both are the instance's stream). */
  void *event = mgpuEventCreate();
  EXPECT(event != NULL);
  mgpuEventRecord(event, stream);
  void *other = mgpuStreamCreate();
  mgpuStreamWaitEvent(other, event);
  mgpuEventDestroy(event);
  mgpuStreamSynchronize(other);
  mgpuStreamDestroy(other);
  mgpuStreamSynchronize(stream);
  mgpuStreamDestroy(stream);
  __atomic_store_n(&prepared, 1, __ATOMIC_RELAXED);
}

void _mlir_ciface_forward(void *const *weights, tfm_memref_i32_2d *ids,
                          tfm_memref_i32_1d *lens, tfm_memref_i32_1d *positions,
                          tfm_memref_f32_3d *out) {
  EXPECT(__atomic_load_n(&prepared, __ATOMIC_RELAXED));
  /* The descriptors hold device pointers: only their shapes are checked. */
  int64_t B = ids->sizes[0], T = ids->sizes[1];
  EXPECT(ids->allocated == ids->aligned && ids->offset == 0);
  EXPECT(ids->strides[0] == T && ids->strides[1] == 1);
  EXPECT(lens->sizes[0] == B && lens->strides[0] == 1);
  EXPECT(positions->sizes[0] == B && positions->strides[0] == 1);
  EXPECT(out->sizes[0] == B && out->sizes[1] == T && out->sizes[2] == V);
  EXPECT(out->strides[0] == T * V && out->strides[1] == V &&
         out->strides[2] == 1);
  int n = (int)(B * T * V);

  void *stream = mgpuStreamCreate();
  mgpuMemset32(out->aligned, 0xC47A0000u /* -1000.0f */, (size_t)n, stream);
  unsigned short *marker =
      mgpuMemAlloc(V * sizeof(unsigned short), stream, B == 5);
  mgpuMemset16(marker, 0x3C00, V, stream);
  float *bias = mgpuMemAlloc(V * sizeof(float), stream, false);
  mgpuMemcpy(bias, weights[1], V * sizeof(float), stream);

  void *bigram =
      mgpuModuleGetFunction(binaryModule, B == 3 ? "missing_kernel" : "bigram");
  void *idsData = ids->aligned, *lensData = lens->aligned, *et = weights[2];
  void *outData = out->aligned;
  int t = (int)T, v = V;
  void *params[] = {&idsData, &lensData, &et,   &bias, &marker,
                    &outData, &t,        &v,    &n};
  intptr_t block = B == 4 ? 4096 : 32;
  mgpuLaunchKernel(bigram, (n + 31) / 32, 1, 1, block, 1, 1, 0, stream, params,
                   NULL, 9);
  /* After a failure the runtime skips the rest of the call's launches. */
  mgpuLaunchKernel(bigram, (n + 31) / 32, 1, 1, block, 1, 1, 0, stream, params,
                   NULL, 9);
  mgpuStreamSynchronize(stream);
  mgpuMemFree(bias, stream);
  mgpuMemFree(marker, stream);
  mgpuStreamDestroy(stream);
}

#endif
