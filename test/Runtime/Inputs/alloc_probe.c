// Drives the runtime's allocator for generated code (lib/Runtime/Alloc.cpp)
// the way a model's calls do, and prints which requests reuse a freed block:
// one of the same size, one of at most twice the size asked for, and not
// one of more than twice. Prints "no pool" where the allocator keeps
// nothing (sanitizer builds, so that a use after free is still caught).
#include <stddef.h>
#include <stdio.h>

void *_mlir_memref_to_llvm_alloc(size_t size);
void _mlir_memref_to_llvm_free(void *ptr);

static int reused(size_t freed, size_t asked) {
  void *a = _mlir_memref_to_llvm_alloc(freed);
  _mlir_memref_to_llvm_free(a);
  void *b = _mlir_memref_to_llvm_alloc(asked);
  int same = a == b;
  _mlir_memref_to_llvm_free(b);
  return same;
}

int main(void) {
  const size_t mib = 1 << 20;
  if (!reused(4 * mib, 4 * mib)) {
    printf("no pool\n");
    return 0;
  }
  int same = reused(8 * mib, 8 * mib);
  int fits = reused(16 * mib, 9 * mib);
  int over = reused(32 * mib, 15 * mib);
  int larger = reused(64 * mib, 65 * mib);
  // A block handed out for less than its size goes back whole: a request
  // of its full size reuses it.
  void *a = _mlir_memref_to_llvm_alloc(128 * mib);
  _mlir_memref_to_llvm_free(a);
  void *b = _mlir_memref_to_llvm_alloc(100 * mib);
  _mlir_memref_to_llvm_free(b);
  void *c = _mlir_memref_to_llvm_alloc(128 * mib);
  int kept = a == b && b == c;
  _mlir_memref_to_llvm_free(c);
  printf("same size %s, up to twice %s, over twice %s, larger %s, "
         "capacity %s\n",
         same ? "reused" : "new", fits ? "reused" : "new",
         over ? "reused" : "new", larger ? "reused" : "new",
         kept ? "kept" : "lost");
  return 0;
}
