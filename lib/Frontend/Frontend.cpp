//===- Frontend.cpp - loading models and checking their weights -----------===//
//
// loadModel decides what MODEL is (spec, HF config.json, HF folder), opens
// the weights, parses the config and checks every tensor before any IR is
// built.
//
//===----------------------------------------------------------------------===//

#include "tfm/Frontend/Frontend.h"
#include "JsonReader.h"
#include "tfm/Support/InputFiles.h"
#include "tfm/Support/SafeTensors.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace llvm;

namespace tfm {
namespace {

/// At most this many tensor problems are listed one by one.
constexpr size_t kMaxTensorErrors = 50;

std::string shapeString(ArrayRef<int64_t> shape) {
  std::string result = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    result += (i ? ", " : "") + std::to_string(shape[i]);
  return result + "]";
}

Error makeError(const Twine &msg) {
  return createStringError(inconvertibleErrorCode(), msg);
}

Expected<std::unique_ptr<MemoryBuffer>> readFile(StringRef path) {
  // A spec or config.json: text, at most 64 MiB (the largest HF config is
  // a few KiB).
  return readRegularFile(path, /*isText=*/true, uint64_t(64) << 20);
}

/// True when `folder` holds a checkpoint WeightSet::open can read.
bool hasSafetensors(StringRef folder) {
  std::error_code ec;
  for (sys::fs::directory_iterator it(folder, ec), end; it != end && !ec;
       it.increment(ec))
    if (StringRef(it->path()).ends_with(".safetensors") ||
        sys::path::filename(it->path()) == "model.safetensors.index.json")
      return true;
  return false;
}

} // namespace

Error checkWeights(const ModelConfig &config, const WeightSet &weights,
                   StringRef weightsPath) {
  std::vector<std::string> problems;
  StringSet<> expectedNames;
  for (const TensorRef &ref : getExpectedTensors(config)) {
    expectedNames.insert(ref.name);
    std::optional<WeightSet::Entry> entry = weights.find(ref.name);
    if (!entry) {
      problems.push_back(formatv("{0}: tensor '{1}': missing (expected shape "
                                 "{2})",
                                 weightsPath, ref.name, shapeString(ref.shape)));
      continue;
    }
    const TensorInfo &info = *entry->tensor;
    StringRef file = entry->file->path();
    if (ArrayRef<int64_t>(info.shape) != ArrayRef<int64_t>(ref.shape)) {
      problems.push_back(formatv("{0}: tensor '{1}': shape {2} does not match "
                                 "the expected {3}",
                                 file, ref.name, shapeString(info.shape),
                                 shapeString(ref.shape)));
      continue;
    }
    StringRef dtype = dtypeName(info.dtype);
    if (info.dtype != DType::F32 && info.dtype != DType::F16 &&
        info.dtype != DType::BF16) {
      problems.push_back(formatv("{0}: tensor '{1}': dtype {2} is not "
                                 "supported (expected F32, F16 or BF16)",
                                 file, ref.name, dtype));
      continue;
    }
    if (!config.dtype.empty() && dtype != config.dtype)
      problems.push_back(formatv("{0}: tensor '{1}': dtype {2} does not match "
                                 "the model's dtype {3} ({4})",
                                 file, ref.name, dtype, config.dtype,
                                 config.sourcePath));
  }
  for (StringRef name : weights.names()) {
    if (expectedNames.contains(name) ||
        (config.isIgnorableTensor && config.isIgnorableTensor(name)))
      continue;
    std::optional<WeightSet::Entry> entry = weights.find(name);
    problems.push_back(formatv("{0}: tensor '{1}': unexpected tensor (shape "
                               "{2}) that the model does not use",
                               entry ? entry->file->path() : weightsPath, name,
                               entry ? shapeString(entry->tensor->shape)
                                     : std::string("?")));
  }
  if (problems.empty())
    return Error::success();
  Error result = Error::success();
  for (size_t i = 0; i < problems.size() && i < kMaxTensorErrors; ++i)
    result = joinErrors(std::move(result), makeError(problems[i]));
  if (problems.size() > kMaxTensorErrors)
    result = joinErrors(std::move(result),
                        makeError(formatv("{0}: {1} more tensor problems not "
                                          "shown",
                                          weightsPath,
                                          problems.size() - kMaxTensorErrors)));
  return result;
}

Expected<LoadedModel> loadModel(StringRef modelPath, StringRef weightsPath) {
  std::string configPath = modelPath.str();
  std::string weightsSource = weightsPath.str();
  if (!sys::fs::exists(modelPath))
    return makeError(modelPath + ": no such file or directory");
  if (sys::fs::is_directory(modelPath)) {
    SmallString<256> path(modelPath);
    sys::path::append(path, "config.json");
    if (!sys::fs::exists(path))
      return makeError(modelPath +
                       ": a model folder needs a config.json (Hugging Face)");
    configPath = path.str().str();
    if (weightsSource.empty() && hasSafetensors(modelPath))
      weightsSource = modelPath.str();
  }

  std::optional<WeightSet> weights;
  std::vector<StringRef> weightNames;
  if (!weightsSource.empty()) {
    Expected<WeightSet> opened = WeightSet::open(weightsSource);
    if (!opened)
      return opened.takeError();
    weights.emplace(std::move(*opened));
    weightNames = weights->names();
  }

  Expected<std::unique_ptr<MemoryBuffer>> buffer = readFile(configPath);
  if (!buffer)
    return buffer.takeError();
  StringRef text = (*buffer)->getBuffer();
  Expected<json::Value> value = detail::parseJsonText(text, configPath);
  if (!value)
    return value.takeError();
  const json::Object *object = value->getAsObject();
  auto parse = [&]() -> Expected<ModelConfig> {
    if (object && object->get("format"))
      return parseSpec(text, configPath);
    if (object && object->get("model_type"))
      return parseHFConfig(text, configPath,
                           weights ? &weightNames : nullptr);
    return makeError(configPath +
                     ": neither a tfm spec (no \"format\" field) nor a "
                     "Hugging Face config (no \"model_type\" field)");
  };
  Expected<ModelConfig> config = parse();
  if (!config)
    return config.takeError();

  if (weights)
    if (Error e = checkWeights(*config, *weights, weightsSource))
      return std::move(e);
  return LoadedModel{std::move(*config), weightsSource};
}

} // namespace tfm
