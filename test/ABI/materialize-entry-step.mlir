// RUN: tfm-opt %s -tfm-materialize-entry -split-input-file -verify-diagnostics -allow-unregistered-dialect | FileCheck %s

// The generation step @step beside the main entry @forward: both receive the
// weights table first and read the same slots (embed.tokens: 0,
// final_norm.weight: 1). The step's KV cache argument (tfm.inout = 1: result
// 1 is its new value) becomes a memref, read through a restrict writable
// to_tensor and written back in place by materialize_in_destination; the
// logits (result 0) go to the trailing out-param. The manifest describes
// @forward and adds the cache's layers, K/V heads and head size from the
// step's tensor<?x3x2x2x?x8xf32>.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.weights = [{name = "embed.tokens", shape = [16, 4]}, {name = "final_norm.weight", shape = [4]}]
// CHECK: func.func @tfm_prepare(%{{.*}}: !llvm.ptr) attributes {llvm.emit_c_interface, tfm.prepare}
// CHECK: func.func @forward(%[[FT:.*]]: !llvm.ptr, %{{.*}}: tensor<?x?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?xi32> {bufferization.writable = false}, %[[FOUT:.*]]: memref<?x?x16xf32>)
// CHECK-SAME: attributes {llvm.emit_c_interface, tfm.entry}
// CHECK: llvm.getelementptr %[[FT]][0]
// CHECK: %[[FL:.*]] = tfm.lm_head
// CHECK: bufferization.materialize_in_destination %[[FL]] in restrict writable %[[FOUT]] : (tensor<?x?x16xf32>, memref<?x?x16xf32>) -> ()
// CHECK-NEXT: return
// CHECK: func.func @step(%[[ST:.*]]: !llvm.ptr, %[[IDS:.*]]: tensor<?x?xi32> {bufferization.writable = false}, %[[OFFS:.*]]: tensor<?xi32> {bufferization.writable = false}, %[[LENS:.*]]: tensor<?xi32> {bufferization.writable = false}, %[[CACHE:.*]]: memref<?x3x2x2x?x8xf32>, %[[OUT:.*]]: memref<?x16xf32>)
// CHECK-SAME: attributes {llvm.emit_c_interface, tfm.entry}
// CHECK-NOT: tfm.inout
// CHECK-NEXT: %[[CT:.*]] = bufferization.to_tensor %[[CACHE]] restrict writable : memref<?x3x2x2x?x8xf32> to tensor<?x3x2x2x?x8xf32>
// CHECK: llvm.getelementptr %[[ST]][0]
// CHECK: %[[TOK:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<16x4xf32> to tensor<16x4xf32>
// CHECK: llvm.getelementptr %[[ST]][1]
// CHECK: %[[NORM:.*]] = bufferization.to_tensor %{{.*}} restrict : memref<4xf32> to tensor<4xf32>
// CHECK: %[[X:.*]] = tfm.embedding %[[IDS]], %[[TOK]]
// CHECK: %[[K:.*]] = "test.keys"(%[[X]])
// CHECK: %[[NEW:.*]] = tfm.cache_append %[[K]] into %[[CT]] offsets(%[[OFFS]]) lengths(%[[LENS]]) {index = array<i64: 1, 0>}
// CHECK: tfm.rms_norm %[[X]], %[[NORM]]
// CHECK: %[[LOGITS:.*]] = tfm.classifier_head %{{.*}} lengths(%[[LENS]]) classifier(%[[TOK]]) <last>
// CHECK-NEXT: bufferization.materialize_in_destination %[[LOGITS]] in restrict writable %[[OUT]] : (tensor<?x16xf32>, memref<?x16xf32>) -> ()
// CHECK-NEXT: bufferization.materialize_in_destination %[[NEW]] in restrict writable %[[CACHE]] : (tensor<?x3x2x2x?x8xf32>, memref<?x3x2x2x?x8xf32>) -> ()
// CHECK-NEXT: return
// CHECK-NOT: tfm.weight
// CHECK: llvm.mlir.global external constant @tfm_model_manifest("{\22format\22:\22tfm-manifest/1\22,\22model_name\22:\22tiny\22,\22architecture\22:\22decoder\22,\22vocab_size\22:16,\22max_seq_len\22:8,\22output\22:\22logits\22,\22output_dims\22:[16],\22inputs\22:[\22ids\22,\22lengths\22,\22positions\22],\22weights\22:[{\22name\22:\22embed.tokens\22,\22shape\22:[16,4]},{\22name\22:\22final_norm.weight\22,\22shape\22:[4]}],\22kv_cache\22:{\22layers\22:3,\22kv_heads\22:2,\22head_dim\22:8}}\00")
module attributes {tfm.model_name = "tiny", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %e = tfm.weight "embed.tokens" : tensor<16x4xf32>
    %x = tfm.embedding %ids, %e : (tensor<?x?xi32>, tensor<16x4xf32>) -> tensor<?x?x4xf32>
    %l = tfm.lm_head %x, %e {tied} : (tensor<?x?x4xf32>, tensor<16x4xf32>) -> tensor<?x?x16xf32>
    return %l : tensor<?x?x16xf32>
  }
  func.func @step(%ids: tensor<?x?xi32>, %offsets: tensor<?xi32>, %lengths: tensor<?xi32>, %cache: tensor<?x3x2x2x?x8xf32> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x3x2x2x?x8xf32>) attributes {tfm.entry} {
    %e = tfm.weight "embed.tokens" : tensor<16x4xf32>
    %x = tfm.embedding %ids, %e : (tensor<?x?xi32>, tensor<16x4xf32>) -> tensor<?x?x4xf32>
    %k = "test.keys"(%x) : (tensor<?x?x4xf32>) -> tensor<?x2x?x8xf32>
    %c = tfm.cache_append %k into %cache offsets(%offsets) lengths(%lengths) {index = array<i64: 1, 0>} : tensor<?x2x?x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x2x?x8xf32>
    %g = tfm.weight "final_norm.weight" : tensor<4xf32>
    %n = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x?x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
    %logits = tfm.classifier_head %n lengths(%lengths) classifier(%e) <last> : (tensor<?x?x4xf32>, tensor<?xi32>, tensor<16x4xf32>) -> tensor<?x16xf32>
    return %logits, %c : tensor<?x16xf32>, tensor<?x3x2x2x?x8xf32>
  }
}

