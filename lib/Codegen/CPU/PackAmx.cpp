//===- PackAmx.cpp - bf16 contractions in AMX form ------------------------===//
//
// -tfm-pack-amx: with bf16 precision on a CPU with AMX-BF16, a contraction
// that reads a rank-2 weight W becomes a bf16 x bf16 -> f32 contraction on
// its activations converted to bf16 once and on a copy of W in the VNNI
// layout of AMX's B tiles, made once per model instance (`tfm.prepare`).
// The two contractions of a tiled attention's key block (S = Q K^T and
// acc += P V) take the same form, their K and V blocks packed in the loop.
// -tfm-cpu-lower-amx turns it into tile loads and tdpbf16ps. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Contraction.h"
#include "tfm/Codegen/CPU/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmDialect.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Builders.h"

#include "llvm/ADT/StringMap.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_PACKAMXPASS
#include "tfm/Codegen/CPU/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// A contraction `C[.., n] += A[.., k] * W[k, n] (or W[n, k])` that AMX can
/// take.
struct Candidate {
  // The weight, or the block of it, read; none for an attention block.
  std::optional<WeightBlock> block;
  unsigned operand;  // input number of the weight (or K / V block)
  unsigned nDim;     // which dimension of W is N (1: W[k, n], 0: W[n, k])
  int64_t k, n;      // K and N (static)
  int64_t packedN;   // the first columns, a multiple of 32: on AMX
};

std::optional<Candidate> match(linalg::LinalgOp op,
                               const llvm::StringMap<bool> &rounded) {
  if (!op.hasPureTensorSemantics() || op.getNumDpsInputs() != 2 ||
      op.getNumDpsInits() != 1 || op.hasIndexSemantics() ||
      !linalg::isaContractionOpInterface(op))
    return std::nullopt;
  for (Value v : op->getOperands())
    if (!getElementTypeOrSelf(v.getType()).isF32())
      return std::nullopt;
  unsigned numLoops = op.getNumLoops();
  AffineMap outMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  auto outType =
      cast<RankedTensorType>(op.getDpsInitOperand(0)->get().getType());
  // C[d0, .., d(r-2), n]: rows d0.. (all parallel), n the last loop-free
  // dimension; one k loop besides.
  if (outType.getRank() < 2 || numLoops != unsigned(outType.getRank()) + 1 ||
      !outMap.isProjectedPermutation() ||
      ShapedType::isDynamic(outType.getShape().back()))
    return std::nullopt;
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  unsigned n = outMap.getDimPosition(outMap.getNumResults() - 1);
  std::optional<unsigned> k;
  for (unsigned d = 0; d < numLoops; ++d) {
    if (outMap.isFunctionOfDim(d)) {
      if (iterators[d] != utils::IteratorType::parallel)
        return std::nullopt;
    } else if (iterators[d] == utils::IteratorType::reduction) {
      k = d;
    }
  }
  if (!k)
    return std::nullopt;
  for (unsigned i = 0; i < 2; ++i) {
    Value input = op.getDpsInputOperand(i)->get();
    std::optional<WeightBlock> block = weightBlockOf(input);
    if (!block || !rounded.count(block->weight.getName()))
      continue;
    auto type = cast<RankedTensorType>(input.getType());
    Candidate c;
    c.block = *block;
    c.operand = i;
    AffineMap map = op.getMatchingIndexingMap(op.getDpsInputOperand(i));
    if (!map.isProjectedPermutation() || map.getNumResults() != 2)
      continue;
    c.nDim = map.getDimPosition(0) == n ? 0 : 1;
    if (map.getDimPosition(c.nDim) != n || map.getDimPosition(1 - c.nDim) != *k)
      continue;
    // A[rows.., k]: the output's rows, in order, then k.
    AffineMap aMap = op.getMatchingIndexingMap(op.getDpsInputOperand(1 - i));
    SmallVector<AffineExpr> rows(outMap.getResults().drop_back());
    rows.push_back(getAffineDimExpr(*k, op->getContext()));
    if (aMap.getResults() != ArrayRef<AffineExpr>(rows))
      continue;
    c.k = type.getDimSize(1 - c.nDim);
    c.n = type.getDimSize(c.nDim);
    c.packedN = c.n - c.n % 32;
    // K in whole steps of 32 (a tile's row of bf16 pairs); fewer than 32
    // columns are not worth a kernel.
    if (c.k % 32 != 0 || c.packedN == 0)
      continue;
    return c;
  }
  return std::nullopt;
}

