//===- Plan.h - Training and serving plans: what a run decides -*- C++ -*-===//
//
// A plan is what a run decides beyond the model's sizes: a training plan
// (pipeline schedule, microbatches, recompute, state sharding, offload,
// LoRA, the linear layers' precision; the degrees live in
// ModelConfig::parallel) and a serving plan (degrees per block: the
// attention's tensor and data parallelism, the routed experts' expert and
// expert-tensor parallelism, as serving engines set them). The memory and
// step models price a training plan, the Megatron-LM writer and its rules
// say it, the plan search enumerates it; the serving search and its engine
// writers take a serving plan. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_PLAN_H
#define TSHAPE_COST_PLAN_H

#include "tshape/Cost/PipelineLayout.h"
#include "tshape/Model/Recompute.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

/// The pipeline schedule (Narayanan et al. 2021).
enum class PipelineSchedule { OneFOneB, Interleaved };
/// What the backward pass recomputes instead of keeping (Korthikanti et al.
/// 2022): nothing, the attention core (scores, softmax, dropout), or the
/// whole layer from its input.
enum class Recompute { None, Selective, Full };
/// Which training state the data-parallel ranks shard: none, the optimizer
/// state (Megatron-LM's distributed optimizer, ZeRO-1), or weights,
/// gradients and optimizer state (FSDP, ZeRO-3).
enum class StateSharding { None, DistributedOptimizer, Fsdp };

const char *scheduleName(PipelineSchedule s);
const char *recomputeName(Recompute r);
/// The plan's recompute as reports say it: "none", "full", "selective"
/// (the attention core) or "selective (layernorm, moe_act)".
std::string recomputeText(Recompute r, model::RecomputeModules modules);
const char *shardingName(StateSharding s);

/// Bytes per parameter of each kind of training state. The default is
/// mixed-precision Adam as Megatron-LM keeps it with bf16 parameters:
/// 2 (bf16 weights) + 4 (fp32 main gradients) + 12 (fp32 master weights,
/// Adam's first and second moments) = 18. `optimizer` is what the
/// distributed optimizer shards (Megatron-LM: 6 + 12/d). With fp16 weights
/// and fp16 gradients Megatron-LM keeps an fp32 gradient copy in the
/// optimizer: {2, 2, 16} (20, 4 + 16/d); fp32 training: {4, 4, 8}
/// (16, 8 + 8/d). Megatron Core's distributed optimizer guide, the table of
/// bytes per parameter.
struct StateBytes {
  int64_t weights = 2;
  int64_t gradients = 4;
  int64_t optimizer = 12;
};

