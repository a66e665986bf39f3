//===- Projection.h - Communication share across model and hardware scale -===//
//
// The projection of Pati et al. 2023 ("Computation vs. Communication
// Scaling for Future Transformers on Future Hardware", arXiv 2302.02825),
// run with tshape's planner: a sweep of model scale (hidden size h and
// layers L along a stated scaling rule) x hardware (clusters and
// user-scaled variants, HardwareSearch.h). Each point is the plan search's
// best plan (PlanSearch.h) and the share of its step time that is
// communication, in all and exposed (CommShare). docs/plan.md,
// "Projection". Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_PROJECTION_H
#define TSHAPE_ADVISE_PROJECTION_H

#include "tshape/Advise/HardwareSearch.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::advise {

/// How h and L grow together.
enum class ScalingRule {
  /// Narayanan et al. 2021 (SC'21), Table 1: the ten GPT models from 1.7B
  /// to 1T (h, L, heads) with the GPUs and global batch of each published
  /// run (weak scaling).
  Megatron2021,
  /// A constant aspect ratio h / L = 128 (GPT-3 175B's 12288 / 96; Kaplan
  /// et al. 2020, Section 3.1, find the loss nearly independent of the
  /// aspect ratio over a wide range) with head dim 128: h = 128 L, heads
  /// = L. The points are layer counts; the GPUs and batch are the user's.
  Aspect128,
};

/// "megatron-2021" / "aspect-128".
const char *scalingRuleName(ScalingRule r);
std::optional<ScalingRule> parseScalingRule(const std::string &name);
/// One sentence with the rule and its source.
const char *scalingRuleSource(ScalingRule r);

/// One model scale.
struct ModelPoint {
  std::string name; ///< "145.6B" (the table's), or "L=96"
  int64_t hidden = 0, layers = 0, heads = 0;
  /// The published run's GPUs and global batch; 0: the caller gives them.
  int64_t gpus = 0, globalBatch = 0;
};

/// The rule's points; `select` picks some (megatron-2021: the names,
/// "1.7B,145.6B"; aspect-128: layer counts, "24,48,96"), empty: every
/// table row (megatron-2021), or an error (aspect-128 has no default).
std::optional<std::vector<ModelPoint>>
scalingPoints(ScalingRule rule, const std::vector<std::string> &select,
              std::string &error);

/// `family` at the point's h, L and heads: the FFN keeps the family's
/// ratio to h (rounded to a multiple of 64 when not whole), key/value
/// heads their ratio to the heads (at least 1), the head dim h / heads;
/// vocabulary, sequence, MLP, norm and embeddings are the family's.
model::ModelConfig atScale(const model::ModelConfig &family,
                           const ModelPoint &point);

/// The communication in a step: tensor-parallel, context-parallel,
/// pipeline send/recv and data-parallel (the four CommTimes of
/// StepEstimate, the tied embedding's all-reduce inside dp). The pipeline
/// bubble is not communication: it is idle time, counted in the step
/// time, with its own share.
struct CommShare {
  double total = 0;   ///< seconds of communication, hidden or not
  double exposed = 0; ///< of which on the critical path
  /// total / (stepTime - exposed + total): the share in a step where no
  /// communication overlapped compute (the serialized step), in [0, 1].
  double totalShare = 0;
  /// exposed / stepTime: the share of the step spent waiting for it.
  double exposedShare = 0;
  double bubbleShare = 0; ///< bubble / stepTime
  /// exposed tp, cp, p2p, dp over stepTime (they sum to exposedShare).
  double tpShare = 0, cpShare = 0, p2pShare = 0, dpShare = 0;
};
CommShare commShare(const cost::StepEstimate &step);

/// One (model, hardware) point.
struct ProjectionPoint {
  ModelPoint model;
  int64_t parameters = 0; ///< model::countParameters at this scale
  int64_t gpus = 0, globalBatch = 0;
  std::string hardware; ///< the choice's label
  /// The search's counts (space, cut, priced, fit, unvisited).
  int64_t space = 0, priced = 0, fit = 0, unvisited = 0;
  std::optional<PlanCandidate> best; ///< absent: nothing fits
  std::string noFit;                 ///< noPlanFits() when absent
  CommShare share;
};

struct ProjectionOptions {
  ScalingRule rule = ScalingRule::Megatron2021;
  /// GPUs and global batch for every point (0: each point's own).
  int64_t gpus = 0, globalBatch = 0;
  FixedPlanChoices fixed;
  PlanSearchOptions search;
};

struct ProjectionResult {
  ScalingRule rule = ScalingRule::Megatron2021;
  std::vector<std::string> hardware; ///< the choices' labels, in order
  /// Model-major: every hardware choice of the first point, then the next.
  std::vector<ProjectionPoint> points;
};

/// At most this many (model, hardware) points in one projection.
constexpr size_t kMaxProjectionPoints = 256;

/// Searches every (point, choice) and measures its best plan's
/// communication share. Nullopt with `error` set: a point without GPUs or
/// batch (aspect-128 without them given), more than kMaxProjectionPoints,
/// a failed search. A point where nothing fits is kept, with `noFit`.
std::optional<ProjectionResult>
project(const model::ModelConfig &family, const std::vector<ModelPoint> &models,
        const std::vector<HardwareChoice> &choices,
        const ProjectionOptions &options, std::string &error,
        const SearchProgress &progress = {});

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_PROJECTION_H
