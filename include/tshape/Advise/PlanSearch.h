//===- PlanSearch.h - The search over training plans ------------*- C++ -*-===//
//
// Finds the fastest training plans of a model on a number of GPUs of a
// cluster under the GPU's memory: the parallel degrees (t, p, cp, e; d is
// what is left), the microbatch, the virtual pipeline stages, recompute,
// sequence parallelism and the state sharding, for a fixed global batch.
// The space is the Cartesian product of the PlanSpace lists, enumerated by
// the one odometer of the searches (Odometer.h); a family of candidates
// that breaks a rule is cut whole and counted with the rule that cut it
// (provable pruning: every candidate under it breaks the same rule), every
// other candidate is priced for memory, and those that fit for time
// (cost::StepModel). docs/plan.md, "Search". Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_PLANSEARCH_H
#define TSHAPE_ADVISE_PLANSEARCH_H

#include "tshape/Advise/ShapeSearch.h"
#include "tshape/Cost/StepTime.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tshape::advise {

/// The values the search tries, one list per choice. defaultPlanSpace
/// fills every list; a caller narrows one to fix it.
struct PlanSpace {
  int64_t gpus = 0;        ///< tp x pp x dp x cp
  int64_t globalBatch = 0; ///< sequences per step
  std::vector<int64_t> tp, pp, cp, ep, microbatch, virtualStages;
  std::vector<cost::Recompute> recompute;
  /// The modules a selective-recompute candidate recomputes (the attention
  /// core by default; --recompute-modules fixes others).
  model::RecomputeModules selectiveModules =
      model::RecomputeModules(model::RecomputeModule::CoreAttn);
  std::vector<bool> sequenceParallel;
  std::vector<cost::StateSharding> sharding;
  /// The expert all-to-alls overlapped (TrainingPlan::overlapEpComm): both
  /// for a model with experts, off for the others.
  std::vector<bool> overlapEpComm = {false};

  /// Candidates in the space: the product of the list sizes (saturating).
  int64_t size() const;
};

/// The whole space for `gpus` GPUs and `globalBatch` sequences: t, p and
/// cp every divisor of the GPUs, e 1 (the model has no experts yet), the
/// microbatch every divisor of the global batch, v every divisor of the
/// layers, every recompute, both sequence-parallel settings, every
/// sharding, and for a model with experts the all-to-alls overlapped or
/// not.
PlanSpace defaultPlanSpace(const model::ModelConfig &config, int64_t gpus,
                           int64_t globalBatch);

struct PlanSearchOptions {
  /// Memory per GPU allowed, GiB; 0: the target's memoryGiB.
  double memoryLimitGiB = 0;
  /// Ranked plans kept.
  int64_t top = 10;
  /// Plans whose step times are within this fraction of a group's fastest
  /// are equals (the model cannot tell them apart): the ranking groups
  /// them, the conventional plan first (conventionalKey); 0 (the
  /// library's default, what a hardware comparison wants): rank by time
  /// alone. tshape-plan --search groups by the step model's measured
  /// error on published runs (cost::kStepHeldOutMeanAbsError).
  double equalWithin = 0;
  /// Candidates visited at most (the search's bound; it says when it
  /// stopped there).
  int64_t maxCandidates = 100'000'000;
  cost::StepOptions step;
  /// Bytes per parameter of the training state (the precision's).
  cost::StateBytes bytes;
  /// The linear layers' precision of every plan (TrainingPlan::precision).
  std::optional<Precision> precision;
  /// Called every 1,024 priced candidates with the candidates dealt with
  /// so far (priced or cut) and the space's size; empty: none. tshape-plan
  /// draws it on a terminal (Support/Progress.h).
  std::function<void(int64_t done, int64_t total)> progress;
};

/// One plan: the degrees and microbatch (in `config`) and the plan's
/// choices, with its estimate.
struct PlanCandidate {
  model::ModelConfig config;
  cost::TrainingPlan plan;
  cost::StepEstimate step;
  /// Its group of equals in a ranking (1 the fastest group; 0: not
  /// grouped).
  int64_t group = 0;
  double peakGiB() const;
  /// "t=8 p=8 d=16 cp=1 b=1 v=3 recompute=full sp sharding=none".
  std::string describe() const;
};

/// Candidates removed by one rule, and one example's message.
struct Rejection {
  std::string rule;    ///< short name ("memory", "pp divides layers", ...)
  int64_t candidates = 0;
  std::string example; ///< the first one's message, with numbers
};

