//===- InputFiles.h - reading untrusted files safely ------------*- C++ -*-===//
//
// What every reader of a file a user hands tfm goes through, in the compiler
// and in the runtime inside each model library: the file must be a regular
// file (a device such as /dev/zero, a FIFO or a directory would be read
// forever or fail obscurely), and JSON text must not nest deeper than any
// tfm format does before llvm::json::parse, which recurses once per level,
// sees it (a safetensors header nested 3,000 deep overflows a 256 KiB
// thread stack). No MLIR: the runtime links it.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_SUPPORT_INPUTFILES_H
#define TFM_SUPPORT_INPUTFILES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace tfm {

/// The deepest nesting of JSON arrays and objects tfm reads. No tfm format
/// nests deeper than 6 (a spec's layer overrides); 64 leaves room and
/// bounds the parser's stack use to a few KiB.
constexpr unsigned kMaxJsonDepth = 64;

/// An error "ORIGIN: JSON nests deeper than 64 levels (at byte N)" when
/// `text` opens more than kMaxJsonDepth arrays and objects at once
/// (brackets inside strings do not count); success otherwise. Linear, no
/// recursion: run it before llvm::json::parse.
llvm::Error checkJsonDepth(llvm::StringRef text, llvm::StringRef origin);

/// The first key that appears twice in one JSON object of `text` (at any
/// depth), or none. JSON leaves duplicates undefined and readers disagree
/// (llvm::json keeps the last, others the first), so tfm refuses them.
/// Assumes checkJsonDepth passed.
std::optional<std::string> findDuplicateKey(llvm::StringRef text);

/// The contents of `path`, which must be a regular file (following
/// symbolic links) of at most `maxBytes`; errors name the path and why
/// ("is not a regular file", "is N bytes, more than ...", the system's
/// reason it cannot be opened).
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
readRegularFile(llvm::StringRef path, bool isText,
                uint64_t maxBytes = UINT64_MAX);

} // namespace tfm

#endif // TFM_SUPPORT_INPUTFILES_H
