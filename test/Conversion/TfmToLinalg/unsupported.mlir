// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file -verify-diagnostics

// Valid tfm IR (the verifiers accept dynamic sizes wherever they are
// compatible) that -convert-tfm-to-linalg cannot lower because it needs the
// size static. Each diagnostic names the op and the size. Rank and attribute
// rules are the verifiers' (test/Dialect/Tfm/invalid.mlir), not repeated here.

func.func @linear_dynamic_features(%x: tensor<?x?xf32>, %w: tensor<24x8xf32>) -> tensor<?x24xf32> {
  // expected-error @+2 {{'tfm.linear' op lowering needs a static input feature size (8, the weight's input size), got 'tensor<?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.linear'}}
  %y = tfm.linear %x, %w : (tensor<?x?xf32>, tensor<24x8xf32>) -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// -----

func.func @linear_dynamic_bias(%x: tensor<?x8xf32>, %w: tensor<24x8xf32>, %b: tensor<?xf32>) -> tensor<?x24xf32> {
  // expected-error @+2 {{'tfm.linear' op lowering needs a static bias size (24, the weight's output size), got 'tensor<?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.linear'}}
  %y = tfm.linear %x, %w, %b : (tensor<?x8xf32>, tensor<24x8xf32>, tensor<?xf32>) -> tensor<?x24xf32>
  return %y : tensor<?x24xf32>
}

// -----

func.func @ffn_dynamic_features(%x: tensor<?x?x?xf32>, %up: tensor<32x8xf32>, %down: tensor<8x32xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+2 {{'tfm.ffn' op lowering needs a static input feature size (8, the weight's input size)}}
  // expected-error @+1 {{failed to legalize operation 'tfm.ffn'}}
  %y = tfm.ffn %x up(%up) down(%down) <gelu> : (tensor<?x?x?xf32>, tensor<32x8xf32>, tensor<8x32xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

func.func @lm_head_dynamic_vocab(%x: tensor<?x?x8xf32>, %e: tensor<?x8xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+2 {{'tfm.lm_head' op expects a static 2-D weight, got 'tensor<?x8xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.lm_head'}}
  %y = tfm.lm_head %x, %e : (tensor<?x?x8xf32>, tensor<?x8xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

func.func @classifier_dynamic_model_size(%x: tensor<?x?x?xf32>, %w: tensor<2x8xf32>) -> tensor<?x2xf32> {
  // expected-error @+2 {{'tfm.classifier_head' op lowering needs a static model size (input dim 2), got 'tensor<?x?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.classifier_head'}}
  %y = tfm.classifier_head %x classifier(%w) <first> : (tensor<?x?x?xf32>, tensor<2x8xf32>) -> tensor<?x2xf32>
  return %y : tensor<?x2xf32>
}

// -----

func.func @embedding_dynamic_size(%ids: tensor<?x?xi32>, %t: tensor<?x?xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+2 {{'tfm.embedding' op lowering needs a static embedding size (table dim 1), got 'tensor<?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.embedding'}}
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<?x?xf32>) -> tensor<?x?x?xf32>
  return %x : tensor<?x?x?xf32>
}

// -----

func.func @sinusoidal_dynamic_model_size(%x: tensor<?x?x?xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+2 {{'tfm.sinusoidal_position' op lowering needs a static model size (input dim 2), got 'tensor<?x?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.sinusoidal_position'}}
  %y = tfm.sinusoidal_position %x : tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}

// -----

func.func @rope_dynamic_head_size(%x: tensor<?x2x?x?xf32>) -> tensor<?x2x?x?xf32> {
  // expected-error @+2 {{'tfm.rope' op lowering needs a static head size (input dim 3), got 'tensor<?x2x?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.rope'}}
  %y = tfm.rope %x {theta = 10000.0 : f64, rotary_dim = 4 : i64} : tensor<?x2x?x?xf32>
  return %y : tensor<?x2x?x?xf32>
}

// -----

func.func @layer_norm_dynamic_size(%x: tensor<?x?xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'tfm.layer_norm' op lowering needs a static normalized size (the input's last dim), got 'tensor<?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.layer_norm'}}
  %y = tfm.layer_norm %x, %g, %b {eps = 1.0e-5 : f64} : (tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

func.func @rms_norm_dynamic_size(%x: tensor<?x?xf32>, %g: tensor<?xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{'tfm.rms_norm' op lowering needs a static normalized size (the input's last dim), got 'tensor<?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.rms_norm'}}
  %y = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x?xf32>, tensor<?xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Static query head size, dynamic key head size: compatible, so verified.
func.func @attention_dynamic_key_head_size(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x7x?xf32>, %v: tensor<2x1x7x8xf32>) -> tensor<2x4x5x8xf32> {
  // expected-error @+2 {{'tfm.attention' op head counts and head sizes must be static}}
  // expected-error @+1 {{failed to legalize operation 'tfm.attention'}}
  %o = tfm.attention %q, %k, %v {scale = 0.5 : f64} : tensor<2x4x5x8xf32>, tensor<2x1x7x?xf32>, tensor<2x1x7x8xf32> -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

func.func @attention_dynamic_bias_heads(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x7x8xf32>, %v: tensor<2x1x7x8xf32>, %b: tensor<2x?x5x7xf32>) -> tensor<2x4x5x8xf32> {
  // expected-error @+2 {{'tfm.attention' op lowering needs a static bias head dimension (bias dim 1), got 'tensor<2x?x5x7xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.attention'}}
  %o = tfm.attention %q, %k, %v bias(%b : tensor<2x?x5x7xf32>) {scale = 0.5 : f64} : tensor<2x4x5x8xf32>, tensor<2x1x7x8xf32>, tensor<2x1x7x8xf32> -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

func.func @attention_dynamic_alibi_slopes(%q: tensor<2x4x5x8xf32>, %k: tensor<2x1x7x8xf32>, %v: tensor<2x1x7x8xf32>, %s: tensor<?xf32>) -> tensor<2x4x5x8xf32> {
  // expected-error @+2 {{'tfm.attention' op lowering needs a static alibi_slopes size (4, the query heads), got 'tensor<?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.attention'}}
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<?xf32>) {scale = 0.5 : f64} : tensor<2x4x5x8xf32>, tensor<2x1x7x8xf32>, tensor<2x1x7x8xf32> -> tensor<2x4x5x8xf32>
  return %o : tensor<2x4x5x8xf32>
}

// -----

func.func @split_heads_dynamic_features(%x: tensor<?x?x?xf32>) -> tensor<?x4x?x?xf32> {
  // expected-error @+2 {{'tfm.split_heads' op lowering needs a static H*D (input dim 2), got 'tensor<?x?x?xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.split_heads'}}
  %s = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x?xf32>) -> tensor<?x4x?x?xf32>
  return %s : tensor<?x4x?x?xf32>
}

// -----

func.func @merge_heads_dynamic_heads(%x: tensor<?x?x?x16xf32>) -> tensor<?x?x?xf32> {
  // expected-error @+2 {{'tfm.merge_heads' op lowering needs static H and D (input dims 1 and 3), got 'tensor<?x?x?x16xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.merge_heads'}}
  %m = tfm.merge_heads %x : (tensor<?x?x?x16xf32>) -> tensor<?x?x?xf32>
  return %m : tensor<?x?x?xf32>
}

// -----

func.func @repeat_kv_dynamic_heads(%kv: tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32> {
  // expected-error @+2 {{'tfm.repeat_kv' op lowering needs a static Hkv (input dim 1), got 'tensor<?x?x?x8xf32>'}}
  // expected-error @+1 {{failed to legalize operation 'tfm.repeat_kv'}}
  %r = tfm.repeat_kv %kv {repeats = 3 : i64} : (tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32>
  return %r : tensor<?x?x?x8xf32>
}
