//===- fuzz-c-abi.cpp - libFuzzer harness: a compiled model's C ABI -------===//
//
// The tiny GPT example, compiled by tfmc when the harness is built and
// linked with the runtime compiled again under the sanitizers, called the
// way a careless host would: any batch, sequence length, token ids,
// lengths or Hugging Face attention masks and position ids
// (tfm_model_forward_masked), output capacity and NULL pointers. Every
// call either succeeds
// on valid arguments, writing exactly the output's elements, or fails with
// the status the C ABI documents for the first invalid one, writing
// nothing; nothing crashes, reads or writes out of bounds.
//
//===----------------------------------------------------------------------===//

#include "tfm/Runtime/tfm_runtime.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

tfm_model *model = nullptr;
int64_t vocab = 0, maxSeq = 0;
/// The manifest's first_position (RoBERTa-style tables start past 0).
int64_t firstPosition = 0;

/// Calls that ran the model and calls refused, printed at exit with
/// TFM_FUZZ_STATS set (how much of the fuzzing reaches the model).
struct Counts {
  uint64_t ran = 0, refused = 0;
  ~Counts() {
    if (std::getenv("TFM_FUZZ_STATS"))
      std::fprintf(stderr, "fuzz-c-abi: %llu calls ran the model, %llu "
                           "were refused\n",
                   static_cast<unsigned long long>(ran),
                   static_cast<unsigned long long>(refused));
  }
} counts;

[[noreturn]] void fail(const char *what) {
  std::fprintf(stderr, "fuzz-c-abi: %s (last error: %s)\n", what,
               tfm_last_error());
  __builtin_trap();
}

