//===- Megatron.cpp - Megatron-LM arguments for a model -------------------===//

#include "tshape/Interop/Megatron.h"

using namespace tshape;
using namespace tshape::model;

std::string tshape::megatronArguments(const ModelConfig &c,
                                      int64_t originalVocab) {
  // The flag of each parameter comes from the vocabulary (Params.h), its
  // value through the table's accessor.
  auto flagOf = [](Param p) { return model::paramInfo(p).megatronFlag; };
  std::string s;
  auto arg = [&](const char *name, int64_t v) {
    s += std::string(s.empty() ? "" : " ") + name + " " + std::to_string(v);
  };
  auto flag = [&](const char *name) {
    s += std::string(s.empty() ? "" : " ") + name;
  };
  auto value = [&](Param p) { return getParam(c, p); };
  arg(flagOf(Param::Layers), value(Param::Layers));
  arg(flagOf(Param::Hidden), value(Param::Hidden));
  arg(flagOf(Param::Heads), value(Param::Heads));
  if (value(Param::KvHeads) != value(Param::Heads)) {
    flag("--group-query-attention");
    arg(flagOf(Param::KvHeads), value(Param::KvHeads));
  }
  if (value(Param::HeadDim))
    arg(flagOf(Param::HeadDim), value(Param::HeadDim));
  arg(flagOf(Param::Ffn), value(Param::Ffn));
  arg(flagOf(Param::Seq), value(Param::Seq));
  arg("--max-position-embeddings", value(Param::Seq));
  arg(flagOf(Param::Microbatch), value(Param::Microbatch));
  // Degrees: tp always; the others with a flag when they are not 1.
  for (Param p : model::allParams())
    if (model::paramInfo(p).kind == model::ParamKind::Degree &&
        *flagOf(p) && (p == Param::Tp || value(p) != 1))
      arg(flagOf(p), value(p));
  // Megatron pads the tokenizer's vocabulary up to a multiple of
  // (divisible-by x the degree that splits it): pick the largest power of
  // two that lands exactly on the model's vocab.
  const int64_t vocab = value(Param::Vocab),
                split = value(*model::paramInfo(Param::Vocab).splitBy);
  int64_t vo = originalVocab > 0 ? originalVocab : vocab, best = 0;
  for (int64_t x = 1; x <= 8192; x *= 2) {
    int64_t m = x * split;
    if ((vo + m - 1) / m * m == vocab)
      best = x;
  }
  if (best)
    arg(flagOf(Param::Vocab), best);
  else
    s += " # vocab " + std::to_string(vocab) +
         " is not reachable by Megatron's padding from " + std::to_string(vo);
  if (c.mlp.gated && c.mlp.activation == Activation::SiLU)
    flag("--swiglu");
  if (!c.tiedEmbeddings)
    flag("--untie-embeddings-and-output-weights");
  if (c.dtype == DType::BF16)
    flag("--bf16");
  else if (c.dtype == DType::FP16)
    flag("--fp16");
  // What Megatron-LM has no argument for, said rather than dropped.
  if (c.mlp.gated && c.mlp.activation != Activation::SiLU)
    s += "\n# note: a gated non-SiLU MLP (GeGLU) has no Megatron-LM argument";
  if (c.residual == ResidualMode::Parallel)
    s += "\n# note: the parallel attention+MLP residual has no Megatron-LM "
         "argument (GPT-NeoX: gpt_j_residual)";
  return s;
}
