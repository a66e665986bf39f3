//===- Guidelines.cpp - The paper's shape rules as a checklist ------------===//
//
// Each rule reads a quantity from the model's parameter values (the union
// of the GEMMs' bindings: no role is interpreted but the gated MLP's), says
// whether it passes, and prices a failure by moving one parameter to the
// nearest value that passes and meets the model's rules (checkBindings),
// re-predicting the GEMMs it sizes (ShapeAnalysis::price). The rules and
// their sources are listed in docs/advise.md.
//
//===----------------------------------------------------------------------===//

#include "tshape/Advise/Guidelines.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>

using namespace tshape;
using namespace tshape::advise;

namespace {

/// The model's parameter values: for each parameter, the first value a
/// GEMM binds (one, unless blocks of different shapes were written by
/// hand).
model::Bindings modelBindings(const std::vector<KernelRecord> &records) {
  model::Bindings env;
  for (const KernelRecord &r : records)
    if (const model::GemmSpec *g = r.spec())
      for (Param p : model::allParams())
        if (!env.has(p) && g->env.has(p))
          env.set(p, *g->env.get(p));
  return env;
}

int64_t deg(const model::Bindings &env, Param p) {
  return env.get(p).value_or(1);
}

std::string pct(double share) { return costPercent(share); }

struct Rule {
  std::string text, quantity;
  Param moves;
  std::function<std::optional<int64_t>(const model::Bindings &)> value;
  std::function<bool(const model::Bindings &)> holds;
  /// Why a passing value is still not ideal ("" when it is).
  std::function<std::string(const model::Bindings &)> remark;
};

/// `a` and `b` bound: their values, else nullopt.
std::optional<int64_t> both(const model::Bindings &e, Param a, Param b,
                            const std::function<int64_t(int64_t, int64_t)> &f) {
  if (!e.has(a) || !e.has(b))
    return std::nullopt;
  return f(*e.get(a), *e.get(b));
}

std::vector<Rule> rulesFor(const model::Bindings &env, bool gated) {
  using model::Bindings;
  std::vector<Rule> rules;
  const int64_t t = deg(env, Param::Tp);
  auto get = [](Param p) {
    return [p](const Bindings &e) { return e.get(p); };
  };
  auto multipleOf = [](Param p, int64_t m) {
    return [p, m](const Bindings &e) {
      return e.get(p) && *e.get(p) > 0 && *e.get(p) % m == 0;
    };
  };
  if (env.has(Param::Vocab)) {
    rules.push_back({"vocab a multiple of 64", "vocab", Param::Vocab,
                     get(Param::Vocab), multipleOf(Param::Vocab, 64), {}});
    if (t > 1)
      rules.push_back({"vocab a multiple of 64 x t (t = " +
                           std::to_string(t) + ": " + std::to_string(64 * t) +
                           ")",
                       "vocab", Param::Vocab, get(Param::Vocab),
                       multipleOf(Param::Vocab, 64 * t), {}});
  }
  const bool mla = env.get(Param::KvLoraRank).value_or(0) > 0;
  if (mla) {
    // Multi-head latent attention: its query/key heads are d_n + d_r wide
    // (192 for DeepSeek-V3) and its value heads d_v; hidden/heads sizes
    // nothing. d_n moves the first (d_r is the rotary part).
    auto sixtyFour = [](Param p, std::optional<Param> plus, const char *text,
                        const char *quantity) {
      auto value = [p, plus](const Bindings &e) -> std::optional<int64_t> {
        if (!e.get(p) || (plus && !e.get(*plus)))
          return std::nullopt;
        return *e.get(p) + (plus ? *e.get(*plus) : 0);
      };
      return Rule{text, quantity, p, value,
                  [value](const Bindings &e) {
                    std::optional<int64_t> d = value(e);
                    return d && *d > 0 && *d % 64 == 0;
                  },
                  {}};
    };
    rules.push_back(sixtyFour(Param::QkNopeDim, Param::QkRopeDim,
                              "MLA query/key head dim (d_n + d_r) a multiple "
                              "of 64",
                              "qk_nope_head_dim+qk_rope_head_dim"));
    rules.push_back(sixtyFour(Param::VHeadDim, std::nullopt,
                              "MLA value head dim a multiple of 64",
                              "v_head_dim"));
  } else if (env.has(Param::HeadDim) ||
             both(env, Param::Hidden, Param::Heads,
                  [](int64_t, int64_t) { return 0; })) {
    // An explicit head_dim is its own parameter; an implicit one follows
    // heads at a fixed hidden size (the change the search makes).
    Param moves = env.has(Param::HeadDim) ? Param::HeadDim : Param::Heads;
    rules.push_back(
        {"head_dim a multiple of 64 (64 or 128 ideal)", "head_dim", moves,
         [](const Bindings &e) -> std::optional<int64_t> {
           int64_t d = model::headDim(e);
           return d ? std::optional<int64_t>(d) : std::nullopt;
         },
         [](const Bindings &e) {
           int64_t d = model::headDim(e);
           return d > 0 && d % 64 == 0;
         },
         [](const Bindings &e) -> std::string {
           int64_t d = model::headDim(e);
           return d == 64 || d == 128
                      ? ""
                      : "a multiple of 64, but fused attention kernels are "
                        "fastest at 64 and 128";
         }});
  }
  if (env.has(Param::Hidden))
    rules.push_back({"h/t a multiple of 64" +
                         (t > 1 ? " (t = " + std::to_string(t) + ")"
                                : std::string(" (t = 1: h)")),
                     "hidden/tp", Param::Hidden,
                     [t](const Bindings &e) -> std::optional<int64_t> {
                       return *e.get(Param::Hidden) / t;
                     },
                     [t](const Bindings &e) {
                       int64_t h = *e.get(Param::Hidden);
                       return h % t == 0 && (h / t) % 64 == 0;
                     },
                     {}});
  if (env.has(Param::Microbatch) && env.has(Param::Seq))
    rules.push_back({"b*s a multiple of 64", "microbatch*seq", Param::Seq,
                     [](const Bindings &e) {
                       return both(e, Param::Microbatch, Param::Seq,
                                   std::multiplies<int64_t>());
                     },
                     [](const Bindings &e) {
                       return *e.get(Param::Microbatch) * *e.get(Param::Seq) %
                                  64 ==
                              0;
                     },
                     {}});
  if (env.has(Param::Heads)) {
    const int64_t b = deg(env, Param::Microbatch);
    rules.push_back({"(b*a)/t whole (t = " + std::to_string(t) + ")",
                     "microbatch*heads", Param::Heads,
                     [b](const Bindings &e) -> std::optional<int64_t> {
                       return b * *e.get(Param::Heads);
                     },
                     [b, t](const Bindings &e) {
                       return b * *e.get(Param::Heads) % t == 0;
                     },
                     {}});
    rules.push_back({"a divisible by t (t = " + std::to_string(t) + ")",
                     "heads", Param::Heads, get(Param::Heads),
                     [t](const Bindings &e) {
                       return *e.get(Param::Heads) % t == 0;
                     },
                     {}});
  }
  if (gated && env.has(Param::Ffn))
    rules.push_back({"gated MLP inner size a multiple of 64", "ffn",
                     Param::Ffn, get(Param::Ffn), multipleOf(Param::Ffn, 64),
                     {}});
  if (env.has(Param::Experts) && env.has(Param::TopK) &&
      env.has(Param::Microbatch) && env.has(Param::Seq)) {
    // Balanced routing: b*s*k tokens over E experts.
    auto routed = [](const Bindings &e) {
      return *e.get(Param::Microbatch) * *e.get(Param::Seq) *
             *e.get(Param::TopK);
    };
    rules.push_back({"tokens per expert (b*s*k/E) a multiple of 64",
                     "tokens_per_expert", Param::Seq,
                     [routed](const Bindings &e) -> std::optional<int64_t> {
                       return routed(e) / *e.get(Param::Experts);
                     },
                     [routed](const Bindings &e) {
                       return routed(e) % (64 * *e.get(Param::Experts)) == 0;
                     },
                     {}});
  }
  if (env.has(Param::MoeFfn))
    rules.push_back({"moe_ffn a multiple of 64", "moe_ffn", Param::MoeFfn,
                     get(Param::MoeFfn), multipleOf(Param::MoeFfn, 64), {}});
  return rules;
}

} // namespace

