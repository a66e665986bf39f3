//===- HFArchitecture.cpp - A config's architecture beyond sizes ----------===//
//
// One row per family: positions, the rotary base's default, the norm and
// the key of its epsilon, the bias keys, query/key norms; a family's quirks
// (its router, rope fraction, extra norms) are a small hook in its row.
// Each default is the transformers configuration class's (or the model's
// own modeling file, for the remote-code families), as docs/importer.md
// lists.
//
//===----------------------------------------------------------------------===//

#include "HFArchitecture.h"

#include <cstdio>

using namespace tshape;
using namespace tshape::model;
using hf::Keys;
using hf::Reader;

namespace {

/// Which linear layers have biases when the row's keys say nothing.
enum class Bias : uint8_t {
  All,     ///< every linear layer (GPT-2, OPT, BLOOM)
  None,    ///< none (Llama and most newer families)
  QkvOnly, ///< the QKV projection alone (Qwen2, ChatGLM)
};

struct ArchRow {
  const char *type;
  Positions positions;
  double ropeTheta;     ///< the class default of rope_theta
  double rotaryPercent; ///< the class default share of a head rotated
  Norm norm;
  Keys eps;
  double epsDefault;
  Bias bias;
  /// A boolean key that turns every linear layer's bias on (true) or to
  /// the row's `bias` (false): attention_bias, bias, use_bias.
  Keys biasKey;
  QkNorm qkNorm;
  GeluForm gelu;
  /// The family's quirks (router, rope fraction, extra norms), after the
  /// common keys; nullptr: none.
  void (*quirks)(Reader &, Architecture &) = nullptr;
};

/// The MoE router of the transformers families that state norm_topk_prob
/// (softmax over every expert, then the top k, renormalized when true).
void softmaxRouter(Reader &r, Architecture &a, bool normDefault) {
  a.routerScore = RouterScore::Softmax;
  a.routerNormTopk = r.flag({"norm_topk_prob"}, normDefault).value_or(true);
}

void mixtralQuirks(Reader &r, Architecture &a) {
  // MixtralSparseMoeBlock: softmax, top-k, renormalized.
  a.routerNormTopk = true;
}
void qwen2MoeQuirks(Reader &r, Architecture &a) {
  softmaxRouter(r, a, false);
  a.sharedExpertGate = true; // Qwen2MoeSparseMoeBlock.shared_expert_gate
}
void qwen3MoeQuirks(Reader &r, Architecture &a) { softmaxRouter(r, a, false); }

/// The router defaults of DeepSeek's configuration classes: V2's softmax
/// greedy routing (DeepseekV2Config), V3's sigmoid noaux_tc routing over
/// 8 groups (DeepseekV3Config, which Kimi-K2 reuses).
struct DeepseekRouter {
  const char *score, *method;
  int64_t groups, groupTopk;
  double scaling;
  bool normTopk;
};

void deepseekRouter(Reader &r, Architecture &a, const DeepseekRouter &d) {
  const char *key = nullptr;
  std::optional<std::string> score = r.string({"scoring_func"}, &key);
  const std::string scoreName = score.value_or(d.score);
  if (scoreName == "sigmoid")
    a.routerScore = RouterScore::Sigmoid;
  else if (scoreName != "softmax")
    r.fail(key, "key 'scoring_func': unknown router score '" + scoreName +
                    "' (expected softmax or sigmoid)",
           false);
  std::optional<std::string> given = r.string({"topk_method"}, &key);
  const std::string method = given.value_or(d.method);
  // noaux_tc: the expert bias (e_score_correction_bias) chooses, the
  // scores weigh; group_limited_greedy and noaux_tc route within groups.
  a.routerExpertBias = method == "noaux_tc";
  const bool grouped =
      method == "noaux_tc" || method == "group_limited_greedy";
  int64_t groups =
      r.size({"n_group"}, d.groups, "router groups").value_or(1);
  int64_t groupTopk =
      r.size({"topk_group"}, d.groupTopk, "router groups per token")
          .value_or(1);
  if (grouped && groups > 1) {
    a.routerGroups = groups;
    a.routerGroupTopk = groupTopk;
  }
  // DeepSeek-V2's group_limited_greedy ranks a group by its best expert.
  a.routerGroupByMax = a.routerGroups > 1 && method == "group_limited_greedy";
  a.routerScaling =
      r.number({"routed_scaling_factor"}, d.scaling).value_or(1);
  a.routerNormTopk =
      r.flag({"norm_topk_prob"}, d.normTopk).value_or(d.normTopk);
  a.mtpLayers =
      r.count({"num_nextn_predict_layers"}, 0, "MTP layers").value_or(0);
  // MLA's latents are normalized (q_a_layernorm, kv_a_layernorm): what
  // Megatron-LM's MLA calls its query/key layer norms.
  a.qkNorm = QkNorm::Head;
}
void deepseekV2Quirks(Reader &r, Architecture &a) {
  deepseekRouter(r, a, {"softmax", "greedy", 1, 1, 1.0, false});
}
void deepseekV3Quirks(Reader &r, Architecture &a) {
  deepseekRouter(r, a, {"sigmoid", "noaux_tc", 8, 4, 2.5, true});
}

void gptOssQuirks(Reader &r, Architecture &a) {
  // GptOssTopKRouter: top-k of the logits, softmax over those k; the
  // experts and attention projections carry biases; learned sinks.
  a.attentionSinks = true;
  a.routerNormTopk = true;
  a.linearBias = r.flag({"attention_bias"}, true).value_or(true);
  // GptOssExperts: gate * sigmoid(1.702 gate) times (up + 1), gate and up
  // clamped at swiglu_limit (7).
  a.quickGeglu = true;
  a.gluLinearOffset = 1;
  a.gluClamp = r.number({"swiglu_limit"}, 7).value_or(7);
}

void llama4Quirks(Reader &r, Architecture &a) {
  // Llama4TextMoe: top-k of the logits, then a sigmoid of each (no
  // renormalization); every 4th layer has no rotary embedding
  // (no_rope_layers, else interleave 4); use_qk_norm: an L2 norm.
  a.routerScore = RouterScore::Sigmoid;
  a.routerNormTopk = false;
  a.routerProbsOnInput = true;
  // apply_rotary_emb multiplies adjacent pairs as complex numbers.
  a.rotaryInterleaved = true;
  a.qkNorm = r.flag({"use_qk_norm"}, true).value_or(true) ? QkNorm::L2
                                                          : QkNorm::None;
  a.noRopeEvery = 4;
  a.attentionTemperature =
      r.flag({"attn_temperature_tuning"}, true).value_or(true);
}

void dbrxQuirks(Reader &r, Architecture &a) {
  // DbrxRouter: softmax, top-k, normalized (moe_normalize_expert_weights
  // 1); clip_qkv in attn_config.
  a.routerNormTopk = true;
  a.qkvClip = r.number({"clip_qkv"}, 0).value_or(0);
  a.normBias = false;
}

void gemmaQuirks(Reader &r, Architecture &a) {
  a.norm1p = true;
  a.embeddingScale = true;
}
/// Gemma 2/3 scale the scores by query_pre_attn_scalar^-0.5, not
/// head_dim^-0.5, where the two differ.
void queryScalar(Reader &r, Architecture &a, int64_t headDimDefault) {
  int64_t d = r.size({"head_dim"}, headDimDefault, "head dim").value_or(0);
  a.customSoftmaxScale =
      r.number({"query_pre_attn_scalar"}, double(d)).value_or(0) != double(d);
}
void gemma2Quirks(Reader &r, Architecture &a) {
  gemmaQuirks(r, a);
  a.normPlacement = NormPlacement::Sandwich;
  queryScalar(r, a, 256);
  a.logitSoftcap = r.number({"final_logit_softcapping"}, 30).value_or(0);
  a.attentionSoftcap = r.number({"attn_logit_softcapping"}, 50).value_or(0);
}
void gemma3Quirks(Reader &r, Architecture &a) {
  gemmaQuirks(r, a);
  a.normPlacement = NormPlacement::Sandwich;
  queryScalar(r, a, 256);
  a.rotaryLocalBase =
      r.number({"rope_local_base_freq"}, 10000).value_or(10000);
  a.logitSoftcap = r.number({"final_logit_softcapping"}, 0).value_or(0);
  a.attentionSoftcap = r.number({"attn_logit_softcapping"}, 0).value_or(0);
}

void gptjQuirks(Reader &r, Architecture &a) {
  // GPT-J rotates rotary_dim (64) of each head's dims, pairs interleaved
  // (rotate_every_two); its attention projections have no bias.
  int64_t heads = r.size({"n_head"}, 16, "heads").value_or(16);
  int64_t hidden = r.size({"n_embd"}, 4096, "hidden").value_or(4096);
  int64_t rot = r.size({"rotary_dim"}, 64, "rotary dims").value_or(64);
  if (hidden / heads > 0)
    a.rotaryPercent = double(rot) / double(hidden / heads);
  a.rotaryInterleaved = true;
  a.partialBias = true; // unbiased attention, biased MLP
  a.lmHeadBias = true;
}

void gptNeoQuirks(Reader &r, Architecture &a) {
  // GPTNeoSelfAttention: no q/k/v bias, and scores not divided by
  // sqrt(head_dim).
  a.partialBias = true;
  a.customSoftmaxScale = true;
}

void neoxQuirks(Reader &r, Architecture &a) {
  a.rotaryPercent = r.number({"rotary_pct", "partial_rotary_factor"}, 0.25)
                        .value_or(0.25);
  a.rotaryBase =
      r.number({"rotary_emb_base", "rope_theta"}, 10000).value_or(10000);
  // attention_bias false leaves the MLP's biases.
  if (!a.linearBias) {
    a.linearBias = true;
    a.partialBias = true;
  }
}

void partialRotary(Reader &r, Architecture &a, double fallback) {
  a.rotaryPercent =
      r.number({"partial_rotary_factor"}, fallback).value_or(fallback);
}
void phiQuirks(Reader &r, Architecture &a) {
  partialRotary(r, a, 0.5);
  a.lmHeadBias = true;
  if (r.flag({"qk_layernorm"}, false).value_or(false))
    a.qkNorm = QkNorm::Head;
}
void phi3Quirks(Reader &r, Architecture &a) { partialRotary(r, a, 1.0); }
void stablelmQuirks(Reader &r, Architecture &a) {
  partialRotary(r, a, 0.25);
  a.qkvBias = r.flag({"use_qkv_bias"}, false).value_or(false);
  if (r.flag({"qk_layernorm"}, false).value_or(false))
    a.qkNorm = QkNorm::HeadWeighted;
}

void falconQuirks(Reader &r, Architecture &a) {
  if (r.flag({"alibi"}, false).value_or(false))
    a.positions = Positions::Alibi;
}

void mptQuirks(Reader &r, Architecture &a) {
  // MptConfig.attn_config: alibi, clip_qkv; no_bias (true) drops every
  // bias, the norms' too.
  if (r.flag({"alibi"}, false).value_or(false))
    a.positions = Positions::Alibi;
  a.linearBias = !r.flag({"no_bias"}, true).value_or(true);
  a.normBias = a.linearBias;
  a.qkvClip = r.number({"clip_qkv"}, 0).value_or(0);
  if (r.flag({"qk_ln"}, false).value_or(false))
    a.qkNorm = QkNorm::Whole;
}

void chatglmQuirks(Reader &r, Architecture &a) {
  // ChatGLM rotates half of each head's dims, pairs interleaved; its base
  // is 10000 x rope_ratio; RMSNorm unless rmsnorm is false.
  a.rotaryPercent = 0.5;
  a.rotaryInterleaved = true;
  a.rotaryBase = 10000 * r.number({"rope_ratio"}, 1).value_or(1);
  if (!r.flag({"rmsnorm"}, true).value_or(true))
    a.norm = Norm::LayerNorm;
  a.linearBias = r.flag({"add_bias_linear"}, false).value_or(false);
  a.qkvBias = r.flag({"add_qkv_bias"}, false).value_or(false);
}

void baichuanQuirks(Reader &r, Architecture &a) {
  // Baichuan's 13B modeling file runs ALiBi, its 7B one rotary: the
  // 13B shape (hidden 5120, 40 layers) tells them apart.
  if (r.size({"hidden_size"}, 4096, "hidden").value_or(0) == 5120)
    a.positions = Positions::Alibi;
}

void cohereQuirks(Reader &r, Architecture &a) {
  // CohereLayerNorm has no bias; rotary pairs interleaved
  // (repeat_interleave); logits scaled by logit_scale.
  a.rotaryInterleaved = true;
  a.normBias = false;
  if (r.flag({"use_qk_norm"}, false).value_or(false))
    a.qkNorm = QkNorm::HeadWeighted;
  a.scaledResiduals = r.number({"logit_scale"}, 0.0625).value_or(1) != 1;
}

void llamaQuirks(Reader &r, Architecture &a);
void graniteQuirks(Reader &r, Architecture &a) {
  llamaQuirks(r, a);
  auto multiplier = [&](const char *key) {
    return r.number({key}, 1).value_or(1) != 1;
  };
  a.scaledResiduals = multiplier("embedding_multiplier") ||
                      multiplier("residual_multiplier") ||
                      multiplier("attention_multiplier") ||
                      multiplier("logits_scaling");
}

void olmo2Quirks(Reader &r, Architecture &a) {
  // OLMo 2 normalizes each sub-layer's output (post-norm) and its
  // queries and keys over the whole projection.
  a.qkNorm = QkNorm::Whole;
  a.normPlacement = NormPlacement::Post;
}

void internlm2Quirks(Reader &r, Architecture &a) {
  // bias biases wqkv and wo, not the MLP.
  if (a.linearBias) {
    a.linearBias = false;
    a.partialBias = true;
  }
}

void llamaQuirks(Reader &r, Architecture &a) {
  // LlamaAttention: attention_bias biases q, k, v and o; mlp_bias the MLP.
  // Megatron-Bridge reads attention_bias as the QKV bias (the o bias
  // is lost); partialBias says so.
  const bool attention = a.linearBias;
  const bool mlp = r.flag({"mlp_bias"}, false).value_or(false);
  if (attention != mlp) {
    a.linearBias = false;
    a.qkvBias = attention;
    a.partialBias = true;
  }
}

void bloomQuirks(Reader &r, Architecture &a) { a.embeddingNorm = true; }

constexpr double kDefaultTheta = 10000;

// Rows: type, positions, rope_theta default, rotary share, norm, epsilon
// keys and default, biases, bias key, qk norm, GELU form, quirks.
const ArchRow kRows[] = {
    {"gpt2", Positions::Learned, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::All, {}, QkNorm::None, GeluForm::Tanh},
    {"gpt_neo", Positions::Learned, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::All, {}, QkNorm::None, GeluForm::Tanh,
     gptNeoQuirks},
    {"gptj", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::All, {}, QkNorm::None, GeluForm::Tanh,
     gptjQuirks},
    {"gpt_neox", Positions::Rope, kDefaultTheta, 0.25, Norm::LayerNorm,
     {"layer_norm_eps"}, 1e-5, Bias::All, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, neoxQuirks},
    {"opt", Positions::Learned, kDefaultTheta, 1, Norm::LayerNorm, {}, 1e-5,
     Bias::All, {"enable_bias"}, QkNorm::None, GeluForm::Erf},
    {"llama", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, llamaQuirks},
    {"mistral", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {}, QkNorm::None, GeluForm::Erf},
    {"qwen2", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::QkvOnly, {}, QkNorm::None, GeluForm::Erf},
    {"phi", Positions::Rope, kDefaultTheta, 0.5, Norm::LayerNorm,
     {"layer_norm_eps"}, 1e-5, Bias::All, {}, QkNorm::None, GeluForm::Tanh,
     phiQuirks},
    {"falcon", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::None, {"bias"}, QkNorm::None,
     GeluForm::Erf, falconQuirks},
    {"RefinedWeb", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::None, {"bias"}, QkNorm::None,
     GeluForm::Erf, falconQuirks},
    {"RefinedWebModel", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::None, {"bias"}, QkNorm::None,
     GeluForm::Erf, falconQuirks},
    {"bloom", Positions::Alibi, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::All, {}, QkNorm::None, GeluForm::Tanh,
     bloomQuirks},
    {"gemma", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Tanh, gemmaQuirks},
    {"stablelm", Positions::Rope, kDefaultTheta, 0.25, Norm::LayerNorm,
     {"layer_norm_eps"}, 1e-5, Bias::None, {}, QkNorm::None, GeluForm::Erf,
     stablelmQuirks},
    {"bert", Positions::Learned, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_eps"}, 1e-12, Bias::All, {}, QkNorm::None, GeluForm::Erf},
    {"mixtral", Positions::Rope, 1e6, 1, Norm::RMSNorm, {"rms_norm_eps"},
     1e-5, Bias::None, {}, QkNorm::None, GeluForm::Erf, mixtralQuirks},
    {"qwen2_moe", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::QkvOnly, {}, QkNorm::None, GeluForm::Erf,
     qwen2MoeQuirks},
    {"qwen3_moe", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::Head,
     GeluForm::Erf, qwen3MoeQuirks},
    {"gpt_oss", Positions::Rope, 150000, 1, Norm::RMSNorm, {"rms_norm_eps"},
     1e-5, Bias::All, {}, QkNorm::None, GeluForm::Erf, gptOssQuirks},
    {"dbrx", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm, {}, 1e-5,
     Bias::None, {}, QkNorm::None, GeluForm::Erf, dbrxQuirks},
    {"llama4", Positions::Rope, 500000, 1, Norm::RMSNorm, {"rms_norm_eps"},
     1e-5, Bias::None, {"attention_bias"}, QkNorm::None, GeluForm::Erf,
     llama4Quirks},
    {"deepseek_v2", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, deepseekV2Quirks},
    {"deepseek_v3", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, deepseekV3Quirks},
    {"kimi_k2", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, deepseekV3Quirks},
    {"qwen3", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::Head,
     GeluForm::Erf},
    {"gemma2", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Tanh, gemma2Quirks},
    {"gemma3", Positions::Rope, 1e6, 1, Norm::RMSNorm, {"rms_norm_eps"},
     1e-6, Bias::None, {"attention_bias"}, QkNorm::None, GeluForm::Tanh,
     gemma3Quirks},
    {"gemma3_text", Positions::Rope, 1e6, 1, Norm::RMSNorm, {"rms_norm_eps"},
     1e-6, Bias::None, {"attention_bias"}, QkNorm::None, GeluForm::Tanh,
     gemma3Quirks},
    {"phi3", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-5, Bias::None, {}, QkNorm::None, GeluForm::Erf,
     phi3Quirks},
    {"olmo2", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-5, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, olmo2Quirks},
    {"granite", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, graniteQuirks},
    {"cohere", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_eps"}, 1e-5, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, cohereQuirks},
    {"cohere2", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_eps"}, 1e-5, Bias::None, {"attention_bias"}, QkNorm::None,
     GeluForm::Erf, cohereQuirks},
    {"starcoder2", Positions::Rope, kDefaultTheta, 1, Norm::LayerNorm,
     {"norm_epsilon"}, 1e-5, Bias::All, {"use_bias"}, QkNorm::None, GeluForm::Tanh},
    {"internlm2", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::All, {"bias"}, QkNorm::None, GeluForm::Erf,
     internlm2Quirks},
    {"mpt", Positions::Learned, kDefaultTheta, 1, Norm::LayerNorm,
     {"layer_norm_epsilon"}, 1e-5, Bias::None, {}, QkNorm::None, GeluForm::Erf,
     mptQuirks},
    {"baichuan", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"rms_norm_eps"}, 1e-6, Bias::None, {}, QkNorm::None, GeluForm::Erf,
     baichuanQuirks},
    {"chatglm", Positions::Rope, kDefaultTheta, 1, Norm::RMSNorm,
     {"layernorm_epsilon"}, 1e-5, Bias::None, {}, QkNorm::None, GeluForm::Erf,
     chatglmQuirks},
};

/// The config's rope_scaling object into `a` (null or absent: none).
bool readRopeScaling(Reader &r, Architecture &a) {
  const hf::json::Object *o = r.object("rope_scaling");
  if (r.failed())
    return false;
  if (!o)
    return true;
  std::map<std::string, std::string> origin;
  Reader s = r.nested(*o, "rope_scaling", origin);
  const char *key = nullptr;
  std::optional<std::string> type = s.string({"rope_type", "type"}, &key);
  if (s.failed())
    return false;
  if (!type || *type == "default")
    return true;
  static const std::pair<const char *, RopeScaling> kinds[] = {
      {"linear", RopeScaling::Linear},  {"dynamic", RopeScaling::Dynamic},
      {"llama3", RopeScaling::Llama3},  {"yarn", RopeScaling::Yarn},
      {"longrope", RopeScaling::LongRope}, {"su", RopeScaling::LongRope}};
  bool known = false;
  for (const auto &[name, kind] : kinds)
    if (*type == name) {
      a.ropeScaling = kind;
      known = true;
    }
  if (!known)
    return s.fail(key,
                  "key '" + std::string(key) + "': unknown rope scaling '" +
                      *type +
                      "' (known: default, linear, dynamic, llama3, yarn, "
                      "longrope, su)",
                  false);
  a.ropeFactor = s.number({"factor"}, 1).value_or(1);
  a.ropeOriginalMax =
      s.size({"original_max_position_embeddings"}, 1, "original positions")
          .value_or(0);
  if (!s.find({"original_max_position_embeddings"}))
    a.ropeOriginalMax = 0;
  a.ropeLowFreq = s.number({"low_freq_factor"}, 1).value_or(1);
  a.ropeHighFreq = s.number({"high_freq_factor"}, 4).value_or(4);
  a.yarnBetaFast = s.number({"beta_fast"}, 32).value_or(32);
  a.yarnBetaSlow = s.number({"beta_slow"}, 1).value_or(1);
  a.yarnMscale = s.number({"mscale"}, 1).value_or(1);
  a.yarnMscaleAllDim = s.number({"mscale_all_dim"}, 0).value_or(0);
  a.yarnTruncate = s.flag({"truncate"}, true).value_or(true);
  return !s.failed();
}
} // namespace

bool tshape::hf::readArchitecture(llvm::StringRef family, Reader &r,
                                  Architecture &a) {
  const ArchRow *row = nullptr;
  for (const ArchRow &x : kRows)
    if (family == x.type)
      row = &x;
  a = Architecture();
  a.stated = true;
  if (!row)
    return true; // a family with no row keeps the defaults
  a.positions = row->positions;
  a.rotaryPercent = row->rotaryPercent;
  a.norm = row->norm;
  a.gelu = row->gelu;
  a.qkNorm = row->qkNorm;
  if (a.positions == Positions::Rope)
    a.rotaryBase = r.number({"rope_theta"}, row->ropeTheta).value_or(0);
  if (!row->eps.empty())
    a.normEps = r.number(row->eps, row->epsDefault).value_or(0);
  else
    a.normEps = row->epsDefault;
  const bool biased =
      r.flag(row->biasKey, row->bias == Bias::All).value_or(false);
  a.linearBias = biased;
  a.qkvBias = !biased && row->bias == Bias::QkvOnly;
  if (row->quirks)
    row->quirks(r, a);
  if (r.failed())
    return false;
  if (a.positions == Positions::Rope && !readRopeScaling(r, a))
    return false;
  // Values no model has: an error at the key rather than a command that
  // trains nonsense (a base or factor beyond 1e15 is no rotary embedding).
  auto g = [](double v) {
    char buf[32];
    snprintf(buf, sizeof buf, "%g", v);
    return std::string(buf);
  };
  auto outside = [&](const Keys &keys, double v, double lo, double hi,
                     bool loOpen, const char *what) {
    if (!(v > lo || (!loOpen && v == lo)) || !(v <= hi)) {
      const char *key = r.find(keys);
      r.fail(key,
             (key ? "key '" + std::string(key) + "': " : std::string()) +
                 what + " " + g(v) + " is outside " + (loOpen ? "(" : "[") +
                 g(lo) + ", " + g(hi) + "]",
             false);
      return true;
    }
    return false;
  };
  if (outside({"rope_theta", "rotary_emb_base"}, a.rotaryBase, 0, 1e15, true,
              "rotary base") ||
      outside({"partial_rotary_factor", "rotary_pct"}, a.rotaryPercent, 0, 1,
              true, "rotary share") ||
      outside(row->eps, a.normEps, 0, 1, true, "norm epsilon") ||
      outside({"rope_scaling"}, a.ropeFactor, 0, 1e15, true,
              "rope scaling factor") ||
      outside({"routed_scaling_factor"}, a.routerScaling, 0, 1e15, true,
              "routed scaling factor"))
    return false;
  return !r.failed();
}
