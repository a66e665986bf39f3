//===- Serving.cpp - A serving workload on one engine replica -------------===//
//
// docs/serving.md states the model: the engine's memory accounting, the
// steady state of continuous batching with chunked prefill, and the step
// prices taken from estimateInference.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Serving.h"

#include "tshape/Cost/Inference.h"
#include "tshape/Model/Params.h"
#include "tshape/Model/Parallelism.h"

#include <algorithm>
#include <map>
#include <cmath>
#include <cstdio>

using namespace tshape;
using namespace tshape::cost;
using model::ModelConfig;
using model::Param;

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

struct EngineName {
  Engine engine;
  const char *name;
};
const EngineName kEngines[] = {{Engine::Vllm, "vllm"},
                               {Engine::Sglang, "sglang"},
                               {Engine::Trtllm, "trtllm"}};

/// `v` rounded up to a multiple of `m`.
int64_t roundUp(double v, int64_t m) {
  return int64_t(std::ceil(v / double(m))) * m;
}

std::string gib(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GiB", bytes / kGiB);
  return buf;
}

/// Prices the steps of one replica's rank: a decode step of `seqs`
/// sequences over `kv` keys, and the same with `prefill` prompt tokens of
/// the workload's prompts added to it (one GEMM pass over all the step's
/// tokens, each kind of attention over its own).
class StepPricer {
public:
  StepPricer(const ModelConfig &c, const model::RunShape &base,
             const target::GpuTarget &t, const InferenceOptions &o,
             int64_t isl, int64_t drafts = 0)
      : c(c), base(base), t(t), o(o), isl(isl), drafts(drafts) {}

  /// One estimate of `c` at microbatch `b`, seq `s` under `run`.
  std::optional<InferenceEstimate> estimate(model::RunShape run, int64_t b,
                                            int64_t s, std::string &err) {
    ModelConfig m = c;
    m.microbatch = b;
    model::setParam(m, Param::Microbatch, b);
    model::setParam(m, Param::Seq, s);
    run.precision = base.precision;
    run.kvCache = base.kvCache;
    return estimateInference(m, run, t, o, err);
  }

  static double sum(const InferenceEstimate &e, bool attention) {
    double us = 0;
    for (const InferenceKernel &k : e.kernels)
      if ((k.kind == model::KernelKind::Attention) == attention)
        us += double(k.count) * k.us;
    return us;
  }

  /// The step of `seqs` decoding sequences at `kv` keys and `prefill`
  /// prompt tokens on one rank; nullopt with `err`.
  std::optional<double> stepUs(int64_t seqs, int64_t kv, int64_t prefill,
                               std::string &err) {
    double us = 0;
    if (seqs > 0) {
      auto d = estimate(model::RunShape::decode(kv, drafts), seqs, isl, err);
      if (!d)
        return std::nullopt;
      if (notes.empty())
        notes = d->notes;
      // The drafts, as multi-token-prediction layers make them: each one
      // a pass of one mean layer and the LM head over the sequences.
      if (drafts > 0) {
        auto one = estimate(model::RunShape::decode(kv), seqs, isl, err);
        if (!one)
          return std::nullopt;
        double logits = 0;
        for (const InferenceKernel &k : one->kernels)
          if (k.role == model::Role::Logits)
            logits += double(k.count) * k.us;
        us += double(drafts) *
              ((one->stepUs - logits) / double(std::max<int64_t>(1, c.layers)) +
               logits);
      }
      if (prefill == 0)
        return us + d->stepUs;
      us += sum(*d, /*attention=*/true);
    }
    // The GEMMs, collectives and elementwise work of all the step's tokens
    // (as a prefill of seqs + prefill one-token sequences: no attention
    // is kept from it), and the prompt tokens' attention at a whole
    // prompt's mean cost per token.
    auto g = estimate(model::RunShape::prefill(), seqs * (1 + drafts) + prefill,
                      1, err);
    if (!g)
      return std::nullopt;
    us += sum(*g, /*attention=*/false);
    std::optional<double> attention = promptAttentionUs(prefill, err);
    if (!attention)
      return std::nullopt;
    return us + *attention;
  }