std::vector<Guideline>
tshape::advise::checkGuidelines(ShapeAnalysis &analysis,
                                const std::vector<KernelRecord> &records) {
  std::vector<Guideline> out;
  const model::Bindings env = modelBindings(records);
  bool gated = false;
  double stepUs = 0;
  for (const KernelRecord &r : records) {
    stepUs += r.predictedUs;
    if (const model::GemmSpec *g = r.spec();
        g && (g->role == model::Role::MlpGate ||
              g->role == model::Role::MlpGateUp))
      gated = true;
  }
  const std::string on = " on " + analysis.gpu().name;
  const double threshold = analysis.flagThreshold();
  for (const Rule &rule : rulesFor(env, gated)) {
    std::optional<int64_t> v = rule.value(env);
    // A rule whose parameter sizes no GEMM of this run (seq in a decode
    // step, whose tokens are one per sequence) says nothing about it.
    if (!v || std::none_of(records.begin(), records.end(),
                           [&](const KernelRecord &r) {
                             return sizedBy(r, rule.moves);
                           }))
      continue;
    Guideline g;
    g.rule = rule.text;
    g.parameter = rule.quantity;
    g.value = *v;
    g.ok = rule.holds(env);
    if (g.ok) {
      g.note = rule.remark ? rule.remark(env) : "";
      out.push_back(g);
      continue;
    }
    // The nearest passing value of the parameter the rule moves that the
    // model's rules allow and the cost model can price.
    const Param p = rule.moves;
    const int64_t x = *env.get(p);
    const bool growOnly = model::paramInfo(p).growOnly;
    // The nearest passing value on each side (above only for a
    // grow-only parameter) that the model's rules allow and the cost model
    // can price; the violation costs what the better of the two saves.
    std::optional<ShapeAnalysis::Change> price;
    int64_t to = 0;
    for (int64_t dir : {-1, +1}) {
      if (growOnly && dir < 0)
        continue;
      // A few passing candidates that cannot be priced (a size with no
      // value) are skipped, then the side is left unpriced.
      int attempts = 0;
      for (int64_t d = 1; d <= kGuidelineReach && attempts < 8; ++d) {
        const int64_t c = x + dir * d;
        if (c < 1)
          break;
        model::Bindings e = env;
        e.set(p, c);
        if (!rule.holds(e) || model::checkBindings(e))
          continue;
        ++attempts;
        std::optional<ShapeAnalysis::Change> ch = analysis.price(records, p, c);
        if (!ch)
          continue;
        if (!price || ch->savedUs() > price->savedUs()) {
          price = ch;
          to = c;
        }
        break;
      }
    }
    if (!price) {
      g.note = "no value of " + std::string(paramName(p)) + " within " +
               std::to_string(kGuidelineReach) + " of " + std::to_string(x) +
               " meets the rule and the model's rules; not priced";
      out.push_back(g);
      continue;
    }
    g.priced = true;
    g.predictedCost = stepUs > 0 ? price->savedUs() / stepUs : 0;
    g.fix = std::string(paramName(p)) + " " + std::to_string(x) + " -> " +
            std::to_string(to);
    if (p == Param::Heads || (p == Param::Hidden && !env.has(Param::HeadDim))) {
      model::Bindings e = env;
      e.set(p, to);
      if (model::headDim(env) != model::headDim(e))
        g.fix += " (head_dim " + std::to_string(model::headDim(env)) + " -> " +
                 std::to_string(model::headDim(e)) + ")";
    }
    if (g.predictedCost < 0)
      g.note = "the nearest passing value (" + g.fix + ") is predicted " +
               pct(-g.predictedCost) + " slower" + on +
               ": the rule does not pay here";
    else if (g.predictedCost < threshold)
      g.note = "predicted cost " + pct(g.predictedCost) + on + " (" + g.fix +
               "): below the " + pct(threshold) +
               " threshold; change it only with other changes";
    else
      g.note = "predicted cost " + pct(g.predictedCost) + " of the step" + on +
               "; change " + g.fix;
    out.push_back(g);
  }
  return out;
}

