//===- Params.cpp - The vocabulary of hyperparameters ---------------------===//
//
// The table of parameters, and the one map from a parameter to the field of
// ModelConfig that holds it.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Params.h"
#include "tshape/Model/Transformer.h"

using namespace tshape::model;

namespace {
// One accessor pair per field. The macro keeps each row to the field's name.
#define TSHAPE_FIELD(expr)                                                     \
  [](const ModelConfig &c) -> int64_t { return c.expr; },                      \
      [](ModelConfig & c, int64_t v) { c.expr = v; }

// clang-format off
const ParamInfo kParams[kNumParams] = {
  {Param::Microbatch, "microbatch", ParamKind::Run, "", "",
   "--micro-batch-size", std::nullopt, "", false, false,
   false, TSHAPE_FIELD(microbatch), nullptr},
  {Param::Seq, "seq", ParamKind::Run, "", "",
   "--seq-length", std::nullopt, "", true, false, false, TSHAPE_FIELD(seq), nullptr},
  {Param::Hidden, "hidden", ParamKind::Hyperparam, "",
   "hidden_size,n_embd,n_embed,d_model", "--hidden-size", std::nullopt, "", true,
   false, false, TSHAPE_FIELD(hidden), nullptr},
  {Param::Heads, "heads", ParamKind::Hyperparam, "heads",
   "num_attention_heads,n_head,num_heads,n_heads", "--num-attention-heads", Param::Tp,
   "A3", true, false, false, TSHAPE_FIELD(attention.heads), nullptr},
  // Key/value heads are replicated when the degree exceeds them (rule A4
  // accepts a degree that is a multiple of kv_heads; Parallelism.cpp).
  {Param::KvHeads, "kv_heads", ParamKind::Hyperparam, "kv_heads",
   "num_key_value_heads,num_kv_heads,kv_n_heads,n_head_kv,multi_query_group_num", "--num-query-groups",
   Param::Tp, "A4", true, false, false, TSHAPE_FIELD(attention.kvHeads), nullptr},
  {Param::HeadDim, "head_dim", ParamKind::Hyperparam, "head_dim",
   "head_dim,kv_channels", "--kv-channels", std::nullopt, "", true, true,
   false, TSHAPE_FIELD(attention.headDim), nullptr},
  {Param::Ffn, "ffn", ParamKind::Hyperparam, "inner",
   "intermediate_size,n_inner,ffn_dim,ffn_hidden_size,intermediate_size_mlp", "--ffn-hidden-size",
   // 0: no dense MLP (a model whose every layer is MoE); a layer with an
   // MLP block needs it positive (checkModel, MLPOp::verify).
   Param::Tp, "M1", true, true, false, TSHAPE_FIELD(mlp.inner), nullptr},
  // Megatron-LM pads the tokenizer's vocabulary to a multiple of this
  // times the degree that splits it; the writer solves for it (Megatron.cpp).
  {Param::Vocab, "vocab", ParamKind::Hyperparam, "vocab", "vocab_size,padded_vocab_size",
   "--make-vocab-size-divisible-by", Param::Tp, "V1", true, false,
   true, TSHAPE_FIELD(vocab), nullptr},
  {Param::Layers, "layers", ParamKind::Hyperparam, "layers",
   "num_hidden_layers,n_layer,num_layers,n_layers", "--num-layers", std::nullopt, "",
   false, false, false, TSHAPE_FIELD(layers), nullptr},
  // The mixture-of-experts block (Blocks/Moe.cpp); 0 in a dense model.
  // Experts are split over the expert-parallel ranks (rule E1); an expert's
  // inner size is split by tp as the dense MLP's is (Megatron-LM's expert
  // tensor parallelism defaults to tp), rules M2 and M3.
  {Param::Experts, "experts", ParamKind::Hyperparam, "experts",
   "num_local_experts,num_experts,moe_num_experts,n_routed_experts",
   "--num-experts",
   Param::Ep, "E1", true, true, false, TSHAPE_FIELD(moe.experts), nullptr},
  // Searchable on request only (vary=...,experts,topk): defaultVary in
  // Advise/ShapeSearch.h leaves them out.
  {Param::TopK, "topk", ParamKind::Hyperparam, "topk",
   "num_experts_per_tok,experts_per_token,moe_top_k", "--moe-router-topk",
   std::nullopt, "", true, true, false, TSHAPE_FIELD(moe.topk), nullptr},
  {Param::MoeFfn, "moe_ffn", ParamKind::Hyperparam, "inner",
   "moe_intermediate_size,ffn_hidden_size,intermediate_size",
   "--moe-ffn-hidden-size", Param::Tp, "M2", true, true, false,
   TSHAPE_FIELD(moe.inner), nullptr},
  // Megatron-LM takes the shared experts' total inner size
  // (--moe-shared-expert-intermediate-size = count x this); Megatron.cpp.
  {Param::SharedExperts, "shared_experts", ParamKind::Hyperparam,
   "shared_experts", "n_shared_experts", "", std::nullopt, "", false, true, false,
   TSHAPE_FIELD(moe.sharedExperts), nullptr},
  {Param::SharedFfn, "shared_ffn", ParamKind::Hyperparam, "shared_inner",
   "shared_expert_intermediate_size", "", Param::Tp, "M3", true, true,
   false, TSHAPE_FIELD(moe.sharedInner), nullptr},
  // A routing option, not a weight: 125 prices the busiest expert at 1.25x
  // the balanced load (a capacity factor); 0 or 100 is balanced.
  {Param::Capacity, "capacity", ParamKind::Hyperparam, "capacity", "", "",
   std::nullopt, "", false, true, false, TSHAPE_FIELD(moe.capacity),
   "expert capacity (percent of the balanced load)"},
  // Sliding-window (Mistral, Gemma 2/3, gpt-oss) or chunked (Llama 4)
  // attention: the keys one query of a windowed layer sees. Which layers
  // are windowed is per layer (LayerKind::fullAttention); 0: no window.
  {Param::Window, "window", ParamKind::Hyperparam, "window",
   "sliding_window,attention_chunk_size", "", std::nullopt, "", true, true,
   false, TSHAPE_FIELD(attention.window), "attention window"},
  // Multi-head latent attention (Blocks/Mla.cpp); 0 in a model without it.
  // Megatron-LM splits the heads by tp and keeps the latent ranks whole:
  // the down projections are duplicated on every rank (TELinear,
  // parallel_mode 'duplicated', multi_latent_attention.py), so none of
  // these is split. Searchable, but only when named in `vary=` (the
  // default vary list is vocab, heads, ffn): a rank changes the model.
  // Megatron-LM's --qk-head-dim is the part without rotary embedding.
  {Param::QLoraRank, "q_lora_rank", ParamKind::Hyperparam, "q_lora_rank",
   "q_lora_rank", "--q-lora-rank", std::nullopt, "", true, true, false,
   TSHAPE_FIELD(mla.qLoraRank), "query latent rank"},
  {Param::KvLoraRank, "kv_lora_rank", ParamKind::Hyperparam, "kv_lora_rank",
   "kv_lora_rank", "--kv-lora-rank", std::nullopt, "", true, true, false,
   TSHAPE_FIELD(mla.kvLoraRank), "key/value latent rank"},
  {Param::QkNopeDim, "qk_nope_head_dim", ParamKind::Hyperparam,
   "qk_nope_head_dim", "qk_nope_head_dim", "--qk-head-dim", std::nullopt, "",
   true, true, false, TSHAPE_FIELD(mla.qkNopeDim), nullptr},
  {Param::QkRopeDim, "qk_rope_head_dim", ParamKind::Hyperparam,
   "qk_rope_head_dim", "qk_rope_head_dim", "--qk-pos-emb-head-dim",
   std::nullopt, "", true, true, false, TSHAPE_FIELD(mla.qkRopeDim), nullptr},
  {Param::VHeadDim, "v_head_dim", ParamKind::Hyperparam, "v_head_dim",
   "v_head_dim", "--v-head-dim", std::nullopt, "", true, true, false,
   TSHAPE_FIELD(mla.vHeadDim), nullptr},
  {Param::Tp, "tp", ParamKind::Degree, "tp", "",
   "--tensor-model-parallel-size", std::nullopt, "", false, false,
   false, TSHAPE_FIELD(parallel.tp), "tensor-parallel degree"},
  {Param::Pp, "pp", ParamKind::Degree, "pp", "",
   "--pipeline-model-parallel-size", std::nullopt, "", false, false,
   false, TSHAPE_FIELD(parallel.pp), "pipeline-parallel degree"},
  // Megatron-LM derives the data-parallel degree from the world size.
  {Param::Dp, "dp", ParamKind::Degree, "dp", "", "", std::nullopt, "", false,
   false, false, TSHAPE_FIELD(parallel.dp), "data-parallel degree"},
  {Param::Ep, "ep", ParamKind::Degree, "ep", "",
   "--expert-model-parallel-size", std::nullopt, "", false, false,
   false, TSHAPE_FIELD(parallel.ep), "expert-parallel degree"},
  {Param::Cp, "cp", ParamKind::Degree, "cp", "", "--context-parallel-size",
   std::nullopt, "", false, false, false, TSHAPE_FIELD(parallel.cp),
   "context-parallel degree"},
};
// clang-format on
#undef TSHAPE_FIELD

const std::array<Param, kNumParams> kAll = [] {
  std::array<Param, kNumParams> a{};
  for (size_t i = 0; i < kNumParams; ++i)
    a[i] = Param(i);
  return a;
}();
} // namespace

const ParamInfo &tshape::model::paramInfo(Param p) {
  return kParams[size_t(p)];
}

const std::array<Param, kNumParams> &tshape::model::allParams() {
  return kAll;
}

std::optional<Param> tshape::model::parseParam(std::string_view name) {
  for (const ParamInfo &i : kParams)
    if (name == i.name)
      return i.param;
  return std::nullopt;
}

std::string tshape::model::searchableParamNames() {
  std::string s;
  for (const ParamInfo &i : kParams)
    if (i.searchable)
      s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}
