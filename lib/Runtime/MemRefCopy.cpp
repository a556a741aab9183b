//===- MemRefCopy.cpp - memrefCopy for generated code ---------------------===//
//
// `finalize-memref-to-llvm` lowers a `memref.copy` between buffers that are
// not both statically shaped and contiguous (the dynamic-sized key/value
// blocks and tile copies of the tiled attention, for instance) to a call
//
//   void memrefCopy(int64_t elementSize, UnrankedMemRef *src,
//                   UnrankedMemRef *dst);
//
// which MLIR's C runner utilities define for JIT use. A model library must
// not depend on libmlir_c_runner_utils.so, so the runtime provides the
// function itself, with the same ABI. The export map keeps it local to the
// model library.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstring>

namespace {

/// `UnrankedMemRefType<char>` of mlir/ExecutionEngine/CRunnerUtils.h.
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

/// The ranked descriptor behind `descriptor`: two pointers, the offset,
/// then `rank` sizes and `rank` strides (in elements).
struct Descriptor {
  char *allocated;
  char *aligned;
  int64_t offset;
  int64_t shape[1]; // sizes[rank], then strides[rank]

  const int64_t *sizes() const { return shape; }
  const int64_t *strides(int64_t rank) const { return shape + rank; }
};

} // namespace

extern "C" void memrefCopy(int64_t elementSize, UnrankedMemRef *src,
                           UnrankedMemRef *dst) {
  const auto *s = static_cast<const Descriptor *>(src->descriptor);
  const auto *d = static_cast<const Descriptor *>(dst->descriptor);
  int64_t rank = src->rank;
  const char *from = s->aligned + s->offset * elementSize;
  char *to = d->aligned + d->offset * elementSize;
  if (rank == 0) {
    std::memcpy(to, from, static_cast<size_t>(elementSize));
    return;
  }
  const int64_t *sizes = s->sizes();
  const int64_t *srcStrides = s->strides(rank);
  const int64_t *dstStrides = d->strides(rank);
  for (int64_t i = 0; i < rank; ++i)
    if (sizes[i] == 0)
      return;

  // The innermost dimension is copied as one block when both sides are
  // contiguous in it, else element by element.
  int64_t inner = rank - 1;
  bool contiguous = srcStrides[inner] == 1 && dstStrides[inner] == 1;
  size_t rowBytes = static_cast<size_t>(sizes[inner] * elementSize);

  // Odometer over the outer dimensions.
  int64_t index[64] = {0};
  int64_t outer = 1;
  for (int64_t i = 0; i < inner; ++i)
    outer *= sizes[i];
  if (rank > 64) {
    // Deeper than any tfm code: fall back to linearized indices.
    for (int64_t flat = 0; flat < outer * sizes[inner]; ++flat) {
      int64_t rest = flat, so = 0, dof = 0;
      for (int64_t i = rank - 1; i >= 0; --i) {
        int64_t at = rest % sizes[i];
        rest /= sizes[i];
        so += at * srcStrides[i];
        dof += at * dstStrides[i];
      }
      std::memcpy(to + dof * elementSize, from + so * elementSize,
                  static_cast<size_t>(elementSize));
    }
    return;
  }
  for (int64_t row = 0; row < outer; ++row) {
    int64_t so = 0, dof = 0;
    for (int64_t i = 0; i < inner; ++i) {
      so += index[i] * srcStrides[i];
      dof += index[i] * dstStrides[i];
    }
    const char *f = from + so * elementSize;
    char *t = to + dof * elementSize;
    if (contiguous) {
      std::memmove(t, f, rowBytes);
    } else {
      for (int64_t j = 0; j < sizes[inner]; ++j)
        std::memcpy(t + j * dstStrides[inner] * elementSize,
                    f + j * srcStrides[inner] * elementSize,
                    static_cast<size_t>(elementSize));
    }
    for (int64_t i = inner - 1; i >= 0; --i) {
      if (++index[i] < sizes[i])
        break;
      index[i] = 0;
    }
  }
}
