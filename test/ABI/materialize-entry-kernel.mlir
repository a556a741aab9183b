// RUN: tfm-opt %s -tfm-materialize-entry -split-input-file -verify-diagnostics | FileCheck %s
// RUN: tfm-opt %s -split-input-file -tfm-lower-to-llvm | FileCheck %s --check-prefix=LLVM

// A kernel entry (tfm.architecture = "kernel"): any ranked-tensor inputs,
// the weights table, an out-param, no manifest, no other module attribute.
// CHECK-LABEL: module attributes
// CHECK-SAME: tfm.weights = [{name = "bias", shape = [64]}]
// CHECK: func.func @gemm(%[[TABLE:.*]]: !llvm.ptr, %[[A:.*]]: tensor<?x32xf32> {bufferization.writable = false}, %[[B:.*]]: tensor<32x64xf32> {bufferization.writable = false}, %[[OUT:.*]]: memref<?x64xf32>)
// CHECK-SAME: attributes {llvm.emit_c_interface, tfm.entry}
// CHECK: llvm.load
// CHECK: %[[R:.*]] = tfm.linear %[[A]], %[[B]], %{{.*}}
// CHECK: bufferization.materialize_in_destination %[[R]] in restrict writable %[[OUT]]
// CHECK-NOT: tfm_model_manifest
// LLVM-LABEL: module attributes
// LLVM: llvm.func @_mlir_ciface_gemm(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM-NOT: tfm_model_manifest
module attributes {tfm.architecture = "kernel"} {
  func.func @gemm(%a: tensor<?x32xf32>, %b: tensor<32x64xf32>) -> tensor<?x64xf32> attributes {tfm.entry} {
    %bias = tfm.weight "bias" : tensor<64xf32>
    %r = tfm.linear %a, %b, %bias {layout = #tfm.layout<in_out>} : (tensor<?x32xf32>, tensor<32x64xf32>, tensor<64xf32>) -> tensor<?x64xf32>
    return %r : tensor<?x64xf32>
  }
}

// -----

// Three inputs of any rank, no weights: the table argument is still first.
// CHECK-LABEL: module attributes {tfm.architecture = "kernel", tfm.prepared = [], tfm.weights = []}
// CHECK: func.func @attn(%{{.*}}: !llvm.ptr, %{{.*}}: tensor<1x2x8x4xf32> {bufferization.writable = false}, %{{.*}}: tensor<1x2x8x4xf32> {bufferization.writable = false}, %{{.*}}: tensor<1x2x8x4xf32> {bufferization.writable = false}, %{{.*}}: memref<1x2x8x4xf32>)
// CHECK-NOT: tfm_model_manifest
// LLVM-LABEL: module attributes
// LLVM: llvm.func @_mlir_ciface_attn(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr)
// LLVM-NOT: tfm_model_manifest
module attributes {tfm.architecture = "kernel"} {
  func.func @attn(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>) -> tensor<1x2x8x4xf32> attributes {tfm.entry} {
    %a = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.5 : f64} : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
    return %a : tensor<1x2x8x4xf32>
  }
}