  /// The attention of `tokens` prompt tokens in one step: k = tokens / isl
  /// whole prompts as one prefill of k sequences (each kernel's fixed cost
  /// once), or a chunk of one prompt at a whole prompt's cost per token.
  std::optional<double> promptAttentionUs(int64_t tokens, std::string &err) {
    if (tokens <= 0)
      return 0.0;
    const int64_t k =
        tokens >= isl ? std::max<int64_t>(1, std::llround(double(tokens) /
                                                          double(isl)))
                      : 1;
    auto it = promptAttention.find(k);
    if (it == promptAttention.end()) {
      auto p = estimate(model::RunShape::prefill(), k, isl, err);
      if (!p)
        return std::nullopt;
      it = promptAttention.emplace(k, sum(*p, /*attention=*/true)).first;
    }
    return it->second * double(tokens) / double(k * isl);
  }

  std::vector<std::string> notes;

private:
  const ModelConfig &c;
  model::RunShape base;
  const target::GpuTarget &t;
  InferenceOptions o;
  int64_t isl, drafts;
  std::map<int64_t, double> promptAttention; ///< k prompts' attention
};

int64_t perRank(double replicaCount, int64_t dp) {
  if (replicaCount <= 0)
    return 0;
  return std::max<int64_t>(1, std::llround(replicaCount / double(dp)));
}
} // namespace

EngineRules tshape::cost::engineRules(Engine e, const target::GpuTarget &t,
                                      int64_t tpTimesPp) {
  EngineRules r;
  r.engine = e;
  r.name = engineName(e);
  const double gib = t.memoryGiB;
  switch (e) {
  case Engine::Vllm:
    // vllm-project/vllm 002f10e0: vllm/config/cache.py
    // (gpu_memory_utilization 0.92) and vllm/engine/arg_utils.py
    // get_batch_defaults (the OpenAI server's max_num_batched_tokens and
    // max_num_seqs by the device's memory).
    r.kvFraction = 0.92;
    r.fractionOf = KvFractionOf::Total;
    if (gib >= 160) {
      r.tokenBudget = 16384;
      r.maxSequences = 1024;
    } else if (gib >= 70 && t.name.find("a100") == std::string::npos) {
      r.tokenBudget = 8192;
      r.maxSequences = 1024;
    } else {
      r.tokenBudget = 2048;
      r.maxSequences = 256;
    }
    r.source = "vLLM 002f10e0 (vllm/config/cache.py, "
               "vllm/engine/arg_utils.py get_batch_defaults)";
    break;
  case Engine::Sglang: {
    // sgl-project/sglang python/sglang/srt/server_args.py
    // _handle_gpu_memory_settings: chunked_prefill_size and
    // cuda_graph_max_bs by the GPU's memory, then mem_fraction_static =
    // (memory - reserved) / memory with reserved (MiB) = 512 + 1.5 x
    // max(chunk, 2048) + 2 x cuda_graph_max_bs + tp x pp / 8 x 1024, at
    // least 10 GiB on a GPU of more than 60 GiB.
    int64_t chunk = 4096, graphs = 160;
    if (gib < 20) {
      chunk = 2048;
      graphs = 8;
    } else if (gib < 35) {
      chunk = 2048;
      graphs = tpTimesPp < 4 ? 24 : 80;
    } else if (gib < 60) {
      chunk = 4096;
      graphs = tpTimesPp < 4 ? 32 : 160;
    } else if (gib < 160) {
      chunk = 8192;
      graphs = tpTimesPp < 4 ? 256 : 512;
    } else {
      chunk = 16384;
      graphs = 512;
    }
    const double mib = gib * 1024;
    double reserved = 512 + 1.5 * double(std::max<int64_t>(chunk, 2048)) +
                      2.0 * double(graphs) + double(tpTimesPp) / 8 * 1024;
    if (gib > 60)
      reserved = std::max(reserved, 10.0 * 1024);
    r.kvFraction = mib > reserved ? std::round((mib - reserved) / mib * 1e3) / 1e3
                                  : 0.88;
    r.fractionOf = KvFractionOf::TotalStatic;
    r.tokenBudget = chunk;
    // max_running_requests follows the request pool, at most 4096 a rank.
    r.maxSequences = 4096;
    r.source = "SGLang server_args.py _handle_gpu_memory_settings "
               "(mem_fraction_static, chunked_prefill_size by GPU memory)";
    break;
  }
  case Engine::Trtllm:
    // NVIDIA/TensorRT-LLM 00043967: tensorrt_llm/llmapi/llm_args.py
    // (KvCacheConfig.free_gpu_memory_fraction 0.9, max_batch_size 2048,
    // max_num_tokens 8192).
    r.kvFraction = 0.9;
    r.fractionOf = KvFractionOf::Free;
    r.tokenBudget = 8192;
    r.maxSequences = 2048;
    r.source = "TensorRT-LLM 00043967 (tensorrt_llm/llmapi/llm_args.py)";
    break;
  }
  return r;
}

