//===- ModelConfigBridge.cpp - tshape IR <-> ModelConfig -------------------===//
//
// buildModelModule emits one function per model: embedding, a
// tshape.repeat of one block, and the LM head, with the parallel and math
// attributes on the function. extractModelConfig reads a function's model
// back, and applyModelConfig rewrites it to another config.
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

tshape::Activation toIR(tshape::model::Activation a) {
  switch (a) {
  case tshape::model::Activation::GELU:
    return tshape::Activation::gelu;
  case tshape::model::Activation::ReLU:
    return tshape::Activation::relu;
  case tshape::model::Activation::SiLU:
    return tshape::Activation::silu;
  }
  return tshape::Activation::gelu;
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

  Value x = tshape::EmbeddingOp::create(b, loc, actT, entry->getArgument(0),
                                        vocab);
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
      const int64_t d = getParam(c, Param::HeadDim);
      IntegerAttr headDim = d ? b.getI64IntegerAttr(d) : IntegerAttr();
      Value a = tshape::AttentionOp::create(
          b, loc, actT, in, getParam(c, Param::Heads),
          getParam(c, Param::KvHeads), headDim, c.attention.causal,
          c.attention.fused);
      Value m = tshape::MLPOp::create(
          b, loc, actT, parallel ? in : a, getParam(c, Param::Ffn),
          toIR(c.mlp.activation), c.mlp.gated);
      if (parallel)
        tshape::YieldOp::create(b, loc, ValueRange{a, m});
      else
        tshape::YieldOp::create(b, loc, ValueRange{m});
    }
    tshape::YieldOp::create(b, loc, ValueRange{block.getResult()});
  }
  Value logits = tshape::LMHeadOp::create(
      b, loc, logitsT, repeat.getResult(), vocab, c.tiedEmbeddings);
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
} // namespace

std::optional<tshape::model::ModelConfig>
tshape::extractModelConfig(func::FuncOp fn, bool &hasVocab,
                           std::string &error) {
  using namespace ::tshape;
  model::ModelConfig c;
  c.name = fn.getName().str();
  c.parallel = getParallelism(fn);
  if (auto t = fn->getAttrOfType<StringAttr>(TShapeDialect::kModelTypeAttrName))
    c.modelType = t.str();
  std::optional<AttentionOp> attn;
  std::optional<MLPOp> mlp;
  int64_t attnLayers = 0, mlpLayers = 0;
  int64_t vocab = 0;
  bool conflict = false;
  std::string why;
  fn.walk([&](Operation *op) {
    if (auto a = dyn_cast<AttentionOp>(op)) {
      if (attn && (attn->getHeads() != a.getHeads() ||
                   attn->getKvHeads() != a.getKvHeads() ||
                   attn->getHeadDim() != a.getHeadDim() ||
                   attn->getInput().getType() != a.getInput().getType())) {
        conflict = true;
        why = "attention ops differ";
      }
      attn = a;
      attnLayers += repeatMultiplicity(op);
    } else if (auto m = dyn_cast<MLPOp>(op)) {
      if (mlp && (mlp->getInner() != m.getInner() ||
                  mlp->getGated() != m.getGated() ||
                  mlp->getInput().getType() != m.getInput().getType())) {
        conflict = true;
        why = "MLP ops differ";
      }
      mlp = m;
      mlpLayers += repeatMultiplicity(op);
    } else if (auto e = dyn_cast<EmbeddingOp>(op)) {
      if (vocab && vocab != (int64_t)e.getVocab()) {
        conflict = true;
        why = "vocabularies differ";
      }
      vocab = e.getVocab();
    } else if (auto h = dyn_cast<LMHeadOp>(op)) {
      if (vocab && vocab != (int64_t)h.getVocab()) {
        conflict = true;
        why = "vocabularies differ";
      }
      vocab = h.getVocab();
      c.tiedEmbeddings = h.getTied();
    } else if (auto b = dyn_cast<BlockOp>(op)) {
      c.residual = b.getMode() == ResidualMode::parallel
                       ? model::ResidualMode::Parallel
                       : model::ResidualMode::Sequential;
    }
  });
  if (conflict) {
    error = "the function's layers are not all the same shape (" + why +
            "); shape search needs one layer configuration";
    return std::nullopt;
  }
  if (!attn || !mlp) {
    error = "the function needs a tshape.attention and a tshape.mlp";
    return std::nullopt;
  }
  using model::Param;
  using model::setParam;
  RankedTensorType t = attn->getInput().getType();
  setParam(c, Param::Microbatch, t.getDimSize(0));
  setParam(c, Param::Seq, t.getDimSize(1));
  setParam(c, Param::Hidden, t.getDimSize(2));
  Type elt = t.getElementType();
  std::optional<model::DType> dtype = gemmDType(*attn, elt);
  if (!dtype) {
    std::string s;
    llvm::raw_string_ostream os(s);
    os << elt;
    error = "element type " + s + " has no GEMM model (expected bf16, f16, "
            "f32 or an f8 type)";
    return std::nullopt;
  }
  c.dtype = *dtype;
  setParam(c, Param::Heads, attn->getHeads());
  setParam(c, Param::KvHeads, attn->getKvHeads());
  setParam(c, Param::HeadDim, attn->getHeadDim().value_or(0));
  c.attention.causal = attn->getCausal();
  c.attention.fused = attn->getFused();
  setParam(c, Param::Ffn, mlp->getInner());
  c.mlp.gated = mlp->getGated();
  switch (mlp->getActivation()) {
  case Activation::gelu:
    c.mlp.activation = model::Activation::GELU;
    break;
  case Activation::relu:
    c.mlp.activation = model::Activation::ReLU;
    break;
  case Activation::silu:
    c.mlp.activation = model::Activation::SiLU;
    break;
  }
  setParam(c, Param::Layers, std::max(attnLayers, mlpLayers));
  hasVocab = vocab > 0;
  // Without an embedding or head, the smallest vocabulary the rules accept
  // (one row per rank of the degree that splits it); the search leaves it.
  setParam(c, Param::Vocab,
           hasVocab ? vocab
                    : model::getParam(
                          c, *model::paramInfo(Param::Vocab).splitBy));
  return c;
}

