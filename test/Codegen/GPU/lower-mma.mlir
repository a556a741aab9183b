// RUN: tfm-opt %s -tfm-gpu-lower-mma -mlir-pass-statistics 2>%t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats
// What it makes is legal for convert-gpu-to-nvvm: LLVM and NVVM ops only
// after it (upstream's nvgpu lowering takes the f16-accumulating product).
// RUN: tfm-opt %s -tfm-gpu-lower-mma -convert-nvgpu-to-nvvm -convert-gpu-to-nvvm -reconcile-unrealized-casts | FileCheck %s --check-prefix=NVVM

// bf16: each pair of the fragments is one i32 register; f16: a
// vector<2xf16> register. Four f32 accumulators in, four out, back into
// the 2 x 2 vector. Other shapes and types are left to upstream.
// CHECK-LABEL: func.func @bf16
// CHECK-SAME:    (%[[A:.*]]: vector<4x2xbf16>, %[[B:.*]]: vector<2x2xbf16>, %[[C:.*]]: vector<2x2xf32>)
// CHECK:         %[[A0:.*]] = vector.extract %[[A]][0] : vector<2xbf16> from vector<4x2xbf16>
// CHECK-NEXT:    %[[A0W:.*]] = vector.bitcast %[[A0]] : vector<2xbf16> to vector<1xi32>
// CHECK-NEXT:    %[[A0I:.*]] = vector.extract %[[A0W]][0] : i32 from vector<1xi32>
// CHECK:         %[[C00:.*]] = vector.extract %[[C]][0, 0]
// CHECK:         %[[D:.*]] = nvvm.mma.sync A[%[[A0I]], %{{.*}}, %{{.*}}, %{{.*}}] B[%{{.*}}, %{{.*}}] C[%[[C00]], %{{.*}}, %{{.*}}, %{{.*}}]
// CHECK-SAME:      layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>
// CHECK-SAME:      multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>
// CHECK-SAME:      shape = #nvvm.shape<m = 16, n = 8, k = 16>
// CHECK-SAME:      : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[D]]
// CHECK:         vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK-LABEL: func.func @f16
// CHECK:         nvvm.mma.sync {{.*}} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-LABEL: func.func @f16_accumulate
// CHECK:         nvgpu.mma.sync
// STATS: (S) 2 lowered
// NVVM-COUNT-3: nvvm.mma.sync
// NVVM-NOT: vector.
// NVVM-NOT: nvgpu.
gpu.module @kernels {
  func.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    return %d : vector<2x2xf32>
  }
  func.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
    return %d : vector<2x2xf32>
  }
  func.func @f16_accumulate(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf16>) -> vector<2x2xf16> {
    %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf16>) -> vector<2x2xf16>
    return %d : vector<2x2xf16>
  }
}
