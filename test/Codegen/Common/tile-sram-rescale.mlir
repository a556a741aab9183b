// RUN: tfm-opt %s -split-input-file -tfm-tile-sram -cse | FileCheck %s

// The online softmax's conditional rescaling (#tfm.attention_tiling's
// rescale_threshold = 8, the CPU's choice): per key block a row's running
// max moves only when the block's max exceeds it by more than 8 (log2
// units), alpha is 1 for the rows that keep theirs, and the accumulator is
// multiplied by alpha only when the least alpha of the block is below 1
// (an scf.if around the rescale; the sum's update stays unconditional).
// Numerics (thresholds 0, 1 and 8, peaked softmaxes whose max moves by
// more than 8 in later blocks): Numerics/tile-sram-numerics.mlir.

// CHECK-LABEL: func.func @conditional
// CHECK: scf.for {{.*}} iter_args(%[[ACC:[^ ]*]] = %{{[^,]*}}, %[[M:[^ ]*]] = %{{[^,]*}}, %[[L:[^ ]*]] = %{{[^,]*}}, {{.*}}) -> (tensor<16x64xf32>, tensor<16xf32>, tensor<16xf32>
// CHECK: %[[S:.*]] = linalg.matmul
// CHECK: %[[BM:.*]] = linalg.generic {{.*}} ins(%[[S]] : tensor<16x16xf32>)
// CHECK: arith.maxnumf
// CHECK: %[[UPD:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel"]} ins(%[[BM]] : tensor<16xf32>) outs(%[[M]], %{{.*}} : tensor<16xf32>, tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[B:.*]]: f32, %[[OLD:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[TAU:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[LIM:.*]] = arith.addf %[[OLD]], %[[TAU]] : f32
// CHECK-NEXT: %[[GROW:.*]] = arith.cmpf ogt, %[[B]], %[[LIM]] : f32
// CHECK-NEXT: %[[MNEW:.*]] = arith.select %[[GROW]], %[[B]], %[[OLD]] : f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[OLD]], %[[B]] : f32
// CHECK-NEXT: %[[E:.*]] = math.exp2 %[[D]] : f32
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: %[[ALPHA:.*]] = arith.select %[[GROW]], %[[E]], %[[ONE]] : f32
// CHECK-NEXT: linalg.yield %[[MNEW]], %[[ALPHA]] : f32, f32
// P = exp2(S - m) against the (possibly stale) max; l = l * alpha + rowsum(P).
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[UPD]]#0 : tensor<16xf32>) outs(%[[S]] : tensor<16x16xf32>)
// CHECK: math.exp2
// CHECK: linalg.generic {{.*}} ins(%[[UPD]]#1 : tensor<16xf32>) outs(%[[L]] : tensor<16xf32>)
// CHECK: arith.mulf
// The least alpha of the block's rows.
// CHECK: %[[ONES:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: %[[LEAST:.*]] = linalg.generic {{.*}}iterator_types = ["reduction"]} ins(%[[UPD]]#1 : tensor<16xf32>) outs(%[[ONES]] : tensor<f32>)
// CHECK: arith.minnumf
// CHECK: %[[LV:.*]] = tensor.extract %[[LEAST]][] : tensor<f32>
// CHECK: %[[MOVED:.*]] = arith.cmpf olt, %[[LV]], %{{.*}} : f32
// CHECK: %[[RESCALED:.*]] = scf.if %[[MOVED]] -> (tensor<16x64xf32>) {
// CHECK:   linalg.generic {{.*}} ins(%[[UPD]]#1 : tensor<16xf32>) outs(%[[ACC]] : tensor<16x64xf32>)
// CHECK:   arith.mulf
// CHECK: } else {
// CHECK:   scf.yield %[[ACC]] : tensor<16x64xf32>
// CHECK: }
// CHECK: linalg.matmul {{.*}} outs(%[[RESCALED]] : tensor<16x64xf32>)
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
func.func @conditional(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_tiling<block_q = 16, block_k = 16, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = true, rescale_threshold = 8>} : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}

// -----

// rescale_threshold = 0 (the GPU's, or the option's 0): every block moves
// the max to max(m, rowmax) and rescales, no branch.
// CHECK-LABEL: func.func @every_block
// CHECK-NOT: scf.if
// CHECK: arith.maximumf
// CHECK-NOT: scf.if
// CHECK: } {tfm.key_blocks = #tfm.key_blocks<full>}
func.func @every_block(%q: tensor<1x4x?x64xf32>, %k: tensor<1x4x?x64xf32>, %v: tensor<1x4x?x64xf32>) -> tensor<1x4x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<none>, scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_tiling<block_q = 16, block_k = 16, group = 1, footprint_bytes = 1000, budget_bytes = 2000, transposed_scores = true>} : tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x?x64xf32>
  return %o : tensor<1x4x?x64xf32>
}
