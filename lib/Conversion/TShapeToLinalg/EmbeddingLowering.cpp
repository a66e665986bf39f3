//===- EmbeddingLowering.cpp - Lower tshape.embedding and tshape.lm_head ---===//
//
// The embedding lookup (no GEMM: a gather from the rank-local table, whose
// rows are the LM head's share of the vocabulary) and the LM head's logits
// GEMM (Blocks/Embedding.cpp), which a tied head computes with the
// embedding's table.
//
//===----------------------------------------------------------------------===//

#include "tshape/Conversion/TShapeToLinalg/Lowerer.h"

using namespace mlir;
using namespace tshape;
using namespace tshape::lowering;

Value tshape::lowering::lowerEmbedding(Lowerer &l, Operation *opaque,
                                       Value tokens) {
  auto op = cast<EmbeddingOp>(opaque);
  ImplicitLocOpBuilder &b = l.builder();
  // Rank-local table [v/t, h]; token ids are taken modulo v/t (the
  // vocab-parallel lookup and its all-reduce are not GEMMs).
  int64_t h = op.getResult().getType().getDimSize(2);
  // The rank's share of the vocabulary, as the LM head's GEMM has it.
  model::ModelConfig c = l.config(op);
  int64_t vRank =
      Lowerer::find(l.kernels(model::BlockKind::LMHead, c, -1),
                    model::Role::Logits)
          ->n.value;
  l.embeddingTable = l.weight({vRank, h});
  Value table = l.embeddingTable;
  // The positions the run computes ([b, s], or a decode step's last q).
  auto resultT = op.getResult().getType();
  Value init = tensor::EmptyOp::create(
      b, ArrayRef<int64_t>{l.batchSize(), l.queryTokens(), h},
      resultT.getElementType());
  MLIRContext *ctx = b.getContext();
  AffineMap tokMap = AffineMap::get(
      3, 0, {getAffineDimExpr(0, ctx), getAffineDimExpr(1, ctx)}, ctx);
  AffineMap id = b.getMultiDimIdentityMap(3);
  SmallVector<utils::IteratorType> iters(3, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, TypeRange{init.getType()}, ValueRange{tokens}, ValueRange{init},
      ArrayRef<AffineMap>{tokMap, id}, iters,
      [&](OpBuilder &ob, Location loc, ValueRange args) {
        ImplicitLocOpBuilder nb(loc, ob);
        Value tok = arith::IndexCastOp::create(nb, nb.getIndexType(), args[0]);
        Value vr = arith::ConstantIndexOp::create(nb, vRank);
        Value row = arith::RemUIOp::create(nb, tok, vr);
        Value col = linalg::IndexOp::create(nb, 2);
        Value v = tensor::ExtractOp::create(nb, table, ValueRange{row, col});
        linalg::YieldOp::create(nb, v);
      });
  return generic.getResult(0);
}

Value tshape::lowering::lowerLMHead(Lowerer &l, Operation *opaque, Value x) {
  auto op = cast<LMHeadOp>(opaque);
  model::ModelConfig c = l.config(op);
  Value x2 = l.to2D(x);
  // A tied head reads the embedding table as its [v/t, h] weight.
  Value tied = op.getTied() ? l.embeddingTable : Value();
  Value logits =
      l.linear(*Lowerer::find(l.kernels(model::BlockKind::LMHead, c, -1),
                              model::Role::Logits),
               x2, &l.tapeSteps(), tied);
  return l.to3D(logits);
}
