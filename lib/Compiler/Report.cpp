//===- Report.cpp - per-kernel cost report (tfmc --report) ----------------===//
//
// Costs are computed from the ops' tensor types with the batch dimension
// (dimension 0 when dynamic) set to 1 and every other dynamic dimension set
// to the report's sequence length.
//
//===----------------------------------------------------------------------===//

#include "tfm/Compiler/Report.h"
#include "tfm/Codegen/Common/Contraction.h"
#include "tfm/Compiler/Diagnostics.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/JSON.h"

#include <algorithm>
#include <map>
#include <numeric>

using namespace mlir;
namespace mt = mlir::tfm;

namespace tfm {
namespace {

/// The name of the attribute a tiling pass leaves on the loop nest (or the
/// op) it produced: a dictionary of integers (block_q, block_k, ...,
/// footprint_bytes, budget_bytes).

struct Shapes {
  int64_t seq;
  /// The static shape of `v` at batch 1 and the report's sequence length.
  SmallVector<int64_t> of(Value v) const {
    auto type = dyn_cast<ShapedType>(v.getType());
    SmallVector<int64_t> dims;
    if (!type || !type.hasRank())
      return dims;
    for (auto [i, d] : llvm::enumerate(type.getShape()))
      dims.push_back(ShapedType::isDynamic(d) ? (i == 0 ? 1 : seq) : d);
    return dims;
  }
  double bytes(Value v) const {
    if (!v)
      return 0;
    auto type = dyn_cast<ShapedType>(v.getType());
    if (!type)
      return 0;
    double n = 1;
    for (int64_t d : of(v))
      n *= d;
    unsigned bits = type.getElementType().isIntOrFloat()
                        ? type.getElementType().getIntOrFloatBitWidth()
                        : 32;
    return n * std::max(1u, bits / 8);
  }
};

/// Rows of a [..., K] operand: the product of its leading dimensions.
int64_t rows(llvm::ArrayRef<int64_t> shape) {
  int64_t m = 1;
  for (int64_t d : shape.drop_back())
    m *= d;
  return m;
}

double operandAndResultBytes(Operation *op, const Shapes &shapes) {
  double bytes = 0;
  for (Value v : op->getOperands())
    bytes += shapes.bytes(v);
  for (Value v : op->getResults())
    bytes += shapes.bytes(v);
  return bytes;
}

/// A GEMM-like kernel: [M, K] x [K, N], `batch` times.
void gemm(KernelCost &k, int64_t batch, int64_t m, int64_t kk, int64_t n,
          bool bias) {
  if (batch != 1)
    k.dims.push_back({"batch", batch});
  k.dims.push_back({"M", m});
  k.dims.push_back({"K", kk});
  k.dims.push_back({"N", n});
  k.flops = flops::gemm(batch, m, kk, n, bias);
}

flops::Mask flopsMask(mt::MaskKind kind) {
  switch (kind) {
  case mt::MaskKind::none:
    return flops::Mask::None;
  case mt::MaskKind::causal:
    return flops::Mask::Causal;
  case mt::MaskKind::sliding_window:
    return flops::Mask::SlidingWindow;
  }
  llvm_unreachable("unknown mask kind");
}

std::optional<KernelCost> costOf(Operation *op, const Shapes &shapes) {
  KernelCost k;
  k.op = op->getName().getStringRef().str();
  k.location = modelPlace(op->getLoc());
  const int64_t f32 = 4;

  if (auto attn = dyn_cast<mt::AttentionOp>(op)) {
    auto q = shapes.of(attn.getQuery()), kk = shapes.of(attn.getKey()),
         v = shapes.of(attn.getValue());
    if (q.size() != 4 || kk.size() != 4 || v.size() != 4)
      return std::nullopt;
    int64_t b = q[0], hq = q[1], tq = q[2], d = q[3], hkv = kk[1],
            tk = kk[2], dv = v[3];
    k.dims = {{"B", b}, {"Hq", hq}, {"Hkv", hkv}, {"Tq", tq},
              {"Tk", tk}, {"D", d}};
    if (dv != d)
      k.dims.push_back({"Dv", dv});
    k.detail = "mask " + mt::stringifyMaskKind(attn.getMask()).str();
    if (auto window = attn.getWindow())
      k.detail += " " + std::to_string(*window);
    k.flops = flops::attention(b, hq, tq, tk, d, dv,
                               flopsMask(attn.getMask()),
                               attn.getWindow().value_or(0));
    k.bytes = operandAndResultBytes(op, shapes);
    // Untiled: one head's Q, K, V, scores and output.
    k.footprintBytes = f32 * (tq * d + tk * d + tk * dv + tq * tk + tq * dv);
    return k;
  }
  if (auto linear = dyn_cast<mt::LinearOp>(op)) {
    auto x = shapes.of(linear.getInput()), y = shapes.of(linear.getResult());
    if (x.empty() || y.empty())
      return std::nullopt;
    gemm(k, 1, rows(x), x.back(), y.back(),
         static_cast<bool>(linear.getBias()));
    k.bytes = operandAndResultBytes(op, shapes);
    k.footprintBytes = static_cast<int64_t>(k.bytes);
    return k;
  }
  if (auto matmul = dyn_cast<mt::MatmulOp>(op)) {
    auto a = shapes.of(matmul.getLhs()), c = shapes.of(matmul.getResult());
    if (a.size() < 2 || c.size() < 2)
      return std::nullopt;
    int64_t batch = 1;
    for (int64_t d : llvm::ArrayRef<int64_t>(a).drop_back(2))
      batch *= d;
    gemm(k, batch, a[a.size() - 2], a.back(), c.back(), /*bias=*/false);
    if (matmul.getTransposeRhs())
      k.detail = "transpose_rhs";
    k.bytes = operandAndResultBytes(op, shapes);
    // One batch element's operands and result.
    k.footprintBytes = static_cast<int64_t>(k.bytes / batch);
    return k;
  }
  if (auto ffn = dyn_cast<mt::FfnOp>(op)) {
    auto x = shapes.of(ffn.getInput()), up = shapes.of(ffn.getUpWeight());
    if (x.empty() || up.size() != 2)
      return std::nullopt;
    int64_t m = rows(x), dModel = x.back();
    int64_t f = up[0] == dModel ? up[1] : up[0];
    bool gated = static_cast<bool>(ffn.getGateWeight());
    k.dims = {{"M", m}, {"D", dModel}, {"F", f}};
    k.detail = mt::stringifyActivation(ffn.getActivation()).str();
    k.flops = flops::ffn(m, dModel, f, gated);
    k.bytes = operandAndResultBytes(op, shapes);
    // Operands, result and the [M, F] hidden activations.
    k.footprintBytes =
        static_cast<int64_t>(k.bytes) + f32 * m * f * (gated ? 2 : 1);
    return k;
  }
  if (auto head = dyn_cast<mt::LmHeadOp>(op)) {
    auto x = shapes.of(head.getInput()), y = shapes.of(head.getResult());
    if (x.empty() || y.empty())
      return std::nullopt;
    gemm(k, 1, rows(x), x.back(), y.back(), /*bias=*/false);
    if (head.getTied())
      k.detail = "tied";
    k.bytes = operandAndResultBytes(op, shapes);
    k.footprintBytes = static_cast<int64_t>(k.bytes);
    return k;
  }
  return std::nullopt;
}

/// The tiles of a tiled attention, from the #tfm.attention_tiling its loop
/// nest carries.
void attachTiles(KernelCost &k, mt::AttentionTilingAttr tiling) {
  k.tiles = {{"block_k", tiling.getBlockK()},
             {"block_q", tiling.getBlockQ()},
             {"group", tiling.getGroup()}};
  if (tiling.getKeySplits() > 1)
    k.tiles.push_back({"key_splits", tiling.getKeySplits()});
  k.footprintBytes = tiling.getFootprintBytes();
  k.budgetBytes = tiling.getBudgetBytes();
}

/// The schedule of an attention on tensor cores, from its
/// #tfm.gpu_flash_attention: its shared memory against the block's (static,
/// or past it the dynamic shared memory a block opts into).
void attachFlash(KernelCost &k, mt::GpuFlashAttentionAttr flash,
                 mt::AttentionOp op, mt::GpuTargetAttr gpu) {
  k.tiles = {{"block_k", flash.getBlockK()},
             {"block_q", flash.getBlockQ()},
             {"heads", flash.getHeads()},
             {"warps", flash.getWarps()}};
  if (flash.getRowTiles() > 1)
    k.tiles.push_back({"row_tiles", flash.getRowTiles()});
  if (flash.getQShared())
    k.tiles.push_back({"q_shared", 1});
  k.footprintBytes =
      flash.getSharedMemoryBytes(op.getQuery().getType().getDimSize(3),
                                 op.getValue().getType().getDimSize(3));
  // Past the static limit, -tfm-gpu-dynamic-shared-memory moves the
  // buffers to the dynamic shared memory a block opts into.
  k.budgetBytes = !gpu ? 0
                  : k.footprintBytes <= gpu.getSharedMemoryBytes()
                      ? gpu.getSharedMemoryBytes()
                      : gpu.getMaxBlockSharedMemoryBytes();
}

std::string formatBytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024)
    return llvm::formatv("{0:F2} GiB", bytes / (1024.0 * 1024 * 1024)).str();
  if (bytes >= 1024.0 * 1024)
    return llvm::formatv("{0:F2} MiB", bytes / (1024.0 * 1024)).str();
  if (bytes >= 1024.0)
    return llvm::formatv("{0:F1} KiB", bytes / 1024.0).str();
  return llvm::formatv("{0} B", static_cast<int64_t>(bytes)).str();
}

