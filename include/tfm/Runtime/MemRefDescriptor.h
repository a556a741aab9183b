/*===- MemRefDescriptor.h - the ranked memref descriptor of MLIR's C ABI --===*\
|*                                                                            *|
|* Generated code takes every tensor argument of an `llvm.emit_c_interface`   *|
|* function (`_mlir_ciface_forward`, a tfm-bench kernel) as a pointer to a    *|
|* ranked memref descriptor:                                                  *|
|*                                                                            *|
|*   { T *allocated; T *aligned; int64_t offset;                              *|
|*     int64_t sizes[R]; int64_t strides[R]; }                                *|
|*                                                                            *|
|* This header is the one definition of that layout for tfm's own code: the   *|
|* runtime (lib/Runtime/CApi.cpp), tfm-bench and the hand-written stand-ins   *|
|* for generated code in test/Runtime, which are C; hence C and C++ here.     *|
|* MLIR fixes the layout (mlir/ExecutionEngine/CRunnerUtils.h), tfm does not; *|
|* that header is C++ only and the runtime does not depend on MLIR.           *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TFM_RUNTIME_MEMREFDESCRIPTOR_H
#define TFM_RUNTIME_MEMREFDESCRIPTOR_H

#include <stdint.h>

/* The fields of a rank-RANK descriptor over ELEMENT; every struct below is
 * spelled with it so that C and C++ cannot disagree on the layout. */
#define TFM_MEMREF_DESCRIPTOR_FIELDS(ELEMENT, RANK)                            \
  ELEMENT *allocated;                                                          \
  ELEMENT *aligned;                                                            \
  int64_t offset;                                                              \
  int64_t sizes[RANK];                                                         \
  int64_t strides[RANK]

#ifdef __cplusplus

#include <cstddef>
#include <vector>

namespace tfm::runtime {

/// A rank-`Rank` descriptor over `T`.
template <typename T, int Rank>
struct MemRefDescriptor {
  TFM_MEMREF_DESCRIPTOR_FIELDS(T, Rank);
};

/// The descriptor of a contiguous row-major buffer: offset 0, strides the
/// suffix products of `sizes`. Generated code never writes through an
/// input's descriptor, but the ABI has no const, so `data` loses it here.
template <typename T, int Rank>
MemRefDescriptor<T, Rank> describeContiguous(const void *data,
                                             const int64_t (&sizes)[Rank]) {
  MemRefDescriptor<T, Rank> d;
  d.allocated = d.aligned = static_cast<T *>(const_cast<void *>(data));
  d.offset = 0;
  int64_t stride = 1;
  for (int i = Rank - 1; i >= 0; --i) {
    d.sizes[i] = sizes[i];
    d.strides[i] = stride;
    stride *= sizes[i];
  }
  return d;
}

/// Every field of a descriptor is 8 bytes wide (pointers on the 64-bit
/// targets tfm supports), so a descriptor is a sequence of 64-bit words:
/// what lets a caller that learns the rank only at run time build one.
namespace detail {
using Rank2 = MemRefDescriptor<float, 2>;
static_assert(sizeof(void *) == sizeof(int64_t),
              "memref descriptors as 64-bit words need 64-bit pointers");
static_assert(offsetof(Rank2, offset) == 2 * sizeof(int64_t) &&
                  offsetof(Rank2, sizes) == 3 * sizeof(int64_t) &&
                  offsetof(Rank2, strides) == 5 * sizeof(int64_t) &&
                  sizeof(Rank2) == 7 * sizeof(int64_t),
              "a descriptor is allocated, aligned, offset, sizes, strides");
} // namespace detail

/// describeContiguous for a rank known only at run time (tfm-bench's
/// kernels): the same layout as MemRefDescriptor<T, sizes.size()>, as its
/// 64-bit words. Pass `data()` of the result as the descriptor pointer.
inline std::vector<int64_t>
describeContiguousWords(void *data, const std::vector<int64_t> &sizes) {
  size_t rank = sizes.size();
  std::vector<int64_t> words(3 + 2 * rank);
  words[0] = words[1] = reinterpret_cast<int64_t>(data);
  words[2] = 0;
  int64_t stride = 1;
  for (size_t i = rank; i-- > 0;) {
    words[3 + i] = sizes[i];
    words[3 + rank + i] = stride;
    stride *= sizes[i];
  }
  return words;
}

} // namespace tfm::runtime

#else /* C */

/* The descriptors of the entry points of tfm models: token ids [B, T] and
 * lengths [B] (i32), outputs [B, C] and [B, T, V] (f32). */
typedef struct {
  TFM_MEMREF_DESCRIPTOR_FIELDS(int32_t, 1);
} tfm_memref_i32_1d;
typedef struct {
  TFM_MEMREF_DESCRIPTOR_FIELDS(int32_t, 2);
} tfm_memref_i32_2d;
typedef struct {
  TFM_MEMREF_DESCRIPTOR_FIELDS(float, 2);
} tfm_memref_f32_2d;
typedef struct {
  TFM_MEMREF_DESCRIPTOR_FIELDS(float, 3);
} tfm_memref_f32_3d;

#endif /* __cplusplus */

#endif /* TFM_RUNTIME_MEMREFDESCRIPTOR_H */
