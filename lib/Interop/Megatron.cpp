//===- Megatron.cpp - Megatron-LM arguments for a model -------------------===//

#include "tshape/Interop/Megatron.h"
#include "tshape/Interop/MegatronArgs.h"

#include <algorithm>
#include <cstdio>

using namespace tshape;
using namespace tshape::model;

namespace {
/// Appends flags to one argument line.
struct ArgLine {
  std::string s;
  void flag(const std::string &name) { s += (s.empty() ? "" : " ") + name; }
  void arg(const std::string &name, int64_t v) {
    flag(name + " " + std::to_string(v));
  }
};

const char *flagOf(Param p) { return model::paramInfo(p).megatronFlag; }

/// Which layers of the stack have a property (1) or not (0), as the Python
/// list expression Megatron-LM evaluates (--moe-layer-freq,
/// --window-attn-skip-freq), e.g. "([0]*3+[1]*58)".
template <typename Has>
std::string layerPattern(const ModelConfig &c, Has has) {
  std::string s;
  for (const StackSegment &seg : c.stack) {
    std::string pattern;
    for (const LayerKind &k : seg.pattern)
      pattern += std::string(pattern.empty() ? "" : ",") + (has(k) ? "1" : "0");
    s += (s.empty() ? "" : "+") + ("[" + pattern + "]*" +
                                    std::to_string(seg.repeats));
  }
  return "\"(" + s + ")\"";
}

bool isMoe(const LayerKind &k) {
  return std::count(k.blocks.begin(), k.blocks.end(), BlockKind::Moe) > 0;
}

/// --moe-layer-freq: which layers are MoE (1) or dense (0).
std::string moeLayerFreq(const ModelConfig &c) {
  return layerPattern(c, isMoe);
}

/// Sliding-window attention (megatron/training/arguments.py:
/// --window-size LEFT,RIGHT and --window-attn-skip-freq, whose integer N
/// makes every N-th layer, counting from 1, full attention and the others
/// windowed, and whose list marks the windowed layers 1). Chunked
/// attention has no argument: a note.
void windowArguments(const ModelConfig &c, ArgLine &line,
                     std::vector<std::string> &notes) {
  const int64_t w = c.attention.window;
  if (w <= 0)
    return;
  if (c.attention.chunked) {
    notes.push_back("chunked attention (each query over its own aligned "
                    "chunk of " + std::to_string(w) +
                    " keys, Llama 4's attention_chunk_size) has no "
                    "Megatron-LM argument: those layers run full attention");
    return;
  }
  // Megatron-LM's left window counts the keys before the query's own: a
  // Hugging Face window of W keys (the query's included) is W - 1
  // (Megatron-Bridge, conversion/utils.py; its Mistral, Gemma 2/3 and
  // gpt-oss bridges).
  line.flag("--window-size " + std::to_string(w - 1) + ",0");
  if (c.stack.empty())
    return; // every layer windowed
  // The integer form N when layer l (from 0) is full attention exactly
  // when (l + 1) % N == 0 (gpt-oss: 2, Gemma 3: 6, whatever the tail);
  // N is the first full layer's number. Else the list. The layers are
  // walked only up to a bound (the list form needs none).
  constexpr int64_t kMaxWalk = int64_t(1) << 20;
  std::vector<bool> windowed;
  for (const StackSegment &seg : c.stack)
    for (int64_t r = 0; r < seg.repeats && int64_t(windowed.size()) <= kMaxWalk;
         ++r)
      for (const LayerKind &k : seg.pattern)
        windowed.push_back(!k.fullAttention);
  if (int64_t(windowed.size()) <= kMaxWalk) {
    const auto full = std::find(windowed.begin(), windowed.end(), false);
    if (full == windowed.end())
      return; // every layer windowed
    const int64_t every = int64_t(full - windowed.begin()) + 1;
    bool fits = every >= 2;
    for (size_t l = 0; l < windowed.size() && fits; ++l)
      fits = windowed[l] == ((int64_t(l) + 1) % every != 0);
    if (fits) {
      line.arg("--window-attn-skip-freq", every);
      return;
    }
  }
  line.flag("--window-attn-skip-freq " +
            layerPattern(c, [](const LayerKind &k) { return !k.fullAttention; }));
}

/// The mixture-of-experts flags (megatron/training/arguments.py,
/// _add_moe_args): experts, top-k, the expert and shared inner sizes,
/// grouped GEMMs and the all-to-all dispatcher tshape's MoE block models.
void moeArguments(const ModelConfig &c, ArgLine &line,
                  std::vector<std::string> &notes) {
  auto value = [&](Param p) { return getParam(c, p); };
  for (Param p : {Param::Experts, Param::TopK, Param::MoeFfn})
    line.arg(flagOf(p), value(p));
  // Megatron-LM takes the shared experts' total inner size.
  if (value(Param::SharedExperts))
    line.arg("--moe-shared-expert-intermediate-size",
             value(Param::SharedExperts) * value(Param::SharedFfn));
  // Only when some layer is dense (a stack may be heterogeneous in its
  // attention alone: gpt-oss's windows).
  bool dense = false;
  for (const StackSegment &seg : c.stack)
    for (const LayerKind &k : seg.pattern)
      dense |= !isMoe(k);
  if (dense)
    line.flag("--moe-layer-freq " + moeLayerFreq(c));
  line.flag("--moe-grouped-gemm --moe-token-dispatcher-type alltoall");
  if (int64_t cap = value(Param::Capacity); cap > 0 && cap != 100) {
    line.flag("--moe-expert-capacity-factor " + std::to_string(cap / 100) +
              "." + (cap % 100 < 10 ? "0" : "") + std::to_string(cap % 100));
    notes.push_back("tshape prices the busiest expert at the capacity; "
                    "Megatron-LM drops the tokens beyond it");
  }
  if (!c.moe.gated || c.moe.activation != Activation::SiLU)
    notes.push_back("experts other than SwiGLU have no Megatron-LM argument "
                    "here (--swiglu applies to every MLP)");
}

/// The multi-latent-attention flags (megatron/training/arguments.py,
/// MLATransformerConfig): the ranks and head dims; --qk-head-dim is the
/// part without rotary embedding. No --q-lora-rank: no query latent
/// (Megatron-LM's default, None).
void mlaArguments(const ModelConfig &c, ArgLine &line,
                  std::vector<std::string> &notes) {
  line.flag("--multi-latent-attention");
  for (Param p : {Param::QLoraRank, Param::KvLoraRank, Param::QkNopeDim,
                  Param::QkRopeDim, Param::VHeadDim})
    if (int64_t v = getParam(c, p))
      line.arg(flagOf(p), v);
  if (hasBlock(c, BlockKind::Attention))
    notes.push_back("layers of both multi-latent and plain attention have "
                    "no Megatron-LM argument (--multi-latent-attention "
                    "applies to every layer)");
}

/// The linear layers' precision as Megatron-LM's Transformer Engine flags
/// (megatron/training/arguments.py, _add_transformer_engine_args:
/// --fp8-format e4m3|hybrid, --fp8-recipe tensorwise|delayed|mxfp8|
/// blockwise, default delayed). fp8 is Transformer Engine's per-tensor
/// current scaling (Float8CurrentScaling), `tensorwise`, in the hybrid
/// format (E4M3 forward, E5M2 gradients); mxfp8 is MXFP8BlockScaling,
/// E4M3 throughout, as Megatron-LM's DeepSeek-V3 GB200 guide launches it
/// (`--fp8-recipe mxfp8 --fp8-format e4m3`). bf16 (or none) writes none.
void precisionArguments(std::optional<Precision> precision, ArgLine &line) {
  if (precision && *precisionInfo(*precision).megatronFlags)
    line.flag(precisionInfo(*precision).megatronFlags);
}

/// A real as Python's float() reads it, shortest form ("1e-06", "2.5").
std::string real(double v) {
  char buf[32];
  snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

/// The rotary scaling flags. Megatron-LM (megatron/training/arguments.py at
/// the commit docs/megatron.md names) has: --use-rope-scaling with
/// --rope-scaling-factor for Llama 3's scaling at its fixed low/high
/// frequency factors 1 and 4 over 8192 original positions
/// (rotary_pos_embedding.py, _apply_scaling); --rotary-seq-len-interpolation-
/// factor (an integer) for linear scaling; YaRN as
/// --position-embedding-type yarn with --rotary-scaling-factor, --yarn-*
/// and --mscale(-all-dim) (argument_utils.py, _apply_yarn_config_from_args),
/// and for MLA as --rope-type yarn, whose beta and original positions are
/// MLATransformerConfig's defaults (32, 1, 4096) with no flag.
void ropeScalingArguments(const ModelConfig &c, ArgLine &line,
                          std::vector<std::string> &notes) {
  const Architecture &a = c.arch;
  const bool mla = hasBlock(c, BlockKind::Mla);
  switch (a.ropeScaling) {
  case RopeScaling::None:
    return;
  case RopeScaling::Llama3:
    line.flag("--use-rope-scaling --rope-scaling-factor " + real(a.ropeFactor));
    // gpt_config_from_args passes rope_scaling but not its factor
    // (argument_utils.py:459-468): pretrain_gpt.py scales by 8.
    if (a.ropeFactor != 8)
      notes.push_back("Llama 3 rope scaling by " + real(a.ropeFactor) +
                      ": pretrain_gpt.py reads --use-rope-scaling but not "
                      "--rope-scaling-factor, and scales by 8");
    if (a.ropeLowFreq != 1 || a.ropeHighFreq != 4 ||
        (a.ropeOriginalMax && a.ropeOriginalMax != 8192))
      notes.push_back("Llama 3 rope scaling with low/high frequency factors " +
                      real(a.ropeLowFreq) + "/" + real(a.ropeHighFreq) +
                      " over " + std::to_string(a.ropeOriginalMax) +
                      " positions: Megatron-LM's --use-rope-scaling fixes "
                      "1/4 over 8192 (no flag sets them)");
    return;
  case RopeScaling::Linear: {
    const int64_t f = a.ropeFactor >= 1 && a.ropeFactor <= 1e15
                          ? int64_t(a.ropeFactor)
                          : 0;
    if (f >= 1 && double(f) == a.ropeFactor)
      line.arg("--rotary-seq-len-interpolation-factor", f);
    else
      notes.push_back("linear rope scaling by " + real(a.ropeFactor) +
                      ": Megatron-LM's --rotary-seq-len-interpolation-factor "
                      "takes only an integer");
    return;
  }
  case RopeScaling::Yarn:
    if (mla) {
      line.flag("--rope-type yarn --rotary-scaling-factor " +
                real(a.ropeFactor) + " --mscale " + real(a.yarnMscale) +
                " --mscale-all-dim " + real(a.yarnMscaleAllDim));
      if (a.yarnBetaFast != 32 || a.yarnBetaSlow != 1 ||
          (a.ropeOriginalMax && a.ropeOriginalMax != 4096))
        notes.push_back("YaRN with beta_fast " + real(a.yarnBetaFast) +
                        ", beta_slow " + real(a.yarnBetaSlow) + " over " +
                        std::to_string(a.ropeOriginalMax) +
                        " positions: Megatron-LM's MLA takes 32, 1 and 4096 "
                        "(MLATransformerConfig) and has no flag for them");
      return;
    }
    line.flag("--rotary-scaling-factor " + real(a.ropeFactor));
    if (a.ropeOriginalMax)
      line.arg("--yarn-original-max-position-embeddings", a.ropeOriginalMax);
    line.flag("--yarn-beta-fast " + real(a.yarnBetaFast) +
              " --yarn-beta-slow " + real(a.yarnBetaSlow));
    if (a.yarnMscale != 1)
      line.flag("--mscale " + real(a.yarnMscale));
    if (a.yarnMscaleAllDim != 0)
      line.flag("--mscale-all-dim " + real(a.yarnMscaleAllDim));
    if (!a.yarnTruncate)
      line.flag("--no-yarn-correction-range-round-to-int");
    return;
  case RopeScaling::Dynamic:
  case RopeScaling::LongRope:
    notes.push_back(std::string(ropeScalingName(a.ropeScaling)) +
                    " rope scaling has no Megatron-LM argument: the command "
                    "trains plain rotary embeddings");
    return;
  }
}

/// The architecture's flags: positions, rotary base and share, norm and
/// epsilon, biases, query/key norms, GELU form, the MoE router and the
/// multi-token-prediction layers; a note for each feature Megatron-LM has
/// no argument for. A model whose architecture nobody stated (IR written
/// by hand) gets Megatron-LM's defaults and a note saying so.
void architectureArguments(const ModelConfig &c, ArgLine &line,
                           std::vector<std::string> &notes) {
  const Architecture &a = c.arch;
  if (!a.stated) {
    notes.push_back("the model states no architecture (no "
                    "tshape.architecture): positions, norm and biases are "
                    "Megatron-LM's defaults (learned absolute positions, "
                    "LayerNorm, biases)");
    return;
  }
  const bool mla = hasBlock(c, BlockKind::Mla);
  switch (a.positions) {
  case Positions::Learned:
    line.flag("--position-embedding-type learned_absolute");
    break;
  case Positions::Rope:
    // MLA's rotary embedding is its own (--rope-type); a plain model's
    // YaRN is a position embedding type of its own.
    line.flag(std::string("--position-embedding-type ") +
              (!mla && a.ropeScaling == RopeScaling::Yarn ? "yarn" : "rope"));
    if (!(a.rotaryBase > 0 && a.rotaryBase <= 1e15)) {
      notes.push_back("rotary base " + real(a.rotaryBase) +
                      " is no rotary embedding's: not written");
    } else if (a.rotaryBase != 10000) {
      // --rotary-base is an integer (type=int).
      const double rounded = double(int64_t(a.rotaryBase + 0.5));
      line.arg("--rotary-base", int64_t(rounded));
      if (rounded != a.rotaryBase)
        notes.push_back("rotary base " + real(a.rotaryBase) +
                        " rounded to " + real(rounded) +
                        " (Megatron-LM's --rotary-base is an integer)");
    }
    if (a.rotaryPercent != 1)
      line.flag("--rotary-percent " + real(a.rotaryPercent));
    if (a.rotaryInterleaved)
      line.flag("--rotary-interleaved --no-rope-fusion");
    // MLA's rotary embedding defaults to YaRN; its fused kernel needs it
    // (transformer_config.py, MLATransformerConfig.__post_init__).
    if (mla && a.ropeScaling != RopeScaling::Yarn)
      line.flag("--rope-type rope --no-rope-fusion");
    ropeScalingArguments(c, line, notes);
    if (a.noRopeEvery > 0)
      line.arg("--no-rope-freq", a.noRopeEvery);
    break;
  case Positions::Alibi:
    line.flag("--position-embedding-type none");
    notes.push_back("ALiBi has no Megatron-LM argument: the command trains "
                    "without position embeddings (--position-embedding-type "
                    "none), not with ALiBi's biases");
    break;
  case Positions::None:
    line.flag("--position-embedding-type none");
    break;
  }
  line.flag(std::string("--normalization ") +
            (a.norm == Norm::RMSNorm ? "RMSNorm" : "LayerNorm"));
  line.flag("--norm-epsilon " + real(a.normEps));
  if (a.norm1p)
    line.flag("--apply-layernorm-1p");
  if (!a.linearBias) {
    line.flag("--disable-bias-linear");
    if (a.qkvBias)
      line.flag("--add-qkv-bias");
  }
  switch (a.qkNorm) {
  case QkNorm::None:
    break;
  case QkNorm::Head:
    line.flag("--qk-layernorm");
    break;
  case QkNorm::HeadWeighted:
    line.flag("--qk-layernorm");
    notes.push_back("query/key norms with each head's own weights: "
                    "Megatron-LM's --qk-layernorm shares one weight across "
                    "the heads");
    break;
  case QkNorm::Whole:
    notes.push_back("query/key norms over the whole projection (heads x "
                    "head_dim) have no Megatron-LM argument (--qk-layernorm "
                    "is per head): not written");
    break;
  case QkNorm::L2:
    line.flag("--qk-l2-norm");
    if (a.noRopeEvery > 0)
      notes.push_back("the query/key L2 norm applies to the rotary layers "
                      "only; Megatron-LM's --qk-l2-norm applies it to every "
                      "layer");
    break;
  }
  // A plain GELU MLP: with biases Megatron-LM runs its fused bias-GELU
  // kernel, the tanh approximation (fused_bias_gelu.py); without the fusion
  // or without biases, the exact erf (mlp.py; arguments.py:1605 turns the
  // fusion off without biases).
  if (!c.mlp.gated && c.mlp.activation == Activation::GELU && c.mlp.inner) {
    if (a.linearBias && a.gelu == GeluForm::Erf)
      line.flag("--no-bias-gelu-fusion");
    if (!a.linearBias && a.gelu == GeluForm::Tanh)
      notes.push_back("the tanh-approximated GELU (gelu_new, "
                      "gelu_pytorch_tanh) without biases has no Megatron-LM "
                      "argument: it trains the exact GELU");
  }
  if (!c.mlp.gated && c.mlp.activation == Activation::ReLU)
    notes.push_back("a ReLU MLP has no Megatron-LM argument (--squared-relu "
                    "is another function): it trains GELU");
  if (c.moe.experts) {
    if (a.routerScore == RouterScore::Sigmoid) {
      line.flag("--moe-router-score-function sigmoid");
    } else if (!a.routerNormTopk) {
      // Softmax over every expert, the top k kept as they are.
      line.flag("--moe-router-pre-softmax");
    } else if (c.moe.topk == 1) {
      // transformer_config.py:2661 asks for it at top-1.
      line.flag("--moe-router-pre-softmax");
      notes.push_back("top-1 softmax routing: Megatron-LM requires "
                      "--moe-router-pre-softmax, which weighs the expert by "
                      "its probability where the config weighs it by 1");
    }
    if (a.routerExpertBias)
      line.flag("--moe-router-enable-expert-bias");
    if (a.routerScaling != 1)
      line.flag("--moe-router-topk-scaling-factor " + real(a.routerScaling));
    if (a.routerGroups > 1) {
      line.arg("--moe-router-num-groups", a.routerGroups);
      line.arg("--moe-router-group-topk", a.routerGroupTopk);
      if (a.routerGroupByMax)
        notes.push_back("groups ranked by their best expert (DeepSeek-V2's "
                        "group_limited_greedy): Megatron-LM ranks them by "
                        "the sum of their top experts (DeepSeek-V3's rule)");
    }
    if (a.sharedExpertGate && c.moe.sharedExperts)
      line.flag("--moe-shared-expert-gate");
    if (a.routerProbsOnInput)
      line.flag("--moe-apply-probs-on-input");
    if (a.routerScore == RouterScore::Sigmoid && !a.routerNormTopk &&
        c.moe.topk > 1)
      notes.push_back("sigmoid routing without renormalized top-k weights: "
                      "Megatron-LM renormalizes them when top-k > 1");
  }
  if (a.mtpLayers > 0) {
    line.arg("--mtp-num-layers", a.mtpLayers);
    notes.push_back("the " + std::to_string(a.mtpLayers) +
                    " multi-token-prediction layer(s) are trained as the "
                    "config states; tshape prices each as a decoder layer "
                    "on the last stage with its projection and another "
                    "pass of the LM head and loss, and leaves them out of "
                    "the model FLOPs");
  }
  // What no flag expresses, said rather than dropped.
  if (a.normPlacement == NormPlacement::Sandwich)
    notes.push_back("the norms after attention and MLP (Gemma 2/3's "
                    "post-norms) have no Megatron-LM argument");
  if (a.normPlacement == NormPlacement::Post)
    notes.push_back("norms on each sub-layer's output only (OLMo 2) have no "
                    "Megatron-LM argument: it trains pre-norms");
  if (!a.normBias && a.norm == Norm::LayerNorm)
    notes.push_back("LayerNorm without a bias has no Megatron-LM argument: "
                    "its LayerNorm has one");
  if (a.embeddingNorm)
    notes.push_back("the norm after the embedding (BLOOM) has no Megatron-LM "
                    "argument");
  if (a.partialBias)
    notes.push_back("biases on some linear layers only (" +
                    std::string(a.linearBias ? "written as biases on every "
                                               "one"
                                             : "written as none") +
                    (a.qkvBias ? " but QKV" : "") +
                    "): Megatron-LM has one bias switch for every linear "
                    "layer and one for QKV");
  if (a.lmHeadBias)
    notes.push_back("the LM head's bias has no Megatron-LM argument");
  if (a.customSoftmaxScale)
    notes.push_back("attention scores not scaled by 1/sqrt(head_dim) "
                    "(query_pre_attn_scalar, GPT-Neo) have no Megatron-LM "
                    "argument");
  if (a.rotaryLocalBase > 0 && a.rotaryLocalBase != a.rotaryBase)
    notes.push_back("the local layers' rotary base " +
                    real(a.rotaryLocalBase) +
                    " (rope_local_base_freq), and rope scaling on the global "
                    "layers only, have no Megatron-LM argument: every layer "
                    "uses base " + real(a.rotaryBase));
  if (a.embeddingScale)
    notes.push_back("embeddings scaled by sqrt(hidden) (Gemma) have no "
                    "Megatron-LM argument");
  if (a.logitSoftcap > 0 || a.attentionSoftcap > 0)
    notes.push_back("soft-capping (final logits " + real(a.logitSoftcap) +
                    ", attention logits " + real(a.attentionSoftcap) +
                    ") has no Megatron-LM argument");
  if (a.qkvClip > 0)
    notes.push_back("clipping Q, K and V at " + real(a.qkvClip) +
                    " (clip_qkv) has no Megatron-LM argument (--qk-clip is "
                    "MuonClip's, another thing)");
  if (a.scaledResiduals)
    notes.push_back("embedding, residual, attention or logit multipliers "
                    "(Granite, Cohere's logit_scale) have no Megatron-LM "
                    "argument");
  if (a.attentionTemperature)
    notes.push_back("the no-rope layers' attention temperature tuning "
                    "(Llama 4) has no Megatron-LM argument");
}

/// The model's flags (and its degrees and microbatch) into `line`; what
/// Megatron-LM cannot express into `notes`.
void modelArguments(const ModelConfig &c, int64_t originalVocab,
                    std::optional<Precision> precision, ArgLine &line,
                    std::vector<std::string> &notes) {
  // The flag of each parameter comes from the vocabulary (Params.h), its
  // value through the table's accessor.
  auto value = [&](Param p) { return getParam(c, p); };
  line.arg(flagOf(Param::Layers), value(Param::Layers));
  line.arg(flagOf(Param::Hidden), value(Param::Hidden));
  line.arg(flagOf(Param::Heads), value(Param::Heads));
  if (value(Param::KvHeads) != value(Param::Heads)) {
    line.flag("--group-query-attention");
    line.arg(flagOf(Param::KvHeads), value(Param::KvHeads));
  }
  if (value(Param::HeadDim))
    line.arg(flagOf(Param::HeadDim), value(Param::HeadDim));
  // A model whose every layer is MoE has no dense MLP (Megatron-LM then
  // takes 4h, unused).
  if (value(Param::Ffn))
    line.arg(flagOf(Param::Ffn), value(Param::Ffn));
  line.arg(flagOf(Param::Seq), value(Param::Seq));
  line.arg("--max-position-embeddings", value(Param::Seq));
  line.arg(flagOf(Param::Microbatch), value(Param::Microbatch));
  // Degrees: tp always; the others with a flag when they are not 1.
  for (Param p : model::allParams())
    if (model::paramInfo(p).kind == model::ParamKind::Degree &&
        *flagOf(p) && (p == Param::Tp || value(p) != 1))
      line.arg(flagOf(p), value(p));
  // Expert tensor parallelism when it is not tp (Megatron-LM's default).
  if (c.parallel.expertTpOwn())
    line.arg("--expert-tensor-parallel-size", c.parallel.expertTp());
  // Megatron pads the tokenizer's vocabulary up to a multiple of
  // (divisible-by x the degree that splits it): pick the largest power of
  // two that lands exactly on the model's vocab.
  const int64_t vocab = value(Param::Vocab),
                split = value(*model::paramInfo(Param::Vocab).splitBy);
  int64_t vo = originalVocab > 0 ? originalVocab : vocab, best = 0;
  for (int64_t x = 1; x <= 8192; x *= 2) {
    int64_t m = x * split;
    if ((vo + m - 1) / m * m == vocab)
      best = x;
  }
  if (best)
    line.arg(flagOf(Param::Vocab), best);
  else
    notes.push_back("vocab " + std::to_string(vocab) +
                    " is not reachable by Megatron's padding from " +
                    std::to_string(vo) + " (" + flagOf(Param::Vocab) +
                    " not written)");
  architectureArguments(c, line, notes);
  if (value(Param::Experts))
    moeArguments(c, line, notes);
  if (hasBlock(c, BlockKind::Mla))
    mlaArguments(c, line, notes);
  windowArguments(c, line, notes);
  if (c.arch.quickGeglu) {
    // gpt-oss's experts run x * sigmoid(1.702 x) gated, clamped at its
    // swiglu_limit, with the up projection offset by 1 (Architecture): no
    // GEMM effect, written as the public gpt-oss launches of Megatron-LM
    // write it.
    auto decimal = [](double v) {
      std::string s = real(v);
      return s.find_first_of(".e") == std::string::npos ? s + ".0" : s;
    };
    line.flag("--quick-geglu");
    if (c.arch.gluLinearOffset != 0)
      line.flag("--glu-linear-offset " + decimal(c.arch.gluLinearOffset));
    if (c.arch.gluClamp > 0)
      line.flag("--activation-func-clamp-value " + decimal(c.arch.gluClamp));
  } else if ((c.mlp.gated || value(Param::Experts)) &&
             (value(Param::Ffn) == 0 ||
              c.mlp.activation == Activation::SiLU)) {
    line.flag("--swiglu");
  }
  // Learned attention sinks (Architecture::attentionSinks), whatever the
  // family; checked when the attention module is built
  // (TEDotProductAttention), not at start-up.
  if (c.arch.attentionSinks) {
    line.flag("--softmax-type learnable");
    notes.push_back("--softmax-type learnable (the sinks) needs Transformer "
                    "Engine 2.8 or later");
  }
  if (!c.tiedEmbeddings)
    line.flag("--untie-embeddings-and-output-weights");
  if (c.dtype == DType::BF16)
    line.flag("--bf16");
  else if (c.dtype == DType::FP16)
    line.flag("--fp16");
  precisionArguments(precision, line);
  // What Megatron-LM has no argument for, said rather than dropped.
  if (c.mlp.gated && c.mlp.activation != Activation::SiLU)
    notes.push_back("a gated non-SiLU MLP (GeGLU) has no Megatron-LM argument");
  if (!c.attention.causal)
    notes.push_back("a bidirectional encoder (BERT) is not what "
                    "pretrain_gpt.py trains: it trains a causal decoder "
                    "(Megatron-LM's pretrain_bert.py has another layout)");
  if (c.residual == ResidualMode::Parallel)
    notes.push_back("the parallel attention+MLP residual has no Megatron-LM "
                    "argument (GPT-NeoX: gpt_j_residual)");
}

std::string n(int64_t v) { return std::to_string(v); }
} // namespace

std::string tshape::megatronArguments(const ModelConfig &c,
                                      int64_t originalVocab,
                                      std::optional<Precision> precision) {
  ArgLine line;
  std::vector<std::string> notes;
  modelArguments(c, originalVocab, precision, line, notes);
  // The model's line alone (no plan: no sequence parallelism, batch or
  // sharding): what Megatron-LM would reject in it, said.
  MegatronLaunchContext context;
  context.deviceMaxConnections1 = true;
  for (const std::string &problem :
       validateMegatronArguments(line.s, context))
    notes.push_back("Megatron-LM would reject this line as it is: " +
                    problem);
  for (const std::string &note : notes)
    line.s += "\n# note: " + note;
  return line.s;
}

std::optional<std::string>
tshape::checkMegatronRules(const ModelConfig &c,
                           const cost::TrainingPlan &plan) {
  const Parallelism &par = c.parallel;
  const int64_t layers = c.layers, v = plan.virtualStages;
  // The layer slots the stages split: the decoder layers, and the
  // embedding and the loss when they count (transformer_block.py:147).
  const bool accounted = plan.embeddingInSplit || plan.lossInSplit;
  const int64_t slots = layers + plan.embeddingInSplit + plan.lossInSplit;
  // megatron/training/arguments.py, validate_args; uneven stages:
  // transformer_config.py:2303-2349 (the middle splits evenly); the
  // embedding and loss in the split: transformer_config.py:2229-2239,
  // 2373-2415.
  if (accounted || plan.layout) {
    // A layout: its own checks (PipelineLayout.h).
    std::string why;
    if (cost::stageLayers(c, plan, &why).empty())
      return why;
  } else if (plan.firstStageLayers || plan.lastStageLayers) {
    std::string why;
    if (cost::stageLayers(c, plan, &why).empty())
      return why;
    if (v > 1)
      return "uneven stages with virtual stages need "
             "--num-virtual-stages-per-pipeline-rank, which tshape does not "
             "write (arguments.py:955); use --vp=1";
  } else if (par.pp > 0 && layers % par.pp)
    return "num-layers " + n(layers) +
           " not divisible by pipeline-model-parallel-size " + n(par.pp) +
           " (Megatron-LM: \"Number of layers should be divisible by the "
           "pipeline-model-parallel size\"); give uneven first and last "
           "stages (--first-stage-layers, --last-stage-layers)";
  if (v > 1) {
    // P2P overlap is on by default (--no-overlap-p2p-communication turns
    // it off), so interleaving needs pp > 1 (arguments.py:1000-1009).
    if (par.pp <= 1)
      return "the interleaved schedule (" + n(v) +
             " virtual stages) needs pipeline-model-parallel-size > 1, got " +
             n(par.pp) + " (Megatron-LM, arguments.py:1000); use --vp=1";
    if (!plan.layout && (slots / par.pp) % v)
      return "layers per pipeline stage " + n(slots / par.pp) + " (" +
             n(slots) + "/" + n(par.pp) + ") not divisible by " + n(v) +
             " virtual stages (Megatron-LM: \"number of layers per pipeline "
             "stage must be divisible number of layers per virtual pipeline "
             "stage\")";
    // schedules.py:1160: the interleaved schedule runs microbatches in
    // groups of pp.
    if (plan.microbatches < par.pp)
      return "the interleaved schedule needs at least pp = " + n(par.pp) +
             " microbatches per step, got " + n(plan.microbatches) +
             " (Megatron-LM, schedules.py:1160); raise the global batch or "
             "use --vp=1";
  }
  if (par.cp > 1 && c.seq % (2 * par.cp))
    return "seq-length " + n(c.seq) + " not a multiple of 2 x "
           "context-parallel-size = " + n(2 * par.cp) +
           " (Megatron-LM: \"seq-length should be a multiple of 2 * "
           "context-parallel-size\")";
  if (par.ep > 1 && c.moe.experts == 0)
    return "expert-model-parallel-size " + n(par.ep) +
           " needs --num-experts (Megatron-LM: \"num_experts must be non None "
           "to use expert model parallelism\"); this model has no experts";
  if (par.ep > 1 && c.moe.experts % par.ep)
    return "num-experts " + n(c.moe.experts) +
           " not divisible by expert-model-parallel-size " + n(par.ep) +
           " (Megatron-LM: \"num_moe_experts must be divisible by "
           "expert_model_parallel_size\"); use an ep dividing the experts";
  // Expert tensor parallelism of its own (megatron/core/parallel_state.py
  // :874-884): the expert groups are etp x ep ranks carved from the
  // tp x dp x cp ranks of a pipeline stage, the rest expert data parallel.
  if (par.etp > 0) {
    if (c.moe.experts == 0)
      return "expert-tensor-parallel-size " + n(par.etp) +
             " needs a mixture-of-experts model (" + c.name +
             " has no experts)";
    if (c.moe.inner % par.etp)
      return "moe-ffn-hidden-size " + n(c.moe.inner) +
             " not divisible by expert-tensor-parallel-size " + n(par.etp);
    if ((par.tp * par.dp * par.cp) % (par.etp * par.ep))
      return "expert-tensor-parallel-size " + n(par.etp) + " x "
             "expert-model-parallel-size " + n(par.ep) + " = " +
             n(par.etp * par.ep) + " does not divide tp x dp x cp = " +
             n(par.tp * par.dp * par.cp) +
             " (Megatron-LM, parallel_state.py:881: the world size must be "
             "divisible by etp x ep x pp)";
  } else if (par.ep > 1 && (par.dp * par.cp) % par.ep)
    // The expert-parallel group is carved from the data-parallel (x
    // context) ranks: world = tp x pp x (dp x cp), with ep dividing dp x cp.
    return "expert-model-parallel-size " + n(par.ep) +
           " does not divide data-parallel x context-parallel = " +
           n(par.dp * par.cp) +
           " (Megatron-LM builds expert groups inside them); use an ep "
           "dividing " + n(par.dp * par.cp);
  // megatron/core/transformer/transformer_config.py.
  if (par.tp > 0 && c.attention.heads % par.tp)
    return "num-attention-heads " + n(c.attention.heads) +
           " not divisible by tensor-model-parallel-size " + n(par.tp);
  // transformer_config.py:1461: query groups a multiple or a divisor of tp
  // (attention.py replicates the key/value heads when tp exceeds them).
  if (par.tp > 0 && c.attention.kvHeads % par.tp &&
      par.tp % c.attention.kvHeads)
    return "num-query-groups " + n(c.attention.kvHeads) +
           " neither a multiple nor a divisor of tensor-model-parallel-size " +
           n(par.tp) + " (Megatron-LM, transformer_config.py:1461)";
  if (c.moe.experts && par.tp > 1) {
    // transformer_config.py:2612: biased experts need expert tensor
    // parallelism 1.
    if ((c.arch.linearBias || !c.arch.stated) && par.expertTp() != 1)
      return "MoE with biased linear layers at expert tensor parallelism " +
             n(par.expertTp()) +
             ": Megatron-LM needs --expert-tensor-parallel-size 1 for them "
             "(transformer_config.py:2612); use --etp=1";
    // moe_layer.py:636: training raises at the first MoE layer.
    if (!plan.sequenceParallel)
      return "MoE with tensor parallelism (tp " + n(par.tp) +
             ") needs sequence parallelism (Megatron-LM raises at the first "
             "MoE layer, moe_layer.py:636); use --sequence-parallel";
  }
  // FSDP is written as --use-torch-fsdp2, whose rules are these.
  if (plan.sharding == cost::StateSharding::Fsdp) {
    if (par.ep != 1)
      return "--use-torch-fsdp2 is not supported with expert parallelism "
             "(ep " + n(par.ep) + ", arguments.py:1036); use "
             "--sharding=distributed-optimizer or ep 1";
    if (par.pp != 1)
      return "--use-torch-fsdp2 is not supported with pipeline parallelism "
             "(pp " + n(par.pp) + "); use --sharding=distributed-optimizer "
             "or pp 1";
    if (c.tiedEmbeddings)
      return "--use-torch-fsdp2 requires "
             "--untie-embeddings-and-output-weights, and this model ties its "
             "embeddings";
    if (c.dtype == DType::FP16)
      return "--use-torch-fsdp2 is not supported with fp16";
  }
  // Activation CPU offloading (transformer_config.py:1884-1894, rule F8 of
  // the encoded table).
  if (plan.offloadLayers > 0) {
    if (par.pp != 1)
      return "activation CPU offloading (--cpu-offloading-num-layers " +
             n(plan.offloadLayers) + ") is not supported with pipeline "
             "parallelism (pp " + n(par.pp) + "; transformer_config.py:1890)";
    if (plan.recompute != cost::Recompute::None)
      return "activation CPU offloading does not work with recompute "
             "(transformer_config.py:1894); use --recompute=none";
    if (plan.offloadLayers >= layers)
      return "--cpu-offloading-num-layers " + n(plan.offloadLayers) +
             " must be below num-layers " + n(layers) +
             " (transformer_config.py:1884)";
  }
  // The expert all-to-alls overlapped (transformer_config.py:3002-3047,
  // rules M1-M8 of the encoded table), said in the plan's terms.
  if (plan.overlapEpComm) {
    if (par.ep <= 1)
      return "--overlap-ep-comm needs expert parallelism (ep > 1; "
             "transformer_config.py:3013)";
    if (par.pp > 1 && plan.virtualStages <= 1)
      return "--overlap-ep-comm at pp " + n(par.pp) +
             " needs virtual stages (--vp; transformer_config.py:3007)";
    if (plan.recompute == cost::Recompute::Full ||
        model::recomputes(plan.selectiveModules(),
                          model::RecomputeModule::Moe))
      return "--overlap-ep-comm excludes full recompute and the moe "
             "recompute module (transformer_config.py:3021-3032)";
    if (c.dtype != DType::BF16 && c.dtype != DType::FP16)
      return "--overlap-ep-comm needs a bf16 or fp16 model "
             "(transformer_config.py:3034)";
    if (c.arch.mtpLayers > 1)
      return "--overlap-ep-comm supports at most one MTP layer, and this "
             "model has " + n(c.arch.mtpLayers) +
             " (transformer_config.py:3042)";
  }
  return std::nullopt;
}

std::optional<MegatronLaunch>
tshape::megatronLaunch(const ModelConfig &c, int64_t originalVocab,
                       const cost::TrainingPlan &plan, std::string *error) {
  if (auto broken = checkMegatronRules(c, plan)) {
    if (error)
      *error = *broken;
    return std::nullopt;
  }
  MegatronLaunch launch;
  ArgLine line;
  modelArguments(c, originalVocab, plan.precision, line, launch.notes);
  const Parallelism &par = c.parallel;
  // The layer slots: the embedding and the loss count when asked
  // (arguments.py:972 divides them by the layers per virtual stage).
  const int64_t slots =
      c.layers + plan.embeddingInSplit + plan.lossInSplit;
  // A layout sets the virtual stages itself (arguments.py:930-951: not
  // with --num-layers-per-virtual-pipeline-stage).
  if (plan.layout)
    line.flag("--pipeline-model-parallel-layout \"" + plan.layout->text +
              "\"");
  else if (plan.virtualStages > 1)
    line.arg("--num-layers-per-virtual-pipeline-stage",
             slots / (par.pp * plan.virtualStages));
  if (plan.embeddingInSplit)
    line.flag("--account-for-embedding-in-pipeline-split");
  if (plan.lossInSplit)
    line.flag("--account-for-loss-in-pipeline-split");
  if (plan.firstStageLayers)
    line.arg("--decoder-first-pipeline-num-layers", plan.firstStageLayers);
  if (plan.lastStageLayers)
    line.arg("--decoder-last-pipeline-num-layers", plan.lastStageLayers);
  if (plan.sequenceParallel) {
    if (par.tp > 1)
      line.flag("--sequence-parallel");
    else
      launch.notes.push_back("sequence parallelism needs tp > 1: Megatron-LM "
                             "turns it off at tp 1 (not written)");
  }
  switch (plan.recompute) {
  case cost::Recompute::None:
    break;
  case cost::Recompute::Selective:
    // Megatron-LM rejects a recompute method with selective granularity.
    line.flag("--recompute-granularity selective");
    // Its modules default to the attention core alone
    // (transformer_config.py:1941).
    if (plan.recomputeModules !=
        model::RecomputeModules(model::RecomputeModule::CoreAttn))
      line.flag("--recompute-modules " +
                model::recomputeModulesText(plan.recomputeModules, " "));
    break;
  case cost::Recompute::Full:
    // Every layer's input kept and the layer recomputed (Korthikanti et
    // al.'s full recompute, what the memory model counts).
    line.flag("--recompute-granularity full --recompute-method uniform");
    line.arg("--recompute-num-layers", 1);
    break;
  }
  // Activation CPU offloading (model_parallel_config.py's
  // cpu_offloading_num_layers); the encoded rules check pp 1, no recompute
  // and fewer layers than the model's.
  if (plan.offloadLayers > 0)
    line.arg("--cpu-offloading-num-layers", plan.offloadLayers);
  // The expert all-to-alls behind another microbatch's compute (the step
  // model prices it so); the encoded rules M1-M8 check its conditions.
  if (plan.overlapEpComm)
    line.flag("--overlap-moe-expert-parallel-comm");
  // The step-time model overlaps the data-parallel gradient reduction and
  // the parameter gather (StepOptions' defaults); Megatron-LM does so only
  // when asked.
  switch (plan.sharding) {
  case cost::StateSharding::None:
    line.flag("--overlap-grad-reduce");
    break;
  case cost::StateSharding::DistributedOptimizer:
    line.flag("--use-distributed-optimizer --overlap-grad-reduce "
              "--overlap-param-gather");
    break;
  case cost::StateSharding::Fsdp:
    // arguments.py:1040: FSDP2 cannot fuse gradient accumulation.
    line.flag("--use-torch-fsdp2 --no-gradient-accumulation-fusion "
              "--ckpt-format torch_dist");
    launch.notes.push_back(
        "FSDP written as PyTorch FSDP2 (--use-torch-fsdp2); tshape's memory "
        "model shards weights, gradients and optimizer state over dp x cp");
    break;
  }
  // A fused attention kernel is Megatron-LM's default (--attention-backend
  // auto picks flash or cuDNN fused attention); the unfused one is asked for.
  if (!c.attention.fused)
    line.flag("--attention-backend unfused");
  line.arg("--global-batch-size",
           plan.microbatches * c.microbatch * par.dp);
  if (plan.bytes.weights != 2 || plan.bytes.gradients != 4 ||
      plan.bytes.optimizer != 12)
    launch.notes.push_back("bytes per parameter other than Megatron-LM's "
                           "bf16 Adam (2 + 4 + 12) are not written");
  if ((par.tp > 1 || par.cp > 1) &&
      plan.sharding != cost::StateSharding::Fsdp)
    launch.environment = "CUDA_DEVICE_MAX_CONNECTIONS=1";
  launch.arguments = line.s;
  // The line against Megatron-LM's own rules (MegatronArgs.h): what it
  // would reject is tshape's bug or a plan it cannot run, never a command.
  MegatronLaunchContext context;
  context.worldSize = par.tp * par.pp * par.cp * par.dp;
  context.deviceMaxConnections1 = !launch.environment.empty();
  std::vector<std::string> problems =
      validateMegatronArguments(launch.arguments, context);
  if (!problems.empty()) {
    if (error)
      *error = "Megatron-LM would reject the command: " + problems.front();
    return std::nullopt;
  }
  return launch;
}

int64_t tshape::launchProcessesPerHost(int64_t gpus, int64_t gpusPerHost,
                                       int64_t group) {
  const int64_t most = std::max<int64_t>(1, std::min(gpus, gpusPerHost));
  for (int64_t per = most; per > 1; --per)
    if (gpus % per == 0 && (group <= 1 || per % group == 0))
      return per;
  int64_t per = most;
  while (per > 1 && gpus % per)
    --per;
  return per;
}

std::string MegatronLaunch::command(int64_t gpus, int64_t perHost) const {
  // torchrun starts the same number of processes on every host.
  const int64_t perNode = std::max<int64_t>(1, std::min(gpus, perHost));
  const int64_t nodes = (gpus + perNode - 1) / perNode;
  // Several nodes meet at node 0 (torchrun's static rendezvous, as
  // Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh starts
  // them): each node runs the same line with its own NODE_RANK.
  std::string rendezvous =
      nodes > 1 ? " --node_rank $NODE_RANK --master_addr $MASTER_ADDR "
                  "--master_port ${MASTER_PORT:-6000}"
                : "";
  // torchrun's underscore spellings, which every torch version takes (the
  // hyphenated aliases are newer) and Megatron-LM's examples use.
  return (environment.empty() ? "" : environment + " ") + "torchrun --nnodes " +
         n(nodes) + " --nproc_per_node " + n(perNode) + rendezvous +
         " pretrain_gpt.py " + arguments;
}