std::string formatSeconds(double s) {
  if (s >= 1)
    return llvm::formatv("{0:F3} s", s).str();
  if (s >= 1e-3)
    return llvm::formatv("{0:F3} ms", s * 1e3).str();
  return llvm::formatv("{0:F3} us", s * 1e6).str();
}

std::string joinDims(const std::vector<std::pair<std::string, int64_t>> &d,
                     llvm::StringRef sep) {
  std::string out;
  for (auto &[name, value] : d)
    out += (out.empty() ? "" : sep.str()) + name + "=" + std::to_string(value);
  return out;
}

} // namespace

void KernelCollector::resolveSeq(ModuleOp module) {
  resolvedSeq = seq;
  if (resolvedSeq <= 0) {
    auto maxSeq = module->getAttrOfType<IntegerAttr>(mt::kMaxSeqLenAttr);
    resolvedSeq = maxSeq ? maxSeq.getInt() : 1;
  }
}

void KernelCollector::observe(ModuleOp module) {
  if (auto name = module->getAttrOfType<StringAttr>(mt::kModelNameAttr))
    model = name.getValue().str();
  resolveSeq(module);
  Shapes shapes{resolvedSeq};

  std::vector<KernelCost> now;
  // Tiles by location, in walk order.
  std::map<std::string, std::vector<mt::AttentionTilingAttr>> tilesAt;
  module.walk([&](Operation *op) {
    if (isa<mt::TfmDialect>(op->getDialect())) {
      if (std::optional<KernelCost> k = costOf(op, shapes)) {
        if (auto tile = op->getAttrOfType<mt::AttentionTilingAttr>(
                mt::kLoweringConfigAttr))
          attachTiles(*k, tile);
        if (auto flash = op->getAttrOfType<mt::GpuFlashAttentionAttr>(
                mt::kLoweringConfigAttr)) {
          auto gpu = dyn_cast_or_null<mt::GpuTargetAttr>(
              module->getAttr(mt::kTargetAttr));
          attachFlash(*k, flash, cast<mt::AttentionOp>(op), gpu);
        }
        now.push_back(std::move(*k));
      }
      return;
    }
    if (auto tile = op->getAttrOfType<mt::AttentionTilingAttr>(
            mt::kLoweringConfigAttr))
      tilesAt[modelPlace(op->getLoc())].push_back(tile);
  });

  // No kernel left: they were lowered; the last look stands, with the
  // tiles of attention kernels that were tiled in the same step.
  if (now.empty()) {
    std::map<std::string, size_t> used;
    for (KernelCost &k : kernels) {
      auto it = tilesAt.find(k.location);
      if (k.op != "tfm.attention" || !k.tiles.empty() || it == tilesAt.end())
        continue;
      size_t &n = used[k.location];
      if (n < it->second.size())
        attachTiles(k, it->second[n++]);
    }
    return;
  }
  // Kernels that became tiled loop nests since the last look keep their
  // place and costs; the others are gone (fused into another kernel).
  std::map<std::string, size_t> used;
  std::vector<KernelCost> merged;
  size_t next = 0;
  for (const KernelCost &old : kernels) {
    auto it = tilesAt.find(old.location);
    bool stillThere = false;
    for (size_t i = next; i < now.size(); ++i)
      if (now[i].op == old.op && now[i].location == old.location) {
        // Keep the new kernels before it in order.
        for (; next <= i; ++next)
          merged.push_back(now[next]);
        stillThere = true;
        break;
      }
    if (stillThere || it == tilesAt.end() || old.op != "tfm.attention")
      continue;
    size_t &n = used[old.location];
    if (n >= it->second.size())
      continue;
    KernelCost tiled = old;
    attachTiles(tiled, it->second[n++]);
    merged.push_back(std::move(tiled));
  }
  for (; next < now.size(); ++next)
    merged.push_back(now[next]);
  kernels = std::move(merged);
}

