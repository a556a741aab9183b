// RUN: tfm-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the tfm dialect, in the order of TfmOps.td.

//===----------------------------------------------------------------------===//
// tfm.weight
//===----------------------------------------------------------------------===//

func.func @weight_empty_name() {
  // expected-error @+1 {{'tfm.weight' op 'name' must not be empty}}
  %w = tfm.weight "" : tensor<4xf32>
  return
}

// -----

func.func @weight_dynamic_shape() {
  // expected-error @+1 {{weight 'w' must have a static shape, found 'tensor<?x4xf32>'}}
  %w = tfm.weight "w" : tensor<?x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.embedding
//===----------------------------------------------------------------------===//

// -----

func.func @embedding_ids_rank(%ids: tensor<?xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'ids' must have rank 2 ([B, T]), found rank 1}}
  %x = tfm.embedding %ids, %t : (tensor<?xi32>, tensor<10x4xf32>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @embedding_table_rank(%ids: tensor<?x?xi32>, %t: tensor<10xf32>) {
  // expected-error @+1 {{'table' must have rank 2 ([V, D]), found rank 1}}
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<10xf32>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @embedding_result_rank(%ids: tensor<?x?xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'result' must have rank 3 ([B, T, D]), found rank 2}}
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<10x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @embedding_result_batch(%ids: tensor<2x?xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'result' dim 0 (B) must equal 'ids' dim 0: expected 2, found 3}}
  %x = tfm.embedding %ids, %t : (tensor<2x?xi32>, tensor<10x4xf32>) -> tensor<3x?x4xf32>
  return
}

// -----

func.func @embedding_result_seq(%ids: tensor<?x7xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'result' dim 1 (T) must equal 'ids' dim 1: expected 7, found 8}}
  %x = tfm.embedding %ids, %t : (tensor<?x7xi32>, tensor<10x4xf32>) -> tensor<?x8x4xf32>
  return
}

// -----

func.func @embedding_result_features(%ids: tensor<?x?xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'result' dim 2 (D) must equal 'table' dim 1: expected 4, found 8}}
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<10x4xf32>) -> tensor<?x?x8xf32>
  return
}

// -----

func.func @embedding_element_type(%ids: tensor<?x?xi32>, %t: tensor<10x4xf32>) {
  // expected-error @+1 {{'result' element type must match that of 'table': expected 'f32', found 'f16'}}
  %x = tfm.embedding %ids, %t : (tensor<?x?xi32>, tensor<10x4xf32>) -> tensor<?x?x4xf16>
  return
}

//===----------------------------------------------------------------------===//
// tfm.sinusoidal_position
//===----------------------------------------------------------------------===//

// -----

func.func @sinusoidal_rank(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'input' must have rank 3 ([B, T, D]), found rank 2}}
  %y = tfm.sinusoidal_position %x : tensor<?x4xf32>
  return
}

// -----

func.func @sinusoidal_odd(%x: tensor<?x?x5xf32>) {
  // expected-error @+1 {{'input' dim 2 (D) must be even (sin/cos pairs), found 5}}
  %y = tfm.sinusoidal_position %x : tensor<?x?x5xf32>
  return
}

// -----

func.func @sinusoidal_offsets_rank(%x: tensor<?x?x4xf32>, %off: tensor<?x1xi32>) {
  // expected-error @+1 {{'offsets' must have rank 1 ([B]), found rank 2}}
  %y = tfm.sinusoidal_position %x offsets(%off : tensor<?x1xi32>) : tensor<?x?x4xf32>
  return
}

// -----

func.func @sinusoidal_offsets_batch(%x: tensor<2x?x4xf32>, %off: tensor<3xi32>) {
  // expected-error @+1 {{'offsets' dim 0 (B) must equal 'input' dim 0: expected 2, found 3}}
  %y = tfm.sinusoidal_position %x offsets(%off : tensor<3xi32>) : tensor<2x?x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.learned_position
//===----------------------------------------------------------------------===//

// -----

func.func @learned_input_rank(%x: tensor<?x4xf32>, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'input' must have rank 3 ([B, T, D]), found rank 2}}
  %y = tfm.learned_position %x, %t : (tensor<?x4xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @learned_table_rank(%x: tensor<?x?x4xf32>, %t: tensor<4xf32>) {
  // expected-error @+1 {{'table' must have rank 2 ([P, D]), found rank 1}}
  %y = tfm.learned_position %x, %t : (tensor<?x?x4xf32>, tensor<4xf32>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @learned_table_features(%x: tensor<?x?x4xf32>, %t: tensor<8x6xf32>) {
  // expected-error @+1 {{'table' dim 1 (D) must equal 'input' dim 2: expected 4, found 6}}
  %y = tfm.learned_position %x, %t : (tensor<?x?x4xf32>, tensor<8x6xf32>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @learned_table_element_type(%x: tensor<?x?x4xf32>, %t: tensor<8x4xbf16>) {
  // expected-error @+1 {{'table' element type must match that of 'input': expected 'f32', found 'bf16'}}
  %y = tfm.learned_position %x, %t : (tensor<?x?x4xf32>, tensor<8x4xbf16>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @learned_result_type(%x: tensor<?x?x4xf32>, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{result type must equal the 'input' type: expected 'tensor<?x?x4xf32>', found 'tensor<2x?x4xf32>'}}
  %y = tfm.learned_position %x, %t : (tensor<?x?x4xf32>, tensor<8x4xf32>) -> tensor<2x?x4xf32>
  return
}

// -----

func.func @learned_too_long(%x: tensor<?x9x4xf32>, %t: tensor<8x4xf32>) {
  // expected-error @+1 {{'input' dim 1 (T) must not exceed 'table' dim 0 (P, the number of learned positions): 9 > 8}}
  %y = tfm.learned_position %x, %t : (tensor<?x9x4xf32>, tensor<8x4xf32>) -> tensor<?x9x4xf32>
  return
}

// -----

func.func @learned_offsets_rank(%x: tensor<?x?x4xf32>, %t: tensor<8x4xf32>, %off: tensor<i32>) {
  // expected-error @+1 {{'offsets' must have rank 1 ([B]), found rank 0}}
  %y = tfm.learned_position %x, %t offsets(%off) : (tensor<?x?x4xf32>, tensor<8x4xf32>, tensor<i32>) -> tensor<?x?x4xf32>
  return
}

// -----

func.func @learned_offsets_batch(%x: tensor<4x?x4xf32>, %t: tensor<8x4xf32>, %off: tensor<1xi64>) {
  // expected-error @+1 {{'offsets' dim 0 (B) must equal 'input' dim 0: expected 4, found 1}}
  %y = tfm.learned_position %x, %t offsets(%off) : (tensor<4x?x4xf32>, tensor<8x4xf32>, tensor<1xi64>) -> tensor<4x?x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.rope
//===----------------------------------------------------------------------===//

// -----

func.func @rope_rank(%x: tensor<?x?x64xf32>) {
  // expected-error @+1 {{'input' must have rank 4 ([B, H, T, D]), found rank 3}}
  %y = tfm.rope %x {theta = 10000.0 : f64} : tensor<?x?x64xf32>
  return
}

// -----

func.func @rope_theta(%x: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'theta' must be finite and > 1, found 0}}
  %y = tfm.rope %x {theta = 0.0 : f64} : tensor<?x2x?x64xf32>
  return
}

// -----

func.func @rope_theta_one(%x: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'theta' must be finite and > 1, found 1}}
  %y = tfm.rope %x {theta = 1.0 : f64} : tensor<?x2x?x64xf32>
  return
}

// -----

func.func @norm_eps_below_f32(%x: tensor<?x?x32xf32>, %w: tensor<32xf32>) {
  // expected-error @+1 {{'eps' (1.000000e-300) rounds to 0 in f32, the precision the norm computes in}}
  %y = tfm.rms_norm %x, %w {eps = 1.0e-300 : f64} : (tensor<?x?x32xf32>, tensor<32xf32>) -> tensor<?x?x32xf32>
  return
}

// -----

func.func @rope_scaling(%x: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'scaling_factor' must be finite and > 0, found -1}}
  %y = tfm.rope %x {theta = 10000.0 : f64, scaling_factor = -1.0 : f64} : tensor<?x2x?x64xf32>
  return
}

// -----

func.func @rope_rotary_dim_odd(%x: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'rotary_dim' must be even and > 0, found 15}}
  %y = tfm.rope %x {theta = 10000.0 : f64, rotary_dim = 15 : i64} : tensor<?x2x?x64xf32>
  return
}