std::string tshape::advise::costPercent(double share) {
  char buf[32];
  double v = 100 * share;
  // Small costs keep two significant digits (0.0041%), not "0.00%".
  snprintf(buf, sizeof(buf), std::fabs(v) < 1 ? "%.2g%%" : "%.1f%%", v);
  return buf;
}

Sweep tshape::advise::sweepParameter(ShapeAnalysis &analysis,
                                     const std::vector<KernelRecord> &records,
                                     Param p, int64_t value,
                                     int64_t suggested) {
  Sweep s;
  s.parameter = p;
  s.value = value;
  s.suggested = suggested;
  constexpr int64_t kSide = 64, kMaxPoints = 257;
  int64_t lo = std::min(value - kSide, suggested - 8);
  int64_t hi = std::max(value + kSide, suggested + 8);
  lo = std::max<int64_t>(1, lo);
  s.step = std::max<int64_t>(1, (hi - lo + kMaxPoints - 2) / (kMaxPoints - 1));
  // Keep `value` and `suggested` on the grid.
  std::vector<int64_t> grid;
  for (int64_t v = value; v >= lo; v -= s.step)
    grid.push_back(v);
  for (int64_t v = value + s.step; v <= hi; v += s.step)
    grid.push_back(v);
  if (suggested != value)
    grid.push_back(suggested);
  std::sort(grid.begin(), grid.end());
  grid.erase(std::unique(grid.begin(), grid.end()), grid.end());
  double base = 0;
  for (int64_t v : grid) {
    if (v == value)
      continue;
    std::optional<ShapeAnalysis::Change> ch = analysis.price(records, p, v);
    if (!ch)
      continue;
    s.points.push_back({v, ch->flops / ch->us * 1e-6});
    if (!base)
      base = ch->baseFlops / ch->baseUs * 1e-6;
  }
  if (base) {
    s.points.push_back({value, base});
    std::sort(s.points.begin(), s.points.end(),
              [](const SweepPoint &a, const SweepPoint &b) {
                return a.value < b.value;
              });
  }
  return s;
}