/// The extent of every loop of `op` at the report's sizes, read from the
/// operand dimensions its maps index.
static SmallVector<int64_t> loopExtents(linalg::LinalgOp op,
                                        const Shapes &shapes) {
  SmallVector<int64_t> extents(op.getNumLoops(), 1);
  for (OpOperand &operand : op->getOpOperands()) {
    SmallVector<int64_t> dims = shapes.of(operand.get());
    AffineMap map = op.getMatchingIndexingMap(&operand);
    for (auto [i, e] : llvm::enumerate(map.getResults()))
      if (auto d = dyn_cast<AffineDimExpr>(e); d && i < dims.size())
        extents[d.getPosition()] = dims[i];
  }
  return extents;
}

void KernelCollector::observeGpuSchedules(ModuleOp module) {
  resolveSeq(module);
  Shapes shapes{resolvedSeq};
  gpuKernels.clear();
  gpuLoopKernels = 0;
  gpuScheduled = true;
  // Tiled attention: a CTA per (query block, K/V head, batch element)
  // (-tfm-gpu-map-attention), its problem and costs those of the
  // tfm.attention it came from.
  module.walk([&](gpu::LaunchOp launch) {
    Attribute config = launch->getAttr(mt::kLoweringConfigAttr);
    auto tiling = dyn_cast_or_null<mt::AttentionTilingAttr>(config);
    auto flash = dyn_cast_or_null<mt::GpuFlashAttentionAttr>(config);
    if (!tiling && !flash)
      return;
    std::string place = modelPlace(launch.getLoc());
    auto source = llvm::find_if(kernels, [&](const KernelCost &c) {
      return c.op == "tfm.attention" && c.location == place;
    });
    if (source == kernels.end())
      return;
    auto dim = [&](StringRef name) -> int64_t {
      for (auto &[n, v] : source->dims)
        if (n == name)
          return v;
      return 1;
    };
    GpuKernelCost k;
    k.kind = flash ? "attention-mma" : "attention";
    k.location = place;
    llvm::raw_string_ostream os(k.schedule);
    config.print(os);
    k.dims = source->dims;
    if (flash) {
      // Blocks of block_q queries of `heads` query heads of a K/V group.
      k.grid[0] = llvm::divideCeil(dim("Tq"), flash.getBlockQ());
      k.grid[1] = dim("Hq") / flash.getHeads();
    } else {
      k.grid[0] = llvm::divideCeil(dim("Tq"), tiling.getBlockQ());
      k.grid[1] = dim("Hkv");
    }
    k.grid[2] = dim("B");
    if (std::optional<int64_t> threads =
            getConstantIntValue(launch.getBlockSizeX()))
      k.threadsPerBlock = *threads;
    for (BlockArgument buffer : launch.getWorkgroupAttributions()) {
      auto type = cast<MemRefType>(buffer.getType());
      k.sharedMemoryBytes += type.getNumElements() *
                             llvm::divideCeil(type.getElementTypeBitWidth(), 8);
    }
    k.flops = source->flops.opWork;
    k.bytes = source->bytes;
    gpuKernels.push_back(std::move(k));
  });
  // The row kernel the ops marked as its stages run in.
  std::optional<size_t> rowKernel;
  int64_t rowKernelSlots = 0;
  // The buffers the row kernel already counts: its stages read a row
  // once for all of them.
  DenseSet<Value> rowKernelBuffers;
  // A reduction stage's shared slots.
  auto slotBytes = [](linalg::LinalgOp op, int64_t slots) -> int64_t {
    if (slots <= 1)
      return 0;
    return slots *
           llvm::divideCeil(getElementTypeOrSelf(op.getDpsInits()[0].getType())
                                .getIntOrFloatBitWidth(),
                            8);
  };
  module.walk([&](linalg::LinalgOp op) {
    if (!op.hasPureBufferSemantics())
      return;
    if (op->hasAttr(mt::kRowKernelStageAttr)) {
      if (rowKernel) {
        GpuKernelCost &k = gpuKernels[*rowKernel];
        for (Value v : op->getOperands())
          if (rowKernelBuffers.insert(v).second)
            k.bytes += shapes.bytes(v);
        SmallVector<int64_t> ext = loopExtents(op, shapes);
        k.flops += static_cast<double>(std::accumulate(
            ext.begin(), ext.end(), int64_t(1), std::multiplies<int64_t>()));
        if (llvm::is_contained(op.getIteratorTypesArray(),
                               utils::IteratorType::reduction))
          k.sharedMemoryBytes += slotBytes(op, rowKernelSlots);
      }
      return;
    }
    Attribute config = op->getAttr(mt::kLoweringConfigAttr);
    SmallVector<int64_t> ext = loopExtents(op, shapes);
    GpuKernelCost k;
    k.location = modelPlace(op->getLoc());
    if (config) {
      llvm::raw_string_ostream os(k.schedule);
      config.print(os);
    }
    for (Value v : op->getOperands())
      k.bytes += shapes.bytes(v);
    // The SIMT and the tensor-core GEMM schedules: the same grid of output
    // tiles; a run-time choice as it chooses at the report's shape.
    if (isa_and_nonnull<mt::GpuContractionAttr, mt::GpuMmaAttr,
                        mt::GpuMmaChoiceAttr>(config)) {
      std::optional<mt::GemmDims> g = mt::inferGemmDims(op);
      if (!g)
        return;
      int64_t batch = 1;
      for (unsigned d : g->unit)
        batch *= ext[d];
      if (auto choice = dyn_cast<mt::GpuMmaChoiceAttr>(config))
        config = choice.select(ext[g->m], ext[g->n], batch);
      auto tiles = [&](auto gemm) {
        k.grid[0] = llvm::divideCeil(ext[g->n], gemm.getBlockN());
        k.grid[1] = llvm::divideCeil(ext[g->m], gemm.getBlockM());
        k.threadsPerBlock = gemm.getThreads();
        k.sharedMemoryBytes = gemm.getSharedMemoryBytes();
      };
      if (auto gemm = dyn_cast<mt::GpuContractionAttr>(config)) {
        k.kind = "gemm";
        tiles(gemm);
      } else {
        k.kind = "gemm-mma";
        tiles(cast<mt::GpuMmaAttr>(config));
      }
      k.dims = {{"M", ext[g->m]}, {"N", ext[g->n]}, {"K", ext[g->k]}};
      if (batch != 1)
        k.dims.push_back({"batch", batch});
      k.grid[2] = batch;
      k.flops = 2.0 * batch * ext[g->m] * ext[g->n] * ext[g->k];
      gpuKernels.push_back(std::move(k));
      return;
    }
    if (auto reduce = dyn_cast_or_null<mt::GpuReductionAttr>(config)) {
      int64_t rows = 1, length = 1;
      for (auto [d, it] : llvm::enumerate(op.getIteratorTypesArray()))
        (it == utils::IteratorType::reduction ? length : rows) *= ext[d];
      k.kind = "row-reduce";
      k.dims = {{"rows", rows}, {"length", length}};
      if (reduce.getStages() > 1)
        k.dims.push_back({"ops", reduce.getStages()});
      k.grid[0] = rows;
      k.threadsPerBlock = reduce.getThreads();
      // One shared slot per warp and reduction stage, none for a block
      // of one warp (shuffles only; -tfm-gpu-tile-reduction).
      rowKernelSlots = reduce.getThreads() >= 32 ? reduce.getThreads() / 32
                                                 : reduce.getThreads();
      k.sharedMemoryBytes = slotBytes(op, rowKernelSlots);
      k.flops = static_cast<double>(rows) * length;
      rowKernel = gpuKernels.size();
      rowKernelBuffers = DenseSet<Value>(op->getOperands().begin(),
                                         op->getOperands().end());
      gpuKernels.push_back(std::move(k));
      return;
    }
    ++gpuLoopKernels;
  });
}

