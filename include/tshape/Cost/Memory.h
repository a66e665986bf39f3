//===- Memory.h - Bytes per GPU of a training plan --------------*- C++ -*-===//
//
// The memory one GPU needs to train a model under a plan (Plan.h): the weights,
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

#include "tshape/Cost/Plan.h"
#include "tshape/Model/Transformer.h"
#include "tshape/Target/GpuTarget.h"

#include <cstdint>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

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
  /// Of layerState.params, the routed experts' when they form a
  /// data-parallel group of their own (etp x ep != tp): their state shards,
  /// and their gradients reduce, over MemoryEstimate::expertGroup ranks
  /// rather than the dense parameters' dp x cp. 0 otherwise (and under
  /// LoRA, whose frozen experts have no gradients).
  int64_t routedParams = 0;
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
  /// The expert data-parallel group: the ranks of a stage holding the same
  /// routed experts, tp x cp x dp / (etp x ep) (Megatron-LM's
  /// expert_data_parallel group), whose ranks stand etp x ep apart in the
  /// rank order (`expertStride`).
  int64_t expertGroup = 1, expertStride = 1;
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

/// The plan's activation choices as the blocks read them (sequence
/// parallelism, selective recompute, the linear inputs' saved bytes).
model::ActivationPlan activationPlan(const TrainingPlan &plan);
/// The activation bytes one decoder layer keeps for one microbatch, with
/// the sequence divided by the context-parallel degree: its input alone
/// under full recompute, else the sum of its blocks' own
/// (BlockInfo::activations: Korthikanti et al. 2022, Table 2, per
/// sub-layer; an MoE block's, docs/memory.md#moe-layers, in place of the
/// dense MLP's).
double layerActivationBytes(const model::ModelConfig &config,
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