// -----

func.func @rope_rotary_dim_too_large(%x: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'rotary_dim' must not exceed the head size ('input' dim 3): 128 > 64}}
  %y = tfm.rope %x {theta = 10000.0 : f64, rotary_dim = 128 : i64} : tensor<?x2x?x64xf32>
  return
}

// -----

func.func @rope_odd_head(%x: tensor<?x2x?x63xf32>) {
  // expected-error @+1 {{'input' dim 3 (D) must be even when 'rotary_dim' is absent (all features rotate in pairs), found 63}}
  %y = tfm.rope %x {theta = 10000.0 : f64} : tensor<?x2x?x63xf32>
  return
}

// -----

func.func @rope_offsets_rank(%x: tensor<?x2x?x64xf32>, %off: tensor<?x?xi32>) {
  // expected-error @+1 {{'offsets' must have rank 1 ([B]), found rank 2}}
  %y = tfm.rope %x offsets(%off : tensor<?x?xi32>) {theta = 10000.0 : f64} : tensor<?x2x?x64xf32>
  return
}

// -----

func.func @rope_offsets_batch(%x: tensor<2x2x?x64xf32>, %off: tensor<5xi32>) {
  // expected-error @+1 {{'offsets' dim 0 (B) must equal 'input' dim 0: expected 2, found 5}}
  %y = tfm.rope %x offsets(%off : tensor<5xi32>) {theta = 10000.0 : f64} : tensor<2x2x?x64xf32>
  return
}

// -----

func.func @rope_inv_freq_count(%x: tensor<?x2x?x8xf32>) {
  // expected-error @+1 {{'inv_freq' must hold one frequency per rotated pair (4), found 3}}
  %y = tfm.rope %x {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1, 0.01>} : tensor<?x2x?x8xf32>
  return
}

// -----

func.func @rope_inv_freq_value(%x: tensor<?x2x?x4xf32>) {
  // expected-error @+1 {{'inv_freq'[1] must be finite and > 0, found 0}}
  %y = tfm.rope %x {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.0>} : tensor<?x2x?x4xf32>
  return
}

// -----

func.func @rope_inv_freq_scaling(%x: tensor<?x2x?x4xf32>) {
  // expected-error @+1 {{'scaling_factor' must be 1 with 'inv_freq' (the frequencies already hold the scaling)}}
  %y = tfm.rope %x {theta = 10000.0 : f64, scaling_factor = 2.0 : f64, inv_freq = array<f64: 1.0, 0.1>} : tensor<?x2x?x4xf32>
  return
}

// -----

func.func @rope_long_alone(%x: tensor<?x2x?x4xf32>) {
  // expected-error @+1 {{'long_inv_freq' and 'long_after' go together, and need 'inv_freq' (the short set)}}
  %y = tfm.rope %x {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1>, long_inv_freq = array<f64: 1.0, 0.1>} : tensor<?x2x?x4xf32>
  return
}

// -----

func.func @rope_long_after(%x: tensor<?x2x?x4xf32>) {
  // expected-error @+1 {{'long_after' must be > 0, found 0}}
  %y = tfm.rope %x {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1>, long_inv_freq = array<f64: 1.0, 0.1>, long_after = 0 : i64} : tensor<?x2x?x4xf32>
  return
}

// -----

func.func @rope_lengths_alone(%x: tensor<?x2x?x4xf32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'lengths' needs 'offsets' (the rows of a generation step)}}
  %y = tfm.rope %x lengths(%len : tensor<?xi32>) {theta = 10000.0 : f64} : tensor<?x2x?x4xf32>
  return
}

// -----

func.func @rope_attention_factor(%x: tensor<?x2x?x4xf32>) {
  // expected-error @+1 {{'attention_factor' must be finite and > 0, found -1}}
  %y = tfm.rope %x {theta = 10000.0 : f64, attention_factor = -1.0 : f64} : tensor<?x2x?x4xf32>
  return
}

// -----

func.func @rms_norm_gamma_offset(%x: tensor<?x16xf32>, %g: tensor<16xf32>) {
  // expected-error @+1 {{'gamma_offset' must be finite, found INF}}
  %y = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64, gamma_offset = 0x7FF0000000000000 : f64} : (tensor<?x16xf32>, tensor<16xf32>) -> tensor<?x16xf32>
  return
}

// -----

func.func @patch_embed_grid(%px: tensor<?x3x20x18xf32>, %w: tensor<40x3x4x4xf32>) {
  // expected-error @+1 {{the image (20 x 18) is not a whole number of 4 x 4 patches}}
  %p = tfm.patch_embed %px, %w : (tensor<?x3x20x18xf32>, tensor<40x3x4x4xf32>) -> tensor<?x20x40xf32>
  return
}

// -----

func.func @patch_embed_tokens(%px: tensor<?x3x20x20xf32>, %w: tensor<40x3x4x4xf32>) {
  // expected-error @+1 {{'result' dim 1 (N) must equal the patch grid (H / P)(W / P): expected 25, found 24}}
  %p = tfm.patch_embed %px, %w : (tensor<?x3x20x20xf32>, tensor<40x3x4x4xf32>) -> tensor<?x24x40xf32>
  return
}

// -----

func.func @patch_embed_channels(%px: tensor<?x1x20x20xf32>, %w: tensor<40x3x4x4xf32>) {
  // expected-error @+1 {{'weight' dim 1 (C) must equal 'pixels' dim 1: expected 1, found 3}}
  %p = tfm.patch_embed %px, %w : (tensor<?x1x20x20xf32>, tensor<40x3x4x4xf32>) -> tensor<?x25x40xf32>
  return
}

// -----

func.func @patch_embed_square(%px: tensor<?x3x20x20xf32>, %w: tensor<40x3x4x5xf32>) {
  // expected-error @+1 {{'weight' must hold square patches [D, C, P, P], found 'tensor<40x3x4x5xf32>'}}
  %p = tfm.patch_embed %px, %w : (tensor<?x3x20x20xf32>, tensor<40x3x4x5xf32>) -> tensor<?x25x40xf32>
  return
}