/// Writes a safetensors file with every weight the library's manifest
/// lists (small deterministic values) and returns its path.
std::string writeWeights(const llvm::json::Object &manifest) {
  const llvm::json::Array *weights = manifest.getArray("weights");
  if (!weights)
    fail("the manifest lists no weights");
  llvm::json::Object header;
  std::vector<float> data;
  for (const llvm::json::Value &w : *weights) {
    const llvm::json::Object *o = w.getAsObject();
    std::optional<llvm::StringRef> name = o ? o->getString("name") : std::nullopt;
    const llvm::json::Array *shape = o ? o->getArray("shape") : nullptr;
    if (!name || !shape)
      fail("a manifest weight without name or shape");
    int64_t count = 1;
    llvm::json::Array dims;
    for (const llvm::json::Value &d : *shape) {
      count *= *d.getAsInteger();
      dims.push_back(*d.getAsInteger());
    }
    size_t begin = data.size() * 4;
    for (int64_t i = 0; i < count; ++i)
      data.push_back(0.05f * std::sin(0.7f * static_cast<float>(data.size())));
    header[*name] = llvm::json::Object{
        {"dtype", "F32"},
        {"shape", std::move(dims)},
        {"data_offsets", llvm::json::Array{static_cast<int64_t>(begin),
                                           static_cast<int64_t>(data.size() * 4)}}};
  }
  std::string text;
  llvm::raw_string_ostream(text) << llvm::json::Value(std::move(header));
  while (text.size() % 8)
    text.push_back(' ');
  llvm::SmallString<128> path;
  int fd;
  if (llvm::sys::fs::createTemporaryFile("tfm-fuzz-c-abi", "safetensors", fd,
                                         path))
    fail("cannot create the weights file");
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  uint64_t n = text.size();
  for (int i = 0; i < 8; ++i)
    os << static_cast<char>((n >> (8 * i)) & 0xff);
  os << text;
  os.write(reinterpret_cast<const char *>(data.data()), data.size() * 4);
  return std::string(path);
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***) {
  const char *json = nullptr;
  if (tfm_library_info(&json) != TFM_OK)
    fail("tfm_library_info failed");
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(json);
  if (!parsed)
    fail("the library's manifest is not JSON");
  const llvm::json::Object *manifest = parsed->getAsObject();
  vocab = manifest->getInteger("vocab_size").value_or(0);
  maxSeq = manifest->getInteger("max_seq_len").value_or(0);
  firstPosition = manifest->getInteger("first_position").value_or(0);
  if (vocab <= 0 || maxSeq <= 0)
    fail("the manifest has no vocab_size or max_seq_len");
  std::string weights = writeWeights(*manifest);
  if (tfm_model_create(weights.c_str(), &model) != TFM_OK)
    fail("tfm_model_create failed on well-formed weights");
  llvm::sys::fs::remove(weights); // mapped: the model keeps the pages
  if (tfm_model_set_num_threads(model, 1) != TFM_OK)
    fail("tfm_model_set_num_threads(1) failed");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *bytes, size_t size) {
  // A provider that runs out of bytes gives 0s: every choice is made so
  // that 0 means a valid call (batch 1, one token, no NULL), and the
  // invalid values sit at the top of each range.
  FuzzedDataProvider in(bytes, size);
  int64_t b = in.ConsumeIntegralInRange<int64_t>(0, 5);
  int64_t batch = b < 4 ? b + 1 : 4 - b; // 1..4, then 0, -1
  int64_t t = in.ConsumeIntegralInRange<int64_t>(0, maxSeq + 2);
  int64_t seq = t < maxSeq ? t + 1 : (t == maxSeq ? 0 : t == maxSeq + 1 ? maxSeq + 1 : -1);
  bool nullIds = in.ConsumeProbability<float>() > 0.98f;
  bool nullOut = in.ConsumeProbability<float>() > 0.98f;
  bool withLengths = in.ConsumeBool();
  // One call in three goes through tfm_model_forward_masked.
  bool masked = in.ConsumeIntegralInRange<int>(0, 2) == 2;
  // One call in ten gets some out-of-range ids, one in ten bad lengths.
  bool wildIds = in.ConsumeProbability<float>() > 0.9f;
  bool wildLengths = in.ConsumeProbability<float>() > 0.9f;

  // Ids (and lengths) sized for what the call reads when the dimensions
  // are valid; mostly in range, sometimes not.
  size_t cells = batch > 0 && seq > 0 ? static_cast<size_t>(batch * seq) : 1;
  std::vector<int32_t> ids(cells);
  bool idsValid = true;
  for (int32_t &id : ids) {
    bool wild = wildIds && in.ConsumeProbability<float>() > 0.95f;
    id = wild ? in.ConsumeIntegral<int32_t>()
              : in.ConsumeIntegralInRange<int32_t>(0, vocab - 1);
    idsValid &= id >= 0 && id < vocab;
  }
  std::vector<int32_t> lengths(batch > 0 ? batch : 1);
  bool lengthsValid = true;
  for (int32_t &l : lengths) {
    bool wild = wildLengths && in.ConsumeProbability<float>() > 0.7f;
    l = wild ? in.ConsumeIntegral<int32_t>()
             : in.ConsumeIntegralInRange<int32_t>(1, seq > 0 ? seq : 1);
    lengthsValid &= l >= 1 && l <= seq;
  }
  if (!withLengths)
    lengthsValid = true;

  // Masked calls: each row a run [start, end) of 1s, sometimes with a hole,
  // a value other than 0/1 or no 1; position ids (half the calls) counting
  // up from a first position, sometimes out of range or jumping.
  int64_t rows = batch > 0 ? batch : 1, cols = seq > 0 ? seq : 1;
  std::vector<int32_t> mask(static_cast<size_t>(rows * cols), 1),
      positions(static_cast<size_t>(rows * cols), 0);
  bool withMask = in.ConsumeBool(), withPositions = in.ConsumeBool();
  bool maskValid = true, positionsValid = true;
  std::vector<int64_t> runStart(rows, 0), runLength(rows, cols);
  for (int64_t r = 0; r < rows && masked; ++r) {
    int64_t start = 0, end = cols;
    if (withMask) {
      start = in.ConsumeIntegralInRange<int64_t>(0, cols - 1);
      end = in.ConsumeIntegralInRange<int64_t>(start + 1, cols);
      int flaw = in.ConsumeIntegralInRange<int>(0, 40);
      for (int64_t c = 0; c < cols; ++c)
        mask[r * cols + c] = c >= start && c < end;
      if (flaw == 38 && end - start >= 3) { // a 0 between 1s
        mask[r * cols + start + 1] = 0;
        maskValid = false;
      } else if (flaw == 39) { // a value other than 0 and 1
        int32_t v = in.ConsumeIntegral<int32_t>();
        mask[r * cols + start] = v == 0 || v == 1 ? 2 : v;
        maskValid = false;
      } else if (flaw == 40) { // no 1
        std::fill_n(&mask[r * cols], cols, 0);
        maskValid = false;
      }
    }
    runStart[r] = start;
    runLength[r] = end - start;
    if (withPositions) {
      // Valid first positions lie in [0, first_position + max_seq_len -
      // length]; a few below 0 and past the end are drawn too.
      int64_t limit = firstPosition + maxSeq;
      int64_t first = in.ConsumeIntegralInRange<int64_t>(-2, limit + 1);
      for (int64_t c = 0; c < cols; ++c)
        positions[r * cols + c] = static_cast<int32_t>(
            c >= start ? first + (c - start) : in.ConsumeIntegral<int32_t>());
      positionsValid &= first >= 0 && first + (end - start) <= limit;
      if (in.ConsumeIntegralInRange<int>(0, 30) == 30 && end - start >= 2) {
        ++positions[r * cols + end - 1]; // a jump
        positionsValid = false;
      }
    }
  }

  // The output buffer: exactly the capacity the call is told, so that a
  // write past it is an AddressSanitizer report.
  int64_t shape[3];
  int rank = 0;
  bool dimsValid = batch >= 1 && seq >= 1 && seq <= maxSeq;
  tfm_status shapeStatus = tfm_model_output_shape(model, batch, seq, shape, &rank);
  if ((shapeStatus == TFM_OK) != dimsValid)
    fail("tfm_model_output_shape disagrees with the documented limits");
  size_t needed = 0;
  if (shapeStatus == TFM_OK) {
    needed = 1;
    for (int i = 0; i < rank; ++i)
      needed *= static_cast<size_t>(shape[i]);
  }
  // Usually the exact size, sometimes one more, one or two fewer.
  int64_t c = in.ConsumeIntegralInRange<int64_t>(0, 7);
  int64_t slack = c < 5 ? 0 : c == 5 ? 1 : c == 6 ? -1 : -2;
  size_t capacity = static_cast<size_t>(
      std::max<int64_t>(0, static_cast<int64_t>(needed) + slack));
  std::vector<float> out(capacity + (capacity == 0));
  const float sentinel = -12345.5f;
  std::fill(out.begin(), out.end(), sentinel);

  tfm_status s =
      masked
          ? tfm_model_forward_masked(model, nullIds ? nullptr : ids.data(),
                                     batch, seq,
                                     withMask ? mask.data() : nullptr,
                                     withPositions ? positions.data() : nullptr,
                                     nullOut ? nullptr : out.data(), capacity)
          : tfm_model_forward(model, nullIds ? nullptr : ids.data(), batch, seq,
                              withLengths ? lengths.data() : nullptr,
                              nullOut ? nullptr : out.data(), capacity);

  bool argsValid = !nullIds && !nullOut && dimsValid && idsValid &&
                   (masked ? maskValid && positionsValid : lengthsValid);
  if (argsValid && capacity >= needed) {
    if (s != TFM_OK)
      fail("valid arguments were refused");
    for (size_t i = 0; i < needed; ++i)
      if (!std::isfinite(out[i]))
        fail("a valid call gave a non-finite output");
    // A masked call writes zeros under the padding (logits [B, T, V]).
    if (masked && rank == 3)
      for (int64_t r = 0; r < batch; ++r)
        for (int64_t c = 0; c < seq; ++c) {
          bool padding = c < runStart[r] || c >= runStart[r] + runLength[r];
          for (int64_t v = 0; padding && v < shape[2]; ++v)
            if (out[(r * seq + c) * shape[2] + v] != 0.0f)
              fail("a masked call wrote a non-zero output under the padding");
        }
    ++counts.ran;
    return 0;
  }
  if (s == TFM_OK)
    fail("invalid arguments were accepted");
  ++counts.refused;
  if (argsValid && s != TFM_ERROR_BUFFER_TOO_SMALL)
    fail("a short buffer gave a status other than TFM_ERROR_BUFFER_TOO_SMALL");
  // Invalid arguments and a short buffer: either may be reported first.
  if (!argsValid && s != TFM_ERROR_INVALID_ARGUMENT &&
      !(capacity < needed && s == TFM_ERROR_BUFFER_TOO_SMALL))
    fail("invalid arguments gave a status other than "
         "TFM_ERROR_INVALID_ARGUMENT");
  if (std::strlen(tfm_last_error()) == 0)
    fail("a failing call left no message");
  for (float v : out)
    if (v != sentinel)
      fail("a failing call wrote its output");
  return 0;
}
