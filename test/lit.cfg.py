# -*- Python -*-
# lit configuration for the tfm test suite.

import os
import sys

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TFM"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tfm_obj_root, "test")

config.substitutions.append(("%tfm_src", config.tfm_src_root))
config.substitutions.append(("%tfm_obj", config.tfm_obj_root))
config.substitutions.append(("%python", sys.executable))
# %tfm_ref: the float64 oracle (scripts/tfm_ref.py), one for every test.
config.substitutions.append(
    ("%tfm_ref", "%s %s" % (sys.executable, os.path.join(
        config.tfm_src_root, "scripts", "tfm_ref.py"))))

# host-avx512bf16: this machine's CPU runs AVX512-BF16 code (the lines that
# run a library compiled for such a CPU use %if host-avx512bf16 %{ ... %}).
# The machines' CPUs differ between sessions (Zen 1 without AVX-512, Zen 4,
# Sapphire Rapids), and CI runs on whichever one it gets.
try:
    with open("/proc/cpuinfo") as f:
        flags = next((line.split(":", 1)[1].split() for line in f
                      if line.startswith("flags")), [])
except OSError:
    flags = []
if "avx512_bf16" in flags:
    config.available_features.add("host-avx512bf16")
# host-amx-bf16: likewise for AMX (a library that needs AMX and AVX512-BF16
# is refused for the first of them the host lacks).
if "amx_bf16" in flags:
    config.available_features.add("host-amx-bf16")

# ptxas: tfmc finds a CUDA toolkit, so that --report measures every
# kernel with `ptxas -v`. Under lit (whose environment has no CUDA_*
# variables) that is tfmc's default: /usr/local/cuda with bin/ptxas and
# nvvm/libdevice/libdevice.10.bc (Driver.cpp, isCudaToolkit). Lines that
# check what only ptxas measures use %if ptxas %{ ... %}; every test still
# runs.
if os.access("/usr/local/cuda/bin/ptxas", os.X_OK) and os.path.exists(
        "/usr/local/cuda/nvvm/libdevice/libdevice.10.bc"):
    config.available_features.add("ptxas")

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Never let a tool on PATH shadow LLVM 22's (Debian's /usr/bin/FileCheck may be
# another version): tools resolve in build/bin, then LLVM 22's bin.
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tfm_tools_dir, append_path=True)

# Sanitizer builds (-DTFM_ENABLE_SANITIZERS=ON, docs/sanitizers.md): leaks are
# checked and UBSan prints stacks. The caller's ASAN_OPTIONS/UBSAN_OPTIONS
# (lit passes them through) come last so that they win: log_path=... then
# collects every report, including those of steps run under `not`.
if str(config.tfm_sanitizers).upper() in ("ON", "1", "TRUE", "YES"):
    for name, ours in (("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1"),
                       ("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=0")):
        theirs = os.environ.get(name, "")
        config.environment[name] = ours + (":" + theirs if theirs else "")

tool_dirs = [config.tfm_tools_dir, config.llvm_tools_dir]
tools = ["tfm-opt", "tfmc", "tfm-run", "tfm-bench", "mlir-translate", "llc"]
llvm_config.add_tool_substitutions(tools, tool_dirs)

# %mlir_runner: runs generated code under LLVM 22's mlir-runner with its
# runner utility libraries (printMemrefF32) and LLVM's OpenMP runtime for the
# parallel loops of the default (multithreaded) pipeline. Used by the numeric
# tests of the lowering (Pipelines/Numerics) and of the tiling
# (Transforms/Numerics).
llvm_lib_dir = os.path.normpath(os.path.join(config.llvm_tools_dir, "..", "lib"))
runner_libs = [os.path.join(llvm_lib_dir, lib) for lib in
               ("libmlir_c_runner_utils.so", "libmlir_runner_utils.so", "libomp.so")]
config.substitutions.append(
    ("%mlir_runner",
     os.path.join(config.llvm_tools_dir, "mlir-runner") +
     " -e main -entry-point-result=void -shared-libs=" + ",".join(runner_libs)))
