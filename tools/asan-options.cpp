//===- asan-options.cpp - ASan defaults of tools that run MLIR ------------===//
//
// Linked into every instrumented executable that runs tfm's code over the
// uninstrumented libMLIR.so: tfmc, tfm-opt and tfm-bench of a sanitizer
// build (-DTFM_ENABLE_SANITIZERS=ON, tools/CMakeLists.txt) and the frontend
// fuzz harnesses. Both allocate from one MLIRContext's bump allocators.
// LLVM's BumpPtrAllocator poisons a new slab when the code that starts it
// is instrumented (LLVM_ADDRESS_SANITIZER_BUILD) and unpoisons each
// allocation it hands out; libMLIR's copy of the allocator does neither, so
// its later allocations from such a slab read as use-after-poison although
// they are in bounds. Manual poisoning is therefore off here; ASan's own
// redzones around heap, stack and global objects still catch every
// overflow of tfm's code.
//
//===----------------------------------------------------------------------===//

extern "C" const char *__asan_default_options() {
  return "allow_user_poisoning=0";
}
