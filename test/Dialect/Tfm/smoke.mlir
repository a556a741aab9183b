// RUN: tfm-opt %s | tfm-opt | FileCheck %s
// CHECK-LABEL: func @attention
// CHECK: tfm.attention %{{.*}} key_lengths(%{{.*}} : tensor<?xi32>) {mask = #tfm.mask<causal>
func.func @attention(%q: tensor<?x8x?x64xf32>, %k: tensor<?x2x?x64xf32>, %v: tensor<?x2x?x64xf32>, %l: tensor<?xi32>) -> tensor<?x8x?x64xf32> {
  %o = tfm.attention %q, %k, %v key_lengths(%l : tensor<?xi32>) {mask = #tfm.mask<causal>, scale = 0.125} : tensor<?x8x?x64xf32>, tensor<?x2x?x64xf32>, tensor<?x2x?x64xf32> -> tensor<?x8x?x64xf32>
  return %o : tensor<?x8x?x64xf32>
}
