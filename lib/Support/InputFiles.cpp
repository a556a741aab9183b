//===- InputFiles.cpp - reading untrusted files safely --------------------===//

#include "tfm/Support/InputFiles.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"

using namespace llvm;

Error tfm::checkJsonDepth(StringRef text, StringRef origin) {
  unsigned depth = 0;
  bool inString = false, escaped = false;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth)
        return createStringError(inconvertibleErrorCode(),
                                 origin + ": JSON nests deeper than " +
                                     Twine(kMaxJsonDepth) +
                                     " levels (at byte " + Twine(i) + ")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return Error::success();
}

std::optional<std::string> tfm::findDuplicateKey(StringRef text) {
  // One entry per open array or object: whether it is an object, and the
  // keys it has had.
  SmallVector<std::pair<bool, StringSet<>>> open;
  for (size_t i = 0, e = text.size(); i < e; ++i) {
    char c = text[i];
    if (c == '{' || c == '[') {
      open.emplace_back(c == '{', StringSet<>());
    } else if (c == '}' || c == ']') {
      if (!open.empty())
        open.pop_back();
    } else if (c == '"') {
      size_t start = ++i;
      while (i < e && text[i] != '"')
        i += text[i] == '\\' ? 2 : 1;
      StringRef string = text.slice(start, std::min(i, e));
      if (open.empty() || !open.back().first)
        continue;
      size_t next = text.find_first_not_of(" \t\r\n", i + 1);
      if (next != StringRef::npos && text[next] == ':' &&
          !open.back().second.insert(string).second)
        return string.str();
    }
  }
  return std::nullopt;
}

Expected<std::unique_ptr<MemoryBuffer>>
tfm::readRegularFile(StringRef path, bool isText, uint64_t maxBytes) {
  sys::fs::file_status status;
  if (std::error_code ec = sys::fs::status(path, status))
    return createStringError(ec, path + ": cannot open: " + ec.message());
  if (status.type() != sys::fs::file_type::regular_file)
    return createStringError(inconvertibleErrorCode(),
                             path + ": is not a regular file (a device, "
                                    "FIFO or directory cannot be read as "
                                    "one)");
  if (status.getSize() > maxBytes)
    return createStringError(inconvertibleErrorCode(),
                             path + ": is " + Twine(status.getSize()) +
                                 " bytes, more than the " + Twine(maxBytes) +
                                 " this format allows");
  ErrorOr<std::unique_ptr<MemoryBuffer>> buffer = MemoryBuffer::getFile(
      path, isText, /*RequiresNullTerminator=*/false);
  if (!buffer)
    return createStringError(buffer.getError(),
                             path + ": cannot open: " +
                                 buffer.getError().message());
  return std::move(*buffer);
}
