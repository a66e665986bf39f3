//===- Mla.cpp - Multi-head latent attention: kernels and weights ---------===//
//
// DeepSeek-V2/V3's multi-head latent attention (MLA) on one
// tensor-parallel rank, as Megatron-LM lays it out
// (megatron/core/transformer/multi_latent_attention.py): the heads a are
// split by t, the down projections to the latents are duplicated on every
// rank (TELinear, parallel_mode 'duplicated'), the up projections are
// column-parallel over the heads. With T = b*s tokens, a_t = a/t, the
// per-head dims d_n (no rotary), d_r (rotary), d_v, and the ranks r_q, r_kv:
//  - queries: q_down (T x h).(h x r_q) then q_up (T x r_q).(r_q x a_t(d_n+d_r)),
//    or, without a query latent (r_q absent), q (T x h).(h x a_t(d_n+d_r));
//  - kv_down (T x h).(h x r_kv+d_r): the latent and the rotary key, which
//    every head shares;
//  - kv_up (T x r_kv).(r_kv x a_t(d_n+d_v)): each head's key and value;
//  - attention over a_t heads (as many key/value heads), query/key head
//    dim d_n+d_r (192 for DeepSeek-V3) and value head dim d_v;
//  - out (T x a_t d_v).(a_t d_v x h).
// A decode step runs the absorbed form (DeepSeek-V2 paper, section 2.1.2;
// FlashMLA; vLLM and SGLang): W_UK is absorbed into the query, W_UV into
// the output, and attention reads the latent cache directly, one key/value
// head of dim r_kv+d_r (576) shared by the a_t query heads, values the
// first r_kv of it: q_absorb a_t x (T x d_n).(d_n x r_kv), the attention,
// out_absorb a_t x (T x r_kv).(r_kv x d_v). The cache holds r_kv+d_r
// elements per token and layer on every rank (mlaCacheElements).
// A prefill chunk of q tokens over C cached ones runs as vLLM's MLA common
// backend does (v1/attention/backends/mla/common.py, "Chunked Prefill";
// _forward_prefill, _compute_prefill_context): kv_up of the chunk's own
// latents and its causal attention over them; the cached latents through
// kv_up too (mla_context_up, (b C x r_kv).(r_kv x a_t(d_n+d_v))), the
// chunk's queries over them (mla_context_attention: not causal), and the
// two partial outputs merged by their log-sum-exp (mla_merge,
// merge_attn_states; once per context piece, the context being split into
// pieces of floor(64 Ki / b) tokens per sequence by vLLM's workspace, the
// up-projection and the attention stated per piece as vLLM launches them).
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>

using namespace tshape::model;

namespace {
using E = DimExpr;
E P(Param p) { return E::param(p); }
} // namespace

AttentionSpec tshape::model::mlaAttentionKernel(const ModelConfig &c,
                                                const RunShape &run,
                                                int64_t layer) {
  AttentionSpec a;
  a.layer = layer;
  a.env = bindings(c);
  a.causal = c.attention.causal;
  bool *o = &a.overflow;
  const E heads = perRank(Param::Heads);
  a.batch = blockDim(a.env, P(Param::Microbatch), o);
  a.heads = blockDim(a.env, heads, o);
  a.queryLen = blockDim(a.env, run.queries(), o);
  a.kvLen = blockDim(a.env, run.keys(), o);
  a.window = blockDim(a.env, E::constant(0), o);
  a.cacheDType = run.kvCache;
  if (run.phase == Phase::Decode) {
    // Absorbed: MQA over the latent cache.
    a.kvHeads = blockDim(a.env, E::constant(1), o);
    a.headDim = blockDim(a.env, P(Param::KvLoraRank) + P(Param::QkRopeDim), o);
    a.valueHeadDim = blockDim(a.env, P(Param::KvLoraRank), o);
    a.grouped = true;
    a.valuesInKeys = true;
  } else {
    a.kvHeads = a.heads;
    a.headDim = blockDim(a.env, P(Param::QkNopeDim) + P(Param::QkRopeDim), o);
    a.valueHeadDim = blockDim(a.env, P(Param::VHeadDim), o);
    // Over a cache, the chunk attends to its own tokens here; the context
    // is mlaContextAttentionKernel's.
    if (mlaContextTokens(c, run) > 0)
      a.kvLen = a.queryLen;
  }
  return a;
}

