// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=4096 l2-bytes=65536 threads=1},tfm-pack-weights,func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s
// RUN: tfm-opt %s -pass-pipeline='builtin.module(tfm-set-target{vector-bits=256 vector-registers=16 l1-bytes=4096 l2-bytes=65536 threads=1},tfm-pack-weights,func.func(tfm-cpu-configure,tfm-tile-and-vectorize))' | FileCheck %s --check-prefix=NOCOPY

// A contraction reading a bf16 panel (-tfm-pack-weights with a bf16
// precision): the register kernel loads a row of NR bf16 values, widens it
// in registers and runs the f32 vector.contract of an f32 panel; no f32
// copy of the panel is made. Both the full MR-row tiles and the remaining
// rows do so. The bf16 panel is one register tile (16 columns) wide: the
// default for every panel.
// Everything is vectorized (the widening tiles too), and the only tensor
// made is the bf16 panel: no f32 copy of it.
// NOCOPY-LABEL: func @bf16_panel
// NOCOPY-NOT: linalg.
// NOCOPY-NOT: tensor.empty() : tensor<{{.*}}xf32>
// CHECK-LABEL: func @bf16_panel
// CHECK: %[[PANEL:.*]] = scf.for
// CHECK: arith.truncf %{{.*}} : vector<16xf32> to vector<16xbf16>
// CHECK-COUNT-2: scf.for %{{.*}} iter_args(%{{.*}} = %{{.*}}) -> (vector<{{[16]}}x16xf32>) {
// CHECK-NEXT: tensor.extract_slice
// CHECK-NEXT: %[[B:.*]] = tensor.extract_slice %{{.*}} : tensor<32x16xbf16> to tensor<1x16xbf16>
// CHECK-NEXT: %[[ROW:.*]] = vector.transfer_read %[[B]]{{.*}} : tensor<1x16xbf16>, vector<1x16xbf16>
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[ROW]] : vector<1x16xbf16> to vector<1x16xf32>
// CHECK-NEXT: %[[A:.*]] = vector.transfer_read
// CHECK-NEXT: vector.contract {{.*}} %[[A]], %[[WIDE]], %{{.*}} : vector<{{[16]}}x1xf32>, vector<1x16xf32> into vector<{{[16]}}x16xf32>
#a = affine_map<(d0, d1, d2) -> (d0, d2)>
#w = affine_map<(d0, d1, d2) -> (d1, d2)>
#c = affine_map<(d0, d1, d2) -> (d0, d1)>
module attributes {tfm.precision = bf16, tfm.rounded_weights = ["w"]} {
func.func @bf16_panel(%x: tensor<?x64xf32>, %acc: tensor<?x32xf32>) -> tensor<?x32xf32> {
  %w = tfm.weight "w" : tensor<32x64xf32>
  %y = linalg.generic {indexing_maps = [#a, #w, #c], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %w : tensor<?x64xf32>, tensor<32x64xf32>) outs(%acc : tensor<?x32xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %m = arith.mulf %a, %b : f32
    %s = arith.addf %c, %m : f32
    linalg.yield %s : f32
  } -> tensor<?x32xf32>
  return %y : tensor<?x32xf32>
}
}
