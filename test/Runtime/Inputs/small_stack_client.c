/*===- small_stack_client.c - tfm_model_create on a 256 KiB stack ---------===*\
|*                                                                            *|
|* small_stack_client WEIGHTS...                                              *|
|*                                                                            *|
|* Creates (and destroys) a model from each weights file on a thread whose   *|
|* stack is 256 KiB, as a host that serves many models from small threads    *|
|* would, and prints "<file>: <status>: <message>". A file that would make   *|
|* the runtime recurse without bound (a JSON header nested thousands deep)   *|
|* must come back as an error, not overflow the stack.                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/tfm_runtime.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

static void *create(void *arg) {
  const char *path = (const char *)arg;
  tfm_model *m = NULL;
  tfm_status status = tfm_model_create(path, &m);
  const char *name = strrchr(path, '/');
  printf("%s: %s: %s\n", name ? name + 1 : path, tfm_status_string(status),
         status == TFM_OK ? "" : tfm_last_error());
  if (m)
    tfm_model_destroy(m);
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
