//===- tfmc.cpp - the tfm compiler driver ----------------------------------===//
//
// tfmc MODEL [--emit=tfm|linalg|llvm-dialect|llvm-ir|asm|obj|so] [-o FILE]
//            [--no-fuse] [--weights PATH] [MLIR instrumentation options]
//
// MODEL is a tfm spec (docs/spec.md), a Hugging Face config.json, or a
// Hugging Face model folder. Everything happens in lib/Compiler.
//
//===----------------------------------------------------------------------===//

#include "tfm/Compiler/Driver.h"

int main(int argc, char **argv) { return tfm::tfmcMain(argc, argv); }
