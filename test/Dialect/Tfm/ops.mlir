// RUN: tfm-opt %s | tfm-opt | FileCheck %s
// RUN: tfm-opt %s --mlir-print-op-generic | tfm-opt | FileCheck %s

// Every tfm op, parsed, printed in custom form and re-parsed (first RUN line),
// and printed in generic form and re-parsed (second RUN line).

// CHECK-LABEL: func @params
func.func @params(%ids: tensor<?x?xi32>, %len: tensor<?xi32>) -> tensor<?x?x64xf32> {
  // CHECK: %[[TABLE:.*]] = tfm.weight "embed.tokens" : tensor<100x64xf32>
  %table = tfm.weight "embed.tokens" : tensor<100x64xf32>
  // CHECK: %[[POS:.*]] = tfm.weight "embed.positions" : tensor<32x64xf32>
  %pos = tfm.weight "embed.positions" : tensor<32x64xf32>
  // CHECK: %[[X:.*]] = tfm.embedding %{{.*}}, %[[TABLE]] : (tensor<?x?xi32>, tensor<100x64xf32>) -> tensor<?x?x64xf32>
  %x = tfm.embedding %ids, %table : (tensor<?x?xi32>, tensor<100x64xf32>) -> tensor<?x?x64xf32>
  // CHECK: %[[S:.*]] = tfm.sinusoidal_position %[[X]] : tensor<?x?x64xf32>
  %s = tfm.sinusoidal_position %x : tensor<?x?x64xf32>
  // CHECK: tfm.learned_position %[[S]], %[[POS]] : (tensor<?x?x64xf32>, tensor<32x64xf32>) -> tensor<?x?x64xf32>
  %l = tfm.learned_position %s, %pos : (tensor<?x?x64xf32>, tensor<32x64xf32>) -> tensor<?x?x64xf32>
  return %l : tensor<?x?x64xf32>
}

// CHECK-LABEL: func @params_offsets
// With offsets, T may exceed P (positions are only known at run time).
func.func @params_offsets(%x: tensor<?x9x64xf32>, %off: tensor<?xi32>, %off64: tensor<?xi64>) -> tensor<?x9x64xf32> {
  // CHECK: %[[POS:.*]] = tfm.weight "embed.positions" : tensor<8x64xf32>
  %pos = tfm.weight "embed.positions" : tensor<8x64xf32>
  // CHECK: %[[S:.*]] = tfm.sinusoidal_position %arg0 offsets(%arg1 : tensor<?xi32>) : tensor<?x9x64xf32>
  %s = tfm.sinusoidal_position %x offsets(%off : tensor<?xi32>) : tensor<?x9x64xf32>
  // CHECK: tfm.learned_position %[[S]], %[[POS]] offsets(%arg2) : (tensor<?x9x64xf32>, tensor<8x64xf32>, tensor<?xi64>) -> tensor<?x9x64xf32>
  %l = tfm.learned_position %s, %pos offsets(%off64) : (tensor<?x9x64xf32>, tensor<8x64xf32>, tensor<?xi64>) -> tensor<?x9x64xf32>
  return %l : tensor<?x9x64xf32>
}

