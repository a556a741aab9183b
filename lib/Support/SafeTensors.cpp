//===- SafeTensors.cpp - safetensors reading and writing ------------------===//
//
// Reading validates the whole header before a single tensor is handed out;
// see SafeTensors.h for the list of checks. Every message starts with the
// file name and names the tensor or field at fault.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/SafeTensors.h"
#include "tfm/Support/InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace tfm;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

struct DTypeRow {
  DType dtype;
  const char *name;
  unsigned size;
};

constexpr DTypeRow kDTypes[] = {
    {DType::F32, "F32", 4}, {DType::F16, "F16", 2}, {DType::BF16, "BF16", 2},
    {DType::F64, "F64", 8}, {DType::I64, "I64", 8}, {DType::I32, "I32", 4},
    {DType::I16, "I16", 2}, {DType::I8, "I8", 1},   {DType::U8, "U8", 1},
    {DType::Bool, "BOOL", 1},
};

const DTypeRow &row(DType dtype) {
  for (const DTypeRow &r : kDTypes)
    if (r.dtype == dtype)
      return r;
  llvm_unreachable("DType without a table row");
}

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string shapeString(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, ", ");
  os << "]";
  return s;
}

/// Parses one header entry (everything but "__metadata__").
Expected<TensorInfo> parseEntry(StringRef file, StringRef name,
                                const llvm::json::Value &value) {
  auto fail = [&](const llvm::Twine &what) {
    return makeError(file + ": tensor '" + name + "': " + what);
  };
  const llvm::json::Object *entry = value.getAsObject();
  if (!entry)
    return fail("header entry is not a JSON object");

  TensorInfo info;
  info.name = name.str();

  const llvm::json::Value *dtypeValue = entry->get("dtype");
  if (!dtypeValue)
    return fail("missing field 'dtype'");
  std::optional<StringRef> dtypeText = dtypeValue->getAsString();
  if (!dtypeText)
    return fail("field 'dtype' is not a string");
  std::optional<DType> dtype = parseDType(*dtypeText);
  if (!dtype)
    return fail("unknown dtype '" + *dtypeText + "'");
  info.dtype = *dtype;

  const llvm::json::Value *shapeValue = entry->get("shape");
  if (!shapeValue)
    return fail("missing field 'shape'");
  const llvm::json::Array *shape = shapeValue->getAsArray();
  if (!shape)
    return fail("field 'shape' is not an array");
  for (auto [i, dim] : llvm::enumerate(*shape)) {
    std::optional<int64_t> d = dim.getAsInteger();
    if (!d)
      return fail(llvm::formatv("shape[{0}] is not an integer", i).str());
    if (*d < 0)
      return fail(llvm::formatv("shape[{0}] is negative ({1})", i, *d).str());
    info.shape.push_back(*d);
  }

  const llvm::json::Value *offsetsValue = entry->get("data_offsets");
  if (!offsetsValue)
    return fail("missing field 'data_offsets'");
  const llvm::json::Array *offsets = offsetsValue->getAsArray();
  if (!offsets || offsets->size() != 2)
    return fail("field 'data_offsets' is not an array [begin, end]");
  std::optional<uint64_t> begin = (*offsets)[0].getAsUINT64();
  std::optional<uint64_t> end = (*offsets)[1].getAsUINT64();
  if (!begin || !end)
    return fail("data_offsets must be two non-negative integers");
  if (*begin > *end)
    return fail(llvm::formatv("data_offsets begin {0} is past end {1}", *begin,
                              *end)
                    .str());
  info.begin = *begin;
  info.end = *end;

  // Element count and byte size, both checked for overflow.
  uint64_t elements = 1;
  for (int64_t d : info.shape)
    if (__builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements) ||
        elements > static_cast<uint64_t>(INT64_MAX))
      return fail("element count of shape " + shapeString(info.shape) +
                  " overflows");
  uint64_t bytes;
  if (__builtin_mul_overflow(elements, dtypeSize(info.dtype), &bytes))
    return fail("byte size of shape " + shapeString(info.shape) +
                " overflows");
  if (bytes != info.end - info.begin)
    return fail(llvm::formatv("dtype {0} x shape {1} is {2} bytes but "
                              "data_offsets [{3}, {4}) span {5} bytes",
                              dtypeName(info.dtype), shapeString(info.shape),
                              bytes, info.begin, info.end,
                              info.end - info.begin)
                    .str());
  return info;
}

} // namespace

//===----------------------------------------------------------------------===//
// DType helpers
//===----------------------------------------------------------------------===//

StringRef tfm::dtypeName(DType dtype) { return row(dtype).name; }

std::optional<DType> tfm::parseDType(StringRef name) {
  for (const DTypeRow &r : kDTypes)
    if (name == r.name)
      return r.dtype;
  return std::nullopt;
}

