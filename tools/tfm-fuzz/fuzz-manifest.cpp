//===- fuzz-manifest.cpp - libFuzzer harness: model manifests -------------===//
//
// Any text as a model library's manifest (tfm_model_create parses the one
// it finds in the library; tfm-run --manifest reads a file): the parser
// either accepts it or returns an error naming the field, and what it
// accepts it writes back (Manifest::toJSON) into text it accepts again,
// unchanged.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/Manifest.h"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<tfm::Manifest> manifest =
      tfm::Manifest::parse(text, "fuzz manifest");
  if (!manifest) {
    llvm::consumeError(manifest.takeError());
    return 0;
  }
  std::string written = manifest->toJSON();
  llvm::Expected<tfm::Manifest> again =
      tfm::Manifest::parse(written, "written manifest");
  if (!again || again->toJSON() != written)
    __builtin_trap(); // the writer and the parser disagree
  return 0;
}