/// Fills `out` from `ptxas -v` output: per entry function, its registers,
/// shared memory, stack frame and spills.
static void parsePtxasVerbose(llvm::StringRef text,
                              std::vector<GpuKernelResources> &out) {
  GpuKernelResources *current = nullptr;
  auto numberBefore = [](llvm::StringRef line, llvm::StringRef unit) {
    size_t at = line.find(unit);
    if (at == llvm::StringRef::npos)
      return int64_t(0);
    llvm::StringRef head = line.take_front(at).rtrim();
    llvm::StringRef digits =
        head.drop_front(head.find_last_not_of("0123456789") + 1);
    int64_t v = 0;
    (void)digits.getAsInteger(10, v);
    return v;
  };
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (llvm::StringRef line : lines) {
    if (size_t at = line.find("Compiling entry function '");
        at != llvm::StringRef::npos) {
      llvm::StringRef name =
          line.drop_front(at + strlen("Compiling entry function '"))
              .take_until([](char c) { return c == '\''; });
      out.push_back(GpuKernelResources{name.str()});
      current = &out.back();
      continue;
    }
    if (!current)
      continue;
    if (line.contains("bytes stack frame")) {
      current->stackBytes = numberBefore(line, " bytes stack frame");
      current->spillStoreBytes = numberBefore(line, " bytes spill stores");
      current->spillLoadBytes = numberBefore(line, " bytes spill loads");
    } else if (line.contains("Used ") && line.contains(" registers")) {
      current->registers = numberBefore(line, " registers");
      current->sharedMemoryBytes = numberBefore(line, " bytes smem");
    }
  }
}

