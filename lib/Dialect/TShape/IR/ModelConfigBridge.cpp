//===- ModelConfigBridge.cpp - tshape IR <-> ModelConfig -------------------===//
//
// buildModelModule emits one function per model: embedding, a
// tshape.repeat of one block, and the LM head, with the parallel and math
// attributes on the function. extractModelConfig reads a function's model
// back, and applyModelConfig rewrites it to another config; both go through
// the block op interface (readConfig, writeConfig) and name no op of it.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <cmath>

using namespace mlir;

namespace {
Type elementType(MLIRContext *ctx, tshape::model::DType t) {
  Builder b(ctx);
  switch (t) {
  case tshape::model::DType::BF16:
    return b.getBF16Type();
  case tshape::model::DType::FP16:
    return b.getF16Type();
  case tshape::model::DType::FP32:
  case tshape::model::DType::TF32:
    return b.getF32Type();
  case tshape::model::DType::FP8:
    return b.getType<Float8E4M3FNType>();
  }
  return b.getBF16Type();
}

/// A valid MLIR symbol name from a model name.
std::string symbolName(const std::string &name) {
  std::string out;
  for (char ch : name)
    out += std::isalnum((unsigned char)ch) ? ch : '_';
  if (out.empty() || std::isdigit((unsigned char)out[0]))
    out = "m_" + out;
  return out;
}

/// Creates the block op named `name` (BlockInfo::opName) reading `input`,
/// with result type `type`, and states `c` on it
/// (BlockOpInterface::writeConfig): the attributes have one writer. A null
/// value when no registered op of that name has the block op interface.
Value createBlockOp(OpBuilder &b, Location loc, StringRef name, Type type,
                    Value input, const tshape::model::ModelConfig &c) {
  OperationState state(loc, name);
  state.addOperands(input);
  state.addTypes(type);
  Operation *created = b.create(state);
  auto op = dyn_cast<tshape::BlockOpInterface>(created);
  if (!op) {
    created->erase();
    return Value();
  }
  op.writeConfig(c);
  return op->getResult(0);
}
} // namespace