// -----

func.func @patch_embed_dynamic(%px: tensor<?x3x?x20xf32>, %w: tensor<40x3x4x4xf32>) {
  // expected-error @+1 {{needs static patch and image sizes}}
  %p = tfm.patch_embed %px, %w : (tensor<?x3x?x20xf32>, tensor<40x3x4x4xf32>) -> tensor<?x25x40xf32>
  return
}

// -----

func.func @prepend_token_rows(%x: tensor<?x25x40xf32>, %t: tensor<40xf32>) {
  // expected-error @+1 {{'result' dim 1 (T + 1) must equal 'input' dim 1 plus one: expected 26, found 25}}
  %y = tfm.prepend_token %x, %t : (tensor<?x25x40xf32>, tensor<40xf32>) -> tensor<?x25x40xf32>
  return
}

// -----

func.func @prepend_token_size(%x: tensor<?x25x40xf32>, %t: tensor<30xf32>) {
  // expected-error @+1 {{'token' dim 0 (D) must equal 'input' dim 2: expected 40, found 30}}
  %y = tfm.prepend_token %x, %t : (tensor<?x25x40xf32>, tensor<30xf32>) -> tensor<?x26x40xf32>
  return
}

// -----

func.func @relative_bias_buckets(%table: tensor<3x8xf32>, %n: index) {
  // expected-error @+1 {{'table' has 3 buckets; needs at least 4, an even count (two directions)}}
  %r = tfm.relative_position_bias %table [%n, %n, %n] {bidirectional, max_distance = 128 : i64} : tensor<3x8xf32> -> tensor<?x8x?x?xf32>
  return
}

// -----

func.func @relative_bias_distance(%table: tensor<32x8xf32>, %n: index) {
  // expected-error @+1 {{'max_distance' (16) must exceed the exact buckets (16) for the log-spaced ones to be defined}}
  %r = tfm.relative_position_bias %table [%n, %n, %n] {max_distance = 16 : i64} : tensor<32x8xf32> -> tensor<?x8x?x?xf32>
  return
}

// -----

func.func @relative_bias_heads(%table: tensor<32x8xf32>, %n: index) {
  // expected-error @+1 {{'result' dim 1 (H) must equal 'table' dim 1: expected 8, found 4}}
  %r = tfm.relative_position_bias %table [%n, %n, %n] {max_distance = 128 : i64} : tensor<32x8xf32> -> tensor<?x4x?x?xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.alibi_slopes
//===----------------------------------------------------------------------===//

// -----

func.func @alibi_slopes_rank() {
  // expected-error @+1 {{'result' must have rank 1 ([H]), found rank 2}}
  %s = tfm.alibi_slopes : tensor<1x8xf32>
  return
}

// -----

func.func @alibi_slopes_dynamic() {
  // expected-error @+1 {{'result' dim 0 (H, the number of heads) must be static and > 0, found 'tensor<?xf32>'}}
  %s = tfm.alibi_slopes : tensor<?xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.layer_norm, tfm.rms_norm
//===----------------------------------------------------------------------===//

// -----

func.func @layer_norm_eps(%x: tensor<?x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'eps' must be finite and > 0, found -1.000000e-05}}
  %y = tfm.layer_norm %x, %g {eps = -1.0e-5 : f64} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @layer_norm_input_rank(%x: tensor<f32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'input' must have rank >= 1 ([..., D]), found rank 0}}
  %y = tfm.layer_norm %x, %g {eps = 1.0e-5 : f64} : (tensor<f32>, tensor<4xf32>) -> tensor<f32>
  return
}

// -----