/// A contraction of the key loop of a tiled attention (-tfm-tile-sram):
/// `S = Q K^T` ([M, D] x [Bc, D]^T) or `acc += P V` ([M, Bc] x [Bc, Dv]),
/// f32 and static, its second input (the K or V block) taking the place of
/// the weight.
std::optional<Candidate> matchAttention(linalg::LinalgOp op) {
  if (!isa<linalg::MatmulOp>(op) || !op.hasPureTensorSemantics())
    return std::nullopt;
  bool inKeyLoop = false;
  for (Operation *p = op->getParentOp(); p && !inKeyLoop; p = p->getParentOp())
    inKeyLoop = isa_and_nonnull<KeyBlocksAttr>(p->getAttr(kKeyBlocksAttr));
  if (!inKeyLoop)
    return std::nullopt;
  for (Value v : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(v.getType());
    if (!type || type.getRank() != 2 || !type.hasStaticShape() ||
        !type.getElementType().isF32())
      return std::nullopt;
  }
  // Loops (m, n, k): A[m, k], and B[n, k] (K^T) or B[k, n] (V).
  MLIRContext *ctx = op->getContext();
  AffineExpr m = getAffineDimExpr(0, ctx), n = getAffineDimExpr(1, ctx),
             k = getAffineDimExpr(2, ctx);
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  auto is = [&](AffineMap map, ArrayRef<AffineExpr> e) {
    return map == AffineMap::get(3, 0, e, ctx);
  };
  if (!is(maps[0], {m, k}) || !is(maps[2], {m, n}))
    return std::nullopt;
  Candidate c;
  c.operand = 1;
  if (is(maps[1], {n, k}))
    c.nDim = 0;
  else if (is(maps[1], {k, n}))
    c.nDim = 1;
  else
    return std::nullopt;
  auto bType =
      cast<RankedTensorType>(op.getDpsInputOperand(1)->get().getType());
  c.k = bType.getDimSize(1 - c.nDim);
  c.n = bType.getDimSize(c.nDim);
  c.packedN = c.n - c.n % 32;
  if (c.k % 32 != 0 || c.packedN == 0)
    return std::nullopt;
  // A query tile of fewer than 32 rows (a decode step's one query per
  // sequence) would run its few rows through the AMX form's last-row
  // kernels after packing every K and V block all the same: the f32
  // kernels do less work there.
  auto aType =
      cast<RankedTensorType>(op.getDpsInputOperand(0)->get().getType());
  if (aType.getDimSize(0) < 32)
    return std::nullopt;
  return c;
}

