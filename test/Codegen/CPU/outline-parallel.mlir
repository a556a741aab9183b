// RUN: tfm-opt %s -tfm-cpu-outline-parallel -mlir-pass-statistics 2> %t.stats | FileCheck %s
// RUN: FileCheck %s --check-prefix=STATS < %t.stats

// Two parallel regions in one function: each moves into an internal
// function of its own that takes what the region reads from above (the
// pointer, the thread count, a block argument), constants recreated
// inside; a call takes the region's place.
// CHECK-LABEL: llvm.func @entry(
// CHECK-SAME:      %[[P:.*]]: !llvm.ptr, %[[N:.*]]: i32, %[[C:.*]]: i1)
// CHECK:         llvm.call @entry_parallel_0(%[[N]], %[[P]]) : (i32, !llvm.ptr) -> ()
// CHECK:         llvm.cond_br %[[C]], ^[[BB:bb[0-9]+]](
// CHECK:       ^[[BB]](%[[X:.*]]: f32):
// CHECK:         llvm.call @entry_parallel_1(%[[X]], %[[P]]) : (f32, !llvm.ptr) -> ()
// CHECK-NOT:     omp.parallel
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func internal @entry_parallel_0(
// CHECK-SAME:      %[[N0:.*]]: i32, %[[P0:.*]]: !llvm.ptr)
// CHECK:         %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK:         omp.parallel num_threads(%[[N0]] : i32) {
// CHECK:           llvm.store %[[ONE]], %[[P0]] : f32, !llvm.ptr
// CHECK:           omp.terminator
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func internal @entry_parallel_1(
// CHECK-SAME:      %[[X1:.*]]: f32, %[[P1:.*]]: !llvm.ptr)
// CHECK:         omp.parallel {
// CHECK:           llvm.store %[[X1]], %[[P1]] : f32, !llvm.ptr
// CHECK:           omp.terminator
// CHECK:         llvm.return
// A function with one region keeps it.
// CHECK-LABEL: llvm.func @single(
// CHECK:         omp.parallel {
// CHECK-NOT:   _parallel_
// STATS: CpuOutlineParallelPass
// STATS-NEXT: (S) 2 outlined
module {
  llvm.func @entry(%p: !llvm.ptr, %n: i32, %c: i1) {
    %one = llvm.mlir.constant(1.0 : f32) : f32
    %two = llvm.mlir.constant(2.0 : f32) : f32
    omp.parallel num_threads(%n : i32) {
      llvm.store %one, %p : f32, !llvm.ptr
      omp.terminator
    }
    llvm.cond_br %c, ^bb1(%two : f32), ^bb2
  ^bb1(%x: f32):
    omp.parallel {
      llvm.store %x, %p : f32, !llvm.ptr
      omp.terminator
    }
    llvm.br ^bb2
  ^bb2:
    llvm.return
  }

  llvm.func @single(%p: !llvm.ptr) {
    %one = llvm.mlir.constant(1.0 : f32) : f32
    omp.parallel {
      llvm.store %one, %p : f32, !llvm.ptr
      omp.terminator
    }
    llvm.return
  }
}
