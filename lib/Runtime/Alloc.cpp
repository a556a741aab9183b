//===- Alloc.cpp - heap buffers of generated code, kept between calls -----===//
//
// Model libraries are compiled with finalize-memref-to-llvm's generic
// allocation functions (tfm-lower-to-llvm's `runtime-allocator`): every
// `memref.alloc` the generated code keeps on the heap (activations of a
// forward call, a GEMM's scratch) calls _mlir_memref_to_llvm_alloc, every
// dealloc _mlir_memref_to_llvm_free (tfm never sets use-aligned-alloc, so
// _mlir_memref_to_llvm_aligned_alloc is not defined: a library that needed
// it would fail to link). With plain malloc, each forward call
// of GPT-2 small at 512 tokens mapped about 250 MiB of fresh pages (glibc
// serves blocks of a few MiB with mmap, or trims them off the heap when
// freed) and spent a quarter of its time in page faults
// (docs/performance.md). Here a freed block of at least kPooledBytes is
// kept, by size, and handed out again to the next request that fits it:
// the smallest kept block of at least the size asked for and at most
// twice it (the same shapes recur on every call; a shorter call than the
// last one reuses its larger blocks instead of faulting in new pages). At
// most kMaxRetainedBytes stay pooled; beyond that, and for small blocks,
// memory goes back to free(). Blocks are not zeroed, as malloc's are not.
//
// Builds with AddressSanitizer keep nothing, so that a use after free or an
// overflow in generated code is still caught.
//
// The functions have hidden visibility: each model library binds its own
// (exports.map keeps them out of the dynamic symbol table).
//
//===----------------------------------------------------------------------===//

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <vector>

namespace {

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFM_ALLOC_NO_POOL 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TFM_ALLOC_NO_POOL 1
#endif

/// The header before each block: its capacity (the pool's key; at least
/// the size asked for). 16 bytes keep malloc's alignment for the caller,
/// which aligns further itself.
constexpr size_t kHeader = 16;
constexpr size_t kPooledBytes = 64 * 1024;
#if defined(TFM_ALLOC_NO_POOL)
constexpr size_t kMaxRetainedBytes = 0;
#else
constexpr size_t kMaxRetainedBytes = size_t(1) << 30;
#endif

class Pool {
public:
  ~Pool() {
    for (auto &[size, blocks] : free_)
      for (void *b : blocks)
        std::free(b);
  }

  /// A kept block of capacity in [size, 2 size], the smallest; null if
  /// none. `capacity` receives its capacity.
  void *take(size_t size, size_t &capacity) {
    if (size < kPooledBytes)
      return nullptr;
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = free_.lower_bound(size);
         it != free_.end() && it->first / 2 <= size; ++it) {
      if (it->second.empty())
        continue;
      void *block = it->second.back();
      it->second.pop_back();
      capacity = it->first;
      retained_ -= capacity;
      return block;
    }
    return nullptr;
  }

  /// Keeps `block` of `size` bytes if there is room; false: free it.
  bool give(void *block, size_t size) {
    if (size < kPooledBytes)
      return false;
    std::lock_guard<std::mutex> lock(mutex_);
    if (retained_ + size > kMaxRetainedBytes)
      return false;
    free_[size].push_back(block);
    retained_ += size;
    return true;
  }

private:
  std::mutex mutex_;
  std::map<size_t, std::vector<void *>> free_;
  size_t retained_ = 0;
};

Pool &pool() {
  static Pool p; // its blocks go back to free() when the library unloads
  return p;
}

} // namespace

extern "C" {

__attribute__((visibility("hidden"))) void *
_mlir_memref_to_llvm_alloc(size_t size) {
  if (size > SIZE_MAX - kHeader)
    return nullptr;
  size_t capacity = size;
  void *block = pool().take(size, capacity);
  if (!block) {
    block = std::malloc(size + kHeader);
    if (!block)
      return nullptr;
  }
  *static_cast<size_t *>(block) = capacity;
  return static_cast<char *>(block) + kHeader;
}

__attribute__((visibility("hidden"))) void
_mlir_memref_to_llvm_free(void *ptr) {
  if (!ptr)
    return;
  void *block = static_cast<char *>(ptr) - kHeader;
  size_t capacity = *static_cast<size_t *>(block);
  if (!pool().give(block, capacity))
    std::free(block);
}

} // extern "C"
