//===- Loader.cpp - binding weights to a model's manifest -----------------===//
//
// Turns a parsed manifest (tfm/Support/Manifest.h) and a set of safetensors
// files into the weight table of the generated code. F16/BF16 widening here
// is format conversion at load time, not model arithmetic: the generated
// code always sees f32.
//
//===----------------------------------------------------------------------===//

#include "tfm/Runtime/Loader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/Endian.h"
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

/// A tensor of `files` whose name is `name` with a leading component path
/// added or removed ("model.x" for "x" or the reverse), if any. Only for
/// the message of a missing weight: such a tensor is never bound.
std::optional<StringRef> nameWithOtherPrefix(const WeightSet &files,
                                             StringRef name) {
  for (StringRef other : files.names())
    if ((other.size() > name.size() && other.ends_with(name) &&
         other[other.size() - name.size() - 1] == '.') ||
        (name.size() > other.size() && name.ends_with(other) &&
         name[name.size() - other.size() - 1] == '.'))
      return other;
  return std::nullopt;
}

/// `x` rounded to the nearest bf16 value (ties to even), as an f32.
float roundToBF16(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, 4);
  if ((bits & 0x7fffffffu) > 0x7f800000u)
    bits |= 0x00400000u; // NaN stays NaN (quiet)
  else
    bits += 0x7fffu + ((bits >> 16) & 1u);
  bits &= 0xffff0000u;
  std::memcpy(&x, &bits, 4);
  return x;
}

/// `x` rounded to the nearest f16 value (ties to even; overflow to
/// infinity), as an f32.
float roundToF16(float x) { return static_cast<float>(static_cast<_Float16>(x)); }

/// Element `i` of a little-endian F32, F16 or BF16 tensor, as an f32.
float readElement(DType dtype, const uint8_t *bytes, size_t i) {
  float v;
  switch (dtype) {
  case DType::F32: {
    uint32_t bits = llvm::support::endian::read32le(bytes + 4 * i);
    std::memcpy(&v, &bits, 4);
    return v;
  }
  case DType::F16:
    return halfToFloat(llvm::support::endian::read16le(bytes + 2 * i));
  case DType::BF16: {
    uint32_t bits =
        static_cast<uint32_t>(llvm::support::endian::read16le(bytes + 2 * i))
        << 16;
    std::memcpy(&v, &bits, 4);
    return v;
  }
  default:
    llvm_unreachable("dtype checked by the caller");
  }
}

/// `count` floats (at least one), 64-byte aligned; null when out of memory.
AlignedFloats allocateFloats(size_t count) {
  return AlignedFloats(new (std::align_val_t(64), std::nothrow)
                           float[count ? count : 1]);
}

} // namespace

void runtime::AlignedFloatsDelete::operator()(float *p) const {
  ::operator delete[](p, std::align_val_t(64));
}

std::string runtime::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string s = "[";
  llvm::raw_string_ostream os(s);
  llvm::interleave(shape, os, ", ");
  os << "]";
  return s;
}

