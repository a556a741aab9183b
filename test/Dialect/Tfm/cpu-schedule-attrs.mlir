// RUN: tfm-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// The CPU schedule of a contraction (-tfm-cpu-configure writes it,
// -tfm-tile-and-vectorize carries it out) round-trips.
// CHECK: #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 32, parallel_cols = 128>
// CHECK: #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0>
// The dot-product kernel; `dot = false` is the default and not printed.
// CHECK: #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0, dot = true>
// CHECK: #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0>
func.func @threads() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 32, parallel_cols = 128>} {
  return
}
func.func @serial() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0>} {
  return
}
func.func @dot() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0, dot = true>} {
  return
}
func.func @not_dot() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0, dot = false>} {
  return
}

// -----

// expected-error @+1 {{'dot' needs a serial schedule ('parallel_rows' = 0) and a power-of-two 'lanes'}}
func.func @dot_threads() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 32, parallel_cols = 128, dot = true>} {
  return
}

// -----

// expected-error @+1 {{'dot' needs a serial schedule ('parallel_rows' = 0) and a power-of-two 'lanes'}}
func.func @dot_lanes() attributes {s = #tfm.cpu_contraction<lanes = 12, mr = 8, nr = 24, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 0, dot = true>} {
  return
}

// -----

// expected-error @+1 {{'nc' (100) must be a multiple of 'nr' (32)}}
func.func @nc() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 100, parallel_rows = 32, parallel_cols = 128>} {
  return
}

// -----

// expected-error @+1 {{'parallel_cols' (100) must be a non-negative multiple of 'nr' (32)}}
func.func @cols() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 32, parallel_cols = 100>} {
  return
}

// -----

// expected-error @+1 {{'parallel_cols' needs 'parallel_rows' (threads)}}
func.func @cols_without_threads() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = 0, parallel_cols = 128>} {
  return
}

// -----

// expected-error @+1 {{'parallel_rows' must not be negative}}
func.func @rows() attributes {s = #tfm.cpu_contraction<lanes = 16, mr = 8, nr = 32, kc = 192, nc = 1344, parallel_rows = -1, parallel_cols = 0>} {
  return
}

// -----

// The AMX schedule of a bf16 contraction (-tfm-cpu-configure writes it,
// -tfm-cpu-lower-amx carries it out) round-trips.
// CHECK: #tfm.cpu_amx_contraction<cache_cols = 320, k_block = 256, parallel_rows = 128>
func.func @amx() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 320, k_block = 256, parallel_rows = 128>} {
  return
}

// -----

// expected-error @+1 {{'cache_cols' (48) must be a positive multiple of 32 (the kernel's two 16-column tiles)}}
func.func @amx_cols() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 48, k_block = 256, parallel_rows = 128>} {
  return
}

// -----

// expected-error @+1 {{'k_block' (16) must be a positive multiple of 32 (a k step)}}
func.func @amx_k() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 16, parallel_rows = 128>} {
  return
}

// -----

// expected-error @+1 {{'parallel_rows' (100) must be a non-negative multiple of 32 (the kernel's two 16-row tiles)}}
func.func @amx_rows() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 32, parallel_rows = 100>} {
  return
}

// -----

// With tiles, the last rows (at most tail_dot_rows of them) on vector dot
// products.
// CHECK: #tfm.cpu_amx_contraction<cache_cols = 320, k_block = 256, parallel_rows = 128, tail_dot_rows = 8>
func.func @amx_tail() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 320, k_block = 256, parallel_rows = 128, tail_dot_rows = 8>} {
  return
}

// -----

// expected-error @+1 {{'tail_dot_rows' (32) must be in [0, 32) (the rows after the last 32-row step)}}
func.func @amx_tail_rows() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 32, parallel_rows = 0, tail_dot_rows = 32>} {
  return
}

// -----

// expected-error @+1 {{'tail_dot_rows' is for tile kernels; with 'dot_products' every row takes dot products}}
func.func @amx_tail_dots() attributes {s = #tfm.cpu_amx_contraction<cache_cols = 64, k_block = 32, parallel_rows = 0, dot_products = true, tail_dot_rows = 4>} {
  return
}
