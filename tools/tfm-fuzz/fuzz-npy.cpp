//===- fuzz-npy.cpp - libFuzzer harness: .npy images ----------------------===//
//
// Any byte string given as token ids or lengths (tfm-run --tokens): the
// reader either accepts it, with as many elements as its shape says, or
// returns an error; it never crashes or reads out of bounds.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/Npy.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<tfm::NpyArray> array = tfm::parseNpy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.npy");
  if (!array) {
    llvm::consumeError(array.takeError());
    return 0;
  }
  int64_t count = 1;
  for (int64_t d : array->shape) {
    if (d < 0 || __builtin_mul_overflow(count, d, &count))
      __builtin_trap(); // an accepted shape is non-negative and bounded
  }
  if (array->data.size() !=
      static_cast<size_t>(count) * tfm::dtypeSize(array->dtype))
    __builtin_trap(); // the data is exactly what the shape says
  // Conversions of integer arrays check every value.
  if (array->dtype == tfm::DType::I32 || array->dtype == tfm::DType::I64) {
    llvm::Expected<std::vector<int32_t>> ids = array->toInt32("fuzz ids");
    if (!ids)
      llvm::consumeError(ids.takeError());
    else if (ids->size() != static_cast<size_t>(count))
      __builtin_trap();
  }
  return 0;
}