void KernelCollector::observeGpuKernels(ModuleOp module) {
  gpuResources.clear();
  if (!gpu)
    return;
  if (gpu->toolkit.empty()) {
    gpuResourcesNote = "unknown (no CUDA toolkit: ptxas measures them)";
    return;
  }
  std::string ptxas = gpu->toolkit + "/bin/ptxas";
  // Each kernel's threads per block, from its launch.
  llvm::StringMap<int64_t> threads;
  module.walk([&](gpu::LaunchFuncOp launch) {
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    std::optional<int64_t> x = getConstantIntValue(block.x),
                           y = getConstantIntValue(block.y),
                           z = getConstantIntValue(block.z);
    threads[launch.getKernelName().getValue()] =
        x && y && z ? *x * *y * *z : 0;
  });
  // Each kernel's planned occupancy (-tfm-gpu-outline-kernels keeps it).
  llvm::StringMap<int64_t> plans;
  // Kernels are LLVM functions by now.
  module.walk([&](FunctionOpInterface kernel) {
    if (auto plan = kernel->getAttrOfType<IntegerAttr>(mt::kBlocksPerSMAttr))
      plans[kernel.getName()] = plan.getInt();
  });
  // The PTX of a copy (the library itself embeds a fatbin).
  OwningOpRef<ModuleOp> copy = module.clone();
  PassManager pm(module.getContext());
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  binary.toolkitPath = gpu->toolkit;
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (failed(pm.run(*copy))) {
    gpuResourcesNote = "unknown (the kernels' PTX could not be made)";
    return;
  }
  std::vector<GpuKernelResources> found;
  WalkResult walked = copy->walk([&](gpu::BinaryOp op) {
    for (Attribute a : op.getObjects()) {
      auto object = dyn_cast<gpu::ObjectAttr>(a);
      if (!object || object.getFormat() != gpu::CompilationTarget::Assembly)
        continue;
      llvm::SmallString<128> in, log;
      if (llvm::sys::fs::createTemporaryFile("tfm-report", "ptx", in) ||
          llvm::sys::fs::createTemporaryFile("tfm-report", "log", log))
        return WalkResult::interrupt();
      llvm::FileRemover removeIn(in), removeLog(log);
      {
        std::error_code ec;
        llvm::raw_fd_ostream os(in, ec);
        if (ec)
          return WalkResult::interrupt();
        os << object.getObject().getValue();
      }
      std::string arch = "-arch=" + gpu->chip;
      llvm::SmallVector<llvm::StringRef> args{ptxas, arch, "-v", in, "-o",
                                              "/dev/null"};
      std::optional<llvm::StringRef> redirects[] = {std::nullopt, log, log};
      if (llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects) !=
          0)
        return WalkResult::interrupt();
      auto text = llvm::MemoryBuffer::getFile(log);
      if (!text)
        return WalkResult::interrupt();
      parsePtxasVerbose((*text)->getBuffer(), found);
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted()) {
    gpuResourcesNote = "unknown (" + ptxas + " -v failed on the kernels)";
    return;
  }
  for (GpuKernelResources &k : found) {
    k.threadsPerBlock = threads.lookup(k.kernel);
    if (k.threadsPerBlock > 0 && k.registers > 0)
      k.blocksPerSMByRegisters =
          mt::GpuTargetAttr::blocksByRegisters(k.threadsPerBlock, k.registers);
    k.plannedBlocksPerSM = plans.lookup(k.kernel);
    if (k.plannedBlocksPerSM > 0 && k.threadsPerBlock > 0)
      k.registerBudget = mt::GpuTargetAttr::registerBudget(
          k.threadsPerBlock, k.plannedBlocksPerSM);
    else
      k.plannedBlocksPerSM = 0;
  }
  gpuResources = std::move(found);
  gpuResourcesNote.clear();
}

KernelReport KernelCollector::report() const {
  KernelReport r;
  r.model = model;
  r.seq = resolvedSeq;
  r.target = target;
  double perCore = target.peakFlopsPerCore > 0
                       ? target.peakFlopsPerCore
                       : mt::derivedPeakFlopsPerCore(target);
  r.peakFlops = perCore * std::max(1u, target.threads);
  r.bandwidth = target.memoryBandwidth;
  r.gpu = gpu;
  if (gpu) {
    // The kernels run on the GPU: its roofline, and a block's shared
    // memory as the fast-memory budget.
    r.peakFlops = gpu->peakFlops;
    r.bandwidth = gpu->memoryBandwidth;
  }
  r.gpuKernels = gpuKernels;
  r.gpuLoopKernels = gpuLoopKernels;
  r.gpuScheduled = gpuScheduled;
  r.gpuResources = gpuResources;
  r.gpuResourcesNote = gpuResourcesNote;
  for (GpuKernelCost &k : r.gpuKernels) {
    // Tensor-core kernels against the tensor cores' peak.
    double peak = gpu && (k.kind == "gemm-mma" || k.kind == "attention-mma")
                      ? gpu->peakTensorFlops
                      : r.peakFlops;
    double compute = peak > 0 ? k.flops / peak : 0;
    double memory = r.bandwidth > 0 ? k.bytes / r.bandwidth : 0;
    k.seconds = std::max(compute, memory);
    k.computeBound = compute >= memory;
  }
  r.kernels = kernels;
  for (KernelCost &k : r.kernels) {
    if (k.budgetBytes == 0)
      k.budgetBytes = gpu ? gpu->sharedMemoryBytes : target.l2Bytes;
    double compute = r.peakFlops > 0 ? k.flops.opWork / r.peakFlops : 0;
    double memory = r.bandwidth > 0 ? k.bytes / r.bandwidth : 0;
    k.seconds = std::max(compute, memory);
    k.computeBound = compute >= memory;
  }
  return r;
}

/// Prints `rows` (the first one the header) as aligned columns.
static void printColumns(llvm::raw_ostream &os,
                  const std::vector<std::vector<std::string>> &rows) {
  std::vector<size_t> width;
  for (const auto &row : rows) {
    width.resize(std::max(width.size(), row.size()));
    for (auto [c, cell] : llvm::enumerate(row))
      width[c] = std::max(width[c], cell.size());
  }
  for (const auto &row : rows) {
    std::string line;
    for (auto [c, cell] : llvm::enumerate(row)) {
      std::string padded = cell;
      padded.resize(width[c], ' ');
      line += padded + "  ";
    }
    os << llvm::StringRef(line).rtrim() << "\n";
  }
}

/// The GPU's scheduled kernels (--target=nvptx), after the tfm-level table.
static void printGpuKernels(llvm::raw_ostream &os, const KernelReport &r) {
  if (!r.gpu)
    return;
  if (!r.gpuScheduled) {
    os << "GPU kernels: not known yet (the compile stopped before "
          "-tfm-gpu-configure, which schedules them)\n";
    return;
  }
  os << llvm::formatv("GPU kernels with a schedule ({0}; {1} more run one "
                      "thread per output element):\n",
                      r.gpuKernels.size(), r.gpuLoopKernels);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"#", "kind", "where", "shape", "grid", "block",
                  "smem / budget", "MFLOP", "min bytes", "roofline"});
  for (auto [i, k] : llvm::enumerate(r.gpuKernels))
    rows.push_back(
        {std::to_string(i + 1), k.kind, k.location, joinDims(k.dims, " "),
         llvm::formatv("{0}x{1}x{2}", k.grid[0], k.grid[1], k.grid[2]).str(),
         std::to_string(k.threadsPerBlock),
         formatBytes(k.sharedMemoryBytes) + " / " +
             formatBytes(k.sharedMemoryBytes > r.gpu->sharedMemoryBytes
                             ? r.gpu->optInSharedMemoryBytes
                             : r.gpu->sharedMemoryBytes),
         llvm::formatv("{0:F3}", k.flops / 1e6).str(), formatBytes(k.bytes),
         formatSeconds(k.seconds) + (k.computeBound ? " compute" : " memory")});
  printColumns(os, rows);
}

