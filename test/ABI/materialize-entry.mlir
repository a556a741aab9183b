// RUN: tfm-opt %s -tfm-materialize-entry -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.weights = [{name = "embed.tokens", shape = [16, 4]}, {name = "final_norm.weight", shape = [4]}]
// CHECK: func.func @forward(%[[TABLE:.*]]: !llvm.ptr, %[[IDS:.*]]: tensor<?x?xi32> {bufferization.writable = false}, %[[LEN:.*]]: tensor<?xi32> {bufferization.writable = false}, %[[POS:.*]]: tensor<?xi32> {bufferization.writable = false}, %[[OUT:.*]]: memref<?x?x16xf32>)
// CHECK-SAME: attributes {llvm.emit_c_interface, tfm.entry}
// Slot 0: a 16x4 descriptor {data, data, 0, [16, 4], [4, 1]}.
// CHECK: %[[P0:.*]] = llvm.getelementptr %[[TABLE]][0] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.load %[[P0]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.insertvalue %[[D0]], %{{.*}}[0]
// CHECK: llvm.insertvalue %[[D0]], %{{.*}}[1]
// CHECK: %[[M0:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<16x4xf32>
// CHECK: %[[T0:.*]] = bufferization.to_tensor %[[M0]] restrict : memref<16x4xf32> to tensor<16x4xf32>
// Slot 1.
// CHECK: llvm.getelementptr %[[TABLE]][1]
// CHECK: %[[M1:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<4xf32>
// CHECK: %[[T1:.*]] = bufferization.to_tensor %[[M1]] restrict
// Both uses of embed.tokens (tied) read slot 0.
// CHECK: tfm.embedding %[[IDS]], %[[T0]]
// CHECK: tfm.rms_norm %{{.*}}, %[[T1]]
// CHECK: %[[R:.*]] = tfm.lm_head %{{.*}}, %[[T0]]
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]] : (tensor<?x?x16xf32>, memref<?x?x16xf32>) -> ()
// CHECK-NEXT: return
// CHECK-NOT: tfm.weight
// CHECK: llvm.mlir.global external constant @tfm_model_manifest("{\22format\22:\22tfm-manifest/1\22,\22model_name\22:\22tiny\22,\22architecture\22:\22decoder\22,\22vocab_size\22:16,\22max_seq_len\22:8,\22output\22:\22logits\22,\22output_dims\22:[16],\22inputs\22:[\22ids\22,\22lengths\22,\22positions\22],\22weights\22:[{\22name\22:\22embed.tokens\22,\22shape\22:[16,4]},{\22name\22:\22final_norm.weight\22,\22shape\22:[4]}]}\00")
module attributes {tfm.model_name = "tiny", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %e = tfm.weight "embed.tokens" : tensor<16x4xf32>
    %x = tfm.embedding %ids, %e : (tensor<?x?xi32>, tensor<16x4xf32>) -> tensor<?x?x4xf32>
    %g = tfm.weight "final_norm.weight" : tensor<4xf32>
    %n = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x?x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
    %e2 = tfm.weight "embed.tokens" : tensor<16x4xf32>
    %l = tfm.lm_head %n, %e2 {tied} : (tensor<?x?x4xf32>, tensor<16x4xf32>) -> tensor<?x?x16xf32>
    return %l : tensor<?x?x16xf32>
  }
}

// -----

// Encoder-decoder inputs and a classifier output.
// CHECK-LABEL: module attributes
// CHECK: func.func @forward(%{{.*}}: !llvm.ptr, %{{.*}}: tensor<?x?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?x?xi32> {bufferization.writable = false}, %{{.*}}: tensor<?xi32> {bufferization.writable = false}, %{{.*}}: memref<?x3xf32>)
// CHECK: \22output_dims\22:[3],\22inputs\22:[\22src\22,\22src_lengths\22,\22tgt\22,\22tgt_lengths\22],\22weights\22:[]}\00"
module attributes {tfm.model_name = "s2s", tfm.architecture = "encoder_decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "classes"} {
  func.func @forward(%a: tensor<?x?xi32>, %b: tensor<?xi32>, %c: tensor<?x?xi32>, %d: tensor<?xi32>) -> tensor<?x3xf32> attributes {tfm.entry} {
    %cst = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?x?xi32>
    %e = tensor.empty(%n) : tensor<?x3xf32>
    %f = linalg.fill ins(%cst : f32) outs(%e : tensor<?x3xf32>) -> tensor<?x3xf32>
    return %f : tensor<?x3xf32>
  }
}

