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

/// Creates the block op `OpTy` reading `input`, with result type `type`,
/// and states `c` on it (BlockOpInterface::writeConfig): the attributes
/// have one writer.
template <typename OpTy>
Value createBlockOp(OpBuilder &b, Location loc, Type type, Value input,
                    const tshape::model::ModelConfig &c) {
  OperationState state(loc, OpTy::getOperationName());
  state.addOperands(input);
  state.addTypes(type);
  auto op = cast<tshape::BlockOpInterface>(b.create(state));
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
  if (c.dtype == tshape::model::DType::TF32)
    fn->setAttr(tshape::TShapeDialect::kMathAttrName,
                tshape::MathModeAttr::get(
                    ctx, tshape::MathMode::tf32));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  Value x = createBlockOp<tshape::EmbeddingOp>(b, loc, actT,
                                               entry->getArgument(0), c);
  auto repeat =
      tshape::RepeatOp::create(b, loc, x, getParam(c, Param::Layers));
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToEnd(&repeat.getBody().front());
    Value layerIn = repeat.getBody().front().getArgument(0);
    bool parallel = c.residual == tshape::model::ResidualMode::Parallel;
    auto block = tshape::BlockOp::create(
        b, loc, layerIn,
        parallel ? tshape::ResidualMode::parallel
                 : tshape::ResidualMode::sequential);
    {
      OpBuilder::InsertionGuard g2(b);
      Block &body = block.getBody().front();
      b.setInsertionPointToEnd(&body);
      Value in = body.getArgument(0);
      Value a = createBlockOp<tshape::AttentionOp>(b, loc, actT, in, c);
      Value m =
          createBlockOp<tshape::MLPOp>(b, loc, actT, parallel ? in : a, c);
      if (parallel)
        tshape::YieldOp::create(b, loc, ValueRange{a, m});
      else
        tshape::YieldOp::create(b, loc, ValueRange{m});
    }
    tshape::YieldOp::create(b, loc, ValueRange{block.getResult()});
  }
  Value logits = createBlockOp<tshape::LMHeadOp>(b, loc, logitsT,
                                                 repeat.getResult(), c);
  func::ReturnOp::create(b, loc, logits);
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
  // The first op of each config group, the layers of each sub-layer block
  // (each op times its enclosing repeats), and every parameter stated.
  llvm::StringMap<BlockOpInterface> groupFirst;
  llvm::StringMap<int64_t> layers;
  llvm::SmallSetVector<Param, 8> stated;
  BlockOpInterface firstSubLayer;
  bool conflict = false;
  std::string why;
  // The residual blocks: their sub-layers' blocks (the same in each) and
  // how many layers they stand for.
  std::optional<std::vector<model::BlockKind>> blockLayout;
  int64_t blockLayers = 0;
  fn.walk([&](Operation *op) {
    if (auto b = dyn_cast<BlockOp>(op)) {
      c.residual = b.getMode() == ResidualMode::parallel
                       ? model::ResidualMode::Parallel
                       : model::ResidualMode::Sequential;
      std::vector<model::BlockKind> kinds;
      for (BlockOpInterface sub : b.getSubLayers())
        if (auto k = model::parseBlock(sub.getBlockName()))
          kinds.push_back(*k);
      if (blockLayout && *blockLayout != kinds) {
        conflict = true;
        why = "blocks hold different sub-layers";
      }
      blockLayout = kinds;
      blockLayers += repeatMultiplicity(op);
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
  // MLP).
  if (!stated.contains(Param::Heads) || !stated.contains(Param::Ffn)) {
    error = "the function needs a tshape.attention and a tshape.mlp";
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
  int64_t numLayers = 0;
  for (const auto &entry : layers)
    numLayers = std::max(numLayers, entry.getValue());
  if (blockLayout) {
    c.layerBlocks = *blockLayout;
    numLayers = blockLayers;
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