func.func @layer_norm_gamma_rank(%x: tensor<?x4xf32>, %g: tensor<1x4xf32>) {
  // expected-error @+1 {{'gamma' must have rank 1 ([D]), found rank 2}}
  %y = tfm.layer_norm %x, %g {eps = 1.0e-5 : f64} : (tensor<?x4xf32>, tensor<1x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @layer_norm_gamma_size(%x: tensor<?x4xf32>, %g: tensor<5xf32>) {
  // expected-error @+1 {{'gamma' dim 0 (D) must equal 'input' dim 1: expected 4, found 5}}
  %y = tfm.layer_norm %x, %g {eps = 1.0e-5 : f64} : (tensor<?x4xf32>, tensor<5xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @layer_norm_beta_size(%x: tensor<?x4xf32>, %g: tensor<4xf32>, %b: tensor<3xf32>) {
  // expected-error @+1 {{'beta' dim 0 (D) must equal 'input' dim 1: expected 4, found 3}}
  %y = tfm.layer_norm %x, %g, %b {eps = 1.0e-5 : f64} : (tensor<?x4xf32>, tensor<4xf32>, tensor<3xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @layer_norm_gamma_element_type(%x: tensor<?x4xf32>, %g: tensor<4xf16>) {
  // expected-error @+1 {{'gamma' element type must match that of 'input': expected 'f32', found 'f16'}}
  %y = tfm.layer_norm %x, %g {eps = 1.0e-5 : f64} : (tensor<?x4xf32>, tensor<4xf16>) -> tensor<?x4xf32>
  return
}

// -----

func.func @layer_norm_result_type(%x: tensor<?x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{result type must equal the 'input' type: expected 'tensor<?x4xf32>', found 'tensor<?x4xf16>'}}
  %y = tfm.layer_norm %x, %g {eps = 1.0e-5 : f64} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf16>
  return
}

// -----

func.func @rms_norm_eps(%x: tensor<?x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+1 {{'tfm.rms_norm' op 'eps' must be finite and > 0, found 0}}
  %y = tfm.rms_norm %x, %g {eps = 0.0 : f64} : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @rms_norm_gamma_size(%x: tensor<?x4xf32>, %g: tensor<8xf32>) {
  // expected-error @+1 {{'tfm.rms_norm' op 'gamma' dim 0 (D) must equal 'input' dim 1: expected 4, found 8}}
  %y = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64} : (tensor<?x4xf32>, tensor<8xf32>) -> tensor<?x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.scale, tfm.activation
//===----------------------------------------------------------------------===//

// -----

func.func @scale_not_finite(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'factor' must be finite, found INF}}
  %y = tfm.scale %x {factor = 0x7FF0000000000000 : f64} : tensor<?x4xf32>
  return
}

// -----

func.func @activation_gated(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'kind' swiglu is gated (it multiplies two projections) and only exists on tfm.ffn}}
  %y = tfm.activation %x <swiglu> : tensor<?x4xf32>
  return
}

// -----

func.func @activation_gated_geglu(%x: tensor<?x4xf32>) {
  // expected-error @+1 {{'kind' geglu is gated}}
  %y = tfm.activation %x <geglu> : tensor<?x4xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.linear
//===----------------------------------------------------------------------===//

// -----

func.func @linear_input_rank(%x: tensor<f32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'input' must have rank >= 1 ([..., I]), found rank 0}}
  %y = tfm.linear %x, %w : (tensor<f32>, tensor<8x4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @linear_weight_rank(%x: tensor<?x4xf32>, %w: tensor<4xf32>) {
  // expected-error @+1 {{'weight' must have rank 2 ([O, I] for layout out_in), found rank 1}}
  %y = tfm.linear %x, %w : (tensor<?x4xf32>, tensor<4xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @linear_weight_in_out_in(%x: tensor<?x4xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+1 {{'weight' dim 1 (I, input features) must equal 'input' dim 1: expected 4, found 8}}
  %y = tfm.linear %x, %w : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @linear_weight_in_in_out(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'weight' dim 0 (I, input features) must equal 'input' dim 1: expected 4, found 8}}
  %y = tfm.linear %x, %w {layout = #tfm.layout<in_out>} : (tensor<?x4xf32>, tensor<8x4xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @linear_bias(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>, %b: tensor<4xf32>) {
  // expected-error @+1 {{'bias' dim 0 (O, output features) must equal 'weight' dim 0: expected 8, found 4}}
  %y = tfm.linear %x, %w, %b : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @linear_bias_rank(%x: tensor<?x4xf32>, %w: tensor<8x4xf32>, %b: tensor<1x8xf32>) {
  // expected-error @+1 {{'bias' must have rank 1 ([O]), found rank 2}}
  %y = tfm.linear %x, %w, %b : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<1x8xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @linear_result_rank(%x: tensor<?x?x4xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'result' must have rank 3 ([..., O]), found rank 2}}
  %y = tfm.linear %x, %w : (tensor<?x?x4xf32>, tensor<8x4xf32>) -> tensor<?x8xf32>
  return
}

// -----

func.func @linear_result_leading(%x: tensor<2x?x4xf32>, %w: tensor<8x4xf32>) {
  // expected-error @+1 {{'result' dim 0 must equal 'input' dim 0: expected 2, found 3}}
  %y = tfm.linear %x, %w : (tensor<2x?x4xf32>, tensor<8x4xf32>) -> tensor<3x?x8xf32>
  return
}

// -----

func.func @linear_result_features(%x: tensor<?x4xf32>, %w: tensor<4x8xf32>) {
  // expected-error @+1 {{'result' dim 1 (O, output features) must equal 'weight' dim 1: expected 8, found 4}}
  %y = tfm.linear %x, %w {layout = #tfm.layout<in_out>} : (tensor<?x4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @linear_weight_element_type(%x: tensor<?x4xf32>, %w: tensor<8x4xbf16>) {
  // expected-error @+1 {{'weight' element type must match that of 'input': expected 'f32', found 'bf16'}}
  %y = tfm.linear %x, %w : (tensor<?x4xf32>, tensor<8x4xbf16>) -> tensor<?x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.matmul
//===----------------------------------------------------------------------===//

// -----

func.func @matmul_lhs_rank(%a: tensor<4xf32>, %b: tensor<4x4xf32>) {
  // expected-error @+1 {{'lhs' must have rank >= 2 ([..., M, K]), found rank 1}}
  %c = tfm.matmul %a, %b : (tensor<4xf32>, tensor<4x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @matmul_rhs_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'rhs' must have rank 3 ([..., K, N], the rank of 'lhs'), found rank 2}}
  %c = tfm.matmul %a, %b : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @matmul_result_rank(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'result' must have rank 2 ([..., M, N], the rank of 'lhs'), found rank 3}}
  %c = tfm.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<1x3x5xf32>
  return
}

// -----

func.func @matmul_batch(%a: tensor<2x3x4xf32>, %b: tensor<6x4x5xf32>) {
  // expected-error @+1 {{'rhs' dim 0 (batch) must equal 'lhs' dim 0: expected 2, found 6}}
  %c = tfm.matmul %a, %b : (tensor<2x3x4xf32>, tensor<6x4x5xf32>) -> tensor<2x3x5xf32>
  return
}

// -----

func.func @matmul_result_batch(%a: tensor<2x3x4xf32>, %b: tensor<?x4x5xf32>) {
  // expected-error @+1 {{'result' dim 0 (batch) must equal 'lhs' dim 0: expected 2, found 1}}
  %c = tfm.matmul %a, %b : (tensor<2x3x4xf32>, tensor<?x4x5xf32>) -> tensor<1x3x5xf32>
  return
}

// -----

func.func @matmul_contracting(%a: tensor<3x4xf32>, %b: tensor<5x5xf32>) {
  // expected-error @+1 {{'rhs' dim 0 (K, contracting) must equal 'lhs' dim 1: expected 4, found 5}}
  %c = tfm.matmul %a, %b : (tensor<3x4xf32>, tensor<5x5xf32>) -> tensor<3x5xf32>
  return
}

// -----

func.func @matmul_contracting_transposed(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'rhs' dim 1 (K, contracting) must equal 'lhs' dim 1: expected 4, found 5}}
  %c = tfm.matmul %a, %b {transpose_rhs} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @matmul_result_m(%a: tensor<3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+1 {{'result' dim 0 (M) must equal 'lhs' dim 0: expected 3, found 4}}
  %c = tfm.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @matmul_result_n(%a: tensor<3x4xf32>, %b: tensor<6x4xf32>) {
  // expected-error @+1 {{'result' dim 1 (N) must equal 'rhs' dim 0: expected 6, found 4}}
  %c = tfm.matmul %a, %b {transpose_rhs} : (tensor<3x4xf32>, tensor<6x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @matmul_element_type(%a: tensor<3x4xf32>, %b: tensor<4x5xf16>) {
  // expected-error @+1 {{'rhs' element type must match that of 'lhs': expected 'f32', found 'f16'}}
  %c = tfm.matmul %a, %b : (tensor<3x4xf32>, tensor<4x5xf16>) -> tensor<3x5xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.ffn
//===----------------------------------------------------------------------===//

// -----

func.func @ffn_gated_without_gate(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{gated activation swiglu requires 'gate_weight'}}
  %y = tfm.ffn %x up(%up) down(%down) <swiglu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_ungated_with_gate(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'gate_weight' is only allowed with a gated activation (swiglu, geglu, geglu_tanh), found relu}}
  %y = tfm.ffn %x up(%up) gate(%up) down(%down) <relu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_gate_bias_without_gate(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %b: tensor<8xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'gate_bias' requires 'gate_weight'}}
  %y = tfm.ffn %x up(%up) gate_bias(%b) down(%down) <gelu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_up_features(%x: tensor<?x4xf32>, %up: tensor<8x5xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'up_weight' dim 1 (I, input features) must equal 'input' dim 1: expected 4, found 5}}
  %y = tfm.ffn %x up(%up) down(%down) <relu> : (tensor<?x4xf32>, tensor<8x5xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_up_bias(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %b: tensor<4xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'up_bias' dim 0 (O, output features) must equal 'up_weight' dim 0: expected 8, found 4}}
  %y = tfm.ffn %x up(%up, %b) down(%down) <relu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_gate_hidden(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %gate: tensor<6x4xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'gate_weight' dim 0 (F, hidden) must equal 'up_weight' dim 0: expected 8, found 6}}
  %y = tfm.ffn %x up(%up) gate(%gate) down(%down) <geglu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<6x4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_gate_bias(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %gate: tensor<8x4xf32>, %b: tensor<7xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'gate_bias' dim 0 (O, output features) must equal 'gate_weight' dim 0: expected 8, found 7}}
  %y = tfm.ffn %x up(%up) gate(%gate) gate_bias(%b) down(%down) <swiglu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<8x4xf32>, tensor<7xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_down_hidden(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<4x6xf32>) {
  // expected-error @+1 {{'down_weight' dim 1 (I, input features) must equal 'up_weight' dim 0: expected 8, found 6}}
  %y = tfm.ffn %x up(%up) down(%down) <silu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4x6xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_down_features(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<5x8xf32>) {
  // expected-error @+1 {{'down_weight' dim 0 (O, output features) must equal 'input' dim 1: expected 4, found 5}}
  %y = tfm.ffn %x up(%up) down(%down) <silu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<5x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_down_bias(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<4x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+1 {{'down_bias' dim 0 (O, output features) must equal 'down_weight' dim 0: expected 4, found 8}}
  %y = tfm.ffn %x up(%up) down(%down, %b) <gelu_tanh> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>, tensor<8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_in_out_layout(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{'up_weight' dim 0 (I, input features) must equal 'input' dim 1: expected 4, found 8}}
  %y = tfm.ffn %x up(%up) down(%down) <relu> {layout = #tfm.layout<in_out>} : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @ffn_result_type(%x: tensor<?x4xf32>, %up: tensor<8x4xf32>, %down: tensor<4x8xf32>) {
  // expected-error @+1 {{result type must equal the 'input' type: expected 'tensor<?x4xf32>', found 'tensor<?x8xf32>'}}
  %y = tfm.ffn %x up(%up) down(%down) <relu> : (tensor<?x4xf32>, tensor<8x4xf32>, tensor<4x8xf32>) -> tensor<?x8xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.attention
//===----------------------------------------------------------------------===//

// -----

func.func @attention_query_rank(%q: tensor<?x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'query' must have rank 4 ([B, Hq, Tq, D]), found rank 3}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x?x64xf32>
  return
}

// -----

func.func @attention_key_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'key' must have rank 4 ([B, Hkv, Tk, D]), found rank 3}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_value_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<2x?x64xf32>) {
  // expected-error @+1 {{'value' must have rank 4 ([B, Hkv, Tk, Dv]), found rank 3}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_result_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'result' must have rank 4 ([B, Hq, Tq, Dv]), found rank 3}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x?x512xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x8x?x64xf32>, %k: tensor<3x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'key' dim 0 (B) must equal 'query' dim 0: expected 2, found 3}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<2x8x?x64xf32>, tensor<3x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<2x8x?x64xf32>
  return
}

// -----

func.func @attention_kv_heads(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x4x?x64xf32>) {
  // expected-error @+1 {{'value' dim 1 (Hkv) must equal 'key' dim 1: expected 2, found 4}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x4x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x32xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'key' dim 3 (D, head size) must equal 'query' dim 3: expected 64, found 32}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_key_length(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x10x64xf32>, %v: tensor<?x2x12x64xf32>) {
  // expected-error @+1 {{'value' dim 2 (Tk) must equal 'key' dim 2: expected 10, found 12}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x10x64xf32>, tensor<?x2x12x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_result_heads(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'result' dim 1 (Hq) must equal 'query' dim 1: expected 8, found 2}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x2x?x64xf32>
  return
}

// -----

func.func @attention_result_queries(%q: tensor<?x8x5x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'result' dim 2 (Tq) must equal 'query' dim 2: expected 5, found 6}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x5x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x6x64xf32>
  return
}

// -----

func.func @attention_result_value_size(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x32xf32>) {
  // expected-error @+1 {{'result' dim 3 (Dv) must equal 'value' dim 3: expected 32, found 64}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x32xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

// A 16-bit Q reads 16-bit K and V (an f32 Q may read a 16-bit cache).
func.func @attention_element_type(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'key' element type must match that of 'query': expected 'f16', found 'f32'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

// 16-bit inputs may have an f32 result, but Q, K and V share one type.
func.func @attention_half_key_type(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xbf16>) {
  // expected-error @+1 {{'key' element type must match that of 'query': expected 'bf16', found 'f16'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  return
}

// -----

// A 16-bit KV cache (f32 Q, 16-bit K and V): K and V share one type.
func.func @attention_cached_value_type(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'value' element type must match that of 'key': expected 'bf16', found 'f32'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

// ... and the result is Q's f32.
func.func @attention_cached_result_type(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) {
  // expected-error @+1 {{'result' element type must match that of 'query': expected 'f32', found 'bf16'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return
}

// -----

func.func @attention_half_value_type(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xbf16>) {
  // expected-error @+1 {{'value' element type must match that of 'key': expected 'f16', found 'bf16'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  return
}

// -----

// The bias has the result's type: with a bf16 result, bf16.
func.func @attention_half_bias_type(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %b: tensor<?x8x?x?xf32>) {
  // expected-error @+1 {{'bias' element type must match that of 'result': expected 'bf16', found 'f32'}}
  %o = tfm.attention %q, %k, %v bias(%b : tensor<?x8x?x?xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return
}

// -----

// With an f32 result, f32.
func.func @attention_half_inputs_bias_type(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %b: tensor<?x8x?x?xbf16>) {
  // expected-error @+1 {{'bias' element type must match that of 'result': expected 'f32', found 'bf16'}}
  %o = tfm.attention %q, %k, %v bias(%b : tensor<?x8x?x?xbf16>) {scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_half_inputs_alibi_type(%q: tensor<?x8x?x64xf16>, %k: tensor<?x2x?x64xf16>, %v: tensor<?x2x?x64xf16>, %s: tensor<8xf16>) {
  // expected-error @+1 {{'alibi_slopes' element type must match that of 'result': expected 'f32', found 'f16'}}
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<8xf16>) {scale = 0.125 : f64} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf32>
  return
}

// -----

// Only 16-bit inputs widen: f32 inputs do not narrow to a bf16 result.
func.func @attention_narrow_result(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'result' element type must match that of 'query': expected 'f32', found 'bf16'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xbf16>
  return
}

// -----

// Nor to the other 16-bit type.
func.func @attention_half_result_type(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>) {
  // expected-error @+1 {{'result' element type must be f32 or match that of 'query' ('bf16'), found 'f16'}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf16>
  return
}

// -----

func.func @attention_group(%q: tensor<?x8x?x64xf32>, %k: tensor<?x3x?x64xf32>, %v: tensor<?x3x?x64xf32>) {
  // expected-error @+1 {{query heads must be a multiple of key/value heads (Hq % Hkv == 0): 'query' dim 1 is 8, 'key' dim 1 is 3}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x3x?x64xf32>, tensor<?x3x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_no_kv_heads(%q: tensor<?x8x?x64xf32>, %k: tensor<?x0x?x64xf32>, %v: tensor<?x0x?x64xf32>) {
  // expected-error @+1 {{'key' dim 1 (Hkv) must be > 0, found 0}}
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x0x?x64xf32>, tensor<?x0x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_scale(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'scale' must be finite, found nan}}
  %o = tfm.attention %q, %k, %v {scale = 0x7FF8000000000000 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_window_missing(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{mask kind sliding_window requires a 'window' attribute (the number of visible keys)}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<sliding_window>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_window_unexpected(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'window' is only allowed with mask kind sliding_window, found mask kind causal}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, window = 16 : i64, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_window_positive(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'window' must be > 0, found 0}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<sliding_window>, window = 0 : i64, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_key_lengths_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<?x1xi32>) {
  // expected-error @+1 {{'key_lengths' must have rank 1 ([B]), found rank 2}}
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<?x1xi32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_key_lengths_batch(%q: tensor<2x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<3xi32>) {
  // expected-error @+1 {{'key_lengths' dim 0 (B) must equal 'query' dim 0: expected 2, found 3}}
  %o = tfm.attention %q, %k, %v key_lengths(%len : tensor<3xi32>) {scale = 0.125 : f64} : tensor<2x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<2x8x?x64xf32>
  return
}

// -----

func.func @attention_alibi_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %s: tensor<1x8xf32>) {
  // expected-error @+1 {{'alibi_slopes' must have rank 1 ([Hq]), found rank 2}}
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<1x8xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_alibi_heads(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'alibi_slopes' dim 0 (Hq) must equal 'query' dim 1: expected 8, found 2}}
  %o = tfm.attention %q, %k, %v alibi(%s : tensor<2xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_bias_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %b: tensor<?x?xf32>) {
  // expected-error @+1 {{'bias' must have rank 4 ([B, Hq, Tq, Tk]), found rank 2}}
  %o = tfm.attention %q, %k, %v bias(%b : tensor<?x?xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_bias_heads(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %b: tensor<?x1x?x?xf32>) {
  // expected-error @+1 {{'bias' dim 1 (Hq) must equal 'query' dim 1: expected 8, found 1}}
  %o = tfm.attention %q, %k, %v bias(%b : tensor<?x1x?x?xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_bias_keys(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x16x64xf32>, %v: tensor<?x2x?x64xf32>, %b: tensor<?x8x?x17xf32>) {
  // expected-error @+1 {{'bias' dim 3 (Tk) must equal 'key' dim 2: expected 16, found 17}}
  %o = tfm.attention %q, %k, %v bias(%b : tensor<?x8x?x17xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x16x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_offsets_rank(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %off: tensor<?x1xi32>) {
  // expected-error @+1 {{'offsets' must have rank 1 ([B]), found rank 2}}
  %o = tfm.attention %q, %k, %v offsets(%off : tensor<?x1xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return
}

// -----

func.func @attention_offsets_batch(%q: tensor<2x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %off: tensor<3xi64>) {
  // expected-error @+1 {{'offsets' dim 0 (B) must equal 'query' dim 0: expected 2, found 3}}
  %o = tfm.attention %q, %k, %v offsets(%off : tensor<3xi64>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<2x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<2x8x?x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.cache_append
//===----------------------------------------------------------------------===//

// -----

func.func @cache_append_update_rank(%u: tensor<?x?x16xf32>, %c: tensor<?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' must have rank 4 ([B, H, T, D]), found rank 3}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_cache_rank(%u: tensor<?x4x?x16xf32>, %c: tensor<?x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'cache' must have rank 4 ([B, H, C, D]), found rank 5}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_cache_rank_index(%u: tensor<?x4x?x16xf32>, %c: tensor<?x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'cache' must have rank 6 ([B, <index dims>, H, C, D]), found rank 5}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 1, 0>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_index_dynamic(%u: tensor<?x4x?x16xf32>, %c: tensor<?x3x?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'cache' dim 2 is selected by 'index' and must be static}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 1, 0>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_index_range(%u: tensor<?x4x?x16xf32>, %c: tensor<?x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'index' element 1 is 2, outside 'cache' dim 2 of size 2}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 2, 2>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_index_negative(%u: tensor<?x4x?x16xf32>, %c: tensor<?x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'index' element 0 is -1, outside 'cache' dim 1 of size 3}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: -1, 0>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  return
}

// -----

// f32 rows may go into a 16-bit cache (rounded), not the other way.
func.func @cache_append_narrow_update(%u: tensor<?x4x?x16xbf16>, %c: tensor<?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' element type must match that of 'cache': expected 'f32', found 'bf16'}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xbf16>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_half_mismatch(%u: tensor<?x4x?x16xf16>, %c: tensor<?x4x?x16xbf16>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' element type must match that of 'cache': expected 'bf16', found 'f16'}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf16>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xbf16>
  return
}

// -----

func.func @cache_append_batch(%u: tensor<2x4x?x16xf32>, %c: tensor<3x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' dim 0 (B) must equal 'cache' dim 0: expected 3, found 2}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 0, 1>} : tensor<2x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<3x3x2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_heads(%u: tensor<?x2x?x16xf32>, %c: tensor<?x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' dim 1 (H) must equal 'cache' dim 3: expected 4, found 2}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 0, 1>} : tensor<?x2x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_head_size(%u: tensor<?x4x?x8xf32>, %c: tensor<?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' dim 3 (D) must equal 'cache' dim 3: expected 16, found 8}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_head_size_index(%u: tensor<?x4x?x8xf32>, %c: tensor<?x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' dim 3 (D) must equal 'cache' dim 5: expected 16, found 8}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 0, 1>} : tensor<?x4x?x8xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_element_type(%u: tensor<?x4x?x16xf16>, %c: tensor<?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'update' element type must match that of 'cache': expected 'f32', found 'f16'}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf16>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_offsets_rank(%u: tensor<?x4x?x16xf32>, %c: tensor<?x4x?x16xf32>, %off: tensor<?x1xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'offsets' must have rank 1 ([B]), found rank 2}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf32>, tensor<?x1xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_offsets_batch(%u: tensor<?x4x?x16xf32>, %c: tensor<2x4x?x16xf32>, %off: tensor<3xi32>, %len: tensor<?xi32>) {
  // expected-error @+1 {{'offsets' dim 0 (B) must equal 'cache' dim 0: expected 2, found 3}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf32>, tensor<3xi32>, tensor<?xi32> -> tensor<2x4x?x16xf32>
  return
}

// -----

func.func @cache_append_lengths_rank(%u: tensor<?x4x?x16xf32>, %c: tensor<?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<i64>) {
  // expected-error @+1 {{'lengths' must have rank 1 ([B]), found rank 0}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<i64> -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @cache_append_lengths_batch(%u: tensor<?x4x?x16xf32>, %c: tensor<2x3x2x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<1xi64>) {
  // expected-error @+1 {{'lengths' dim 0 (B) must equal 'cache' dim 0: expected 2, found 1}}
  %r = tfm.cache_append %u into %c offsets(%off) lengths(%len) {index = array<i64: 2, 1>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<1xi64> -> tensor<2x3x2x4x?x16xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.split_heads, tfm.merge_heads
//===----------------------------------------------------------------------===//

// -----

func.func @split_heads_count(%x: tensor<?x?x64xf32>) {
  // expected-error @+1 {{'num_heads' must be > 0, found 0}}
  %y = tfm.split_heads %x {num_heads = 0 : i64} : (tensor<?x?x64xf32>) -> tensor<?x1x?x64xf32>
  return
}

// -----

func.func @split_heads_input_rank(%x: tensor<?x64xf32>) {
  // expected-error @+1 {{'input' must have rank 3 ([B, T, H*D]), found rank 2}}
  %y = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x64xf32>) -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @split_heads_result_heads(%x: tensor<?x?x64xf32>) {
  // expected-error @+1 {{'result' dim 1 (H) must equal 'num_heads': expected 4, found 8}}
  %y = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x8x?x8xf32>
  return
}

// -----

func.func @split_heads_divisible(%x: tensor<?x?x63xf32>) {
  // expected-error @+1 {{'input' dim 2 (H*D) must be divisible by 'num_heads': 63 is not a multiple of 4}}
  %y = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x63xf32>) -> tensor<?x4x?x16xf32>
  return
}

// -----

func.func @split_heads_head_size(%x: tensor<?x?x64xf32>) {
  // expected-error @+1 {{'result' dim 3 (D) must equal 'input' dim 2 / num_heads: expected 16, found 32}}
  %y = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x32xf32>
  return
}

// -----

func.func @split_heads_seq(%x: tensor<?x5x64xf32>) {
  // expected-error @+1 {{'result' dim 2 (T) must equal 'input' dim 1: expected 5, found 6}}
  %y = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x5x64xf32>) -> tensor<?x4x6x16xf32>
  return
}

// -----

func.func @merge_heads_rank(%x: tensor<?x?x64xf32>) {
  // expected-error @+1 {{'input' must have rank 4 ([B, H, T, D]), found rank 3}}
  %y = tfm.merge_heads %x : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return
}

// -----

func.func @merge_heads_features(%x: tensor<?x4x?x16xf32>) {
  // expected-error @+1 {{'result' dim 2 (H*D) must equal 'input' dim 1 * 'input' dim 3: expected 64, found 60}}
  %y = tfm.merge_heads %x : (tensor<?x4x?x16xf32>) -> tensor<?x?x60xf32>
  return
}

// -----

func.func @merge_heads_seq(%x: tensor<?x4x7x16xf32>) {
  // expected-error @+1 {{'result' dim 1 (T) must equal 'input' dim 2: expected 7, found 4}}
  %y = tfm.merge_heads %x : (tensor<?x4x7x16xf32>) -> tensor<?x4x64xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.transpose, tfm.softmax
//===----------------------------------------------------------------------===//

// -----

func.func @transpose_size(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'permutation' must have one entry per 'input' dimension: expected 3, found 2}}
  %y = tfm.transpose %x [1, 0] : (tensor<2x3x4xf32>) -> tensor<3x2x4xf32>
  return
}

// -----

func.func @transpose_range(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'permutation' entry 3 is out of range [0, 3)}}
  %y = tfm.transpose %x [0, 3, 1] : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

func.func @transpose_duplicate(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'permutation' is not a permutation: 1 appears twice}}
  %y = tfm.transpose %x [0, 1, 1] : (tensor<2x3x4xf32>) -> tensor<2x3x3xf32>
  return
}

// -----

func.func @transpose_result(%x: tensor<2x3x4xf32>) {
  // expected-error @+1 {{'result' dim 1 must equal 'input' dim 2 (permutation[1]): expected 4, found 3}}
  %y = tfm.transpose %x [0, 2, 1] : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return
}

// -----

func.func @transpose_result_rank(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{'result' must have rank 2 (the rank of 'input'), found rank 3}}
  %y = tfm.transpose %x [1, 0] : (tensor<2x3xf32>) -> tensor<3x2x1xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<?x4x?x?xf32>) {
  // expected-error @+1 {{'axis' must be in [0, 4) for 'input' of rank 4, found 4}}
  %y = tfm.softmax %x {axis = 4 : i64} : tensor<?x4x?x?xf32>
  return
}

// -----

func.func @softmax_negative_axis(%x: tensor<?x4x?x?xf32>) {
  // expected-error @+1 {{'axis' must be in [0, 4) for 'input' of rank 4, found -1}}
  %y = tfm.softmax %x {axis = -1 : i64} : tensor<?x4x?x?xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.make_mask, tfm.masked_fill, tfm.alibi_bias
//===----------------------------------------------------------------------===//

// -----

func.func @make_mask_rank(%s: tensor<?x?x?xf32>) {
  // expected-error @+1 {{'scores' must have rank 4 ([B, H, Tq, Tk]), found rank 3}}
  %m = tfm.make_mask %s <causal> : tensor<?x?x?xf32> -> tensor<?x?x?xi1>
  return
}

// -----

func.func @make_mask_result(%s: tensor<?x4x8x8xf32>) {
  // expected-error @+1 {{'result' dim 2 must equal 'scores' dim 2: expected 8, found 4}}
  %m = tfm.make_mask %s <causal> : tensor<?x4x8x8xf32> -> tensor<?x4x4x8xi1>
  return
}

// -----

func.func @make_mask_result_rank(%s: tensor<?x4x8x8xf32>) {
  // expected-error @+1 {{'result' must have the rank of 'scores': expected 4, found 2}}
  %m = tfm.make_mask %s <causal> : tensor<?x4x8x8xf32> -> tensor<8x8xi1>
  return
}

// -----

func.func @make_mask_window(%s: tensor<?x4x?x?xf32>) {
  // expected-error @+1 {{mask kind sliding_window requires a 'window' attribute}}
  %m = tfm.make_mask %s <sliding_window> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  return
}

// -----

func.func @make_mask_window_unexpected(%s: tensor<?x4x?x?xf32>) {
  // expected-error @+1 {{'window' is only allowed with mask kind sliding_window, found mask kind none}}
  %m = tfm.make_mask %s <none> {window = 3 : i64} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  return
}

// -----

func.func @make_mask_key_lengths(%s: tensor<2x4x?x?xf32>, %len: tensor<4xi32>) {
  // expected-error @+1 {{'key_lengths' dim 0 (B) must equal 'scores' dim 0: expected 2, found 4}}
  %m = tfm.make_mask %s key_lengths(%len : tensor<4xi32>) <none> : tensor<2x4x?x?xf32> -> tensor<2x4x?x?xi1>
  return
}

// -----

func.func @masked_fill_shape(%s: tensor<?x4x8x8xf32>, %m: tensor<?x4x8x7xi1>) {
  // expected-error @+1 {{'mask' dim 3 must equal 'input' dim 3: expected 8, found 7}}
  %f = tfm.masked_fill %s, %m {value = -1.0e9 : f64} : tensor<?x4x8x8xf32>, tensor<?x4x8x7xi1>
  return
}

// -----

func.func @masked_fill_nan(%s: tensor<?x4x8x8xf32>, %m: tensor<?x4x8x8xi1>) {
  // expected-error @+1 {{'value' must not be NaN}}
  %f = tfm.masked_fill %s, %m {value = 0x7FF8000000000000 : f64} : tensor<?x4x8x8xf32>, tensor<?x4x8x8xi1>
  return
}

// -----

func.func @alibi_bias_slopes_rank(%s: tensor<?x4x?x?xf32>, %sl: tensor<1x4xf32>) {
  // expected-error @+1 {{'slopes' must have rank 1 ([H]), found rank 2}}
  %b = tfm.alibi_bias %s, %sl : (tensor<?x4x?x?xf32>, tensor<1x4xf32>) -> tensor<?x4x?x?xf32>
  return
}

// -----

func.func @alibi_bias_heads(%s: tensor<?x4x?x?xf32>, %sl: tensor<8xf32>) {
  // expected-error @+1 {{'slopes' dim 0 (H) must equal 'scores' dim 1: expected 4, found 8}}
  %b = tfm.alibi_bias %s, %sl : (tensor<?x4x?x?xf32>, tensor<8xf32>) -> tensor<?x4x?x?xf32>
  return
}

// -----

func.func @alibi_bias_result(%s: tensor<?x4x?x?xf32>, %sl: tensor<4xf32>) {
  // expected-error @+1 {{'result' dim 1 must equal 'scores' dim 1: expected 4, found 8}}
  %b = tfm.alibi_bias %s, %sl : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x8x?x?xf32>
  return
}

// -----

func.func @alibi_bias_scores_rank(%s: tensor<?x?xf32>, %sl: tensor<4xf32>) {
  // expected-error @+1 {{'scores' must have rank 4 ([B, H, Tq, Tk]), found rank 2}}
  %b = tfm.alibi_bias %s, %sl : (tensor<?x?xf32>, tensor<4xf32>) -> tensor<?x?xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.repeat_kv
//===----------------------------------------------------------------------===//

// -----

func.func @repeat_kv_repeats(%k: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'repeats' must be > 0, found 0}}
  %r = tfm.repeat_kv %k {repeats = 0 : i64} : (tensor<?x2x?x64xf32>) -> tensor<?x2x?x64xf32>
  return
}

// -----

func.func @repeat_kv_heads(%k: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'result' dim 1 (heads) must equal 'input' dim 1 * repeats = 2 * 4: expected 8, found 4}}
  %r = tfm.repeat_kv %k {repeats = 4 : i64} : (tensor<?x2x?x64xf32>) -> tensor<?x4x?x64xf32>
  return
}

// -----

func.func @repeat_kv_rank(%k: tensor<?x?x64xf32>) {
  // expected-error @+1 {{'input' must have rank 4 ([B, Hkv, T, D]), found rank 3}}
  %r = tfm.repeat_kv %k {repeats = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x?x64xf32>
  return
}

// -----

func.func @repeat_kv_head_size(%k: tensor<?x2x?x64xf32>) {
  // expected-error @+1 {{'result' dim 3 (D) must equal 'input' dim 3: expected 64, found 32}}
  %r = tfm.repeat_kv %k {repeats = 4 : i64} : (tensor<?x2x?x64xf32>) -> tensor<?x8x?x32xf32>
  return
}

//===----------------------------------------------------------------------===//
// tfm.lm_head, tfm.classifier_head
//===----------------------------------------------------------------------===//

// -----

func.func @lm_head_weight_rank(%x: tensor<?x?x64xf32>, %w: tensor<64xf32>) {
  // expected-error @+1 {{'weight' must have rank 2 ([V, D]), found rank 1}}
  %l = tfm.lm_head %x, %w : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x100xf32>
  return
}

// -----

func.func @lm_head_weight_features(%x: tensor<?x?x64xf32>, %w: tensor<64x100xf32>) {
  // expected-error @+1 {{'weight' dim 1 (D) must equal 'input' dim 2: expected 64, found 100}}
  %l = tfm.lm_head %x, %w : (tensor<?x?x64xf32>, tensor<64x100xf32>) -> tensor<?x?x100xf32>
  return
}

// -----

func.func @lm_head_bias(%x: tensor<?x?x64xf32>, %w: tensor<100x64xf32>, %b: tensor<64xf32>) {
  // expected-error @+1 {{'bias' dim 0 (V) must equal 'weight' dim 0: expected 100, found 64}}
  %l = tfm.lm_head %x, %w, %b : (tensor<?x?x64xf32>, tensor<100x64xf32>, tensor<64xf32>) -> tensor<?x?x100xf32>
  return
}

// -----

func.func @lm_head_result_vocab(%x: tensor<?x?x64xf32>, %w: tensor<100x64xf32>) {
  // expected-error @+1 {{'result' dim 2 (V) must equal 'weight' dim 0: expected 100, found 99}}
  %l = tfm.lm_head %x, %w : (tensor<?x?x64xf32>, tensor<100x64xf32>) -> tensor<?x?x99xf32>
  return
}

// -----

func.func @lm_head_result_rank(%x: tensor<?x?x64xf32>, %w: tensor<100x64xf32>) {
  // expected-error @+1 {{'result' must have rank 3 ([..., V]), found rank 2}}
  %l = tfm.lm_head %x, %w : (tensor<?x?x64xf32>, tensor<100x64xf32>) -> tensor<?x100xf32>
  return
}

// -----

func.func @classifier_gated_pooler(%x: tensor<?x?x64xf32>, %pw: tensor<64x64xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'pooler_activation' swiglu is gated; a pooler applies an elementwise one}}
  %c = tfm.classifier_head %x pooler(%pw) classifier(%w) <first> {pooler_activation = #tfm.activation<swiglu>} : (tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_input_rank(%x: tensor<?x64xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'input' must have rank 3 ([B, T, D]), found rank 2}}
  %c = tfm.classifier_head %x classifier(%w) <first> : (tensor<?x64xf32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_weight(%x: tensor<?x?x64xf32>, %w: tensor<3x32xf32>) {
  // expected-error @+1 {{'weight' dim 1 (D) must equal 'input' dim 2: expected 64, found 32}}
  %c = tfm.classifier_head %x classifier(%w) <first> : (tensor<?x?x64xf32>, tensor<3x32xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_lengths(%x: tensor<?x?x64xf32>, %len: tensor<?x?xi32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'lengths' must have rank 1 ([B]), found rank 2}}
  %c = tfm.classifier_head %x lengths(%len) classifier(%w) <last> : (tensor<?x?x64xf32>, tensor<?x?xi32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_pooler_bias_alone(%x: tensor<?x?x64xf32>, %pb: tensor<64xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'pooler_bias' requires 'pooler_weight'}}
  %c = tfm.classifier_head %x pooler_bias(%pb) classifier(%w) <first> : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_pooler(%x: tensor<?x?x64xf32>, %pw: tensor<64x32xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'pooler_weight' dim 1 (D) must equal 'input' dim 2: expected 64, found 32}}
  %c = tfm.classifier_head %x pooler(%pw) classifier(%w) <first> : (tensor<?x?x64xf32>, tensor<64x32xf32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_pooler_bias(%x: tensor<?x?x64xf32>, %pw: tensor<64x64xf32>, %pb: tensor<32xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'pooler_bias' dim 0 (D) must equal 'input' dim 2: expected 64, found 32}}
  %c = tfm.classifier_head %x pooler(%pw) pooler_bias(%pb) classifier(%w) <first> : (tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<32xf32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_bias(%x: tensor<?x?x64xf32>, %w: tensor<3x64xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'bias' dim 0 (C) must equal 'weight' dim 0: expected 3, found 2}}
  %c = tfm.classifier_head %x classifier(%w, %b) <first> : (tensor<?x?x64xf32>, tensor<3x64xf32>, tensor<2xf32>) -> tensor<?x3xf32>
  return
}

// -----

func.func @classifier_result(%x: tensor<?x?x64xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'result' dim 1 (C) must equal 'weight' dim 0: expected 3, found 4}}
  %c = tfm.classifier_head %x classifier(%w) <first> : (tensor<?x?x64xf32>, tensor<3x64xf32>) -> tensor<?x4xf32>
  return
}

// -----

func.func @classifier_result_rank(%x: tensor<?x?x64xf32>, %w: tensor<3x64xf32>) {
  // expected-error @+1 {{'result' must have rank 2 ([B, C]), found rank 3}}
  %c = tfm.classifier_head %x classifier(%w) <first> : (tensor<?x?x64xf32>, tensor<3x64xf32>) -> tensor<?x?x3xf32>
  return
}