int64_t tshape::model::mlaContextTokens(const ModelConfig &c,
                                        const RunShape &run) {
  if (run.phase != Phase::Prefill || run.kvLength <= 0)
    return 0;
  return std::max<int64_t>(0, run.kvLength - c.seq);
}

int64_t tshape::model::mlaContextShare(const ModelConfig &c) {
  // vLLM gives each sequence with a context an equal share of the
  // workspace (max_context_chunk = workspace // prefills, rounded down to
  // the page size, which is left out here), at least one token.
  return std::max<int64_t>(
      1, kMlaContextWorkspace / std::max<int64_t>(1, c.microbatch));
}

int64_t tshape::model::mlaContextPieces(const ModelConfig &c,
                                        const RunShape &run) {
  const int64_t context = mlaContextTokens(c, run);
  if (context <= 0)
    return 0;
  const int64_t share = mlaContextShare(c);
  return (context + share - 1) / share;
}

int64_t tshape::model::mlaContextPieceLength(const ModelConfig &c,
                                             const RunShape &run,
                                             int64_t piece) {
  const int64_t context = mlaContextTokens(c, run),
                share = mlaContextShare(c);
  if (piece < 0 || piece >= mlaContextPieces(c, run))
    return 0;
  // vLLM's chunk_ends = min(context_lens, chunk_starts + max_context_chunk).
  return std::min(share, context - piece * share);
}

std::optional<RuleViolation>
tshape::model::checkMlaContext(const ModelConfig &c, const RunShape &run) {
  if (!hasBlock(c, BlockKind::Mla))
    return std::nullopt;
  const int64_t pieces = mlaContextPieces(c, run);
  if (pieces <= kMlaMaxContextPieces)
    return std::nullopt;
  const int64_t share = mlaContextShare(c), context = mlaContextTokens(c, run);
  // The batch whose share runs this context in kMlaMaxContextPieces pieces:
  // a share of ceil(C / max) tokens, floor(workspace / share) sequences.
  const int64_t need =
      (context + kMlaMaxContextPieces - 1) / kMlaMaxContextPieces;
  const int64_t batch = kMlaContextWorkspace / need;
  std::string fix = "lower the context to at most " +
                    std::to_string(kMlaMaxContextPieces * share) +
                    " cached tokens per sequence";
  if (batch >= 1)
    fix += " or the batch to at most " + std::to_string(batch);
  return RuleViolation{
      "LA3",
      "an MLA prefill chunk of " + std::to_string(c.microbatch) +
          " sequences over " + std::to_string(context) +
          " cached tokens each runs its context in " + std::to_string(pieces) +
          " pieces of vLLM's " + std::to_string(kMlaContextWorkspace) +
          "-token workspace (" + std::to_string(share) +
          " tokens per sequence each); at most " +
          std::to_string(kMlaMaxContextPieces) + " are modelled: " + fix};
}

std::optional<int64_t>
tshape::model::mlaContextUpElements(const ModelConfig &c) {
  // _compute_prefill_context, per token of a piece: kv_nope =
  // kv_b_proj(kv_c_normed), a_t (d_n + d_v) (k_nope and v are views of
  // it), and k = cat(k_nope, k_pe expanded to the heads), a_t (d_n + d_r),
  // both alive while the piece's attention runs.
  const std::optional<int64_t> heads =
      perRank(Param::Heads).eval(bindings(c));
  if (!heads)
    return std::nullopt;
  const std::optional<int64_t> perHead = checkedAdd(
      checkedAdd(2 * int64_t(c.mla.qkNopeDim), c.mla.vHeadDim),
      c.mla.qkRopeDim);
  return checkedMul(*heads, perHead);
}

