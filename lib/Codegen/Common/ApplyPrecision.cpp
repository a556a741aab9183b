//===- ApplyPrecision.cpp - 16-bit GEMM and attention inputs --------------===//
//
// -tfm-apply-precision: with a bf16 or f16 precision, every input of every
// contraction is rounded to it (weights once, by the runtime, when a model
// instance is created; activations where they are computed), while all
// arithmetic stays f32. On a GPU target the weights that only contractions
// and lookups read are also stored in 16 bits. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "tfm/Codegen/Common/Contraction.h"
#include "tfm/Codegen/Common/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Transforms/PassStatistics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringMap.h"

namespace mlir::tfm {
#define GEN_PASS_DEF_APPLYPRECISIONPASS
#include "tfm/Codegen/Common/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

/// The tensor views a weight is read through (operand 0 is the source).
bool isView(Operation *op) {
  return isa<tensor::ExtractSliceOp, tensor::ExpandShapeOp,
             tensor::CollapseShapeOp, tensor::CastOp>(op);
}

/// Where the rounding of `v` for `user` goes: after `v`, or, when `user`
/// sits in a branch of an scf.if (or of several nested ones) below `v`, at
/// the start of that branch, so that a branch not taken rounds nothing
/// (the untiled side of a tiled attention's runtime branch would otherwise
/// round a whole KV cache at every step). Loops keep it outside: it runs
/// once, not per iteration.
OpBuilder::InsertPoint roundingPoint(Value v, Operation *user) {
  OpBuilder b(v.getContext());
  b.setInsertionPointAfterValue(v);
  Region *region = v.getParentRegion();
  while (Operation *ancestor = region->findAncestorOpInRegion(*user)) {
    auto ifOp = dyn_cast<scf::IfOp>(ancestor);
    if (!ifOp || ancestor == user)
      break;
    region = ifOp.getThenRegion().isAncestor(user->getParentRegion())
                 ? &ifOp.getThenRegion()
                 : &ifOp.getElseRegion();
    b.setInsertionPointToStart(&region->front());
  }
  return b.saveInsertionPoint();
}

/// The tfm.weight `v` reads, looking through views and casts; null if
/// none.
WeightOp weightBehind(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto w = dyn_cast<WeightOp>(def))
      return w;
    if (isView(def)) {
      v = def->getOperand(0);
      continue;
    }
    return {};
  }
  return {};
}

