/*===- peak.c - measured f32 FMA peak of this machine ---------------------===*\
|*                                                                            *|
|* Independent chains of fused multiply-adds on the widest float vectors the  *|
|* compiler targets (-march=native: AVX-512, else AVX2+FMA, else SSE/NEON     *|
|* through the generic vector extension), enough chains to cover the FMA      *|
|* latency on two ports. Prints one JSON line: the ISA, the vector width, and *|
|* GFLOP/s on one core and on all cores (one thread per online CPU).          *|
|*                                                                            *|
|* Build: clang -O3 -march=native -pthread peak.c -o peak                     *|
|* Usage: peak [seconds per measurement, default 0.5] [threads, default all]  *|
\*===----------------------------------------------------------------------===*/

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#if defined(__AVX512F__)
#define ISA "avx512"
#define LANES 16
#elif defined(__AVX2__) && defined(__FMA__)
#define ISA "avx2+fma"
#define LANES 8
#elif defined(__AVX__)
#define ISA "avx"
#define LANES 8
#else
#define ISA "128-bit"
#define LANES 4
#endif

typedef float vf __attribute__((vector_size(LANES * 4)));

/* Chains: 2 FMA ports x 4-5 cycles latency needs >= 10 in flight; 16 is
 * safe and still fits the 32 (AVX-512) or 16 (AVX2) vector registers. */
#define CHAINS 16

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Runs `iters` rounds of CHAINS FMAs; returns a value that depends on all
 * of them so nothing is optimized away. */
static float __attribute__((noinline)) fma_chains(int64_t iters, float seed) {
  vf acc[CHAINS];
  vf a, b;
  for (int l = 0; l < LANES; ++l) {
    a[l] = 0.999999f;
    b[l] = 1e-7f * seed;
  }
  for (int c = 0; c < CHAINS; ++c)
    for (int l = 0; l < LANES; ++l)
      acc[c][l] = seed + c + l;
  for (int64_t i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = acc[c] * a + b; /* contracted to one FMA (-ffp-contract=on) */
    __asm__ volatile("" : "+x"(a)); /* keep a, b in registers, loop alive */
  }
  vf sum = acc[0];
  for (int c = 1; c < CHAINS; ++c)
    sum += acc[c];
  float s = 0;
  for (int l = 0; l < LANES; ++l)
    s += sum[l];
  return s;
}

static double flops_per_iter(void) { return 2.0 * CHAINS * LANES; }

struct job {
  int64_t iters;
  float result;
  double seconds;
};

static void *run_job(void *p) {
  struct job *j = p;
  double t0 = now();
  j->result = fma_chains(j->iters, 1.0f);
  j->seconds = now() - t0;
  return NULL;
}

/* GFLOP/s with `threads` threads each running `iters` rounds (wall time of
 * the slowest). Median of 3. */
static double measure(int threads, int64_t iters, float *sink) {
  double best[3];
  for (int rep = 0; rep < 3; ++rep) {
    pthread_t tid[256];
    struct job jobs[256];
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      jobs[t].iters = iters;
      pthread_create(&tid[t], NULL, run_job, &jobs[t]);
    }
    for (int t = 0; t < threads; ++t) {
      pthread_join(tid[t], NULL);
      *sink += jobs[t].result;
    }
    double wall = now() - t0;
    best[rep] = threads * iters * flops_per_iter() / wall * 1e-9;
  }
  /* median of three */
  double a = best[0], b = best[1], c = best[2];
  if (a > b) { double t = a; a = b; b = t; }
  if (b > c) { double t = b; b = c; c = t; }
  if (a > b) { double t = a; a = b; b = t; }
  return b;
}

int main(int argc, char **argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.5;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  int threads = argc > 2 ? atoi(argv[2]) : (int)cpus;
  if (seconds <= 0 || threads < 1 || threads > 256) {
    fprintf(stderr, "usage: peak [seconds > 0] [threads 1..256]\n");
    return 2;
  }
  float sink = 0;
  /* Calibrate: iterations for `seconds` on one core. */
  int64_t iters = 1 << 20;
  for (;;) {
    double t0 = now();
    sink += fma_chains(iters, 2.0f);
    double dt = now() - t0;
    if (dt > 0.05) {
      iters = (int64_t)(iters * seconds / dt);
      break;
    }
    iters *= 4;
  }
  double single = measure(1, iters, &sink);
  double all = measure(threads, iters, &sink);
  printf("{\"isa\": \"%s\", \"vector_bits\": %d, \"chains\": %d, "
         "\"single_core_gflops\": %.2f, \"all_core_gflops\": %.2f, "
         "\"threads\": %d, \"sink\": %g}\n",
         ISA, LANES * 32, CHAINS, single, all, threads, (double)sink);
  return 0;
}
