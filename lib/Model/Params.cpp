//===- Params.cpp - The vocabulary of hyperparameters ---------------------===//

#include "tshape/Model/Params.h"

using namespace tshape::model;

namespace {
// clang-format off
const ParamInfo kParams[kNumParams] = {
  {Param::Microbatch, "microbatch", ParamKind::Run, "", "",
   "--micro-batch-size", std::nullopt, false},
  {Param::Seq, "seq", ParamKind::Run, "", "",
   "--seq-length", std::nullopt, true},
  {Param::Hidden, "hidden", ParamKind::Hyperparam, "",
   "hidden_size,n_embd,n_embed", "--hidden-size", std::nullopt, true},
  {Param::Heads, "heads", ParamKind::Hyperparam, "heads",
   "num_attention_heads,n_head,num_heads", "--num-attention-heads", Param::Tp,
   true},
  {Param::KvHeads, "kv_heads", ParamKind::Hyperparam, "kv_heads",
   "num_key_value_heads,num_kv_heads", "--num-query-groups",
   Param::Tp, true},
  {Param::HeadDim, "head_dim", ParamKind::Hyperparam, "head_dim",
   "head_dim", "--kv-channels", std::nullopt, true},
  {Param::Ffn, "ffn", ParamKind::Hyperparam, "inner",
   "intermediate_size,n_inner,ffn_dim,ffn_hidden_size", "--ffn-hidden-size",
   Param::Tp, true},
  // Megatron-LM pads the tokenizer's vocabulary to a multiple of this
  // times tp; the exporter solves for it (HFConfig.cpp).
  {Param::Vocab, "vocab", ParamKind::Hyperparam, "vocab", "vocab_size",
   "--make-vocab-size-divisible-by", Param::Tp, true},
  {Param::Layers, "layers", ParamKind::Hyperparam, "layers",
   "num_hidden_layers,n_layer,num_layers", "--num-layers", std::nullopt,
   false},
  {Param::Tp, "tp", ParamKind::Degree, "tp", "",
   "--tensor-model-parallel-size", std::nullopt, false},
};
// clang-format on
} // namespace

const ParamInfo &tshape::model::paramInfo(Param p) {
  return kParams[size_t(p)];
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
    if (i.searchable && i.kind == ParamKind::Hyperparam)
      s += (s.empty() ? "" : ", ") + std::string(i.name);
  return s;
}