struct PackAmxPass : tfm::impl::PackAmxPassBase<PackAmxPass> {
  using Base::Base;
  PackAmxPass(const PackAmxPass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto precision = module->getAttrOfType<TypeAttr>(kPrecisionAttr);
    CpuTargetAttr target = getCpuTarget(module);
    // AMX tiles, or else AVX512-BF16's vector dot products (the same
    // packed layout, attention's key blocks too).
    if (!precision || !precision.getValue().isBF16() || !target ||
        !target.hasBf16Products())
      return;
    tiles = target.hasAmxBf16();
    llvm::StringMap<bool> rounded;
    bool changed = false;
    if (auto names = module->getAttrOfType<ArrayAttr>(kRoundedWeightsAttr))
      for (auto name : names.getAsRange<StringAttr>())
        rounded[name.getValue()] = true;
    module.walk([&](func::FuncOp f) {
      if (!f.isExternal())
        changed |= runOnFunction(f, rounded);
    });
    if (!changed)
      return;
    // The runtime checks the CPU for AMX (and asks the kernel for the tile
    // state) or AVX512-BF16 before it runs the library (docs/c-abi.md).
    // With tiles on a target that also has AVX512-BF16, a block's few last
    // rows may run on its dot products (-tfm-cpu-configure's
    // tail_dot_rows): such a library needs both.
    Builder b(&getContext());
    SmallVector<StringRef> features;
    if (auto list = module->getAttrOfType<ArrayAttr>(kCpuFeaturesAttr))
      for (auto f : list.getAsRange<StringAttr>())
        features.push_back(f.getValue());
    SmallVector<StringRef, 2> needed;
    if (tiles)
      needed.push_back("amx-bf16");
    if (target.hasAvx512Bf16())
      needed.push_back("avx512bf16");
    for (StringRef f : needed)
      if (!llvm::is_contained(features, f))
        features.push_back(f);
    module->setAttr(kCpuFeaturesAttr, b.getStrArrayAttr(features));
  }

private:
  bool runOnFunction(func::FuncOp func, const llvm::StringMap<bool> &rounded);
  Value packed(OpBuilder &b, func::FuncOp func, linalg::LinalgOp op,
               Candidate c);
  Value toBF16(OpBuilder &b, Value a);
  /// AMX tiles (or AVX512-BF16 dot products).
  bool tiles = true;
  Value bf16Block(OpBuilder &b, linalg::LinalgOp op, Value w);

  llvm::StringMap<Value> packs;
  DenseMap<Value, Value> converted;

  tfm::PassStatistic contractions{this, numAmxContractions, "amx-contractions",
                                  "Contractions put in AMX form"};
  tfm::PassStatistic layouts{this, numAmxWeights, "amx-weights",
                             "VNNI-packed bf16 weight layouts made"};
  tfm::PassStatistic attention{
      this, numAmxAttention, "amx-attention",
      "Attention key-block contractions put in AMX form"};
};

/// Wp[nb, kp, r, t] = bf16(W[2kp + t, 16nb + r]) (or W[16nb + r, 2kp + t])
/// for `w` [K, N] (`nDim` 1) or [N, K] (`nDim` 0), N a multiple of 32.
linalg::GenericOp vnniPack(OpBuilder &b, Location loc, Value w, unsigned nDim,
                           int64_t k, int64_t n) {
  Type f32 = b.getF32Type(), bf16 = b.getBF16Type();
  int64_t nb = n / 16, kp = k / 2;
  // W as rank 4: [K/2, 2, N/16, 16] or [N/16, 16, K/2, 2].
  SmallVector<int64_t> shape4 = nDim == 1 ? SmallVector<int64_t>{kp, 2, nb, 16}
                                          : SmallVector<int64_t>{nb, 16, kp, 2};
  Value w4 = tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape4, f32), w,
      SmallVector<ReassociationIndices>{{0, 1}, {2, 3}});
  Value init =
      tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{nb, kp, 16, 2}, bf16);
  MLIRContext *ctx = b.getContext();
  AffineExpr dnb = getAffineDimExpr(0, ctx), dkp = getAffineDimExpr(1, ctx),
             dr = getAffineDimExpr(2, ctx), dt = getAffineDimExpr(3, ctx);
  AffineMap in = nDim == 1 ? AffineMap::get(4, 0, {dkp, dt, dnb, dr}, ctx)
                           : AffineMap::get(4, 0, {dnb, dr, dkp, dt}, ctx);
  return linalg::GenericOp::create(
      b, loc, init.getType(), ValueRange{w4}, ValueRange{init},
      ArrayRef<AffineMap>{in, b.getMultiDimIdentityMap(4)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        linalg::YieldOp::create(
            nb, l, ValueRange{arith::TruncFOp::create(nb, l, bf16, args[0])});
      });
}

