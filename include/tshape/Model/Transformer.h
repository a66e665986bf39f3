//===- Transformer.h - Plain-C++ transformer shape model --------*- C++ -*-===//
//
// The transformer hyperparameters that decide a model's GEMMs, the numbered
// structural rules they must satisfy, and the per-tensor-parallel-rank GEMM
// list of the paper (Anthony et al. 2024, see docs/architecture.md), with
// overflow-checked parameter and FLOP counts.
//
// This file knows nothing of MLIR: the dialect verifiers, the HF importer, the
// lowering, the analysis and the unit tests all share it.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_TRANSFORMER_H
#define TSHAPE_MODEL_TRANSFORMER_H

#include "tshape/Model/Architecture.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Kernel.h"
#include "tshape/Model/Parallelism.h"
#include "tshape/Model/RunShape.h"
#include "tshape/Support/DType.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace tshape::model {

//===----------------------------------------------------------------------===//
// Checked arithmetic
//===----------------------------------------------------------------------===//

/// a * b, or nullopt on int64 overflow (or when an operand is nullopt).
std::optional<int64_t> checkedMul(std::optional<int64_t> a,
                                  std::optional<int64_t> b);
/// a + b, or nullopt on int64 overflow (or when an operand is nullopt).
std::optional<int64_t> checkedAdd(std::optional<int64_t> a,
                                  std::optional<int64_t> b);
/// Product of all factors, or nullopt on overflow.
std::optional<int64_t> checkedProduct(std::initializer_list<int64_t> factors);

//===----------------------------------------------------------------------===//
// Hyperparameters
//===----------------------------------------------------------------------===//

enum class Activation { GELU, ReLU, SiLU };
const char *activationName(Activation a);

/// How a block combines its attention and MLP residual branches.
enum class ResidualMode { Sequential, Parallel };

struct AttentionConfig {
  int64_t heads = 0;   ///< a: query heads
  int64_t kvHeads = 0; ///< g: key/value heads (a: MHA, 1: MQA, else GQA)
  int64_t headDim = 0; ///< d; 0 means hidden / heads
  bool causal = true;
  bool fused = false; ///< scores+softmax+values run as one fused kernel
  /// W: the keys a query of a windowed layer sees (0: no window). Sliding:
  /// the W keys up to its own; chunked (Llama 4's attention_chunk_size):
  /// the keys of its own aligned chunk of W, up to its own.
  int64_t window = 0;
  bool chunked = false;
  /// This layer attends to every key although the model has a window (a
  /// global layer of Gemma's 5 local : 1 global); set per layer from
  /// LayerKind::fullAttention by layerConfig.
  bool fullAttention = false;
  /// The window this layer uses: 0 when none or a full-attention layer.
  int64_t layerWindow() const { return fullAttention ? 0 : window; }
};

struct MlpConfig {
  int64_t inner = 0; ///< f
  Activation activation = Activation::GELU;
  bool gated = false; ///< SwiGLU/GeGLU: two up projections
  /// Layout of a gated MLP: gate and up projections as one GEMM of width
  /// 2f (role mlp_gate_up) instead of two of width f.
  bool fusedGateUp = false;
};

/// A mixture-of-experts block (Blocks/Moe.cpp): a router, `experts`
/// routed experts of which each token runs `topk`, and `sharedExperts`
/// experts every token runs. 0 experts: the model has no MoE block.
struct MoeConfig {
  int64_t experts = 0;       ///< E
  int64_t topk = 0;          ///< k
  int64_t inner = 0;         ///< f_e: one routed expert's inner size
  int64_t sharedExperts = 0; ///< shared experts (0: none)
  int64_t sharedInner = 0;   ///< f_s: one shared expert's inner size
  /// The busiest expert's tokens in percent of the balanced b*s*k/E (a
  /// capacity factor x 100); 0 (or 100) prices balanced routing.
  int64_t capacity = 0;
  Activation activation = Activation::SiLU;
  bool gated = true; ///< SwiGLU experts (every MoE model imported is)
};

/// Multi-head latent attention (Blocks/Mla.cpp; DeepSeek-V2/V3, Kimi-K2):
/// queries through an optional low-rank latent, keys and values through
/// one latent of `kvLoraRank` plus a rotary key part shared by the heads.
/// The heads are AttentionConfig::heads. 0 kvLoraRank: no MLA block.
struct MlaConfig {
  int64_t qLoraRank = 0;  ///< r_q; 0: queries projected from h directly
  int64_t kvLoraRank = 0; ///< r_kv
  int64_t qkNopeDim = 0;  ///< d_n: query/key dims without rotary embedding
  int64_t qkRopeDim = 0;  ///< d_r: query/key dims with rotary embedding
  int64_t vHeadDim = 0;   ///< d_v
};

