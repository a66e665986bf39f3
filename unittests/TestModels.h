//===- TestModels.h - Model configs shared by the cost-model tests -*- C++ -*-===//
//
// The small model the memory and step-time tests derive by hand, and the
// GPT of the Megatron-LM papers (Narayanan et al. 2021, Korthikanti et al.
// 2022; parallel-notes.md).
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_UNITTESTS_TESTMODELS_H
#define TSHAPE_UNITTESTS_TESTMODELS_H

#include "tshape/Model/Transformer.h"

namespace tshape::testmodels {

/// h = 64, a = 4, f = 256, v = 128, L = 4, s = 16, b = 2, untied, MHA,
/// unfused attention, bf16. Per layer 12 h^2 = 49,152 GEMM weights and two
/// norm gains (128); embedding and LM head v h = 8192 each, plus the final
/// norm gain (64).
inline model::ModelConfig smallModel() {
  model::ModelConfig c;
  c.microbatch = 2;
  c.seq = 16;
  c.hidden = 64;
  c.vocab = 128;
  c.layers = 4;
  c.attention.heads = 4;
  c.attention.kvHeads = 4;
  c.mlp.inner = 256;
  return c;
}

/// Megatron-LM's GPT: s = 2048, v = 51,200, f = 4h, MHA, tied embeddings.
inline model::ModelConfig megatronGpt(int64_t heads, int64_t hidden,
                                      int64_t layers, int64_t microbatch) {
  model::ModelConfig c;
  c.microbatch = microbatch;
  c.seq = 2048;
  c.hidden = hidden;
  c.vocab = 51200;
  c.layers = layers;
  c.attention.heads = heads;
  c.attention.kvHeads = heads;
  c.mlp.inner = 4 * hidden;
  c.tiedEmbeddings = true;
  return c;
}

/// One sequence of `seq` tokens through causal fused attention: `heads`
/// query heads sharing `kvHeads`, hidden `hidden` (head dim hidden/heads),
/// at tensor parallelism `tp`; the attention-kernel tests' model.
inline model::ModelConfig fusedAttentionModel(int64_t heads, int64_t kvHeads,
                                              int64_t hidden, int64_t seq,
                                              int64_t tp = 1) {
  model::ModelConfig c;
  c.microbatch = 1;
  c.seq = seq;
  c.hidden = hidden;
  c.attention = {heads, kvHeads, 0, /*causal=*/true, /*fused=*/true};
  c.parallel.tp = tp;
  return c;
}

/// One attention + MoE layer (32 heads, 8 kv heads, vocab 32000) at
/// sequence `s`, hidden `h`, `e` experts, top-`k`, expert width `f`, b = 1,
/// t = 1: Mixtral's layer at (4096, 4096, 8, 2, 14336).
inline model::ModelConfig moeLayer(int64_t s, int64_t h, int64_t e, int64_t k,
                                   int64_t f) {
  model::ModelConfig c;
  c.microbatch = 1;
  c.seq = s;
  c.hidden = h;
  c.vocab = 32000;
  c.layers = 1;
  c.attention.heads = 32;
  c.attention.kvHeads = 8;
  c.layerBlocks = {model::BlockKind::Attention, model::BlockKind::Moe};
  c.moe.experts = e;
  c.moe.topk = k;
  c.moe.inner = f;
  return c;
}

} // namespace tshape::testmodels

#endif // TSHAPE_UNITTESTS_TESTMODELS_H
