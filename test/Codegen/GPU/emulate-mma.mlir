// RUN: tfm-opt %s -tfm-gpu-emulate -expand-strided-metadata -convert-vector-to-llvm -convert-scf-to-cf -convert-to-llvm -reconcile-unrealized-casts | %mlir_runner | FileCheck %s
// RUN: tfm-opt %s -tfm-gpu-emulate | FileCheck %s --check-prefix=IR

// The products are one function per fragment type, which every emulated
// mma.sync calls with the fragments of the lanes it reads (4 of A, 8 of B)
// and its own accumulator:
// IR-LABEL: func.func private @tfm_emulated_mma_m16n8k16_bf16({{.*}}) -> vector<2x2xf32> attributes {llvm.no_inline}
// IR-COUNT-64: arith.mulf
// IR-NOT: arith.mulf
// IR: return
// IR-LABEL: func.func private @kernel
// IR: %[[D:.*]] = func.call @tfm_emulated_mma_m16n8k16_bf16(%{{.*}}) : (vector<4x2xbf16>, vector<4x2xbf16>, vector<4x2xbf16>, vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// IR: memref.store %[[D]]

// nvgpu.mma.sync m16n8k16 in the emulation: each lane's fragments are set
// here from PTX's layout (lane 4g + t: A's rows g, g + 8 at k = 2t, 2t + 1
// and 2t + 8, 2t + 9; B's column g at the same k; C's rows g, g + 8 at
// columns 2t, 2t + 1) for A[i][k] = (i + 2k) mod 5 - 2, B[k][n] =
// (3k + n) mod 7 - 3, C[i][n] = i - n + 100 w (w: the warp, two of them);
// each lane stores its D elements where the layout puts them. D = A B + C
// (computed apart, in Python):
// CHECK: rank = 2 offset = 0 sizes = [32, 8]
// CHECK-NEXT: {{\[}}[10,   -14,   -24,   -20,   -2,   16,   13,   3], 
// CHECK-NEXT: [18,   16,   -7,   -16,   -18,   -13,   6,   11], 
// CHECK-NEXT: [6,   26,   25,   3,   -19,   -27,   -21,   -1], 
// CHECK-NEXT: [-11,   -4,   17,   17,   10,   -11,   -18,   -18], 
// CHECK-NEXT: [-13,   -19,   -11,   11,   19,   20,   0,   -20], 
// CHECK-NEXT: [15,   -9,   -19,   -15,   3,   21,   18,   8], 
// CHECK-NEXT: [23,   21,   -2,   -11,   -13,   -8,   11,   16], 
// CHECK-NEXT: [11,   31,   30,   8,   -14,   -22,   -16,   4], 
// CHECK-NEXT: [-6,   1,   22,   22,   15,   -6,   -13,   -13], 
// CHECK-NEXT: [-8,   -14,   -6,   16,   24,   25,   5,   -15], 
// CHECK-NEXT: [20,   -4,   -14,   -10,   8,   26,   23,   13], 
// CHECK-NEXT: [28,   26,   3,   -6,   -8,   -3,   16,   21], 
// CHECK-NEXT: [16,   36,   35,   13,   -9,   -17,   -11,   9], 
// CHECK-NEXT: [-1,   6,   27,   27,   20,   -1,   -8,   -8], 
// CHECK-NEXT: [-3,   -9,   -1,   21,   29,   30,   10,   -10], 
// CHECK-NEXT: [25,   1,   -9,   -5,   13,   31,   28,   18], 
// CHECK-NEXT: [110,   86,   76,   80,   98,   116,   113,   103], 
// CHECK-NEXT: [118,   116,   93,   84,   82,   87,   106,   111], 
// CHECK-NEXT: [106,   126,   125,   103,   81,   73,   79,   99], 
// CHECK-NEXT: [89,   96,   117,   117,   110,   89,   82,   82], 
// CHECK-NEXT: [87,   81,   89,   111,   119,   120,   100,   80], 
// CHECK-NEXT: [115,   91,   81,   85,   103,   121,   118,   108], 
// CHECK-NEXT: [123,   121,   98,   89,   87,   92,   111,   116], 
// CHECK-NEXT: [111,   131,   130,   108,   86,   78,   84,   104], 
// CHECK-NEXT: [94,   101,   122,   122,   115,   94,   87,   87], 
// CHECK-NEXT: [92,   86,   94,   116,   124,   125,   105,   85], 
// CHECK-NEXT: [120,   96,   86,   90,   108,   126,   123,   113], 
// CHECK-NEXT: [128,   126,   103,   94,   92,   97,   116,   121], 
// CHECK-NEXT: [116,   136,   135,   113,   91,   83,   89,   109], 
// CHECK-NEXT: [99,   106,   127,   127,   120,   99,   92,   92], 
// CHECK-NEXT: [97,   91,   99,   121,   129,   130,   110,   90], 
// CHECK-NEXT: [125,   101,   91,   95,   113,   131,   128,   118]]

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  %one = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %out = memref.alloc() : memref<2x16x8xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %one, %gy = %one, %gz = %one)
             threads(%tx, %ty, %tz) in (%sx = %c64, %sy = %one, %sz = %one) {
    %c0 = arith.constant 0 : index
    %c1_ = arith.constant 1 : index
    %c2_ = arith.constant 2 : index
    %c3_ = arith.constant 3 : index
    %c4_ = arith.constant 4 : index
    %c5_ = arith.constant 5 : index
    %c7_ = arith.constant 7 : index
    %c8_ = arith.constant 8 : index
    %c16_ = arith.constant 16 : index
    %c32_ = arith.constant 32 : index
    %c100_ = arith.constant 100 : index
    %c9_ = arith.constant 9 : index
    %lane = arith.remui %tx, %c32_ : index
    %w = arith.divui %tx, %c32_ : index
    %g = arith.divui %lane, %c4_ : index
    %t = arith.remui %lane, %c4_ : index
    %t2 = arith.muli %t, %c2_ : index
    %r1 = arith.addi %g, %c0 : index
    %k2 = arith.addi %t2, %c0 : index
    %x3 = arith.muli %r1, %c1_ : index
    %x4 = arith.muli %k2, %c2_ : index
    %x5 = arith.addi %x3, %x4 : index
    %x6 = arith.remui %x5, %c5_ : index
    %x7 = arith.subi %x6, %c2_ : index
    %x8 = arith.index_cast %x7 : index to i64
    %v9 = arith.sitofp %x8 : i64 to bf16
    %r10 = arith.addi %g, %c0 : index
    %k11 = arith.addi %t2, %c1_ : index
    %x12 = arith.muli %r10, %c1_ : index
    %x13 = arith.muli %k11, %c2_ : index
    %x14 = arith.addi %x12, %x13 : index
    %x15 = arith.remui %x14, %c5_ : index
    %x16 = arith.subi %x15, %c2_ : index
    %x17 = arith.index_cast %x16 : index to i64
    %v18 = arith.sitofp %x17 : i64 to bf16
    %r19 = arith.addi %g, %c8_ : index
    %k20 = arith.addi %t2, %c0 : index
    %x21 = arith.muli %r19, %c1_ : index
    %x22 = arith.muli %k20, %c2_ : index
    %x23 = arith.addi %x21, %x22 : index
    %x24 = arith.remui %x23, %c5_ : index
    %x25 = arith.subi %x24, %c2_ : index
    %x26 = arith.index_cast %x25 : index to i64
    %v27 = arith.sitofp %x26 : i64 to bf16
    %r28 = arith.addi %g, %c8_ : index
    %k29 = arith.addi %t2, %c1_ : index
    %x30 = arith.muli %r28, %c1_ : index
    %x31 = arith.muli %k29, %c2_ : index
    %x32 = arith.addi %x30, %x31 : index
    %x33 = arith.remui %x32, %c5_ : index
    %x34 = arith.subi %x33, %c2_ : index
    %x35 = arith.index_cast %x34 : index to i64
    %v36 = arith.sitofp %x35 : i64 to bf16
    %r37 = arith.addi %g, %c0 : index
    %k38 = arith.addi %t2, %c8_ : index
    %x39 = arith.muli %r37, %c1_ : index
    %x40 = arith.muli %k38, %c2_ : index
    %x41 = arith.addi %x39, %x40 : index
    %x42 = arith.remui %x41, %c5_ : index
    %x43 = arith.subi %x42, %c2_ : index
    %x44 = arith.index_cast %x43 : index to i64
    %v45 = arith.sitofp %x44 : i64 to bf16
    %r46 = arith.addi %g, %c0 : index
    %k47 = arith.addi %t2, %c9_ : index
    %x48 = arith.muli %r46, %c1_ : index
    %x49 = arith.muli %k47, %c2_ : index
    %x50 = arith.addi %x48, %x49 : index
    %x51 = arith.remui %x50, %c5_ : index
    %x52 = arith.subi %x51, %c2_ : index
    %x53 = arith.index_cast %x52 : index to i64
    %v54 = arith.sitofp %x53 : i64 to bf16
    %r55 = arith.addi %g, %c8_ : index
    %k56 = arith.addi %t2, %c8_ : index
    %x57 = arith.muli %r55, %c1_ : index
    %x58 = arith.muli %k56, %c2_ : index
    %x59 = arith.addi %x57, %x58 : index
    %x60 = arith.remui %x59, %c5_ : index
    %x61 = arith.subi %x60, %c2_ : index
    %x62 = arith.index_cast %x61 : index to i64
    %v63 = arith.sitofp %x62 : i64 to bf16
    %r64 = arith.addi %g, %c8_ : index
    %k65 = arith.addi %t2, %c9_ : index
    %x66 = arith.muli %r64, %c1_ : index
    %x67 = arith.muli %k65, %c2_ : index
    %x68 = arith.addi %x66, %x67 : index
    %x69 = arith.remui %x68, %c5_ : index
    %x70 = arith.subi %x69, %c2_ : index
    %x71 = arith.index_cast %x70 : index to i64
    %v72 = arith.sitofp %x71 : i64 to bf16
    %afrag = vector.from_elements %v9, %v18, %v27, %v36, %v45, %v54, %v63, %v72 : vector<4x2xbf16>
    %r73 = arith.addi %t2, %c0 : index
    %k74 = arith.addi %g, %c0 : index
    %x75 = arith.muli %r73, %c3_ : index
    %x76 = arith.muli %k74, %c1_ : index
    %x77 = arith.addi %x75, %x76 : index
    %x78 = arith.remui %x77, %c7_ : index
    %x79 = arith.subi %x78, %c3_ : index
    %x80 = arith.index_cast %x79 : index to i64
    %v81 = arith.sitofp %x80 : i64 to bf16
    %r82 = arith.addi %t2, %c1_ : index
    %k83 = arith.addi %g, %c0 : index
    %x84 = arith.muli %r82, %c3_ : index
    %x85 = arith.muli %k83, %c1_ : index
    %x86 = arith.addi %x84, %x85 : index
    %x87 = arith.remui %x86, %c7_ : index
    %x88 = arith.subi %x87, %c3_ : index
    %x89 = arith.index_cast %x88 : index to i64
    %v90 = arith.sitofp %x89 : i64 to bf16
    %r91 = arith.addi %t2, %c8_ : index
    %k92 = arith.addi %g, %c0 : index
    %x93 = arith.muli %r91, %c3_ : index
    %x94 = arith.muli %k92, %c1_ : index
    %x95 = arith.addi %x93, %x94 : index
    %x96 = arith.remui %x95, %c7_ : index
    %x97 = arith.subi %x96, %c3_ : index
    %x98 = arith.index_cast %x97 : index to i64
    %v99 = arith.sitofp %x98 : i64 to bf16
    %r100 = arith.addi %t2, %c9_ : index
    %k101 = arith.addi %g, %c0 : index
    %x102 = arith.muli %r100, %c3_ : index
    %x103 = arith.muli %k101, %c1_ : index
    %x104 = arith.addi %x102, %x103 : index
    %x105 = arith.remui %x104, %c7_ : index
    %x106 = arith.subi %x105, %c3_ : index
    %x107 = arith.index_cast %x106 : index to i64
    %v108 = arith.sitofp %x107 : i64 to bf16
    %bfrag = vector.from_elements %v81, %v90, %v99, %v108 : vector<2x2xbf16>
    %row109 = arith.addi %g, %c0 : index
    %col110 = arith.addi %t2, %c0 : index
    %x111 = arith.muli %w, %c100_ : index
    %x112 = arith.addi %row109, %x111 : index
    %x113 = arith.subi %x112, %col110 : index
    %x114 = arith.index_cast %x113 : index to i64
    %v115 = arith.sitofp %x114 : i64 to f32
    %row116 = arith.addi %g, %c0 : index
    %col117 = arith.addi %t2, %c1_ : index
    %x118 = arith.muli %w, %c100_ : index
    %x119 = arith.addi %row116, %x118 : index
    %x120 = arith.subi %x119, %col117 : index
    %x121 = arith.index_cast %x120 : index to i64
    %v122 = arith.sitofp %x121 : i64 to f32
    %row123 = arith.addi %g, %c8_ : index
    %col124 = arith.addi %t2, %c0 : index
    %x125 = arith.muli %w, %c100_ : index
    %x126 = arith.addi %row123, %x125 : index
    %x127 = arith.subi %x126, %col124 : index
    %x128 = arith.index_cast %x127 : index to i64
    %v129 = arith.sitofp %x128 : i64 to f32
    %row130 = arith.addi %g, %c8_ : index
    %col131 = arith.addi %t2, %c1_ : index
    %x132 = arith.muli %w, %c100_ : index
    %x133 = arith.addi %row130, %x132 : index
    %x134 = arith.subi %x133, %col131 : index
    %x135 = arith.index_cast %x134 : index to i64
    %v136 = arith.sitofp %x135 : i64 to f32
    %cfrag = vector.from_elements %v115, %v122, %v129, %v136 : vector<2x2xf32>
    %d = nvgpu.mma.sync(%afrag, %bfrag, %cfrag) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
    %e137 = vector.extract %d[0, 0] : f32 from vector<2x2xf32>
    memref.store %e137, %out[%w, %row109, %col110] : memref<2x16x8xf32>
    %e138 = vector.extract %d[0, 1] : f32 from vector<2x2xf32>
    memref.store %e138, %out[%w, %row116, %col117] : memref<2x16x8xf32>
    %e139 = vector.extract %d[1, 0] : f32 from vector<2x2xf32>
    memref.store %e139, %out[%w, %row123, %col124] : memref<2x16x8xf32>
    %e140 = vector.extract %d[1, 1] : f32 from vector<2x2xf32>
    memref.store %e140, %out[%w, %row130, %col131] : memref<2x16x8xf32>
    gpu.terminator
  }
  %flat = memref.collapse_shape %out [[0, 1], [2]] : memref<2x16x8xf32> into memref<32x8xf32>
  %u = memref.cast %flat : memref<32x8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
