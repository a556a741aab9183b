// RUN: tfm-opt %s -tfm-outline-prepare -split-input-file -verify-diagnostics -allow-unregistered-dialect | FileCheck %s

// The marked copies move into @tfm_prepare, which returns them in order
// with their names; the entry reads them as prepared weights. A weight the
// entry still reads (emb, gathered) stays; one only the copy read (w) goes.
// CHECK-LABEL: func.func @tfm_prepare() -> (tensor<2x3x4xf32> {tfm.name = "w:packed[n=1,panel=4]"}, tensor<2x3x4xf32> {tfm.name = "emb:packed[n=0,panel=4]"}) attributes {tfm.prepare}
// CHECK-NEXT: %[[W:.*]] = tfm.weight "w" : tensor<3x8xf32>
// CHECK-NEXT: %[[W3:.*]] = tensor.expand_shape %[[W]]
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = linalg.generic {{.*}} ins(%[[W3]] : tensor<3x2x4xf32>) outs(%[[E]] : tensor<2x3x4xf32>) {
// CHECK: %[[T:.*]] = tfm.weight "emb" : tensor<8x3xf32>
// CHECK: %[[Q:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x4x3xf32>)
// CHECK: return %[[P]], %[[Q]] : tensor<2x3x4xf32>, tensor<2x3x4xf32>
// CHECK-LABEL: func.func @forward
// CHECK-NEXT: %[[PW:.*]] = tfm.weight "w:packed[n=1,panel=4]" prepared : tensor<2x3x4xf32>
// CHECK-NEXT: %[[EMB:.*]] = tfm.weight "emb" : tensor<8x3xf32>
// CHECK-NEXT: %[[PE:.*]] = tfm.weight "emb:packed[n=0,panel=4]" prepared : tensor<2x3x4xf32>
// CHECK-NEXT: tfm.embedding %{{.*}}, %[[EMB]]
// CHECK-NOT: tfm.prepare
// CHECK-NOT: tfm.weight "w" :
// CHECK: return %[[PW]], %[[PE]]
#in_out = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#out_in = affine_map<(d0, d1, d2) -> (d0, d2, d1)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @forward(%ids: tensor<?x?xi32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<?x?x3xf32>) attributes {tfm.entry} {
  %w = tfm.weight "w" : tensor<3x8xf32>
  %w3 = tensor.expand_shape %w [[0], [1, 2]] output_shape [3, 2, 4] : tensor<3x8xf32> into tensor<3x2x4xf32>
  %e = tensor.empty() : tensor<2x3x4xf32>
  %p = linalg.generic {indexing_maps = [#in_out, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w3 : tensor<3x2x4xf32>) outs(%e : tensor<2x3x4xf32>) attrs = {tfm.prepare = "w:packed[n=1,panel=4]"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x4xf32>
  %t = tfm.weight "emb" : tensor<8x3xf32>
  %t3 = tensor.expand_shape %t [[0, 1], [2]] output_shape [2, 4, 3] : tensor<8x3xf32> into tensor<2x4x3xf32>
  %q = linalg.generic {indexing_maps = [#out_in, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%t3 : tensor<2x4x3xf32>) outs(%e : tensor<2x3x4xf32>) attrs = {tfm.prepare = "emb:packed[n=0,panel=4]"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<2x3x4xf32>
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<8x3xf32>) -> tensor<?x?x3xf32>
  return %p, %q, %x : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<?x?x3xf32>
}

// -----

// Two entry functions (the forward pass and the generation step) mark the
// same prepared tensor: @tfm_prepare computes it once, from the first
// function's copy, and returns it once; both functions read the prepared
// weight. The second function's copy and the producers only it read
// (expand_shape, empty) go; its weight "w", still read by "test.use",
// stays. A name only the second function marks (v:neg) is outlined from
// that function.
// CHECK-LABEL: func.func @tfm_prepare() -> (tensor<2x3x4xf32> {tfm.name = "w:packed[n=1,panel=4]"}, tensor<4xf32> {tfm.name = "v:neg"}) attributes {tfm.prepare}
// CHECK-NEXT: %[[W:.*]] = tfm.weight "w" : tensor<3x8xf32>
// CHECK-NEXT: %[[W3:.*]] = tensor.expand_shape %[[W]]
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<2x3x4xf32>
// CHECK-NEXT: %[[P:.*]] = linalg.generic {{.*}} ins(%[[W3]] : tensor<3x2x4xf32>) outs(%[[E]] : tensor<2x3x4xf32>) {
// CHECK: } -> tensor<2x3x4xf32>
// CHECK-NOT: tfm.weight "w"
// CHECK-NEXT: %[[V:.*]] = tfm.weight "v" : tensor<4xf32>
// CHECK-NEXT: %[[EV:.*]] = tensor.empty() : tensor<4xf32>
// CHECK-NEXT: %[[Q:.*]] = linalg.generic {{.*}} ins(%[[V]] : tensor<4xf32>) outs(%[[EV]] : tensor<4xf32>) {
// CHECK: arith.negf
// CHECK: return %[[P]], %[[Q]] : tensor<2x3x4xf32>, tensor<4xf32>
// CHECK-NEXT: }
// CHECK-LABEL: func.func @forward
// CHECK-NEXT: %[[FP:.*]] = tfm.weight "w:packed[n=1,panel=4]" prepared : tensor<2x3x4xf32>
// CHECK-NEXT: %[[FE:.*]] = tfm.weight "emb" : tensor<8x3xf32>
// CHECK-NEXT: tfm.embedding %{{.*}}, %[[FE]]
// CHECK-NEXT: return %[[FP]],
// CHECK-LABEL: func.func @step
// CHECK-NEXT: %[[SW:.*]] = tfm.weight "w" : tensor<3x8xf32>
// CHECK-NEXT: %[[SP:.*]] = tfm.weight "w:packed[n=1,panel=4]" prepared : tensor<2x3x4xf32>
// CHECK-NEXT: %[[SV:.*]] = tfm.weight "v:neg" prepared : tensor<4xf32>
// CHECK-NEXT: "test.use"(%[[SW]]) : (tensor<3x8xf32>) -> ()
// CHECK-NEXT: return %[[SP]], %[[SV]] : tensor<2x3x4xf32>, tensor<4xf32>
// CHECK-NOT: tfm.prepare
#in_out = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#id1 = affine_map<(d0) -> (d0)>
module {
  func.func @forward(%ids: tensor<?x?xi32>) -> (tensor<2x3x4xf32>, tensor<?x?x3xf32>) attributes {tfm.entry} {
    %w = tfm.weight "w" : tensor<3x8xf32>
    %w3 = tensor.expand_shape %w [[0], [1, 2]] output_shape [3, 2, 4] : tensor<3x8xf32> into tensor<3x2x4xf32>
    %e = tensor.empty() : tensor<2x3x4xf32>
    %p = linalg.generic {indexing_maps = [#in_out, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w3 : tensor<3x2x4xf32>) outs(%e : tensor<2x3x4xf32>) attrs = {tfm.prepare = "w:packed[n=1,panel=4]"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x4xf32>
    %t = tfm.weight "emb" : tensor<8x3xf32>
    %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<8x3xf32>) -> tensor<?x?x3xf32>
    return %p, %x : tensor<2x3x4xf32>, tensor<?x?x3xf32>
  }
  func.func @step(%ids: tensor<?x?xi32>) -> (tensor<2x3x4xf32>, tensor<4xf32>) attributes {tfm.entry} {
    %w = tfm.weight "w" : tensor<3x8xf32>
    %w3 = tensor.expand_shape %w [[0], [1, 2]] output_shape [3, 2, 4] : tensor<3x8xf32> into tensor<3x2x4xf32>
    %e = tensor.empty() : tensor<2x3x4xf32>
    %p = linalg.generic {indexing_maps = [#in_out, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w3 : tensor<3x2x4xf32>) outs(%e : tensor<2x3x4xf32>) attrs = {tfm.prepare = "w:packed[n=1,panel=4]"} {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x4xf32>
    %v = tfm.weight "v" : tensor<4xf32>
    %ev = tensor.empty() : tensor<4xf32>
    %q = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%ev : tensor<4xf32>) attrs = {tfm.prepare = "v:neg"} {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<4xf32>
    "test.use"(%w) : (tensor<3x8xf32>) -> ()
    return %p, %q : tensor<2x3x4xf32>, tensor<4xf32>
  }
}

// -----

// Nothing marked: nothing made.
// CHECK-LABEL: func.func @plain
// CHECK-NOT: tfm_prepare
func.func @plain(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
  return %x : tensor<4xf32>
}

// -----

func.func @reads_input(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.generic' op is marked 'tfm.prepare' but depends on an input of the entry function, not on weights alone}}
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) attrs = {tfm.prepare = "x2"} {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @not_in_entry() -> tensor<4xf32> {
  %w = tfm.weight "w" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.copy' op is marked 'tfm.prepare' but is not at the top level of a 'tfm.entry' function}}
  %p = linalg.copy {tfm.prepare = "w2"} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @dynamic(%n: index) -> tensor<?xf32> attributes {tfm.entry} {
  %w = tfm.weight "w" : tensor<4xf32>
  %c = tensor.cast %w : tensor<4xf32> to tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  // expected-error @+1 {{'linalg.copy' op is marked 'tfm.prepare' but does not have one statically shaped tensor result}}
  %p = linalg.copy {tfm.prepare = "w2"} ins(%c : tensor<?xf32>) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %p : tensor<?xf32>
}

// -----

func.func @two_types() -> (tensor<4xf32>, tensor<2x2xf32>) attributes {tfm.entry} {
  %w = tfm.weight "w" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.copy {tfm.prepare = "w2"} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %v = tfm.weight "v" : tensor<2x2xf32>
  %f = tensor.empty() : tensor<2x2xf32>
  // expected-error @+1 {{'linalg.copy' op computes the prepared tensor 'w2' as 'tensor<2x2xf32>'; another op computes it as 'tensor<4xf32>'}}
  %q = linalg.copy {tfm.prepare = "w2"} ins(%v : tensor<2x2xf32>) outs(%f : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %p, %q : tensor<4xf32>, tensor<2x2xf32>
}

// -----

// A value the body reads from outside (an entry input) is not a weight.
func.func @reads_input_in_body(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> attributes {tfm.entry} {
  %w = tfm.weight "w" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.generic' op is marked 'tfm.prepare' but depends on an input of the entry function, not on weights alone}}
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) attrs = {tfm.prepare = "w:scaled"} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

// A weight-derived value the body reads from outside is cloned with it.
// CHECK-LABEL: func.func @tfm_prepare() -> (tensor<4xf32> {tfm.name = "w:scaled"})
// CHECK: %[[V:.*]] = tfm.weight "v" : tensor<1xf32>
// CHECK: %[[S:.*]] = tensor.extract %[[V]]
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[S]]
// CHECK-LABEL: func.func @body_reads_weight
func.func @body_reads_weight(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
  %c0 = arith.constant 0 : index
  %v = tfm.weight "v" : tensor<1xf32>
  %s = tensor.extract %v[%c0] : tensor<1xf32>
  %w = tfm.weight "w" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) attrs = {tfm.prepare = "w:scaled"} {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %s : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @empty_name() -> tensor<4xf32> attributes {tfm.entry} {
  %w = tfm.weight "w" : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.copy' op 'tfm.prepare' must be a non-empty string (the prepared tensor's name)}}
  %p = linalg.copy {tfm.prepare = ""} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @reads_prepared() -> tensor<4xf32> attributes {tfm.entry} {
  %w = tfm.weight "w:packed" prepared : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.copy' op is marked 'tfm.prepare' but reads the prepared weight 'w:packed'}}
  %p = linalg.copy {tfm.prepare = "w2"} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

func.func @side_effects() -> tensor<4xf32> attributes {tfm.entry} {
  %t = "test.source"() : () -> tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-error @+1 {{'linalg.copy' op is marked 'tfm.prepare' but reads 'test.source', which has side effects}}
  %p = linalg.copy {tfm.prepare = "t2"} ins(%t : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  return %p : tensor<4xf32>
}

// -----

// expected-error @+1 {{a symbol named 'tfm_prepare' exists already; -tfm-outline-prepare makes it}}
module {
  func.func private @tfm_prepare()
  func.func @taken() -> tensor<4xf32> attributes {tfm.entry} {
    %w = tfm.weight "w" : tensor<4xf32>
    %e = tensor.empty() : tensor<4xf32>
    %p = linalg.copy {tfm.prepare = "w2"} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    return %p : tensor<4xf32>
  }
}
