/*===- threads_client.c - the thread-count entry points of the C ABI ------===*\
|*                                                                            *|
|* threads_client WEIGHTS: against team_model.c (whose output is the OpenMP  *|
|* team size a forward call ran with), checks validation of                   *|
|* tfm_model_set_num_threads / tfm_model_get_num_threads, that the setting    *|
|* reaches the parallel region, that the caller's own OpenMP setting is       *|
|* restored, and that two instances with different counts run at the same    *|
|* time from two threads.                                                    *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "tfm/Runtime/tfm_runtime.h"

#include <omp.h>
#include <pthread.h>
#include <stdio.h>

static void report(const char *name, tfm_status status) {
  printf("%s: %s: %s\n", name, tfm_status_string(status),
         status == TFM_OK ? "" : tfm_last_error());
}

/* The team size of one forward call (-1 on failure). */
static int team(const tfm_model *m) {
  int32_t ids[2] = {0, 1};
  float out[2 * 2];
  if (tfm_model_forward(m, ids, 1, 2, NULL, out, 4) != TFM_OK)
    return -1;
  return (int)out[0];
}

struct Job {
  tfm_model *model;
  int expected;
  int ok;
};

static void *run(void *arg) {
  struct Job *job = arg;
  job->ok = 1;
  for (int i = 0; i < 100; ++i)
    if (team(job->model) != job->expected)
      job->ok = 0;
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2)
    return 2;
  tfm_model *a = NULL, *b = NULL;
  if (tfm_model_create(argv[1], &a) != TFM_OK ||
      tfm_model_create(argv[1], &b) != TFM_OK) {
    printf("create failed: %s\n", tfm_last_error());
    return 1;
  }
  int n = -7;
  report("get null model", tfm_model_get_num_threads(NULL, &n));
  report("get null n", tfm_model_get_num_threads(a, NULL));
  report("set null model", tfm_model_set_num_threads(NULL, 1));
  report("set negative", tfm_model_set_num_threads(a, -1));
  report("set too many", tfm_model_set_num_threads(a, TFM_MAX_THREADS + 1));
  report("get default", tfm_model_get_num_threads(a, &n));
  printf("default n: %d, all processors: %d\n", n, n == omp_get_num_procs());
  printf("default team is n: %d\n", team(a) == n);

  report("set 3", tfm_model_set_num_threads(a, 3));
  report("get", tfm_model_get_num_threads(a, &n));
  printf("n = %d\n", n);
  report("set -1 keeps 3", tfm_model_set_num_threads(a, -1));
  tfm_model_get_num_threads(a, &n);
  printf("n = %d\n", n);
  printf("team: %d\n", team(a));

  /* The caller's own setting is restored after each call. */
  omp_set_num_threads(5);
  printf("team: %d\n", team(a));
  printf("caller's max threads after the call: %d\n", omp_get_max_threads());

  report("set 0", tfm_model_set_num_threads(a, 0));
  tfm_model_get_num_threads(a, &n);
  printf("back to default: %d\n", n == omp_get_num_procs());

  /* Two instances, two counts, used at the same time. */
  tfm_model_set_num_threads(a, 1);
  tfm_model_set_num_threads(b, 2);
  struct Job ja = {a, 1, 0}, jb = {b, 2, 0};
  pthread_t ta, tb;
  pthread_create(&ta, NULL, run, &ja);
  pthread_create(&tb, NULL, run, &jb);
  pthread_join(ta, NULL);
  pthread_join(tb, NULL);
  printf("concurrent instances: %d %d\n", ja.ok, jb.ok);

  tfm_model_destroy(a);
  tfm_model_destroy(b);
  return 0;
}