void tshape::applyModelConfig(func::FuncOp fn, const model::ModelConfig &from,
                              const model::ModelConfig &to) {
  using namespace ::tshape;
  using model::getParam;
  using model::Param;
  Builder b(fn.getContext());
  const int64_t vocab = getParam(to, Param::Vocab);
  fn.walk([&](Operation *op) {
    if (auto a = dyn_cast<AttentionOp>(op)) {
      a.setHeads(getParam(to, Param::Heads));
      a.setKvHeads(getParam(to, Param::KvHeads));
    } else if (auto m = dyn_cast<MLPOp>(op)) {
      m.setInner(getParam(to, Param::Ffn));
    } else if (auto e = dyn_cast<EmbeddingOp>(op)) {
      e.setVocab(vocab);
    } else if (auto h = dyn_cast<LMHeadOp>(op)) {
      h.setVocab(vocab);
    }
  });
  const int64_t hiddenFrom = getParam(from, Param::Hidden),
                hiddenTo = getParam(to, Param::Hidden),
                vocabFrom = getParam(from, Param::Vocab),
                batch = getParam(from, Param::Microbatch),
                seq = getParam(from, Param::Seq);
  if (hiddenFrom == hiddenTo && vocabFrom == vocab)
    return;
  // Retype b x s x hidden activations and b x s x vocab logits.
  auto retype = [&](Value v) {
    auto t = dyn_cast<RankedTensorType>(v.getType());
    if (!t || t.getRank() != 3 || t.getDimSize(0) != batch ||
        t.getDimSize(1) != seq)
      return;
    int64_t last = t.getDimSize(2);
    bool isLogits = v.getDefiningOp<LMHeadOp>() != nullptr;
    int64_t next = isLogits ? (last == vocabFrom ? vocab : last)
                            : (last == hiddenFrom ? hiddenTo : last);
    if (next != last)
      v.setType(
          RankedTensorType::get({batch, seq, next}, t.getElementType()));
  };
  fn.walk([&](Operation *op) {
    for (Region &r : op->getRegions())
      for (Block &blk : r)
        for (BlockArgument arg : blk.getArguments())
          retype(arg);
    for (Value res : op->getResults())
      retype(res);
  });
  Block &entry = fn.getBody().front();
  fn.setFunctionType(b.getFunctionType(
      entry.getArgumentTypes(),
      entry.getTerminator()->getOperandTypes()));
}
