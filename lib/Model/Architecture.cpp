//===- Architecture.cpp - What a model is beyond its GEMM sizes -----------===//

#include "tshape/Model/Architecture.h"

#include <cstring>

using namespace tshape::model;

const char *tshape::model::positionsName(Positions p) {
  switch (p) {
  case Positions::Learned:
    return "learned";
  case Positions::Rope:
    return "rope";
  case Positions::Alibi:
    return "alibi";
  case Positions::None:
    return "none";
  }
  return "?";
}

const char *tshape::model::normName(Norm n) {
  return n == Norm::RMSNorm ? "rmsnorm" : "layernorm";
}

const char *tshape::model::ropeScalingName(RopeScaling s) {
  switch (s) {
  case RopeScaling::None:
    return "none";
  case RopeScaling::Linear:
    return "linear";
  case RopeScaling::Dynamic:
    return "dynamic";
  case RopeScaling::Llama3:
    return "llama3";
  case RopeScaling::Yarn:
    return "yarn";
  case RopeScaling::LongRope:
    return "longrope";
  }
  return "?";
}

const char *tshape::model::routerScoreName(RouterScore s) {
  return s == RouterScore::Sigmoid ? "sigmoid" : "softmax";
}

const char *tshape::model::qkNormName(QkNorm q) {
  switch (q) {
  case QkNorm::None:
    return "none";
  case QkNorm::Head:
    return "head";
  case QkNorm::HeadWeighted:
    return "head_weighted";
  case QkNorm::Whole:
    return "whole";
  case QkNorm::L2:
    return "l2";
  }
  return "?";
}

namespace {
/// The index of `name` in the comma-separated `choices`; -1 when absent.
int choiceIndex(const char *choices, const std::string &name) {
  int i = 0;
  for (const char *p = choices;; ++i) {
    const char *comma = std::strchr(p, ',');
    size_t len = comma ? size_t(comma - p) : std::strlen(p);
    if (name.size() == len && std::strncmp(p, name.data(), len) == 0)
      return i;
    if (!comma)
      return -1;
    p = comma + 1;
  }
}

ArchValue boolValue(bool b) { return {ArchValue::Bool, b, 0, 0, ""}; }
ArchValue intValue(int64_t i) { return {ArchValue::Int, false, i, 0, ""}; }
ArchValue realValue(double d) { return {ArchValue::Real, false, 0, d, ""}; }
ArchValue choiceValue(const char *s) {
  return {ArchValue::Choice, false, 0, 0, s};
}

#define BOOL_FIELD(key, member)                                               \
  ArchField {                                                                 \
    key, ArchValue::Bool,                                                     \
        [](const Architecture &a) { return boolValue(a.member); },            \
        [](Architecture &a, const ArchValue &v) {                             \
          a.member = v.b;                                                     \
          return true;                                                        \
        }                                                                     \
  }
#define INT_FIELD(key, member)                                                \
  ArchField {                                                                 \
    key, ArchValue::Int,                                                      \
        [](const Architecture &a) { return intValue(a.member); },             \
        [](Architecture &a, const ArchValue &v) {                             \
          a.member = v.i;                                                     \
          return true;                                                        \
        }                                                                     \
  }
#define REAL_FIELD(key, member)                                               \
  ArchField {                                                                 \
    key, ArchValue::Real,                                                     \
        [](const Architecture &a) { return realValue(a.member); },            \
        [](Architecture &a, const ArchValue &v) {                             \
          a.member = v.d;                                                     \
          return true;                                                        \
        }                                                                     \
  }
/// A choice field over an enum whose names `nameOf` gives, in enum order.
#define CHOICE_FIELD(key, member, Enum, nameOf, names)                        \
  ArchField {                                                                 \
    key, ArchValue::Choice,                                                   \
        [](const Architecture &a) { return choiceValue(nameOf(a.member)); },  \
        [](Architecture &a, const ArchValue &v) {                             \
          int i = choiceIndex(names, v.s);                                    \
          if (i < 0)                                                          \
            return false;                                                     \
          a.member = Enum(i);                                                 \
          return true;                                                        \
        },                                                                    \
        names                                                                 \
  }

const char *geluName(GeluForm g) { return g == GeluForm::Tanh ? "tanh" : "erf"; }
const char *placementName(NormPlacement p) {
  return p == NormPlacement::Sandwich ? "sandwich"
         : p == NormPlacement::Post   ? "post"
                                      : "pre";
}
} // namespace