/// A stretch of a heterogeneous stack: `pattern` (the sub-layers of each
/// layer in turn) repeated `repeats` times. DeepSeek-V3 is [attention, mlp]
/// x 3 then [attention, moe] x 58; Llama 4 Maverick [[attention, mlp],
/// [attention, moe]] x 24. A later per-layer attribute (a window for 5
/// local : 1 global) joins LayerKind, and layerConfig applies it.
struct LayerKind {
  std::vector<BlockKind> blocks;
  /// A full-attention layer of a model with a window (its attention
  /// ignores AttentionConfig::window).
  bool fullAttention = false;
  bool operator==(const LayerKind &o) const {
    return blocks == o.blocks && fullAttention == o.fullAttention;
  }
};
struct StackSegment {
  std::vector<LayerKind> pattern;
  int64_t repeats = 1;
  bool operator==(const StackSegment &o) const {
    return pattern == o.pattern && repeats == o.repeats;
  }
};

/// One whole model, with the run shape (microbatch, sequence) and the
/// parallel degrees. Code outside lib/Model reaches the sizes through the
/// parameter table (getParam/setParam, Params.h), not the field names.
struct ModelConfig {
  std::string name;
  std::string modelType; ///< Hugging Face model_type, when imported
  int64_t microbatch = 1; ///< b
  int64_t seq = 1;        ///< s
  int64_t hidden = 0;     ///< h
  int64_t vocab = 0;      ///< v
  int64_t layers = 1;     ///< L
  Parallelism parallel;   ///< t, p, d, e, cp
  DType dtype = DType::BF16;
  AttentionConfig attention;
  MlpConfig mlp;
  /// The residual sub-layers of each decoder layer, in order (blocks with
  /// BlockInfo::perLayer): attention then MLP unless the IR says otherwise.
  std::vector<BlockKind> layerBlocks = {BlockKind::Attention, BlockKind::Mlp};
  MoeConfig moe;
  MlaConfig mla;
  /// A heterogeneous stack: its segments in order, whose layers sum to
  /// `layers` (rule H1). Empty: every layer is `layerBlocks` (a uniform
  /// stack, one tshape.repeat). layerConfig(c, l) gives layer l's config.
  std::vector<StackSegment> stack;
  ResidualMode residual = ResidualMode::Sequential;
  bool tiedEmbeddings = false;
  /// What the model is beyond its sizes (positions, norms, biases, router):
  /// no GEMM reads it; the Megatron-LM writer does.
  Architecture arch;

  /// d, resolving the implicit hidden / heads (model::headDim).
  int64_t headDim() const;
};

/// The values of the named parameters of `c` (Params.h), as its GEMM
/// expressions use them: head_dim only when explicit (else it is
/// hidden/heads), kv_heads only when it differs from heads (MHA states the
/// key/value heads as heads), a degree only when it splits a parameter, and
/// no size of 0 (unset: a block model built for one op knows no heads).
Bindings bindings(const ModelConfig &c);

/// The head dim as an expression: head_dim when `env` binds it (explicit),
/// else hidden/heads. The one statement of the implicit head dim.
DimExpr headDimExpr(const Bindings &env);
/// Its value with `env`; 0 when it has none (hidden not divisible by heads,
/// or a size unbound).
int64_t headDim(const Bindings &env);

/// The config of layer `layer` (0-based): `c` with layerBlocks of that
/// layer of the stack and no stack (c itself for a uniform stack or a
/// layer past it).
ModelConfig layerConfig(const ModelConfig &c, int64_t layer);
/// The distinct layers of `c` (each a config with no stack), each with its
/// count, in order of first appearance: one entry (c, layers) for a
/// uniform stack. What counting,
/// the step and memory models and the search sum over instead of L
/// copies of layer 0.
std::vector<std::pair<ModelConfig, int64_t>> layerGroups(const ModelConfig &c);
/// The layers of a stack (sum of repeats x pattern length); nullopt on
/// overflow.
std::optional<int64_t> stackLayers(const std::vector<StackSegment> &stack);
/// Whether any layer of `c` holds block `k`.
bool hasBlock(const ModelConfig &c, BlockKind k);

