//===- Loader.cpp - manifest parsing and weight binding -------------------===//
//
// Turns the manifest string and a set of safetensors files into the weight
// table of the generated code. F16/BF16 widening here is format conversion
// at load time, not model arithmetic: the generated code always sees f32.
//
//===----------------------------------------------------------------------===//

#include "tfm/Runtime/Loader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>
#include <new>

using namespace tfm;
using namespace tfm::runtime;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;

namespace {

Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Reads an array of non-negative integers.
Expected<std::vector<int64_t>> readDims(const llvm::json::Value *value,
                                        const llvm::Twine &what) {
  const llvm::json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return makeError(what + " is not an array of integers");
  std::vector<int64_t> dims;
  for (const llvm::json::Value &v : *array) {
    std::optional<int64_t> d = v.getAsInteger();
    if (!d || *d < 0)
      return makeError(what + " has an element that is not a non-negative " +
                       "integer");
    dims.push_back(*d);
  }
  return dims;
}

/// IEEE half to float, all classes (normals, subnormals, inf, NaN).
float halfToFloat(uint16_t h) {
  uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu;
  uint32_t mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    // Subnormal: normalize.
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    mantissa &= 0x3ffu;
    bits = sign | (static_cast<uint32_t>(113 - shift) << 23) | (mantissa << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

/// The candidates for a manifest name: itself, then with each known prefix
/// removed (if present) or added (if not).
std::vector<std::string> candidateNames(StringRef name) {
  static constexpr StringRef kPrefixes[] = {"model.", "transformer.", "bert."};
  std::vector<std::string> names{name.str()};
  for (StringRef prefix : kPrefixes)
    if (name.starts_with(prefix))
      names.push_back(name.drop_front(prefix.size()).str());
  for (StringRef prefix : kPrefixes)
    names.push_back((prefix + name).str());
  return names;
}

} // namespace

StringRef runtime::architectureName(Architecture arch) {
  switch (arch) {
  case Architecture::Encoder:
    return "encoder";
  case Architecture::Decoder:
    return "decoder";
  case Architecture::EncoderDecoder:
    return "encoder_decoder";
  }
  llvm_unreachable("unknown architecture");
}

StringRef runtime::outputKindName(OutputKind kind) {
  switch (kind) {
  case OutputKind::Logits:
    return "logits";
  case OutputKind::Classes:
    return "classes";
  case OutputKind::Hidden:
    return "hidden";
  }
  llvm_unreachable("unknown output kind");
}

std::string runtime::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, ", ");
  os << "]";
  return s;
}

Expected<Manifest> Manifest::parse(StringRef json, StringRef source) {
  Expected<llvm::json::Value> value = llvm::json::parse(json);
  if (!value)
    return makeError(source + ": invalid JSON: " +
                     llvm::toString(value.takeError()));
  const llvm::json::Object *top = value->getAsObject();
  if (!top)
    return makeError(source + ": not a JSON object");
  auto field = [&](StringRef key) -> const llvm::json::Value * {
    return top->get(key);
  };
  auto bad = [&](StringRef key, const llvm::Twine &why) {
    return makeError(source + ": field '" + key + "' " + why);
  };
  auto string = [&](StringRef key) -> Expected<StringRef> {
    const llvm::json::Value *v = field(key);
    if (!v)
      return bad(key, "is missing");
    std::optional<StringRef> s = v->getAsString();
    if (!s)
      return bad(key, "is not a string");
    return *s;
  };
  auto positive = [&](StringRef key) -> Expected<int64_t> {
    const llvm::json::Value *v = field(key);
    if (!v)
      return bad(key, "is missing");
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i <= 0)
      return bad(key, "is not a positive integer");
    return *i;
  };

  Manifest m;
  Expected<StringRef> format = string("format");
  if (!format)
    return format.takeError();
  if (*format != "tfm-manifest/1")
    return bad("format", "is '" + *format + "', expected 'tfm-manifest/1'");

  Expected<StringRef> name = string("model_name");
  if (!name)
    return name.takeError();
  m.modelName = name->str();

  Expected<StringRef> arch = string("architecture");
  if (!arch)
    return arch.takeError();
  if (*arch == "encoder")
    m.architecture = Architecture::Encoder;
  else if (*arch == "decoder")
    m.architecture = Architecture::Decoder;
  else if (*arch == "encoder_decoder")
    m.architecture = Architecture::EncoderDecoder;
  else
    return bad("architecture", "is '" + *arch +
                                   "', expected encoder, decoder or "
                                   "encoder_decoder");

  Expected<int64_t> vocab = positive("vocab_size");
  if (!vocab)
    return vocab.takeError();
  m.vocabSize = *vocab;
  if (m.vocabSize > INT32_MAX)
    return bad("vocab_size", "does not fit int32 token ids");
  Expected<int64_t> maxSeq = positive("max_seq_len");
  if (!maxSeq)
    return maxSeq.takeError();
  m.maxSeqLen = *maxSeq;

  Expected<StringRef> output = string("output");
  if (!output)
    return output.takeError();
  if (*output == "logits")
    m.output = OutputKind::Logits;
  else if (*output == "classes")
    m.output = OutputKind::Classes;
  else if (*output == "hidden")
    m.output = OutputKind::Hidden;
  else
    return bad("output",
               "is '" + *output + "', expected logits, classes or hidden");

  Expected<std::vector<int64_t>> dims =
      readDims(field("output_dims"), source + ": field 'output_dims'");
  if (!dims)
    return dims.takeError();
  if (dims->size() != 1 || (*dims)[0] <= 0)
    return bad("output_dims", "must hold exactly one positive dimension");
  m.outputDim = (*dims)[0];
  if (m.output == OutputKind::Logits && m.outputDim != m.vocabSize)
    return bad("output_dims", "is [" + llvm::Twine(m.outputDim) +
                                  "] but logits need vocab_size (" +
                                  llvm::Twine(m.vocabSize) + ")");
  if (m.output == OutputKind::Classes &&
      m.architecture == Architecture::EncoderDecoder)
    return bad("output", "'classes' is not supported for encoder_decoder");

  const llvm::json::Array *inputs =
      field("inputs") ? field("inputs")->getAsArray() : nullptr;
  if (!inputs)
    return bad("inputs", "is missing or not an array");
  for (const llvm::json::Value &v : *inputs) {
    std::optional<StringRef> s = v.getAsString();
    if (!s)
      return bad("inputs", "has an element that is not a string");
    m.inputs.push_back(s->str());
  }
  std::vector<std::string> expected =
      m.architecture == Architecture::EncoderDecoder
          ? std::vector<std::string>{"src", "src_lengths", "tgt", "tgt_lengths"}
          : std::vector<std::string>{"ids", "lengths"};
  if (m.inputs != expected)
    return bad("inputs", "does not match the architecture '" + *arch + "'");

  const llvm::json::Array *weights =
      field("weights") ? field("weights")->getAsArray() : nullptr;
  if (!weights)
    return bad("weights", "is missing or not an array");
  llvm::StringSet<> seen;
  for (auto [i, v] : llvm::enumerate(*weights)) {
    std::string where = (source + ": weights[" + llvm::Twine(i) + "]").str();
    const llvm::json::Object *w = v.getAsObject();
    if (!w)
      return makeError(where + " is not an object");
    std::optional<StringRef> wname = w->getString("name");
    if (!wname || wname->empty())
      return makeError(where + ": field 'name' is missing or not a string");
    Expected<std::vector<int64_t>> shape =
        readDims(w->get("shape"), where + " ('" + *wname + "'): field 'shape'");
    if (!shape)
      return shape.takeError();
    if (!seen.insert(*wname).second)
      return makeError(where + ": weight '" + *wname + "' is listed twice");
    m.weights.push_back(WeightSpec{wname->str(), std::move(*shape)});
  }
  return m;
}

