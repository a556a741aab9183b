// RUN: tfm-opt %s -split-input-file -verify-diagnostics -tfm-set-target='gpu-chip=sm_80' -tfm-configure-attention=untiled-max-keys=0 -tfm-tile-sram -convert-tfm-to-linalg -canonicalize -cse -one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" -buffer-deallocation-pipeline -canonicalize -tfm-gpu-map-attention

// What -tfm-gpu-map-attention refuses. Tiles configured by hand (a
// configuration already on the op stands) for more than the 48 KiB of
// shared memory a block has: 128 x 64 tiles with D = 64 take 133120 bytes.
func.func @tiles_too_large(%q: tensor<1x2x256x64xf32>, %k: tensor<1x2x256x64xf32>, %v: tensor<1x2x256x64xf32>) -> tensor<1x2x256x64xf32> {
  // expected-error @+1 {{-tfm-gpu-map-attention: the attention tiles take 133120 bytes of shared memory, more than the 49152 a block of the target has (-tfm-configure-attention sizes tiles for the target; these are #tfm.attention_tiling<block_q = 128, block_k = 64, group = 1, footprint_bytes = 148480, budget_bytes = 262144>)}}
  %o = tfm.attention %q, %k, %v {mask = #tfm.mask<causal>, scale = 0.125 : f64, tfm.lowering_config = #tfm.attention_tiling<block_q = 128, block_k = 64, group = 1, footprint_bytes = 148480, budget_bytes = 262144>} : tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32>, tensor<1x2x256x64xf32> -> tensor<1x2x256x64xf32>
  return %o : tensor<1x2x256x64xf32>
}
