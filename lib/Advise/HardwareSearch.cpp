//===- HardwareSearch.cpp - The plan search over hardware choices ---------===//
//
// The hardware choices of a command line, and one plan search per choice,
// ranked (HardwareSearch.h; docs/plan.md, "Hardware co-search").
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/HardwareSearch.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

using namespace tshape;
using namespace tshape::advise;

namespace {
bool endsWith(const std::string &s, const char *suffix) {
  const std::string x(suffix);
  return s.size() >= x.size() &&
         s.compare(s.size() - x.size(), x.size(), x) == 0;
}

/// A built-in cluster by name, or a cluster file (a path ending in .json),
/// with its GPU target.
std::optional<cost::Hardware> resolveHardware(const std::string &entry,
                                              std::string &error) {
  const bool file = endsWith(entry, ".json");
  std::optional<cost::Cluster> c =
      cost::resolveCluster(file ? "" : entry, file ? entry : "", error);
  if (!c)
    return std::nullopt;
  std::optional<target::GpuTarget> t = target::resolveTarget(c->gpu, "", error);
  if (!t)
    return std::nullopt;
  return cost::Hardware{std::move(*t), std::move(*c)};
}

std::string labels(const std::vector<HardwareChoice> &choices) {
  std::string s;
  for (const HardwareChoice &c : choices)
    s += (s.empty() ? "" : ", ") + c.label;
  return s;
}

/// "BASE:FACTORS[,name=LABEL]" as a choice.
std::optional<HardwareChoice> scaledChoice(const std::string &spec,
                                           std::string &error) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos || colon == 0) {
    error = "--scale '" + spec +
            "': write BASE:FACTOR=VALUE,... (e.g. dgx-h100:compute=1.5)";
    return std::nullopt;
  }
  HardwareChoice c;
  c.base = spec.substr(0, colon);
  std::string factors, rest = spec.substr(colon + 1);
  // Take `name=` out; the rest are factors.
  llvm::SmallVector<llvm::StringRef> items;
  llvm::StringRef(rest).split(items, ',');
  for (llvm::StringRef itemRef : items) {
    const std::string item = itemRef.str();
    if (item.rfind("name=", 0) == 0) {
      c.label = item.substr(5);
      if (c.label.empty()) {
        error = "--scale '" + spec + "': name= needs a label";
        return std::nullopt;
      }
      continue;
    }
    factors += (factors.empty() ? "" : ",") + item;
  }
  std::optional<cost::Hardware> base = resolveHardware(c.base, error);
  if (!base || !cost::parseHardwareFactors(factors, c.factors, error)) {
    error = "--scale '" + spec + "': " + error;
    return std::nullopt;
  }
  std::optional<cost::Hardware> hw =
      cost::scaleHardware(base->target, base->cluster, c.factors, error);
  if (!hw)
    return std::nullopt;
  c.hw = std::move(*hw);
  if (c.label.empty())
    c.label = c.hw.cluster.name;
  return c;
}

bool parsePrice(const std::string &spec, std::string &label, double &price,
                std::string &error) {
  const size_t colon = spec.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    error = "--price '" + spec + "': write LABEL:PRICE (e.g. dgx-h100:2.5)";
    return false;
  }
  label = spec.substr(0, colon);
  const std::string value = spec.substr(colon + 1);
  char *end = nullptr;
  price = std::strtod(value.c_str(), &end);
  if (value.empty() || *end != '\0' || !std::isfinite(price) || price <= 0) {
    error = "--price '" + spec +
            "': the price per GPU-hour must be a number above 0";
    return false;
  }
  return true;
}
} // namespace

