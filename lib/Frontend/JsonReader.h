//===- JsonReader.h - typed, path-aware reads of JSON objects ---*- C++ -*-===//
//
// Reads fields of llvm::json objects with type and range checks. The first
// problem is recorded as "FILE: PATH: message", where PATH is the JSON path
// of the field (`layers[2].attention.window`); later reads become no-ops, so
// a parser can read everything and check `failed()` once.
//
//===----------------------------------------------------------------------===//

#ifndef TFM_LIB_FRONTEND_JSONREADER_H
#define TFM_LIB_FRONTEND_JSONREADER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <optional>
#include <string>

namespace tfm {
namespace detail {

/// The first error of a parse.
class JsonErrors {
public:
  explicit JsonErrors(llvm::StringRef file) : file(file.str()) {}

  bool failed() const { return !message.empty(); }
  void report(llvm::StringRef path, const llvm::Twine &msg);
  llvm::Error takeError() const;
  llvm::StringRef getFile() const { return file; }

private:
  std::string file;
  std::string message;
};

/// Parses `text` as JSON; a syntax error becomes "FILE:LINE:COL: malformed
/// JSON: ...".
llvm::Expected<llvm::json::Value> parseJsonText(llvm::StringRef text,
                                                llvm::StringRef file);

/// Joins a JSON path and a field name.
std::string joinPath(llvm::StringRef path, llvm::StringRef field);
std::string indexPath(llvm::StringRef path, size_t index);

/// A view of one JSON object at `path`.
class ObjectReader {
public:
  /// `strict`: fields nobody read are reported by finish(). `nullIsAbsent`:
  /// a `null` value reads like a missing field (Hugging Face configs).
  ObjectReader(JsonErrors &errors, const llvm::json::Object *object,
               std::string path, bool strict = true, bool nullIsAbsent = false)
      : errors(errors), object(object), path(std::move(path)), strict(strict),
        nullIsAbsent(nullIsAbsent) {}

  bool has(llvm::StringRef key);
  /// True when `key` is present with the value `null` (marks it as read).
  bool isNull(llvm::StringRef key);
  std::string fieldPath(llvm::StringRef key) const {
    return joinPath(path, key);
  }

  /// An integer in [min, max]; other values are errors naming the field.
  std::optional<int64_t> getInt(llvm::StringRef key, bool required,
                                int64_t min, int64_t max);
  std::optional<double> getNumber(llvm::StringRef key, bool required,
                                  double min, double max, bool minOpen = false);
  /// A norm epsilon: a number in (0, 1] that stays positive in f32, the
  /// precision the model computes in (1e-300 would be 0 there, and an
  /// all-zero row would divide by it).
  std::optional<double> getEpsilon(llvm::StringRef key, bool required);
  std::optional<bool> getBool(llvm::StringRef key, bool required);
  std::optional<std::string> getString(llvm::StringRef key, bool required);
  /// A string that must be one of `allowed`.
  std::optional<std::string> getEnum(llvm::StringRef key, bool required,
                                     llvm::ArrayRef<llvm::StringRef> allowed);
  const llvm::json::Object *getObject(llvm::StringRef key, bool required);
  const llvm::json::Array *getArray(llvm::StringRef key, bool required);
  /// The raw value (marks the key as read); null when absent.
  const llvm::json::Value *getValue(llvm::StringRef key);

  /// Reports the first field that was never read (strict readers only).
  void finish(llvm::ArrayRef<llvm::StringRef> allowedUnread = {});

  void error(llvm::StringRef key, const llvm::Twine &msg) {
    errors.report(fieldPath(key), msg);
  }

private:
  const llvm::json::Value *lookup(llvm::StringRef key, bool required,
                                  llvm::StringRef expected);
  JsonErrors &errors;
  const llvm::json::Object *object;
  std::string path;
  bool strict;
  bool nullIsAbsent;
  llvm::StringSet<> seen;
};

/// The JSON kind of `value` for messages ("a string", "an array", ...).
llvm::StringRef kindName(const llvm::json::Value &value);

} // namespace detail
} // namespace tfm

#endif // TFM_LIB_FRONTEND_JSONREADER_H
