//===- Architecture.h - What a model is beyond its GEMM sizes ---*- C++ -*-===//
//
// The facts of a model's architecture that size no GEMM but decide which
// model a framework trains: positions and their rotary base and scaling,
// the norm and its epsilon, biases, query/key norms, the MoE router, the
// multi-token-prediction layers, and the features some frameworks cannot
// express (Gemma's extra norms, soft-capping, ALiBi). The importer reads
// them from a config.json (HFArchitecture.cpp), the IR carries them as
// `tshape.architecture`, and the Megatron-LM writer turns them into flags
// (docs/megatron.md). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_ARCHITECTURE_H
#define TSHAPE_MODEL_ARCHITECTURE_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tshape::model {

enum class Positions { Learned, Rope, Alibi, None };
enum class Norm { LayerNorm, RMSNorm };
/// A rotary embedding's context extension (the config's rope_scaling).
enum class RopeScaling { None, Linear, Dynamic, Llama3, Yarn, LongRope };
enum class RouterScore { Softmax, Sigmoid };
/// How queries and keys are normalized before the scores.
enum class QkNorm {
  None,
  Head,         ///< per head over head_dim, one weight shared by the heads
  HeadWeighted, ///< per head, each head its own weights (Cohere, StableLM)
  Whole,        ///< over the whole projection, heads x head_dim (OLMo 2)
  L2,           ///< an L2 norm with no weight (Llama 4)
};
/// Where a layer's norms sit.
enum class NormPlacement {
  Pre,      ///< before each sub-layer (GPT-2 onwards)
  Sandwich, ///< before and after each sub-layer (Gemma 2/3)
  Post,     ///< after each sub-layer's output only (OLMo 2)
};
/// How a GELU is computed: exactly (erf) or by the tanh approximation
/// (GPT-2's gelu_new, gelu_pytorch_tanh).
enum class GeluForm { Erf, Tanh };

