//===- SafeTensors.h - safetensors reading and writing ----------*- C++ -*-===//
//
// The safetensors format: an 8-byte little-endian header length N, N bytes of
// JSON mapping tensor names to {dtype, shape, data_offsets: [begin, end)}
// (plus an optional "__metadata__" string map), then the data section.
//
// Reading validates everything before any tensor is handed out: header
// length within the file, valid JSON, known dtypes, non-negative shapes whose
// element count times the dtype size neither overflows nor differs from
// end - begin, offsets inside the data section, no two tensors overlapping.
// Errors name the file and the tensor or field.
//
// Used by the frontend (shape checks at compile time) and by the runtime that
// is linked into every compiled model (weights at load time), so it depends on
// LLVMSupport only.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_SUPPORT_SAFETENSORS_H
#define TFM_SUPPORT_SAFETENSORS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tfm {

enum class DType { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool };

/// The safetensors spelling ("F32", "BF16", ...).
llvm::StringRef dtypeName(DType dtype);
std::optional<DType> parseDType(llvm::StringRef name);
/// Bytes per element.
unsigned dtypeSize(DType dtype);

struct TensorInfo {
  std::string name;
  DType dtype;
  std::vector<int64_t> shape;
  /// Byte range [begin, end) inside the data section.
  uint64_t begin = 0, end = 0;

  int64_t numElements() const;
};

/// One safetensors file, memory-mapped (or owned in memory) and validated.
class SafeTensorsFile {
public:
  /// Maps `path` and validates its header and offsets.
  static llvm::Expected<SafeTensorsFile> open(llvm::StringRef path);
  /// Validates an in-memory image; `name` is used in messages.
  static llvm::Expected<SafeTensorsFile>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);

  llvm::StringRef path() const { return path_; }
  llvm::ArrayRef<TensorInfo> tensors() const { return tensors_; }
  const TensorInfo *find(llvm::StringRef name) const;
  /// The raw little-endian bytes of `tensor` (a view into the mapping).
  llvm::ArrayRef<uint8_t> bytes(const TensorInfo &tensor) const;
  const llvm::StringMap<std::string> &metadata() const { return metadata_; }

private:
  std::string path_;
  std::unique_ptr<llvm::MemoryBuffer> buffer_;
  uint64_t dataStart_ = 0;
  std::vector<TensorInfo> tensors_;
  llvm::StringMap<size_t> index_;
  llvm::StringMap<std::string> metadata_;
};

/// All weights of a model: one safetensors file, a folder with
/// `model.safetensors`, or a folder with a sharded checkpoint described by
/// `model.safetensors.index.json` (its weight_map is validated: every shard
/// exists and holds the tensors the map assigns to it).
class WeightSet {
public:
  static llvm::Expected<WeightSet> open(llvm::StringRef fileOrFolder);
  /// One in-memory safetensors image (e.g. weights embedded in a model
  /// library); the buffer's identifier names it in messages.
  static llvm::Expected<WeightSet>
  fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer);

  struct Entry {
    const SafeTensorsFile *file;
    const TensorInfo *tensor;
  };
  /// Looks `name` up across all files.
  std::optional<Entry> find(llvm::StringRef name) const;
  /// Every tensor name, in file order.
  std::vector<llvm::StringRef> names() const;
  llvm::ArrayRef<std::unique_ptr<SafeTensorsFile>> files() const { return files_; }

private:
  std::vector<std::unique_ptr<SafeTensorsFile>> files_;
  llvm::StringMap<Entry> index_;
};

/// Writes a safetensors file (tests and tools make their own small files).
class SafeTensorsWriter {
public:
  void add(llvm::StringRef name, DType dtype, llvm::ArrayRef<int64_t> shape,
           llvm::ArrayRef<uint8_t> bytes);
  void addF32(llvm::StringRef name, llvm::ArrayRef<int64_t> shape,
              llvm::ArrayRef<float> values);
  llvm::Error write(llvm::StringRef path) const;

private:
  struct Pending {
    std::string name;
    DType dtype;
    std::vector<int64_t> shape;
    std::vector<uint8_t> bytes;
  };
  std::vector<Pending> tensors_;
};

} // namespace tfm

#endif // TFM_SUPPORT_SAFETENSORS_H