/// Registers, shared memory and spills of the kernels (ptxas -v): a
/// summary and the heaviest kernels by registers.
static void printGpuResources(llvm::raw_ostream &os, const KernelReport &r) {
  if (!r.gpu)
    return;
  if (r.gpuResources.empty()) {
    os << "GPU kernel resources: " << r.gpuResourcesNote << "\n";
    return;
  }
  std::vector<const GpuKernelResources *> byRegisters;
  int64_t spilling = 0, stack = 0, planned = 0, over = 0;
  for (const GpuKernelResources &k : r.gpuResources) {
    byRegisters.push_back(&k);
    spilling += k.spillStoreBytes + k.spillLoadBytes > 0;
    stack += k.stackBytes > 0;
    planned += k.plannedBlocksPerSM > 0;
    over += k.overBudget();
  }
  // Most registers first, ties in the report's order (the pointers are
  // into one vector): a stable order without std::stable_sort, whose
  // libstdc++ 12 buffer is deprecated under clang 22.
  std::sort(byRegisters.begin(), byRegisters.end(), [](auto *a, auto *b) {
    if (a->registers != b->registers)
      return a->registers > b->registers;
    return a < b;
  });
  os << llvm::formatv("GPU kernel resources (ptxas -v, {0}): {1} kernels, "
                      "at most {2} registers per thread (of 255), {3} with "
                      "spills, {4} with a stack frame, {5} of {6} with a "
                      "planned occupancy over its register budget; by "
                      "registers:\n",
                      r.gpu->chip, r.gpuResources.size(),
                      byRegisters.front()->registers, spilling, stack, over,
                      planned);
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"kernel", "registers", "budget", "threads",
                  "blocks/SM planned", "blocks/SM (registers)", "smem", "stack",
                  "spill st/ld"});
  // The heaviest kernels, and every kernel over its budget.
  for (auto [i, k] : llvm::enumerate(byRegisters)) {
    if (i >= 8 && !k->overBudget())
      continue;
    bool plan = k->plannedBlocksPerSM > 0;
    rows.push_back(
        {k->kernel, std::to_string(k->registers),
         plan ? std::to_string(k->registerBudget) +
                    (k->overBudget() ? " (over)" : "")
              : "-",
         k->threadsPerBlock ? std::to_string(k->threadsPerBlock) : "?",
         plan ? std::to_string(k->plannedBlocksPerSM) : "-",
         k->blocksPerSMByRegisters ? std::to_string(k->blocksPerSMByRegisters)
                                   : "?",
         formatBytes(k->sharedMemoryBytes) + " / " +
             formatBytes(r.gpu->sharedMemoryBytes),
         formatBytes(k->stackBytes),
         formatBytes(k->spillStoreBytes) + " / " +
             formatBytes(k->spillLoadBytes)});
  }
  printColumns(os, rows);
}