TrtllmBenchLimits tshape::cost::trtllmBenchLimits(
    const ModelConfig &c0, const target::GpuTarget &t, int64_t tp,
    std::optional<Precision> precision, std::optional<model::DType> kvCache,
    int64_t isl, int64_t osl) {
  // tensorrt_llm/bench/build/tuning.py (calc_engine_setting,
  // finetune_setting): the cache is 0.95 of the memory of the tp GPUs
  // less the weights at the quantized bytes per parameter, a token holds
  // 2 x layers x max(tp, kv heads) x head dim x the cache's bytes, and
  // the batch and token budget round up from the requests that fit.
  ModelConfig c = c0;
  c.parallel = model::Parallelism();
  double params = 0;
  for (model::BlockKind b : {model::BlockKind::Embedding,
                             model::BlockKind::LMHead})
    params += double(model::rankWeights(b, c).value_or(0));
  for (const auto &[lc, n] : model::layerGroups(c))
    for (model::BlockKind b : lc.layerBlocks)
      params += double(model::rankWeights(b, lc).value_or(0)) * double(n);
  const double weightBytes =
      precision && *precision != Precision::BF16 ? 1.0
                                                 : double(model::dtypeBytes(c.dtype));
  model::RunShape run;
  run.kvCache = kvCache;
  const double kvHeads = double(std::max<int64_t>(1, c.attention.kvHeads));
  const double perToken = cacheBytesPerToken(c, run) *
                          std::max(double(tp), kvHeads) / kvHeads;
  TrtllmBenchLimits l;
  const double cache =
      0.95 * (t.memoryGiB * kGiB * double(tp) - params * weightBytes);
  if (cache <= 0 || perToken <= 0)
    return l;
  l.cacheRequests = cache / (perToken * double(isl + osl));
  const double bs = std::min(l.cacheRequests, 4096.0);
  l.maxBatch = bs < 256    ? std::max<int64_t>(64, roundUp(bs, 32))
               : bs < 1024 ? roundUp(bs, 128)
                           : roundUp(bs, 256);
  const double tokens =
      std::min(bs * (1 + double(isl) / double(osl)), 32768.0);
  l.maxNumTokens = tokens < 4096   ? std::max<int64_t>(2048, roundUp(tokens, 256))
                   : tokens < 8192 ? roundUp(tokens, 512)
                                   : roundUp(tokens, 1024);
  return l;
}

std::optional<Engine> tshape::cost::parseEngine(const std::string &name) {
  if (name == "tensorrt-llm")
    return Engine::Trtllm;
  for (const EngineName &r : kEngines)
    if (name == r.name)
      return r.engine;
  return std::nullopt;
}

double tshape::cost::tokensPerDecodeStep(int64_t drafts, double a) {
  double tokens = 0, p = 1;
  for (int64_t i = 0; i <= drafts; ++i, p *= a)
    tokens += p;
  return tokens;
}

