//===- RunShape.cpp - What a run computes ---------------------------------===//

#include "tshape/Model/RunShape.h"

using namespace tshape::model;

namespace {
constexpr const char *kPhaseNames[] = {"train", "prefill", "decode"};
} // namespace

const char *tshape::model::phaseName(Phase p) {
  return kPhaseNames[size_t(p)];
}

std::optional<Phase> tshape::model::parsePhase(std::string_view name) {
  for (Phase p : {Phase::Train, Phase::Prefill, Phase::Decode})
    if (name == phaseName(p))
      return p;
  return std::nullopt;
}

const char *tshape::model::phaseNames() { return "train|prefill|decode"; }

DimExpr RunShape::queries() const {
  if (phase == Phase::Decode)
    return DimExpr::constant(1 + draft);
  return DimExpr::param(Param::Seq);
}

DimExpr RunShape::keys() const {
  if (kvLength > 0)
    return DimExpr::constant(kvLength);
  return DimExpr::param(Param::Seq);
}

DimExpr RunShape::tokens() const {
  DimExpr q = queries();
  if (q.isConstant(1))
    return DimExpr::param(Param::Microbatch);
  return DimExpr::param(Param::Microbatch) * q;
}

std::string tshape::model::str(const RunShape &r) {
  std::string s = phaseName(r.phase);
  if (r.kvLength > 0)
    s += " kv_length=" + std::to_string(r.kvLength);
  if (r.draft > 0)
    s += " draft=" + std::to_string(r.draft);
  if (r.kvCache)
    s += std::string(" kv_cache=") + dtypeName(*r.kvCache);
  if (r.precision)
    s += std::string(" precision=") + precisionName(*r.precision);
  if (r.sequenceParallel)
    s += " sequence_parallel=true";
  return s;
}

std::optional<RunShape> tshape::model::parseRunShape(std::string_view s) {
  auto next = [&]() {
    while (!s.empty() && s.front() == ' ')
      s.remove_prefix(1);
    size_t end = s.find(' ');
    std::string_view word = s.substr(0, end);
    s.remove_prefix(end == std::string_view::npos ? s.size() : end);
    return word;
  };
  std::optional<Phase> phase = parsePhase(next());
  if (!phase)
    return std::nullopt;
  RunShape r{*phase, 0};
  for (std::string_view w = next(); !w.empty(); w = next()) {
    size_t eq = w.find('=');
    if (eq == std::string_view::npos)
      return std::nullopt;
    std::string_view key = w.substr(0, eq);
    std::string value(w.substr(eq + 1));
    if (key == "kv_length" || key == "draft") {
      if (value.empty() || value.size() > 18 ||
          value.find_first_not_of("0123456789") != std::string::npos)
        return std::nullopt;
      (key == "draft" ? r.draft : r.kvLength) = std::stoll(value);
    } else if (key == "kv_cache") {
      if (!(r.kvCache = parseDType(value)))
        return std::nullopt;
    } else if (key == "precision") {
      if (!(r.precision = parsePrecision(value)))
        return std::nullopt;
    } else if (key == "sequence_parallel") {
      if (value != "true" && value != "false")
        return std::nullopt;
      r.sequenceParallel = value == "true";
    } else {
      return std::nullopt;
    }
  }
  return r;
}
