//===- tfm-bench.cpp - time tfm-compiled ops and models -------------------===//
//
// tfm-bench SUBCOMMAND [options]; see `tfm-bench --help`. Each subcommand
// compiles with the production pipeline, checks the result once, then times
// calls and prints a report (one JSON line with --json). bench/run.py runs
// it beside the peers (PyTorch, ONNX Runtime, OpenBLAS, peak FLOP/s).
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "Kernels.h"
#include "ModelBench.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

using namespace tfm::bench;

namespace {

const char *kUsage = R"(usage: tfm-bench SUBCOMMAND [options]

Compiles one op or one model with tfm's production pipeline for the host
CPU, checks the result once (single ops against a float64 computation on
sampled rows), then times calls with a steady clock and reports median, min
and p90 seconds per call and GFLOP/s of the median. A single op is compiled
as a kernel entry (its operands are the entry's inputs) and linked with
libomp; a model is compiled and linked as tfmc does. FLOPs count the
multiply-adds of the GEMMs and attention only, 2 each (the mul-add
convention of tfm/Support/Flops.h; docs/performance.md).

subcommands:
  attention --batch B --heads H [--kv-heads HKV] --seq T [--kv-seq TK]
            --head-dim D [--causal]
      one tfm.attention; FLOPs 4*B*H*D per visible (query, key) pair
      (QK^T and PV): T*TK pairs, or with --causal those with key
      j <= i + TK - T (T*(T+1)/2 when TK = T)
  linear --m M --k K --n N [--no-bias]
      one tfm.linear x[M,K] W[N,K]^T + b; FLOPs 2*M*K*N (bias not counted)
  ffn --tokens T --d-model D --hidden F [--activation A] [--no-bias]
      one tfm.ffn (A: relu, gelu, gelu_tanh (default), silu, tanh, swiglu,
      geglu); FLOPs 2*T*D*F*2 (3 for gated); bias and activation not
      counted
  model --model MODEL --seq T [--batch B] [--weights PATH]
        [--save-output OUT.npy] [--save-ids IDS.npy]
      a whole model (tfm spec or HF config/folder) compiled as tfmc does and
      run through the C ABI, with the weights of --weights, else the
      model folder's own, else random ones written from the library's
      manifest; only finiteness is checked here (compare
      --save-output against a reference)

common options:
  --threads N      threads the compiled code runs with, set at run time
                   (omp_set_num_threads of the kernel's libomp, or
                   tfm_model_set_num_threads; default 1). The code is
                   multithreaded when the host or N has more than one
                   thread; the report gives the count actually in effect
  --warmup N       untimed calls before timing, after the checked first
                   call (default 2; none when that call took > --max-time)
  --iters N        at most N timed calls (default 10)
  --min-iters N    at least N timed calls (default 3)
  --max-time S     stop timing after S seconds (default 10)
  --seed N         random inputs and weights (default 1)
  --verify-rows N  rows checked against float64 (default 64)
  --keep-dir DIR   keep the compiled library in DIR
  --inject-error   self-test: corrupt one result value before the check,
                   which must then fail with exit status 3
  --precision P    tfmc's --precision (f32, bf16, f16): GEMM and attention
                   inputs rounded to P (bf16 on a CPU with AMX: tile
                   kernels); the checks allow for that rounding
  --pass-option 'PASS:OPTION=VALUE ...'
                   tfmc's --pass-option, one or more settings separated by
                   spaces (e.g. tfm-configure-attention:decode-key-splits=1)
  --versus 'PASS:OPTION=VALUE ...'
                   a second library of the same op or model with these pass
                   options on top of --pass-option, checked too, then timed
                   in alternation with the first, call for call: the report
                   adds its timing and each pair's speedup (first's time /
                   versus's; median, min, p90), which a drifting shared
                   machine leaves intact ('' : the same library twice, the
                   noise floor); for a model also the largest difference
                   between the two libraries' outputs. --iters counts
                   pairs, and --max-time is shared by both libraries
  --no-pack-weights
                   compile without -tfm-pack-weights (weights read as
                   stored), to measure what packing gives
  --json           print one JSON line: bench, shape, threads, flops, iters,
                   median_s, min_s, p90_s, gflops, compile_s, verified

exit status: 0 success, 1 error, 2 bad command line (unknown or bad
option, sizes whose element counts overflow), 3 wrong result
)";

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
#if defined(__GLIBC__)
  // A kernel entry allocates its temporaries with malloc on every call;
  // glibc would map and unmap each large one anew, and the kernel zero
  // every page of it (15 % of a bf16 attention call's samples for two
  // 1.5 MiB tensors). A model's runtime keeps a block pool, which pays
  // that once: kept here too, so each call's time is the code's.
  mallopt(M_MMAP_THRESHOLD, 1 << 30);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
  if (argc < 2) {
    llvm::errs() << kUsage;
    return static_cast<int>(ExitCode::Usage);
  }
  llvm::StringRef cmd(argv[1]);
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    llvm::outs() << kUsage;
    return static_cast<int>(ExitCode::Success);
  }
  if (cmd == "attention") {
    Args args(argc, argv, 2, {"causal", "json", "inject-error", "no-pack-weights"});
    return runAttentionBench(args);
  }
  if (cmd == "linear") {
    Args args(argc, argv, 2, {"no-bias", "json", "inject-error", "no-pack-weights"});
    return runLinearBench(args);
  }
  if (cmd == "ffn") {
    Args args(argc, argv, 2, {"no-bias", "json", "inject-error", "no-pack-weights"});
    return runFfnBench(args);
  }
  if (cmd == "model") {
    Args args(argc, argv, 2, {"json", "inject-error", "no-pack-weights"});
    return runModelBench(args);
  }
  reportError("unknown subcommand '" + cmd +
              "' (expected attention, linear, ffn or model; see --help)");
  return static_cast<int>(ExitCode::Usage);
}
