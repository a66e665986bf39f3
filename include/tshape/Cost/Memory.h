//===- Memory.h - Bytes per GPU of a training plan --------------*- C++ -*-===//
//
// The memory one GPU needs to train a model under a plan: the weights,
// gradients and optimizer state of the parameters its pipeline stage holds
// (sharded over data-parallel ranks by the distributed optimizer or FSDP),
// and the activations its in-flight microbatches keep for the backward pass
// (Korthikanti et al. 2022, Table 2 and Section 4), for every pipeline
// stage and the peak one. docs/memory.md states each formula and its source
// and the check against the paper's Figure 1.
//
// The parameters are the block models' (Model/Blocks): a stage's weights are
// the per-rank weights of its blocks, so a new block's weights (an MoE
// block's experts, split by ep through perRank) count with no change here.
// Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_MEMORY_H
#define TSHAPE_COST_MEMORY_H

#include "tshape/Model/Transformer.h"
#include "tshape/Target/GpuTarget.h"

#include <cstdint>
#include <array>
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
  /// Megatron-LM's sequence parallelism (with tensor parallelism).
  bool sequenceParallel = false;
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

  /// The run of one training step under this plan: train, at `precision`.
  model::RunShape run() const {
    model::RunShape r = model::RunShape::train();
    r.precision = precision;
    return r;
  }

  /// Sets v and the schedule it means: 1F1B at v = 1, else interleaved.
  void setVirtualStages(int64_t v) {
    virtualStages = v;
    schedule = v > 1 ? PipelineSchedule::Interleaved
                     : PipelineSchedule::OneFOneB;
  }
};

/// The forward GEMMs of one decoder layer of `c` that LoRA adapts,
/// Megatron-Bridge's default targets (linear_qkv, linear_proj, linear_fc1,
/// linear_fc2, the experts' included; not the router or MLA's
/// projections), on one rank: (batch, M, N, K), the batch a grouped
/// GEMM's experts.
std::vector<std::array<int64_t, 4>> loraTargets(const model::ModelConfig &c);
/// The adapter parameters of one decoder layer on one rank at rank `r`:
/// r (K + N) per adapted GEMM (a grouped GEMM's experts share one,
/// Bridge's share_expert_adapters). The heaviest layer of a heterogeneous
/// stack.
int64_t loraParamsPerLayer(const model::ModelConfig &c, int64_t r);

/// The decoder layers of each pipeline stage under `plan` (pp entries):
/// layers / pp each, or the first and last stages' given counts and the
/// rest split evenly over the middle; empty with `*error` set when the
/// layout does not sum to the layers or does not split evenly.
std::vector<int64_t> stageLayers(const model::ModelConfig &c,
                                 const TrainingPlan &plan,
                                 std::string *error = nullptr);

/// The training state of some parameters on one GPU.
struct ParamState {
  int64_t params = 0; ///< per GPU before data-parallel sharding
  double weights = 0, gradients = 0, optimizer = 0; ///< bytes
  double total() const { return weights + gradients + optimizer; }
};

/// One named component in bytes.
struct MemoryLine {
  std::string name;
  double bytes;
};

/// The memory of one GPU of one pipeline stage.
struct StageMemory {
  int64_t stage = 0;  ///< pipeline rank, 0 first
  int64_t layers = 0; ///< decoder layers it holds (all its model chunks)
  /// Decoder layers' worth of activations it keeps at its peak: in-flight
  /// microbatches times layers per model chunk.
  int64_t layersInFlight = 0;
  ParamState layerState;     ///< its decoder layers' parameters
  /// LoRA: the adapters of its decoder layers (TrainingPlan::loraRank);
  /// empty otherwise.
  ParamState adapterState;
  ParamState embeddingState; ///< embedding table, LM head, final norm
  /// FP8 training: the FP8 copies of its decoder layers' weights that the
  /// linear layers cast once per step and keep for every microbatch
  /// (fp8WeightCopyBytes per parameter); 0 in bf16.
  double fp8Weights = 0;
  double activations = 0;    ///< its decoder layers' (bytes)
  /// Activation CPU offloading (TrainingPlan::offloadLayers): the layers
  /// whose activations wait in host memory, and their bytes (not on the
  /// GPU: not in total()).
  int64_t offloadedLayers = 0;
  double offloadedActivations = 0;
  double inputActivations = 0; ///< the embedding's output (first stage)
  double lossActivations = 0;  ///< final norm, logits and loss (last stage)

  double total() const;
  /// Every component, named, in a fixed order; they sum to total().
  std::vector<MemoryLine> lines() const;
};

struct MemoryEstimate {
  std::vector<StageMemory> stages; ///< one per pipeline rank
  /// The index in `stages` of the stage that needs the most memory.
  size_t peakStage = 0;
  const StageMemory &peak() const { return stages[peakStage]; }
};

/// Bytes per parameter of the FP8 copies of a weight that Transformer
/// Engine keeps through a training step at `precision` on `target`
/// (docs/memory.md#fp8-training): fp8, a row-wise copy for the forward and,
/// where the FP8 GEMMs take only the TN layout (GpuTarget::fp8TnOnly:
/// Hopper, Ada), a transposed one for the data gradient, 2; on Blackwell
/// sm100 the one copy serves both, 1; mxfp8, a row-wise and a column-wise
/// copy on every target, each with one E8M0 scale per 32 elements,
/// 2 x (1 + 1/32); bf16 (or none), 0. No target: the TN-only count, an
/// upper bound.
double fp8WeightCopyBytes(std::optional<Precision> precision,
                          const target::GpuTarget *target = nullptr);

/// Bytes per element of a linear layer's input saved for its weight
/// gradient at `precision` (docs/memory.md#fp8-training): Transformer
/// Engine keeps the input its forward quantized (the column-wise usage
/// only), 1 byte in fp8, 1 + 1/32 in mxfp8; 2 (16-bit) otherwise.
double savedLinearInputBytes(std::optional<Precision> precision);

/// The activation bytes one decoder layer keeps for one microbatch
/// (Korthikanti et al. 2022, Table 2), with the sequence divided by the
/// context-parallel degree; a layer whose blocks hold an MoE block keeps
/// moeActivationBytes in place of the dense MLP's.
double layerActivationBytes(const model::ModelConfig &config,
                            const TrainingPlan &plan);

/// The activation bytes an MoE block keeps for one microbatch (16-bit,
/// docs/memory.md#moe-layers): its input and dropout mask (3 s b h, split
/// by sequence parallelism), the router's fp32 logits (4 s b E) and, for
/// each of the s b k routed copies (tokens x k / E per expert), the
/// permuted input, the gate, up and activation outputs and the expert's
/// output: 2h + 6 f_e / t + 2h bytes.
double moeActivationBytes(const model::ModelConfig &config,
                          const TrainingPlan &plan);

/// The memory per GPU of every pipeline stage; nullopt with `*error` set
/// (numbers and what to change) when the config or the plan is invalid
/// (a rule of checkModel, layers not divisible by pp x v, a degree, v or m
/// below 1, an interleaved schedule without pipeline parallelism).
/// `target` is the GPU the plan runs on; it decides the FP8 weight
/// copies (fp8WeightCopyBytes; nullptr: counted as on Hopper).
std::optional<MemoryEstimate> estimateMemory(const model::ModelConfig &config,
                                             const TrainingPlan &plan,
                                             std::string *error = nullptr,
                                             const target::GpuTarget *target =
                                                 nullptr);

/// Bytes in a GiB (2^30), the unit of Korthikanti et al.'s Figure 1.
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

} // namespace tshape::cost

#endif // TSHAPE_COST_MEMORY_H