Expected<BoundWeights> runtime::bindWeights(const Manifest &manifest,
                                            std::unique_ptr<WeightSet> files,
                                            BindFailure *failure,
                                            bool withPrepared) {
  if (failure)
    *failure = BindFailure::Weights;
  BoundWeights bound;
  StringRef source = files->files().size() == 1
                         ? files->files().front()->path()
                         : StringRef("the weights folder");
  for (const ManifestWeight &spec : manifest.weights) {
    // Exactly the name the compiler recorded: a checkpoint's prefix is
    // resolved at compile time (tfmc --weights), never guessed here.
    std::optional<WeightSet::Entry> entry = files->find(spec.name);
    if (!entry) {
      std::string message =
          (source + ": missing weight '" + spec.name + "' (expected shape " +
           formatShape(spec.shape) + ", F32, F16 or BF16; names tried: '" +
           spec.name + "', as recorded in the model's manifest)")
              .str();
      if (std::optional<StringRef> other =
              nameWithOtherPrefix(*files, spec.name))
        message += ". The file has '" + other->str() +
                   "', which differs by a prefix: tensor names are fixed "
                   "when the model is compiled (tfmc --weights FILE takes a "
                   "Hugging Face checkpoint's own prefix)";
      return makeError(message);
    }
    const TensorInfo &t = *entry->tensor;
    StringRef file = entry->file->path();
    std::string found = "'" + t.name + "'";
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
    // A weight the model reads at a lower precision is rounded once, here
    // (the manifest's "round"); it needs its own copy.
    if (spec.storage != Precision::F32) {
      // Stored in 16 bits (GPU libraries): the generated code reads bf16
      // or f16 elements, rounded to nearest even from the file's value.
      AlignedFloats buffer = allocateFloats((count + 1) / 2);
      if (!buffer) {
        if (failure)
          *failure = BindFailure::OutOfMemory;
        return makeError(file + ": weight " + found + ": cannot allocate " +
                         llvm::Twine(count * 2) + " bytes for its " +
                         precisionName(spec.storage) + " copy");
      }
      // Bytes, not uint16_t stores into the float allocation (aliasing).
      auto *halves = reinterpret_cast<unsigned char *>(buffer.get());
      for (size_t i = 0; i < count; ++i) {
        float v = readElement(t.dtype, bytes.data(), i);
        uint16_t half;
        if (spec.storage == Precision::BF16) {
          uint32_t bits;
          float r = roundToBF16(v);
          std::memcpy(&bits, &r, 4);
          half = static_cast<uint16_t>(bits >> 16);
        } else {
          _Float16 h = static_cast<_Float16>(v);
          std::memcpy(&half, &h, 2);
        }
        std::memcpy(halves + 2 * i, &half, 2);
      }
      bound.table.push_back(buffer.get());
      bound.owned.push_back(std::move(buffer));
      ++bound.converted;
    } else if (t.dtype == DType::F32 && aligned &&
               llvm::sys::IsLittleEndianHost && spec.round == Precision::F32) {
      bound.table.push_back(bytes.data());
      ++bound.zeroCopy;
    } else {
      AlignedFloats buffer = allocateFloats(count);
      if (!buffer) {
        if (failure)
          *failure = BindFailure::OutOfMemory;
        return makeError(file + ": weight " + found + ": cannot allocate " +
                         llvm::Twine(count * 4) + " bytes for its f32 copy");
      }
      for (size_t i = 0; i < count; ++i)
        buffer[i] = readElement(t.dtype, bytes.data(), i);
      if (spec.round == Precision::BF16)
        for (size_t i = 0; i < count; ++i)
          buffer[i] = roundToBF16(buffer[i]);
      else if (spec.round == Precision::F16)
        for (size_t i = 0; i < count; ++i)
          buffer[i] = roundToF16(buffer[i]);
      bound.table.push_back(buffer.get());
      bound.owned.push_back(std::move(buffer));
      ++bound.converted;
    }
  }
  // The prepared tensors' slots, in manifest order after the weights.
  llvm::ArrayRef<ManifestWeight> prepared;
  if (withPrepared)
    prepared = manifest.prepared;
  for (const ManifestWeight &spec : prepared) {
    int64_t count = 1;
    for (int64_t d : spec.shape)
      if (__builtin_mul_overflow(count, d, &count) || count > (INT64_MAX >> 2))
        return makeError("model manifest: prepared tensor '" + spec.name +
                         "' of shape " + formatShape(spec.shape) +
                         " is too large");
    // 4-byte elements, or 2-byte ones (a bf16/f16 prepared layout).
    size_t bytes =
        static_cast<size_t>(count) * (spec.storage == Precision::F32 ? 4 : 2);
    AlignedFloats buffer = allocateFloats((bytes + 3) / 4);
    if (!buffer) {
      if (failure)
        *failure = BindFailure::OutOfMemory;
      return makeError("prepared tensor '" + spec.name + "': cannot allocate " +
                       llvm::Twine(bytes) + " bytes");
    }
    bound.table.push_back(buffer.get());
    bound.owned.push_back(std::move(buffer));
  }
  bound.files = std::move(files);
  return bound;
}