unsigned tfm::dtypeSize(DType dtype) { return row(dtype).size; }

int64_t TensorInfo::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d; // Validated not to overflow when the file was opened.
  return n;
}

//===----------------------------------------------------------------------===//
// SafeTensorsFile
//===----------------------------------------------------------------------===//

Expected<SafeTensorsFile> SafeTensorsFile::open(StringRef path) {
  Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(path, /*isText=*/false);
  if (!buffer)
    return buffer.takeError();
  return fromBuffer(std::move(*buffer));
}

Expected<SafeTensorsFile>
SafeTensorsFile::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  SafeTensorsFile file;
  file.path_ = buffer->getBufferIdentifier().str();
  StringRef path = file.path_;
  uint64_t size = buffer->getBufferSize();
  if (size < 8)
    return makeError(path + ": file is " + llvm::Twine(size) +
                     " bytes, too short for the 8-byte header length");
  // A .npy file given as weights: say so rather than report its magic as
  // an absurd header length.
  if (buffer->getBuffer().starts_with(llvm::StringRef("\x93NUMPY", 6)))
    return makeError(path + ": is a .npy file, not safetensors (weights "
                            "are read from .safetensors files)");
  uint64_t headerLength =
      llvm::support::endian::read64le(buffer->getBufferStart());
  if (headerLength > size - 8)
    return makeError(path + ": header length " + llvm::Twine(headerLength) +
                     " runs past the end of the file (" + llvm::Twine(size) +
                     " bytes)");
  StringRef header(buffer->getBufferStart() + 8, headerLength);

  if (Error deep = checkJsonDepth(header, (path + " (header)").str()))
    return std::move(deep);
  Expected<llvm::json::Value> json = llvm::json::parse(header);
  if (!json)
    return makeError(path + ": invalid header JSON: " +
                     llvm::toString(json.takeError()));
  const llvm::json::Object *top = json->getAsObject();
  if (!top)
    return makeError(path + ": header is not a JSON object");
  if (std::optional<std::string> dup = findDuplicateKey(header))
    return makeError(path + ": header names '" + *dup + "' twice");

  for (const auto &[key, value] : *top) {
    StringRef name = key;
    if (name == "__metadata__") {
      const llvm::json::Object *meta = value.getAsObject();
      if (!meta)
        return makeError(path + ": field '__metadata__' is not an object");
      for (const auto &[mkey, mvalue] : *meta) {
        std::optional<StringRef> s = mvalue.getAsString();
        if (!s)
          return makeError(path + ": __metadata__ entry '" + StringRef(mkey) +
                           "' is not a string");
        file.metadata_[mkey] = s->str();
      }
      continue;
    }
    Expected<TensorInfo> info = parseEntry(path, name, value);
    if (!info)
      return info.takeError();
    file.tensors_.push_back(std::move(*info));
  }

  // File order is data order; ties (empty tensors) are broken by name so the
  // order never depends on the JSON object's hashing.
  llvm::sort(file.tensors_, [](const TensorInfo &a, const TensorInfo &b) {
    return std::tie(a.begin, a.end, a.name) < std::tie(b.begin, b.end, b.name);
  });

  file.dataStart_ = 8 + headerLength;
  uint64_t dataSize = size - file.dataStart_;
  const TensorInfo *previous = nullptr;
  for (const TensorInfo &t : file.tensors_) {
    if (t.end > dataSize)
      return makeError(path + ": tensor '" + t.name + "': data_offsets [" +
                       llvm::Twine(t.begin) + ", " + llvm::Twine(t.end) +
                       ") run past the data section (" +
                       llvm::Twine(dataSize) + " bytes)");
    if (previous && t.begin < previous->end && t.begin != t.end)
      return makeError(path + ": tensor '" + t.name + "': data_offsets [" +
                       llvm::Twine(t.begin) + ", " + llvm::Twine(t.end) +
                       ") overlap tensor '" + previous->name + "' [" +
                       llvm::Twine(previous->begin) + ", " +
                       llvm::Twine(previous->end) + ")");
    if (t.begin != t.end)
      previous = &t;
  }
  for (auto [i, t] : llvm::enumerate(file.tensors_))
    file.index_[t.name] = i;
  file.buffer_ = std::move(buffer);
  return file;
}

const TensorInfo *SafeTensorsFile::find(StringRef name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &tensors_[it->second];
}

llvm::ArrayRef<uint8_t> SafeTensorsFile::bytes(const TensorInfo &tensor) const {
  const auto *data =
      reinterpret_cast<const uint8_t *>(buffer_->getBufferStart()) +
      dataStart_;
  return llvm::ArrayRef<uint8_t>(data + tensor.begin, tensor.end - tensor.begin);
}

