//===- Plan.cpp - Training and serving plans ------------------------------===//
//
// The names of a training plan's choices, its pipeline stages' layers
// (Megatron-LM's uneven layouts), and a serving plan's degrees and rules.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Plan.h"

#include <algorithm>

using namespace tshape;
using namespace tshape::cost;
using model::ModelConfig;
using model::Param;

const char *tshape::cost::scheduleName(PipelineSchedule s) {
  return s == PipelineSchedule::OneFOneB ? "1f1b" : "interleaved";
}

const char *tshape::cost::recomputeName(Recompute r) {
  switch (r) {
  case Recompute::None:
    return "none";
  case Recompute::Selective:
    return "selective";
  case Recompute::Full:
    return "full";
  }
  return "?";
}

std::string tshape::cost::recomputeText(Recompute r,
                                        model::RecomputeModules modules) {
  if (r != Recompute::Selective ||
      modules == model::RecomputeModules(model::RecomputeModule::CoreAttn))
    return recomputeName(r);
  return "selective (" + model::recomputeModulesText(modules, ", ") + ")";
}

const char *tshape::cost::shardingName(StateSharding s) {
  switch (s) {
  case StateSharding::None:
    return "none";
  case StateSharding::DistributedOptimizer:
    return "distributed optimizer";
  case StateSharding::Fsdp:
    return "fsdp";
  }
  return "?";
}

std::vector<int64_t> tshape::cost::stageLayers(const ModelConfig &c,
                                               const TrainingPlan &plan,
                                               std::string *error) {
  auto fail = [&](const std::string &why) {
    if (error)
      *error = why;
    return std::vector<int64_t>();
  };
  const int64_t p = c.parallel.pp, layers = getParam(c, Param::Layers);
  const int64_t first = plan.firstStageLayers, last = plan.lastStageLayers;
  if (p < 1)
    return fail("pp must be at least 1");
  auto n = [](int64_t v) { return std::to_string(v); };
  if (plan.layout) {
    // Each rank's chunks: j, j + pp, ... (pipeline_parallel_layer_layout.py:
    // 49-55).
    if (first || last || plan.embeddingInSplit || plan.lossInSplit)
      return fail("a pipeline layout cannot be combined with first and last "
                  "stage layer counts or the embedding or loss in the split "
                  "(Megatron-LM, transformer_config.py:2242-2259)");
    std::string bad = checkPipelineLayout(*plan.layout, p, layers,
                                          std::max<int64_t>(0, c.arch.mtpLayers));
    if (!bad.empty())
      return fail(bad);
    if (plan.layout->virtualStages(p) != std::max<int64_t>(1, plan.virtualStages))
      return fail("pipeline layout '" + plan.layout->text + "' has " +
                  n(int64_t(plan.layout->chunks.size())) + " stages, pp x v = " +
                  n(p * std::max<int64_t>(1, plan.virtualStages)));
    std::vector<int64_t> out(size_t(p), 0);
    for (size_t j = 0; j < plan.layout->chunks.size(); ++j)
      out[j % size_t(p)] += plan.layout->decoderLayers(j);
    return out;
  }
  if (plan.embeddingInSplit || plan.lossInSplit) {
    // transformer_config.py:2229-2239, 2373-2415; transformer_block.py:
    // 147-203.
    if (first || last)
      return fail("the embedding or loss in the pipeline split cannot be "
                  "combined with first and last stage layer counts "
                  "(Megatron-LM, transformer_config.py:2229)");
    const int64_t v = std::max<int64_t>(1, plan.virtualStages);
    const int64_t slots = layers + plan.embeddingInSplit + plan.lossInSplit;
    if (slots % (p * v))
      return fail(n(layers) + " layers" +
                  (plan.embeddingInSplit ? " + the embedding" : "") +
                  (plan.lossInSplit ? " + the loss" : "") + " = " +
                  n(slots) + " not divisible by pp x v = " + n(p * v) +
                  " (Megatron-LM, transformer_config.py:2373-2415)");
    const int64_t chunk = slots / (p * v);
    if (chunk < 1)
      return fail("a model chunk would hold no decoder layer: " + n(slots) +
                  " slots over pp x v = " + n(p * v));
    std::vector<int64_t> out(size_t(p), chunk * v);
    out.front() -= plan.embeddingInSplit;
    out.back() -= plan.lossInSplit;
    return out;
  }
  if (!first && !last)
    return std::vector<int64_t>(size_t(p), layers / p);
  if (first < 0 || last < 0)
    return fail("stage layers must be positive, got first " + n(first) +
                ", last " + n(last));
  if (p < 2)
    return fail("uneven first and last stages need pp >= 2, got pp " + n(p));
  // The stages the counts leave: the middle ones, or the first or last
  // when only one count is given.
  const int64_t given = (first > 0) + (last > 0), rest = layers - first - last;
  const int64_t others = p - given;
  if (rest < 0 || (others == 0 && rest != 0) ||
      (others > 0 && (rest <= 0 || rest % others)))
    return fail("the layout does not sum to the " + n(layers) +
                " layers: first " + n(first) + " + last " + n(last) +
                " leave " + n(rest) + " for " + n(others) +
                " other stage(s), which must split them evenly (Megatron-LM, "
                "transformer_config.py:2322)");
  std::vector<int64_t> out(size_t(p), others ? rest / others : 0);
  if (first)
    out.front() = first;
  if (last)
    out.back() = last;
  return out;
}