const char *tshape::cost::engineName(Engine e) {
  for (const EngineName &n : kEngines)
    if (n.engine == e)
      return n.name;
  return "";
}

std::string tshape::cost::engineList() {
  std::string s;
  for (const EngineName &r : kEngines)
    s += (s.empty() ? "" : ", ") + std::string(r.name);
  return s;
}

std::optional<BatchingCycle> tshape::cost::batchingCycle(
    int64_t isl, int64_t osl, double N, double budgetTokens,
    const std::function<std::optional<double>(double, double)> &stepUs,
    double tokensPerDecodeStep, int64_t verifiedPerDecode,
    double rankBudget) {
  // One cycle, in which the N requests in flight finish: N isl prompt
  // tokens, and each request's osl - 1 further tokens in (osl - 1) / E
  // decode steps (at least one) of V budget tokens each (E tokens a step,
  // V = 1 + the drafts verified), in S steps of at most T tokens. A
  // request spends its prompt's own steps, then decodes in every step
  // until it is done; the rest of its S steps it waits for the budget
  // (Little: N in flight, N finishing per cycle). The prompts arrive
  // spread over the cycle (a new request as one finishes): a step carries
  // one prompt (at most a rank's budget of it) when they are rare, their
  // mean per step when more come, never more than the decodes leave.
  BatchingCycle c;
  const double E = std::max(1.0, tokensPerDecodeStep);
  const double V = double(std::max<int64_t>(1, verifiedPerDecode));
  const double rank = rankBudget > 0 ? std::min(rankBudget, budgetTokens)
                                     : budgetTokens;
  const double decodeSteps =
      osl > 1 ? std::max(1.0, double(osl - 1) / E) : 0.0;
  const double prompt = N * double(isl);
  double S = std::max(1 + decodeSteps,
                      (prompt + N * decodeSteps * V) / budgetTokens);
  double own = 1;
  for (int i = 0; i < 6; ++i) {
    c.decodes = N * decodeSteps / S;
    const double arriving =
        std::max(std::min(double(isl), rank), prompt / S);
    c.chunk = std::max(
        1.0, std::min({budgetTokens - c.decodes * V, arriving, prompt}));
    c.prefillSteps = prompt / c.chunk;
    own = std::min(c.prefillSteps,
                   std::ceil(double(isl) / std::min(c.chunk, rank)));
    S = std::max({S, c.prefillSteps, own + decodeSteps});
  }
  c.steps = S;
  c.ownSteps = own;
  std::optional<double> dec =
      c.decodes > 0 ? stepUs(c.decodes, 0) : std::optional<double>(0.0);
  if (!dec)
    return std::nullopt;
  std::optional<double> pre = stepUs(c.decodes, c.chunk);
  if (!pre)
    return std::nullopt;
  c.decodeStepUs = *dec;
  c.prefillStepUs = *pre;
  c.cycleUs = c.prefillSteps * *pre + std::max(0.0, S - c.prefillSteps) * *dec;
  // The steps besides its own prompt's, of which the other requests'
  // chunks fill (prefillSteps - own): their mean is the time between its
  // decode steps; the first token comes after the rest of its lifetime.
  if (S > own) {
    const double others = std::max(0.0, c.prefillSteps - own);
    const double step =
        (others * *pre + std::max(0.0, S - c.prefillSteps) * *dec) / (S - own);
    c.ttftUs = c.cycleUs - decodeSteps * step;
    if (decodeSteps > 0) {
      c.tpotUs = step * decodeSteps / double(osl - 1);
      c.itlP90Us = others / (S - own) > 0.1 ? *pre : *dec;
    }
  } else {
    c.ttftUs = c.cycleUs;
  }
  c.promptUs = std::min(c.ttftUs, own * *pre);
  return c;
}

