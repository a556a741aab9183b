// RUN: tfm-opt %s -convert-tfm-to-linalg -split-input-file -verify-diagnostics

// The lowering needs static model dimensions.
func.func @dynamic_heads(%q: tensor<?x?x?x8xf32>, %k: tensor<?x?x?x8xf32>, %v: tensor<?x?x?x8xf32>) -> tensor<?x?x?x8xf32> {
  // expected-error @+2 {{head counts and head sizes must be static}}
  // expected-error @+1 {{failed to legalize operation 'tfm.attention'}}
  %o = tfm.attention %q, %k, %v {scale = 0.5 : f64} : tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32>, tensor<?x?x?x8xf32> -> tensor<?x?x?x8xf32>
  return %o : tensor<?x?x?x8xf32>
}

// -----

func.func @dynamic_weight(%x: tensor<?x8xf32>, %w: tensor<?x8xf32>) -> tensor<?x?xf32> {
  // expected-error @+2 {{expects a static 2-D weight}}
  // expected-error @+1 {{failed to legalize operation 'tfm.linear'}}
  %y = tfm.linear %x, %w : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
