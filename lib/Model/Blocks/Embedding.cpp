//===- Embedding.cpp - The embedding and LM head blocks -------------------===//
//
// The embedding lookup is no GEMM; its table (v x h) is its weight. The LM
// head is the once-per-model GEMM (b*s x h).(h x v/t); a tied head reads
// the embedding's table and owns no weight of its own.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

using namespace tshape::model;

std::vector<Kernel> tshape::model::embeddingKernels(const ModelConfig &,
                                                    const RunShape &,
                                                    int64_t) {
  return {};
}

std::vector<Kernel> tshape::model::lmHeadKernels(const ModelConfig &c,
                                                 const RunShape &run,
                                                 int64_t layer) {
  return {blockGemm(bindings(c), Role::Logits, layer, DimExpr(), run.tokens(),
                    perRank(Param::Vocab), DimExpr::param(Param::Hidden),
                    false, true)};
}

std::optional<int64_t> tshape::model::embeddingWeights(const ModelConfig &c) {
  // The table: one row of hidden size per token, split as the vocabulary is
  // (the LM head's share); learned position tables are not counted.
  return (perRank(Param::Vocab) * DimExpr::param(Param::Hidden))
      .eval(bindings(c));
}

std::optional<int64_t> tshape::model::lmHeadWeights(const ModelConfig &c) {
  // Its projection unless tied to the embedding table, and the final norm's
  // gain.
  std::optional<int64_t> head =
      c.tiedEmbeddings ? 0 : gemmWeights(lmHeadKernels(c, RunShape(), -1));
  return checkedAdd(head, c.hidden);
}