AttentionSpec tshape::model::mlaContextAttentionKernel(const ModelConfig &c,
                                                       const RunShape &run,
                                                       int64_t layer,
                                                       int64_t piece) {
  AttentionSpec a = mlaAttentionKernel(c, run, layer);
  a.role = Role::MlaContextAttention;
  a.kvLen = blockDim(a.env, E::constant(mlaContextPieceLength(c, run, piece)),
                     &a.overflow);
  a.causal = false;
  a.cross = true;
  return a;
}

std::vector<Kernel> tshape::model::mlaKernels(const ModelConfig &c,
                                              const RunShape &run,
                                              int64_t layer) {
  AttentionSpec a = mlaAttentionKernel(c, run, layer);
  const Bindings &env = a.env;
  const E tokens = run.tokens(), hidden = P(Param::Hidden);
  const E heads = perRank(Param::Heads);
  const E nope = P(Param::QkNopeDim), rope = P(Param::QkRopeDim),
          v = P(Param::VHeadDim), kvRank = P(Param::KvLoraRank);
  const bool decode = run.phase == Phase::Decode;
  std::vector<Kernel> out;
  auto gemm = [&](Role r, E batch, E n, E k, bool transB = true) {
    out.push_back(
        blockGemm(env, r, layer, batch, tokens, n, k, false, transB));
  };
  if (c.mla.qLoraRank > 0) {
    gemm(Role::MlaQDown, E(), P(Param::QLoraRank), hidden);
    gemm(Role::MlaQUp, E(), heads * (nope + rope), P(Param::QLoraRank));
  } else {
    gemm(Role::MlaQ, E(), heads * (nope + rope), hidden);
  }
  gemm(Role::MlaKvDown, E(), kvRank + rope, hidden);
  if (decode) {
    // W_UK [d_n, r_kv] of each head (rows of kv_up's weight) as B [K, N].
    gemm(Role::MlaQAbsorb, heads, kvRank, nope, /*transB=*/false);
    out.push_back(a);
    gemm(Role::MlaOutAbsorb, heads, v, kvRank);
  } else {
    auto attend = [&](const AttentionSpec &k) {
      if (c.attention.fused)
        out.push_back(k);
      else
        for (GemmSpec &g : k.gemms())
          out.push_back(std::move(g));
    };
    gemm(Role::MlaKvUp, E(), heads * (nope + v), kvRank);
    attend(a);
    if (const int64_t pieces = mlaContextPieces(c, run); pieces > 0) {
      // Per piece of the context (vLLM's loop in _compute_prefill_context,
      // one launch each): its b sequences' cached latents through kv_up,
      // M = b x the piece's tokens per sequence (floor(64 Ki / b), the
      // last piece the rest), and the chunk's queries over them; then the
      // merges, one per piece (vLLM merges each piece after the first into
      // the running output, then the context's into the chunk's own).
      // At most kMlaMaxContextPieces: the callers check rule LA3
      // (checkMlaContext) first, so the bound only keeps the list finite.
      const int64_t stated = std::min(pieces, kMlaMaxContextPieces);
      for (int64_t i = 0; i < stated; ++i) {
        out.push_back(
            blockGemm(env, Role::MlaContextUp, layer, E(),
                      P(Param::Microbatch) *
                          E::constant(mlaContextPieceLength(c, run, i)),
                      heads * (nope + v), kvRank, false, true));
        attend(mlaContextAttentionKernel(c, run, layer, i));
      }
      ElementwiseSpec merge;
      merge.role = Role::MlaMerge;
      merge.layer = layer;
      merge.env = env;
      merge.rows = blockDim(env, tokens * heads, &merge.overflow);
      merge.width = blockDim(env, v, &merge.overflow);
      merge.count = stated;
      // Each merge reads two outputs and writes one ([rows, d_v] in the
      // model's type), reads two fp32 LSEs per row, and writes the merged
      // LSE but for the last (merge_attn_states' output_lse).
      merge.tensors = 3;
      merge.rowExtraBytes =
          8 + 4.0 * double(merge.count - 1) / double(merge.count);
      out.push_back(merge);
    }
  }
  gemm(Role::AttnOut, E(), hidden, heads * v);
  return out;
}

