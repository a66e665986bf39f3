//===- StepTime.h - The time of one training step of a plan -----*- C++ -*-===//
//
// The seconds one training step takes under a plan (the degrees of
// `config.parallel` and a TrainingPlan, Memory.h) on a GPU target and a
// cluster, component by component: the per-rank kernels of tshape's own
// block models priced by predictKernel (so t and cp change the shapes and
// their quantization), the memory-bound elementwise work, recompute, the
// tensor-parallel collectives, the context-parallel ring exchange, the
// pipeline bubble and point-to-point transfers, the data-parallel
// gradient reduction (overlapped with the backward as Megatron-LM does),
// and the optimizer step; with the model FLOPs of Narayanan et al. 2021,
// Eq. 3, so that TFLOP/s per GPU compare with published runs.
// docs/step-time.md states each formula and its source. Plain C++: no MLIR
// types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_STEPTIME_H
#define TSHAPE_COST_STEPTIME_H

#include "tshape/Cost/Cluster.h"
#include "tshape/Cost/Memory.h"
#include "tshape/Target/GpuTarget.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace tshape::cost {

/// Choices of the training engine that a step's time depends on and the
/// memory does not.
struct StepOptions {
  /// Megatron-LM's --overlap-grad-reduce: the data-parallel gradient
  /// reduction runs in buckets during the backward of the last microbatch.
  bool overlapGradReduce = true;
  /// Megatron-LM's --overlap-param-gather (distributed optimizer): the
  /// parameter all-gather runs during the next step's first forward.
  bool overlapParamGather = true;
  /// Megatron-LM's --gradient-accumulation-fusion (on by default; APEX's
  /// fused_weight_gradient_mlp_cuda): the weight-gradient GEMM adds into
  /// the main gradient. Off (Megatron-LM before it, e.g. the 2021 runs):
  /// every microbatch's weight gradients are added to the accumulated ones
  /// in a memory-bound pass of its own.
  bool gradientAccumulationFusion = true;
  /// Megatron-LM's overlap_p2p_comm (on by default with virtual stages
  /// since --no-overlap-p2p-communication replaced the opt-in flag; the
  /// 2021-22 Megatron-LM of the papers' runs did not have it): an
  /// interleaved schedule's pipeline sends and receives run behind the
  /// next model chunk's compute.
  bool overlapP2pComm = true;
};

/// A communication's seconds per step: all of it, and what is on the
/// critical path (not hidden behind compute).
struct CommTime {
  double total = 0;
  double exposed = 0;
  double hidden() const { return total - exposed; }
};

/// One pipeline stage's work for one microbatch, in seconds (all its
/// model chunks).
struct StageMicrobatch {
  int64_t stage = 0;
  double forward = 0;     ///< GEMMs and attention, forward
  double backward = 0;    ///< GEMMs and attention, backward
  double recompute = 0;   ///< the forward kernels run again
  /// Memory-bound work, recompute included (and the weight gradients'
  /// accumulation without StepOptions::gradientAccumulationFusion).
  double elementwise = 0;
  CommTime tp;            ///< tensor-parallel collectives (all exposed)
  CommTime ep;            ///< expert-parallel all-to-alls (all exposed)
  CommTime cp;            ///< context-parallel ring exchange
  /// Pipeline sends and receives (exposed, or behind the next chunk's
  /// compute with StepOptions::overlapP2pComm and virtual stages).
  CommTime p2p;
  /// Activation CPU offloading: the offloaded layers' activations to host
  /// memory and back, each hidden behind a layer's forward or backward.
  CommTime offload;
  /// The critical path of one microbatch on this stage.
  double total() const {
    return forward + backward + recompute + elementwise + tp.exposed +
           ep.exposed + cp.exposed + p2p.exposed + offload.exposed;
  }
};

/// One named part of the step: seconds on the critical path, and for a
/// communication the seconds hidden behind compute.
struct StepLine {
  std::string name;
  double seconds = 0;
  double hiddenSeconds = 0;
};

/// The step model's error on published runs (docs/model-accuracy.md,
/// "Published training runs": bench/training_runs.py over the Megatron-Bridge
/// 26.x runs of ../shared/data/published/training-runs.json that tshape can
/// express, 2026-11-28, nothing fitted on them): the held-out part's mean
/// |error| of tokens/s per GPU (22 runs, dense and MoE), and the largest
/// error of a MoE run (+278%, the fit part: Qwen3-30B-A3B on H100 in
/// 26.02, whose same plan ran 1.8x faster a release later; the dispatcher
/// and router are not modelled yet). A plan search ranks plans closer than
/// the first as equals; the reports print both beside a prediction.
/// Regenerate them with the table.
inline constexpr double kStepHeldOutMeanAbsError = 0.187;
inline constexpr int kStepHeldOutRuns = 22;
inline constexpr double kStepMoeWorstError = 2.78;

struct StepEstimate {
  int64_t gpus = 0;         ///< tp x pp x dp x cp
  int64_t globalBatch = 0;  ///< sequences per step: m x b x dp
  int64_t microbatches = 0; ///< m
  /// Per stage, one microbatch; `paceStage` is the slowest, which sets
  /// the pipeline's pace.
  std::vector<StageMicrobatch> stages;
  size_t paceStage = 0;
  /// The stage whose data-parallel communication and optimizer step end
  /// the step last (`dp`, `optimizer` are its).
  size_t lastStage = 0;
  double microbatchTime = 0; ///< stages[paceStage].total()
  /// (p - 1) / (v m): the pipeline bubble over the ideal m microbatches.
  double bubbleFraction = 0;