std::optional<ServingEstimate>
tshape::cost::estimateServing(const ModelConfig &c0,
                              const ServingWorkload &w,
                              const ServingConfig &cfg,
                              const target::GpuTarget &t,
                              const Cluster *cluster, std::string &error) {
  auto n = [](int64_t v) { return std::to_string(v); };
  if (w.isl > kMaxServingTokens || w.osl > kMaxServingTokens ||
      w.concurrency > kMaxServingConcurrency ||
      cfg.tokenBudget > kMaxServingTokens ||
      cfg.maxSequences > kMaxServingConcurrency ||
      cfg.plan.attentionTp > 65536 || cfg.plan.attentionDp > 65536 ||
      cfg.plan.expertEp > 65536 || cfg.plan.expertTp > 65536 ||
      cfg.plan.pp > 65536) {
    error = "a workload of at most " + n(kMaxServingTokens) +
            " prompt and output tokens (and tokens a step) and " +
            n(kMaxServingConcurrency) + " requests in flight, degrees of "
            "at most 65536 (got isl " + n(w.isl) + ", osl " + n(w.osl) +
            ", concurrency " + n(w.concurrency) + ", " + cfg.plan.str() +
            ")";
    return std::nullopt;
  }
  if (w.isl < 1 || w.osl < 1 || w.concurrency < 0) {
    error = "a workload needs input and output lengths of at least 1 "
            "token and a concurrency of at least 0 (got isl " +
            n(w.isl) + ", osl " + n(w.osl) + ", concurrency " +
            n(w.concurrency) + ")";
    return std::nullopt;
  }
  if (cfg.plan.pp > 1) {
    error = "pipeline-parallel serving (pp " + n(cfg.plan.pp) +
            ") is not modelled yet: use tp, attention dp and ep";
    return std::nullopt;
  }
  if (auto why = checkServingPlan(c0, cfg.plan)) {
    error = *why;
    return std::nullopt;
  }
  ServingEstimate est;
  est.rules = engineRules(cfg.engine, t, cfg.plan.attentionTp * cfg.plan.pp);
  // SGLang divides its chunked_prefill_size among the dp attention ranks
  // (arg_groups/parallel_hook.py): a rank's budget is the share.
  est.tokenBudget =
      cfg.tokenBudget > 0 ? cfg.tokenBudget
      : cfg.engine == Engine::Sglang
          ? std::max<int64_t>(1, est.rules.tokenBudget / cfg.plan.attentionDp)
          : est.rules.tokenBudget;
  est.maxSequences = cfg.maxSequences > 0 ? cfg.maxSequences
                                          : est.rules.maxSequences;
  // vLLM holds max_num_seqs at most max_num_batched_tokens (EngineArgs'
  // defaults; SchedulerConfig rejects more).
  if (cfg.engine == Engine::Vllm && est.maxSequences > est.tokenBudget)
    est.maxSequences = est.tokenBudget;
  est.kvFraction = cfg.kvFraction > 0 ? cfg.kvFraction
                                      : est.rules.kvFraction;
  if (est.kvFraction > 1) {
    error = "a KV-cache memory fraction is at most 1 (got " +
            std::to_string(est.kvFraction) + ")";
    return std::nullopt;
  }
  const int64_t dp = cfg.plan.attentionDp;
  est.gpus = cfg.plan.gpus();

  ModelConfig c = c0;
  c.parallel = cfg.plan.parallelism();
  model::padGrowOnlySplits(c, 64);
  model::RunShape base;
  base.precision = cfg.precision;
  base.kvCache = cfg.kvCache;
  InferenceOptions io;
  io.cluster = cluster;
  if (cfg.draftTokens < 0 || cfg.draftTokens > 16 || cfg.acceptance < 0 ||
      cfg.acceptance > 1) {
    error = "speculative decoding needs 0 to 16 draft tokens and an "
            "acceptance between 0 and 1 (got " + n(cfg.draftTokens) +
            " drafts, acceptance " + std::to_string(cfg.acceptance) + ")";
    return std::nullopt;
  }
  StepPricer price(c, base, t, io, w.isl, cfg.draftTokens);

  // Memory per GPU as the engine accounts it: the weights and one
  // request's cache at its full length (a decode step of one sequence
  // over isl + osl keys), the activations of a step of the token budget.
  const int64_t full = w.isl + w.osl;
  auto one = price.estimate(model::RunShape::decode(full), 1, w.isl, error);
  if (!one)
    return std::nullopt;
  auto budget = price.estimate(model::RunShape::prefill(), est.tokenBudget,
                               1, error);
  if (!budget)
    return std::nullopt;
  ServingMemory &m = est.memory;
  m.capacity = t.memoryGiB * kGiB;
  m.weights = one->memory.weights;
  m.activations = budget->memory.activations + budget->memory.workspace;
  m.perSequence = one->memory.cachePerSequence;
  if (m.capacity <= 0) {
    error = t.name + " states no memory size (memory_gib): a serving "
            "estimate needs it";
    return std::nullopt;
  }
  switch (est.rules.fractionOf) {
  case KvFractionOf::Total:
    m.kvCache = est.kvFraction * m.capacity - m.weights - m.activations;
    break;
  case KvFractionOf::Free:
    m.kvCache = est.kvFraction * (m.capacity - m.weights - m.activations);
    break;
  case KvFractionOf::TotalStatic:
    m.kvCache = est.kvFraction * m.capacity - m.weights;
    break;
  }
  if (m.perSequence > 0 && m.kvCache > 0)
    m.cacheRequests =
        dp * int64_t(std::floor(m.kvCache / m.perSequence));
  if (m.cacheRequests < 1) {
    error = "does not fit on " + t.name + " (" + gib(m.capacity) +
            "): the weights take " + gib(m.weights) + " per GPU and the "
            "activations of a " + n(est.tokenBudget) + "-token step " +
            gib(m.activations) + ", leaving " +
            gib(std::max(0.0, m.kvCache)) + " of cache under " +
            est.rules.name + "'s memory fraction " +
            std::to_string(est.kvFraction).substr(0, 4) +
            ", less than one request of " + n(full) + " tokens needs (" +
            gib(m.perSequence) + "): use more GPUs (tp, or ep for the "
            "experts), a smaller precision, or shorter requests";
    return std::nullopt;
  }

  // The requests in flight: the workload's, at most what the cache holds
  // and the engine admits.
  const int64_t admitted =
      est.maxSequences > 0 ? std::min(m.cacheRequests, dp * est.maxSequences)
                           : m.cacheRequests;
  if (w.concurrency == 0) {
    est.concurrency = admitted;
    est.memoryBound = admitted == m.cacheRequests;
  } else if (w.concurrency > admitted) {
    est.concurrency = admitted;
    est.memoryBound = admitted == m.cacheRequests;
    est.notes.push_back(
        n(w.concurrency) + " requests asked, " + n(admitted) + " run at "
        "once (" + (est.memoryBound ? "what the KV cache holds"
                                    : "the engine's max sequences") +
        "); the rest wait");
  } else {
    est.concurrency = w.concurrency;
  }

  const double N = double(est.concurrency);
  const int64_t kv = w.isl + w.osl / 2;
  est.tokensPerDecodeStep = tokensPerDecodeStep(cfg.draftTokens, cfg.acceptance);
  std::optional<BatchingCycle> cyc = batchingCycle(
      w.isl, w.osl, N, double(est.tokenBudget * dp),
      [&](double decodes, double prompt) {
        // The decodes spread over the dp ranks; a prompt stays on one rank,
        // which carries the step's chunk up to its own budget, and the
        // others wait for it at the experts' all-to-all.
        const double busiest =
            std::min(prompt, double(est.tokenBudget));
        return price.stepUs(perRank(decodes, dp), kv,
                            prompt > 0 ? std::max<int64_t>(
                                             1, std::llround(busiest))
                                       : 0,
                            error);
      },
      est.tokensPerDecodeStep, 1 + cfg.draftTokens,
      double(est.tokenBudget));
  if (!cyc)
    return std::nullopt;
  est.steps = cyc->steps;
  est.prefillSteps = cyc->prefillSteps;
  est.decodeStep = {cyc->decodes, 0, cyc->decodeStepUs};
  est.prefillStep = {cyc->decodes, cyc->chunk, cyc->prefillStepUs};
  est.cycleUs = cyc->cycleUs;
  est.ttftMs = cyc->ttftUs / 1e3;
  est.promptMs = cyc->promptUs / 1e3;
  est.tpotMs = cyc->tpotUs / 1e3;
  est.itlP90Ms = cyc->itlP90Us / 1e3;
  if (est.tpotMs > 0)
    est.outputTokensPerSecondPerUser = 1e3 / est.tpotMs;
  est.outputTokensPerSecond = N * double(w.osl) * 1e6 / est.cycleUs;
  est.outputTokensPerSecondPerGpu =
      est.outputTokensPerSecond / double(est.gpus);
  est.requestsPerSecond = N * 1e6 / est.cycleUs;
  for (const std::string &note : price.notes)
    est.notes.push_back(note);
  if (cfg.draftTokens > 0 && c.arch.mtpLayers == 0)
    est.notes.push_back(c.name + " has no multi-token-prediction layers "
                        "(num_nextn_predict_layers): its drafts need a draft "
                        "model, priced here as if they were MTP layers");
  if (cfg.draftTokens > 0)
  {
    char buf[96];
    std::snprintf(buf, sizeof buf,
                  "%lld draft tokens at acceptance %.2f: %.2f tokens a "
                  "decode step",
                  (long long)cfg.draftTokens, cfg.acceptance,
                  est.tokensPerDecodeStep);
    est.notes.push_back(std::string(buf) +
                        "; each draft priced as one mean layer and the LM "
                        "head (multi-token prediction)");
  }
  if (model::hasBlock(c, model::BlockKind::Mla))
    est.notes.push_back("MLA: a mixed step prices its decode tokens' "
                        "projections as the prompt's (unabsorbed)");
  return est;
}