/// Transposes the 16 x 16 matrix whose rows are the 16-lane vectors `m`,
/// in place, by Eklundh's exchange of off-diagonal blocks: for h = 8, 4,
/// 2, 1, rows i and i + h (i without bit h) swap the upper-right and
/// lower-left h-blocks, each new row one two-source shuffle (64 in all).
void transpose16x16(OpBuilder &b, Location loc, SmallVectorImpl<Value> &m) {
  for (int64_t h = 8; h >= 1; h /= 2) {
    SmallVector<int64_t> top, bottom;
    for (int64_t c = 0; c < 16; ++c) {
      top.push_back((c & h) ? 16 + c - h : c);
      bottom.push_back((c & h) ? 16 + c : c + h);
    }
    for (int64_t i = 0; i < 16; ++i) {
      if (i & h)
        continue;
      Value x = m[i], y = m[i + h];
      m[i] = vector::ShuffleOp::create(b, loc, x, y, top);
      m[i + h] = vector::ShuffleOp::create(b, loc, x, y, bottom);
    }
  }
}

/// The same layout as vnniPack for a key block already in bf16, copied
/// with vector ops where the linalg form would be vectorized along its
/// 2-wide last dimension: `w` [N, K] (K, `nDim` 0) by 16 x 16 transposes
/// of bf16 pairs (32-bit lanes), `w` [K, N] (V, `nDim` 1) by interleaving
/// rows 2kp and 2kp + 1. N a multiple of 16, K of 32. The rows are read
/// from memory as bf16: shuffles that LLVM cannot fold a conversion into
/// (it scalarized shuffle(fptrunc(x)) into single-lane conversions).
Value vnniPackBlock(OpBuilder &b, Location loc, Value w, unsigned nDim,
                    int64_t k, int64_t n) {
  Type bf16 = b.getBF16Type(), i32 = b.getI32Type();
  // Written as [N/16, K/2, 32] (one 1-D vector per tile row: a [16, 2]
  // vector write is unrolled into 16 writes of 2 lanes), seen as
  // [N/16, K/2, 16, 2] at the end.
  Value init = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{n / 16, k / 2, 32}, bf16);
  auto finish = [&](Value v) -> Value {
    return tensor::ExpandShapeOp::create(
        b, loc, RankedTensorType::get({n / 16, k / 2, 16, 2}, bf16), v,
        SmallVector<ReassociationIndices>{{0}, {1}, {2, 3}});
  };
  auto idx = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(bf16));
  auto row = [&](Value src, Value r, Value c, int64_t len) -> Value {
    return vector::TransferReadOp::create(b, loc, VectorType::get({len}, bf16),
                                          src, ValueRange{r, c}, pad,
                                          ArrayRef<bool>{true});
  };
  auto write = [&](Value v32, Value dest, ValueRange at) -> Value {
    SmallVector<Value> indices(at);
    indices.push_back(idx(0));
    return vector::TransferWriteOp::create(b, loc, v32, dest, indices,
                                           ArrayRef<bool>{true})
        .getResult();
  };
  if (nDim == 0) {
    // Tile row kp of block nb holds the 16 keys 16nb.. of the pair kp:
    // the 32-bit transpose of 16 rows of bf16 pairs.
    // One loop over the 16 x 16 blocks (unrolled, large heads made
    // compilation slow: 22 s for D = 128).
    int64_t groups = k / 32;
    auto loop = scf::ForOp::create(
        b, loc, idx(0), idx(n / 16 * groups), idx(1), ValueRange{init},
        [&](OpBuilder &, Location, Value i, ValueRange iter) {
          Value nb = arith::DivUIOp::create(b, loc, i, idx(groups));
          Value g = arith::RemUIOp::create(b, loc, i, idx(groups));
          Value r0 = arith::MulIOp::create(b, loc, nb, idx(16));
          Value c0 = arith::MulIOp::create(b, loc, g, idx(32));
          Value p0 = arith::MulIOp::create(b, loc, g, idx(16));
          SmallVector<Value> m;
          for (int64_t r = 0; r < 16; ++r)
            m.push_back(vector::BitCastOp::create(
                b, loc, VectorType::get({16}, i32),
                row(w, arith::AddIOp::create(b, loc, r0, idx(r)), c0, 32)));
          transpose16x16(b, loc, m);
          Value dest = iter[0];
          for (int64_t p = 0; p < 16; ++p) {
            Value x = vector::BitCastOp::create(
                b, loc, VectorType::get({32}, bf16), m[p]);
            dest =
                write(x, dest, {nb, arith::AddIOp::create(b, loc, p0, idx(p))});
          }
          scf::YieldOp::create(b, loc, dest);
        });
    Value dest = loop.getResult(0);
    return finish(dest);
  }
  // Tile row kp of block nb holds columns 16nb.. of rows 2kp and 2kp + 1,
  // interleaved.
  SmallVector<int64_t> interleave;
  for (int64_t i = 0; i < 16; ++i)
    interleave.append({i, 16 + i});
  auto loop = scf::ForOp::create(
      b, loc, idx(0), idx(k / 2), idx(1), ValueRange{init},
      [&](OpBuilder &, Location, Value kp, ValueRange iter) {
        Value dest = iter[0];
        Value r0 = arith::MulIOp::create(b, loc, kp, idx(2));
        Value r1 = arith::AddIOp::create(b, loc, r0, idx(1));
        for (int64_t nb = 0; nb < n / 16; ++nb) {
          // Shuffled as i16: LLVM scalarizes some bf16 shuffles.
          auto i16x16 = VectorType::get({16}, b.getI16Type());
          Value x = vector::BitCastOp::create(b, loc, i16x16,
                                              row(w, r0, idx(16 * nb), 16)),
                y = vector::BitCastOp::create(b, loc, i16x16,
                                              row(w, r1, idx(16 * nb), 16));
          Value z = vector::ShuffleOp::create(b, loc, x, y, interleave);
          z = vector::BitCastOp::create(b, loc, VectorType::get({32}, bf16), z);
          dest = write(z, dest, {idx(nb), kp});
        }
        scf::YieldOp::create(b, loc, dest);
      });
  return finish(loop.getResult(0));
}