//===----------------------------------------------------------------------===//
// WeightSet
//===----------------------------------------------------------------------===//

namespace {

constexpr StringRef kIndexName = "model.safetensors.index.json";
constexpr StringRef kSingleName = "model.safetensors";

/// Reads `model.safetensors.index.json` and returns its weight_map as
/// (tensor, shard) pairs in a stable order.
Expected<std::vector<std::pair<std::string, std::string>>>
readIndex(StringRef indexPath) {
  Expected<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      readRegularFile(indexPath, /*isText=*/true);
  if (!buffer)
    return buffer.takeError();
  if (Error deep = checkJsonDepth((*buffer)->getBuffer(), indexPath))
    return std::move(deep);
  Expected<llvm::json::Value> json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return makeError(indexPath + ": invalid JSON: " +
                     llvm::toString(json.takeError()));
  const llvm::json::Object *top = json->getAsObject();
  if (!top)
    return makeError(indexPath + ": not a JSON object");
  const llvm::json::Value *mapValue = top->get("weight_map");
  if (!mapValue)
    return makeError(indexPath + ": missing field 'weight_map'");
  const llvm::json::Object *map = mapValue->getAsObject();
  if (!map)
    return makeError(indexPath + ": field 'weight_map' is not an object");
  std::vector<std::pair<std::string, std::string>> entries;
  for (const auto &[tensor, shardValue] : *map) {
    std::optional<StringRef> shard = shardValue.getAsString();
    if (!shard)
      return makeError(indexPath + ": weight_map entry '" + StringRef(tensor) +
                       "' is not a string");
    if (shard->empty() || llvm::sys::path::is_absolute(*shard) ||
        shard->contains("..") || shard->contains('/') ||
        shard->contains('\\'))
      return makeError(indexPath + ": weight_map entry '" + StringRef(tensor) +
                       "' names '" + *shard +
                       "', which is not a file name inside the folder");
    entries.emplace_back(tensor.str(), shard->str());
  }
  llvm::sort(entries);
  return entries;
}

} // namespace

Expected<WeightSet> WeightSet::open(StringRef fileOrFolder) {
  WeightSet set;
  auto addFile = [&](StringRef path) -> Expected<SafeTensorsFile *> {
    Expected<SafeTensorsFile> file = SafeTensorsFile::open(path);
    if (!file)
      return file.takeError();
    set.files_.push_back(std::make_unique<SafeTensorsFile>(std::move(*file)));
    SafeTensorsFile *f = set.files_.back().get();
    for (const TensorInfo &t : f->tensors()) {
      auto [it, inserted] = set.index_.try_emplace(t.name, Entry{f, &t});
      if (!inserted)
        return makeError(path + ": tensor '" + t.name + "' also appears in " +
                         it->second.file->path());
    }
    return f;
  };

  llvm::SmallString<256> indexPath;
  if (llvm::sys::fs::is_directory(fileOrFolder)) {
    llvm::SmallString<256> single(fileOrFolder);
    llvm::sys::path::append(single, kSingleName);
    indexPath = fileOrFolder;
    llvm::sys::path::append(indexPath, kIndexName);
    if (!llvm::sys::fs::exists(indexPath)) {
      if (!llvm::sys::fs::exists(single))
        return makeError(fileOrFolder + ": folder has neither " + kSingleName +
                         " nor " + kIndexName);
      if (Expected<SafeTensorsFile *> f = addFile(single); !f)
        return f.takeError();
      return set;
    }
  } else if (fileOrFolder.ends_with(".index.json")) {
    indexPath = fileOrFolder;
  } else {
    if (!llvm::sys::fs::exists(fileOrFolder))
      return makeError(fileOrFolder + ": no such file or folder");
    if (Expected<SafeTensorsFile *> f = addFile(fileOrFolder); !f)
      return f.takeError();
    return set;
  }

  // A sharded checkpoint: open every shard the index names, then check that
  // each tensor lives where the index says.
  Expected<std::vector<std::pair<std::string, std::string>>> entries =
      readIndex(indexPath);
  if (!entries)
    return entries.takeError();
  if (entries->empty())
    return makeError(indexPath + ": weight_map is empty");
  StringRef folder = llvm::sys::path::parent_path(indexPath);
  llvm::StringMap<SafeTensorsFile *> shards;
  std::vector<std::string> shardOrder;
  for (const auto &[tensor, shard] : *entries)
    if (shards.try_emplace(shard, nullptr).second)
      shardOrder.push_back(shard);
  llvm::sort(shardOrder);
  for (const std::string &shard : shardOrder) {
    llvm::SmallString<256> shardPath(folder);
    llvm::sys::path::append(shardPath, shard);
    if (!llvm::sys::fs::exists(shardPath))
      return makeError(indexPath + ": shard '" + shard +
                       "' named in weight_map does not exist");
    Expected<SafeTensorsFile *> f = addFile(shardPath);
    if (!f)
      return f.takeError();
    shards[shard] = *f;
  }
  for (const auto &[tensor, shard] : *entries) {
    SafeTensorsFile *f = shards[shard];
    if (!f->find(tensor))
      return makeError(indexPath + ": weight_map assigns tensor '" + tensor +
                       "' to '" + shard + "', which has no such tensor");
  }
  return set;
}