//===----------------------------------------------------------------------===//
// Structural rules
//===----------------------------------------------------------------------===//

/// Rule S1: a size must be positive.
std::optional<RuleViolation> checkPositive(const char *what, int64_t value);
/// The rules on whatever parameters `env` binds: S1 for the bound sizes,
/// the attention rules A1 and A2 when it binds heads (MHA: kv_heads unbound
/// means kv_heads = heads; head_dim unbound means hidden/heads), and every
/// divisibility rule of the table (checkSplits: A3, A4, M1, V1). The first
/// violation.
std::optional<RuleViolation> checkBindings(const Bindings &env);
/// Rules W1 (a window is positive), W2 (chunked needs a window) and W3
/// (a window needs causal attention); `window` absent: no window.
std::optional<RuleViolation> checkWindow(std::optional<int64_t> window,
                                         bool chunked, bool causal);
/// Every rule of a whole model, in rule order; the first violation.
std::optional<RuleViolation> checkModel(const ModelConfig &config);
/// checkModel at one sequence per microbatch: what a plan's models (the
/// memory and step models, the plan search) check, as they count a
/// microbatch's bytes and FLOPs in double. Rule S2 then bounds one
/// sequence's kernels; at the microbatch itself it would reject plans that
/// are only large (Llama 3.1 405B at t = 2, b = 2048, s = 8192: ~2e19 FLOPs
/// a step on a rank, past 2^63 ~ 9.2e18).
std::optional<RuleViolation> checkModelPerSequence(const ModelConfig &config);

//===----------------------------------------------------------------------===//
// Per-rank sizes and the GEMM list
//===----------------------------------------------------------------------===//

/// The sizes one tensor-parallel rank sees.
struct RankShape {
  int64_t tokens;       ///< b*s
  int64_t headsPerRank; ///< a/t
  int64_t kvPerRank;    ///< max(1, g/t): MQA/GQA kv heads are replicated
                        ///< when t > g
  int64_t headDim;      ///< d
  int64_t innerPerRank; ///< f/t
  int64_t vocabPerRank; ///< v/t
};
/// Per-rank sizes; nullopt when the config violates a rule or b*s overflows.
std::optional<RankShape> rankShape(const ModelConfig &config);

/// The kernels of one decoder layer under `run`: the forward kernels of
/// its blocks (layerBlocks, Blocks/Block.h) in order, then, when the run has a
/// backward, their gradients in reverse order. Empty when the config is
/// invalid.
std::vector<Kernel> layerKernels(const ModelConfig &config,
                                 const RunShape &run, int64_t layer);
/// The kernels of a whole run: every layer forward, the once-per-model
/// blocks (embedding and LM head: the logits), then the backward of the logits and of every layer
/// in reverse order. Empty when the config is invalid.
std::vector<Kernel> modelKernels(const ModelConfig &config,
                                 const RunShape &run);
/// The kernels of the once-per-model blocks (embedding, LM head) under
/// `run`, forward and, when the run has one, backward.
std::vector<Kernel> modelBlockKernels(const ModelConfig &config,
                                      const RunShape &run);

//===----------------------------------------------------------------------===//
// Counting (all overflow-checked)
//===----------------------------------------------------------------------===//

/// Parameters of the whole (unsharded) model: the sum of the blocks'
/// weights (blockWeights: QKV, output projection, MLP, the embedding table,
/// the LM head unless tied, and the norm gains: two per layer and one
/// final). Not counted: biases and learned position tables.
struct ParamCount {
  int64_t embedding = 0; ///< the embedding block
  int64_t perLayer = 0;  ///< the per-layer blocks of one layer (the first)
  int64_t lmHead = 0;    ///< the LM head block, with the final norm
  int64_t total = 0;
  /// The parameters one token runs through: the total less the routed
  /// experts it is not sent to (a MoE block's activeWeights); = total for
  /// a dense model.
  int64_t active = 0;
};
std::optional<ParamCount> countParameters(const ModelConfig &config);

/// The FLOPs of `kernels` (GEMMs, and attention kernels as their unmasked
/// GEMMs; collectives none); nullopt on overflow.
std::optional<int64_t> kernelFlops(const std::vector<Kernel> &kernels);
/// Sum of the kernels' FLOPs of one run on one rank; nullopt on overflow.
std::optional<int64_t> countFlops(const ModelConfig &config,
                                  const RunShape &run);

} // namespace tshape::model

#endif // TSHAPE_MODEL_TRANSFORMER_H