/// The VNNI layout of candidate `c`'s weight input: for a weight, one
/// linalg.generic per weight name and layout at the start of the function,
/// marked `tfm.prepare`; for an attention block, a copy made where `op`
/// reads the block (once per key block).
Value PackAmxPass::packed(OpBuilder &b, func::FuncOp func, linalg::LinalgOp op,
                          Candidate c) {
  if (!c.block) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPoint(op);
    Value w = bf16Block(b, op, op.getDpsInputOperand(c.operand)->get());
    if (c.packedN != c.n)
      w = sliceN(b, op.getLoc(), w, c.nDim, 0, c.packedN);
    return vnniPackBlock(b, op.getLoc(), w, c.nDim, c.k, c.packedN);
  }
  std::string name = (c.block->weight.getName() + c.block->suffix() +
                      ":amx[n=" + Twine(c.nDim) + "]")
                         .str();
  if (Value v = packs.lookup(name))
    return v;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToStart(&func.front());
  Location loc = NameLoc::get(b.getStringAttr(name), c.block->weight.getLoc());
  // The block read, its first packedN columns.
  Value w = c.block->read(b, loc, c.nDim, c.packedN);
  linalg::GenericOp copy = vnniPack(b, loc, w, c.nDim, c.k, c.packedN);
  copy->setAttr(abi::kPrepareAttr, b.getStringAttr(name));
  ++layouts;
  packs[name] = copy.getResult(0);
  return copy.getResult(0);
}