Expected<WeightSet>
WeightSet::fromBuffer(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  Expected<SafeTensorsFile> file = SafeTensorsFile::fromBuffer(std::move(buffer));
  if (!file)
    return file.takeError();
  WeightSet set;
  set.files_.push_back(std::make_unique<SafeTensorsFile>(std::move(*file)));
  const SafeTensorsFile *f = set.files_.back().get();
  for (const TensorInfo &t : f->tensors())
    set.index_.try_emplace(t.name, Entry{f, &t});
  return set;
}

std::optional<WeightSet::Entry> WeightSet::find(StringRef name) const {
  auto it = index_.find(name);
  if (it == index_.end())
    return std::nullopt;
  return it->second;
}

std::vector<StringRef> WeightSet::names() const {
  std::vector<StringRef> out;
  for (const auto &file : files_)
    for (const TensorInfo &t : file->tensors())
      out.push_back(t.name);
  return out;
}

//===----------------------------------------------------------------------===//
// SafeTensorsWriter
//===----------------------------------------------------------------------===//

void SafeTensorsWriter::add(StringRef name, DType dtype,
                            llvm::ArrayRef<int64_t> shape,
                            llvm::ArrayRef<uint8_t> bytes) {
  tensors_.push_back(Pending{name.str(), dtype,
                             std::vector<int64_t>(shape.begin(), shape.end()),
                             std::vector<uint8_t>(bytes.begin(), bytes.end())});
}

void SafeTensorsWriter::addF32(StringRef name, llvm::ArrayRef<int64_t> shape,
                               llvm::ArrayRef<float> values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  for (auto [i, v] : llvm::enumerate(values)) {
    uint32_t bits;
    static_assert(sizeof(bits) == sizeof(float));
    std::memcpy(&bits, &v, 4);
    llvm::support::endian::write32le(bytes.data() + 4 * i, bits);
  }
  add(name, DType::F32, shape, bytes);
}

Error SafeTensorsWriter::write(StringRef path) const {
  llvm::StringSet<> seen;
  for (const Pending &t : tensors_) {
    if (t.name == "__metadata__")
      return makeError(path + ": '__metadata__' is not a valid tensor name");
    if (!seen.insert(t.name).second)
      return makeError(path + ": tensor '" + t.name + "' added twice");
    uint64_t elements = 1;
    for (int64_t d : t.shape)
      if (d < 0 ||
          __builtin_mul_overflow(elements, static_cast<uint64_t>(d), &elements))
        return makeError(path + ": tensor '" + t.name + "': invalid shape " +
                         shapeString(t.shape));
    if (elements * dtypeSize(t.dtype) != t.bytes.size())
      return makeError(path + ": tensor '" + t.name + "': dtype " +
                       dtypeName(t.dtype) + " x shape " + shapeString(t.shape) +
                       " needs " + llvm::Twine(elements * dtypeSize(t.dtype)) +
                       " bytes, got " + llvm::Twine(t.bytes.size()));
  }

  // Header in insertion order (json::Object would reorder), padded with
  // spaces so the data section starts 8-byte aligned.
  std::string header;
  {
    llvm::raw_string_ostream os(header);
    llvm::json::OStream j(os);
    j.objectBegin();
    uint64_t offset = 0;
    for (const Pending &t : tensors_) {
      j.attributeBegin(t.name);
      j.objectBegin();
      j.attribute("dtype", dtypeName(t.dtype));
      j.attributeArray("shape", [&] {
        for (int64_t d : t.shape)
          j.value(d);
      });
      j.attributeArray("data_offsets", [&] {
        j.value(offset);
        j.value(offset + t.bytes.size());
      });
      j.objectEnd();
      j.attributeEnd();
      offset += t.bytes.size();
    }
    j.objectEnd();
  }
  header.append((8 - header.size() % 8) % 8, ' ');

  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return makeError(path + ": cannot write: " + ec.message());
  char length[8];
  llvm::support::endian::write64le(length, header.size());
  os.write(length, 8);
  os << header;
  for (const Pending &t : tensors_)
    os.write(reinterpret_cast<const char *>(t.bytes.data()), t.bytes.size());
  os.close();
  if (os.has_error())
    return makeError(path + ": write failed: " + os.error().message());
  return Error::success();
}
