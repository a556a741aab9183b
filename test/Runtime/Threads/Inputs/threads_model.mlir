// A small GPT-like decoder (D = 32, 4 heads, SwiGLU FFN, tied head) that
// the multithreading tests compile into a model library. Its parallel loops:
// the tiled attention's batch x head x query-block loop, and the row blocks
// of every projection (batch by 1, rows by parallel-rows).
module attributes {tfm.model_name = "tiny-threads", tfm.architecture = "decoder", tfm.vocab_size = 64 : i64, tfm.max_seq_len = 128 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x64xf32> attributes {tfm.entry} {
    %emb = tfm.weight "embed.tokens" : tensor<64x32xf32>
    %x = tfm.embedding %ids, %emb : (tensor<?x?xi32>, tensor<64x32xf32>) -> tensor<?x?x32xf32>
    %g = tfm.weight "layers.0.attn_norm.weight" : tensor<32xf32>
    %h = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x?x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %wq = tfm.weight "layers.0.attn.q.weight" : tensor<32x32xf32>
    %wk = tfm.weight "layers.0.attn.k.weight" : tensor<32x32xf32>
    %wv = tfm.weight "layers.0.attn.v.weight" : tensor<32x32xf32>
    %wo = tfm.weight "layers.0.attn.o.weight" : tensor<32x32xf32>
    %q0 = tfm.linear %h, %wq : (tensor<?x?x32xf32>, tensor<32x32xf32>) -> tensor<?x?x32xf32>
    %k0 = tfm.linear %h, %wk : (tensor<?x?x32xf32>, tensor<32x32xf32>) -> tensor<?x?x32xf32>
    %v0 = tfm.linear %h, %wv : (tensor<?x?x32xf32>, tensor<32x32xf32>) -> tensor<?x?x32xf32>
    %q = tfm.split_heads %q0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %k = tfm.split_heads %k0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %v = tfm.split_heads %v0 {num_heads = 4 : i64} : (tensor<?x?x32xf32>) -> tensor<?x4x?x8xf32>
    %a = tfm.attention %q, %k, %v key_lengths(%lengths : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.35355339059327373 : f64} : tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32>, tensor<?x4x?x8xf32> -> tensor<?x4x?x8xf32>
    %m = tfm.merge_heads %a : (tensor<?x4x?x8xf32>) -> tensor<?x?x32xf32>
    %o = tfm.linear %m, %wo : (tensor<?x?x32xf32>, tensor<32x32xf32>) -> tensor<?x?x32xf32>
    %r = tfm.add %x, %o : tensor<?x?x32xf32>
    %up = tfm.weight "layers.0.ffn.up.weight" : tensor<64x32xf32>
    %gate = tfm.weight "layers.0.ffn.gate.weight" : tensor<64x32xf32>
    %down = tfm.weight "layers.0.ffn.down.weight" : tensor<32x64xf32>
    %f = tfm.ffn %r up(%up) gate(%gate) down(%down) <swiglu> : (tensor<?x?x32xf32>, tensor<64x32xf32>, tensor<64x32xf32>, tensor<32x64xf32>) -> tensor<?x?x32xf32>
    %r2 = tfm.add %r, %f : tensor<?x?x32xf32>
    %ng = tfm.weight "final_norm.weight" : tensor<32xf32>
    %n = tfm.rms_norm %r2, %ng {eps = 1.0e-6 : f64} : (tensor<?x?x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
    %emb2 = tfm.weight "embed.tokens" : tensor<64x32xf32>
    %logits = tfm.lm_head %n, %emb2 {tied} : (tensor<?x?x32xf32>, tensor<64x32xf32>) -> tensor<?x?x64xf32>
    return %logits : tensor<?x?x64xf32>
  }
}