/// `a` (f32) converted to bf16 by an elementwise op at the builder's
/// insertion point.
Value truncToBF16(OpBuilder &b, Location loc, Value a) {
  auto type = cast<RankedTensorType>(a.getType());
  Type bf16 = b.getBF16Type();
  Value init =
      tensor::EmptyOp::create(b, loc, tensor::getMixedSizes(b, loc, a), bf16);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  return linalg::GenericOp::create(
             b, loc, init.getType(), ValueRange{a}, ValueRange{init},
             ArrayRef<AffineMap>{id, id},
             SmallVector<utils::IteratorType>(type.getRank(),
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l,
                   ValueRange{arith::TruncFOp::create(nb, l, bf16, args[0])});
             })
      .getResult(0);
}

/// `a` ([.., K] f32) in bf16, once per value.
Value PackAmxPass::toBF16(OpBuilder &b, Value a) {
  Value &v = converted[a];
  if (v)
    return v;
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointAfterValue(a);
  v = truncToBF16(b, a.getLoc(), a);
  return v;
}

/// Whether `op` rounds its one input through bf16 (-tfm-apply-precision's
/// `extf(truncf(x))`, elementwise).
bool isBf16Rounding(linalg::GenericOp op) {
  if (!op || op.getNumDpsInputs() != 1 || op.getNumDpsInits() != 1 ||
      op.getNumReductionLoops() != 0 ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap m) { return m.isIdentity(); }))
    return false;
  auto yield = cast<linalg::YieldOp>(op.getBody()->getTerminator());
  auto ext = yield.getOperand(0).getDefiningOp<arith::ExtFOp>();
  auto trunc = ext ? ext.getIn().getDefiningOp<arith::TruncFOp>() : nullptr;
  return trunc && trunc.getType().isBF16() &&
         trunc.getIn() == op.getBody()->getArgument(0);
}

/// The key block `w` (f32, rounded to bf16) that `op` reads, in bf16. A
/// whole block that is a slice of a K or V tensor from outside the
/// attention's loops is a slice of that tensor converted once (not once
/// per query block: 24% of the time at D = 128, T = 2048); a short block
/// (copied into a zeroed buffer) is converted where it is.
Value PackAmxPass::bf16Block(OpBuilder &b, linalg::LinalgOp op, Value w) {
  Location loc = op.getLoc();
  Type bf16 = b.getBF16Type();
  auto round = w.getDefiningOp<linalg::GenericOp>();
  auto slice = isBf16Rounding(round)
                   ? round.getDpsInputOperand(0)
                         ->get()
                         .getDefiningOp<tensor::ExtractSliceOp>()
                   : tensor::ExtractSliceOp();
  auto forall = op->getParentOfType<scf::ForallOp>();
  if (slice && forall) {
    Value full = slice.getSource();
    Operation *owner = full.getParentBlock()->getParentOp();
    if (!forall->isAncestor(owner) &&
        cast<RankedTensorType>(full.getType()).getElementType().isF32()) {
      Value fullBf = toBF16(b, full);
      auto type = RankedTensorType::get(slice.getType().getShape(), bf16);
      return tensor::ExtractSliceOp::create(
          b, loc, type, fullBf, slice.getMixedOffsets(), slice.getMixedSizes(),
          slice.getMixedStrides());
    }
  }
  return truncToBF16(b, loc, w);
}

/// `v`'s last dimension split into [size / inner, inner] (the other
/// dimensions, dynamic or not, stay: one dynamic size per group).
Value splitLast(OpBuilder &b, Location loc, Value v, int64_t inner) {
  auto type = cast<RankedTensorType>(v.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape().drop_back());
  shape.append({type.getShape().back() / inner, inner});
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, v);
  sizes.back() = b.getIndexAttr(type.getShape().back() / inner);
  sizes.push_back(b.getIndexAttr(inner));
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 1 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 1, rank});
  return tensor::ExpandShapeOp::create(
      b, loc, RankedTensorType::get(shape, type.getElementType()), v, groups,
      sizes);
}

/// The inverse of splitLast.
Value joinLast(OpBuilder &b, Location loc, Value v) {
  int64_t rank = cast<RankedTensorType>(v.getType()).getRank();
  SmallVector<ReassociationIndices> groups;
  for (int64_t d = 0; d + 2 < rank; ++d)
    groups.push_back({d});
  groups.push_back({rank - 2, rank - 1});
  return tensor::CollapseShapeOp::create(b, loc, v, groups);
}

