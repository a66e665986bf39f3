//===- ModelBuilder.cpp - Build tshape IR from a ModelConfig --------------===//
//
// Emits one function per model: embedding, a tshape.repeat of one block,
// and the LM head, with the parallel and math attributes on the function.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Import/HFConfig.h"

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
  auto tokensT = RankedTensorType::get({c.microbatch, c.seq},
                                       b.getIntegerType(32));
  auto actT = RankedTensorType::get({c.microbatch, c.seq, c.hidden}, elt);
  auto logitsT = RankedTensorType::get({c.microbatch, c.seq, c.vocab}, elt);
  auto fn = func::FuncOp::create(b, loc, symbolName(c.name),
                                 b.getFunctionType({tokensT}, {logitsT}));
  fn->setAttr(tshape::TShapeDialect::kParallelAttrName,
              tshape::ParallelAttr::get(ctx, c.tp));
  if (c.dtype == tshape::model::DType::TF32)
    fn->setAttr(tshape::TShapeDialect::kMathAttrName,
                tshape::MathModeAttr::get(
                    ctx, tshape::MathMode::tf32));
  Block *entry = fn.addEntryBlock();
  b.setInsertionPointToEnd(entry);

  Value x = tshape::EmbeddingOp::create(b, loc, actT, entry->getArgument(0),
                                              c.vocab);
  auto repeat = tshape::RepeatOp::create(b, loc, x, c.layers);
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
      IntegerAttr headDim =
          c.attention.headDim ? b.getI64IntegerAttr(c.attention.headDim)
                              : IntegerAttr();
      Value a = tshape::AttentionOp::create(
          b, loc, actT, in, c.attention.heads, c.attention.kvHeads, headDim,
          c.attention.causal, c.attention.fused);
      Value m = tshape::MLPOp::create(
          b, loc, actT, parallel ? in : a, c.mlp.inner,
          toIR(c.mlp.activation), c.mlp.gated);
      if (parallel)
        tshape::YieldOp::create(b, loc, ValueRange{a, m});
      else
        tshape::YieldOp::create(b, loc, ValueRange{m});
    }
    tshape::YieldOp::create(b, loc, ValueRange{block.getResult()});
  }
  Value logits = tshape::LMHeadOp::create(
      b, loc, logitsT, repeat.getResult(), c.vocab, c.tiedEmbeddings);
  func::ReturnOp::create(b, loc, logits);
  return module;
}