/// Defaults are GPT-2's (and Megatron-LM's): learned absolute positions,
/// LayerNorm at 1e-5, biases on every linear layer.
struct Architecture {
  /// False until an importer or the IR states the architecture: a model
  /// written by hand as sizes only.
  bool stated = false;
  Positions positions = Positions::Learned;
  double rotaryBase = 10000;    ///< rope_theta
  double rotaryPercent = 1;     ///< the share of each head's dims rotated
  bool rotaryInterleaved = false; ///< pairs (2i, 2i+1), not (i, i + d/2)
  RopeScaling ropeScaling = RopeScaling::None;
  double ropeFactor = 1;
  int64_t ropeOriginalMax = 0; ///< original_max_position_embeddings
  double ropeLowFreq = 1, ropeHighFreq = 4; ///< Llama 3's factors
  double yarnBetaFast = 32, yarnBetaSlow = 1, yarnMscale = 1,
         yarnMscaleAllDim = 0;
  /// YaRN's correction range rounded to whole dims (rope_scaling.truncate,
  /// default true; gpt-oss: false).
  bool yarnTruncate = true;
  Norm norm = Norm::LayerNorm;
  double normEps = 1e-5;
  bool norm1p = false;     ///< norm weights stored as w - 1 (Gemma: x * (1 + w))
  bool normBias = true;    ///< a LayerNorm has a bias (Cohere, DBRX: none)
  NormPlacement normPlacement = NormPlacement::Pre;
  bool embeddingNorm = false; ///< a norm after the embedding (BLOOM)
  bool linearBias = true;  ///< every linear layer has a bias
  bool qkvBias = false;    ///< the QKV projection has one when the others do not
  /// Biases on some linear layers only, in a way neither of the above says
  /// (GPT-J's biased MLP with unbiased attention, Llama's attention_bias).
  bool partialBias = false;
  bool lmHeadBias = false; ///< the LM head has a bias (GPT-J, Phi)
  QkNorm qkNorm = QkNorm::None;
  /// Attention scores not scaled by 1/sqrt(head_dim) (Gemma 2/3's
  /// query_pre_attn_scalar, GPT-Neo's unscaled scores).
  bool customSoftmaxScale = false;
  GeluForm gelu = GeluForm::Erf;
  // The MoE router (no effect without experts).
  RouterScore routerScore = RouterScore::Softmax;
  /// The top-k probabilities are renormalized to sum to 1 (Mixtral,
  /// Qwen3-MoE norm_topk_prob); false: softmax over every expert, top-k
  /// kept as they are (Qwen1.5-MoE).
  bool routerNormTopk = true;
  bool routerExpertBias = false; ///< DeepSeek-V3's e_score_correction_bias
  double routerScaling = 1;      ///< routed_scaling_factor
  int64_t routerGroups = 0, routerGroupTopk = 0; ///< group-limited routing
  /// Groups ranked by their best expert (DeepSeek-V2's
  /// group_limited_greedy), not by the sum of their top experts (V3).
  bool routerGroupByMax = false;
  bool sharedExpertGate = false; ///< a sigmoid gate on the shared expert
  /// The router's weight scales the expert's input, not its output
  /// (Llama 4).
  bool routerProbsOnInput = false;
  int64_t mtpLayers = 0;         ///< multi-token-prediction layers
  /// Gemma 3's local layers' rotary base (rope_local_base_freq; 0: the
  /// one base for every layer); its rope scaling is the global layers' only.
  double rotaryLocalBase = 0;
  // Features a framework may have no argument for.
  bool embeddingScale = false; ///< embeddings times sqrt(hidden) (Gemma)
  double logitSoftcap = 0, attentionSoftcap = 0;
  bool attentionSinks = false; ///< learned per-head sink logits (gpt-oss)
  /// gpt-oss's gated activation (GptOssExperts): the gate through
  /// x * sigmoid(1.702 x) (quick GELU), the up projection offset by
  /// `gluLinearOffset`, both clamped at `gluClamp` (swiglu_limit); 0 and
  /// false: a plain gated activation.
  bool quickGeglu = false;
  double gluLinearOffset = 0, gluClamp = 0;
  double qkvClip = 0;          ///< DBRX's clip_qkv
  bool scaledResiduals = false; ///< Granite's embedding/residual/logit multipliers
  int64_t noRopeEvery = 0;     ///< every N-th layer has no rotary embedding (Llama 4)
  bool attentionTemperature = false; ///< Llama 4's NoPE-layer temperature tuning

  bool operator==(const Architecture &o) const;
  bool operator!=(const Architecture &o) const { return !(*this == o); }
};

const char *positionsName(Positions p);
const char *normName(Norm n);
const char *ropeScalingName(RopeScaling s);
const char *routerScoreName(RouterScore s);
const char *qkNormName(QkNorm q);

/// One field of Architecture as a (key, value) for the IR's dictionary:
/// kinds bool, integer, real and choice (a string of the listed names).
struct ArchValue {
  enum Kind { Bool, Int, Real, Choice } kind;
  bool b = false;
  int64_t i = 0;
  double d = 0;
  std::string s;
};
struct ArchField {
  const char *key;
  ArchValue::Kind kind;
  /// The value of the field in `a`.
  ArchValue (*get)(const Architecture &a);
  /// Sets the field from `v` (of this field's kind); false when a choice
  /// names no choice.
  bool (*set)(Architecture &a, const ArchValue &v);
  /// For a choice: its names, comma-separated.
  const char *choices = "";
};
/// Every field, in the order the IR prints them (`stated` is the
/// dictionary's presence, not a field).
const std::vector<ArchField> &archFields();
/// The fields of `a` that differ from a default Architecture's: what the IR
/// states (a short dictionary).
std::vector<std::pair<const ArchField *, ArchValue>>
changedArchFields(const Architecture &a);

} // namespace tshape::model

#endif // TSHAPE_MODEL_ARCHITECTURE_H
