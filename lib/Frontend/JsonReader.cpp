//===- JsonReader.cpp - typed, path-aware reads of JSON objects -----------===//

#include "JsonReader.h"
#include "tfm/Support/InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace llvm;

namespace tfm {
namespace detail {

namespace {
/// Shortest round-trip-ish spelling of a number for messages ("4.5",
/// "1e+30").
std::string formatNumber(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", value);
  return buffer;
}
} // namespace

void JsonErrors::report(StringRef path, const Twine &msg) {
  if (failed())
    return;
  message = (file + ": " + (path.empty() ? "(root)" : path) + ": " + msg).str();
}

Error JsonErrors::takeError() const {
  if (!failed())
    return Error::success();
  return createStringError(inconvertibleErrorCode(), message);
}

Expected<json::Value> parseJsonText(StringRef text, StringRef file) {
  if (Error deep = ::tfm::checkJsonDepth(text, file))
    return std::move(deep);
  if (std::optional<std::string> dup = ::tfm::findDuplicateKey(text))
    return createStringError(inconvertibleErrorCode(),
                             file + ": the key '" + *dup +
                                 "' appears twice in one object (JSON "
                                 "readers disagree on which one counts)");
  Expected<json::Value> value = json::parse(text);
  if (value)
    return value;
  std::string message;
  handleAllErrors(value.takeError(), [&](const json::ParseError &err) {
    // ParseError logs "[LINE:COL, byte=N]: MESSAGE".
    std::string logged;
    raw_string_ostream os(logged);
    err.log(os);
    StringRef rest(logged);
    StringRef where, what;
    if (!rest.consume_front("[")) {
      message = (file + ": malformed JSON: " + logged).str();
      return;
    }
    std::tie(where, what) = rest.split("]: ");
    auto [line, column] = where.split(',').first.split(':');
    // The parser reports column 0 at the end of the input.
    if (column == "0")
      column = "1";
    message =
        (file + ":" + line + ":" + column + ": malformed JSON: " + what).str();
  });
  return createStringError(inconvertibleErrorCode(), message);
}

std::string joinPath(StringRef path, StringRef field) {
  if (path.empty())
    return field.str();
  return (path + "." + field).str();
}

std::string indexPath(StringRef path, size_t index) {
  return (path + "[" + Twine(index) + "]").str();
}

StringRef kindName(const json::Value &value) {
  switch (value.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "a value";
}

bool ObjectReader::has(StringRef key) {
  if (!object)
    return false;
  const json::Value *value = object->get(key);
  if (!value)
    return false;
  return !(nullIsAbsent && value->kind() == json::Value::Null);
}

bool ObjectReader::isNull(StringRef key) {
  seen.insert(key);
  if (!object)
    return false;
  const json::Value *value = object->get(key);
  return value && value->kind() == json::Value::Null;
}

const json::Value *ObjectReader::lookup(StringRef key, bool required,
                                        StringRef expected) {
  seen.insert(key);
  if (errors.failed() || !object)
    return nullptr;
  const json::Value *value = object->get(key);
  if (value && nullIsAbsent && value->kind() == json::Value::Null)
    value = nullptr;
  if (!value) {
    if (required)
      error(key, "missing required field (expected " + expected + ")");
    return nullptr;
  }
  return value;
}

const json::Value *ObjectReader::getValue(StringRef key) {
  return lookup(key, /*required=*/false, "");
}

std::optional<int64_t> ObjectReader::getInt(StringRef key, bool required,
                                            int64_t min, int64_t max) {
  const json::Value *value = lookup(key, required, "an integer");
  if (!value)
    return std::nullopt;
  std::optional<int64_t> result = value->getAsInteger();
  // llvm::json keeps `32.0` and `3.2e1` as doubles, which getAsInteger
  // accepts when they are integral; getAsUINT64 takes integers only, so a
  // non-negative value it refuses was written as a float. Integers are
  // integers.
  if (result && *result >= 0 && !value->getAsUINT64()) {
    error(key, "expected an integer, got " + formatNumber(*result) +
                   " written as a floating-point number");
    return std::nullopt;
  }
  if (!result) {
    if (std::optional<double> number = value->getAsNumber()) {
      if (std::isfinite(*number) && *number == std::floor(*number))
        error(key, formatv("{0} is out of range [{1}, {2}]",
                           formatNumber(*number), min, max));
      else
        error(key, "expected an integer, got " + formatNumber(*number));
    } else {
      error(key, "expected an integer, got " + kindName(*value));
    }
    return std::nullopt;
  }
  if (*result < min || *result > max) {
    if (min == 1 && *result <= 0)
      error(key, formatv("must be positive, got {0}", *result));
    else if (min == 0 && *result < 0)
      error(key, formatv("must not be negative, got {0}", *result));
    else
      error(key, formatv("{0} is out of range [{1}, {2}]", *result, min, max));
    return std::nullopt;
  }
  return result;
}

std::optional<double> ObjectReader::getNumber(StringRef key, bool required,
                                              double min, double max,
                                              bool minOpen) {
  const json::Value *value = lookup(key, required, "a number");
  if (!value)
    return std::nullopt;
  std::optional<double> result = value->getAsNumber();
  if (!result) {
    error(key, "expected a number, got " + kindName(*value));
    return std::nullopt;
  }
  bool belowMin = minOpen ? *result <= min : *result < min;
  if (!std::isfinite(*result) || belowMin || *result > max) {
    error(key, formatv("{0} is out of range {1}{2}, {3}]",
                       formatNumber(*result), minOpen ? "(" : "[",
                       formatNumber(min), formatNumber(max)));
    return std::nullopt;
  }
  return result;
}

std::optional<double> ObjectReader::getEpsilon(StringRef key,
                                               bool required) {
  std::optional<double> eps = getNumber(key, required, 0.0, 1.0, true);
  if (eps && static_cast<float>(*eps) == 0.0f) {
    error(key, formatNumber(*eps) + " rounds to 0 in f32, the precision "
                                    "the model computes in");
    return std::nullopt;
  }
  return eps;
}

std::optional<bool> ObjectReader::getBool(StringRef key, bool required) {
  const json::Value *value = lookup(key, required, "a boolean");
  if (!value)
    return std::nullopt;
  std::optional<bool> result = value->getAsBoolean();
  if (!result)
    error(key, "expected a boolean, got " + kindName(*value));
  return result;
}

std::optional<std::string> ObjectReader::getString(StringRef key,
                                                   bool required) {
  const json::Value *value = lookup(key, required, "a string");
  if (!value)
    return std::nullopt;
  std::optional<StringRef> result = value->getAsString();
  if (!result) {
    error(key, "expected a string, got " + kindName(*value));
    return std::nullopt;
  }
  return result->str();
}

std::optional<std::string>
ObjectReader::getEnum(StringRef key, bool required,
                      ArrayRef<StringRef> allowed) {
  std::optional<std::string> result = getString(key, required);
  if (!result)
    return std::nullopt;
  if (!llvm::is_contained(allowed, *result)) {
    std::string list;
    for (StringRef a : allowed)
      list += (list.empty() ? "\"" : ", \"") + a.str() + "\"";
    error(key, "unknown value \"" + *result + "\" (expected one of " + list +
                   ")");
    return std::nullopt;
  }
  return result;
}

const json::Object *ObjectReader::getObject(StringRef key, bool required) {
  const json::Value *value = lookup(key, required, "an object");
  if (!value)
    return nullptr;
  const json::Object *result = value->getAsObject();
  if (!result)
    error(key, "expected an object, got " + kindName(*value));
  return result;
}

const json::Array *ObjectReader::getArray(StringRef key, bool required) {
  const json::Value *value = lookup(key, required, "an array");
  if (!value)
    return nullptr;
  const json::Array *result = value->getAsArray();
  if (!result)
    error(key, "expected an array, got " + kindName(*value));
  return result;
}

void ObjectReader::finish(ArrayRef<StringRef> allowedUnread) {
  if (!strict || !object || errors.failed())
    return;
  // json::Object iterates in hash order: sort for a deterministic message.
  std::vector<std::string> unknown;
  for (const auto &kv : *object) {
    StringRef key = kv.first;
    if (!seen.contains(key) && !llvm::is_contained(allowedUnread, key))
      unknown.push_back(key.str());
  }
  if (unknown.empty())
    return;
  llvm::sort(unknown);
  error(unknown.front(), "unknown field");
}

} // namespace detail
} // namespace tfm
