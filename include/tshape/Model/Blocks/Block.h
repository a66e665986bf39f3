//===- Block.h - The block models: kernels and weights of each block -*- C++ -*-===//
//
// A block is a part of a transformer that owns kernels and weights: the
// embedding, the attention, the MLP, the LM head. Each has one file in
// lib/Model/Blocks that states its forward kernels under a run shape and
// the degrees in force (their sizes are DimExprs over the parameter table),
// and its weights outside those kernels (norm gains). Everything else is
// derived here once: the backward kernels of a training step, the weights
// (the weight GEMMs' N x K at degree 1, plus the extras), and so the
// parameter count, the step's kernel list and, later, the memory model.
//
// Adding a block: its file here and a row in kBlocks (Block.cpp), its op
// with the block op interface (TShapeInterfaces.td) and its lowering file
// (docs/architecture.md, "Adding a block"). A block defined outside this
// library (a test block, an out-of-tree one) registers its row with
// registerBlock instead.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_MODEL_BLOCKS_BLOCK_H
#define TSHAPE_MODEL_BLOCKS_BLOCK_H

#include "tshape/Model/Kernel.h"
#include "tshape/Model/Parallelism.h"
#include "tshape/Model/RunShape.h"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tshape::model {

struct ModelConfig;

enum class BlockKind : uint8_t { Embedding, Attention, Mlp, LMHead, Moe, Mla };

/// One factor of a state component's size, as a report names it.
struct StateFactor {
  std::string name; ///< "kv_heads per rank", "head_dim"; "" for a count
  int64_t value = 0;
};

/// A part of what one instance keeps for each sequence between steps, on
/// one rank (BlockInfo::state): a cache that grows with the keys it holds
/// (an attention's K and V, MLA's latent) or a state of fixed size per
/// sequence (a recurrent layer's). The inference and memory models, the
/// decode findings and their sentences read these components and nothing
/// else about a block's cache.
struct StateComponent {
  std::string name;                 ///< "K and V", "latent", "rotary key"
  std::vector<StateFactor> factors; ///< the elements are their product
  /// Held per key (a cache); false: once per sequence (a recurrent state).
  bool perToken = true;
  /// > 0: a cache holds at most the last `window` keys (plus a decode
  /// step's drafts: their windows end one key apart).
  int64_t window = 0;
  /// nullopt: the run's cache element type, else the model's.
  std::optional<DType> dtype;
  /// Whole on every rank: tensor parallelism does not split it.
  bool wholeOnEveryRank = false;
  /// The size a designer would change to shrink it.
  Param parameter = Param::Hidden;

  /// The product of the factors; nullopt on overflow.
  std::optional<int64_t> elements() const;
  /// The elements held for a sequence of `keys` keys whose steps carry
  /// `draft` drafts; nullopt on overflow.
  std::optional<int64_t> held(int64_t keys, int64_t draft) const;
  /// The factors as a sentence: "2 x 4 kv_heads per rank x 128 head_dim".
  std::string formula() const;
};

/// How a training plan keeps a layer's activations, as a block's
/// activations hook reads it (Cost/Memory.h's activationPlan makes it).
struct ActivationPlan {
  /// Megatron-LM's sequence parallelism: what tp does not split, it does.
  bool sequenceParallel = false;
  /// The selective recompute's modules (Recompute.h): what they would keep
  /// is recomputed instead (core_attn: the attention core's scores). 0:
  /// no selective recompute.
  RecomputeModules recompute = 0;
  bool recomputes(RecomputeModule m) const {
    return model::recomputes(recompute, m);
  }
  /// Bytes per element of a linear layer's saved input (2 in 16-bit
  /// training; FP8: savedLinearInputBytes).
  double linearInputBytes = 2;
};

/// The sizes a block's training hooks read, on one rank: the sequence s/cp
/// (rankSeq), the microbatch b, the hidden size h, tp t, the tokens b s/cp
/// and the model's element bytes e.
struct TrainingSizes {
  double s = 0, b = 0, h = 0, t = 1, tokens = 0, e = 2;
  /// Korthikanti et al. 2022's bytes of a sub-layer: `unsplit` s b h that
  /// tp does not split (sequence parallelism `sp` does) and `split` s b h
  /// that it does.
  double subLayerBytes(double unsplit, double split, bool sp) const {
    const double sbh = s * b * h;
    return sp ? (unsplit + split) * sbh / t : sbh * (unsplit + split / t);
  }
};
TrainingSizes trainingSizes(const ModelConfig &c);

