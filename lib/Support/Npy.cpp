//===- Npy.cpp - NumPy .npy reading and writing ---------------------------===//
//
// A strict reader for the header dict numpy writes (three keys, Python
// literals) and a float32 writer whose header is padded to 64 bytes like
// numpy's own.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/Npy.h"
#include "tfm/Support/InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <optional>

using namespace tfm;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

constexpr StringRef kMagic("\x93NUMPY", 6);

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The header dict: {'descr': str, 'fortran_order': bool, 'shape': tuple}.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortranOrder;
  std::optional<std::vector<int64_t>> shape;
};

/// Recursive-descent parser for the Python literal subset numpy writes.
class HeaderParser {
public:
  HeaderParser(StringRef text, StringRef file) : text(text), file(file) {}

  Expected<Header> parse() {
    Header header;
    skipSpace();
    if (!consume('{'))
      return fail("header does not start with '{'");
    while (true) {
      skipSpace();
      if (consume('}'))
        break;
      Expected<std::string> key = parseString("a key");
      if (!key)
        return key.takeError();
      skipSpace();
      if (!consume(':'))
        return fail("expected ':' after key '" + *key + "'");
      skipSpace();
      if (*key == "descr") {
        Expected<std::string> s = parseString("the value of 'descr'");
        if (!s)
          return s.takeError();
        header.descr = *s;
      } else if (*key == "fortran_order") {
        if (text.consume_front("True"))
          header.fortranOrder = true;
        else if (text.consume_front("False"))
          header.fortranOrder = false;
        else
          return fail("'fortran_order' is not True or False");
      } else if (*key == "shape") {
        Expected<std::vector<int64_t>> shape = parseShape();
        if (!shape)
          return shape.takeError();
        header.shape = std::move(*shape);
      } else {
        return fail("unexpected key '" + *key + "'");
      }
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume('}'))
        break;
      return fail("expected ',' or '}' after the value of '" + *key + "'");
    }
    skipSpace();
    if (!text.empty())
      return fail("unexpected text after the header dict");
    if (!header.descr)
      return fail("missing key 'descr'");
    if (!header.fortranOrder)
      return fail("missing key 'fortran_order'");
    if (!header.shape)
      return fail("missing key 'shape'");
    return header;
  }

private:
  StringRef text;
  StringRef file;

  Error fail(const llvm::Twine &what) {
    return makeError(file + ": invalid .npy header: " + what);
  }
  void skipSpace() { text = text.ltrim(" \t\r\n"); }
  bool consume(char c) { return text.consume_front(StringRef(&c, 1)); }

  Expected<std::string> parseString(StringRef what) {
    if (text.empty() || (text.front() != '\'' && text.front() != '"'))
      return fail("expected a string for " + what);
    char quote = text.front();
    size_t close = text.find(quote, 1);
    if (close == StringRef::npos)
      return fail("unterminated string in " + what);
    std::string s = text.slice(1, close).str();
    text = text.drop_front(close + 1);
    return s;
  }

  Expected<std::vector<int64_t>> parseShape() {
    std::vector<int64_t> shape;
    if (!consume('('))
      return fail("'shape' is not a tuple");
    while (true) {
      skipSpace();
      if (consume(')'))
        return shape;
      size_t digits = 0;
      while (digits < text.size() &&
             (llvm::isDigit(text[digits]) || (digits == 0 && text[0] == '-')))
        ++digits;
      int64_t dim;
      if (digits == 0 || text.take_front(digits).getAsInteger(10, dim))
        return fail("'shape' has a dimension that is not an integer");
      if (dim < 0)
        return fail("'shape' has a negative dimension (" + llvm::Twine(dim) +
                    ")");
      text = text.drop_front(digits);
      // Python writes 'L' suffixes on longs in very old files.
      consume('L');
      shape.push_back(dim);
      skipSpace();
      if (consume(','))
        continue;
      skipSpace();
      if (consume(')'))
        return shape;
      return fail("'shape' tuple is malformed");
    }
  }
};

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, ", ");
  if (shape.size() == 1)
    os << ",";
  os << ")";
  return s;
}

} // namespace

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d; // Validated not to overflow when the file was read.
  return n;
}

Expected<std::vector<int32_t>> NpyArray::toInt32(StringRef what) const {
  std::vector<int32_t> out;
  int64_t n = numElements();
  out.reserve(n);
  if (dtype == DType::I32) {
    for (int64_t i = 0; i < n; ++i)
      out.push_back(static_cast<int32_t>(
          llvm::support::endian::read32le(data.data() + 4 * i)));
    return out;
  }
  if (dtype == DType::I64) {
    for (int64_t i = 0; i < n; ++i) {
      auto v = static_cast<int64_t>(
          llvm::support::endian::read64le(data.data() + 8 * i));
      if (v < INT32_MIN || v > INT32_MAX)
        return makeError(what + ": element " + llvm::Twine(i) + " (" +
                         llvm::Twine(v) + ") does not fit in int32");
      out.push_back(static_cast<int32_t>(v));
    }
    return out;
  }
  return makeError(what + ": expected an integer array (int32 or int64), got " +
                   "float32");
}