  // Seconds per step; the exposed parts sum to stepTime (lines()).
  double compute = 0;     ///< m x (forward + backward)
  double recompute = 0;   ///< m x recompute
  double elementwise = 0; ///< m x elementwise
  CommTime tp, ep, cp, p2p; ///< m x one microbatch's
  CommTime offload;         ///< m x one microbatch's (activation offload)
  double bubble = 0;      ///< (p - 1) / v microbatch times
  /// Gradient reduction and parameter gather; with a tied embedding on
  /// its own stages, the first and last stages' all-reduce of its gradient.
  CommTime dp;
  double optimizer = 0;   ///< the optimizer step
  double stepTime = 0;

  /// Model FLOPs of the step, whole model (Narayanan et al. 2021, Eq. 3,
  /// counting the recompute the plan does: full recompute gives Eq. 3's
  /// 96 B s L h^2 (1 + s/(6h) + V/(16 L h))); and without any recompute
  /// (72 B s L h^2 (1 + s/(6h) + V/(12 L h)), the FLOPs MFU counts).
  double modelFlops = 0;
  double modelFlopsNoRecompute = 0;
  /// Model TFLOP/s: modelFlopsNoRecompute / stepTime / gpus (what the
  /// model needs, whatever the plan recomputes; MFU's numerator).
  double tflopsPerGpu = 0;
  /// Hardware TFLOP/s: modelFlops / stepTime / gpus, the recompute counted
  /// (Narayanan et al. 2021's Table 1 figures, all full recompute).
  double hardwareTflopsPerGpu = 0;
  double tokensPerSPerGpu = 0; ///< globalBatch x s / stepTime / gpus
  /// tflopsPerGpu over the target's dense peak at the precision the linear
  /// layers run in (PaLM's MFU; Korthikanti et al. 2022, Table 5): the FP8
  /// peak for an FP8 or MXFP8 plan, else the dtype's.
  double mfu = 0;
  /// hardwareTflopsPerGpu over the same peak.
  double hfu = 0;
  /// The precision whose peak mfu and hfu divide by ("bf16", "fp8", ...).
  std::string peakPrecision;

  MemoryEstimate memory; ///< estimateMemory; memory.peak() is the peak

  /// Every part of the step, named, in a fixed order; their `seconds` sum
  /// to stepTime.
  std::vector<StepLine> lines() const;
};

/// The model FLOPs of one step of `globalBatch` sequences (Narayanan et
/// al. 2021, Eq. 3 and its derivation): forward 24 B s L h^2 (1 + s/(6h))
/// + 6 B s h V; backward twice the forward; full recompute the layers'
/// forward again, selective their attention core (4 B s^2 h L).
double stepModelFlops(const model::ModelConfig &config, int64_t globalBatch,
                      Recompute recompute);

/// The time of one training step of `config` under `plan`; nullopt with
/// `*error` set (the numbers and what to change) when the plan does not
/// factor: every error of estimateMemory, fewer microbatches than
/// pipeline stages, an interleaved schedule whose m is not a multiple of
/// pp, a sequence not divisible by cp, a dtype without a dense peak on the
/// target, a kernel the cost model cannot price.
std::optional<StepEstimate> estimateStep(const model::ModelConfig &config,
                                         const TrainingPlan &plan,
                                         const target::GpuTarget &target,
                                         const Cluster &cluster,
                                         const StepOptions &options = {},
                                         std::string *error = nullptr);

/// estimateStep for many plans of one model (the planner, PlanSearch.h):
/// remembers the kernel times of every per-rank shape it has priced. They
/// depend on the parameter table's values (t, cp, the microbatch, the
/// sizes) and the dtype, not on p, d, v, m, recompute or sharding, so a
/// second plan with the same per-rank shape is priced with arithmetic.
/// The configs given must differ only in parameter-table values and dtype.
class StepModel {
public:
  StepModel(const target::GpuTarget &target, const Cluster &cluster,
            const StepOptions &options = {});
  ~StepModel();
  StepModel(const StepModel &) = delete;
  StepModel &operator=(const StepModel &) = delete;

  /// estimateStep(config, plan, target, cluster, options, error).
  std::optional<StepEstimate> estimate(const model::ModelConfig &config,
                                       const TrainingPlan &plan,
                                       std::string *error = nullptr);
  /// The same, with `memory` = estimateMemory(config, plan) already priced
  /// by the caller (the plan search prices the memory of every candidate
  /// first, and times only those that fit).
  std::optional<StepEstimate> estimate(const model::ModelConfig &config,
                                       const TrainingPlan &plan,
                                       MemoryEstimate memory,
                                       std::string *error = nullptr);
  /// Per-rank shapes whose kernels were priced.
  int64_t pricedShapes() const { return priced; }

  struct RankTimes;

private:
  const RankTimes *times(const model::ModelConfig &config,
                         const model::RunShape &run, std::string &error);

  const target::GpuTarget &target;
  const Cluster &cluster;
  StepOptions opt;
  struct Entry {
    std::unique_ptr<RankTimes> times; ///< null: `error` says why
    std::string error;
  };
  std::map<std::vector<int64_t>, Entry> cache;
  int64_t priced = 0;
};

} // namespace tshape::cost

#endif // TSHAPE_COST_STEPTIME_H