/// Bytes a block's own elementwise kernels move in one training forward of
/// one microbatch on one rank, beyond its residual sub-layer's norm and
/// add (which every per-layer block has): `forward` in all, and which of
/// it each selective recompute module runs again.
struct ElementwiseTraffic {
  double forward = 0;
  /// A part of `forward` and the modules whose recompute reruns it
  /// (core_attn: an unfused core's softmax and dropout; mlp: the MLP's
  /// activation; moe or moe_act: the experts' activation).
  struct Part {
    RecomputeModules by = 0;
    double bytes = 0;
  };
  std::array<Part, 4> recomputed{};
  /// Norms of the block that are modules of their own (an MoE layer's
  /// pre-MLP norm, MLA's input norm; a dense layer's are fused into the
  /// next linear layer): what the layernorm module reruns, each a
  /// sub-layer norm's traffic.
  int separateNorms = 0;
  /// Adds a part of `forward` that `by` reruns.
  void rerunBy(RecomputeModules by, double bytes);
};

/// What a serving engine allocates for a block beyond its weights and
/// state, in elements of the model's type on one rank: `once` (a buffer
/// every layer reuses in turn) and `perPieceToken` per token of a prefill
/// chunk's context piece (MLA's chunked context: vLLM's workspace).
struct ServingWorkspace {
  int64_t once = 0, perPieceToken = 0;
};

/// Where a block's tensor-parallel region begins and ends (Megatron-LM's
/// conjugate operators, Shoeybi et al. 2019, Section 3): a sub-layer enters
/// it at its column-parallel input (f) and leaves it after its row-parallel
/// output (g); the vocabulary-parallel embedding only leaves one (its
/// partial lookups are summed), the LM head only enters one (its logits
/// stay split, the loss is vocabulary-parallel).
enum class TpBoundaries : uint8_t { None = 0, Enter = 1, Leave = 2, Both = 3 };

/// The state of `layers` alike layers: their blocks' components in order.
struct LayerState {
  int64_t layers = 0;
  std::vector<StateComponent> components;
};

struct BlockInfo {
  BlockKind kind;
  const char *name; ///< as the op and the reports call it
  /// One per decoder layer (a sub-layer with a residual), or once per model.
  bool perLayer;
  /// The forward kernels of one instance at `layer` (-1: once per model),
  /// in execution order.
  std::vector<Kernel> (*forward)(const ModelConfig &c, const RunShape &run,
                                 int64_t layer);
  /// The parameters one rank holds of one instance under `c`'s degrees:
  /// gemmWeights of its kernels (per rank already) plus what no GEMM
  /// multiplies (norm gains, replicated; an embedding table, split as its
  /// parameters are); nullopt on overflow. At degree 1, the unsharded
  /// count (blockWeights).
  std::optional<int64_t> (*weights)(const ModelConfig &c);
  /// The parameters one token runs through, unsharded (a MoE block: k of
  /// its E experts); null: all of `weights`.
  std::optional<int64_t> (*activeWeights)(const ModelConfig &c) = nullptr;
  /// What one instance keeps per sequence on one rank under `c`'s degrees
  /// (an attention: K and V, 2 g_r d per key, capped by its window; MLA:
  /// its latent r_kv and rotary key d_r, whole on every rank); null: the
  /// block keeps nothing between steps.
  std::vector<StateComponent> (*state)(const ModelConfig &c) = nullptr;
  /// The bytes one instance keeps for its backward in one microbatch on
  /// one rank under `plan` (its input, norms, dropout masks, the linear
  /// layers' saved inputs, Korthikanti et al. 2022's terms); null: none.
  /// A fully recomputed layer keeps only its input (the memory model's).
  double (*activations)(const ModelConfig &c,
                        const ActivationPlan &plan) = nullptr;
  /// Its own elementwise traffic in a training forward (an activation
  /// function, a permutation, an unfused softmax); null: none.
  ElementwiseTraffic (*elementwise)(const ModelConfig &c) = nullptr;
  /// Its serving workspace; null: none.
  ServingWorkspace (*workspace)(const ModelConfig &c) = nullptr;
  /// The op that states it in tshape IR ("tshape.attention"), with the
  /// block op interface: what the IR builder creates for it.
  const char *opName = nullptr;
  /// Its tensor-parallel region's boundaries: the collectives it runs at
  /// tp > 1 (tpCollectives), as kernels of its kernel lists.
  TpBoundaries tp = TpBoundaries::Both;
  /// Its own rules on a model whose layers have it (checkModel asks each
  /// block its layers hold: the MLP's S1 on ffn, the MoE block's E3, MLA's
  /// LA1); null: none beyond the parameter table's.
  std::optional<RuleViolation> (*check)(const ModelConfig &c) = nullptr;
};