/// What a training plan decides that ModelConfig does not: the degrees,
/// microbatch and sequence are the config's (`config.parallel`,
/// Param::Microbatch, Param::Seq).
struct TrainingPlan {
  PipelineSchedule schedule = PipelineSchedule::OneFOneB;
  /// v: model chunks per pipeline rank (interleaved schedule); 1 is 1F1B.
  int64_t virtualStages = 1;
  /// m: microbatches per step on one pipeline (global batch / (b d)).
  int64_t microbatches = 1;
  Recompute recompute = Recompute::None;
  /// Under selective recompute, the modules it recomputes (Megatron-LM's
  /// --recompute-modules, Model/Recompute.h); its default, the attention
  /// core, is Korthikanti et al.'s selective recompute.
  model::RecomputeModules recomputeModules =
      model::RecomputeModules(model::RecomputeModule::CoreAttn);
  /// The selective recompute's modules, 0 under none or full.
  model::RecomputeModules selectiveModules() const {
    return recompute == Recompute::Selective ? recomputeModules : 0;
  }
  /// Uneven pipeline stages (Megatron-LM's
  /// --decoder-first-pipeline-num-layers and --decoder-last-...): the
  /// decoder layers of the first and of the last stage, the others
  /// splitting the rest evenly; 0: that stage holds its even share. A
  /// model whose layers pp does not divide (405B's 126, DeepSeek-V3's 61)
  /// runs so. 1F1B only (v = 1).
  int64_t firstStageLayers = 0, lastStageLayers = 0;
  /// Megatron-LM's --account-for-embedding-in-pipeline-split and
  /// --account-for-loss-in-pipeline-split (transformer_block.py:147-203):
  /// the embedding and the loss count as one layer each when the stages
  /// are split, so each model chunk holds (L + e + l) / (pp v) decoder
  /// layers, the very first one fewer with the embedding, the very last
  /// one fewer with the loss. How Megatron-Bridge runs Llama 3.1 405B
  /// (126 layers) and Qwen3-235B-A22B (94). Not with first/last counts.
  bool embeddingInSplit = false, lossInSplit = false;
  /// Megatron-LM's --pipeline-model-parallel-layout: the decoder layers of
  /// each of the pp x v model chunks (PipelineLayout.h), where its MTP
  /// layers run; v is its stage count over pp. Not with the counts or
  /// flags above (transformer_config.py:2242-2259).
  std::optional<PipelineLayout> layout;
  /// Megatron-LM's sequence parallelism (with tensor parallelism).
  bool sequenceParallel = false;
  /// Megatron-LM's --overlap-moe-expert-parallel-comm: the expert
  /// all-to-alls of one microbatch run behind another's compute (the
  /// forward of one and the backward of the other interleaved layer by
  /// layer). Needs ep > 1, virtual stages at pp > 1, no full recompute
  /// and no moe recompute module (MegatronArgs rules M1-M8).
  bool overlapEpComm = false;
  /// Activation CPU offloading (Megatron-LM's --cpu-offloading-num-layers):
  /// the saved activations of this many decoder layers go to host memory
  /// during the forward and come back for the backward, over the
  /// cluster's host link (Cluster::hostLinkGBs). The memory keeps the
  /// other layers' activations; the step adds the transfer a layer's
  /// compute does not hide. Megatron-LM runs it with pp = 1 and no
  /// recompute (checkMegatronRules).
  int64_t offloadLayers = 0;
  /// LoRA finetuning (Megatron-Bridge's PEFT, peft=lora; Hu et al. 2021):
  /// the base weights are frozen (no gradients, no optimizer state, no
  /// weight-gradient GEMMs) and every linear layer of the decoder layers
  /// but the router gets two adapters of this rank, A (r x K) and B
  /// (N x r), trained with their full state (loraParamsPerLayer; Bridge's
  /// default targets, peft/lora.py, default rank 32). 0: a
  /// full training step. Megatron-LM has no LoRA: such a plan has no
  /// Megatron-LM command.
  int64_t loraRank = 0;
  StateSharding sharding = StateSharding::None;
  StateBytes bytes;
  /// The linear layers' precision (RunShape::precision; `tshape-plan
  /// --precision`, Megatron-LM's --fp8-format/--fp8-recipe): the step
  /// prices its weight GEMMs as FP8 linear layers (predictKernel), and the
  /// memory adds FP8's copies of the weights (fp8WeightCopyBytes) and keeps
  /// the linear layers' saved inputs in FP8 (savedLinearInputBytes). The training
  /// state stays `bytes` (Transformer Engine keeps bf16 weights). nullopt:
  /// the model's element type.
  std::optional<Precision> precision;

  /// The run of one training step under this plan: train, at `precision`,
  /// with its sequence parallelism (at tp > 1: the tensor-parallel
  /// regions' collectives).
  model::RunShape run() const {
    model::RunShape r = model::RunShape::train();
    r.precision = precision;
    r.sequenceParallel = sequenceParallel;
    return r;
  }