Expected<BoundWeights> runtime::bindWeights(const Manifest &manifest,
                                            std::unique_ptr<WeightSet> files,
                                            BindFailure *failure) {
  if (failure)
    *failure = BindFailure::Weights;
  BoundWeights bound;
  StringRef source = files->files().size() == 1
                         ? files->files().front()->path()
                         : StringRef("the weights folder");
  for (const WeightSpec &spec : manifest.weights) {
    std::optional<WeightSet::Entry> entry;
    for (const std::string &candidate : candidateNames(spec.name))
      if ((entry = files->find(candidate)))
        break;
    if (!entry)
      return makeError(source + ": missing weight '" + spec.name +
                       "' (expected shape " + formatShape(spec.shape) +
                       ", F32, F16 or BF16)");
    const TensorInfo &t = *entry->tensor;
    StringRef file = entry->file->path();
    std::string found =
        t.name == spec.name ? "'" + t.name + "'"
                            : "'" + t.name + "' (for '" + spec.name + "')";
    if (t.shape != spec.shape)
      return makeError(file + ": weight " + found + ": expected shape " +
                       formatShape(spec.shape) + ", found " +
                       formatShape(t.shape));
    if (t.dtype != DType::F32 && t.dtype != DType::F16 &&
        t.dtype != DType::BF16)
      return makeError(file + ": weight " + found + ": dtype " +
                       dtypeName(t.dtype) +
                       " is not supported (F32, F16 or BF16)");

    llvm::ArrayRef<uint8_t> bytes = entry->file->bytes(t);
    size_t count = static_cast<size_t>(t.numElements());
    bool aligned = reinterpret_cast<uintptr_t>(bytes.data()) % 4 == 0;
    if (t.dtype == DType::F32 && aligned && llvm::sys::IsLittleEndianHost) {
      bound.table.push_back(bytes.data());
      ++bound.zeroCopy;
    } else {
      std::unique_ptr<float[]> buffer(new (std::nothrow) float[count ? count : 1]);
      if (!buffer) {
        if (failure)
          *failure = BindFailure::OutOfMemory;
        return makeError(file + ": weight " + found + ": cannot allocate " +
                         llvm::Twine(count * 4) + " bytes for its f32 copy");
      }
      for (size_t i = 0; i < count; ++i) {
        switch (t.dtype) {
        case DType::F32: {
          uint32_t bits = llvm::support::endian::read32le(bytes.data() + 4 * i);
          std::memcpy(&buffer[i], &bits, 4);
          break;
        }
        case DType::F16:
          buffer[i] =
              halfToFloat(llvm::support::endian::read16le(bytes.data() + 2 * i));
          break;
        case DType::BF16: {
          uint32_t bits = static_cast<uint32_t>(llvm::support::endian::read16le(
                              bytes.data() + 2 * i))
                          << 16;
          std::memcpy(&buffer[i], &bits, 4);
          break;
        }
        default:
          llvm_unreachable("dtype checked above");
        }
      }
      bound.table.push_back(buffer.get());
      bound.owned.push_back(std::move(buffer));
      ++bound.converted;
    }
    bound.fileNames.push_back(t.name);
  }
  bound.files = std::move(files);
  return bound;
}
