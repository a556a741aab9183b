// RUN: tfm-opt %s -split-input-file -tfm-set-target=vector-bits=256 -tfm-configure-attention -tfm-tile-sram | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-set-target=vector-bits=256 -tfm-configure-attention -tfm-tile-sram -tfm-configure-attention -tfm-tile-sram | FileCheck %s

// The cost model keeps attention over few keys untiled: statically when Tk
// is known, else by a branch on Tk (untiled-max-keys, 256 by default).
// Ops it kept (#tfm.attention_untiled) are left
// alone by a second run.

// CHECK-LABEL: func.func @dynamic_keys
// CHECK-SAME: (%[[Q:[^:]*]]: tensor<?x4x?x32xf32>, %[[K:[^:]*]]: tensor<?x4x?x32xf32>, %[[V:[^:]*]]: tensor<?x4x?x32xf32>)
// CHECK: %[[TK:.*]] = tensor.dim %[[K]], %c2
// CHECK: %[[SHORT:.*]] = arith.cmpi sle, %[[TK]], %c256
// CHECK: %[[R:.*]] = scf.if %[[SHORT]] -> (tensor<?x4x?x32xf32>) {
// CHECK-NEXT: %[[U:.*]] = tfm.attention %[[Q]], %[[K]], %[[V]] {mask = #tfm.mask<causal>, scale = 1.250000e-01 : f64, tfm.lowering_config = #tfm.attention_untiled}
// CHECK-NEXT: scf.yield %[[U]]
// CHECK-NEXT: } else {
// CHECK: %[[T:.*]] = scf.forall
// CHECK: } {tfm.lowering_config = #tfm.attention_tiling<{{.*}}, untiled_max_keys = 256, transposed_scores = true, rescale_threshold = 8>}
// CHECK-NEXT: scf.yield %[[T]]
// CHECK: return %[[R]]
func.func @dynamic_keys(%q: tensor<?x4x?x32xf32>, %k: tensor<?x4x?x32xf32>, %v: tensor<?x4x?x32xf32>) -> tensor<?x4x?x32xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32>, tensor<?x4x?x32xf32> -> tensor<?x4x?x32xf32>
  return %o : tensor<?x4x?x32xf32>
}

// -----

// CHECK-LABEL: func.func @short_static
// CHECK-NOT: scf.
// CHECK: tfm.attention {{.*}}tfm.lowering_config = #tfm.attention_untiled
// CHECK-NOT: scf.
func.func @short_static(%q: tensor<?x4x128x32xf32>, %k: tensor<?x4x128x32xf32>, %v: tensor<?x4x128x32xf32>) -> tensor<?x4x128x32xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x128x32xf32>, tensor<?x4x128x32xf32>, tensor<?x4x128x32xf32> -> tensor<?x4x128x32xf32>
  return %o : tensor<?x4x128x32xf32>
}

// -----

// CHECK-LABEL: func.func @long_static
// CHECK-NOT: scf.if
// CHECK-NOT: tfm.attention
// CHECK: scf.forall
// CHECK: {tfm.lowering_config = #tfm.attention_tiling<
func.func @long_static(%q: tensor<?x4x512x32xf32>, %k: tensor<?x4x512x32xf32>, %v: tensor<?x4x512x32xf32>) -> tensor<?x4x512x32xf32> {
  %o = tfm.attention %q, %k, %v {scale = 0.125 : f64} : tensor<?x4x512x32xf32>, tensor<?x4x512x32xf32>, tensor<?x4x512x32xf32> -> tensor<?x4x512x32xf32>
  return %o : tensor<?x4x512x32xf32>
}
