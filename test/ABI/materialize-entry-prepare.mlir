// RUN: tfm-opt %s -tfm-materialize-entry -split-input-file -verify-diagnostics -allow-unregistered-dialect | FileCheck %s

// The file weights take the first slots in order of first appearance, the
// entry's first (b: 0, w: 1), the prepared tensor the next (2).
// @tfm_prepare reads slot 1 and writes slot 2; the entry reads slots 2 and
// 0. Both carry the table as their first argument.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.prepared = [{name = "w:packed[n=1,panel=4]", shape = [2, 3, 4]}]
// CHECK-SAME: tfm.weights = [{name = "b", shape = [8]}, {name = "w", shape = [3, 8]}]
// CHECK: func.func @tfm_prepare(%[[PT:.*]]: !llvm.ptr) attributes {llvm.emit_c_interface, tfm.prepare}
// CHECK: llvm.getelementptr %[[PT]][1]
// CHECK: %[[WM:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<3x8xf32>
// CHECK: %[[W:.*]] = bufferization.to_tensor %[[WM]] restrict : memref<3x8xf32> to tensor<3x8xf32>
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3x2x4xf32>)
// CHECK: llvm.getelementptr %[[PT]][2]
// CHECK: %[[DST:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<2x3x4xf32>
// CHECK: bufferization.materialize_in_destination %[[P]] in restrict writable %[[DST]] : (tensor<2x3x4xf32>, memref<2x3x4xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func @forward(%[[T:.*]]: !llvm.ptr, %{{.*}}: tensor<?x?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?xi32> {bufferization.writable = false}, %{{.*}}: memref<?x?x8xf32>)
// CHECK: llvm.getelementptr %[[T]][2]
// CHECK: bufferization.to_tensor %{{.*}} restrict : memref<2x3x4xf32>
// CHECK: llvm.getelementptr %[[T]][0]
// CHECK-NOT: llvm.getelementptr %[[T]][1]
// CHECK: "test.use"
// CHECK: \22weights\22:[{\22name\22:\22b\22,\22shape\22:[8]},{\22name\22:\22w\22,\22shape\22:[3,8]}],\22prepared\22:[{\22name\22:\22w:packed[n=1,panel=4]\22,\22shape\22:[2,3,4]}]}\00")
#in_out = affine_map<(d0, d1, d2) -> (d1, d0, d2)>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
module attributes {tfm.model_name = "tiny", tfm.architecture = "decoder", tfm.vocab_size = 8 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @tfm_prepare() -> (tensor<2x3x4xf32> {tfm.name = "w:packed[n=1,panel=4]"}) attributes {tfm.prepare} {
    %w = tfm.weight "w" : tensor<3x8xf32>
    %w3 = tensor.expand_shape %w [[0], [1, 2]] output_shape [3, 2, 4] : tensor<3x8xf32> into tensor<3x2x4xf32>
    %e = tensor.empty() : tensor<2x3x4xf32>
    %p = linalg.generic {indexing_maps = [#in_out, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%w3 : tensor<3x2x4xf32>) outs(%e : tensor<2x3x4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<2x3x4xf32>
    return %p : tensor<2x3x4xf32>
  }
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x8xf32> attributes {tfm.entry} {
    %p = tfm.weight "w:packed[n=1,panel=4]" prepared : tensor<2x3x4xf32>
    %b = tfm.weight "b" : tensor<8xf32>
    %r = "test.use"(%ids, %p, %b) : (tensor<?x?xi32>, tensor<2x3x4xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
    return %r : tensor<?x?x8xf32>
  }
}

// -----

// Without prepared tensors, an empty @tfm_prepare (every library exports it).
// CHECK-LABEL: module attributes {tfm.architecture = "kernel", tfm.prepared = [], tfm.weights = []}
// CHECK: func.func @tfm_prepare(%{{.*}}: !llvm.ptr) attributes {llvm.emit_c_interface, tfm.prepare} {
// CHECK-NEXT: return
module attributes {tfm.architecture = "kernel"} {
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    // expected-error @+1 {{prepared weight 'p' is not computed by @tfm_prepare}}
    %p = tfm.weight "p" prepared : tensor<4xf32>
    return %p : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  func.func @tfm_prepare() -> (tensor<4xf32> {tfm.name = "p"}) attributes {tfm.prepare} {
    %w = tfm.weight "w" : tensor<4xf32>
    return %w : tensor<4xf32>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<2x2xf32> attributes {tfm.entry} {
    // expected-error @+1 {{prepared weight 'p' is used as 'tensor<2x2xf32>'; @tfm_prepare computes 'tensor<4xf32>'}}
    %p = tfm.weight "p" prepared : tensor<2x2xf32>
    return %p : tensor<2x2xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  // expected-error @+1 {{@tfm_prepare is reserved for the function made by -tfm-outline-prepare (attribute 'tfm.prepare')}}
  func.func @tfm_prepare() {
    return
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  func.func @tfm_prepare() -> (tensor<4xf32> {tfm.name = "p"}) attributes {tfm.prepare} {
    // expected-error @+1 {{'tfm.weight' op reads the prepared weight 'q' inside @tfm_prepare, which computes the prepared weights}}
    %w = tfm.weight "q" prepared : tensor<4xf32>
    return %w : tensor<4xf32>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  // expected-error @+1 {{result 0 of @tfm_prepare has no 'tfm.name' (the prepared tensor's name)}}
  func.func @tfm_prepare() -> tensor<4xf32> attributes {tfm.prepare} {
    %w = tfm.weight "w" : tensor<4xf32>
    return %w : tensor<4xf32>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  // expected-error @+1 {{@tfm_prepare must have a body and no arguments}}
  func.func private @tfm_prepare() attributes {tfm.prepare}
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  // expected-error @+1 {{prepared tensor 'p' must have a static f32, bf16 or f16 shape, got 'tensor<4xf64>'}}
  func.func @tfm_prepare() -> (tensor<4xf64> {tfm.name = "p"}) attributes {tfm.prepare} {
    %w = tfm.weight "w" : tensor<4xf32>
    %e = tensor.empty() : tensor<4xf64>
    %d = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>], iterator_types = ["parallel"]} ins(%w : tensor<4xf32>) outs(%e : tensor<4xf64>) {
    ^bb0(%a: f32, %b: f64):
      %x = arith.extf %a : f32 to f64
      linalg.yield %x : f64
    } -> tensor<4xf64>
    return %d : tensor<4xf64>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  // expected-error @+1 {{prepared tensor 'p' is returned twice}}
  func.func @tfm_prepare() -> (tensor<4xf32> {tfm.name = "p"}, tensor<4xf32> {tfm.name = "p"}) attributes {tfm.prepare} {
    %w = tfm.weight "w" : tensor<4xf32>
    return %w, %w : tensor<4xf32>, tensor<4xf32>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %x : tensor<4xf32>
  }
}

// -----

module attributes {tfm.architecture = "kernel"} {
  func.func @tfm_prepare() -> (tensor<4xf32> {tfm.name = "w"}) attributes {tfm.prepare} {
    %e = tensor.empty() : tensor<4xf32>
    return %e : tensor<4xf32>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    // expected-error @+1 {{'tfm.weight' op weight 'w' is also the name of a prepared tensor}}
    %w = tfm.weight "w" : tensor<4xf32>
    return %w : tensor<4xf32>
  }
}

// -----

// A prepared tensor is read in the type @tfm_prepare computes it in (f32,
// or a 16-bit layout such as -tfm-pack-amx's).
module attributes {tfm.architecture = "kernel"} {
  func.func @tfm_prepare() -> (tensor<4xf32> {tfm.name = "p"}) attributes {tfm.prepare} {
    %w = tfm.weight "w" : tensor<4xf32>
    return %w : tensor<4xf32>
  }
  func.func @kernel(%x: tensor<4xf32>) -> tensor<4xbf16> attributes {tfm.entry} {
    // expected-error @+1 {{prepared weight 'p' is used as 'tensor<4xbf16>'; @tfm_prepare computes 'tensor<4xf32>'}}
    %p = tfm.weight "p" prepared : tensor<4xbf16>
    return %p : tensor<4xbf16>
  }
}
