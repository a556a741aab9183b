/*===- small_stack_client.c - the C ABI on a 256 KiB stack ----------------===*\
|*                                                                            *|
|* small_stack_client WEIGHTS...                                              *|
|*                                                                            *|
|* Creates (and destroys) a model from each weights file on a thread whose   *|
|* stack is 256 KiB, as a host that serves many models from small threads    *|
|* would, and prints "<file>: <status>: <message>". A file that would make   *|
|* the runtime recurse without bound (a JSON header nested thousands deep)   *|
|* must come back as an error, not overflow the stack. A model that loads    *|
|* also runs on that thread: tfm_model_forward (2 x 4 tokens) and           *|
|* tfm_model_forward_masked (row 1 left-padded), each printing its status.  *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/tfm_runtime.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static void *create(void *arg) {
  const char *path = (const char *)arg;
  tfm_model *m = NULL;
  tfm_status status = tfm_model_create(path, &m);
  const char *name = strrchr(path, '/');
  printf("%s: %s: %s\n", name ? name + 1 : path, tfm_status_string(status),
         status == TFM_OK ? "" : tfm_last_error());
  if (m) {
    int32_t ids[8] = {1, 2, 3, 4, 5, 4, 3, 2};
    int32_t mask[8] = {1, 1, 1, 1, 0, 1, 1, 1};
    int64_t shape[3];
    int rank = 0;
    static float out[2 * 4 * 1024]; /* not on the small stack */
    size_t elements = 0;
    if (tfm_model_output_shape(m, 2, 4, shape, &rank) == TFM_OK) {
      elements = 1;
      for (int i = 0; i < rank; ++i)
        elements *= (size_t)shape[i];
    }
    if (elements > sizeof out / sizeof out[0])
      elements = 0; /* the calls then report a small buffer */
    tfm_status f = tfm_model_forward(m, ids, 2, 4, NULL, out, elements);
    printf("  forward: %s\n", tfm_status_string(f));
    tfm_status g =
        tfm_model_forward_masked(m, ids, 2, 4, mask, NULL, out, elements);
    printf("  forward_masked: %s\n", tfm_status_string(g));
    tfm_model_destroy(m);
  }
  return NULL;
}

int main(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    pthread_t thread;
    if (pthread_create(&thread, &attr, create, argv[i]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
    pthread_join(thread, NULL);
    pthread_attr_destroy(&attr);
  }
  fflush(stdout);
  return 0;
}
