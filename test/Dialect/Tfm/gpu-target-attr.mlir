// RUN: tfm-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// A GPU target round-trips; what one multiprocessor holds defaults to
// sm_80's (164 KiB of shared memory, 2048 threads, 32 blocks), which is
// then not printed.
// CHECK: #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>
// CHECK: #tfm.gpu_target<chip = "sm_86", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 82, opt_in_shared_memory_bytes = 101376, shared_memory_per_multiprocessor = 102400, max_threads_per_multiprocessor = 1536, max_blocks_per_multiprocessor = 16>
func.func @sm_80() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108, shared_memory_per_multiprocessor = 167936>} {
  return
}
func.func @sm_86() attributes {t = #tfm.gpu_target<chip = "sm_86", features = "+ptx80", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 82, opt_in_shared_memory_bytes = 101376, shared_memory_per_multiprocessor = 102400, max_threads_per_multiprocessor = 1536, max_blocks_per_multiprocessor = 16>} {
  return
}

// -----

// expected-error @+1 {{'chip' must be a compute capability such as "sm_80", found "gfx90a"}}
func.func @chip() attributes {t = #tfm.gpu_target<chip = "gfx90a", features = "", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108>} {
  return
}

// -----

// expected-error @+1 {{'max_threads_per_block' must be at least 32}}
func.func @threads() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "", max_threads_per_block = 16, shared_memory_bytes = 49152, multiprocessors = 108>} {
  return
}

// -----

// expected-error @+1 {{'shared_memory_bytes' must not be negative and 'multiprocessors' must be positive}}
func.func @multiprocessors() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 0>} {
  return
}

// -----

// expected-error @+1 {{'opt_in_shared_memory_bytes' must not be negative}}
func.func @opt_in() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108, opt_in_shared_memory_bytes = -1>} {
  return
}

// -----

// expected-error @+1 {{'shared_memory_per_multiprocessor' must not be negative}}
func.func @sm_shared() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108, shared_memory_per_multiprocessor = -1>} {
  return
}

// -----

// expected-error @+1 {{'max_threads_per_multiprocessor' (512) must be at least 'max_threads_per_block' (1024)}}
func.func @sm_threads() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108, max_threads_per_multiprocessor = 512>} {
  return
}

// -----

// expected-error @+1 {{'max_blocks_per_multiprocessor' must be positive}}
func.func @sm_blocks() attributes {t = #tfm.gpu_target<chip = "sm_80", features = "", max_threads_per_block = 1024, shared_memory_bytes = 49152, multiprocessors = 108, max_blocks_per_multiprocessor = 0>} {
  return
}
