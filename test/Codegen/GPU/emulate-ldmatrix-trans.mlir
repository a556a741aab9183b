// RUN: tfm-opt %s -tfm-gpu-emulate -expand-strided-metadata -convert-vector-to-llvm -convert-scf-to-cf -convert-to-llvm -reconcile-unrealized-casts | %mlir_runner | FileCheck %s

// nvgpu.ldmatrix x4 with transpose = true (PTX ldmatrix .x4.trans) in the
// emulation, checked on its own: the warp fills the 16 x 16 bf16 tile
// V[r][c] = 16 r + c (rows padded to 24) in workgroup memory, and lane l names
// row (l mod 8) + 8 ((l / 8) mod 2) at column 8 (l / 16), the way a
// FlashAttention kernel loads V's B fragments for mma.sync m16n8k16.
//
// Why the printed matrix is V (derived from the PTX ISA, not the emulator):
// * .x4: lanes 8q .. 8q + 7 supply the 8 row addresses of matrix q, so
//   row j of matrix q is V[8 (q mod 2) + j][8 (q / 2) + 0 .. 7]
//   (matrix q covers rows + 8 (q mod 2), columns + 8 (q / 2)).
// * .trans: register p of lane 4g + t (g = l / 4, t = l mod 4) holds, as
//   element e, column g of row 2t + e of matrix p (the transposed matrix in
//   the normal fragment layout), i.e. V[2t + e + 8 (p mod 2)][g + 8 (p / 2)].
// * mma.sync m16n8k16's B operand layout puts register p, element e at
//   B[k][n] with k = 2t + e + 8 (p mod 2), n = g + 8 (p / 2); each lane
//   stores its 8 elements to out[k][n] there. Taking B[k][n] = V[k][n]
//   (V's rows are the k dimension), out[k][n] = V[k][n]: the output is V.
// The non-transposed load would instead put V[8 (p mod 2) + g][8 (p / 2) +
// 2t + e] at out[k][n], i.e. every 8 x 8 block of V transposed (out[0][1]
// would be 16, not 1), so a wrong transposition fails the check.
// CHECK: rank = 2 offset = 0 sizes = [16, 16]
// CHECK-NEXT: {{\[}}[0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,   11,   12,   13,   14,   15], 
// CHECK-NEXT: [16,   17,   18,   19,   20,   21,   22,   23,   24,   25,   26,   27,   28,   29,   30,   31], 
// CHECK-NEXT: [32,   33,   34,   35,   36,   37,   38,   39,   40,   41,   42,   43,   44,   45,   46,   47], 
// CHECK-NEXT: [48,   49,   50,   51,   52,   53,   54,   55,   56,   57,   58,   59,   60,   61,   62,   63], 
// CHECK-NEXT: [64,   65,   66,   67,   68,   69,   70,   71,   72,   73,   74,   75,   76,   77,   78,   79], 
// CHECK-NEXT: [80,   81,   82,   83,   84,   85,   86,   87,   88,   89,   90,   91,   92,   93,   94,   95], 
// CHECK-NEXT: [96,   97,   98,   99,   100,   101,   102,   103,   104,   105,   106,   107,   108,   109,   110,   111], 
// CHECK-NEXT: [112,   113,   114,   115,   116,   117,   118,   119,   120,   121,   122,   123,   124,   125,   126,   127], 
// CHECK-NEXT: [128,   129,   130,   131,   132,   133,   134,   135,   136,   137,   138,   139,   140,   141,   142,   143], 
// CHECK-NEXT: [144,   145,   146,   147,   148,   149,   150,   151,   152,   153,   154,   155,   156,   157,   158,   159], 
// CHECK-NEXT: [160,   161,   162,   163,   164,   165,   166,   167,   168,   169,   170,   171,   172,   173,   174,   175], 
// CHECK-NEXT: [176,   177,   178,   179,   180,   181,   182,   183,   184,   185,   186,   187,   188,   189,   190,   191], 
// CHECK-NEXT: [192,   193,   194,   195,   196,   197,   198,   199,   200,   201,   202,   203,   204,   205,   206,   207], 
// CHECK-NEXT: [208,   209,   210,   211,   212,   213,   214,   215,   216,   217,   218,   219,   220,   221,   222,   223], 
// CHECK-NEXT: [224,   225,   226,   227,   228,   229,   230,   231,   232,   233,   234,   235,   236,   237,   238,   239], 
// CHECK-NEXT: [240,   241,   242,   243,   244,   245,   246,   247,   248,   249,   250,   251,   252,   253,   254,   255]]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %one = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %out = memref.alloc() : memref<16x16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c32, %sy = %one, %sz = %one)
             workgroup(%vt : memref<16x24xbf16, #gpu.address_space<workgroup>>) {
    %c0 = arith.constant 0 : index
    %k1 = arith.constant 1 : index
    %k2 = arith.constant 2 : index
    %k4 = arith.constant 4 : index
    %k8 = arith.constant 8 : index
    %k16 = arith.constant 16 : index
    %k32 = arith.constant 32 : index
    // Fill: thread x writes V[x mod 16][8 (x / 16) + 0 .. 7] = 16 r + c.
    %frow = arith.remui %tx, %k16 : index
    %fhalf = arith.divui %tx, %k16 : index
    %fcol0 = arith.muli %fhalf, %k8 : index
    %fe0 = arith.constant 0 : index
    %fc0 = arith.addi %fcol0, %fe0 : index
    %fv0a = arith.muli %frow, %k16 : index
    %fv0b = arith.addi %fv0a, %fc0 : index
    %fv0c = arith.index_cast %fv0b : index to i64
    %fv0 = arith.sitofp %fv0c : i64 to bf16
    memref.store %fv0, %vt[%frow, %fc0] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe1 = arith.constant 1 : index
    %fc1 = arith.addi %fcol0, %fe1 : index
    %fv1a = arith.muli %frow, %k16 : index
    %fv1b = arith.addi %fv1a, %fc1 : index
    %fv1c = arith.index_cast %fv1b : index to i64
    %fv1 = arith.sitofp %fv1c : i64 to bf16
    memref.store %fv1, %vt[%frow, %fc1] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe2 = arith.constant 2 : index
    %fc2 = arith.addi %fcol0, %fe2 : index
    %fv2a = arith.muli %frow, %k16 : index
    %fv2b = arith.addi %fv2a, %fc2 : index
    %fv2c = arith.index_cast %fv2b : index to i64
    %fv2 = arith.sitofp %fv2c : i64 to bf16
    memref.store %fv2, %vt[%frow, %fc2] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe3 = arith.constant 3 : index
    %fc3 = arith.addi %fcol0, %fe3 : index
    %fv3a = arith.muli %frow, %k16 : index
    %fv3b = arith.addi %fv3a, %fc3 : index
    %fv3c = arith.index_cast %fv3b : index to i64
    %fv3 = arith.sitofp %fv3c : i64 to bf16
    memref.store %fv3, %vt[%frow, %fc3] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe4 = arith.constant 4 : index
    %fc4 = arith.addi %fcol0, %fe4 : index
    %fv4a = arith.muli %frow, %k16 : index
    %fv4b = arith.addi %fv4a, %fc4 : index
    %fv4c = arith.index_cast %fv4b : index to i64
    %fv4 = arith.sitofp %fv4c : i64 to bf16
    memref.store %fv4, %vt[%frow, %fc4] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe5 = arith.constant 5 : index
    %fc5 = arith.addi %fcol0, %fe5 : index
    %fv5a = arith.muli %frow, %k16 : index
    %fv5b = arith.addi %fv5a, %fc5 : index
    %fv5c = arith.index_cast %fv5b : index to i64
    %fv5 = arith.sitofp %fv5c : i64 to bf16
    memref.store %fv5, %vt[%frow, %fc5] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe6 = arith.constant 6 : index
    %fc6 = arith.addi %fcol0, %fe6 : index
    %fv6a = arith.muli %frow, %k16 : index
    %fv6b = arith.addi %fv6a, %fc6 : index
    %fv6c = arith.index_cast %fv6b : index to i64
    %fv6 = arith.sitofp %fv6c : i64 to bf16
    memref.store %fv6, %vt[%frow, %fc6] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    %fe7 = arith.constant 7 : index
    %fc7 = arith.addi %fcol0, %fe7 : index
    %fv7a = arith.muli %frow, %k16 : index
    %fv7b = arith.addi %fv7a, %fc7 : index
    %fv7c = arith.index_cast %fv7b : index to i64
    %fv7 = arith.sitofp %fv7c : i64 to bf16
    memref.store %fv7, %vt[%frow, %fc7] : memref<16x24xbf16, #gpu.address_space<workgroup>>
    gpu.barrier
    // Lane l names row (l mod 8) + 8 ((l / 8) mod 2), column 8 (l / 16).
    %lane = arith.remui %tx, %k32 : index
    %l8 = arith.remui %lane, %k8 : index
    %m = arith.divui %lane, %k8 : index
    %mr = arith.remui %m, %k2 : index
    %mro = arith.muli %mr, %k8 : index
    %row = arith.addi %l8, %mro : index
    %mk = arith.divui %m, %k2 : index
    %col = arith.muli %mk, %k8 : index
    %frag = nvgpu.ldmatrix %vt[%row, %col] {numTiles = 4 : i32, transpose = true} : memref<16x24xbf16, #gpu.address_space<workgroup>> -> vector<4x2xbf16>
    // B layout: register p, element e -> out[2t + e + 8 (p mod 2)][g + 8 (p / 2)].
    %g = arith.divui %lane, %k4 : index
    %t = arith.remui %lane, %k4 : index
    %t2 = arith.muli %t, %k2 : index
    %ko00 = arith.constant 0 : index
    %no00 = arith.constant 0 : index
    %kk00 = arith.addi %t2, %ko00 : index
    %n00 = arith.addi %g, %no00 : index
    %v00 = vector.extract %frag[0, 0] : bf16 from vector<4x2xbf16>
    %w00 = arith.extf %v00 : bf16 to f32
    memref.store %w00, %out[%kk00, %n00] : memref<16x16xf32>
    %ko01 = arith.constant 1 : index
    %no01 = arith.constant 0 : index
    %kk01 = arith.addi %t2, %ko01 : index
    %n01 = arith.addi %g, %no01 : index
    %v01 = vector.extract %frag[0, 1] : bf16 from vector<4x2xbf16>
    %w01 = arith.extf %v01 : bf16 to f32
    memref.store %w01, %out[%kk01, %n01] : memref<16x16xf32>
    %ko10 = arith.constant 8 : index
    %no10 = arith.constant 0 : index
    %kk10 = arith.addi %t2, %ko10 : index
    %n10 = arith.addi %g, %no10 : index
    %v10 = vector.extract %frag[1, 0] : bf16 from vector<4x2xbf16>
    %w10 = arith.extf %v10 : bf16 to f32
    memref.store %w10, %out[%kk10, %n10] : memref<16x16xf32>
    %ko11 = arith.constant 9 : index
    %no11 = arith.constant 0 : index
    %kk11 = arith.addi %t2, %ko11 : index
    %n11 = arith.addi %g, %no11 : index
    %v11 = vector.extract %frag[1, 1] : bf16 from vector<4x2xbf16>
    %w11 = arith.extf %v11 : bf16 to f32
    memref.store %w11, %out[%kk11, %n11] : memref<16x16xf32>
    %ko20 = arith.constant 0 : index
    %no20 = arith.constant 8 : index
    %kk20 = arith.addi %t2, %ko20 : index
    %n20 = arith.addi %g, %no20 : index
    %v20 = vector.extract %frag[2, 0] : bf16 from vector<4x2xbf16>
    %w20 = arith.extf %v20 : bf16 to f32
    memref.store %w20, %out[%kk20, %n20] : memref<16x16xf32>
    %ko21 = arith.constant 1 : index
    %no21 = arith.constant 8 : index
    %kk21 = arith.addi %t2, %ko21 : index
    %n21 = arith.addi %g, %no21 : index
    %v21 = vector.extract %frag[2, 1] : bf16 from vector<4x2xbf16>
    %w21 = arith.extf %v21 : bf16 to f32
    memref.store %w21, %out[%kk21, %n21] : memref<16x16xf32>
    %ko30 = arith.constant 8 : index
    %no30 = arith.constant 8 : index
    %kk30 = arith.addi %t2, %ko30 : index
    %n30 = arith.addi %g, %no30 : index
    %v30 = vector.extract %frag[3, 0] : bf16 from vector<4x2xbf16>
    %w30 = arith.extf %v30 : bf16 to f32
    memref.store %w30, %out[%kk30, %n30] : memref<16x16xf32>
    %ko31 = arith.constant 9 : index
    %no31 = arith.constant 8 : index
    %kk31 = arith.addi %t2, %ko31 : index
    %n31 = arith.addi %g, %no31 : index
    %v31 = vector.extract %frag[3, 1] : bf16 from vector<4x2xbf16>
    %w31 = arith.extf %v31 : bf16 to f32
    memref.store %w31, %out[%kk31, %n31] : memref<16x16xf32>
    gpu.terminator
  }
  %u = memref.cast %out : memref<16x16xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