OwningOpRef<ModuleOp> tshape::buildModelModule(MLIRContext *ctx,
                                               const tshape::model::ModelConfig &c,
                                               Location loc) {
  ctx->loadDialect<tshape::TShapeDialect, func::FuncDialect>();
  OpBuilder b(ctx);
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  b.setInsertionPointToEnd(module->getBody());

  Type elt = elementType(ctx, c.dtype);
  using model::getParam;
  using model::Param;
  const int64_t batch = getParam(c, Param::Microbatch),
                seq = getParam(c, Param::Seq),
                vocab = getParam(c, Param::Vocab);
  auto tokensT = RankedTensorType::get({batch, seq}, b.getIntegerType(32));
  auto actT = RankedTensorType::get({batch, seq, getParam(c, Param::Hidden)},
                                    elt);
  auto logitsT = RankedTensorType::get({batch, seq, vocab}, elt);
  auto fn = func::FuncOp::create(b, loc, symbolName(c.name),
                                 b.getFunctionType({tokensT}, {logitsT}));
  fn->setAttr(tshape::TShapeDialect::kParallelAttrName,
              tshape::ParallelAttr::get(ctx, c.parallel));
  if (!c.modelType.empty())
    fn->setAttr(::tshape::TShapeDialect::kModelTypeAttrName,
                b.getStringAttr(c.modelType));
  if (c.arch.stated)
    fn->setAttr(::tshape::TShapeDialect::kArchitectureAttrName,
                tshape::architectureAttr(ctx, c.arch));
  if (c.dtype == tshape::model::DType::TF32)
    fn->setAttr(tshape::TShapeDialect::kMathAttrName,
                tshape::MathModeAttr::get(
                    ctx, tshape::MathMode::tf32));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  auto opName = [](model::BlockKind k) {
    const char *n = model::blockInfo(k).opName;
    return StringRef(n ? n : "");
  };
  Value x = createBlockOp(b, loc, opName(model::BlockKind::Embedding), actT,
                          entry->getArgument(0), c);
  const bool parallel = c.residual == tshape::model::ResidualMode::Parallel;
  bool failedBlock = false;
  // One layer: a tshape.block of its sub-layers.
  auto emitLayer = [&](Value layerIn, const model::LayerKind &layerKind) {
    const std::vector<model::BlockKind> &kinds = layerKind.blocks;
    // The layer's own config: whether its attention is windowed.
    model::ModelConfig lc = c;
    lc.stack.clear();
    lc.attention.fullAttention = layerKind.fullAttention;
    auto block = tshape::BlockOp::create(
        b, loc, layerIn,
        parallel ? tshape::ResidualMode::parallel
                 : tshape::ResidualMode::sequential);
    OpBuilder::InsertionGuard g2(b);
    Block &body = block.getBody().front();
    b.setInsertionPointToEnd(&body);
    Value in = body.getArgument(0), prev = in;
    SmallVector<Value> results;
    for (model::BlockKind k : kinds) {
      Value arg = parallel ? in : prev;
      // The block's own op (BlockInfo::opName), created by name.
      prev = createBlockOp(b, loc, opName(k), actT, arg, lc);
      if (!prev) {
        emitError(loc) << "block '" << model::blockInfo(k).name
                       << "' has no registered op with the block op "
                          "interface (BlockInfo::opName '"
                       << opName(k) << "')";
        failedBlock = true;
        prev = arg;
      }
      results.push_back(prev);
    }
    if (parallel)
      tshape::YieldOp::create(b, loc, ValueRange(results));
    else
      tshape::YieldOp::create(b, loc, ValueRange{prev});
    return block.getResult();
  };
  // A uniform stack is one tshape.repeat; a heterogeneous one a repeat
  // per segment, each body its pattern of layers.
  std::vector<model::StackSegment> segments = c.stack;
  if (segments.empty())
    segments.push_back(
        {{model::LayerKind{c.layerBlocks, c.attention.fullAttention}},
         getParam(c, Param::Layers)});
  Value cur = x;
  for (const model::StackSegment &seg : segments) {
    auto repeat = tshape::RepeatOp::create(b, loc, cur, seg.repeats);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(&repeat.getBody().front());
    Value layer = repeat.getBody().front().getArgument(0);
    for (const model::LayerKind &k : seg.pattern)
      layer = emitLayer(layer, k);
    tshape::YieldOp::create(b, loc, ValueRange{layer});
    cur = repeat.getResult();
  }
  Value logits =
      createBlockOp(b, loc, opName(model::BlockKind::LMHead), logitsT, cur, c);
  func::ReturnOp::create(b, loc, logits);
  if (failedBlock)
    return nullptr;
  return module;
}

//===----------------------------------------------------------------------===//
// Reading a model back, and rewriting it
//===----------------------------------------------------------------------===//

namespace {
int64_t repeatMultiplicity(Operation *op) {
  int64_t m = 1;
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (auto r = dyn_cast<::tshape::RepeatOp>(p))
      m *= r.getLayers();
  return m;
}

/// Whether `op` agrees with `first`, the first op of its config group
/// (BlockOpInterface::getConfigGroup): residual sub-layers of one block
/// stand for the layers and must be the same op but for their operands;
/// other ops must state the same values of the parameters both state.
bool agrees(tshape::BlockOpInterface first, tshape::BlockOpInterface op) {
  // Attention layers may differ in being windowed (Gemma's local and
  // global layers), not in the window.
  auto fa = dyn_cast<::tshape::AttentionOp>(first.getOperation());
  auto oa = dyn_cast<::tshape::AttentionOp>(op.getOperation());
  if (fa && oa)
    return fa.getInput().getType() == oa.getInput().getType() &&
           fa.getHeads() == oa.getHeads() &&
           fa.getKvHeads() == oa.getKvHeads() &&
           fa.getHeadDim() == oa.getHeadDim() &&
           fa.getCausal() == oa.getCausal() && fa.getFused() == oa.getFused() &&
           (!fa.getWindow() || !oa.getWindow() ||
            (*fa.getWindow() == *oa.getWindow() &&
             fa.getChunked() == oa.getChunked()));
  if (first.isResidualSubLayer() &&
      first.getBlockName() == op.getBlockName())
    return OperationEquivalence::isEquivalentTo(
        first, op, OperationEquivalence::ignoreValueEquivalence,
        /*markEquivalent=*/nullptr,
        OperationEquivalence::IgnoreLocations |
            OperationEquivalence::IgnoreDiscardableAttrs);
  tshape::model::ModelConfig a, b;
  first.readConfig(a);
  op.readConfig(b);
  for (tshape::model::Param p : op.getStatedParams())
    if (llvm::is_contained(first.getStatedParams(), p) &&
        tshape::model::getParam(a, p) != tshape::model::getParam(b, p))
      return false;
  return true;
}
} // namespace

