//===- Memory.cpp - Bytes per GPU of a training plan ----------------------===//
//
// Parameters per GPU from the block models, the training state bytes and
// their data-parallel sharding, activations by Korthikanti et al. 2022 and
// the in-flight microbatches of the pipeline schedules. docs/memory.md
// derives each formula and checks it against the paper's Figure 1.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Memory.h"

#include <algorithm>

using namespace tshape;
using namespace tshape::cost;
using model::BlockKind;
using model::ModelConfig;
using model::Param;

double StageMemory::total() const {
  double sum = 0;
  for (const MemoryLine &l : lines())
    sum += l.bytes;
  return sum;
}

std::vector<MemoryLine> StageMemory::lines() const {
  std::vector<MemoryLine> out = {
      {"weights", layerState.weights},
      {"gradients", layerState.gradients},
      {"optimizer state", layerState.optimizer},
      {"fp8 weight copies", fp8Weights},
      {"embedding weights", embeddingState.weights},
      {"embedding gradients", embeddingState.gradients},
      {"embedding optimizer state", embeddingState.optimizer},
      {"activations", activations},
      {"embedding activations", inputActivations},
      {"loss activations", lossActivations},
  };
  // LoRA's adapters, a line of their own only in a LoRA plan.
  if (adapterState.params > 0)
    out.push_back({"lora adapters", adapterState.total()});
  return out;
}

namespace {
int64_t tp(const ModelConfig &c) { return getParam(c, Param::Tp); }

/// The training state of `params` parameters held by each GPU of a
/// data-parallel group of `group` ranks.
ParamState state(int64_t params, const TrainingPlan &plan, int64_t group) {
  const StateBytes &b = plan.bytes;
  double all = plan.sharding == StateSharding::Fsdp ? double(group) : 1.0;
  double opt = plan.sharding == StateSharding::None ? 1.0 : double(group);
  ParamState s;
  s.params = params;
  s.weights = double(params) * double(b.weights) / all;
  s.gradients = double(params) * double(b.gradients) / all;
  s.optimizer = double(params) * double(b.optimizer) / opt;
  return s;
}

/// Frozen parameters (LoRA's base): their weights only.
ParamState frozen(int64_t params, const TrainingPlan &plan, int64_t group) {
  ParamState s = state(params, plan, group);
  s.gradients = s.optimizer = 0;
  return s;
}

ParamState operator+(ParamState a, const ParamState &b) {
  a.params += b.params;
  a.weights += b.weights;
  a.gradients += b.gradients;
  a.optimizer += b.optimizer;
  return a;
}

/// The parameters one rank holds of one decoder layer of `c`, and, with
/// `splitExperts`, of them those the expert-parallel ranks split (the
/// weight GEMMs whose groups are a rank's experts/ep: the routed experts;
/// else 0); nullopt on overflow.
struct LayerParams {
  std::optional<int64_t> all = 0, experts = 0;
};
LayerParams layerParams(const ModelConfig &c, bool splitExperts) {
  LayerParams out;
  std::vector<model::Kernel> routed;
  for (BlockKind k : c.layerBlocks) {
    out.all = model::checkedAdd(out.all, model::rankWeights(k, c));
    if (!splitExperts)
      continue;
    for (model::Kernel &f :
         model::forwardKernels(k, c, model::RunShape::train(), 0))
      if (const model::GemmSpec *g = f.gemm();
          g && g->batch.expr.mentions(Param::Ep))
        routed.push_back(std::move(f));
  }
  out.experts = model::gemmWeights(routed);
  return out;
}

std::string checkPlan(const ModelConfig &c, const TrainingPlan &plan) {
  // At one sequence per microbatch (checkModelPerSequence): this model and
  // the step model count a microbatch's bytes and FLOPs in double.
  if (std::optional<model::RuleViolation> v = model::checkModelPerSequence(c))
    return v->rule + ": " + v->message;
  const model::Parallelism &par = c.parallel;
  for (int64_t d : {par.tp, par.pp, par.dp, par.ep, par.cp})
    if (d < 1)
      return "every parallel degree must be at least 1";
  int64_t v = plan.virtualStages, p = par.pp, layers = getParam(c, Param::Layers);
  if (v < 1)
    return "virtual stages must be at least 1, got " + std::to_string(v);
  if (plan.microbatches < 1)
    return "microbatches must be at least 1, got " +
           std::to_string(plan.microbatches);
  if (plan.loraRank < 0)
    return "the LoRA rank must be positive (0: full training), got " +
           std::to_string(plan.loraRank);
  if (plan.recompute == Recompute::Selective) {
    // Megatron Core rejects these (transformer_config.py:1964, 1969).
    using model::RecomputeModule;
    const model::RecomputeModules m = plan.recomputeModules;
    if (m == 0)
      return "selective recompute needs at least one module (core_attn, "
             "the attention core, by default)";
    if (model::recomputes(m, RecomputeModule::MoeAct) && c.moe.experts == 0)
      return "recompute module moe_act needs routed experts (Megatron-LM "
             "supports it with --moe-grouped-gemm only); this model has none";
    if (model::recomputes(m, RecomputeModule::MlaUpProj) &&
        c.mla.kvLoraRank == 0)
      return "recompute module mla_up_proj needs multi-latent attention; "
             "this model has none";
  }
  if (plan.offloadLayers < 0 || plan.offloadLayers >= layers / p)
    return "offloaded layers must be in [0, " + std::to_string(layers / p) +
           ") (the layers of a stage, one kept on the GPU), got " +
           std::to_string(plan.offloadLayers);
  if (plan.schedule == PipelineSchedule::Interleaved && (v < 2 || p < 2))
    return "the interleaved schedule needs pp >= 2 and v >= 2, got pp=" +
           std::to_string(p) + " v=" + std::to_string(v) +
           " (v=1 is 1f1b)";
  if (plan.schedule == PipelineSchedule::OneFOneB && v != 1)
    return "v=" + std::to_string(v) + " needs the interleaved schedule";
  // Each context-parallel rank holds s/cp of every sequence (rankSeq).
  const int64_t s = getParam(c, Param::Seq);
  if (par.cp > 1 && s % par.cp != 0)
    return "seq " + std::to_string(s) + " not divisible by cp " +
           std::to_string(par.cp);
  if (plan.layout) {
    std::string error;
    if (stageLayers(c, plan, &error).empty())
      return error;
    return "";
  }
  if (plan.firstStageLayers || plan.lastStageLayers ||
      plan.embeddingInSplit || plan.lossInSplit) {
    if (v != 1 && !plan.embeddingInSplit && !plan.lossInSplit)
      return "uneven stages are priced with the 1F1B schedule only (v=1), "
             "got v=" + std::to_string(v);
    std::string error;
    if (stageLayers(c, plan, &error).empty())
      return error;
    return "";
  }
  if (layers % (p * v) != 0)
    return "layers " + std::to_string(layers) + " not divisible by pp x v = " +
           std::to_string(p * v) +
           ": use a pp x v that divides it, or uneven first and last stages";
  return "";
}
} // namespace

