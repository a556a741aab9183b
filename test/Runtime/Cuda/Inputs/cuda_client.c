/*===- cuda_client.c - drives a CUDA model library through dlopen ---------===*\
|*                                                                            *|
|* cuda_client LIBRARY WEIGHTS [create-only]                                 *|
|*                                                                            *|
|* Loads the library with dlopen, as a host application would, and prints    *|
|* "<case>: <status>: <message>" lines for lit:                              *|
|*                                                                            *|
|*  - loading the library does not load the NVIDIA driver (the generated     *|
|*    constructors only register kernel images), and the manifest is         *|
|*    readable without one;                                                  *|
|*  - what tfm_model_create says on this machine, and whether it loaded      *|
|*    libcuda.so.1;                                                          *|
|*  - with a GPU (create succeeded, unless `create-only`): forward results   *|
|*    against the host's arithmetic for WEIGHTS as the lit test writes them  *|
|*    (embed.tokens = 0, 1, ..., 35; lm_head.bias = kBias), the errors the   *|
|*    stand-in provokes on purpose, recovery after them, concurrent forward  *|
|*    calls on one instance and on two, TFM_CUDA_DEVICE after the device is  *|
|*    chosen.                                                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#define _GNU_SOURCE
#include "tfm/Runtime/tfm_runtime.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define V 6
static const float kBias[V] = {0.5f, 1, 2, 3, 4, 5};

static struct {
  tfm_status (*create)(const char *, tfm_model **);
  tfm_status (*destroy)(tfm_model *);
  tfm_status (*forward)(const tfm_model *, const int32_t *, int64_t, int64_t,
                        const int32_t *, float *, size_t);
  tfm_status (*setThreads)(tfm_model *, int);
  tfm_status (*getThreads)(const tfm_model *, int *);
  tfm_status (*libraryInfo)(const char **);
  const char *(*lastError)(void);
  const char *(*statusString)(tfm_status);
} api;

static const char *weightsPath;

static void *symbol(void *library, const char *name) {
  void *s = dlsym(library, name);
  if (!s) {
    fprintf(stderr, "cuda_client: %s: %s\n", name, dlerror());
    exit(2);
  }
  return s;
}

static void report(const char *name, tfm_status status) {
  printf("%s: %s: %s\n", name, api.statusString(status),
         status == TFM_OK ? "" : api.lastError());
}

static int libcudaLoaded(void) {
  void *handle = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  if (handle)
    dlclose(handle);
  return handle != NULL;
}

/* The largest |out - expected| of a forward call (INFINITY when the call
 * failed). */
static float forwardError(const tfm_model *m, const int32_t *ids, int64_t b,
                          int64_t t, const int32_t *lengths,
                          tfm_status *status) {
  size_t n = (size_t)(b * t * V);
  float *out = malloc(n * sizeof(float));
  *status = api.forward(m, ids, b, t, lengths, out, n);
  float worst = 0;
  if (*status != TFM_OK)
    worst = INFINITY;
  for (int64_t i = 0; i < b && *status == TFM_OK; ++i)
    for (int64_t j = 0; j < t; ++j)
      for (int v = 0; v < V; ++v) {
        int32_t id = ids[i * t + j];
        float expected = j < (lengths ? lengths[i] : t)
                             ? (float)(id * V + v) + kBias[v]
                             : -1000.0f;
        float error = fabsf(out[(i * t + j) * V + v] - expected);
        worst = error > worst ? error : worst;
      }
  free(out);
  return worst;
}

static void checkForward(const char *name, const tfm_model *m,
                         const int32_t *ids, int64_t b, int64_t t,
                         const int32_t *lengths) {
  tfm_status status;
  float error = forwardError(m, ids, b, t, lengths, &status);
  if (status != TFM_OK)
    report(name, status);
  else
    printf("%s: TFM_OK: max |error| %g\n", name, error);
}

static tfm_model *shared;

static void *threadRun(void *arg) {
  long index = (long)arg;
  int32_t ids[2 * 5] = {1, 2, 3, 4, 5, 0, 5, 4, 3, 2};
  int32_t lengths[2] = {5, 3};
  for (int i = 0; i < 50; ++i) {
    int64_t b = 1 + (index + i) % 2;
    tfm_status status;
    if (forwardError(shared, ids, b, 5, lengths, &status) != 0)
      return (void *)"wrong result or failure on the shared instance";
  }
  return NULL;
}