// -----

// Without an entry function the pass does nothing.
// CHECK-LABEL: func.func @helper(%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
// CHECK-NOT: llvm.mlir.global
func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @helper() -> tensor<4xf32> {
    // expected-error @+1 {{is outside the 'tfm.entry' function; only the entry function (and @tfm_prepare) receives the weights table}}
    %w = tfm.weight "w" : tensor<4xf32>
    return %w : tensor<4xf32>
  }
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<4xf32> attributes {tfm.entry} {
    %w = func.call @helper() : () -> tensor<4xf32>
    return %w : tensor<4xf32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<4xf32> attributes {tfm.entry} {
    %a = tfm.weight "w" : tensor<4xf32>
    // expected-error @+1 {{weight 'w' is used as 'tensor<2x2xf32>' and as 'tensor<4xf32>'}}
    %b = tfm.weight "w" : tensor<2x2xf32>
    return %a : tensor<4xf32>
  }
}

// -----

// expected-error @+1 {{module attribute 'tfm.vocab_size' (integer) is missing; the manifest needs it}}
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?xi32> attributes {tfm.entry} {
    return %lengths : tensor<?xi32>
  }
}

// -----

module attributes {tfm.model_name = "m", tfm.architecture = "encoder_decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  // expected-error @+1 {{architecture 'encoder_decoder' needs 4 entry inputs, @forward takes 3}}
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?xi32> attributes {tfm.entry} {
    return %lengths : tensor<?xi32>
  }
}

// -----

// Any other architecture still needs a manifest's attributes.
// expected-error @+1 {{module attribute 'tfm.architecture' is 'kernels'; expected encoder, decoder or encoder_decoder (or kernel, for an entry without a manifest)}}
module attributes {tfm.model_name = "x", tfm.architecture = "kernels", tfm.vocab_size = 4 : i64, tfm.max_seq_len = 4 : i64, tfm.output = "hidden"} {
  func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> attributes {tfm.entry} {
    return %a : tensor<4xf32>
  }
}

// -----

// A 16-bit weight (the storage -tfm-apply-precision gives a GPU's rounded
// weights) reaches the manifest as "storage", next to its "round"; its
// slot is a bf16 descriptor.
// CHECK-LABEL: module attributes
// CHECK: builtin.unrealized_conversion_cast %{{.*}} to memref<16x4xbf16>
// CHECK: llvm.mlir.global external constant @tfm_model_manifest({{.*}}\22precision\22:\22bf16\22{{.*}}{\22name\22:\22w\22,\22shape\22:[16,4],\22round\22:\22bf16\22,\22storage\22:\22bf16\22}
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits", tfm.precision = bf16, tfm.rounded_weights = ["w"]} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %w = tfm.weight "w" : tensor<16x4xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %b = tensor.dim %ids, %c0 : tensor<?x?xi32>
    %t = tensor.dim %ids, %c1 : tensor<?x?xi32>
    %n = tensor.dim %w, %c0 : tensor<16x4xbf16>
    %o = tensor.empty(%b, %t) : tensor<?x?x16xf32>
    return %o : tensor<?x?x16xf32>
  }
}

// -----

// A 16-bit weight the runtime is not asked to round: it would bind f32.
// expected-error @+1 {{weight 'w' is stored as 'bf16' but the runtime is not asked to round it to that type (tfm.rounded_weights)}}
module attributes {tfm.model_name = "m", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %w = tfm.weight "w" : tensor<16x4xbf16>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %b = tensor.dim %ids, %c0 : tensor<?x?xi32>
    %t = tensor.dim %ids, %c1 : tensor<?x?xi32>
    %n = tensor.dim %w, %c0 : tensor<16x4xbf16>
    %o = tensor.empty(%b, %t) : tensor<?x?x16xf32>
    return %o : tensor<?x?x16xf32>
  }
}