  /// Sets v and the schedule it means: 1F1B at v = 1, else interleaved.
  void setVirtualStages(int64_t v) {
    virtualStages = v;
    schedule = v > 1 ? PipelineSchedule::Interleaved
                     : PipelineSchedule::OneFOneB;
  }
  /// The model-chunk forwards stage `stage` of `pp` runs before its first
  /// backward (Megatron-LM's warm-up, schedules.py:955-970 at d98e8a64):
  /// pp - stage - 1 with 1F1B, 2 (pp - stage - 1) + (v - 1) pp
  /// interleaved, one more with the expert all-to-alls overlapped; never
  /// more than the step's m (x v) chunks. With the overlap they and as
  /// many cool-down backwards run unpaired; at the stage's memory peak one
  /// chunk more is in flight.
  int64_t warmupChunks(int64_t pp, int64_t stage) const {
    const int64_t extra = overlapEpComm ? 1 : 0;
    const int64_t left = pp - stage - 1;
    return schedule == PipelineSchedule::OneFOneB
               ? std::min(left + extra, microbatches)
               : std::min(2 * left + (virtualStages - 1) * pp + extra,
                          microbatches * virtualStages);
  }
  /// The pipeline stage of `pp` that runs the multi-token prediction
  /// layers: where the layout puts them, else the last.
  int64_t mtpStage(int64_t pp) const {
    const int64_t r = layout ? layout->mtpRank(pp) : -1;
    return r >= 0 ? r : pp - 1;
  }
};

/// The decoder layers of each pipeline stage under `plan` (pp entries):
/// layers / pp each, or the first and last stages' given counts and the
/// rest split evenly over the middle; empty with `*error` set when the
/// layout does not sum to the layers or does not split evenly.
std::vector<int64_t> stageLayers(const model::ModelConfig &c,
                                 const TrainingPlan &plan,
                                 std::string *error = nullptr);

//===----------------------------------------------------------------------===//
// Serving plans
//===----------------------------------------------------------------------===//

/// The degrees of one serving replica, per block as engines set them:
/// - the attention (and every block that is not a routed expert: the dense
///   MLP, the shared experts, the embedding and LM head) runs at tensor
///   parallelism `attentionTp` on each of `attentionDp` data-parallel
///   groups, each group with its own sequences (vLLM's
///   --tensor-parallel-size and --data-parallel-size; SGLang's --tp-size
///   with --enable-dp-attention and --dp-size; TensorRT-LLM's
///   tensor_parallel_size with enable_attention_dp);
/// - the routed experts are split over `expertEp` ranks, each expert's
///   width over `expertTp` (vLLM and SGLang with expert parallelism on:
///   ep = tp x dp, experts unsplit; TensorRT-LLM's moe_expert_parallel_size
///   and moe_tensor_parallel_size), over the same GPUs as the attention;
/// - `pp` pipeline stages.
/// A dense model's plan leaves the expert degrees at 0 (checkServingPlan
/// rejects them on a model without routed experts).
struct ServingPlan {
  int64_t attentionTp = 1, attentionDp = 1;
  /// 0: the engines' defaults, expertEp = 1 and expertTp = attentionTp x
  /// attentionDp without expert parallelism (every expert split over the
  /// replica's GPUs).
  int64_t expertEp = 0, expertTp = 0;
  int64_t pp = 1;

  /// The GPUs of one replica: attentionTp x attentionDp x pp.
  int64_t gpus() const { return attentionTp * attentionDp * pp; }
  /// The experts' degrees with the defaults resolved.
  int64_t ep() const { return expertEp > 0 ? expertEp : 1; }
  int64_t etp() const {
    return expertTp > 0 ? expertTp : attentionTp * attentionDp / ep();
  }
  /// The degrees the block models read for this plan: tp the attention's,
  /// dp the attention's data-parallel groups, ep and etp the experts'
  /// (an expert sees etp ep b s k / (tp E) tokens of each group's b
  /// sequences: tokensPerExpert).
  model::Parallelism parallelism() const;
  /// "attention tp 1 dp 8, experts ep 8 etp 1" (pp when above 1).
  std::string str() const;
};

/// The rules a serving plan must keep for `c` (a message naming the rule
/// and the numbers, or nullopt): every degree at least 1; the experts
/// span the attention's GPUs (ep x etp = tp x dp); expert degrees and
/// attention dp only on a model with routed experts (a dense model's dp
/// ranks are replicas); and the model's own split rules under the
/// plan's degrees (heads and kv heads by the attention's tp, experts by
/// ep, the experts' width by etp: checkModel).
std::optional<std::string> checkServingPlan(const model::ModelConfig &c,
                                            const ServingPlan &plan);

} // namespace tshape::cost

#endif // TSHAPE_COST_PLAN_H