bool PackAmxPass::runOnFunction(func::FuncOp func,
                                const llvm::StringMap<bool> &rounded) {
  packs.clear();
  converted.clear();
  SmallVector<std::pair<linalg::LinalgOp, Candidate>> work;
  func.walk([&](linalg::LinalgOp op) {
    if (std::optional<Candidate> c = match(op, rounded))
      work.push_back({op, *c});
    else if (std::optional<Candidate> c = matchAttention(op))
      work.push_back({op, *c});
  });
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  for (auto &[op, c] : work) {
    Value wp = packed(b, func, op, c);
    Location loc = op.getLoc();
    b.setInsertionPoint(op);
    Value a = op.getDpsInputOperand(1 - c.operand)->get();
    Value init = op.getDpsInitOperand(0)->get();
    auto initType = cast<RankedTensorType>(init.getType());
    int64_t rank = initType.getRank();

    // A as bf16 [rows.., K/2, 2]; C as [rows.., N/16, 16] (its first
    // packedN columns). The rows stay as they are: -tfm-cpu-lower-amx
    // flattens them on buffers (MLIR 22's expand-strided-metadata crashes
    // on a memref.expand_shape with two dynamic sizes in one group, which
    // flattening them here would need to undo).
    Value a3 = splitLast(b, loc, toBF16(b, a), 2);
    Value cp =
        c.packedN == c.n ? init : sliceN(b, loc, init, rank - 1, 0, c.packedN);
    Value c3 = splitLast(b, loc, cp, 16);

    auto d = [&](int64_t i) { return getAffineDimExpr(i, ctx); };
    int64_t r = rank - 1, numLoops = r + 4;
    SmallVector<AffineExpr> aExprs, cExprs;
    for (int64_t i = 0; i < r; ++i) {
      aExprs.push_back(d(i));
      cExprs.push_back(d(i));
    }
    aExprs.append({d(r + 1), d(r + 3)});
    cExprs.append({d(r), d(r + 2)});
    SmallVector<AffineMap> maps{
        AffineMap::get(numLoops, 0, aExprs, ctx),
        AffineMap::get(numLoops, 0, {d(r), d(r + 1), d(r + 2), d(r + 3)}, ctx),
        AffineMap::get(numLoops, 0, cExprs, ctx)};
    using utils::IteratorType;
    SmallVector<IteratorType> iterators(r, IteratorType::parallel);
    iterators.append({IteratorType::parallel, IteratorType::reduction,
                      IteratorType::parallel, IteratorType::reduction});
    auto gemm = linalg::GenericOp::create(
        b, loc, c3.getType(), ValueRange{a3, wp}, ValueRange{c3}, maps,
        iterators, [&](OpBuilder &nb, Location l, ValueRange args) {
          Type f32 = nb.getF32Type();
          Value x = arith::ExtFOp::create(nb, l, f32, args[0]);
          Value y = arith::ExtFOp::create(nb, l, f32, args[1]);
          Value p = arith::MulFOp::create(nb, l, x, y);
          linalg::YieldOp::create(
              nb, l, ValueRange{arith::AddFOp::create(nb, l, args[2], p)});
        });
    Value result = joinLast(b, loc, gemm.getResult(0));
    if (c.packedN != c.n)
      result = insertN(b, loc, result, init, 0);
    if (c.packedN != c.n) {
      // The last (fewer than 32) columns: the op itself, in f32, on a slice
      // of the weight as the runtime bound it (rounded to bf16).
      result = remainderColumns(b, op, c.operand, c.nDim, c.packedN, result);
    }
    op->getResult(0).replaceAllUsesWith(result);
    op->erase();
    ++(c.block ? contractions : attention);
  }
  func.walk([](WeightOp w) {
    if (w->use_empty())
      w->erase();
  });
  return !work.empty();
}

} // namespace