namespace {
/// The layer of a tshape.block: its sub-layers' block kinds, and whether
/// its attention is windowed.
tshape::model::LayerKind kindsOf(::tshape::BlockOp b) {
  tshape::model::LayerKind kind;
  for (tshape::BlockOpInterface sub : b.getSubLayers()) {
    if (auto k = tshape::model::parseBlock(sub.getBlockName()))
      kind.blocks.push_back(*k);
    if (auto a = dyn_cast<::tshape::AttentionOp>(sub.getOperation()))
      kind.fullAttention = !a.getWindow().has_value();
  }
  return kind;
}

/// The layers of a body, in order: each tshape.block one layer, a nested
/// repeat its body's layers that many times.
void appendLayers(Block &body, std::vector<tshape::model::LayerKind> &out) {
  for (Operation &op : body) {
    if (auto b = dyn_cast<::tshape::BlockOp>(op)) {
      out.push_back(kindsOf(b));
    } else if (auto r = dyn_cast<::tshape::RepeatOp>(op)) {
      std::vector<tshape::model::LayerKind> inner;
      appendLayers(r.getBody().front(), inner);
      for (int64_t i = 0; i < int64_t(r.getLayers()); ++i)
        out.insert(out.end(), inner.begin(), inner.end());
    }
  }
}

/// The stack of a function whose layers are tshape.blocks: a segment per
/// top-level repeat (its body's layers, repeated) or block.
std::vector<tshape::model::StackSegment> stackOf(func::FuncOp fn) {
  std::vector<tshape::model::StackSegment> stack;
  for (Operation &op : fn.getBody().front()) {
    if (auto r = dyn_cast<::tshape::RepeatOp>(op)) {
      tshape::model::StackSegment s;
      appendLayers(r.getBody().front(), s.pattern);
      s.repeats = r.getLayers();
      if (!s.pattern.empty())
        stack.push_back(std::move(s));
    } else if (auto b = dyn_cast<::tshape::BlockOp>(op)) {
      stack.push_back({{kindsOf(b)}, 1});
    }
  }
  return stack;
}
} // namespace

bool tshape::holdsModel(func::FuncOp fn) {
  return fn
      .walk([](BlockOpInterface op) {
        return op.isResidualSubLayer() ? WalkResult::interrupt()
                                       : WalkResult::advance();
      })
      .wasInterrupted();
}