void printReportTable(llvm::raw_ostream &os, const KernelReport &r) {
  os << "tfmc report: " << (r.model.empty() ? "(unnamed)" : r.model)
     << ", batch " << r.batch << ", seq " << r.seq << "\n";
  if (r.gpu)
    os << llvm::formatv("target nvptx {0} (reference part {1}, {2} SMs): "
                        "peak {3:F1} GFLOP/s f32, memory {4:F1} GB/s, "
                        "shared memory {5} per block ({6} opt-in)\n",
                        r.gpu->chip, r.gpu->referencePart,
                        r.gpu->multiprocessors, r.peakFlops / 1e9,
                        r.bandwidth / 1e9,
                        formatBytes(r.gpu->sharedMemoryBytes),
                        formatBytes(r.gpu->optInSharedMemoryBytes));
  else
    os << llvm::formatv("target {0} (cpu {1}), {2} threads: peak {3:F1} "
                        "GFLOP/s, memory {4:F1} GB/s, L1 {5}, L2 {6}\n",
                        r.target.triple, r.target.cpu, r.target.threads,
                        r.peakFlops / 1e9, r.bandwidth / 1e9,
                        formatBytes(r.target.l1Bytes),
                        formatBytes(r.target.l2Bytes));
  constexpr int kColumns = 10;
  struct Row {
    std::string cells[kColumns];
  };
  std::vector<Row> rows;
  // The two conventions of tfm/Support/Flops.h: "MFLOP" is all the
  // arithmetic of each op (every attention score, softmax, bias,
  // activation), what the roofline uses; "mul-add MFLOP" counts 2 per
  // multiply-add of the GEMMs and attention over the scores a mask leaves
  // visible, tfm-bench's convention. The total line ends with the latter
  // so that the report's last line stays the total.
  rows.push_back({{"#", "kernel", "where", "shape", "MFLOP", "min bytes",
                   "tiles", "footprint / budget", "roofline",
                   "mul-add MFLOP"}});
  flops::Flops total;
  double bytes = 0, seconds = 0;
  for (auto [i, k] : llvm::enumerate(r.kernels)) {
    std::string shape = joinDims(k.dims, " ");
    if (!k.detail.empty())
      shape += " " + k.detail;
    std::string fit = k.footprintBytes <= k.budgetBytes ? "fits" : "exceeds";
    rows.push_back(
        {{std::to_string(i + 1), k.op, k.location, shape,
          llvm::formatv("{0:F3}", k.flops.opWork / 1e6).str(),
          formatBytes(k.bytes),
          k.tiles.empty() ? "untiled" : joinDims(k.tiles, " "),
          formatBytes(k.footprintBytes) + " / " +
              formatBytes(k.budgetBytes) + " (" + fit + ")",
          formatSeconds(k.seconds) +
              (k.computeBound ? " compute" : " memory"),
          llvm::formatv("{0:F3}", k.flops.multiplyAdds / 1e6).str()}});
    total += k.flops;
    bytes += k.bytes;
    seconds += k.seconds;
  }
  size_t width[kColumns] = {};
  for (const Row &row : rows)
    for (int c = 0; c < kColumns; ++c)
      width[c] = std::max(width[c], row.cells[c].size());
  for (const Row &row : rows) {
    std::string line;
    for (int c = 0; c < kColumns; ++c) {
      std::string cell = row.cells[c];
      if (c < kColumns - 1)
        cell.resize(width[c], ' ');
      line += cell + (c < kColumns - 1 ? "  " : "");
    }
    os << llvm::StringRef(line).rtrim() << "\n";
  }
  printGpuKernels(os, r);
  printGpuResources(os, r);
  os << llvm::formatv("total: {0} kernels, {1:F3} MFLOP, {2} moved at "
                      "least, roofline {3}; {4:F3} mul-add MFLOP\n",
                      r.kernels.size(), total.opWork / 1e6,
                      formatBytes(bytes), formatSeconds(seconds),
                      total.multiplyAdds / 1e6);

}

