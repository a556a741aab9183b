// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-narrow-kv-cache | FileCheck %s
// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-narrow-kv-cache -mlir-pass-statistics -o /dev/null 2>&1 | FileCheck %s --check-prefix=STATS
// narrow=false keeps every cache f32 (and so has nothing to refuse).
// RUN: tfm-opt %s -split-input-file -tfm-narrow-kv-cache=narrow=false | FileCheck %s --check-prefix=KEEP
// KEEP-NOT: bf16>
// KEEP-NOT: f16>

// A generation step under bf16: the cache argument, its appends, the
// slices the attention reads and the returned cache are bf16; the rows
// appended and the query stay f32.
// CHECK-LABEL: func.func @step(
// CHECK-SAME:      %[[CACHE:[a-z0-9]+]]: tensor<?x1x2x2x?x8xbf16> {tfm.inout = 1 : i64})
// CHECK-SAME:      -> (tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xbf16>)
// CHECK:         %[[C1:.*]] = tfm.cache_append %{{.*}} into %[[CACHE]] {{.*}} : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x1x2x2x?x8xbf16>
// CHECK:         %[[C2:.*]] = tfm.cache_append %{{.*}} into %[[C1]] {{.*}} -> tensor<?x1x2x2x?x8xbf16>
// CHECK:         %[[K:.*]] = tensor.extract_slice %[[C2]]{{.*}} : tensor<?x1x2x2x?x8xbf16> to tensor<?x2x?x8xbf16>
// CHECK:         %[[V:.*]] = tensor.extract_slice %[[C2]]{{.*}} : tensor<?x1x2x2x?x8xbf16> to tensor<?x2x?x8xbf16>
// CHECK:         %[[O:.*]] = tfm.attention %{{.*}}, %[[K]], %[[V]] {{.*}} : tensor<?x2x1x8xf32>, tensor<?x2x?x8xbf16>, tensor<?x2x?x8xbf16> -> tensor<?x2x1x8xf32>
// CHECK:         return %[[O]], %[[C2]] : tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xbf16>
// STATS: NarrowKvCachePass
// STATS: 4 narrowed-caches
module attributes {tfm.precision = bf16} {
func.func @step(%q: tensor<?x2x1x8xf32>, %k: tensor<?x2x1x8xf32>, %v: tensor<?x2x1x8xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>, %cache: tensor<?x1x2x2x?x8xf32> {tfm.inout = 1 : i64}) -> (tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xf32>) {
  %c1 = tfm.cache_append %k into %cache offsets(%off) lengths(%len) {index = array<i64: 0, 0>} : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x1x2x2x?x8xf32>
  %c2 = tfm.cache_append %v into %c1 offsets(%off) lengths(%len) {index = array<i64: 0, 1>} : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x1x2x2x?x8xf32>
  %i0 = arith.constant 0 : index
  %i4 = arith.constant 4 : index
  %b = tensor.dim %cache, %i0 : tensor<?x1x2x2x?x8xf32>
  %n = tensor.dim %cache, %i4 : tensor<?x1x2x2x?x8xf32>
  %ks = tensor.extract_slice %c2[0, 0, 0, 0, 0, 0] [%b, 1, 1, 2, %n, 8] [1, 1, 1, 1, 1, 1] : tensor<?x1x2x2x?x8xf32> to tensor<?x2x?x8xf32>
  %vs = tensor.extract_slice %c2[0, 0, 1, 0, 0, 0] [%b, 1, 1, 2, %n, 8] [1, 1, 1, 1, 1, 1] : tensor<?x1x2x2x?x8xf32> to tensor<?x2x?x8xf32>
  %o = tfm.attention %q, %ks, %vs offsets(%off : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.35 : f64} : tensor<?x2x1x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32> -> tensor<?x2x1x8xf32>
  return %o, %c2 : tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xf32>
}

// A declaration (a runtime helper, say) has no body to narrow: left alone.
// CHECK-LABEL: func.func private @declared(tensor<?x1x2x2x?x8xf32>)
func.func private @declared(tensor<?x1x2x2x?x8xf32>)

// An encoder-decoder: @encode appends into the cross cache; the step reads
// it only (slices as keys and values) beside its own cache, and both are
// narrowed. f32 arguments that are not caches keep their type.
// CHECK-LABEL: func.func @encode(
// CHECK-SAME:      %{{.*}}: tensor<?x2x?x8xf32>, %{{.*}}: tensor<?xi32>, %{{.*}}: tensor<?x1x2x2x?x8xbf16>
// CHECK-SAME:      -> tensor<?x1x2x2x?x8xbf16>
func.func @encode(%kv: tensor<?x2x?x8xf32>, %len: tensor<?xi32>, %cross: tensor<?x1x2x2x?x8xf32> {tfm.inout = 0 : i64}) -> tensor<?x1x2x2x?x8xf32> {
  %z = arith.constant dense<0> : tensor<1xi32>
  %zd = tensor.cast %z : tensor<1xi32> to tensor<?xi32>
  %c1 = tfm.cache_append %kv into %cross offsets(%zd) lengths(%len) {index = array<i64: 0, 0>} : tensor<?x2x?x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x1x2x2x?x8xf32>
  return %c1 : tensor<?x1x2x2x?x8xf32>
}

// CHECK-LABEL: func.func @cross_step(
// CHECK-SAME:      %{{.*}}: tensor<?x2x1x8xf32>, %{{.*}}: tensor<?xi32>, %{{.*}}: tensor<?x1x2x2x?x8xbf16> {tfm.inout = 0 : i64}, %{{.*}}: tensor<?x1x2x2x?x8xbf16>)
// CHECK-SAME:      -> (tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xbf16>)
// CHECK:         tfm.attention {{.*}} : tensor<?x2x1x8xf32>, tensor<?x2x?x8xbf16>, tensor<?x2x?x8xbf16> -> tensor<?x2x1x8xf32>
func.func @cross_step(%q: tensor<?x2x1x8xf32>, %off: tensor<?xi32>, %cache: tensor<?x1x2x2x?x8xf32> {tfm.inout = 0 : i64}, %cross: tensor<?x1x2x2x?x8xf32>) -> (tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xf32>) {
  %c1 = tfm.cache_append %q into %cache offsets(%off) lengths(%off) {index = array<i64: 0, 0>} : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x1x2x2x?x8xf32>
  %i0 = arith.constant 0 : index
  %i4 = arith.constant 4 : index
  %b = tensor.dim %cross, %i0 : tensor<?x1x2x2x?x8xf32>
  %n = tensor.dim %cross, %i4 : tensor<?x1x2x2x?x8xf32>
  %ks = tensor.extract_slice %cross[0, 0, 0, 0, 0, 0] [%b, 1, 1, 2, %n, 8] [1, 1, 1, 1, 1, 1] : tensor<?x1x2x2x?x8xf32> to tensor<?x2x?x8xf32>
  %vs = tensor.extract_slice %cross[0, 0, 1, 0, 0, 0] [%b, 1, 1, 2, %n, 8] [1, 1, 1, 1, 1, 1] : tensor<?x1x2x2x?x8xf32> to tensor<?x2x?x8xf32>
  %o = tfm.attention %q, %ks, %vs {scale = 0.35 : f64} : tensor<?x2x1x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32> -> tensor<?x2x1x8xf32>
  return %o, %c1 : tensor<?x2x1x8xf32>, tensor<?x1x2x2x?x8xf32>
}

// Attention on arguments in a function without a cache (a forward pass):
// untouched.
// CHECK-LABEL: func.func @forward(
// CHECK-SAME:      %{{.*}}: tensor<?x2x?x8xf32>, %{{.*}}: tensor<?x2x?x8xf32>, %{{.*}}: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
func.func @forward(%q: tensor<?x2x?x8xf32>, %k: tensor<?x2x?x8xf32>, %v: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.35 : f64} : tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32>, tensor<?x2x?x8xf32> -> tensor<?x2x?x8xf32>
  return %o : tensor<?x2x?x8xf32>
}
}

