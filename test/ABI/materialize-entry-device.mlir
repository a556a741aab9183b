// The manifest's "device" field (docs/architecture.md): absent for the CPU,
// "cuda" after "architecture" for the GPU pipeline; any other device is an
// error naming the option.
// RUN: tfm-opt %s -tfm-materialize-entry | FileCheck %s --check-prefix=CPU
// RUN: tfm-opt %s -tfm-materialize-entry=device=cuda | FileCheck %s --check-prefix=CUDA
// RUN: not tfm-opt %s -tfm-materialize-entry=device=tpu 2>&1 | FileCheck %s --check-prefix=BAD
// CPU: @tfm_model_manifest("{\22format\22:\22tfm-manifest/1\22,\22model_name\22:\22tiny\22,\22architecture\22:\22decoder\22,\22vocab_size\22
// CUDA: @tfm_model_manifest("{\22format\22:\22tfm-manifest/1\22,\22model_name\22:\22tiny\22,\22architecture\22:\22decoder\22,\22device\22:\22cuda\22,\22vocab_size\22
// BAD: error: -tfm-materialize-entry: device=tpu is not a device (cpu or cuda)
module attributes {tfm.model_name = "tiny", tfm.architecture = "decoder", tfm.vocab_size = 16 : i64, tfm.max_seq_len = 8 : i64, tfm.output = "logits"} {
  func.func @forward(%ids: tensor<?x?xi32>, %lengths: tensor<?xi32>, %positions: tensor<?xi32>) -> tensor<?x?x16xf32> attributes {tfm.entry} {
    %e = tfm.weight "embed.tokens" : tensor<16x4xf32>
    %x = tfm.embedding %ids, %e : (tensor<?x?xi32>, tensor<16x4xf32>) -> tensor<?x?x4xf32>
    %l = tfm.lm_head %x, %e {tied} : (tensor<?x?x4xf32>, tensor<16x4xf32>) -> tensor<?x?x16xf32>
    return %l : tensor<?x?x16xf32>
  }
}
