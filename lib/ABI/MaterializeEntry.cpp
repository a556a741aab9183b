//===- MaterializeEntry.cpp - weights table, out-param and manifest -------===//
//
// Implements the lowering contract of docs/architecture.md on the function
// marked `tfm.entry`: tfm.weight ops become loads from a weights table passed
// as the leading !llvm.ptr argument, the result becomes a destination
// out-param memref, and the manifest (and optionally the embedded weights)
// become globals. A module whose tfm.architecture is "kernel" (a single op
// or fragment compiled for benchmarks and tests) gets the same ABI without
// the manifest: any ranked-tensor inputs, no model attributes needed.
//
//===----------------------------------------------------------------------===//

#include "tfm/ABI/Passes.h"
#include "tfm/IR/TfmAttrNames.h"
#include "tfm/IR/TfmEntryABI.h"
#include "tfm/IR/TfmOps.h"
#include "tfm/Support/Manifest.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"

#define DEBUG_TYPE "tfm-materialize-entry"

namespace mlir::tfm {
#define GEN_PASS_DEF_MATERIALIZEENTRYPASS
#include "tfm/ABI/Passes.h.inc"
} // namespace mlir::tfm

using namespace mlir;
using namespace mlir::tfm;

namespace {

using namespace mlir::tfm::abi;
constexpr StringLiteral kEmbeddedGlobal = "tfm_embedded_weights";
constexpr StringLiteral kEmbeddedSizeGlobal = "tfm_embedded_weights_size";
constexpr StringLiteral kKernelArchitecture = "kernel";

/// Builds the memref descriptor `{data, data, 0, shape, row-major strides}`
/// for a contiguous tensor at `data` and casts it to the memref type.
Value buildDescriptor(OpBuilder &b, Location loc, Value data,
                      MemRefType type) {
  MLIRContext *ctx = b.getContext();
  Type i64 = b.getI64Type();
  Type ptr = LLVM::LLVMPointerType::get(ctx);
  int64_t rank = type.getRank();
  SmallVector<Type> fields{ptr, ptr, i64};
  if (rank > 0) {
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
    fields.push_back(LLVM::LLVMArrayType::get(i64, rank));
  }
  auto structType = LLVM::LLVMStructType::getLiteral(ctx, fields);
  auto c64 = [&](int64_t v) -> Value {
    return LLVM::ConstantOp::create(b, loc, i64, b.getI64IntegerAttr(v));
  };
  Value desc = LLVM::PoisonOp::create(b, loc, structType);
  desc = LLVM::InsertValueOp::create(b, loc, desc, data, ArrayRef<int64_t>{0});
  desc = LLVM::InsertValueOp::create(b, loc, desc, data, ArrayRef<int64_t>{1});
  desc = LLVM::InsertValueOp::create(b, loc, desc, c64(0), ArrayRef<int64_t>{2});
  int64_t stride = 1;
  for (int64_t i = rank - 1; i >= 0; --i) {
    desc = LLVM::InsertValueOp::create(b, loc, desc, c64(type.getDimSize(i)),
                                       ArrayRef<int64_t>{3, i});
    desc = LLVM::InsertValueOp::create(b, loc, desc, c64(stride),
                                       ArrayRef<int64_t>{4, i});
    stride *= type.getDimSize(i);
  }
  return UnrealizedConversionCastOp::create(b, loc, TypeRange{type},
                                            ValueRange{desc})
      .getResult(0);
}

/// A NUL-terminated constant byte array with external linkage.
void createStringGlobal(OpBuilder &b, Location loc, StringRef name,
                        StringRef bytes, uint64_t alignment, bool nulTerminate) {
  std::string data = bytes.str();
  if (nulTerminate)
    data.push_back('\0');
  auto type = LLVM::LLVMArrayType::get(b.getI8Type(), data.size());
  LLVM::GlobalOp::create(b, loc, type, /*isConstant=*/true,
                         LLVM::Linkage::External, name,
                         b.getStringAttr(data), alignment);
}

struct MaterializeEntryPass
    : mlir::tfm::impl::MaterializeEntryPassBase<MaterializeEntryPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The entry the manifest describes, and the generation steps beside
    // it.
    func::FuncOp entry, step, decode, encode;
    for (auto f : module.getOps<func::FuncOp>()) {
      if (!f->hasAttr(kEntryAttr))
        continue;
      if (f.getSymName() == kStepFunction) {
        step = f;
        continue;
      }
      if (f.getSymName() == kDecodeFunction) {
        decode = f;
        continue;
      }
      if (f.getSymName() == kEncodeFunction) {
        encode = f;
        continue;
      }
      if (entry) {
        f.emitError("more than one function is marked '")
            << kEntryAttr << "' (the first is @" << entry.getSymName()
            << "; only @" << kStepFunction << ", @" << kDecodeFunction
            << " and @" << kEncodeFunction << " may be others)";
        return signalPassFailure();
      }
      entry = f;
    }
    for (func::FuncOp f : {step, decode, encode})
      if (f && !entry) {
        f.emitError("@") << f.getSymName()
                         << " needs the model's main entry beside it";
        return signalPassFailure();
      }
    if (decode &&
        (!step || decode.getNumArguments() != step.getNumArguments())) {
      decode.emitError("@")
          << kDecodeFunction << " comes with @" << kStepFunction
          << " and takes the same arguments";
      return signalPassFailure();
    }
    if (encode && !step) {
      encode.emitError("@") << kEncodeFunction << " comes with @"
                            << kStepFunction;
      return signalPassFailure();
    }
    func::FuncOp prepare = module.lookupSymbol<func::FuncOp>(kPrepareFunction);
    if (prepare && !prepare->hasAttr(kPrepareAttr)) {
      prepare.emitError("@")
          << kPrepareFunction << " is reserved for the function made by "
          << "-tfm-outline-prepare (attribute '" << kPrepareAttr << "')";
      return signalPassFailure();
    }
    // Weights can only come from the table, which the entry and
    // @tfm_prepare receive.
    WalkResult stray = module.walk([&](WeightOp w) {
      auto f = w->getParentOfType<func::FuncOp>();
      if (entry && f && f == prepare && w.getPrepared()) {
        w.emitOpError("reads the prepared weight '")
            << w.getName() << "' inside @" << kPrepareFunction
            << ", which computes the prepared weights";
        return WalkResult::interrupt();
      }
      if (entry &&
          (f == entry || f == step || f == decode || f == encode ||
           f == prepare))
        return WalkResult::advance();
      w.emitOpError("is outside the '")
          << kEntryAttr << "' function; only the entry function (and @"
          << kPrepareFunction << ") receives the weights table";
      return WalkResult::interrupt();
    });
    if (stray.wasInterrupted())
      return signalPassFailure();
    if (!entry)
      return;
    if (failed(materialize(module, entry, step, decode, encode, prepare)))
      signalPassFailure();
  }

  /// The in-out arguments of `f` (kInOutAttr), as argument index -> result
  /// index, and the one result that is not an in-out argument's new value
  /// (the output). Checks the entry's signature.
  LogicalResult checkSignature(func::FuncOp f,
                               SmallVectorImpl<std::pair<unsigned, unsigned>>
                                   &inOut,
                               unsigned &output) {
    if (f.isExternal())
      return f.emitError("entry function has no body");
    FunctionType fnType = f.getFunctionType();
    for (Type t : fnType.getInputs())
      if (!isa<RankedTensorType>(t))
        return f.emitError("entry function inputs must be ranked "
                           "tensors, got ")
               << t;
    for (Type t : fnType.getResults())
      if (!isa<RankedTensorType>(t))
        return f.emitError("entry function result must be a ranked "
                           "tensor, got ")
               << t;
    BitVector taken(fnType.getNumResults());
    for (unsigned i = 0, e = f.getNumArguments(); i < e; ++i) {
      auto attr = f.getArgAttrOfType<IntegerAttr>(i, kInOutAttr);
      if (!attr)
        continue;
      int64_t r = attr.getInt();
      if (r < 0 || r >= fnType.getNumResults() || taken.test(r))
        return f.emitError("argument ")
               << i << "'s '" << kInOutAttr << "' names result " << r
               << ", which is not a result or is taken by another argument";
      if (fnType.getResult(r) != fnType.getInput(i))
        return f.emitError("argument ")
               << i << " (" << fnType.getInput(i) << ") and its in-out result "
               << r << " (" << fnType.getResult(r) << ") differ in type";
      taken.set(r);
      inOut.push_back({i, static_cast<unsigned>(r)});
    }
    // The main entry and the steps have one output; @encode only fills
    // its cache.
    unsigned outputs = fnType.getNumResults() - taken.count();
    bool noOutput = f.getSymName() == kEncodeFunction;
    if (outputs != (noOutput ? 0u : 1u))
      return f.emitError("entry function must return exactly ")
             << (noOutput ? "nothing" : "one tensor")
             << " besides its in-out arguments' new values, returns "
             << outputs;
    output = noOutput ? ~0u : static_cast<unsigned>(taken.find_first_unset());
    return success();
  }

  LogicalResult materialize(ModuleOp module, func::FuncOp entry,
                            func::FuncOp step, func::FuncOp decode,
                            func::FuncOp encode, func::FuncOp prepare) {
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Location loc = entry.getLoc();
    SmallVector<func::FuncOp> entries{entry};
    if (step)
      entries.push_back(step);
    if (decode)
      entries.push_back(decode);
    if (encode)
      entries.push_back(encode);
    SmallVector<SmallVector<std::pair<unsigned, unsigned>>> inOuts(
        entries.size());
    SmallVector<unsigned> outputs(entries.size());
    for (auto [i, f] : llvm::enumerate(entries))
      if (failed(checkSignature(f, inOuts[i], outputs[i])))
        return failure();
    if (!inOuts[0].empty())
      return entry.emitError("the main entry has no in-out arguments (only @")
             << kStepFunction << " has)";
    auto resultType =
        cast<RankedTensorType>(entry.getFunctionType().getResult(outputs[0]));

    // Without prepared tensors, @tfm_prepare does nothing; it always
    // exists, so that every library exports the same functions.
    if (!prepare) {
      b.setInsertionPoint(entry);
      prepare = func::FuncOp::create(b, loc, kPrepareFunction,
                                     b.getFunctionType({}, {}));
      prepare->setAttr(kPrepareAttr, b.getUnitAttr());
      b.setInsertionPointToStart(prepare.addEntryBlock());
      func::ReturnOp::create(b, loc);
    }
    if (prepare.isExternal() || prepare.getNumArguments() != 0)
      return prepare.emitError("@")
             << kPrepareFunction << " must have a body and no arguments";

    // Distinct file weight names in order of first appearance (entry, then
    // @tfm_prepare), then the prepared tensors in @tfm_prepare's order.
    llvm::MapVector<StringRef, RankedTensorType> weights;
    llvm::MapVector<StringRef, RankedTensorType> prepared;
    for (auto [i, type] : llvm::enumerate(prepare.getResultTypes())) {
      auto name = prepare.getResultAttrOfType<StringAttr>(i, kPreparedNameAttr);
      if (!name)
        return prepare.emitError("result ")
               << i << " of @" << kPrepareFunction << " has no '"
               << kPreparedNameAttr << "' (the prepared tensor's name)";
      auto tensor = dyn_cast<RankedTensorType>(type);
      if (!tensor || !tensor.hasStaticShape() ||
          !(tensor.getElementType().isF32() ||
            tensor.getElementType().isBF16() ||
            tensor.getElementType().isF16()))
        return prepare.emitError("prepared tensor '")
               << name.getValue()
               << "' must have a static f32, bf16 or f16 shape, got " << type;
      if (!prepared.insert({name.getValue(), tensor}).second)
        return prepare.emitError("prepared tensor '")
               << name.getValue() << "' is returned twice";
    }
    SmallVector<WeightOp> weightOps;
    auto collect = [&](WeightOp w) {
      auto type = cast<RankedTensorType>(w.getType());
      // f32, or the 16-bit storage -tfm-apply-precision chose for a file
      // weight (the runtime converts it when it binds the weights).
      Type element = type.getElementType();
      bool storable = element.isF32() || element.isBF16() || element.isF16();
      if (!type.hasStaticShape() || !storable) {
        w.emitOpError("weight '")
            << w.getName() << "' must have a static f32 shape"
            << " (or bf16/f16, its storage or its prepared layout's)"
            << ", got " << type;
        return WalkResult::interrupt();
      }
      if (w.getPrepared()) {
        auto it = prepared.find(w.getName());
        if (it == prepared.end()) {
          w.emitOpError("prepared weight '")
              << w.getName() << "' is not computed by @" << kPrepareFunction;
          return WalkResult::interrupt();
        }
        if (it->second != type) {
          w.emitOpError("prepared weight '")
              << w.getName() << "' is used as " << type << "; @"
              << kPrepareFunction << " computes " << it->second;
          return WalkResult::interrupt();
        }
        weightOps.push_back(w);
        return WalkResult::advance();
      }
      if (prepared.count(w.getName())) {
        w.emitOpError("weight '")
            << w.getName() << "' is also the name of a prepared tensor";
        return WalkResult::interrupt();
      }
      auto [it, inserted] = weights.insert({w.getName(), type});
      if (!inserted && it->second != type) {
        w.emitOpError("weight '") << w.getName() << "' is used as " << type
                                  << " and as " << it->second;
        return WalkResult::interrupt();
      }
      weightOps.push_back(w);
      return WalkResult::advance();
    };
    for (func::FuncOp f : entries)
      if (f.walk(collect).wasInterrupted())
        return failure();
    if (prepare.walk(collect).wasInterrupted())
      return failure();

    // The manifest needs the model attributes; a kernel has none.
    auto arch = module->getAttrOfType<StringAttr>(kArchitectureAttr);
    bool kernel = arch && arch.getValue() == kKernelArchitecture;
    std::string manifest;
    if (!kernel && failed(buildManifest(module, entry, step, encode,
                                        resultType, weights, prepared,
                                        manifest)))
      return failure();

    // Inputs are the caller's: never write into them (in-out arguments
    // become memrefs below, written through their own to_tensor).
    for (func::FuncOp f : entries)
      for (unsigned i = 0, e = f.getNumArguments(); i < e; ++i)
        f.setArgAttr(i, "bufferization.writable", b.getBoolAttr(false));

    // Slots: the file weights, then the prepared tensors.
    llvm::StringMap<int64_t> slots;
    for (auto &[name, type] : weights)
      slots[name] = slots.size();
    for (auto &[name, type] : prepared)
      slots[name] = slots.size();
    auto tableAttr = [&](const auto &list) {
      SmallVector<Attribute> entries;
      for (auto &[name, type] : list)
        entries.push_back(b.getDictionaryAttr(
            {b.getNamedAttr("name", b.getStringAttr(name)),
             b.getNamedAttr("shape", b.getI64ArrayAttr(type.getShape()))}));
      return b.getArrayAttr(entries);
    };
    module->setAttr(kWeightsAttr, tableAttr(weights));
    module->setAttr(kPreparedAttr, tableAttr(prepared));

    // Leading weights-table argument of the entry and @tfm_prepare; each
    // reads a slot once, at its start.
    Type ptrType = LLVM::LLVMPointerType::get(ctx);
    llvm::DenseMap<std::pair<Operation *, int64_t>, Value> reads;
    // Per function, the last read: reads follow one another in order of
    // first use.
    llvm::DenseMap<Operation *, Operation *> lastRead;
    auto slotMemref = [&](func::FuncOp f, StringRef name,
                          RankedTensorType type) {
      Location wl = NameLoc::get(b.getStringAttr(name), loc);
      int64_t slot = slots.lookup(name);
      Value addr = LLVM::GEPOp::create(b, wl, ptrType, ptrType,
                                       f.front().getArgument(0),
                                       ArrayRef<LLVM::GEPArg>{slot});
      Value data = LLVM::LoadOp::create(b, wl, ptrType, addr);
      return buildDescriptor(
          b, wl, data, MemRefType::get(type.getShape(), type.getElementType()));
    };
    SmallVector<func::FuncOp> tableUsers(entries);
    tableUsers.push_back(prepare);
    for (func::FuncOp f : tableUsers)
      if (failed(f.insertArgument(0, ptrType, {}, loc)))
        return f.emitError("cannot add the weights-table argument");
    for (WeightOp w : weightOps) {
      auto f = w->getParentOfType<func::FuncOp>();
      auto key = std::make_pair(f.getOperation(), slots.lookup(w.getName()));
      Value &t = reads[key];
      if (!t) {
        OpBuilder::InsertionGuard guard(b);
        Operation *&last = lastRead[f.getOperation()];
        if (last)
          b.setInsertionPointAfter(last);
        else
          b.setInsertionPointToStart(&f.front());
        auto type = cast<RankedTensorType>(w.getType());
        auto read = bufferization::ToTensorOp::create(
            b, w.getLoc(), type, slotMemref(f, w.getName(), type),
            /*restrict=*/true, /*writable=*/false);
        last = read;
        t = read;
      }
      w.getResult().replaceAllUsesWith(t);
      w.erase();
    }

    // @tfm_prepare writes its results into their slots.
    SmallVector<func::ReturnOp> prepareReturns;
    prepare.walk([&](func::ReturnOp r) { prepareReturns.push_back(r); });
    for (func::ReturnOp r : prepareReturns) {
      b.setInsertionPoint(r);
      for (auto [value, named] : llvm::zip(r.getOperands(), prepared)) {
        auto m = bufferization::MaterializeInDestinationOp::create(
            b, r.getLoc(), value,
            slotMemref(prepare, named.first, named.second));
        m.setRestrict(true);
        m.setWritable(true);
      }
      func::ReturnOp::create(b, r.getLoc());
      r.erase();
    }
    BitVector allResults(prepare.getNumResults(), true);
    if (failed(prepare.eraseResults(allResults)))
      return prepare.emitError("cannot drop the prepared results");
    prepare->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                     UnitAttr::get(ctx));
    for (auto [i, f] : llvm::enumerate(entries))
      if (failed(passResults(f, inOuts[i], outputs[i])))
        return failure();

    // Globals.
    b.setInsertionPointToEnd(module.getBody());
    if (!kernel)
      createStringGlobal(b, loc, kManifestSymbol, manifest, /*alignment=*/0,
                         /*nulTerminate=*/true);
    if (!embedWeights.empty()) {
      auto file = llvm::MemoryBuffer::getFile(embedWeights, /*IsText=*/false,
                                              /*RequiresNullTerminator=*/false);
      if (!file)
        return module.emitError("cannot read embed-weights file '")
               << embedWeights << "': " << file.getError().message();
      StringRef bytes = (*file)->getBuffer();
      createStringGlobal(b, loc, kEmbeddedGlobal, bytes, /*alignment=*/64,
                         /*nulTerminate=*/false);
      LLVM::GlobalOp::create(b, loc, b.getI64Type(), /*isConstant=*/true,
                             LLVM::Linkage::External, kEmbeddedSizeGlobal,
                             b.getI64IntegerAttr(bytes.size()),
                             /*alignment=*/8);
    }
    return success();
  }

  /// Destination passing for the results of `f` (whose table argument is
  /// already in front): in-out arguments become memrefs that the function
  /// reads through a writable to_tensor and writes its new value into, in
  /// place; the output becomes the trailing out-param.
  LogicalResult passResults(func::FuncOp f,
                            ArrayRef<std::pair<unsigned, unsigned>> inOut,
                            unsigned output) {
    MLIRContext *ctx = &getContext();
    OpBuilder b(ctx);
    Location loc = f.getLoc();
    Block &body = f.front();
    // Result index -> the memref it is written into.
    DenseMap<unsigned, Value> destination;
    for (auto [arg, result] : inOut) {
      unsigned idx = arg + 1; // after the weights table
      BlockArgument old = body.getArgument(idx);
      auto type = cast<RankedTensorType>(old.getType());
      auto memrefType = MemRefType::get(type.getShape(), type.getElementType());
      if (failed(f.insertArgument(idx, memrefType, {}, old.getLoc())))
        return f.emitError("cannot add the in-out argument");
      Value buffer = body.getArgument(idx);
      b.setInsertionPointToStart(&body);
      auto read = bufferization::ToTensorOp::create(
          b, old.getLoc(), type, buffer, /*restrict=*/true, /*writable=*/true);
      body.getArgument(idx + 1).replaceAllUsesWith(read);
      if (failed(f.eraseArgument(idx + 1)))
        return f.emitError("cannot replace the in-out argument");
      f.removeArgAttr(idx, kInOutAttr);
      destination[result] = buffer;
    }
    if (output != ~0u) {
      auto resultType =
          cast<RankedTensorType>(f.getFunctionType().getResult(output));
      auto outType =
          MemRefType::get(resultType.getShape(), resultType.getElementType());
      unsigned outIdx = f.getNumArguments();
      if (failed(f.insertArgument(outIdx, outType, {}, loc)))
        return f.emitError("cannot add the output argument");
      destination[output] = body.getArgument(outIdx);
    }
    SmallVector<func::ReturnOp> returns;
    f.walk([&](func::ReturnOp r) { returns.push_back(r); });
    for (func::ReturnOp r : returns) {
      b.setInsertionPoint(r);
      for (auto [i, value] : llvm::enumerate(r.getOperands())) {
        auto m = bufferization::MaterializeInDestinationOp::create(
            b, r.getLoc(), value, destination.lookup(i));
        m.setRestrict(true);
        m.setWritable(true);
      }
      func::ReturnOp::create(b, r.getLoc());
      r.erase();
    }
    BitVector allResults(f.getNumResults(), true);
    if (failed(f.eraseResults(allResults)))
      return f.emitError("cannot drop the tensor results");
    f->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
               UnitAttr::get(ctx));
    return success();
  }

  /// The manifest (tfm/Support/Manifest.h; docs/architecture.md, "The
  /// manifest") of this entry, as JSON.
  LogicalResult
  buildManifest(ModuleOp module, func::FuncOp entry, func::FuncOp step,
                func::FuncOp encode, RankedTensorType result,
                const llvm::MapVector<StringRef, RankedTensorType> &weights,
                const llvm::MapVector<StringRef, RankedTensorType> &prepared,
                std::string &out) {
    auto str = [&](StringRef attr) -> FailureOr<StringRef> {
      auto a = module->getAttrOfType<StringAttr>(attr);
      if (!a)
        return module.emitError("module attribute '")
               << attr << "' (string) is missing; the manifest needs it";
      return a.getValue();
    };
    auto num = [&](StringRef attr) -> FailureOr<int64_t> {
      auto a = module->getAttrOfType<IntegerAttr>(attr);
      if (!a)
        return module.emitError("module attribute '")
               << attr << "' (integer) is missing; the manifest needs it";
      return a.getInt();
    };
    FailureOr<StringRef> name = str(kModelNameAttr);
    FailureOr<StringRef> arch = str(kArchitectureAttr);
    FailureOr<int64_t> vocab = num(kVocabSizeAttr);
    FailureOr<int64_t> maxSeq = num(kMaxSeqLenAttr);
    FailureOr<StringRef> output = str(kOutputAttr);
    if (failed(name) || failed(arch) || failed(vocab) || failed(maxSeq) ||
        failed(output))
      return failure();

    ::tfm::Manifest manifest;
    manifest.modelName = name->str();
    manifest.vocabSize = *vocab;
    manifest.maxSeqLen = *maxSeq;
    std::optional<::tfm::Architecture> architecture =
        ::tfm::parseArchitecture(*arch);
    if (!architecture)
      return module.emitError("module attribute '")
             << kArchitectureAttr << "' is '" << *arch
             << "'; expected encoder, decoder or encoder_decoder (or "
             << kKernelArchitecture << ", for an entry without a manifest)";
    manifest.architecture = *architecture;
    // The target says where the code runs, unless the option does.
    std::string deviceName = device;
    if (deviceName.empty())
      deviceName = getGpuTarget(module) ? "cuda" : "cpu";
    std::optional<::tfm::Device> where = ::tfm::parseDevice(deviceName);
    if (!where)
      return module.emitError("-tfm-materialize-entry: device=")
             << deviceName << " is not a device (cpu or cuda)";
    manifest.device = *where;
    // Image models: the entry takes pixels [B, C, H, W] (kImageAttr).
    if (auto image = module->getAttrOfType<DenseI64ArrayAttr>(kImageAttr)) {
      auto pixels =
          entry.getNumArguments() == 1
              ? dyn_cast<RankedTensorType>(entry.getArgument(0).getType())
              : RankedTensorType();
      if (image.size() != 3 ||
          llvm::any_of(image.asArrayRef(), [](int64_t d) { return d < 1; }))
        return module.emitError("module attribute '")
               << kImageAttr << "' must be [C, H, W], positive, got " << image;
      if (!pixels || pixels.getRank() != 4 ||
          !pixels.getElementType().isF32() ||
          pixels.getShape().drop_front() != image.asArrayRef())
        return entry.emitError("an image model's entry takes pixels "
                               "tensor<?x")
               << image[0] << "x" << image[1] << "x" << image[2] << "xf32>";
      manifest.image = ::tfm::ManifestImage{image[0], image[1], image[2]};
    }
    if (auto first = module->getAttrOfType<IntegerAttr>(kFirstPositionAttr))
      manifest.firstPosition = first.getInt();
    size_t numInputs = manifest.inputs().size();
    if (entry.getNumArguments() != numInputs)
      return entry.emitError("architecture '")
             << *arch << "' needs " << numInputs << " entry inputs, @"
             << entry.getSymName() << " takes " << entry.getNumArguments();
    std::optional<::tfm::OutputKind> kind = ::tfm::parseOutputKind(*output);
    if (!kind)
      return module.emitError("module attribute '") << kOutputAttr << "' is '"
             << *output << "'; expected logits, classes or hidden";
    manifest.output = *kind;

    // The one static trailing dimension of the result (V, C or D).
    ArrayRef<int64_t> shape = result.getShape();
    size_t dynamicPrefix = 0;
    while (dynamicPrefix < shape.size() &&
           ShapedType::isDynamic(shape[dynamicPrefix]))
      ++dynamicPrefix;
    if (shape.size() - dynamicPrefix != 1 ||
        llvm::any_of(shape.drop_front(dynamicPrefix), ShapedType::isDynamic))
      return entry.emitError("entry result ")
             << result
             << " must have dynamic leading dimensions and one static "
                "trailing dimension (the manifest's output_dims)";
    manifest.outputDim = shape.back();

    // -tfm-apply-precision's choices: the model's precision, and the
    // weights the runtime rounds to it.
    auto precisionOf = [](Type t) {
      return t.isBF16()  ? ::tfm::Precision::BF16
             : t.isF16() ? ::tfm::Precision::F16
                         : ::tfm::Precision::F32;
    };
    if (auto p = module->getAttrOfType<TypeAttr>(kPrecisionAttr))
      manifest.precision = precisionOf(p.getValue());
    llvm::StringMap<::tfm::Precision> rounding;
    if (auto names = module->getAttrOfType<ArrayAttr>(kRoundedWeightsAttr))
      for (auto name : names.getAsRange<StringAttr>())
        rounding[name.getValue()] = manifest.precision;
    for (auto &[wname, type] : weights) {
      ::tfm::Precision storage = precisionOf(type.getElementType());
      ::tfm::Precision round = rounding.lookup(wname);
      if (storage != ::tfm::Precision::F32 && storage != round)
        return module.emitError("weight '")
               << wname << "' is stored as " << type.getElementType()
               << " but the runtime is not asked to round it to that type ("
               << kRoundedWeightsAttr << ")";
      manifest.weights.push_back(
          {wname.str(),
           std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
           round, storage});
    }
    for (auto &[pname, type] : prepared) {
      // A 16-bit prepared tensor (-tfm-pack-amx's bf16 layouts) is made in
      // that type; its "round" says so too (the format pairs the two).
      ::tfm::Precision storage = precisionOf(type.getElementType());
      manifest.prepared.push_back(
          {pname.str(),
           std::vector<int64_t>(type.getShape().begin(), type.getShape().end()),
           storage, storage});
    }
    if (auto features = module->getAttrOfType<ArrayAttr>(kCpuFeaturesAttr))
      for (auto f : features.getAsRange<StringAttr>())
        manifest.cpuFeatures.push_back(f.getValue().str());
    // The generation step's cache: [B, layers, 2, kv_heads, C, head_dim].
    if (step) {
      ::tfm::ManifestKvCache kv;
      kv.cross = static_cast<bool>(encode);
      for (BlockArgument arg : step.getArguments()) {
        if (!step.getArgAttr(arg.getArgNumber(), kInOutAttr))
          continue;
        auto type = cast<RankedTensorType>(arg.getType());
        // f32, or the model's 16-bit precision (-tfm-narrow-kv-cache).
        Type et = type.getElementType();
        if (type.getRank() != 6 || type.isDynamicDim(1) ||
            type.getDimSize(2) != 2 || type.isDynamicDim(3) ||
            type.isDynamicDim(5) ||
            !(et.isF32() || ((et.isBF16() || et.isF16()) &&
                             precisionOf(et) == manifest.precision)))
          return step.emitError("the KV cache argument must be "
                                "tensor<?xLx2xHx?xDxT>, T f32 or the "
                                "module's precision, got ")
                 << type;
        kv.layers = type.getDimSize(1);
        kv.kvHeads = type.getDimSize(3);
        kv.headDim = type.getDimSize(5);
        kv.storage = precisionOf(et);
      }
      if (!kv.layers)
        return step.emitError("@")
               << kStepFunction << " has no KV cache argument ('" << kInOutAttr
               << "')";
      if (auto after = module->getAttrOfType<IntegerAttr>(kRecomputeAfterAttr))
        kv.recomputeAfter = after.getInt();
      manifest.kvCache = kv;
    }
    out = manifest.toJSON();
    return success();
  }
};

} // namespace
