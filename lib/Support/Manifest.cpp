//===- Manifest.cpp - the validating manifest parser ----------------------===//
//
// Reads the JSON that Manifest::toJSON writes and checks every field the
// runtime relies on before it trusts the model library. Messages start with
// the origin and name the field.
//
//===----------------------------------------------------------------------===//

#include "tfm/Support/Manifest.h"
#include "tfm/Support/InputFiles.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/Twine.h"

using namespace tfm;
using llvm::Error;
using llvm::Expected;
using llvm::StringRef;
using llvm::Twine;
namespace json = llvm::json;

namespace {

Error makeError(const Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Reads an array of non-negative integers; `what` names it in messages.
Expected<std::vector<int64_t>> readDims(const json::Value *value,
                                        const Twine &what) {
  const json::Array *array = value ? value->getAsArray() : nullptr;
  if (!array)
    return makeError(what + " is missing or not an array of integers");
  std::vector<int64_t> dims;
  for (const json::Value &v : *array) {
    std::optional<int64_t> d = v.getAsInteger();
    if (!d || *d < 0)
      return makeError(what +
                       " has an element that is not a non-negative integer");
    dims.push_back(*d);
  }
  return dims;
}

/// One manifest object being read; every error names `origin` and the field.
class Reader {
public:
  Reader(const json::Object &top, StringRef origin)
      : top(top), origin(origin) {}

  Error bad(StringRef field, const Twine &why) const {
    return makeError(origin + ": field '" + field + "' " + why);
  }

  Expected<StringRef> string(StringRef field) const {
    const json::Value *v = top.get(field);
    if (!v)
      return bad(field, "is missing");
    std::optional<StringRef> s = v->getAsString();
    if (!s)
      return bad(field, "is not a string");
    return *s;
  }

  Expected<int64_t> positive(StringRef field) const {
    const json::Value *v = top.get(field);
    if (!v)
      return bad(field, "is missing");
    std::optional<int64_t> i = v->getAsInteger();
    if (!i || *i <= 0)
      return bad(field, "is not a positive integer");
    return *i;
  }

  Expected<int64_t> integer(StringRef field) const {
    const json::Value *v = top.get(field);
    if (!v)
      return bad(field, "is missing");
    std::optional<int64_t> i = v->getAsInteger();
    if (!i)
      return bad(field, "is not an integer");
    return *i;
  }

  Expected<const json::Array *> array(StringRef field) const {
    const json::Value *v = top.get(field);
    const json::Array *a = v ? v->getAsArray() : nullptr;
    if (!a)
      return bad(field, "is missing or not an array");
    return a;
  }

  Expected<std::vector<int64_t>> dims(StringRef field) const {
    return readDims(top.get(field), origin + ": field '" + field + "'");
  }

private:
  const json::Object &top;
  StringRef origin;
};

/// Reads the list `field` of {name, shape} objects into `out`; names must be
/// unique across every list read with `seen`.
Error readWeights(const Reader &read, StringRef origin, StringRef field,
                  llvm::StringSet<> &seen, std::vector<ManifestWeight> &out) {
  Expected<const json::Array *> list = read.array(field);
  if (!list)
    return list.takeError();
  for (auto [i, v] : llvm::enumerate(**list)) {
    std::string where = (origin + ": " + field + "[" + Twine(i) + "]").str();
    const json::Object *w = v.getAsObject();
    if (!w)
      return makeError(where + " is not an object");
    std::optional<StringRef> wname = w->getString(Manifest::Field::kWeightName);
    if (!wname || wname->empty())
      return makeError(where + ": field '" + Manifest::Field::kWeightName +
                       "' is missing or not a non-empty string");
    Expected<std::vector<int64_t>> shape =
        readDims(w->get(Manifest::Field::kWeightShape),
                 where + " ('" + *wname + "'): field '" + Manifest::Field::kWeightShape +
                     "'");
    if (!shape)
      return shape.takeError();
    if (!seen.insert(*wname).second)
      return makeError(where + ": weight '" + *wname + "' is listed twice");
    // "round" and "storage": optional, "bf16" or "f16"; "storage" must be
    // the weight's "round".
    auto halfField = [&](StringRef field, std::optional<Precision> same,
                         Precision &out) -> Error {
      out = Precision::F32;
      const json::Value *r = w->get(field);
      if (!r)
        return Error::success();
      std::optional<StringRef> text = r->getAsString();
      std::optional<Precision> parsed =
          text ? parsePrecision(*text) : std::nullopt;
      if (!parsed || *parsed == Precision::F32 || (same && *parsed != *same))
        return makeError(where + " ('" + *wname + "'): field '" + field +
                         "' must be \"bf16\" or \"f16\"" +
                         (same ? Twine(", the same as its '") +
                                     Manifest::Field::kWeightRound + "'"
                               : Twine()));
      out = *parsed;
      return Error::success();
    };
    Precision round, storage;
    if (Error e = halfField(Manifest::Field::kWeightRound, std::nullopt, round))
      return e;
    if (Error e = halfField(Manifest::Field::kWeightStorage, round, storage))
      return e;
    out.push_back(
        ManifestWeight{wname->str(), std::move(*shape), round, storage});
  }
  return Error::success();
}

} // namespace

Expected<Manifest> Manifest::parse(StringRef text, StringRef origin) {
  if (Error deep = checkJsonDepth(text, origin))
    return std::move(deep);
  Expected<json::Value> value = json::parse(text);
  if (!value)
    return makeError(origin + ": invalid JSON: " +
                     llvm::toString(value.takeError()));
  const json::Object *top = value->getAsObject();
  if (!top)
    return makeError(origin + ": not a JSON object");
  Reader read(*top, origin);
  Manifest m;

  Expected<StringRef> format = read.string(Field::kFormat);
  if (!format)
    return format.takeError();
  if (*format != kFormatVersion)
    return read.bad(Field::kFormat, "is '" + *format + "', expected '" +
                                        kFormatVersion + "'");

  Expected<StringRef> name = read.string(Field::kModelName);
  if (!name)
    return name.takeError();
  m.modelName = name->str();

  Expected<StringRef> arch = read.string(Field::kArchitecture);
  if (!arch)
    return arch.takeError();
  std::optional<Architecture> architecture = parseArchitecture(*arch);
  if (!architecture)
    return read.bad(Field::kArchitecture,
                    "is '" + *arch +
                        "', expected encoder, decoder or encoder_decoder");
  m.architecture = *architecture;

  // Optional: CPU libraries (and every library written before the field
  // existed) leave it out.
  if (top->get(Field::kDevice)) {
    Expected<StringRef> device = read.string(Field::kDevice);
    if (!device)
      return device.takeError();
    std::optional<Device> parsed = parseDevice(*device);
    if (!parsed)
      return read.bad(Field::kDevice,
                      "is '" + *device + "', expected cpu or cuda");
    m.device = *parsed;
  }

  if (top->get(Field::kPrecision)) {
    Expected<StringRef> precision = read.string(Field::kPrecision);
    if (!precision)
      return precision.takeError();
    std::optional<Precision> parsed = parsePrecision(*precision);
    if (!parsed)
      return read.bad(Field::kPrecision,
                      "is '" + *precision + "', expected f32, bf16 or f16");
    m.precision = *parsed;
  }

  // Optional: image models (read first: they have no vocabulary).
  if (const json::Value *v = top->get(Field::kImage)) {
    const json::Object *image = v->getAsObject();
    if (!image)
      return read.bad(Field::kImage, "is not an object");
    std::string where = (origin + ": field '" + Field::kImage + "'").str();
    Reader sub(*image, where);
    ManifestImage img;
    for (auto [field, slot] :
         {std::pair<StringRef, int64_t *>{Field::kImageChannels, &img.channels},
          {Field::kImageHeight, &img.height},
          {Field::kImageWidth, &img.width}}) {
      Expected<int64_t> n = sub.positive(field);
      if (!n)
        return n.takeError();
      if (*n > (int64_t(1) << 16))
        return sub.bad(field, "is larger than 2^16");
      *slot = *n;
    }
    m.image = img;
  }

  Expected<int64_t> vocab = m.image ? read.integer(Field::kVocabSize)
                                    : read.positive(Field::kVocabSize);
  if (!vocab)
    return vocab.takeError();
  if (m.image && *vocab != 0)
    return read.bad(Field::kVocabSize, "must be 0 for an image model");
  m.vocabSize = *vocab;
  if (m.vocabSize > INT32_MAX)
    return read.bad(Field::kVocabSize, "does not fit int32 token ids");
  Expected<int64_t> maxSeq = read.positive(Field::kMaxSeqLen);
  if (!maxSeq)
    return maxSeq.takeError();
  if (*maxSeq > INT32_MAX)
    return read.bad(Field::kMaxSeqLen,
                    "does not fit the int32 lengths and positions");
  m.maxSeqLen = *maxSeq;
  if (top->get(Field::kFirstPosition)) {
    Expected<int64_t> first = read.integer(Field::kFirstPosition);
    if (!first)
      return first.takeError();
    if (*first < 0 || *first > INT32_MAX - m.maxSeqLen)
      return read.bad(Field::kFirstPosition,
                      "must lie in [0, 2^31 - 1 - max_seq_len]");
    m.firstPosition = *first;
  }

  Expected<StringRef> output = read.string(Field::kOutput);
  if (!output)
    return output.takeError();
  std::optional<OutputKind> kind = parseOutputKind(*output);
  if (!kind)
    return read.bad(Field::kOutput,
                    "is '" + *output + "', expected logits, classes or hidden");
  m.output = *kind;

  Expected<std::vector<int64_t>> dims = read.dims(Field::kOutputDims);
  if (!dims)
    return dims.takeError();
  if (dims->size() != 1 || (*dims)[0] <= 0)
    return read.bad(Field::kOutputDims,
                    "must hold exactly one positive dimension");
  m.outputDim = (*dims)[0];
  if (m.firstPosition &&
      (m.image || m.architecture == Architecture::EncoderDecoder))
    return read.bad(Field::kFirstPosition,
                    "is only supported for encoders and decoders of tokens");
  if (m.image && m.architecture != Architecture::Encoder)
    return read.bad(Field::kImage, "is only supported for encoders");
  if (m.image && m.output == OutputKind::Logits)
    return read.bad(Field::kOutput,
                    "'logits' is not supported for an image model");
  if (m.output == OutputKind::Logits && m.outputDim != m.vocabSize)
    return read.bad(Field::kOutputDims,
                    "is [" + Twine(m.outputDim) +
                        "] but logits need vocab_size (" + Twine(m.vocabSize) +
                        ")");
  if (m.output == OutputKind::Classes &&
      m.architecture == Architecture::EncoderDecoder)
    return read.bad(Field::kOutput,
                    "'classes' is not supported for encoder_decoder");

  Expected<const json::Array *> inputs = read.array(Field::kInputs);
  if (!inputs)
    return inputs.takeError();
  std::vector<StringRef> inputNames;
  for (const json::Value &v : **inputs) {
    std::optional<StringRef> s = v.getAsString();
    if (!s)
      return read.bad(Field::kInputs, "has an element that is not a string");
    inputNames.push_back(*s);
  }
  // Encoders and decoders built before the positions input list ids and
  // lengths only.
  if (!m.image && m.architecture != Architecture::EncoderDecoder &&
      llvm::equal(inputNames, entryInputs(m.architecture, false, false)))
    m.positionsInput = false;
  if (!llvm::equal(inputNames, m.inputs()))
    return read.bad(Field::kInputs,
                    "does not match the architecture '" + *arch + "'");

  llvm::StringSet<> seen;
  if (Error e = readWeights(read, origin, Field::kWeights, seen, m.weights))
    return std::move(e);
  // Optional: libraries without prepared tensors may leave it out.
  if (const json::Value *v = top->get(Field::kCpuFeatures)) {
    const json::Array *list = v->getAsArray();
    if (!list)
      return read.bad(Field::kCpuFeatures, "is not an array");
    for (auto [i, f] : llvm::enumerate(*list)) {
      std::optional<StringRef> name = f.getAsString();
      if (!name || (*name != "amx-bf16" && *name != "avx512bf16"))
        return read.bad(Field::kCpuFeatures,
                        "[" + Twine(i).str() +
                            "] is not a CPU feature this runtime knows "
                            "(\"amx-bf16\", \"avx512bf16\")");
      m.cpuFeatures.push_back(name->str());
    }
  }
  if (top->get(Field::kPrepared))
    if (Error e =
            readWeights(read, origin, Field::kPrepared, seen, m.prepared))
      return std::move(e);
  // Optional: only libraries with the generation step carry it.
  if (const json::Value *v = top->get(Field::kKvCache)) {
    const json::Object *cache = v->getAsObject();
    if (!cache)
      return read.bad(Field::kKvCache, "is not an object");
    std::string where = (origin + ": field '" + Field::kKvCache + "'").str();
    Reader sub(*cache, where);
    ManifestKvCache kv;
    for (auto [field, slot] :
         {std::pair<StringRef, int64_t *>{Field::kCacheLayers, &kv.layers},
          {Field::kCacheKvHeads, &kv.kvHeads},
          {Field::kCacheHeadDim, &kv.headDim}}) {
      Expected<int64_t> n = sub.positive(field);
      if (!n)
        return n.takeError();
      if (*n > (int64_t(1) << 20))
        return sub.bad(field, "is larger than 2^20");
      *slot = *n;
    }
    if (const json::Value *c = cache->get(Field::kCacheCross)) {
      std::optional<bool> cross = c->getAsBoolean();
      if (!cross)
        return sub.bad(Field::kCacheCross, "is not a boolean");
      kv.cross = *cross;
    }
    if (cache->get(Field::kCacheRecomputeAfter)) {
      Expected<int64_t> after = sub.positive(Field::kCacheRecomputeAfter);
      if (!after)
        return after.takeError();
      kv.recomputeAfter = *after;
    }
    if (const json::Value *st = cache->get(Field::kCacheStorage)) {
      std::optional<StringRef> text = st->getAsString();
      std::optional<Precision> parsed =
          text ? parsePrecision(*text) : std::nullopt;
      if (!parsed || *parsed == Precision::F32 || *parsed != m.precision)
        return sub.bad(Field::kCacheStorage,
                       "must be \"bf16\" or \"f16\", the model's '" +
                           Twine(Field::kPrecision) + "'");
      kv.storage = *parsed;
    }
    if (m.architecture == Architecture::Encoder)
      return read.bad(Field::kKvCache, "is not supported for encoders");
    if (kv.cross != (m.architecture == Architecture::EncoderDecoder))
      return sub.bad(Field::kCacheCross,
                     kv.cross ? "is true for a model without an encoder"
                              : "must be true for an encoder_decoder model");
    m.kvCache = kv;
  }
  return m;
}