/// The "gpu" object of the JSON report: the device and its scheduled
/// kernels.
static llvm::json::Value gpuJson(const KernelReport &r) {
  llvm::json::Array kernels;
  for (const GpuKernelCost &k : r.gpuKernels) {
    llvm::json::Object dims;
    for (auto &[name, value] : k.dims)
      dims[name] = value;
    kernels.push_back(llvm::json::Object{
        {"kind", k.kind},
        {"location", k.location},
        {"schedule", k.schedule},
        {"dims", std::move(dims)},
        {"grid", llvm::json::Array{k.grid[0], k.grid[1], k.grid[2]}},
        {"threads_per_block", k.threadsPerBlock},
        {"shared_memory_bytes", k.sharedMemoryBytes},
        {"flops", k.flops},
        {"min_bytes", k.bytes},
        {"roofline_seconds", k.seconds},
        {"bound", k.computeBound ? "compute" : "memory"},
    });
  }
  llvm::json::Array resources;
  for (const GpuKernelResources &k : r.gpuResources)
    resources.push_back(llvm::json::Object{
        {"kernel", k.kernel},
        {"registers", k.registers},
        {"shared_memory_bytes", k.sharedMemoryBytes},
        {"stack_bytes", k.stackBytes},
        {"spill_store_bytes", k.spillStoreBytes},
        {"spill_load_bytes", k.spillLoadBytes},
        {"threads_per_block", k.threadsPerBlock},
        {"blocks_per_sm_by_registers", k.blocksPerSMByRegisters},
        {"planned_blocks_per_sm", k.plannedBlocksPerSM},
        {"register_budget", k.registerBudget},
    });
  return llvm::json::Object{
      {"chip", r.gpu->chip},
      {"resources", r.gpuResources.empty()
                        ? llvm::json::Value(nullptr)
                        : llvm::json::Value(std::move(resources))},
      {"resources_note", r.gpuResourcesNote},
      {"reference_part", r.gpu->referencePart},
      {"multiprocessors", r.gpu->multiprocessors},
      {"shared_memory_bytes", r.gpu->sharedMemoryBytes},
      {"opt_in_shared_memory_bytes", r.gpu->optInSharedMemoryBytes},
      {"peak_flops", r.peakFlops},
      {"memory_bandwidth", r.bandwidth},
      {"kernels", r.gpuScheduled ? llvm::json::Value(std::move(kernels))
                                 : llvm::json::Value(nullptr)},
      {"loop_kernels", r.gpuLoopKernels},
  };
}

void printReportJson(llvm::raw_ostream &os, const KernelReport &r) {
  llvm::json::Array kernels;
  flops::Flops total;
  double bytes = 0, seconds = 0;
  for (const KernelCost &k : r.kernels) {
    llvm::json::Object dims, tiles;
    for (auto &[name, value] : k.dims)
      dims[name] = value;
    for (auto &[name, value] : k.tiles)
      tiles[name] = value;
    llvm::json::Object o{
        {"op", k.op},
        {"location", k.location},
        {"dims", std::move(dims)},
        {"flops", k.flops.opWork},
        {"mul_add_flops", k.flops.multiplyAdds},
        {"min_bytes", k.bytes},
        {"footprint_bytes", k.footprintBytes},
        {"budget_bytes", k.budgetBytes},
        {"fits", k.footprintBytes <= k.budgetBytes},
        {"roofline_seconds", k.seconds},
        {"bound", k.computeBound ? "compute" : "memory"},
    };
    if (!k.detail.empty())
      o["detail"] = k.detail;
    o["tiles"] = k.tiles.empty() ? llvm::json::Value(nullptr)
                                 : llvm::json::Value(std::move(tiles));
    kernels.push_back(std::move(o));
    total += k.flops;
    bytes += k.bytes;
    seconds += k.seconds;
  }
  llvm::json::Object root{
      {"format", "tfm-report/1"},
      {"model", r.model},
      {"batch", r.batch},
      {"seq", r.seq},
      {"target",
       llvm::json::Object{{"triple", r.target.triple},
                          {"cpu", r.target.cpu},
                          {"threads", static_cast<int64_t>(r.target.threads)},
                          {"l1_bytes", r.target.l1Bytes},
                          {"l2_bytes", r.target.l2Bytes},
                          {"peak_flops", r.peakFlops},
                          {"memory_bandwidth", r.bandwidth}}},
      {"kernels", std::move(kernels)},
      {"gpu", r.gpu ? gpuJson(r) : llvm::json::Value(nullptr)},
      {"total", llvm::json::Object{{"flops", total.opWork},
                                   {"mul_add_flops", total.multiplyAdds},
                                   {"min_bytes", bytes},
                                   {"roofline_seconds", seconds}}},
  };
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
}

} // namespace tfm