static void *otherInstance(void *arg) {
  (void)arg;
  tfm_model *m = NULL;
  if (api.create(weightsPath, &m) != TFM_OK)
    return (void *)"create failed in thread";
  int32_t ids[3] = {5, 1, 0};
  const char *result = NULL;
  for (int i = 0; i < 50 && !result; ++i) {
    tfm_status status;
    if (forwardError(m, ids, 1, 3, NULL, &status) != 0)
      result = "wrong result or failure on the second instance";
  }
  api.destroy(m);
  return (void *)result;
}

static void gpuChecks(tfm_model *m) {
  int32_t ids[2 * 3] = {1, 5, 2, 0, 3, 4};
  int32_t lengths[2] = {3, 2};
  checkForward("forward", m, ids, 2, 3, lengths);
  checkForward("forward null lengths", m, ids, 2, 3, NULL);

  int32_t bad[2 * 3] = {1, 6, 2, 0, 3, 4};
  tfm_status status;
  forwardError(m, bad, 2, 3, NULL, &status);
  report("forward bad id", status);

  /* The stand-in's deliberate failures (batch 3, 4, 5); `out` keeps its
   * contents when a call fails. */
  int32_t many[5 * 2] = {1, 2, 3, 4, 5, 0, 1, 2, 3, 4};
  float out[5 * 2 * V];
  for (int i = 0; i < 5 * 2 * V; ++i)
    out[i] = 42.0f;
  report("forward missing kernel", api.forward(m, many, 3, 2, NULL, out, 60));
  report("forward bad launch", api.forward(m, many, 4, 2, NULL, out, 60));
  report("forward host shared", api.forward(m, many, 5, 2, NULL, out, 60));
  int untouched = 1;
  for (int i = 0; i < 5 * 2 * V; ++i)
    untouched &= out[i] == 42.0f;
  printf("out untouched by failed calls: %d\n", untouched);
  checkForward("forward after errors", m, ids, 2, 3, lengths);

  /* Four threads share `m` (their calls are serialized); a fifth uses an
   * instance of its own. */
  shared = m;
  pthread_t threads[5];
  for (long i = 0; i < 4; ++i)
    pthread_create(&threads[i], NULL, threadRun, (void *)i);
  pthread_create(&threads[4], NULL, otherInstance, NULL);
  const char *failure = NULL;
  for (int i = 0; i < 5; ++i) {
    void *result;
    pthread_join(threads[i], &result);
    if (result && !failure)
      failure = result;
  }
  printf("concurrent forwards: %s\n", failure ? failure : "ok");

  int n = 0;
  report("set threads", api.setThreads(m, 3));
  api.getThreads(m, &n);
  printf("threads: %d\n", n);

  /* The device is chosen by the first create of the process. */
  tfm_model *other = NULL;
  setenv("TFM_CUDA_DEVICE", "abc", 1);
  report("env not a number", api.create(weightsPath, &other));
  setenv("TFM_CUDA_DEVICE", "7", 1);
  report("env other device", api.create(weightsPath, &other));
  setenv("TFM_CUDA_DEVICE", "0", 1);
  report("env same device", api.create(weightsPath, &other));
  if (other)
    api.destroy(other);
  unsetenv("TFM_CUDA_DEVICE");
}

int main(int argc, char **argv) {
  if (argc < 3 || argc > 4) {
    fprintf(stderr, "usage: cuda_client LIBRARY WEIGHTS [create-only]\n");
    return 2;
  }
  weightsPath = argv[2];
  setvbuf(stdout, NULL, _IOLBF, 0);
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    printf("dlopen: failed: %s\n", dlerror());
    return 1;
  }
  printf("dlopen: ok\n");
  printf("libcuda.so.1 loaded by dlopen: %d\n", libcudaLoaded());
  api.create = symbol(library, "tfm_model_create");
  api.destroy = symbol(library, "tfm_model_destroy");
  api.forward = symbol(library, "tfm_model_forward");
  api.setThreads = symbol(library, "tfm_model_set_num_threads");
  api.getThreads = symbol(library, "tfm_model_get_num_threads");
  api.libraryInfo = symbol(library, "tfm_library_info");
  api.lastError = symbol(library, "tfm_last_error");
  api.statusString = symbol(library, "tfm_status_string");

  const char *manifest = NULL;
  api.libraryInfo(&manifest);
  printf("library info: %s\n",
         manifest && strstr(manifest, "\"device\": \"cuda\"") ? "device cuda"
                                                              : manifest);

  tfm_model *m = NULL;
  report("create", api.create(weightsPath, &m));
  printf("libcuda.so.1 loaded by create: %d\n", libcudaLoaded());
  if (m && argc == 3)
    gpuChecks(m);
  if (m)
    report("destroy", api.destroy(m));
  /* Unloading runs the generated destructors (mgpuModuleUnload). */
  printf("dlclose: %d\n", dlclose(library));
  return 0;
}
