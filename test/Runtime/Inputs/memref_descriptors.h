/*===- memref_descriptors.h - MLIR memref descriptors for test models -----===*\
|*                                                                            *|
|* The ranked memref descriptors that generated code's _mlir_ciface_forward   *|
|* takes (allocated and aligned pointers, offset, sizes, strides), for the    *|
|* hand-written stand-in models of test/Runtime.                              *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef TFM_TEST_RUNTIME_MEMREF_DESCRIPTORS_H
#define TFM_TEST_RUNTIME_MEMREF_DESCRIPTORS_H

#include <stdint.h>

typedef struct {
  int32_t *allocated, *aligned;
  int64_t offset, sizes[1], strides[1];
} I32x1;
typedef struct {
  int32_t *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} I32x2;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
} F32x2;
typedef struct {
  float *allocated, *aligned;
  int64_t offset, sizes[3], strides[3];
} F32x3;

#endif /* TFM_TEST_RUNTIME_MEMREF_DESCRIPTORS_H */