namespace {
/// Megatron-Bridge's default LoRA targets (peft/lora.py: linear_qkv,
/// linear_proj, linear_fc1, linear_fc2), which by their local names also
/// match the routed and shared experts' linear_fc1 and linear_fc2
/// (peft/utils.py); not the router, not MLA's down and up projections.
bool loraTarget(model::Role r) {
  using model::Role;
  switch (r) {
  case Role::Qkv:
  case Role::AttnOut:
  case Role::MlpGate:
  case Role::MlpUp:
  case Role::MlpGateUp:
  case Role::MlpDown:
  case Role::MoeExpertGate:
  case Role::MoeExpertUp:
  case Role::MoeExpertGateUp:
  case Role::MoeExpertDown:
  case Role::MoeSharedGate:
  case Role::MoeSharedGateUp:
  case Role::MoeSharedUp:
  case Role::MoeSharedDown:
    return true;
  default:
    return false;
  }
}
} // namespace

std::vector<std::array<int64_t, 4>>
tshape::cost::loraTargets(const ModelConfig &c) {
  std::vector<std::array<int64_t, 4>> out;
  for (const model::Kernel &k :
       model::layerKernels(c, model::RunShape::train(), 0)) {
    const model::GemmSpec *g = k.gemm();
    if (!g || g->pass != model::GemmPass::Forward || !loraTarget(g->role))
      continue;
    const int64_t batch = std::max<int64_t>(1, g->batch.value);
    // A gated MLP's gate and up are Megatron-LM's one linear_fc1: one
    // adapter of width 2f, whichever layout the kernels state.
    using model::Role;
    const bool up = g->role == Role::MlpUp || g->role == Role::MoeExpertUp ||
                    g->role == Role::MoeSharedUp;
    if (up && g->inputShared && !out.empty() && out.back()[0] == batch &&
        out.back()[1] == g->m.value && out.back()[3] == g->k.value) {
      out.back()[2] += g->n.value;
      continue;
    }
    out.push_back({batch, g->m.value, g->n.value, g->k.value});
  }
  return out;
}