const BlockInfo &blockInfo(BlockKind k);
/// Every block: the built-in ones in the order of a model's data flow, then
/// the registered ones.
std::vector<BlockKind> allBlocks();
/// The block named `name`; nullopt when none is.
std::optional<BlockKind> parseBlock(std::string_view name);
/// Adds a block defined outside this library; `info.kind` is ignored.
/// Returns its kind, or the existing one of that name. Call at start-up,
/// before any use.
BlockKind registerBlock(BlockInfo info);

/// The kernels of one instance: its forward kernels and, when the run has
/// a backward, their gradients in reverse order (backwardKernels), each
/// pass with its tensor-parallel collectives.
std::vector<Kernel> blockKernels(BlockKind k, const ModelConfig &c,
                                 const RunShape &run, int64_t layer);
/// Its forward kernels only: the entering collective, the block's own
/// kernels, the leaving collective.
std::vector<Kernel> forwardKernels(BlockKind k, const ModelConfig &c,
                                   const RunShape &run, int64_t layer);
/// Its backward kernels, in order: the leaving collective's gradient, the
/// gradients of its own kernels (backwardKernels), the entering one's.
/// Empty when the run has no backward.
std::vector<Kernel> backwardKernelsOf(BlockKind k, const ModelConfig &c,
                                      const RunShape &run, int64_t layer);
/// The same from its forward kernels (forwardKernels), not computed again.
std::vector<Kernel> backwardKernelsOf(BlockKind k, const ModelConfig &c,
                                      const RunShape &run, int64_t layer,
                                      const std::vector<Kernel> &forward);
/// The tensor-parallel collectives of one instance at `boundary` (Enter or
/// Leave) in one pass, over tp ranks of the run's tokens x hidden
/// activations in the model's element type (none at tp 1):
///   enter: backward an all-reduce of the input's gradient (f);
///   leave: forward an all-reduce of the partial outputs (g);
/// under sequence parallelism (run.sequenceParallel) enter is an all-gather
/// forward and a reduce-scatter backward, leave a reduce-scatter forward
/// and an all-gather backward (Korthikanti et al. 2022, Section 4.2.2),
/// `bytes` the gathered size in both.
std::vector<Kernel> tpCollectives(BlockKind k, const ModelConfig &c,
                                  const RunShape &run, int64_t layer,
                                  TpBoundaries boundary, bool backward);
/// The parameters of one instance, unsharded (BlockInfo::weights of `c`
/// with every degree at 1); nullopt on overflow.
std::optional<int64_t> blockWeights(BlockKind k, const ModelConfig &c);
/// The parameters one token runs through (BlockInfo::activeWeights, else
/// blockWeights); nullopt on overflow.
std::optional<int64_t> blockActiveWeights(BlockKind k, const ModelConfig &c);
/// The parameters one rank holds of one instance under `c`'s degrees
/// (BlockInfo::weights of `c`); nullopt on overflow.
std::optional<int64_t> rankWeights(BlockKind k, const ModelConfig &c);
/// The weights the weight GEMMs of `kernels` multiply: the sum of their B
/// operands (batch x N x K: a grouped GEMM has one per group); nullopt on
/// overflow.
std::optional<int64_t> gemmWeights(const std::vector<Kernel> &kernels);

//===----------------------------------------------------------------------===//
// The blocks (one file each)
//===----------------------------------------------------------------------===//

/// Attention.cpp: QKV projection, the scores and values (one fused
/// attention kernel when attention.fused), the output projection; weights:
/// the projections and the norm gain.
std::vector<Kernel> attentionKernels(const ModelConfig &c, const RunShape &run,
                                     int64_t layer);
std::optional<int64_t> attentionWeights(const ModelConfig &c);
/// The attention of one layer as a kernel (fused or not, the lowering
/// carries it on its scores GEMM).
AttentionSpec attentionKernel(const ModelConfig &c, const RunShape &run,
                              int64_t layer);
/// Mlp.cpp: up (and gate, or gate_up fused) and down projections; weights:
/// the projections and the norm gain.
std::vector<Kernel> mlpKernels(const ModelConfig &c, const RunShape &run,
                               int64_t layer);
std::optional<int64_t> mlpWeights(const ModelConfig &c);
/// S1 on the dense MLP's inner size (optional in a model without one).
std::optional<RuleViolation> mlpCheck(const ModelConfig &c);
/// Moe.cpp: the router, the all-to-all dispatch and combine (ep > 1), the
/// routed experts as grouped GEMMs over the rank's E/ep experts, and the
/// shared experts; weights: all of them and the norm gain; active
/// weights: with k of the E routed experts.
std::vector<Kernel> moeKernels(const ModelConfig &c, const RunShape &run,
                               int64_t layer);