std::optional<tshape::model::ModelConfig>
tshape::extractModelConfig(func::FuncOp fn, bool &hasVocab,
                           std::string &error) {
  using namespace ::tshape;
  using model::Param;
  model::ModelConfig c;
  c.name = fn.getName().str();
  c.parallel = getParallelism(fn);
  if (auto t = fn->getAttrOfType<StringAttr>(TShapeDialect::kModelTypeAttrName))
    c.modelType = t.str();
  if (auto d = fn->getAttrOfType<DictionaryAttr>(
          TShapeDialect::kArchitectureAttrName))
    if (!parseArchitecture(d, c.arch, error))
      return std::nullopt;
  // The first op of each config group, the layers of each sub-layer block
  // (each op times its enclosing repeats), and every parameter stated.
  llvm::StringMap<BlockOpInterface> groupFirst;
  llvm::StringMap<int64_t> layers;
  llvm::SmallSetVector<Param, 8> stated;
  BlockOpInterface firstSubLayer;
  bool conflict = false;
  std::string why;
  // The residual blocks: whether there are any, and their mode (one for
  // all); the stack of layers they make is read from the structure.
  bool anyBlockOp = false;
  std::optional<ResidualMode> mode;
  fn.walk([&](Operation *op) {
    if (auto b = dyn_cast<BlockOp>(op)) {
      anyBlockOp = true;
      if (mode && *mode != b.getMode()) {
        conflict = true;
        why = "blocks mix sequential and parallel residuals";
      }
      mode = b.getMode();
      c.residual = b.getMode() == ResidualMode::parallel
                       ? model::ResidualMode::Parallel
                       : model::ResidualMode::Sequential;
      return;
    }
    auto blk = dyn_cast<BlockOpInterface>(op);
    if (!blk)
      return;
    auto [group, isFirst] = groupFirst.try_emplace(blk.getConfigGroup(), blk);
    if (!isFirst && !agrees(group->second, blk)) {
      conflict = true;
      why = (blk.getConfigGroup() + " differ").str();
    }
    blk.readConfig(c);
    SmallVector<Param> params = blk.getStatedParams();
    stated.insert(params.begin(), params.end());
    if (blk.isResidualSubLayer()) {
      layers[blk.getBlockName()] += repeatMultiplicity(op);
      if (!firstSubLayer)
        firstSubLayer = blk;
    }
  });
  if (conflict) {
    error = "the function's layers are not all the same shape (" + why +
            "); shape search needs one layer configuration";
    return std::nullopt;
  }
  // A layer's GEMMs need its heads (an attention) and its inner size (an
  // MLP or a mixture of experts).
  if (!stated.contains(Param::Heads) ||
      !(stated.contains(Param::Ffn) || stated.contains(Param::Experts))) {
    error = "the function needs a tshape.attention (or tshape.mla) and a "
            "tshape.mlp (or tshape.moe)";
    return std::nullopt;
  }
  // readConfig gave the run shape (b, s) and hidden; the element type of
  // the layers gives the precision.
  Type elt = firstSubLayer.getActivations().getType().getElementType();
  std::optional<model::DType> dtype = gemmDType(firstSubLayer, elt);
  if (!dtype) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << elt;
    error = "element type " + s + " has no GEMM model (expected bf16, f16, "
            "f32 or an f8 type)";
    return std::nullopt;
  }
  c.dtype = *dtype;
  // With residual blocks, each is a layer of their sub-layers; standalone
  // sub-layers (no block) count as the most numerous kind's layers.
  if (c.attention.window == 0)
    c.attention.fullAttention = false;
  int64_t numLayers = 0;
  for (const auto &entry : layers)
    numLayers = std::max(numLayers, entry.getValue());
  if (anyBlockOp) {
    // One segment of one layer kind is a uniform stack; anything else a
    // heterogeneous one (dense then MoE, an interleave).
    std::vector<model::StackSegment> stack = stackOf(fn);
    // Without a window no layer is a full-attention one of a windowed
    // model.
    if (c.attention.window == 0)
      for (model::StackSegment &seg : stack)
        for (model::LayerKind &k : seg.pattern)
          k.fullAttention = false;
    numLayers = model::stackLayers(stack).value_or(0);
    std::vector<model::LayerKind> kinds;
    for (const model::StackSegment &seg : stack)
      for (const model::LayerKind &k : seg.pattern)
        if (!llvm::is_contained(kinds, k))
          kinds.push_back(k);
    if (!kinds.empty()) {
      c.layerBlocks = kinds.front().blocks;
      c.attention.fullAttention = kinds.front().fullAttention;
    }
    if (kinds.size() > 1)
      c.stack = std::move(stack);
  }
  model::setParam(c, Param::Layers, numLayers);
  hasVocab = stated.contains(Param::Vocab);
  // Without an embedding or head, the smallest vocabulary the rules accept
  // (one row per rank of the degree that splits it); the search leaves it.
  if (!hasVocab)
    model::setParam(c, Param::Vocab,
                    model::getParam(c, *model::paramInfo(Param::Vocab).splitBy));
  return c;
}