struct ApplyPrecisionPass
    : tfm::impl::ApplyPrecisionPassBase<ApplyPrecisionPass> {
  using Base::Base;
  ApplyPrecisionPass(const ApplyPrecisionPass &other) : Base(other) {}

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FloatType type;
    if (auto stated = module->getAttrOfType<TypeAttr>(kPrecisionAttr)) {
      type = dyn_cast<FloatType>(stated.getValue());
    } else if (!precision.empty() && precision != "f32") {
      type = dyn_cast_or_null<FloatType>(
          getPrecisionType(&getContext(), precision));
      if (!type) {
        module.emitError("-tfm-apply-precision: precision '")
            << precision << "' is not f32, bf16 or f16";
        return signalPassFailure();
      }
      module->setAttr(kPrecisionAttr, TypeAttr::get(type));
    }
    if (!type || type.isF32())
      return;
    if (!type.isBF16() && !type.isF16()) {
      module.emitError("-tfm-apply-precision: the module's ")
          << kPrecisionAttr << " is " << type << ", not bf16 or f16";
      return signalPassFailure();
    }

    roundings.clear();
    SmallVector<linalg::LinalgOp> contractions;
    module.walk([&](linalg::LinalgOp op) {
      if (classifyContraction(op) || readsPrecisionAndF32(op, type))
        contractions.push_back(op);
    });
    IRRewriter rw(&getContext());
    llvm::StringMap<bool> roundedNames;
    // A second run keeps the first one's names: the contractions that read
    // a weight it stored in 16 bits are no longer f32 contractions.
    if (auto names = module->getAttrOfType<ArrayAttr>(kRoundedWeightsAttr))
      for (auto name : names.getAsRange<StringAttr>())
        roundedNames[name.getValue()] = true;
    // One rounding per value and block it is placed in.
    DenseMap<std::pair<Value, Block *>, Value> rounded;
    for (linalg::LinalgOp op : contractions) {
      for (OpOperand *input : op.getDpsInputOperands()) {
        // Already in the precision (a 16-bit KV cache's keys or values).
        if (!getElementTypeOrSelf(input->get().getType()).isF32())
          continue;
        if (WeightOp w = weightBehind(input->get())) {
          roundedNames[w.getName()] = true;
          continue;
        }
        OpBuilder::InsertPoint at = roundingPoint(input->get(), op);
        Value &r = rounded[{input->get(), at.getBlock()}];
        if (!r)
          r = round(rw, input->get(), type, {}, {}, at);
        input->set(r);
      }
    }
    // Attention on tensor cores (#tfm.gpu_flash_attention) reads its Q, K
    // and V in 16 bits: each is stored so once, where it is computed.
    DenseMap<Value, Value> narrowed;
    module.walk([&](AttentionOp op) {
      if (!isa_and_nonnull<GpuFlashAttentionAttr>(
              op->getAttr(kLoweringConfigAttr)))
        return;
      for (OpOperand *input : {&op.getQueryMutable(), &op.getKeyMutable(),
                               &op.getValueMutable()}) {
        if (!getElementTypeOrSelf(input->get().getType()).isF32())
          continue;
        Value &n = narrowed[input->get()];
        if (!n)
          n = narrowCopy(rw, input->get(), type);
        rw.modifyOpInPlace(op, [&] { input->set(n); });
      }
    });
    // The runtime rounds these tensors once, when a model instance is
    // created.
    if (!roundedNames.empty()) {
      SmallVector<StringRef> names;
      for (auto &entry : roundedNames)
        names.push_back(entry.getKey());
      llvm::sort(names);
      Builder b(&getContext());
      module->setAttr(kRoundedWeightsAttr, b.getStrArrayAttr(names));
    }
    weights += roundedNames.size();

    // A GPU reads those weights in 16 bits: half the device memory and
    // half the bytes each GEMM streams. Same values: the runtime rounds
    // them either way, and each read widens them back to f32.
    Attribute target = module->getAttr(kTargetAttr);
    if (isa_and_nonnull<GpuTargetAttr>(target)) {
      narrowWeights(module, rw, roundedNames, type);
      hoistSliceRoundings(rw, type, /*cpu=*/false);
      narrowActivations(rw, type);
    }
    // A CPU whose attention key blocks run the f32 kernels (no AMX or
    // AVX512-BF16 under bf16: -tfm-pack-amx leaves them) rounds each K and
    // V block once, not once per query block.
    if (auto cpu = dyn_cast_or_null<CpuTargetAttr>(target);
        cpu && cpuTileRoundings && !(type.isBF16() && cpu.hasBf16Products()))
      hoistSliceRoundings(rw, type, /*cpu=*/true);
  }

  /// Whether `op` is a contraction with an f32 result whose inputs are f32
  /// or already of the precision `half` (keys or values of a KV cache that
  /// -tfm-narrow-kv-cache stored in it), at least one of each: its f32
  /// inputs are rounded like those of an f32 contraction.
  static bool readsPrecisionAndF32(linalg::LinalgOp op, Type half) {
    if (!op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
        !getElementTypeOrSelf(op.getDpsInits()[0].getType()).isF32() ||
        !inferGemmDims(op))
      return false;
    bool f32 = false, narrow = false;
    for (Value input : op.getDpsInputs()) {
      Type t = getElementTypeOrSelf(input.getType());
      f32 |= t.isF32();
      narrow |= t == half;
      if (!t.isF32() && t != half)
        return false;
    }
    return f32 && narrow;
  }

  /// Whether `v` is computed at a function's top level (or is an argument).
  static bool atTopLevel(Value v) {
    return isa<FunctionOpInterface>(v.getParentRegion()->getParentOp());
  }

  /// Whether a loop around `slice` that runs more than once (not
  /// statically one trip) reads the same slice in each iteration: no
  /// offset or size of it depends on the loop's induction variable (the
  /// query blocks around a K or V block; not a decode step's one query
  /// block).
  static bool readAgainInLoop(tensor::ExtractSliceOp slice) {
    llvm::SmallPtrSet<Value, 16> seen;
    SmallVector<Value> work(slice->operand_begin() + 1, slice->operand_end());
    while (!work.empty()) {
      Value v = work.pop_back_val();
      if (!seen.insert(v).second)
        continue;
      if (Operation *def = v.getDefiningOp())
        work.append(def->operand_begin(), def->operand_end());
    }
    auto moreThanOnce = [](OpFoldResult lb, OpFoldResult ub, OpFoldResult st) {
      std::optional<int64_t> l = getConstantIntValue(lb),
                             u = getConstantIntValue(ub),
                             s = getConstantIntValue(st);
      return !l || !u || !s || *s <= 0 || *u - *l > *s;
    };
    for (Operation *p = slice->getParentOp(); p; p = p->getParentOp()) {
      if (auto loop = dyn_cast<scf::ForOp>(p)) {
        if (!seen.contains(loop.getInductionVar()) &&
            moreThanOnce(loop.getLowerBound(), loop.getUpperBound(),
                         loop.getStep()))
          return true;
      } else if (auto forall = dyn_cast<scf::ForallOp>(p)) {
        for (auto [iv, lb, ub, st] :
             llvm::zip(forall.getInductionVars(), forall.getMixedLowerBound(),
                       forall.getMixedUpperBound(), forall.getMixedStep()))
          if (!seen.contains(iv) && moreThanOnce(lb, ub, st))
            return true;
      }
    }
    return false;
  }

  /// Whether `v` is (a reshape of) a slice of a larger tensor or a tensor
  /// with a slice inserted: a KV cache, read up to each sequence's length
  /// but sized for the longest context, whose rounding at top level would
  /// round all of it at every step.
  static bool isCacheView(Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (isa<tensor::ExtractSliceOp, tensor::InsertSliceOp>(def))
        return true;
      if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp, tensor::CastOp>(
              def))
        return false;
      v = def->getOperand(0);
    }
    return false;
  }

  /// Moves the rounding of each tile that a loop nest builds from a slice
  /// of a top-level tensor X to X itself: X is rounded once, at top level,
  /// and the tile reads the rounded X. The tile is the slice (a full K or V
  /// block), the slice padded into a staging tile (a short block), or an
  /// elementwise function of the slice padded into a tile (the Q tile,
  /// scaled): the function then moves to top level too, before the
  /// rounding, so each tile holds the numbers it held before.
  /// On a GPU (`cpu` false) every such tile moves, so that
  /// narrowActivations can store X in 16 bits, and the in-loop rounding
  /// stays (it rounds rounded values; canonicalization folds it to a
  /// widening). On a CPU, X stays f32: only a tile read again in some loop
  /// around it moves (readAgainInLoop: a K or V block once per query
  /// block), not one of a KV cache (isCacheView), and its in-loop rounding
  /// goes.
  void hoistSliceRoundings(IRRewriter &rw, FloatType half, bool cpu) {
    // Top-level tensor (or elementwise function of one) -> its rounding.
    DenseMap<std::pair<Value, Operation *>, Value> hoisted;
    auto roundedSource = [&](Value source, linalg::GenericOp fn) {
      Value &r = hoisted[{source, fn.getOperation()}];
      if (r)
        return r;
      // The heads' transpose of a projection becomes the indexing: one
      // kernel reads the f32 projection and writes 16-bit heads.
      Value input = source;
      AffineMap map;
      if (auto transpose = source.getDefiningOp<linalg::TransposeOp>()) {
        input = transpose.getInput();
        map = AffineMap::getPermutationMap(
            invertPermutationVector(transpose.getPermutation()),
            rw.getContext());
      }
      if (fn) {
        input = applyAtTopLevel(rw, fn, input, map, source);
        map = {};
        source = input;
      }
      r = round(rw, input, half, map, source);
      return r;
    };
    for (linalg::GenericOp rounding :
         SmallVector<linalg::GenericOp>(roundings)) {
      // Only a tile's rounding in a loop nest moves: one at the top level,
      // or at the start of an scf.if branch (the untiled side of a tiled
      // attention's runtime branch), already runs once per call.
      if (!rounding->getParentOfType<LoopLikeOpInterface>())
        continue;
      // The tile's chain: reshapes, then an optional padding.
      Value in = rounding.getDpsInputs()[0];
      while (Operation *def = in.getDefiningOp()) {
        if (!isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(def))
          break;
        in = def->getOperand(0);
      }
      auto pad = in.getDefiningOp<tensor::InsertSliceOp>();
      Value tile = pad ? pad.getSource() : in;
      auto fn = tile.getDefiningOp<linalg::GenericOp>();
      if (fn && !(pad && isHoistableFunction(fn)))
        continue;
      auto slice = (fn ? fn.getDpsInputs()[0] : tile)
                       .getDefiningOp<tensor::ExtractSliceOp>();
      if (!slice || !atTopLevel(slice.getSource()) ||
          (pad && !slice->hasOneUse()) ||
          (cpu && (!readAgainInLoop(slice) || isCacheView(slice.getSource()))))
        continue;
      Value source = roundedSource(slice.getSource(), fn);
      ++hoistedTiles;
      // On a CPU the tile now holds rounded values: the in-loop rounding
      // goes.
      auto dropInLoop = [&] {
        Value input = rounding.getDpsInputs()[0];
        if (!cpu || input.getType() != rounding.getResult(0).getType())
          return;
        rw.replaceAllUsesWith(rounding.getResult(0), input);
        llvm::erase(roundings, rounding);
        rw.eraseOp(rounding);
      };
      if (!pad) {
        rw.modifyOpInPlace(slice,
                           [&] { slice.getSourceMutable().assign(source); });
        dropInLoop();
        continue;
      }
      // The padding (or the function) becomes a copy: a generic, which
      // can widen a 16-bit source, into the tile's slice.
      rw.setInsertionPoint(pad);
      Location loc = pad.getLoc();
      auto copySource = tensor::ExtractSliceOp::create(
          rw, loc, slice.getType(), source, slice.getMixedOffsets(),
          slice.getMixedSizes(), slice.getMixedStrides());
      Value target = fn ? fn.getDpsInits()[0]
                        : tensor::ExtractSliceOp::create(
                              rw, loc, pad.getSourceType(), pad.getDest(),
                              pad.getMixedOffsets(), pad.getMixedSizes(),
                              pad.getMixedStrides())
                              .getResult();
      unsigned rank = pad.getSourceType().getRank();
      AffineMap id = rw.getMultiDimIdentityMap(rank);
      auto copy = linalg::GenericOp::create(
          rw, loc, pad.getSourceType(), ValueRange{copySource},
          ValueRange{target}, ArrayRef<AffineMap>{id, id},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(b, l, args[0]);
          });
      rw.modifyOpInPlace(
          pad, [&] { pad.getSourceMutable().assign(copy.getResult(0)); });
      if (fn)
        rw.eraseOp(fn);
      rw.eraseOp(slice);
      dropInLoop();
    }
  }

  /// Whether `fn` is an elementwise function of one tensor that can move to
  /// top level: identity indexing, one input, its body reading nothing but
  /// that input's element (no index, no output element, no outer value).
  static bool isHoistableFunction(linalg::GenericOp fn) {
    if (fn.getNumDpsInputs() != 1 || fn.getNumDpsInits() != 1 ||
        !fn->hasOneUse() || fn.getNumParallelLoops() != fn.getNumLoops() ||
        !llvm::all_of(fn.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isIdentity(); }) ||
        fn.hasIndexSemantics() || !fn.getRegionOutputArgs()[0].use_empty())
      return false;
    llvm::SetVector<Value> outer;
    getUsedValuesDefinedAbove(fn.getRegion(), outer);
    return outer.empty();
  }

  /// `fn`'s body applied to every element of `input` (read through `map`,
  /// identity if null) into an f32 tensor shaped like `like`, right after
  /// `like`'s definition.
  static Value applyAtTopLevel(IRRewriter &rw, linalg::GenericOp fn,
                               Value input, AffineMap map, Value like) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointAfterValue(like);
    Location loc = fn.getLoc();
    auto type = cast<RankedTensorType>(like.getType());
    Value init = tensor::EmptyOp::create(
        rw, loc, tensor::getMixedSizes(rw, loc, like), type.getElementType());
    AffineMap id = rw.getMultiDimIdentityMap(type.getRank());
    auto top = linalg::GenericOp::create(
        rw, loc, TypeRange{type}, ValueRange{input}, ValueRange{init},
        ArrayRef<AffineMap>{map ? map : id, id},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel));
    IRMapping mapping;
    fn.getRegion().cloneInto(&top.getRegion(), mapping);
    return top.getResult(0);
  }

  /// Gives each rounding of an activation computed at a function's top
  /// level (not inside a tiled attention's loops) whose every reader can
  /// take 16 bits the 16-bit type: it yields the truncation, the readers
  /// widen. The values are the same (widening is exact); the buffer that
  /// holds them is half the size.
  void narrowActivations(IRRewriter &rw, FloatType half) {
    for (linalg::GenericOp rounding : roundings) {
      if (!isa<FunctionOpInterface>(rounding->getParentOp()) ||
          !narrowable(rounding.getResult(0)))
        continue;
      auto wideType = cast<RankedTensorType>(rounding.getResult(0).getType());
      rw.setInsertionPoint(rounding);
      Location loc = rounding.getLoc();
      Value init = tensor::EmptyOp::create(
          rw, loc, tensor::getMixedSizes(rw, loc, rounding.getDpsInits()[0]),
          half);
      auto narrow = linalg::GenericOp::create(
          rw, loc, wideType.clone(half), rounding.getDpsInputs(),
          ValueRange{init}, rounding.getIndexingMapsArray(),
          rounding.getIteratorTypesArray(),
          [&](OpBuilder &b, Location l, ValueRange args) {
            linalg::YieldOp::create(
                b, l,
                ValueRange{
                    arith::TruncFOp::create(b, l, half, args[0]).getResult()});
          });
      narrowUses(rw, rounding.getResult(0), narrow.getResult(0));
      rw.eraseOp(rounding);
      ++storedActivations;
    }
  }

  /// Whether every use of `v` (a weight or a view of one) can read it in
  /// 16 bits: views, linalg.generic inputs (widened in the body),
  /// tensor.extract (widened after it), tensor.dim.
  static bool narrowable(Value v) {
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (isView(user)) {
        if (use.getOperandNumber() != 0 ||
            !isa<RankedTensorType>(user->getResult(0).getType()) ||
            !narrowable(user->getResult(0)))
          return false;
      } else if (isa<linalg::GenericOp, linalg::MatmulOp,
                     linalg::BatchMatmulOp>(user)) {
        // A named op (the classifier head's linalg.matmul) becomes a
        // generic first (narrowUses).
        if (!cast<linalg::LinalgOp>(user).isDpsInput(&use))
          return false;
      } else if (!isa<tensor::ExtractOp, tensor::DimOp>(user)) {
        return false;
      }
    }
    return true;
  }

  /// Rewrites the uses of `wide` (f32) to read `narrow`, its 16-bit copy.
  static void narrowUses(IRRewriter &rw, Value wide, Value narrow) {
    Type f32 = getElementTypeOrSelf(wide.getType());
    Type half = getElementTypeOrSelf(narrow.getType());
    // Named linalg readers as generics, whose bodies can widen.
    SetVector<Operation *> named;
    for (Operation *user : wide.getUsers())
      if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(user))
        named.insert(user);
    for (Operation *user : named) {
      rw.setInsertionPoint(user);
      (void)linalg::generalizeNamedOp(rw, cast<linalg::LinalgOp>(user));
    }
    for (OpOperand &use : llvm::make_early_inc_range(wide.getUses())) {
      Operation *user = use.getOwner();
      Location loc = user->getLoc();
      if (isView(user)) {
        rw.setInsertionPoint(user);
        IRMapping map;
        map.map(wide, narrow);
        Operation *view = rw.clone(*user, map);
        auto type = cast<RankedTensorType>(user->getResult(0).getType());
        view->getResult(0).setType(type.clone(half));
        narrowUses(rw, user->getResult(0), view->getResult(0));
        rw.eraseOp(user);
      } else if (auto generic = dyn_cast<linalg::GenericOp>(user)) {
        BlockArgument arg = generic.getMatchingBlockArgument(&use);
        rw.modifyOpInPlace(generic, [&] {
          use.set(narrow);
          arg.setType(half);
        });
        rw.setInsertionPointToStart(generic.getBody());
        auto widened = arith::ExtFOp::create(rw, loc, f32, arg);
        rw.replaceAllUsesExcept(arg, widened, widened);
      } else if (auto extract = dyn_cast<tensor::ExtractOp>(user)) {
        rw.setInsertionPoint(extract);
        Value element =
            tensor::ExtractOp::create(rw, loc, narrow, extract.getIndices());
        rw.replaceOpWithNewOp<arith::ExtFOp>(extract, f32, element);
      } else {
        rw.modifyOpInPlace(user, [&] { use.set(narrow); }); // tensor.dim
      }
    }
  }

  /// Gives each rounded weight that every reader can take in 16 bits the
  /// 16-bit type, in every function that reads it (one type per name).
  void narrowWeights(ModuleOp module, IRRewriter &rw,
                     const llvm::StringMap<bool> &names, FloatType half) {
    llvm::MapVector<StringRef, SmallVector<WeightOp>> ops;
    module.walk([&](WeightOp w) {
      if (names.count(w.getName()) && !w.getPrepared())
        ops[w.getName()].push_back(w);
    });
    for (auto &[name, list] : ops) {
      if (!llvm::all_of(list, [](WeightOp w) {
            return getElementTypeOrSelf(w.getType()).isF32() &&
                   narrowable(w.getResult());
          }))
        continue;
      for (WeightOp w : list) {
        rw.setInsertionPoint(w);
        Operation *copy = rw.clone(*w);
        copy->getResult(0).setType(
            cast<RankedTensorType>(w.getType()).clone(half));
        narrowUses(rw, w.getResult(), copy->getResult(0));
        rw.eraseOp(w);
      }
      ++stored;
    }
  }

  /// `v` (f32) rounded to `type` and stored so, right after its definition;
  /// the transpose of the heads (a linalg.transpose) is folded into the
  /// copy's indexing, so that one kernel reads the projection and writes
  /// 16-bit heads.
  Value narrowCopy(IRRewriter &rw, Value v, FloatType type) {
    OpBuilder::InsertionGuard guard(rw);
    rw.setInsertionPointAfterValue(v);
    Location loc = v.getLoc();
    auto tensorType = cast<RankedTensorType>(v.getType());
    AffineMap id = rw.getMultiDimIdentityMap(tensorType.getRank());
    Value input = v;
    AffineMap map = id;
    if (auto transpose = v.getDefiningOp<linalg::TransposeOp>()) {
      input = transpose.getInput();
      map = AffineMap::getPermutationMap(
          invertPermutationVector(transpose.getPermutation()), rw.getContext());
    }
    Value init = tensor::EmptyOp::create(
        rw, loc, tensor::getMixedSizes(rw, loc, v), type);
    SmallVector<utils::IteratorType> parallel(tensorType.getRank(),
                                              utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rw, loc, tensorType.clone(type), ValueRange{input}, ValueRange{init},
        ArrayRef<AffineMap>{map, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) {
          linalg::YieldOp::create(
              b, l,
              ValueRange{
                  arith::TruncFOp::create(b, l, type, args[0]).getResult()});
        });
    ++storedActivations;
    return generic.getResult(0);
  }

  /// `v` rounded to `type` and widened back, right after its definition;
  /// with `map`, `v` read through that map (a permutation) into a tensor
  /// shaped like `like`.
  Value round(IRRewriter &rw, Value v, FloatType type, AffineMap map = {},
              Value like = {}, OpBuilder::InsertPoint at = {}) {
    OpBuilder::InsertionGuard guard(rw);
    if (!like)
      like = v;
    if (at.isSet())
      rw.restoreInsertionPoint(at);
    else
      rw.setInsertionPointAfterValue(like);
    Location loc = v.getLoc();
    auto tensorType = cast<RankedTensorType>(like.getType());
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(rw, loc, like);
    Value init = tensor::EmptyOp::create(rw, loc, sizes,
                                         tensorType.getElementType());
    AffineMap id = rw.getMultiDimIdentityMap(tensorType.getRank());
    if (!map)
      map = id;
    SmallVector<utils::IteratorType> parallel(tensorType.getRank(),
                                              utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rw, loc, tensorType, ValueRange{v}, ValueRange{init},
        ArrayRef<AffineMap>{map, id}, parallel,
        [&](OpBuilder &b, Location l, ValueRange args) {
          Value narrow = arith::TruncFOp::create(b, l, type, args[0]);
          linalg::YieldOp::create(
              b, l, ValueRange{arith::ExtFOp::create(b, l, args[1].getType(),
                                                     narrow)});
        });
    ++roundedInputs;
    roundings.push_back(generic);
    return generic.getResult(0);
  }

  PassStatistic roundedInputs{
      this, numRounded, "rounded-inputs",
      "Activation inputs of contractions rounded at run time"};
  PassStatistic weights{this, numWeights, "rounded-weights",
                        "Weight names rounded when the model is created"};
  PassStatistic stored{this, numStored, "stored-weights",
                       "Weight names stored in 16 bits (GPU targets)"};
  PassStatistic storedActivations{
      this, numStoredActivations, "stored-activations",
      "Rounded activations stored in 16 bits (GPU targets)"};

  PassStatistic hoistedTiles{
      this, numHoistedTiles, "hoisted-tiles",
      "Tiles read from a top-level tensor rounded there"};

  /// The rounding ops round() made.
  SmallVector<linalg::GenericOp> roundings;
};

} // namespace
