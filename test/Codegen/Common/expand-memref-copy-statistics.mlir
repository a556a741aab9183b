// RUN: tfm-opt %s -tfm-expand-memref-copy -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s
// Nested on func.func, where MLIR runs copies of the pass on several
// threads: the copies' counts add up.
// RUN: tfm-opt %s -pass-pipeline='builtin.module(func.func(tfm-expand-memref-copy))' -mlir-pass-statistics -mlir-pass-statistics-display=list -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=NESTED
// A second run finds only contiguous copies left.
// RUN: tfm-opt %s -tfm-expand-memref-copy -tfm-expand-memref-copy -mlir-pass-statistics -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=TWICE
// Without the flag, no report.
// RUN: tfm-opt %s -tfm-expand-memref-copy -o /dev/null 2>&1 | count 0
// The name and description printed here are those of Passes.td, as the
// generated reference shows them.
// RUN: FileCheck %s --check-prefix=DOC --input-file=%tfm_src/docs/reference/Passes/TfmCodegenCommonPasses.md

// The cases of expand-memref-copy.mlir in one module: three copies of a
// non-contiguous buffer (two in @strided, one in @dynamic_offset) are
// expanded, two contiguous ones are left alone.

// CHECK-LABEL: Pass statistics report
// CHECK-NEXT: ===---
// CHECK-NEXT: {{^}}ExpandMemRefCopyPass
// CHECK-NEXT: {{^  }}(S) 3 expanded-copies - memref.copy ops rewritten into linalg.copy
// CHECK-NOT: (S)

// NESTED-LABEL: Pass statistics report
// NESTED-NEXT: ===---
// NESTED-NEXT: {{^  }}ExpandMemRefCopyPass
// NESTED-NEXT: (S) 3 expanded-copies
// NESTED-NOT: (S)

// TWICE-LABEL: Pass statistics report
// TWICE-NEXT: ===---
// TWICE-NEXT: {{^}}ExpandMemRefCopyPass
// TWICE-NEXT: (S) 3 expanded-copies
// TWICE-NEXT: {{^}}ExpandMemRefCopyPass
// TWICE-NEXT: (S) 0 expanded-copies
// TWICE-NOT: (S)

// DOC: ### `-tfm-expand-memref-copy`
// DOC: #### Statistics
// DOC: expanded-copies : memref.copy ops rewritten into linalg.copy

func.func @strided(%a: memref<?x8xf32, strided<[16, 1], offset: ?>>, %b: memref<?x8xf32>) {
  memref.copy %a, %b : memref<?x8xf32, strided<[16, 1], offset: ?>> to memref<?x8xf32>
  memref.copy %b, %a : memref<?x8xf32> to memref<?x8xf32, strided<[16, 1], offset: ?>>
  return
}

func.func @dynamic_offset(%a: memref<?x8xf32, strided<[8, 1], offset: ?>>, %b: memref<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?x8xf32, strided<[8, 1], offset: ?>>
  %v = memref.subview %b[0, 0] [%n, 8] [1, 1] : memref<64x8xf32> to memref<?x8xf32, strided<[8, 1]>>
  memref.copy %a, %v : memref<?x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1]>>
  return
}

func.func @contiguous(%a: memref<?x8xf32>, %b: memref<?x8xf32>, %c: memref<8x8xf32>, %d: memref<4x8xf32>) {
  memref.copy %a, %b : memref<?x8xf32> to memref<?x8xf32>
  %s = memref.subview %c[1, 0] [4, 8] [1, 1] : memref<8x8xf32> to memref<4x8xf32, strided<[8, 1], offset: 8>>
  memref.copy %s, %d : memref<4x8xf32, strided<[8, 1], offset: 8>> to memref<4x8xf32>
  return
}
