//===- Parallelism.cpp - Parallel degrees and per-rank sizes --------------===//

#include "tshape/Model/Parallelism.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>
#include <cstdio>

using namespace tshape::model;

int64_t tshape::model::degree(const Parallelism &par, Param p) {
  ModelConfig holder;
  holder.parallel = par;
  return getParam(holder, p);
}

void tshape::model::setDegree(Parallelism &par, Param p, int64_t value) {
  ModelConfig holder;
  holder.parallel = par;
  setParam(holder, p, value);
  par = holder.parallel;
}

void tshape::model::bindDegrees(const ModelConfig &c, Bindings &env) {
  // Only the degrees that split a parameter the model has: a dense model's
  // sizes never mention ep, so its GEMMs do not list it.
  for (Param p : allParams())
    if (std::optional<Param> by = paramInfo(p).splitBy;
        by && getParam(c, p) != 0)
      env.set(*by, getParam(c, *by));
}

void tshape::model::bindDegrees(const Parallelism &par, Bindings &env) {
  // Every degree that splits some parameter (an op's rules ask for the
  // ones its parameters name).
  for (Param p : allParams())
    if (std::optional<Param> by = paramInfo(p).splitBy)
      env.set(*by, degree(par, *by));
}

int64_t tshape::model::splitDegree(Param p, const Bindings &env) {
  std::optional<Param> by = paramInfo(p).splitBy;
  return by ? env.get(*by).value_or(1) : 1;
}

DimExpr tshape::model::perRank(Param p, const DimExpr &global) {
  std::optional<Param> by = paramInfo(p).splitBy;
  if (!by)
    return global;
  if (p == Param::KvHeads)
    return DimExpr::max(DimExpr::constant(1),
                        DimExpr::floorDiv(global, DimExpr::param(*by)));
  return global / DimExpr::param(*by);
}

int64_t tshape::model::rankSeq(const ModelConfig &c) {
  return getParam(c, Param::Seq) / getParam(c, Param::Cp);
}

ModelConfig tshape::model::rankSeqConfig(const ModelConfig &c) {
  ModelConfig r = c;
  setParam(r, Param::Seq, rankSeq(c));
  return r;
}

namespace {
std::string number(int64_t v) { return std::to_string(v); }
} // namespace

std::optional<RuleViolation> tshape::model::checkSplits(const Bindings &env) {
  for (Param p : allParams()) {
    const ParamInfo &info = paramInfo(p);
    if (!info.splitBy || !env.has(p) || !env.has(*info.splitBy))
      continue;
    int64_t v = *env.get(p), d = *env.get(*info.splitBy);
    if (v <= 0 || d <= 0 || v % d == 0)
      continue;
    const char *what = paramPhrase(*info.splitBy), *deg = paramName(*info.splitBy);
    // Replicated when the degree is a multiple (key/value heads).
    if (p == Param::KvHeads) {
      if (d % v == 0)
        continue;
      return RuleViolation{
          info.splitRule,
          std::string(info.name) + " " + number(v) + " and " + what + " " +
              number(d) + " are incompatible: " + info.name +
              " must be a multiple of " + deg + ", or " + deg +
              " a multiple of " + info.name + " (heads are then replicated)"};
    }
    int64_t down = v / d * d;
    std::optional<int64_t> up = checkedAdd(down, d);
    std::string fix;
    if (info.growOnly) {
      // Saturates at the largest multiple that fits in int64.
      fix = "pad it to " + number(up ? *up : down);
    } else {
      fix = "use " + std::string(info.name) + " ";
      if (down > 0)
        fix += number(down) + (up ? " or " : "");
      if (up)
        fix += number(*up);
      fix += ", or " + std::string(deg) + " dividing " + number(v);
    }
    return RuleViolation{info.splitRule,
                         std::string(info.name) + " " + number(v) +
                             " is not divisible by " + what + " " +
                             number(d) + "; " + fix};
  }
  return std::nullopt;
}

std::vector<Param> tshape::model::padGrowOnlySplits(ModelConfig &c,
                                                   int64_t unit) {
  std::vector<Param> padded;
  for (Param p : allParams()) {
    const ParamInfo &info = paramInfo(p);
    if (!info.growOnly || !info.splitBy)
      continue;
    const int64_t v = getParam(c, p), d = getParam(c, *info.splitBy);
    if (v <= 0 || d <= 1 || v % d == 0)
      continue;
    std::optional<int64_t> m = checkedMul(std::max<int64_t>(1, unit), d);
    std::optional<int64_t> up =
        m ? checkedAdd(v / *m * *m, *m) : std::nullopt;
    if (!up)
      continue; // checkSplits reports it
    setParam(c, p, *up);
    padded.push_back(p);
  }
  return padded;
}
