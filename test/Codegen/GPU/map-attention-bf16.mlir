// RUN: tfm-opt %s -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention='untiled-max-keys=0 tensor-cores=false' -tfm-tile-sram -convert-tfm-to-linalg -tfm-apply-precision -canonicalize -cse -one-shot-bufferize="bufferize-function-boundaries" -buffer-deallocation-pipeline -canonicalize -tfm-gpu-map-attention | FileCheck %s

// GPT-2's attention (12 heads of 64, causal) at bf16: the contraction
// inputs get rounded copies of their own, which -tfm-configure-attention
// counts (8-row query blocks instead of 16 at f32), and bufferization gives
// each key loop its own K and V tiles (six 32 x 64 buffers), which
// -tfm-gpu-map-attention shares where their lifetimes do not overlap: four
// workgroup buffers of that type, 41088 bytes in all, within the 48 KiB of
// a block.
// CHECK-LABEL: func.func @causal_bf16
// CHECK: gpu.launch
// CHECK-SAME: workgroup(
// CHECK-COUNT-4: memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK-NOT: memref<32x64xf32, #gpu.address_space<workgroup>>
// CHECK-SAME: ) {
// CHECK-NOT: memref.alloc()
// 40.1 KiB of tiles (+ 1 KiB): three blocks per sm_80 multiprocessor.
// CHECK: } {tfm.blocks_per_sm = 3 : i64, tfm.lowering_config = #tfm.attention_tiling<block_q = 8, block_k = 32, group = 1, footprint_bytes = 41088, budget_bytes = 49152>}
module attributes {tfm.precision = bf16} {
func.func @causal_bf16(%q: tensor<?x12x?x64xf32>, %k: tensor<?x12x?x64xf32>, %v: tensor<?x12x?x64xf32>) -> tensor<?x12x?x64xf32> {
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64} : tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32>, tensor<?x12x?x64xf32> -> tensor<?x12x?x64xf32>
  return %o : tensor<?x12x?x64xf32>
}
}