// -----

// The in-out result may come first: the cache is result 0, the logits
// result 1; every return writes each value into its own buffer.
// CHECK-LABEL: module attributes
// CHECK: func.func @step(%{{.*}}: !llvm.ptr, %[[CACHE:.*]]: memref<?x1x2x1x?x4xf32>, %{{.*}}: tensor<?x?xi32> {bufferization.writable = false}, %[[OUT:.*]]: memref<?x16xf32>)
// CHECK-NEXT: %[[CT:.*]] = bufferization.to_tensor %[[CACHE]] restrict writable : memref<?x1x2x1x?x4xf32> to tensor<?x1x2x1x?x4xf32>
// CHECK: %[[L:.*]] = "test.logits"(%[[CT]]
// CHECK-NEXT: bufferization.materialize_in_destination %[[CT]] in restrict writable %[[CACHE]]
// CHECK-NEXT: bufferization.materialize_in_destination %[[L]] in restrict writable %[[OUT]]
// CHECK-NEXT: return
// CHECK: \22kv_cache\22:{\22layers\22:1,\22kv_heads\22:1,\22head_dim\22:4}}\00"
module attributes {tfm.model_name = "tiny", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  func.func @step(%cache: tensor<?x1x2x1x?x4xf32> {tfm.inout = 0 : i64}, %ids: tensor<?x?xi32>) -> (tensor<?x1x2x1x?x4xf32>, tensor<?x16xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%cache, %ids) : (tensor<?x1x2x1x?x4xf32>, tensor<?x?xi32>) -> tensor<?x16xf32>
    return %cache, %l : tensor<?x1x2x1x?x4xf32>, tensor<?x16xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{argument 1's 'tfm.inout' names result 2, which is not a result or is taken by another argument}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf32> {tfm.inout = 2 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{argument 1's 'tfm.inout' names result -1, which is not a result or is taken by another argument}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf32> {tfm.inout = -1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>
  }
}

// -----

