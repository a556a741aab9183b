/*===- peak.c - measured f32 FMA peak of this machine ---------------------===*\
|*                                                                            *|
|* Independent chains of fused multiply-adds on the widest float vectors the  *|
|* compiler targets (-march=native: AVX-512, else AVX2+FMA, else SSE/NEON     *|
|* through the generic vector extension), enough chains to cover the FMA      *|
|* latency on two ports. Prints one JSON line: the ISA, the vector width, and *|
|* GFLOP/s on one core and on all cores (one thread per online CPU). Where    *|
|* the CPU has them, also the bf16 peaks: AVX512-BF16 (vdpbf16ps chains, f32  *|
|* accumulation) and AMX-BF16 (tdpbf16ps on four accumulator tiles from two   *|
|* A and two B tiles held in tile registers), counted as 2 FLOPs per          *|
|* multiply-add like the f32 peak. Last, the read bandwidth from memory: each *|
|* thread sums its share of a 1 GiB buffer (larger than the last-level cache *|
|* of these machines), the bound of a decode step that streams its weights.  *|
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
#define VECTOR_REGISTERS 32
#elif defined(__AVX2__) && defined(__FMA__)
#define ISA "avx2+fma"
#define LANES 8
#define VECTOR_REGISTERS 16
#elif defined(__AVX__)
#define ISA "avx"
#define LANES 8
#define VECTOR_REGISTERS 16
#else
#define ISA "128-bit"
#define LANES 4
#define VECTOR_REGISTERS 16
#endif

typedef float vf __attribute__((vector_size(LANES * 4)));

/* Chains: 2 FMA ports x 4-5 cycles latency needs >= 10 in flight. All of
 * them and the two operands a and b must stay in vector registers: 16
 * chains with 32 (AVX-512); 12 with 16 (AVX2), where 16 chains spilled
 * four accumulators to the stack and put a store-to-load round trip into
 * their chains (55 of Zen 3's ~100 GFLOP/s). */
#if VECTOR_REGISTERS >= 32
#define CHAINS 16
#else
#define CHAINS 12
#endif

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

#if defined(__AVX512BF16__)
#include <immintrin.h>
/* CHAINS vdpbf16ps per round: 16 f32 lanes, each 2 bf16 multiply-adds. */
static float __attribute__((noinline)) dpbf16_chains(int64_t iters,
                                                      float seed) {
  __m512 acc[CHAINS];
  __m512bh a = (__m512bh)_mm512_set1_epi16(0x3f80); /* 1.0 */
  __m512bh b = (__m512bh)_mm512_set1_epi16(0x3380); /* ~6e-8 */
  for (int c = 0; c < CHAINS; ++c)
    acc[c] = _mm512_set1_ps(seed + c);
  for (int64_t i = 0; i < iters; ++i) {
#pragma clang loop unroll(full)
    for (int c = 0; c < CHAINS; ++c)
      acc[c] = _mm512_dpbf16_ps(acc[c], a, b);
    __asm__ volatile("" : "+v"(a));
  }
  __m512 sum = acc[0];
  for (int c = 1; c < CHAINS; ++c)
    sum = _mm512_add_ps(sum, acc[c]);
  return _mm512_reduce_add_ps(sum);
}
#endif

#if defined(__AMX_TILE__) && defined(__AMX_BF16__)
#include <immintrin.h>
#include <sys/syscall.h>
/* Four tdpbf16ps per round (16 x 16 x 32 multiply-adds each) on tiles
 * 0-3 from A tiles 4-5 and B tiles 6-7, all in tile registers. */
static float __attribute__((noinline)) amx_chains(int64_t iters, float seed) {
  struct {
    uint8_t palette, start;
    uint8_t reserved[14];
    uint16_t colsb[16];
    uint8_t rows[16];
  } __attribute__((packed, aligned(64))) cfg = {0};
  cfg.palette = 1;
  for (int t = 0; t < 8; ++t) {
    cfg.colsb[t] = 64;
    cfg.rows[t] = 16;
  }
  static uint16_t ones[16 * 32] __attribute__((aligned(64)));
  static float c0[16 * 16] __attribute__((aligned(64)));
  for (int i = 0; i < 16 * 32; ++i)
    ones[i] = 0x3380;
  for (int i = 0; i < 16 * 16; ++i)
    c0[i] = seed;
  _tile_loadconfig(&cfg);
  _tile_loadd(0, c0, 64);
  _tile_loadd(1, c0, 64);
  _tile_loadd(2, c0, 64);
  _tile_loadd(3, c0, 64);
  _tile_loadd(4, ones, 64);
  _tile_loadd(5, ones, 64);
  _tile_loadd(6, ones, 64);
  _tile_loadd(7, ones, 64);
  for (int64_t i = 0; i < iters; ++i) {
    _tile_dpbf16ps(0, 4, 6);
    _tile_dpbf16ps(1, 4, 7);
    _tile_dpbf16ps(2, 5, 6);
    _tile_dpbf16ps(3, 5, 7);
  }
  _tile_stored(0, c0, 64);
  _tile_release();
  return c0[0];
}

/* Linux hands a thread the AMX tile state only on request. */
static int amx_enable(void) {
  return syscall(SYS_arch_prctl, 0x1023 /* ARCH_REQ_XCOMP_PERM */,
                 18 /* XFEATURE_XTILEDATA */) == 0;
}
#endif

/* Memory read bandwidth: `threads` threads each sum their slice of a
 * buffer `passes` times. Eight independent accumulators keep the adds off
 * the critical path, so the loads are what is measured. */
struct read_job {
  const vf *p;
  size_t n;
  int passes;
  float result;
};

