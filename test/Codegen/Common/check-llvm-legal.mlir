// RUN: tfm-opt %s -tfm-check-llvm-legal -split-input-file -verify-diagnostics | FileCheck %s

// Only llvm ops: the module passes unchanged.
// CHECK-LABEL: llvm.func @ok
// CHECK: llvm.return
llvm.func @ok(%a: i32) -> i32 {
  llvm.return %a : i32
}

// -----

// One error per leftover op kind, naming it.
llvm.func @leftover(%a: i32) -> i32 {
  // expected-error @+1 {{'arith.addi' is left after lowering to the LLVM dialect}}
  %0 = arith.addi %a, %a : i32
  %1 = arith.addi %0, %a : i32
  llvm.return %1 : i32
}

// -----

// expected-error @+1 {{'func.func' is left after lowering to the LLVM dialect}}
func.func @not_lowered() {
  // expected-error @+1 {{'func.return' is left after lowering to the LLVM dialect}}
  return
}

