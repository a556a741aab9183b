//===- fuzz-safetensors.cpp - libFuzzer harness: safetensors images -------===//
//
// Any byte string given as a weights file: the reader either accepts it
// (then every tensor's bytes lie inside the image) or returns an error;
// it never crashes, hangs or reads out of bounds.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/SafeTensors.h"

#include "llvm/Support/MemoryBuffer.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  auto buffer = llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(reinterpret_cast<const char *>(data), size),
      "fuzz.safetensors");
  llvm::Expected<tfm::WeightSet> set =
      tfm::WeightSet::fromBuffer(std::move(buffer));
  if (!set) {
    llvm::consumeError(set.takeError());
    return 0;
  }
  // Touch the first and last byte of every tensor: ASan reports a range
  // the validation let through that lies outside the image.
  volatile uint8_t sink = 0;
  for (llvm::StringRef name : set->names()) {
    std::optional<tfm::WeightSet::Entry> entry = set->find(name);
    if (!entry)
      __builtin_trap(); // a listed name must be found
    llvm::ArrayRef<uint8_t> bytes = entry->file->bytes(*entry->tensor);
    if (bytes.size() != static_cast<size_t>(entry->tensor->numElements()) *
                            tfm::dtypeSize(entry->tensor->dtype))
      __builtin_trap(); // size and shape disagree
    if (!bytes.empty())
      sink = sink + bytes.front() + bytes.back();
  }
  return 0;
}