std::optional<std::vector<HardwareChoice>>
tshape::advise::hardwareChoices(const std::vector<std::string> &clusters,
                                const std::vector<std::string> &scales,
                                const std::vector<std::string> &prices,
                                std::string &error) {
  std::vector<HardwareChoice> out;
  for (const std::string &entry : clusters) {
    std::optional<cost::Hardware> hw = resolveHardware(entry, error);
    if (!hw)
      return std::nullopt;
    HardwareChoice c;
    c.label = hw->cluster.name;
    c.base = entry;
    c.hw = std::move(*hw);
    out.push_back(std::move(c));
  }
  for (const std::string &spec : scales) {
    std::optional<HardwareChoice> c = scaledChoice(spec, error);
    if (!c)
      return std::nullopt;
    out.push_back(std::move(*c));
  }
  if (out.empty()) {
    error = "no hardware to compare: give --clusters or --scale";
    return std::nullopt;
  }
  if (out.size() > kMaxHardwareChoices) {
    error = std::to_string(out.size()) + " hardware choices, more than the " +
            std::to_string(kMaxHardwareChoices) + " one run compares";
    return std::nullopt;
  }
  for (size_t i = 0; i < out.size(); ++i)
    for (size_t j = 0; j < i; ++j)
      if (out[i].label == out[j].label) {
        error = "hardware choice '" + out[i].label +
                "' given twice (a scaled variant takes name=LABEL)";
        return std::nullopt;
      }
  for (const std::string &spec : prices) {
    std::string label;
    double price = 0;
    if (!parsePrice(spec, label, price, error))
      return std::nullopt;
    auto it =
        std::find_if(out.begin(), out.end(),
                     [&](const HardwareChoice &c) { return c.label == label; });
    if (it == out.end()) {
      error = "--price names '" + label +
              "', which is not a hardware choice (choices: " + labels(out) +
              ")";
      return std::nullopt;
    }
    if (it->pricePerGpuHour) {
      error = "--price gives '" + label + "' twice";
      return std::nullopt;
    }
    it->pricePerGpuHour = price;
  }
  if (!prices.empty())
    for (const HardwareChoice &c : out)
      if (!c.pricePerGpuHour) {
        error = "--price gives no price for '" + c.label +
                "': price every hardware choice or none";
        return std::nullopt;
      }
  return out;
}

PlanSpace tshape::advise::narrowSpace(PlanSpace space,
                                      const FixedPlanChoices &fixed) {
  auto one = [](auto &list, const auto &value) {
    if (value)
      list = {*value};
  };
  one(space.tp, fixed.tp);
  one(space.pp, fixed.pp);
  one(space.cp, fixed.cp);
  one(space.ep, fixed.ep);
  one(space.microbatch, fixed.microbatch);
  one(space.virtualStages, fixed.virtualStages);
  one(space.recompute, fixed.recompute);
  if (fixed.recomputeModules)
    space.selectiveModules = *fixed.recomputeModules;
  one(space.sequenceParallel, fixed.sequenceParallel);
  one(space.sharding, fixed.sharding);
  one(space.overlapEpComm, fixed.overlapEpComm);
  return space;
}

double HardwareOutcome::tokensPerDollar() const {
  const PlanCandidate *b = best();
  if (!b || !choice.pricePerGpuHour)
    return 0;
  return b->step.tokensPerSPerGpu * 3600 / *choice.pricePerGpuHour;
}

double HardwareSearchResult::key(const HardwareOutcome &o) const {
  if (!o.best())
    return 0;
  return ranking == HardwareRanking::TokensPerDollar
             ? o.tokensPerDollar()
             : o.best()->step.tokensPerSPerGpu;
}

std::optional<HardwareSearchResult> tshape::advise::searchHardware(
    const model::ModelConfig &config, const PlanSpace &space,
    const std::vector<HardwareChoice> &choices,
    const PlanSearchOptions &options, std::string &error,
    const SearchProgress &progress) {
  HardwareSearchResult res;
  res.ranking = HardwareRanking::TokensPerDollar;
  for (const HardwareChoice &c : choices)
    if (!c.pricePerGpuHour)
      res.ranking = HardwareRanking::TokensPerGpu;
  for (size_t i = 0; i < choices.size(); ++i) {
    const HardwareChoice &c = choices[i];
    if (progress)
      progress(i, choices.size(), c.label);
    std::optional<PlanSearchResult> r =
        searchPlans(config, space, c.hw.target, c.hw.cluster, options, error);
    if (!r) {
      error = c.label + ": " + error;
      return std::nullopt;
    }
    res.outcomes.push_back({c, std::move(*r)});
  }
  std::stable_sort(res.outcomes.begin(), res.outcomes.end(),
                   [&](const HardwareOutcome &a, const HardwareOutcome &b) {
                     if (!a.best() || !b.best())
                       return a.best() && !b.best();
                     return res.key(a) > res.key(b);
                   });
  return res;
}
