// RUN: tfm-opt %s --tfm-lower-to-linalg | FileCheck %s --check-prefix=LINALG
// RUN: tfm-opt %s --tfm-lower-to-llvm="fuse-attention=false" | FileCheck %s --check-prefix=LLVM

// Elementwise arith on tensors (here an unfused attention chain's scale,
// written as arith.mulf by some frontends) is lowered with the rest: the
// pipeline turns it into linalg.generic before bufferization, which would
// otherwise reject it ("op was not bufferized").

// LINALG-LABEL: func.func @scale_scores
// LINALG-NOT: arith.mulf {{.*}} : tensor
// LINALG: linalg.generic
// LINALG: arith.mulf {{.*}} : f32
// LLVM: llvm.func @scale_scores
// LLVM-NOT: tensor<
func.func @scale_scores(%s: tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf32> {
  %c = arith.constant dense<0.125> : tensor<2x4x8x8xf32>
  %r = arith.mulf %s, %c : tensor<2x4x8x8xf32>
  return %r : tensor<2x4x8x8xf32>
}