int64_t tshape::cost::loraParamsPerLayer(const ModelConfig &c, int64_t r) {
  int64_t most = 0;
  for (const auto &[lc, n] : model::layerGroups(c)) {
    // A grouped GEMM's experts share one adapter on a rank (Bridge's
    // share_expert_adapters, the default).
    int64_t sum = 0;
    for (const auto &[batch, m, nOut, k] : loraTargets(lc))
      sum += r * (k + nOut);
    most = std::max(most, sum);
  }
  return most;
}


double tshape::cost::fp8WeightCopyBytes(std::optional<Precision> precision,
                                        const target::GpuTarget *target) {
  if (!precision || *precision == Precision::BF16)
    return 0;
  // Transformer Engine's quantized weight has a row-wise usage (the
  // forward, Y = X W^T) and a column-wise one (the data gradient, dX =
  // dY W) (TE, "Performance considerations: handling transposes"); both
  // are cached for the step's microbatches. Under MXFP8 the column-wise
  // usage is a second copy scaled along the other dimension, on every
  // target. Under per-tensor FP8 it is a physical transposed copy only
  // where the FP8 GEMMs take the TN layout alone (Hopper, Ada); on
  // Blackwell sm100 the row-wise data serves both usages
  // (Float8Tensor.update_usage: no transpose when
  // is_non_tn_fp8_gemm_supported()).
  if (precisionInfo(*precision).scaleBlock > 0)
    return 2 * precisionInfo(*precision).bytesPerElement();
  return target && !target->fp8TnOnly ? 1 : 2;
}

double tshape::cost::savedLinearInputBytes(std::optional<Precision> precision) {
  // TE's linear layers save the input their forward quantized for the
  // weight gradient, its column-wise usage only
  // (ops/basic/basic_linear.py: x_local.update_usage(rowwise_usage=False,
  // columnwise_usage=True); likewise GroupedLinear's inputs): 1 byte per
  // element, plus an E8M0 scale per 32 under MXFP8.
  if (!precision || *precision == Precision::BF16)
    return 2;
  return precisionInfo(*precision).bytesPerElement();
}

model::ActivationPlan tshape::cost::activationPlan(const TrainingPlan &plan) {
  model::ActivationPlan a;
  a.sequenceParallel = plan.sequenceParallel;
  a.recompute = plan.selectiveModules();
  a.linearInputBytes = savedLinearInputBytes(plan.precision);
  return a;
}

double tshape::cost::layerActivationBytes(const ModelConfig &c,
                                          const TrainingPlan &plan) {
  // Full recompute keeps the layer's input only (2 s b h, split by
  // sequence parallelism); otherwise each block keeps its own
  // (BlockInfo::activations: Korthikanti et al. 2022's 34 s b h + 5 a s^2 b
  // of a dense layer, split between its attention and MLP sub-layers; an
  // MoE block's in place of the MLP's).
  if (plan.recompute == Recompute::Full) {
    const double sbh = double(model::rankSeq(c)) *
                       double(getParam(c, Param::Microbatch)) *
                       double(getParam(c, Param::Hidden));
    return 2 * sbh / (plan.sequenceParallel ? double(tp(c)) : 1.0);
  }
  const model::ActivationPlan a = activationPlan(plan);
  double bytes = 0;
  for (BlockKind k : c.layerBlocks)
    if (auto f = model::blockInfo(k).activations)
      bytes += f(c, a);
  return bytes;
}