std::optional<int64_t> moeWeights(const ModelConfig &c);
/// E3: a MoE block needs its experts, top-k and expert width.
std::optional<RuleViolation> moeCheck(const ModelConfig &c);
std::optional<int64_t> moeActiveWeights(const ModelConfig &c);
/// A model of one MoE layer and nothing else, as a measured MoE kernel row
/// states it (aiconfigurator's moe rows: `tokens` tokens of width
/// `hidden`, `experts` experts of width `inner`, top-k, tensor-parallel
/// degree `tp`): one sequence of `tokens`, one head, the vocabulary tp
/// (so that V1 holds), in the model's default element type.
ModelConfig moeLayerConfig(int64_t tokens, int64_t hidden, int64_t experts,
                           int64_t topk, int64_t inner, int64_t tp);
/// The tokens of the busiest routed expert on one rank:
/// ceildiv(b*s*k, E/ep), times capacity/100 under the capacity option.
DimExpr tokensPerExpert(const ModelConfig &c, const RunShape &run);
/// Embedding.cpp: the lookup (no kernel; weights: the v/t x h table) and the
/// LM head's logits GEMM (weights: its own unless tied, and the final norm
/// gain).
std::vector<Kernel> embeddingKernels(const ModelConfig &c, const RunShape &run,
                                     int64_t layer);
std::optional<int64_t> embeddingWeights(const ModelConfig &c);
std::vector<Kernel> lmHeadKernels(const ModelConfig &c, const RunShape &run,
                                  int64_t layer);
std::optional<int64_t> lmHeadWeights(const ModelConfig &c);

/// Mla.cpp: multi-head latent attention: the query (down and up, or one)
/// and key/value (down and up) projections, the attention (query/key head
/// dim d_n+d_r, value head dim d_v), the output projection; a decode step
/// in the absorbed form (W_UK into the query, W_UV into the output, MQA
/// over the latent cache). Weights: the projections and three norm gains.
std::vector<Kernel> mlaKernels(const ModelConfig &c, const RunShape &run,
                               int64_t layer);
std::optional<int64_t> mlaWeights(const ModelConfig &c);
/// LA1: an MLA block needs its latent and head dims (the query latent is
/// optional).
std::optional<RuleViolation> mlaCheck(const ModelConfig &c);
/// The attention kernel of an MLA block (absorbed when decoding; a
/// prefill chunk over a cache: the chunk's causal attention over its own
/// tokens, the context being mlaContextAttentionKernel's).
AttentionSpec mlaAttentionKernel(const ModelConfig &c, const RunShape &run,
                                 int64_t layer);
/// Cached tokens per sequence a prefill chunk of an MLA block attends to
/// through the up-projected context: kv length - chunk when the run is a
/// prefill over a longer kv length, else 0.
int64_t mlaContextTokens(const ModelConfig &c, const RunShape &run);
/// vLLM's workspace for the up-projected context, in tokens
/// (determine_chunked_prefill_workspace_size: min(max(8 max_model_len,
/// 4 max_num_seqs block_size), 64 Ki), 64 Ki for max_model_len >= 8192).
inline constexpr int64_t kMlaContextWorkspace = 64 * 1024;
/// The most context pieces the models state (rule LA3, checkMlaContext):
/// each is a GEMM and an attention per layer, so a bound keeps the kernel
/// list, the lowering and the report finite.
inline constexpr int64_t kMlaMaxContextPieces = 1024;
/// Tokens per sequence of one full piece of the context: floor(workspace /
/// b), at least 1 (vLLM's max_context_chunk; its page-size rounding is
/// left out). The one home of the piece size.
int64_t mlaContextShare(const ModelConfig &c);
/// The context's pieces: ceil(context / mlaContextShare), as vLLM's
/// metadata builder splits it (max_context_chunk, num_chunks); 0 without
/// a context.
int64_t mlaContextPieces(const ModelConfig &c, const RunShape &run);
/// Tokens per sequence of piece `piece` (0-based): mlaContextShare but for
/// the last, which holds the rest; 0 outside [0, pieces).
int64_t mlaContextPieceLength(const ModelConfig &c, const RunShape &run,
                              int64_t piece);
/// Rule LA3: an MLA model's prefill over a cache runs its context in at
/// most kMlaMaxContextPieces pieces; nullopt when it does (or has no MLA
/// block or no context).
std::optional<RuleViolation> checkMlaContext(const ModelConfig &c,
                                             const RunShape &run);
