//===- Npy.h - NumPy .npy reading and writing -------------------*- C++ -*-===//
//
// The .npy format: the magic "\x93NUMPY", a version (1.0, 2.0 or 3.0), a
// little-endian header length (2 bytes in 1.0, 4 bytes after), a Python dict
// literal {'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), } padded
// with spaces and ended by '\n', then the raw C-order data.
//
// tfm-run reads token ids (int32 or int64) and writes float32 results. The
// reader accepts little-endian int32, int64 and float32 in C order and checks
// that the data is exactly as long as dtype x shape says. Errors name the file
// and the field.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_SUPPORT_NPY_H
#define TFM_SUPPORT_NPY_H

#include "tfm/Support/SafeTensors.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tfm {

/// One array read from a .npy file. `dtype` is DType::I32, DType::I64 or
/// DType::F32; `data` holds the little-endian bytes in C order.
struct NpyArray {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;

  int64_t numElements() const;
  /// The elements as int32. Integer arrays only; int64 values outside the
  /// int32 range are an error naming `what` and the flat index.
  llvm::Expected<std::vector<int32_t>> toInt32(llvm::StringRef what) const;
};

/// Reads and validates the .npy file at `path`.
llvm::Expected<NpyArray> readNpy(llvm::StringRef path);
/// Validates an in-memory .npy image; `name` is used in messages.
llvm::Expected<NpyArray> parseNpy(llvm::StringRef image, llvm::StringRef name);

/// Writes a float32 array in .npy 1.0 format (C order, little-endian).
llvm::Error writeNpyF32(llvm::StringRef path, llvm::ArrayRef<int64_t> shape,
                        llvm::ArrayRef<float> values);

} // namespace tfm

#endif // TFM_SUPPORT_NPY_H