const std::vector<ArchField> &tshape::model::archFields() {
  static const std::vector<ArchField> fields = {
      CHOICE_FIELD("positions", positions, Positions, positionsName,
                   "learned,rope,alibi,none"),
      REAL_FIELD("rotary_base", rotaryBase),
      REAL_FIELD("rotary_percent", rotaryPercent),
      BOOL_FIELD("rotary_interleaved", rotaryInterleaved),
      CHOICE_FIELD("rope_scaling", ropeScaling, RopeScaling, ropeScalingName,
                   "none,linear,dynamic,llama3,yarn,longrope"),
      REAL_FIELD("rope_factor", ropeFactor),
      INT_FIELD("rope_original_max", ropeOriginalMax),
      REAL_FIELD("rope_low_freq", ropeLowFreq),
      REAL_FIELD("rope_high_freq", ropeHighFreq),
      REAL_FIELD("yarn_beta_fast", yarnBetaFast),
      REAL_FIELD("yarn_beta_slow", yarnBetaSlow),
      REAL_FIELD("yarn_mscale", yarnMscale),
      REAL_FIELD("yarn_mscale_all_dim", yarnMscaleAllDim),
      BOOL_FIELD("yarn_truncate", yarnTruncate),
      CHOICE_FIELD("norm", norm, Norm, normName, "layernorm,rmsnorm"),
      REAL_FIELD("norm_eps", normEps),
      BOOL_FIELD("norm_1p", norm1p),
      BOOL_FIELD("norm_bias", normBias),
      CHOICE_FIELD("norm_placement", normPlacement, NormPlacement,
                   placementName, "pre,sandwich,post"),
      BOOL_FIELD("embedding_norm", embeddingNorm),
      BOOL_FIELD("linear_bias", linearBias),
      BOOL_FIELD("qkv_bias", qkvBias),
      BOOL_FIELD("partial_bias", partialBias),
      BOOL_FIELD("lm_head_bias", lmHeadBias),
      CHOICE_FIELD("qk_norm", qkNorm, QkNorm, qkNormName,
                   "none,head,head_weighted,whole,l2"),
      BOOL_FIELD("custom_softmax_scale", customSoftmaxScale),
      CHOICE_FIELD("gelu", gelu, GeluForm, geluName, "erf,tanh"),
      CHOICE_FIELD("router_score", routerScore, RouterScore, routerScoreName,
                   "softmax,sigmoid"),
      BOOL_FIELD("router_norm_topk", routerNormTopk),
      BOOL_FIELD("router_expert_bias", routerExpertBias),
      REAL_FIELD("router_scaling", routerScaling),
      INT_FIELD("router_groups", routerGroups),
      INT_FIELD("router_group_topk", routerGroupTopk),
      BOOL_FIELD("router_group_by_max", routerGroupByMax),
      BOOL_FIELD("shared_expert_gate", sharedExpertGate),
      BOOL_FIELD("router_probs_on_input", routerProbsOnInput),
      INT_FIELD("mtp_layers", mtpLayers),
      REAL_FIELD("rotary_local_base", rotaryLocalBase),
      BOOL_FIELD("embedding_scale", embeddingScale),
      REAL_FIELD("logit_softcap", logitSoftcap),
      REAL_FIELD("attention_softcap", attentionSoftcap),
      BOOL_FIELD("attention_sinks", attentionSinks),
      BOOL_FIELD("quick_geglu", quickGeglu),
      REAL_FIELD("glu_linear_offset", gluLinearOffset),
      REAL_FIELD("glu_clamp", gluClamp),
      REAL_FIELD("qkv_clip", qkvClip),
      BOOL_FIELD("scaled_residuals", scaledResiduals),
      INT_FIELD("no_rope_every", noRopeEvery),
      BOOL_FIELD("attention_temperature", attentionTemperature),
  };
  return fields;
}

namespace {
bool sameValue(const ArchValue &x, const ArchValue &y) {
  switch (x.kind) {
  case ArchValue::Bool:
    return x.b == y.b;
  case ArchValue::Int:
    return x.i == y.i;
  case ArchValue::Real:
    return x.d == y.d;
  case ArchValue::Choice:
    return x.s == y.s;
  }
  return false;
}
} // namespace

bool Architecture::operator==(const Architecture &o) const {
  if (stated != o.stated)
    return false;
  for (const ArchField &f : archFields())
    if (!sameValue(f.get(*this), f.get(o)))
      return false;
  return true;
}

std::vector<std::pair<const ArchField *, ArchValue>>
tshape::model::changedArchFields(const Architecture &a) {
  static const Architecture defaults;
  std::vector<std::pair<const ArchField *, ArchValue>> out;
  for (const ArchField &f : archFields()) {
    ArchValue v = f.get(a);
    if (!sameValue(v, f.get(defaults)))
      out.push_back({&f, v});
  }
  return out;
}