Expected<NpyArray> tfm::parseNpy(StringRef image, StringRef name) {
  if (!image.starts_with(kMagic))
    return makeError(name + ": not a .npy file (missing the \\x93NUMPY magic)");
  if (image.size() < 10)
    return makeError(name + ": truncated .npy header");
  unsigned major = static_cast<uint8_t>(image[6]);
  unsigned minor = static_cast<uint8_t>(image[7]);
  uint64_t headerLength, headerStart;
  // The versions numpy writes and reads: 1.0, 2.0 and 3.0 (it rejects any
  // other minor version, and so does tfm).
  if (minor != 0) {
    return makeError(name + ": unsupported .npy format version " +
                     llvm::Twine(major) + "." + llvm::Twine(minor) +
                     " (numpy writes 1.0, 2.0 and 3.0)");
  } else if (major == 1) {
    headerLength = llvm::support::endian::read16le(image.data() + 8);
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (image.size() < 12)
      return makeError(name + ": truncated .npy header");
    headerLength = llvm::support::endian::read32le(image.data() + 8);
    headerStart = 12;
  } else {
    return makeError(name + ": unsupported .npy format version " +
                     llvm::Twine(major) + ".0 (numpy writes 1.0, 2.0 and "
                                          "3.0)");
  }
  if (headerLength > image.size() - headerStart)
    return makeError(name + ": .npy header length " +
                     llvm::Twine(headerLength) + " runs past the end of the " +
                     "file (" + llvm::Twine(image.size()) + " bytes)");
  StringRef headerText = image.substr(headerStart, headerLength);
  Expected<Header> header = HeaderParser(headerText, name).parse();
  if (!header)
    return header.takeError();

  NpyArray array;
  StringRef descr = *header->descr;
  if (descr == "<i4")
    array.dtype = DType::I32;
  else if (descr == "<i8")
    array.dtype = DType::I64;
  else if (descr == "<f4")
    array.dtype = DType::F32;
  else if (descr.starts_with(">"))
    return makeError(name + ": 'descr' is '" + descr +
                     "': big-endian arrays are not supported");
  else
    return makeError(name + ": 'descr' is '" + descr +
                     "': only int32 ('<i4'), int64 ('<i8') and float32 " +
                     "('<f4') arrays are supported");
  if (*header->fortranOrder)
    return makeError(name + ": 'fortran_order' is True: only C-order arrays " +
                     "are supported");
  array.shape = std::move(*header->shape);

  uint64_t elements = 1;
  for (int64_t d : array.shape)
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements) ||
        elements > static_cast<uint64_t>(INT64_MAX))
      return makeError(name + ": 'shape' " + shapeString(array.shape) +
                       " has too many elements");
  uint64_t bytes;
  unsigned itemSize = dtypeSize(array.dtype);
  uint64_t available = image.size() - headerStart - headerLength;
  if (__builtin_mul_overflow(elements, itemSize, &bytes) || bytes != available)
    return makeError(name + ": 'shape' " + shapeString(array.shape) + " of '" +
                     descr + "' needs " +
                     llvm::Twine(elements) + " x " + llvm::Twine(itemSize) +
                     " bytes of data but the file has " +
                     llvm::Twine(available));
  StringRef data = image.drop_front(headerStart + headerLength);
  array.data.assign(data.bytes_begin(), data.bytes_end());
  return array;
}

Expected<NpyArray> tfm::readNpy(StringRef path) {
  Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, /*isText=*/false);
  if (!buffer)
    return buffer.takeError();
  return parseNpy((*buffer)->getBuffer(), path);
}

Error tfm::writeNpyF32(StringRef path, llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<float> values) {
  int64_t elements = 1;
  for (int64_t d : shape)
    elements *= d;
  if (elements < 0 || static_cast<uint64_t>(elements) != values.size())
    return makeError(path + ": shape " + shapeString(shape) + " does not " +
                     "match the " + llvm::Twine(values.size()) + " values");

  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " +
                       shapeString(shape) + ", }";
  // Magic (6) + version (2) + length (2) + header + '\n', padded to 64.
  size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header.push_back('\n');

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError(path + ": cannot write: " + ec.message());
  os << kMagic;
  os.write(1);
  os.write(0);
  char length[2];
  llvm::support::endian::write16le(length, header.size());
  os.write(length, 2);
  os << header;
  for (float v : values) {
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    char le[4];
    llvm::support::endian::write32le(le, bits);
    os.write(le, 4);
  }
  os.close();
  if (os.has_error())
    return makeError(path + ": write failed: " + os.error().message());
  return Error::success();
}