/// The candidates of one tensor-parallel degree.
struct PlanFamily {
  int64_t tp = 0;
  int64_t candidates = 0, fitting = 0;
  /// Its fastest plan that fits, or why none did: the smallest memory it
  /// reached ("t=1: 94.2 GiB > 80 GiB at ..."), else the rule that cut it.
  std::string summary;
  std::optional<PlanCandidate> fastest; ///< absent when none fits
};

struct PlanSearchResult {
  PlanSpace space;
  double memoryLimitGiB = 0;
  int64_t spaceSize = 0; ///< candidates in the space (PlanSpace::size)
  int64_t cut = 0;       ///< removed whole by a rule, not priced
  int64_t priced = 0;    ///< memory estimated
  int64_t timed = 0;     ///< of which fit, and got a step time
  int64_t unvisited = 0; ///< left when the search stopped at its bound
  bool bounded() const { return unvisited > 0; }
  int64_t pricedShapes = 0; ///< per-rank shapes whose kernels were priced
  std::vector<Rejection> rejections; ///< by rule, most candidates first
  std::vector<PlanFamily> families;  ///< by tp
  /// At most `top`: by groups of equals (PlanSearchOptions::equalWithin),
  /// the fastest group first, each the conventional plan first and then
  /// by time; by time alone when equalWithin is 0.
  std::vector<PlanCandidate> ranked;
  double equalWithin = 0; ///< the band the ranking grouped by
  /// Plans in the first group of equals, of those the search kept (a
  /// group can hold more than `top` show).
  int64_t firstGroupSize = 0;
  /// When nothing fits: the candidate that needs the least memory.
  std::optional<PlanCandidate> smallest;
};

/// Searches `space` for `config` (its sizes, dtype and sequence; its
/// degrees and microbatch are replaced) on `target` and `cluster`; nullopt
/// with `error` set when the space is empty or malformed (a list empty, a
/// value below 1, GPUs or batch below 1). A search in which nothing fits
/// is a result with no ranked plans and `smallest` set
/// (noPlanFits() words it).
std::optional<PlanSearchResult>
searchPlans(const model::ModelConfig &config, const PlanSpace &space,
            const target::GpuTarget &target, const cost::Cluster &cluster,
            const PlanSearchOptions &options, std::string &error);

/// How conventional a plan is, lower first (which of a group of equals a
/// ranking shows first): less recompute (none, selective, full: no work
/// done twice), Megatron-LM's default state sharding (none, then the
/// distributed optimizer, then FSDP), fewer parallel dimensions in use
/// (tp, pp, cp, ep above 1), fewer model-parallel ranks (tp x pp x cp x
/// ep), no interleaving, sequence parallelism exactly when tp > 1 (where
/// practice runs it), the expert all-to-alls not overlapped (Megatron-LM's
/// default).
std::vector<int64_t> conventionalKey(const PlanCandidate &c);

/// Orders `plans` (any order) into groups of equals: the fastest plan
/// left starts a group that holds every plan within `within` of its time;
/// each group's most conventional plan (conventionalKey) first, the rest
/// by time. Sets each plan's
/// `group`; keeps the first `top`; returns the first group's size before
/// that (0 when `within` is 0).
int64_t groupEquals(std::vector<PlanCandidate> &plans, double within,
                    int64_t top);

/// "no plan fits in 80 GiB: the smallest needs 97.1 GiB per GPU at t=8 p=8
/// ..." (empty when a plan fits or nothing was priced).
std::string noPlanFits(const PlanSearchResult &r);

/// The shape search under one plan (co-search): the neighbourhood of
/// `shape.vary` (ShapeSearch.h, the same candidates, parameter budget and
/// rules) priced as whole training steps of `plan` (its degrees,
/// microbatch, schedule, recompute and sharding) by estimateStep, and
/// ranked by the candidate's own FLOPs per second per GPU (its kernels,
/// not Eq. 3, which assumes f = 4h); a candidate that breaks
/// Megatron-LM's rules under the plan or needs more than
/// `memoryLimitGiB` per GPU is infeasible. A head count or FFN size that is
/// good at t = 1 can be bad at t = 8: run it under each plan worth having.
std::optional<SearchResult>
coSearchShapes(const PlanCandidate &plan, const target::GpuTarget &target,
               const cost::Cluster &cluster, const SearchOptions &shape,
               double memoryLimitGiB, const cost::StepOptions &step,
               std::string &error);

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_PLANSEARCH_H