/// Elements per token of a context piece that vLLM's up-projection holds
/// on one rank while the piece's attention runs: the kv_up output
/// a_t (d_n + d_v) and the concatenated key a_t (d_n + d_r); nullopt on
/// overflow or an invalid config.
std::optional<int64_t> mlaContextUpElements(const ModelConfig &c);
/// The chunk's attention over piece `piece` of the context (cross: not
/// causal, keys none of its own) of a prefill over a cache
/// (mlaContextTokens > 0).
AttentionSpec mlaContextAttentionKernel(const ModelConfig &c,
                                        const RunShape &run, int64_t layer,
                                        int64_t piece);
/// KV-cache elements per token and layer on one rank: r_kv + d_r.
std::optional<int64_t> mlaCacheElements(const ModelConfig &c);
/// The MLA block's serving workspace (vLLM's MLA common backend,
/// determine_chunked_prefill_workspace_size): the gathered latents
/// [64 Ki, r_kv + d_r] once, and mlaContextUpElements per piece token.
ServingWorkspace mlaWorkspace(const ModelConfig &c);
/// The MLA block's state: the latent (r_kv) and the rotary key (d_r) of
/// each key, whole on every rank.
std::vector<StateComponent> mlaState(const ModelConfig &c);
/// The attention block's state: K and V, 2 x kv heads per rank x head dim
/// per key, capped by the layer's window.
std::vector<StateComponent> attentionState(const ModelConfig &c);
/// Attention.cpp: Korthikanti's attention sub-layer, (5 + i) s b h
/// unsplit and 8 s b h split by tp, and the unfused core's 5 a s^2 b / t
/// unless recomputed (core_attn); i the linear input's bytes.
double attentionActivations(const ModelConfig &c, const ActivationPlan &plan);
/// Mla.cpp: the attention sub-layer's terms at MLA's heads, less the input
/// norm's output (i s b h) under layernorm and the up projections' Q, K
/// and V (6 s b h split by tp) under mla_up_proj.
double mlaActivations(const ModelConfig &c, const ActivationPlan &plan);
/// The attention elementwise traffic and MLA's input norm, a module of its
/// own.
ElementwiseTraffic mlaElementwise(const ModelConfig &c);
/// The unfused attention core's softmax and dropout on the a/t heads'
/// scores: (4e + 1) bytes a score, all of it rerun by core_attn.
ElementwiseTraffic attentionElementwise(const ModelConfig &c);
/// Mlp.cpp: Korthikanti's MLP sub-layer, (1 + i) s b h unsplit and
/// (8 + 4i) s b h split by tp; under the mlp module its input and dropout
/// mask alone, 3 s b h unsplit.
double mlpActivations(const ModelConfig &c, const ActivationPlan &plan);
/// The activation function: read the up (and gate) output, write the
/// down projection's input, f/t per token (rerun by mlp).
ElementwiseTraffic mlpElementwise(const ModelConfig &c);
/// Moe.cpp: the sub-layer's input and dropout mask, the pre-MLP norm's
/// output (the router's saved input), the router's fp32 logits, per
/// routed copy the permuted input, the experts' gate/up and activation
/// outputs and their output, and the shared experts' like a dense MLP's;
/// less what the plan's recompute modules (moe, moe_act, layernorm,
/// shared_experts) drop.
double moeActivations(const ModelConfig &c, const ActivationPlan &plan);
/// The experts' and shared experts' activations and the permutation, each
/// with the modules that rerun it; the pre-MLP norm, a module of its own.
ElementwiseTraffic moeElementwise(const ModelConfig &c);
/// The state of every layer of `c` on one rank: one entry per layer group
/// (layerGroups), with its blocks' components (BlockInfo::state).
std::vector<LayerState> modelState(const ModelConfig &c);
/// The cache elements one key adds on one rank over every layer of `c`
/// (modelState's per-token components); nullopt on overflow.
std::optional<int64_t> cacheElementsPerToken(const ModelConfig &c);

/// A GEMM whose sizes are the given expressions evaluated with `env` (the
/// config's bindings; a size without a value, from an invalid config, is
/// 0): how a block states a GEMM.
GemmSpec blockGemm(const Bindings &env, Role role, int64_t layer,
                   DimExpr batch, DimExpr m, DimExpr n, DimExpr k, bool transA,
                   bool transB);
/// A size as a block states it: `e` and its value with `env` (0 when it
/// has none); sets `*overflow` on int64 overflow.
Dim blockDim(const Bindings &env, const DimExpr &e, bool *overflow);

} // namespace tshape::model

#endif // TSHAPE_MODEL_BLOCKS_BLOCK_H