static void *run_read(void *arg) {
  struct read_job *j = arg;
  vf s[8] = {0};
  for (int pass = 0; pass < j->passes; ++pass)
    for (size_t i = 0; i + 8 <= j->n; i += 8)
#pragma clang loop unroll(full)
      for (int k = 0; k < 8; ++k)
        s[k] += j->p[i + k];
  vf t = s[0];
  for (int k = 1; k < 8; ++k)
    t += s[k];
  float sum = 0; /* every lane: none of the loads is dead */
  for (int l = 0; l < LANES; ++l)
    sum += t[l];
  j->result = sum;
  return NULL;
}

/* GB/s reading `bytes` of `buf` with `threads` threads; median of 3. */
static double read_gbs(const vf *buf, size_t bytes, int threads, int passes,
                       float *sink) {
  double rate[3];
  size_t vecs = bytes / sizeof(vf), share = vecs / threads;
  for (int rep = 0; rep < 3; ++rep) {
    pthread_t tid[256];
    struct read_job jobs[256];
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      jobs[t].p = buf + t * share;
      jobs[t].n = share;
      jobs[t].passes = passes;
      pthread_create(&tid[t], NULL, run_read, &jobs[t]);
    }
    for (int t = 0; t < threads; ++t) {
      pthread_join(tid[t], NULL);
      *sink += jobs[t].result;
    }
    rate[rep] = (double)share * threads * sizeof(vf) * passes /
                (now() - t0) * 1e-9;
  }
  double a = rate[0], b = rate[1], c = rate[2];
  if (a > b) { double t = a; a = b; b = t; }
  if (b > c) { double t = b; b = c; c = t; }
  if (a > b) { double t = a; a = b; b = t; }
  return b;
}

typedef float (*kernel_fn)(int64_t iters, float seed);

struct job {
  kernel_fn fn;
  int64_t iters;
  float result;
  double seconds;
};

static void *run_job(void *p) {
  struct job *j = p;
  double t0 = now();
  j->result = j->fn(j->iters, 1.0f);
  j->seconds = now() - t0;
  return NULL;
}

/* GFLOP/s with `threads` threads each running `iters` rounds of `fn`
 * (`flops` each; wall time of the slowest). Median of 3. */
static double measure_fn(kernel_fn fn, double flops, int threads,
                         int64_t iters, float *sink) {
  double best[3];
  for (int rep = 0; rep < 3; ++rep) {
    pthread_t tid[256];
    struct job jobs[256];
    double t0 = now();
    for (int t = 0; t < threads; ++t) {
      jobs[t].fn = fn;
      jobs[t].iters = iters;
      pthread_create(&tid[t], NULL, run_job, &jobs[t]);
    }
    for (int t = 0; t < threads; ++t) {
      pthread_join(tid[t], NULL);
      *sink += jobs[t].result;
    }
    double wall = now() - t0;
    best[rep] = threads * iters * flops / wall * 1e-9;
  }
  /* median of three */
  double a = best[0], b = best[1], c = best[2];
  if (a > b) { double t = a; a = b; b = t; }
  if (b > c) { double t = b; b = c; c = t; }
  if (a > b) { double t = a; a = b; b = t; }
  return b;
}

/* Iterations of `fn` that take about `seconds` on one core. */
static int64_t calibrate(kernel_fn fn, double seconds, float *sink) {
  int64_t iters = 1 << 16;
  for (;;) {
    double t0 = now();
    *sink += fn(iters, 2.0f);
    double dt = now() - t0;
    if (dt > 0.05)
      return (int64_t)(iters * seconds / dt) + 1;
    iters *= 4;
  }
}

static double measure(int threads, int64_t iters, float *sink) {
  return measure_fn(fma_chains, flops_per_iter(), threads, iters, sink);
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
         "\"single_core_gflops\": %.2f, \"all_core_gflops\": %.2f, ",
         ISA, LANES * 32, CHAINS, single, all);
#if defined(__AVX512BF16__)
  {
    int64_t n = calibrate(dpbf16_chains, seconds, &sink);
    double flops = 4.0 * 16 * CHAINS;
    printf("\"avx512bf16_single_core_gflops\": %.2f, "
           "\"avx512bf16_all_core_gflops\": %.2f, ",
           measure_fn(dpbf16_chains, flops, 1, n, &sink),
           measure_fn(dpbf16_chains, flops, threads, n, &sink));
  }
#endif
#if defined(__AMX_TILE__) && defined(__AMX_BF16__)
  if (amx_enable()) {
    int64_t n = calibrate(amx_chains, seconds, &sink);
    double flops = 4.0 * 2 * 16 * 16 * 32;
    printf("\"amx_bf16_single_core_gflops\": %.2f, "
           "\"amx_bf16_all_core_gflops\": %.2f, ",
           measure_fn(amx_chains, flops, 1, n, &sink),
           measure_fn(amx_chains, flops, threads, n, &sink));
  }
#endif
  {
    size_t bytes = (size_t)1 << 30;
    vf *buf = aligned_alloc(64, bytes);
    if (buf) {
      for (size_t i = 0; i < bytes / sizeof(float); ++i)
        ((float *)buf)[i] = (float)(i & 1023) * 1e-3f;
      printf("\"read_bytes\": %zu, \"read_single_core_gbs\": %.2f, "
             "\"read_all_core_gbs\": %.2f, ",
             bytes, read_gbs(buf, bytes, 1, 2, &sink),
             read_gbs(buf, bytes, threads, 2, &sink));
      free(buf);
    }
  }
  printf("\"threads\": %d, \"sink\": %g}\n", threads, (double)sink);
  return 0;
}
