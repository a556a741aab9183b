// RUN: tfm-opt %s -tfm-set-target='vector-bits=512' -tfm-lower-to-llvm | FileCheck %s --implicit-check-not='{{(= |^ *)(arith|linalg|tensor|memref|scf|cf|math|func|bufferization|tfm|builtin)[.]}}'
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512' -tfm-lower-to-llvm | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=IR
// RUN: tfm-opt %s -tfm-set-target='vector-bits=512' -tfm-lower-to-llvm="fuse-elementwise=false" | FileCheck %s
//
// A small GPT-like decoder layer, as the frontend emits it (fused QKV sliced
// with tensor.extract_slice, RoPE, causal attention with padding, SwiGLU FFN,
// tied LM head), lowered all the way: only the llvm dialect may remain.
// The target is pinned (512-bit vectors): on the host's own, which weights
// are packed, and so the order of the weights table, follows its vector
// width (a 256-bit host packs the FFN's 16-column weights too).

// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.weights = [{name = "embed.tokens", shape = [16, 8]}, {name = "embed.positions", shape = [8, 8]}, {name = "layers.0.attn_norm.weight", shape = [8]}, {name = "layers.0.attn_norm.bias", shape = [8]}, {name = "layers.0.attn.qkv.weight", shape = [8, 24]}, {name = "layers.0.ffn.up.weight", shape = [16, 8]}, {name = "layers.0.ffn.gate.weight", shape = [16, 8]}, {name = "layers.0.ffn.down.weight", shape = [8, 16]}, {name = "final_norm.weight", shape = [8]}]
// The generated function: weights table, ids and lengths descriptors, then
// the output descriptor.
// CHECK: llvm.func @forward(%[[TABLE:[^:]*]]: !llvm.ptr,
// Every slot of the table is loaded (9 distinct names; embed.tokens is read
// twice but has one slot; slot 0's GEP folds away).
// CHECK-DAG: llvm.load %[[TABLE]] : !llvm.ptr -> !llvm.ptr
// CHECK-DAG: llvm.getelementptr %[[TABLE]][1] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-DAG: llvm.getelementptr %[[TABLE]][8] : (!llvm.ptr) -> !llvm.ptr, !llvm.ptr
// CHECK-NOT: llvm.getelementptr %[[TABLE]][9]
// CHECK: llvm.func @_mlir_ciface_forward(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// CHECK: llvm.mlir.global external constant @tfm_model_manifest("{\22format\22:\22tfm-manifest/1\22,\22model_name\22:\22tiny-gpt\22,\22architecture\22:\22decoder\22,\22vocab_size\22:16,\22max_seq_len\22:8,\22output\22:\22logits\22,\22output_dims\22:[16],\22inputs\22:[\22ids\22,\22lengths\22,\22positions\22],\22weights\22:[{\22name\22:\22embed.tokens\22,\22shape\22:[16,8]},

// IR: @tfm_model_manifest = constant [{{[0-9]+}} x i8] c"{\22format\22:\22tfm-manifest/1\22
// IR: define void @_mlir_ciface_forward(ptr %0, ptr %1, ptr %2, ptr %3, ptr %4)

module attributes {tfm.model_name = "tiny-gpt", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %emb = tfm.weight "embed.tokens" : tensor<16x8xf32>
    %pos = tfm.weight "embed.positions" : tensor<8x8xf32>
    %x0 = tfm.embedding %ids, %emb : (tensor<?x?xi32>, tensor<16x8xf32>) -> tensor<?x?x8xf32>
    %x = tfm.learned_position %x0, %pos : (tensor<?x?x8xf32>, tensor<8x8xf32>) -> tensor<?x?x8xf32>
    %g = tfm.weight "layers.0.attn_norm.weight" : tensor<8xf32>
    %bb = tfm.weight "layers.0.attn_norm.bias" : tensor<8xf32>
    %h = tfm.layer_norm %x, %g, %bb {eps = 1.0e-5 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
    %wqkv = tfm.weight "layers.0.attn.qkv.weight" : tensor<8x24xf32>
    %qkv = tfm.linear %h, %wqkv {layout = #tfm.layout<in_out>} : (tensor<?x?x8xf32>, tensor<8x24xf32>) -> tensor<?x?x24xf32>
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %B = tensor.dim %qkv, %c0 : tensor<?x?x24xf32>
    %T = tensor.dim %qkv, %c1 : tensor<?x?x24xf32>
    %q0 = tensor.extract_slice %qkv[0, 0, 0] [%B, %T, 8] [1, 1, 1] : tensor<?x?x24xf32> to tensor<?x?x8xf32>
    %k0 = tensor.extract_slice %qkv[0, 0, 8] [%B, %T, 8] [1, 1, 1] : tensor<?x?x24xf32> to tensor<?x?x8xf32>
    %v0 = tensor.extract_slice %qkv[0, 0, 16] [%B, %T, 8] [1, 1, 1] : tensor<?x?x24xf32> to tensor<?x?x8xf32>
    %q = tfm.split_heads %q0 {num_heads = 2 : i64} : (tensor<?x?x8xf32>) -> tensor<?x2x?x4xf32>
    %k = tfm.split_heads %k0 {num_heads = 2 : i64} : (tensor<?x?x8xf32>) -> tensor<?x2x?x4xf32>
    %v = tfm.split_heads %v0 {num_heads = 2 : i64} : (tensor<?x?x8xf32>) -> tensor<?x2x?x4xf32>
    %qr = tfm.rope %q {theta = 10000.0 : f64} : tensor<?x2x?x4xf32>
    %kr = tfm.rope %k {theta = 10000.0 : f64} : tensor<?x2x?x4xf32>
    %a = tfm.attention %qr, %kr, %v key_lengths(%lengths : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.5 : f64} : tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32>, tensor<?x2x?x4xf32> -> tensor<?x2x?x4xf32>
    %m = tfm.merge_heads %a : (tensor<?x2x?x4xf32>) -> tensor<?x?x8xf32>
    %r = tfm.add %x, %m : tensor<?x?x8xf32>
    %up = tfm.weight "layers.0.ffn.up.weight" : tensor<16x8xf32>
    %gate = tfm.weight "layers.0.ffn.gate.weight" : tensor<16x8xf32>
    %down = tfm.weight "layers.0.ffn.down.weight" : tensor<8x16xf32>
    %f = tfm.ffn %r up(%up) gate(%gate) down(%down) <swiglu> : (tensor<?x?x8xf32>, tensor<16x8xf32>, tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<?x?x8xf32>
    %r2 = tfm.add %r, %f : tensor<?x?x8xf32>
    %ng = tfm.weight "final_norm.weight" : tensor<8xf32>
    %n = tfm.rms_norm %r2, %ng {eps = 1.0e-6 : f64} : (tensor<?x?x8xf32>, tensor<8xf32>) -> tensor<?x?x8xf32>
    %emb2 = tfm.weight "embed.tokens" : tensor<16x8xf32>
    %logits = tfm.lm_head %n, %emb2 {tied} : (tensor<?x?x8xf32>, tensor<16x8xf32>) -> tensor<?x?x16xf32>
    return %logits : tensor<?x?x16xf32>
  }
}