std::optional<int64_t> tshape::model::mlaWeights(const ModelConfig &c) {
  // The projections (a training step's: kv_up holds W_UK and W_UV), the
  // pre-norm's gain and the latents' norm gains (r_q, r_kv).
  std::optional<int64_t> w =
      checkedAdd(gemmWeights(mlaKernels(c, RunShape(), 0)), c.hidden);
  return checkedAdd(checkedAdd(w, c.mla.qLoraRank), c.mla.kvLoraRank);
}

std::optional<int64_t> tshape::model::mlaCacheElements(const ModelConfig &c) {
  // The latent and the rotary key of each token, whole on every rank (the
  // absorbed decode's one key/value head is not split by t).
  return checkedAdd(c.mla.kvLoraRank, c.mla.qkRopeDim);
}

std::vector<StateComponent> tshape::model::mlaState(const ModelConfig &c) {
  // The latent and the rotary key of each key (mlaCacheElements), whole on
  // every rank: the absorbed decode's one key/value head is not split.
  StateComponent latent, rope;
  latent.name = "latent";
  latent.factors = {{"kv_lora_rank", c.mla.kvLoraRank}};
  latent.wholeOnEveryRank = true;
  latent.parameter = Param::KvLoraRank;
  rope.name = "rotary key";
  rope.factors = {{"qk_rope_head_dim", c.mla.qkRopeDim}};
  rope.wholeOnEveryRank = true;
  rope.parameter = Param::QkRopeDim;
  return {latent, rope};
}

ServingWorkspace tshape::model::mlaWorkspace(const ModelConfig &c) {
  // determine_chunked_prefill_workspace_size's buffer: [workspace,
  // r_kv + d_r] in the model's dtype (the cache dequantized into it), one
  // buffer that every MLA layer reuses; and a piece's up-projected
  // context per token.
  ServingWorkspace w;
  w.once = checkedMul(kMlaContextWorkspace, mlaCacheElements(c)).value_or(0);
  w.perPieceToken = mlaContextUpElements(c).value_or(0);
  return w;
}

std::optional<RuleViolation> tshape::model::mlaCheck(const ModelConfig &c) {
  for (Param p : {Param::KvLoraRank, Param::QkNopeDim, Param::QkRopeDim,
                  Param::VHeadDim})
    if (getParam(c, p) <= 0)
      return RuleViolation{
          "LA1", std::string("an mla block needs kv_lora_rank, "
                             "qk_nope_head_dim, qk_rope_head_dim and "
                             "v_head_dim; ") +
                     paramName(p) + " is " + std::to_string(getParam(c, p)) +
                     ", give it a positive value"};
  return std::nullopt;
}

double tshape::model::mlaActivations(const ModelConfig &c,
                                     const ActivationPlan &plan) {
  // The attention sub-layer's terms at MLA's heads (attentionActivations).
  // MLA's input norm is a module of its own (gpt_layer_specs.py:295, the
  // down projections are plain linear layers): the layernorm module
  // discards its output, the down projections' saved input (i s b h,
  // unsplit by tp). mla_up_proj discards the up projections' and RoPE's
  // outputs, the core's Q, K and V (6 s b h of the 8 split by tp) and
  // recomputes them from the latents.
  const TrainingSizes z = trainingSizes(c);
  double bytes = attentionActivations(c, plan);
  if (plan.recomputes(RecomputeModule::LayerNorm))
    bytes -= z.subLayerBytes(plan.linearInputBytes, 0, plan.sequenceParallel);
  if (plan.recomputes(RecomputeModule::MlaUpProj))
    bytes -= z.subLayerBytes(0, 6, plan.sequenceParallel);
  return bytes;
}

ElementwiseTraffic tshape::model::mlaElementwise(const ModelConfig &c) {
  ElementwiseTraffic out = attentionElementwise(c);
  out.separateNorms = 1;
  return out;
}