// -----

// f16 likewise.
// CHECK-LABEL: func.func @f16_step(
// CHECK-SAME:      tensor<?x2x?x8xf16>
// CHECK:         tfm.cache_append {{.*}} -> tensor<?x2x?x8xf16>
module attributes {tfm.precision = f16} {
func.func @f16_step(%k: tensor<?x2x1x8xf32>, %off: tensor<?xi32>, %cache: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32> {
  %c = tfm.cache_append %k into %cache offsets(%off) lengths(%off) : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x?x8xf32>
  return %c : tensor<?x2x?x8xf32>
}
}

// -----

// No 16-bit precision: the cache stays f32.
// CHECK-LABEL: func.func @f32_step(
// CHECK-SAME:      %{{.*}}: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32>
func.func @f32_step(%k: tensor<?x2x1x8xf32>, %off: tensor<?xi32>, %cache: tensor<?x2x?x8xf32>) -> tensor<?x2x?x8xf32> {
  %c = tfm.cache_append %k into %cache offsets(%off) lengths(%off) : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x?x8xf32>
  return %c : tensor<?x2x?x8xf32>
}

// -----

// A reader that would see rounded values it did not ask for: an error
// that names it, and nothing changes.
module attributes {tfm.precision = bf16} {
func.func @other_reader(%k: tensor<?x2x1x8xf32>, %off: tensor<?xi32>, %cache: tensor<?x2x?x8xf32>) -> (tensor<?x2x?x8xf32>, f32) {
  %c = tfm.cache_append %k into %cache offsets(%off) lengths(%off) : tensor<?x2x1x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x?x8xf32>
  %i0 = arith.constant 0 : index
  // expected-error @+1 {{'tensor.extract' op reads the KV cache argument 2 of @other_reader, which -tfm-narrow-kv-cache stores in 'bf16': only tfm.cache_append, tensor.extract_slice, tfm.attention (keys, values), tensor.dim and func.return may}}
  %x = tensor.extract %c[%i0, %i0, %i0, %i0] : tensor<?x2x?x8xf32>
  return %c, %x : tensor<?x2x?x8xf32>, f32
}
}