model::Parallelism ServingPlan::parallelism() const {
  // Megatron-Core's expert layout reads the serving engines' too: a rank
  // routes the b s/tp tokens of its attention group, the expert
  // tensor-parallel group gathers etp of them (model::tokensPerExpert).
  return model::Parallelism(attentionTp, pp, attentionDp, ep(), /*cp=*/1,
                            etp());
}

std::string ServingPlan::str() const {
  auto n = [](int64_t v) { return std::to_string(v); };
  std::string s = "attention tp " + n(attentionTp) + " dp " + n(attentionDp);
  if (expertEp > 0 || expertTp > 0)
    s += ", experts ep " + n(ep()) + " etp " + n(etp());
  if (pp > 1)
    s += ", pp " + n(pp);
  return s;
}

std::optional<std::string>
tshape::cost::checkServingPlan(const ModelConfig &c, const ServingPlan &plan) {
  auto n = [](int64_t v) { return std::to_string(v); };
  if (plan.attentionTp < 1 || plan.attentionDp < 1 || plan.pp < 1 ||
      plan.expertEp < 0 || plan.expertTp < 0)
    return "every degree must be at least 1 (the experts' 0: the default), "
           "got " + plan.str();
  const int64_t ranks = plan.attentionTp * plan.attentionDp;
  const bool experts = getParam(c, Param::Experts) > 0;
  if (!experts && (plan.expertEp > 0 || plan.expertTp > 0))
    return "expert degrees (" + plan.str() + ") need a model with routed "
           "experts; " + c.name + " has none";
  if (!experts && plan.attentionDp > 1)
    return "attention data parallelism inside a replica is for a model "
           "with routed experts (the experts span the dp ranks); " + c.name +
           " has none, so its dp ranks are independent replicas with the "
           "per-GPU figures of dp 1: use --dp=1 (and --rate for the "
           "replicas a load needs)";
  if (plan.expertTp == 0 && ranks % plan.ep() != 0)
    return "the experts must span the attention's GPUs: ep " +
           n(plan.ep()) + " does not divide attention tp " +
           n(plan.attentionTp) + " x dp " + n(plan.attentionDp) + " = " +
           n(ranks) + " (use an ep dividing " + n(ranks) + ")";
  if (plan.ep() * plan.etp() != ranks)
    return "the experts must span the attention's GPUs: ep " + n(plan.ep()) +
           " x etp " + n(plan.etp()) + " = " + n(plan.ep() * plan.etp()) +
           ", attention tp " + n(plan.attentionTp) + " x dp " +
           n(plan.attentionDp) + " = " + n(ranks);
  ModelConfig p = c;
  p.parallel = plan.parallelism();
  // Engines pad the vocabulary for tensor parallelism (vLLM's
  // VocabParallelEmbedding: to a multiple of 64 per rank), so rule V1
  // holds by padding, as it does for Megatron-LM's 128.
  model::padGrowOnlySplits(p, 64);
  if (auto err = model::checkModel(p))
    return "under " + plan.str() + ": rule " + err->rule + ": " + err->message;
  return std::nullopt;
}