// CHECK-LABEL: func @rope
func.func @rope(%q: tensor<?x8x?x64xf32>) -> (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>) {
  // CHECK: tfm.rope %{{.*}} {theta = 1.000000e+04 : f64} : tensor<?x8x?x64xf32>
  %a = tfm.rope %q {theta = 10000.0 : f64} : tensor<?x8x?x64xf32>
  // CHECK: tfm.rope %{{.*}} {rotary_dim = 32 : i64, scaling_factor = 2.000000e+00 : f64, style = #tfm.rope_style<interleaved>, theta = 5.000000e+05 : f64} : tensor<?x8x?x64xf32>
  %b = tfm.rope %a {theta = 500000.0 : f64, scaling_factor = 2.0 : f64, style = #tfm.rope_style<interleaved>, rotary_dim = 32 : i64} : tensor<?x8x?x64xf32>
  return %a, %b : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>
}

// CHECK-LABEL: func @rope_offsets
func.func @rope_offsets(%q: tensor<2x8x?x64xf32>, %off: tensor<2xi64>) -> tensor<2x8x?x64xf32> {
  // CHECK: tfm.rope %arg0 offsets(%arg1 : tensor<2xi64>) {style = #tfm.rope_style<interleaved>, theta = 1.000000e+04 : f64} : tensor<2x8x?x64xf32>
  %a = tfm.rope %q offsets(%off : tensor<2xi64>) {theta = 10000.0 : f64, style = #tfm.rope_style<interleaved>} : tensor<2x8x?x64xf32>
  return %a : tensor<2x8x?x64xf32>
}

// RoPE scaling of released checkpoints: explicit frequencies, LongRoPE's
// long set, the attention factor.
// CHECK-LABEL: func @rope_scaled
func.func @rope_scaled(%q: tensor<?x8x?x8xf32>) -> (tensor<?x8x?x8xf32>, tensor<?x8x?x8xf32>) {
  // CHECK: tfm.rope %{{.*}} {attention_factor = 1.125000e+00 : f64, inv_freq = array<f64: 1.000000e+00, 1.000000e-01, 1.000000e-02, 1.000000e-03>, theta = 1.000000e+04 : f64}
  %a = tfm.rope %q {theta = 10000.0 : f64, inv_freq = array<f64: 1.0, 0.1, 0.01, 0.001>, attention_factor = 1.125 : f64} : tensor<?x8x?x8xf32>
  // CHECK: tfm.rope %{{.*}} {inv_freq = array<f64: 1.000000e+00, 1.000000e-01>, long_after = 4096 : i64, long_inv_freq = array<f64: 5.000000e-01, 2.500000e-02>, rotary_dim = 4 : i64, theta = 1.000000e+04 : f64}
  %b = tfm.rope %a {theta = 10000.0 : f64, rotary_dim = 4 : i64, inv_freq = array<f64: 1.0, 0.1>, long_inv_freq = array<f64: 0.5, 0.025>, long_after = 4096 : i64} : tensor<?x8x?x8xf32>
  return %a, %b : tensor<?x8x?x8xf32>, tensor<?x8x?x8xf32>
}

// Gemma's 1 + w gain; Qwen3's per-head norm of q and k.
// CHECK-LABEL: func @rms_norm_variants
func.func @rms_norm_variants(%x: tensor<?x?x64xf32>, %q: tensor<?x4x?x16xf32>, %g: tensor<64xf32>, %gh: tensor<16xf32>) -> (tensor<?x?x64xf32>, tensor<?x4x?x16xf32>) {
  // CHECK: tfm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64, gamma_offset = 1.000000e+00 : f64}
  %a = tfm.rms_norm %x, %g {eps = 1.0e-6 : f64, gamma_offset = 1.0 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  // CHECK: tfm.rms_norm %{{.*}}, %{{.*}} {eps = 9.9999999999999995E-7 : f64} : (tensor<?x4x?x16xf32>, tensor<16xf32>) -> tensor<?x4x?x16xf32>
  %b = tfm.rms_norm %q, %gh {eps = 1.0e-6 : f64} : (tensor<?x4x?x16xf32>, tensor<16xf32>) -> tensor<?x4x?x16xf32>
  return %a, %b : tensor<?x?x64xf32>, tensor<?x4x?x16xf32>
}

// Vision and T5 inputs: patches, the [CLS] token, the relative bias.
// CHECK-LABEL: func @vision_and_relative
func.func @vision_and_relative(%px: tensor<?x3x20x20xf32>, %w: tensor<40x3x4x4xf32>, %b: tensor<40xf32>, %cls: tensor<40xf32>, %table: tensor<32x8xf32>, %n: index, %t: index) -> (tensor<?x26x40xf32>, tensor<?x8x?x?xf32>) {
  // CHECK: %[[P:.*]] = tfm.patch_embed %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x3x20x20xf32>, tensor<40x3x4x4xf32>, tensor<40xf32>) -> tensor<?x25x40xf32>
  %p = tfm.patch_embed %px, %w, %b : (tensor<?x3x20x20xf32>, tensor<40x3x4x4xf32>, tensor<40xf32>) -> tensor<?x25x40xf32>
  // CHECK: tfm.prepend_token %[[P]], %{{.*}} : (tensor<?x25x40xf32>, tensor<40xf32>) -> tensor<?x26x40xf32>
  %x = tfm.prepend_token %p, %cls : (tensor<?x25x40xf32>, tensor<40xf32>) -> tensor<?x26x40xf32>
  // CHECK: tfm.relative_position_bias %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] {bidirectional, max_distance = 128 : i64} : tensor<32x8xf32> -> tensor<?x8x?x?xf32>
  %r = tfm.relative_position_bias %table [%n, %t, %t] {bidirectional, max_distance = 128 : i64} : tensor<32x8xf32> -> tensor<?x8x?x?xf32>
  return %x, %r : tensor<?x26x40xf32>, tensor<?x8x?x?xf32>
}

// CHECK-LABEL: func @norms
func.func @norms(%x: tensor<?x?x64xf32>) -> tensor<?x?x64xf32> {
  %g = tfm.weight "norm.weight" : tensor<64xf32>
  %b = tfm.weight "norm.bias" : tensor<64xf32>
  // CHECK: %[[LN:.*]] = tfm.layer_norm %{{.*}}, %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %ln = tfm.layer_norm %x, %g, %b {eps = 1.0e-5 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  // CHECK: %[[LN2:.*]] = tfm.layer_norm %[[LN]], %{{.*}} {eps = 9.9999999999999998E-13 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %ln2 = tfm.layer_norm %ln, %g {eps = 1.0e-12 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  // CHECK: %[[RMS:.*]] = tfm.rms_norm %[[LN2]], %{{.*}} {eps = 9.9999999999999995E-7 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %rms = tfm.rms_norm %ln2, %g {eps = 1.0e-6 : f64} : (tensor<?x?x64xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  // CHECK: %[[ADD:.*]] = tfm.add %[[RMS]], %{{.*}} : tensor<?x?x64xf32>
  %add = tfm.add %rms, %x : tensor<?x?x64xf32>
  // CHECK: %[[SC:.*]] = tfm.scale %[[ADD]] {factor = 1.250000e-01 : f64} : tensor<?x?x64xf32>
  %sc = tfm.scale %add {factor = 0.125 : f64} : tensor<?x?x64xf32>
  // CHECK: %[[ACT:.*]] = tfm.activation %[[SC]] <gelu_tanh> : tensor<?x?x64xf32>
  %act = tfm.activation %sc <gelu_tanh> : tensor<?x?x64xf32>
  // CHECK: tfm.activation %[[ACT]] <tanh> : tensor<?x?x64xf32>
  %t = tfm.activation %act <tanh> : tensor<?x?x64xf32>
  return %t : tensor<?x?x64xf32>
}

// CHECK-LABEL: func @projections
func.func @projections(%x: tensor<?x?x64xf32>, %a: tensor<?x4x?x16xf32>, %b: tensor<?x4x?x16xf32>) -> (tensor<?x?x64xf32>, tensor<?x4x?x?xf32>) {
  %w = tfm.weight "q.weight" : tensor<128x64xf32>
  %wb = tfm.weight "q.bias" : tensor<128xf32>
  %wt = tfm.weight "c_attn.weight" : tensor<64x128xf32>
  // CHECK: tfm.linear %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  %y = tfm.linear %x, %w, %wb : (tensor<?x?x64xf32>, tensor<128x64xf32>, tensor<128xf32>) -> tensor<?x?x128xf32>
  // CHECK: tfm.linear %{{.*}}, %{{.*}} {layout = #tfm.layout<in_out>} : (tensor<?x?x64xf32>, tensor<64x128xf32>) -> tensor<?x?x128xf32>
  %z = tfm.linear %x, %wt {layout = #tfm.layout<in_out>} : (tensor<?x?x64xf32>, tensor<64x128xf32>) -> tensor<?x?x128xf32>
  // CHECK: tfm.matmul %{{.*}}, %{{.*}} {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  %s = tfm.matmul %a, %b {transpose_rhs} : (tensor<?x4x?x16xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x?xf32>
  // CHECK: tfm.matmul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %m0 = tfm.weight "m0" : tensor<2x3xf32>
  %m1 = tfm.weight "m1" : tensor<3x5xf32>
  %m = tfm.matmul %m0, %m1 : (tensor<2x3xf32>, tensor<3x5xf32>) -> tensor<2x5xf32>
  %up = tfm.weight "ffn.up.weight" : tensor<256x64xf32>
  %upb = tfm.weight "ffn.up.bias" : tensor<256xf32>
  %gate = tfm.weight "ffn.gate.weight" : tensor<256x64xf32>
  %down = tfm.weight "ffn.down.weight" : tensor<64x256xf32>
  %downb = tfm.weight "ffn.down.bias" : tensor<64xf32>
  // CHECK: %[[F1:.*]] = tfm.ffn %{{.*}} up(%{{.*}}, %{{.*}}) down(%{{.*}}, %{{.*}}) <gelu> : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  %f1 = tfm.ffn %x up(%up, %upb) down(%down, %downb) <gelu> : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256xf32>, tensor<64x256xf32>, tensor<64xf32>) -> tensor<?x?x64xf32>
  // CHECK: tfm.ffn %[[F1]] up(%{{.*}}) gate(%{{.*}}) down(%{{.*}}) <swiglu> : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>) -> tensor<?x?x64xf32>
  %f2 = tfm.ffn %f1 up(%up) gate(%gate) down(%down) <swiglu> : (tensor<?x?x64xf32>, tensor<256x64xf32>, tensor<256x64xf32>, tensor<64x256xf32>) -> tensor<?x?x64xf32>
  %upt = tfm.weight "ffn.up.t" : tensor<64x256xf32>
  %gatet = tfm.weight "ffn.gate.t" : tensor<64x256xf32>
  %gateb = tfm.weight "ffn.gate.bias" : tensor<256xf32>
  %downt = tfm.weight "ffn.down.t" : tensor<256x64xf32>
  // CHECK: tfm.ffn %{{.*}} up(%{{.*}}) gate(%{{.*}}) gate_bias(%{{.*}}) down(%{{.*}}) <geglu> {layout = #tfm.layout<in_out>} : (tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>) -> tensor<?x?x64xf32>
  %f3 = tfm.ffn %f2 up(%upt) gate(%gatet) gate_bias(%gateb) down(%downt) <geglu> {layout = #tfm.layout<in_out>} : (tensor<?x?x64xf32>, tensor<64x256xf32>, tensor<64x256xf32>, tensor<256xf32>, tensor<256x64xf32>) -> tensor<?x?x64xf32>
  return %f3, %s : tensor<?x?x64xf32>, tensor<?x4x?x?xf32>
}

// CHECK-LABEL: func @attention
func.func @attention(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<?xi32>, %bias: tensor<?x8x?x?xf32>) -> (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>) {
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%{{.*}} : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  %o1 = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  %slopes = tfm.alibi_slopes : tensor<8xf32>
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} alibi(%{{.*}} : tensor<8xf32>) bias(%{{.*}} : tensor<?x8x?x?xf32>) {scale = 1.000000e+00 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  %o2 = tfm.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) bias(%bias : tensor<?x8x?x?xf32>) {scale = 1.0 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} {mask = #tfm.mask<sliding_window>, scale = 1.250000e-01 : f64, window = 4096 : i64}
  %o3 = tfm.attention %q, %k, %v {mask = #tfm.mask<sliding_window>, window = 4096 : i64, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o1, %o2, %o3 : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>
}

// CHECK-LABEL: func @attention_offsets
func.func @attention_offsets(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %len: tensor<?xi32>, %off: tensor<?xi32>) -> (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>) {
  // CHECK: tfm.attention %arg0, %arg1, %arg2 offsets(%arg4 : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  %o1 = tfm.attention %q, %k, %v offsets(%off : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  // Every optional operand, in the order of the assembly format.
  %slopes = tfm.alibi_slopes : tensor<8xf32>
  // CHECK: tfm.attention %{{.*}}, %{{.*}}, %{{.*}} key_lengths(%arg3 : tensor<?xi32>) offsets(%arg4 : tensor<?xi32>) alibi(%{{.*}} : tensor<8xf32>) {mask = #tfm.mask<sliding_window>, scale = 1.250000e-01 : f64, window = 16 : i64}
  %o2 = tfm.attention %q, %k, %v key_lengths(%len : tensor<?xi32>) offsets(%off : tensor<?xi32>) alibi(%slopes : tensor<8xf32>) {mask = #tfm.mask<sliding_window>, window = 16 : i64, scale = 0.125 : f64} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o1, %o2 : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>
}

// 16-bit Q, K and V (rounded for tensor cores) with an f32 result: the
// bias and the ALiBi slopes then have the result's type. Or all one type.
// CHECK-LABEL: func @attention_half_inputs
func.func @attention_half_inputs(%q: tensor<?x8x?x64xbf16>, %k: tensor<?x2x?x64xbf16>, %v: tensor<?x2x?x64xbf16>, %qh: tensor<?x8x?x64xf16>, %kh: tensor<?x2x?x64xf16>, %vh: tensor<?x2x?x64xf16>, %bias: tensor<?x8x?x?xf32>, %bias16: tensor<?x8x?x?xbf16>) -> (tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xbf16>) {
  // CHECK: tfm.attention %arg0, %arg1, %arg2 {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  %o1 = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  %slopes = tfm.alibi_slopes : tensor<8xf32>
  // CHECK: tfm.attention %arg0, %arg1, %arg2 alibi(%{{.*}} : tensor<8xf32>) bias(%arg6 : tensor<?x8x?x?xf32>) {scale = 1.250000e-01 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  %o2 = tfm.attention %q, %k, %v alibi(%slopes : tensor<8xf32>) bias(%bias : tensor<?x8x?x?xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xf32>
  // CHECK: tfm.attention %arg3, %arg4, %arg5 bias(%arg6 : tensor<?x8x?x?xf32>) {scale = 1.250000e-01 : f64} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf32>
  %o3 = tfm.attention %qh, %kh, %vh bias(%bias : tensor<?x8x?x?xf32>) {scale = 0.125 : f64} : tensor<?x8x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x8x?x64xf32>
  // CHECK: tfm.attention %arg0, %arg1, %arg2 bias(%arg7 : tensor<?x8x?x?xbf16>) {scale = 1.250000e-01 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  %o4 = tfm.attention %q, %k, %v bias(%bias16 : tensor<?x8x?x?xbf16>) {scale = 0.125 : f64} : tensor<?x8x?x64xbf16>, tensor<?x2x?x64xbf16>, tensor<?x2x?x64xbf16> -> tensor<?x8x?x64xbf16>
  return %o1, %o2, %o3, %o4 : tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xf32>, tensor<?x8x?x64xbf16>
}

// CHECK-LABEL: func @cache_append
func.func @cache_append(%k: tensor<?x4x?x16xf32>, %v: tensor<?x4x?x16xf32>, %cache: tensor<?x3x2x4x?x16xf32>, %plain: tensor<?x4x?x16xf32>, %off: tensor<?xi32>, %len: tensor<?xi32>) -> (tensor<?x3x2x4x?x16xf32>, tensor<?x4x?x16xf32>) {
  // CHECK: %[[C1:.*]] = tfm.cache_append %arg0 into %arg2 offsets(%arg4) lengths(%arg5) {index = array<i64: 2, 0>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  %c1 = tfm.cache_append %k into %cache offsets(%off) lengths(%len) {index = array<i64: 2, 0>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  // CHECK: tfm.cache_append %arg1 into %[[C1]] offsets(%arg4) lengths(%arg5) {index = array<i64: 2, 1>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  %c2 = tfm.cache_append %v into %c1 offsets(%off) lengths(%len) {index = array<i64: 2, 1>} : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x3x2x4x?x16xf32>
  // Without 'index' the cache is [B, H, C, D] (the default, empty index, is
  // not printed).
  // CHECK: tfm.cache_append %arg0 into %arg3 offsets(%arg4) lengths(%arg5) : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  %c3 = tfm.cache_append %k into %plain offsets(%off) lengths(%len) : tensor<?x4x?x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x4x?x16xf32>
  return %c2, %c3 : tensor<?x3x2x4x?x16xf32>, tensor<?x4x?x16xf32>
}

// A KV cache stored in 16 bits: f32 rows rounded into it, read by an f32
// query.
// CHECK-LABEL: func @half_kv_cache
func.func @half_kv_cache(%q: tensor<?x8x1x16xf32>, %k: tensor<?x4x1x16xf32>, %cache: tensor<?x2x4x?x16xbf16>, %off: tensor<?xi32>, %len: tensor<?xi32>) -> tensor<?x8x1x16xf32> {
  // CHECK: tfm.cache_append %arg1 into %arg2 offsets(%arg3) lengths(%arg4) {index = array<i64: 0>} : tensor<?x4x1x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x4x?x16xbf16>
  %c = tfm.cache_append %k into %cache offsets(%off) lengths(%len) {index = array<i64: 0>} : tensor<?x4x1x16xf32>, tensor<?xi32>, tensor<?xi32> -> tensor<?x2x4x?x16xbf16>
  %c0 = arith.constant 0 : index
  %b = tensor.dim %c, %c0 : tensor<?x2x4x?x16xbf16>
  %c3 = arith.constant 3 : index
  %n = tensor.dim %c, %c3 : tensor<?x2x4x?x16xbf16>
  %kc = tensor.extract_slice %c[0, 0, 0, 0, 0] [%b, 1, 4, %n, 16] [1, 1, 1, 1, 1] : tensor<?x2x4x?x16xbf16> to tensor<?x4x?x16xbf16>
  %vc = tensor.extract_slice %c[0, 1, 0, 0, 0] [%b, 1, 4, %n, 16] [1, 1, 1, 1, 1] : tensor<?x2x4x?x16xbf16> to tensor<?x4x?x16xbf16>
  // CHECK: tfm.attention %arg0, %{{.*}}, %{{.*}} offsets(%arg3 : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 2.500000e-01 : f64} : tensor<?x8x1x16xf32>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16> -> tensor<?x8x1x16xf32>
  %o = tfm.attention %q, %kc, %vc offsets(%off : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.25 : f64} : tensor<?x8x1x16xf32>, tensor<?x4x?x16xbf16>, tensor<?x4x?x16xbf16> -> tensor<?x8x1x16xf32>
  return %o : tensor<?x8x1x16xf32>
}

// CHECK-LABEL: func @unfused_attention
func.func @unfused_attention(%x: tensor<?x?x64xf32>, %kv: tensor<?x2x?x16xf32>, %len: tensor<?xi32>) -> tensor<?x?x64xf32> {
  // CHECK: %[[Q:.*]] = tfm.split_heads %{{.*}} {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  %q = tfm.split_heads %x {num_heads = 4 : i64} : (tensor<?x?x64xf32>) -> tensor<?x4x?x16xf32>
  // CHECK: %[[K:.*]] = tfm.repeat_kv %{{.*}} {repeats = 2 : i64} : (tensor<?x2x?x16xf32>) -> tensor<?x4x?x16xf32>
  %k = tfm.repeat_kv %kv {repeats = 2 : i64} : (tensor<?x2x?x16xf32>) -> tensor<?x4x?x16xf32>
  // CHECK: %[[KT:.*]] = tfm.transpose %[[K]] [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  %kt = tfm.transpose %k [0, 1, 3, 2] : (tensor<?x4x?x16xf32>) -> tensor<?x4x16x?xf32>
  // CHECK: %[[S:.*]] = tfm.matmul %[[Q]], %[[KT]] : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  %s = tfm.matmul %q, %kt : (tensor<?x4x?x16xf32>, tensor<?x4x16x?xf32>) -> tensor<?x4x?x?xf32>
  // CHECK: %[[M:.*]] = tfm.make_mask %[[S]] key_lengths(%{{.*}} : tensor<?xi32>) <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %m = tfm.make_mask %s key_lengths(%len : tensor<?xi32>) <causal> : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  // CHECK: tfm.make_mask %[[S]] <sliding_window> {window = 16 : i64} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  %m2 = tfm.make_mask %s <sliding_window> {window = 16 : i64} : tensor<?x4x?x?xf32> -> tensor<?x4x?x?xi1>
  // CHECK: %[[F:.*]] = tfm.masked_fill %[[S]], %[[M]] {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %f = tfm.masked_fill %s, %m {value = 0xFFF0000000000000 : f64} : tensor<?x4x?x?xf32>, tensor<?x4x?x?xi1>
  %slopes = tfm.alibi_slopes : tensor<4xf32>
  // CHECK: %[[AB:.*]] = tfm.alibi_bias %[[F]], %{{.*}} : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  %ab = tfm.alibi_bias %f, %slopes : (tensor<?x4x?x?xf32>, tensor<4xf32>) -> tensor<?x4x?x?xf32>
  // CHECK: %[[P:.*]] = tfm.softmax %[[AB]] {axis = 3 : i64} : tensor<?x4x?x?xf32>
  %p = tfm.softmax %ab {axis = 3 : i64} : tensor<?x4x?x?xf32>
  // CHECK: %[[O:.*]] = tfm.matmul %[[P]], %[[K]] : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  %o = tfm.matmul %p, %k : (tensor<?x4x?x?xf32>, tensor<?x4x?x16xf32>) -> tensor<?x4x?x16xf32>
  // CHECK: tfm.merge_heads %[[O]] : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  %y = tfm.merge_heads %o : (tensor<?x4x?x16xf32>) -> tensor<?x?x64xf32>
  return %y : tensor<?x?x64xf32>
}

// CHECK-LABEL: func @heads
func.func @heads(%x: tensor<?x?x64xf32>, %len: tensor<?xi32>) -> (tensor<?x?x100xf32>, tensor<?x3xf32>, tensor<?x3xf32>) {
  %e = tfm.weight "embed.tokens" : tensor<100x64xf32>
  // CHECK: tfm.lm_head %{{.*}}, %{{.*}} {tied} : (tensor<?x?x64xf32>, tensor<100x64xf32>) -> tensor<?x?x100xf32>
  %logits = tfm.lm_head %x, %e {tied} : (tensor<?x?x64xf32>, tensor<100x64xf32>) -> tensor<?x?x100xf32>
  %hw = tfm.weight "lm_head.weight" : tensor<100x64xf32>
  %hb = tfm.weight "lm_head.bias" : tensor<100xf32>
  // CHECK: tfm.lm_head %{{.*}}, %{{.*}}, %{{.*}} : (tensor<?x?x64xf32>, tensor<100x64xf32>, tensor<100xf32>) -> tensor<?x?x100xf32>
  %logits2 = tfm.lm_head %x, %hw, %hb : (tensor<?x?x64xf32>, tensor<100x64xf32>, tensor<100xf32>) -> tensor<?x?x100xf32>
  %pw = tfm.weight "pooler.weight" : tensor<64x64xf32>
  %pb = tfm.weight "pooler.bias" : tensor<64xf32>
  %cw = tfm.weight "classifier.weight" : tensor<3x64xf32>
  %cb = tfm.weight "classifier.bias" : tensor<3xf32>
  // CHECK: tfm.classifier_head %{{.*}} pooler(%{{.*}}) pooler_bias(%{{.*}}) classifier(%{{.*}}, %{{.*}}) <first> : (tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<3x64xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  %c1 = tfm.classifier_head %x pooler(%pw) pooler_bias(%pb) classifier(%cw, %cb) <first> : (tensor<?x?x64xf32>, tensor<64x64xf32>, tensor<64xf32>, tensor<3x64xf32>, tensor<3xf32>) -> tensor<?x3xf32>
  // CHECK: tfm.classifier_head %{{.*}} lengths(%{{.*}}) classifier(%{{.*}}) <last> : (tensor<?x?x64xf32>, tensor<?xi32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  %c2 = tfm.classifier_head %x lengths(%len) classifier(%cw) <last> : (tensor<?x?x64xf32>, tensor<?xi32>, tensor<3x64xf32>) -> tensor<?x3xf32>
  return %logits, %c1, %c2 : tensor<?x?x100xf32>, tensor<?x3xf32>, tensor<?x3xf32>
}