std::optional<MemoryEstimate>
tshape::cost::estimateMemory(const ModelConfig &c, const TrainingPlan &plan,
                             std::string *error,
                             const target::GpuTarget *target) {
  std::string bad = checkPlan(c, plan);
  if (!bad.empty()) {
    if (error)
      *error = bad;
    return std::nullopt;
  }
  const model::Parallelism &par = c.parallel;
  const int64_t p = par.pp, v = plan.virtualStages, m = plan.microbatches;
  // The state is replicated on the dp x cp ranks that hold the same
  // weights: the data-parallel group the distributed optimizer and FSDP
  // shard over (Megatron Core: the data-parallel group with context
  // parallelism).
  const int64_t group = par.dp * par.cp;
  // The routed experts' state is replicated on the ranks that hold the same
  // experts: a stage's tp x cp x dp ranks form etp x ep expert ranks, so
  // the expert data-parallel group is tp cp dp / (etp ep) (Megatron Core,
  // parallel_state.py: expert_data_parallel_size = world / (etp ep pp)).
  const int64_t stageRanks = par.tp * par.cp * par.dp;
  const int64_t expertRanks = par.expertTp() * par.ep;

  // The heaviest layer of a heterogeneous stack (MoE rather than dense):
  // every stage is sized as if it held only those, an upper bound.
  // (Plain integers and a flag: GCC misreads optionals across the loop
  // below as maybe uninitialized.)
  int64_t layerWeights = 0, layerExperts = 0;
  bool layerOverflow = false;
  // The two groups are one when etp x ep = tp (a dense model, or experts
  // laid out as tp): the split is not needed.
  const bool splitExperts = expertRanks != par.tp;
  for (const auto &[lc, n] : model::layerGroups(c)) {
    const LayerParams w = layerParams(lc, splitExperts);
    if (!w.all || !w.experts) {
      layerOverflow = true;
      break;
    }
    if (*w.all > layerWeights) {
      layerWeights = *w.all;
      layerExperts = *w.experts;
    }
  }
  if (!layerOverflow && layerExperts > 0 && stageRanks % expertRanks != 0) {
    if (error)
      *error = "the expert ranks etp x ep = " + std::to_string(expertRanks) +
               " do not divide a stage's tp x cp x dp = " +
               std::to_string(stageRanks) +
               " ranks (Megatron-LM: the world must divide by etp x ep x pp)";
    return std::nullopt;
  }
  const int64_t expertGroup =
      std::max<int64_t>(1, stageRanks / std::max<int64_t>(1, expertRanks));
  std::optional<int64_t> embedding = model::rankWeights(BlockKind::Embedding, c);
  std::optional<int64_t> lmHead = model::rankWeights(BlockKind::LMHead, c);
  if (layerOverflow || !embedding || !lmHead) {
    if (error)
      *error = "the parameter count overflows 64-bit arithmetic";
    return std::nullopt;
  }

  // Activations of the model's input and output, per microbatch
  // (Korthikanti et al. 2022, Section 4): the embedding's dropout mask,
  // s b h bytes; the final norm's input and the LM head's input, 2 + 2 s b h,
  // and the logits for the loss in fp32, 4 s b v / t. Sequence parallelism
  // splits the s b h terms by t.
  const double s = double(model::rankSeq(c));
  const double sbh = s * double(getParam(c, Param::Microbatch)) *
                     double(getParam(c, Param::Hidden));
  const double spDiv = plan.sequenceParallel ? double(par.tp) : 1.0;
  const double vocabRank =
      double(getParam(c, Param::Vocab)) /
      double(model::splitDegree(Param::Vocab, model::bindings(c)));
  const double logits = 4 * s * double(getParam(c, Param::Microbatch)) *
                        vocabRank;
  // The heaviest layer of a heterogeneous stack (an MoE layer's
  // activations differ from a dense one's), as for the weights.
  double perLayerActs = 0;
  for (const auto &[lc, n] : model::layerGroups(c))
    perLayerActs = std::max(perLayerActs, layerActivationBytes(lc, plan));

  // Multi-token prediction (Megatron Core's multi_token_prediction.py, on
  // the last pipeline stage): each MTP layer is a decoder layer of the
  // stack (the heaviest, as above) after eh_proj, the projection of its
  // two normed inputs (2h -> h, column-parallel: 2 h^2 / t a rank), and
  // those two norms (2h); it shares the embedding and the LM head.
  const int64_t mtp = std::max<int64_t>(0, c.arch.mtpLayers);
  const int64_t hidden = getParam(c, Param::Hidden);
  const int64_t ehProj = 2 * hidden * hidden / par.tp + 2 * hidden;
  // On the last stage, or where a layout puts them.
  const int64_t mtpRank = plan.mtpStage(p);

  MemoryEstimate est;
  est.expertGroup = expertGroup;
  est.expertStride = std::max<int64_t>(1, expertRanks);
  const std::vector<int64_t> perStage = stageLayers(c, plan);
  for (int64_t i = 0; i < p; ++i) {
    StageMemory st;
    st.stage = i;
    st.layers = perStage[size_t(i)];
    // A stage's chunks hold st.layers / v layers each, or one fewer in a
    // chunk that holds the embedding or the loss: the larger bounds them;
    // under a layout, its largest chunk.
    int64_t layersPerChunk = (st.layers + v - 1) / v;
    if (plan.layout) {
      layersPerChunk = 0;
      for (size_t j = size_t(i); j < plan.layout->chunks.size(); j += size_t(p))
        layersPerChunk =
            std::max(layersPerChunk, plan.layout->decoderLayers(j));
    }
    // Model chunks whose forward has run and whose backward has not, at the
    // stage's peak: the warm-up forwards plus one (Megatron-LM's
    // schedules): p - i with 1F1B, 2 (p - i - 1) + (v - 1) p + 1 chunks when
    // interleaved, one more with the expert all-to-alls overlapped
    // (schedules.py:966-970 at d98e8a64; at pp 1 the next microbatch's
    // forward runs beside the current backward); never more than the
    // step's m (x v) chunks.
    const int64_t chunks =
        std::min(plan.warmupChunks(p, i) + 1,
                 plan.schedule == PipelineSchedule::OneFOneB ? m : m * v);
    st.layersInFlight = chunks * layersPerChunk;
    // The dense parameters shard over the data-parallel group, the routed
    // experts' over the expert data-parallel group.
    const int64_t mtpHere = i == mtpRank ? mtp : 0;
    const int64_t dense =
        (layerWeights - layerExperts) * (st.layers + mtpHere) +
        ehProj * mtpHere;
    const int64_t routed = layerExperts * (st.layers + mtpHere);
    st.layerState =
        state(dense, plan, group) + state(routed, plan, expertGroup);
    st.routedParams = plan.loraRank > 0 ? 0 : routed;
    // LoRA: the base weights are frozen (their bytes only, sharded by
    // FSDP); the adapters carry the training state.
    if (plan.loraRank > 0) {
      st.layerState = frozen(dense, plan, group) +
                      frozen(routed, plan, expertGroup);
      st.adapterState =
          state(loraParamsPerLayer(c, plan.loraRank) * st.layers, plan, group);
    }
    int64_t emb = 0;
    if (i == 0)
      emb += *embedding;
    if (i == p - 1) {
      emb += *lmHead;
      // A tied LM head on its own stage keeps a copy of the table.
      if (c.tiedEmbeddings && p > 1)
        emb += *embedding;
    }
    st.embeddingState = plan.loraRank > 0 ? frozen(emb, plan, group)
                                          : state(emb, plan, group);
    // The FP8 copies of the decoder layers' weights (the embedding and the
    // LM head stay bf16: Megatron-LM's are not Transformer Engine linear
    // layers). Every data-parallel rank computes with the whole weights, so
    // only FSDP (which gathers and casts one layer at a time) shards them.
    st.fp8Weights = double(st.layerState.params) *
                    fp8WeightCopyBytes(plan.precision, target) /
                    (plan.sharding == StateSharding::Fsdp ? double(group)
                                                          : 1.0);
    // Offloaded layers' activations wait in host memory (one microbatch's
    // worth: Megatron-LM offloads with pp = 1, where one is in flight).
    st.offloadedLayers = std::min(plan.offloadLayers, st.layersInFlight);
    // An MTP layer keeps one microbatch's activations: the last stage runs
    // each microbatch's forward and backward in turn.
    st.activations =
        perLayerActs * double(st.layersInFlight - st.offloadedLayers +
                              mtpHere);
    st.offloadedActivations = perLayerActs * double(st.offloadedLayers);
    if (i == 0)
      st.inputActivations = sbh / spDiv * double(std::min(p, m));
    // Each MTP layer's loss keeps another head's input and logits.
    if (i == p - 1)
      st.lossActivations = 4 * sbh / spDiv + logits;
    st.lossActivations += double(mtpHere) * (4 * sbh / spDiv + logits);
    est.stages.push_back(st);
  }
  for (size_t i = 1; i < est.stages.size(); ++i)
    if (est.stages[i].total() > est.peak().total())
      est.peakStage = i;
  return est;
}