std::optional<RateEstimate> tshape::cost::estimateAtRate(
    const ModelConfig &c, const ServingWorkload &w0, const ServingConfig &cfg,
    const target::GpuTarget &t, const Cluster *cluster, double rate,
    std::string &error) {
  if (!(rate > 0) || !(rate <= kMaxServingRate)) {
    error = "a request rate must be positive and at most " +
            std::to_string(int64_t(kMaxServingRate)) + " requests/s (got " +
            std::to_string(rate) + ")";
    return std::nullopt;
  }
  ServingWorkload w = w0;
  w.concurrency = 0;
  std::optional<ServingEstimate> most =
      estimateServing(c, w, cfg, t, cluster, error);
  if (!most)
    return std::nullopt;
  RateEstimate r;
  r.rate = rate;
  r.replicas = most->requestsPerSecond > 0
                   ? std::max<int64_t>(
                         1, int64_t(std::ceil(rate / most->requestsPerSecond -
                                              1e-9)))
                   : 1;
  r.gpus = r.replicas * most->gpus;
  const double share = rate / double(r.replicas);
  // The fewest in flight whose requests/s reach the share: throughput
  // grows with the requests in flight, so bisect between 1 and the most.
  int64_t lo = 1, hi = most->concurrency;
  std::optional<ServingEstimate> best = most;
  while (lo < hi) {
    const int64_t mid = lo + (hi - lo) / 2;
    w.concurrency = mid;
    std::optional<ServingEstimate> e =
        estimateServing(c, w, cfg, t, cluster, error);
    if (!e)
      return std::nullopt;
    if (e->requestsPerSecond >= share) {
      hi = mid;
      best = e;
    } else {
      lo = mid + 1;
    }
  }
  if (best->concurrency != lo) {
    w.concurrency = lo;
    best = estimateServing(c, w, cfg, t, cluster, error);
    if (!best)
      return std::nullopt;
  }
  r.perReplica = *best;
  return r;
}

double tshape::cost::costPerMillionTokens(double dollarsPerGpuHour,
                                          double tokensPerSecondPerGpu) {
  if (dollarsPerGpuHour <= 0 || tokensPerSecondPerGpu <= 0)
    return 0;
  return dollarsPerGpuHour / (tokensPerSecondPerGpu * 3600.0) * 1e6;
}