void tshape::applyModelConfig(func::FuncOp fn, const model::ModelConfig &from,
                              const model::ModelConfig &to) {
  using namespace ::tshape;
  using model::getParam;
  using model::Param;
  Builder b(fn.getContext());
  // Each block op states `to`, and retypes its own result.
  fn.walk([&](BlockOpInterface op) { op.writeConfig(to); });
  const int64_t hiddenFrom = getParam(from, Param::Hidden),
                hiddenTo = getParam(to, Param::Hidden),
                batch = getParam(from, Param::Microbatch),
                seq = getParam(from, Param::Seq);
  // Retype the other b x s x hidden activations: block arguments and the
  // results of ops outside the interface (blocks, repeats).
  auto retype = [&](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getRank() != 3 || t.getDimSize(0) != batch ||
        t.getDimSize(1) != seq || t.getDimSize(2) != hiddenFrom)
      return;
    v.setType(
        RankedTensorType::get({batch, seq, hiddenTo}, t.getElementType()));
  };
  if (hiddenFrom != hiddenTo)
    fn.walk([&](Operation *op) {
      for (Region &r : op->getRegions())
      for (Block &blk : r)
          for (BlockArgument arg : blk.getArguments())
            retype(arg);
      if (!isa<BlockOpInterface>(op))
        for (Value res : op->getResults())
          retype(res);
    });
  Block &entry = fn.getBody().front();
  fn.setFunctionType(b.getFunctionType(
      entry.getArgumentTypes(),
      entry.getTerminator()->getOperandTypes()));
}

DictionaryAttr tshape::architectureAttr(MLIRContext *ctx,
                                        const model::Architecture &arch) {
  Builder b(ctx);
  SmallVector<NamedAttribute> entries;
  for (const auto &[field, v] : model::changedArchFields(arch)) {
    Attribute a;
    switch (v.kind) {
    case model::ArchValue::Bool:
      a = b.getBoolAttr(v.b);
      break;
    case model::ArchValue::Int:
      a = b.getI64IntegerAttr(v.i);
      break;
    case model::ArchValue::Real:
      a = b.getF64FloatAttr(v.d);
      break;
    case model::ArchValue::Choice:
      a = b.getStringAttr(v.s);
      break;
    }
    entries.push_back(b.getNamedAttr(field->key, a));
  }
  return b.getDictionaryAttr(entries);
}

bool tshape::parseArchitecture(DictionaryAttr dict, model::Architecture &arch,
                               std::string &error) {
  arch = model::Architecture();
  arch.stated = true;
  for (NamedAttribute entry : dict) {
    StringRef key = entry.getName().getValue();
    const model::ArchField *field = nullptr;
    for (const model::ArchField &f : model::archFields())
      if (key == f.key)
        field = &f;
    if (!field) {
      std::string known;
      for (const model::ArchField &f : model::archFields())
        known += std::string(known.empty() ? "" : ", ") + f.key;
      error = "tshape.architecture: unknown key '" + key.str() +
              "' (known: " + known + ")";
      return false;
    }
    model::ArchValue v;
    v.kind = field->kind;
    Attribute a = entry.getValue();
    bool ok = false;
    switch (field->kind) {
    case model::ArchValue::Bool:
      if (auto x = dyn_cast<BoolAttr>(a)) {
        v.b = x.getValue();
        ok = true;
      }
      break;
    case model::ArchValue::Int:
      if (auto x = dyn_cast<IntegerAttr>(a); x && !isa<BoolAttr>(a)) {
        v.i = x.getInt();
        ok = v.i >= 0;
      }
      break;
    case model::ArchValue::Real:
      if (auto x = dyn_cast<FloatAttr>(a)) {
        v.d = x.getValueAsDouble();
        ok = std::isfinite(v.d) && v.d >= 0;
      } else if (auto y = dyn_cast<IntegerAttr>(a); y && !isa<BoolAttr>(a)) {
        v.d = double(y.getInt());
        ok = v.d >= 0;
      }
      break;
    case model::ArchValue::Choice:
      if (auto x = dyn_cast<StringAttr>(a)) {
        v.s = x.str();
        ok = true;
      }
      break;
    }
    static const char *kKinds[] = {"true or false", "a non-negative integer",
                                   "a non-negative number", "a string"};
    if (!ok) {
      error = "tshape.architecture: '" + key.str() + "' expects " +
              kKinds[field->kind];
      return false;
    }
    if (!field->set(arch, v)) {
      error = "tshape.architecture: '" + key.str() + "' is '" + v.s +
              "', expected one of " + field->choices;
      return false;
    }
  }
  return true;
}
