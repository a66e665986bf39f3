//===- HardwareSearch.h - The plan search over hardware choices -*- C++ -*-===//
//
// Hardware co-search, the seed direction of Phaze (Wang, Tarnawski,
// Phanishayee, Mahajan, ICML 2024): the plan search (PlanSearch.h) run on
// each of several clusters and user-scaled variants of them
// (Cost/HardwareScale.h), for the same model, GPU count and global batch,
// and the choices ranked by tokens/s per GPU, or by tokens per dollar when
// the user gives every choice a price per GPU-hour. Each choice's best plan
// is the exhaustive, provably pruned search's; nothing is shared between
// choices but the space. docs/plan.md, "Hardware co-search". Plain C++: no
// MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_HARDWARESEARCH_H
#define TSHAPE_ADVISE_HARDWARESEARCH_H

#include "tshape/Advise/PlanSearch.h"
#include "tshape/Cost/HardwareScale.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace tshape::advise {

/// At most this many hardware choices in one co-search or projection.
constexpr size_t kMaxHardwareChoices = 32;

/// One hardware choice: a cluster (built-in or from a file), possibly
/// scaled.
struct HardwareChoice {
  /// What reports and --price call it: the cluster's name, a scaled
  /// variant's `name=`, else "BASE x compute 1.5".
  std::string label;
  std::string base;              ///< the cluster it starts from
  cost::HardwareFactors factors; ///< identity for an unscaled cluster
  cost::Hardware hw;
  /// A user input: the price of one GPU for one hour (any currency, the
  /// same for every choice; reports say "dollars"). Absent: not priced.
  std::optional<double> pricePerGpuHour;
};

/// The hardware choices of a command line: `clusters` (built-in names, or
/// paths ending in .json: cluster files), then one scaled variant per
/// `scales` entry ("BASE:compute=1.5,link=2[,name=LABEL]", BASE a built-in
/// cluster or a cluster file), priced by `prices` ("LABEL:2.5").
/// Nullopt with `error` set: an unknown cluster or factor, a factor not
/// above 0, a label twice, no choice or more than kMaxHardwareChoices, a
/// price that names no choice or is not above 0, or prices for some
/// choices but not all.
std::optional<std::vector<HardwareChoice>>
hardwareChoices(const std::vector<std::string> &clusters,
                const std::vector<std::string> &scales,
                const std::vector<std::string> &prices, std::string &error);

/// The plan choices a command line fixes; an absent one is searched.
struct FixedPlanChoices {
  std::optional<int64_t> tp, pp, cp, ep, microbatch, virtualStages;
  std::optional<cost::Recompute> recompute;
  /// Selective recompute's modules (the recompute is then selective).
  std::optional<model::RecomputeModules> recomputeModules;
  std::optional<bool> sequenceParallel;
  std::optional<cost::StateSharding> sharding;
  std::optional<bool> overlapEpComm;
};
/// `space` with each fixed choice's list narrowed to its one value.
PlanSpace narrowSpace(PlanSpace space, const FixedPlanChoices &fixed);

/// Called before each plan search: searches done, searches in all, and
/// what the next one is.
using SearchProgress =
    std::function<void(size_t done, size_t total, const std::string &what)>;

/// One choice's search.
struct HardwareOutcome {
  HardwareChoice choice;
  PlanSearchResult search;
  /// The best plan, or nullptr when none fits.
  const PlanCandidate *best() const {
    return search.ranked.empty() ? nullptr : &search.ranked.front();
  }
  /// tokens/s per GPU x 3600 / price per GPU-hour; 0 without a price or a
  /// plan.
  double tokensPerDollar() const;
};

enum class HardwareRanking { TokensPerGpu, TokensPerDollar };

struct HardwareSearchResult {
  /// Best first: by tokens per dollar when every choice has a price, else
  /// by tokens/s per GPU (the same order as step time: the GPUs and the
  /// batch are the same for every choice); choices where nothing fits
  /// last, in command-line order.
  std::vector<HardwareOutcome> outcomes;
  HardwareRanking ranking = HardwareRanking::TokensPerGpu;
  /// The key of outcome `i` (tokens/s per GPU or tokens per dollar).
  double key(const HardwareOutcome &o) const;
};

/// Runs searchPlans(config, space, choice.target, choice.cluster, options)
/// for every choice (the memory limit: options.memoryLimitGiB, else each
/// target's own) and ranks them. Nullopt with `error` set when a search
/// fails (the choice's label leads the message).
std::optional<HardwareSearchResult>
searchHardware(const model::ModelConfig &config, const PlanSpace &space,
               const std::vector<HardwareChoice> &choices,
               const PlanSearchOptions &options, std::string &error,
               const SearchProgress &progress = {});

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_HARDWARESEARCH_H
