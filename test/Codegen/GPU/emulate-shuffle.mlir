// RUN: tfm-opt %s -tfm-gpu-emulate -convert-scf-to-cf -convert-to-llvm -reconcile-unrealized-casts | %mlir_runner | FileCheck %s

// Warp shuffles in the emulation: each thread takes the value of its source
// lane in its warp (32 consecutive thread ids), after every thread of the
// block has its own in a slot. 80 threads: two whole warps and one of 16.
// Thread t: v0 = t; v1 = v0 + v0[t ^ 16]; v2 = v1 + v1[t ^ 8];
// v3 = v2 + v2[t + 1], where a source lane outside the warp (lane 31's
// t + 1) or past the block (lanes 16-31 of the third warp) gives the
// thread its own value and valid = 0. Worked by hand: lane 0 of warp 0:
// v1 = 0 + 16, v1[8] = 8 + 24, v2 = 48, v2[1] = (1 + 17) + (9 + 25) = 52,
// v3 = 100; lane 31: v2 = (31 + 15) + (23 + 7) = 76, v3 = 2 * 76 = 152;
// warp 2, lane 0 (t = 64): v1 = 2 * 64 (lane 16 is past the block),
// v1[8] = 2 * 72, v2 = 272, v2[1] = 2 * 65 + 2 * 73 = 276, v3 = 548.
// CHECK: {{\[}}100,  108,  116,  124,  132,  140,  148,  124,  100,  108,  116,  124,  132,  140,  148,  124,  100,  108,  116,  124,  132,  140,  148,  124,  100,  108,  116,  124,  132,  140,  148,  152,  356,  364,  372,  380,  388,  396,  404,  380,  356,  364,  372,  380,  388,  396,  404,  380,  356,  364,  372,  380,  388,  396,  404,  380,  356,  364,  372,  380,  388,  396,  404,  408,  548,  556,  564,  572,  580,  588,  596,  572,  548,  556,  564,  572,  580,  588,  596,  600]
// CHECK: {{\[}}1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  0,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  0,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  1,  0]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %c1 = arith.constant 1 : index
  %c80 = arith.constant 80 : index
  %out = memref.alloc() : memref<80xf32>
  %ok = memref.alloc() : memref<80xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c80, %sy = %c1, %sz = %c1) {
    %i = arith.index_cast %tx : index to i32
    %v0 = arith.sitofp %i : i32 to f32
    %w = arith.constant 32 : i32
    %o16 = arith.constant 16 : i32
    %o8 = arith.constant 8 : i32
    %o1 = arith.constant 1 : i32
    %s1, %k1 = gpu.shuffle xor %v0, %o16, %w : f32
    %v1 = arith.addf %v0, %s1 : f32
    %s2, %k2 = gpu.shuffle xor %v1, %o8, %w : f32
    %v2 = arith.addf %v1, %s2 : f32
    %d, %kd = gpu.shuffle down %v2, %o1, %w : f32
    %v3 = arith.addf %v2, %d : f32
    memref.store %v3, %out[%tx] : memref<80xf32>
    %f = arith.uitofp %kd : i1 to f32
    memref.store %f, %ok[%tx] : memref<80xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<80xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  %k = memref.cast %ok : memref<80xf32> to memref<*xf32>
  call @printMemrefF32(%k) : (memref<*xf32>) -> ()
  return
}