// Two arguments cannot both be written into result 1.
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{argument 2's 'tfm.inout' names result 1, which is not a result or is taken by another argument}}
  func.func @step(%ids: tensor<?x?xi32>, %a: tensor<?x1x2x1x?x4xf32> {tfm.inout = 1 : i64}, %b: tensor<?x1x2x1x?x4xf32> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %a : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{argument 1 ('tensor<?x1x2x1x?x4xf32>') and its in-out result 1 ('tensor<?x1x2x1x?x8xf32>') differ in type}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf32> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x8xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    %c = "test.cache"(%cache) : (tensor<?x1x2x1x?x4xf32>) -> tensor<?x1x2x1x?x8xf32>
    return %l, %c : tensor<?x16xf32>, tensor<?x1x2x1x?x8xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{entry function must return exactly one tensor besides its in-out arguments' new values, returns 2}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf32>) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>
  }
}

// -----

// The in-out argument's new value alone: no output left.
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{entry function must return exactly one tensor besides its in-out arguments' new values, returns 0}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf32> {tfm.inout = 0 : i64}) -> tensor<?x1x2x1x?x4xf32> attributes {tfm.entry} {
    return %cache : tensor<?x1x2x1x?x4xf32>
  }
}

// -----

// The main entry (checked like the step) has no in-out arguments.
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  // expected-error @+1 {{the main entry has no in-out arguments (only @step has)}}
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32> {tfm.inout = 1 : i64}, %positions: tensor<?xi32>) -> (tensor<?x?x16xf32>, tensor<?xi32>) attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r, %lengths : tensor<?x?x16xf32>, tensor<?xi32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{more than one function is marked 'tfm.entry' (the first is @forward; only @step}}
  func.func @generate(%ids: tensor<?x?xi32>) -> tensor<?x16xf32> attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l : tensor<?x16xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  // expected-error @+1 {{@step needs the model's main entry beside it}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf32> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf32>
  }
}

// -----

// The manifest's KV cache is [B, layers, 2, kv_heads, C, head_dim] of f32
// or of the module's 16-bit precision.
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{the KV cache argument must be tensor<?xLx2xHx?xDxT>, T f32 or the module's precision, got 'tensor<?x1x3x1x?x4xf32>'}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x3x1x?x4xf32> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x3x1x?x4xf32>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x3x1x?x4xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{the KV cache argument must be tensor<?xLx2xHx?xDxT>, T f32 or the module's precision, got 'tensor<?x1x2x1x?x4xf16>'}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf16> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf16>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf16>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits", tfm.precision = bf16} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{the KV cache argument must be tensor<?xLx2xHx?xDxT>, T f32 or the module's precision, got 'tensor<?x1x2x1x?x4xf16>'}}
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xf16> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xf16>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xf16>
  }
}

// -----

// A cache in the module's precision (-tfm-narrow-kv-cache): the step takes
// a bf16 memref, and the manifest says "storage":"bf16".
// CHECK-LABEL: module attributes
// CHECK: func.func @step(%{{.*}}: !llvm.ptr, %{{.*}}: tensor<?x?xi32> {bufferization.writable = false}, %{{.*}}: memref<?x1x2x1x?x4xbf16>, %{{.*}}: memref<?x16xf32>)
// CHECK: \22kv_cache\22:{\22layers\22:1,\22kv_heads\22:1,\22head_dim\22:4,\22storage\22:\22bf16\22}}\00"
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits", tfm.precision = bf16} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  func.func @step(%ids: tensor<?x?xi32>, %cache: tensor<?x1x2x1x?x4xbf16> {tfm.inout = 1 : i64}) -> (tensor<?x16xf32>, tensor<?x1x2x1x?x4xbf16>) attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l, %cache : tensor<?x16xf32>, tensor<?x1x2x1x?x4xbf16>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %r = "test.forward"(%ids) : (tensor<?x?xi32>) -> tensor<?x?x16xf32>
    return %r : tensor<?x?x16xf32>
  }
  // expected-error @+1 {{@step has no KV cache argument ('tfm.inout')}}
  func.func @step(%ids: tensor<?x?xi32>) -> tensor<?x16xf32> attributes {tfm.entry} {
    %l = "test.logits"(%ids) : (tensor<?x?xi32>) -> tensor<?x16xf32>
    return %l : tensor<?x16xf32>
  }
}
