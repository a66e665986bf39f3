//===- Inference.cpp - One prefill or decode step: time, memory, shares ---===//
//
// docs/inference.md states the formulas; each is commented where it is
// computed.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Inference.h"
#include "tshape/Cost/Memory.h"
#include "tshape/Cost/MoeLayer.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::cost;
using model::Param;

namespace {
/// Splits a priced kernel's time into the categories of TimeShares, from
/// what every kind's estimate states (its fixed cost, its bound, its bytes
/// by kind).
TimeShares sharesOf(const InferenceKernel &k, const KernelEstimate &e) {
  TimeShares s;
  if (e.communication) {
    s.communicationUs = k.us;
    return s;
  }
  s.launchUs = std::min(k.us, e.fixedUs);
  const double work = k.us - s.launchUs;
  if (!e.memoryBound) {
    s.computeUs = work;
    return s;
  }
  // Memory-bound: the time of each kind of byte in proportion.
  const double bytes = std::max(k.bytes, 1.0);
  s.weightsUs = work * k.weightBytes / bytes;
  s.cacheUs = work * k.cacheBytes / bytes;
  s.activationsUs = work - s.weightsUs - s.cacheUs;
  return s;
}

void add(TimeShares &to, const TimeShares &s, double times) {
  to.weightsUs += times * s.weightsUs;
  to.cacheUs += times * s.cacheUs;
  to.activationsUs += times * s.activationsUs;
  to.computeUs += times * s.computeUs;
  to.communicationUs += times * s.communicationUs;
  to.launchUs += times * s.launchUs;
}

/// One kernel of the step priced: its sizes, bytes by kind, regime.
InferenceKernel priceKernel(const model::Kernel &kernel, int64_t count,
                            const model::ModelConfig &c,
                            const target::GpuTarget &t, const Cluster *cluster,
                            const model::RunShape &run,
                            std::vector<std::string> &notes) {
  InferenceKernel k;
  k.name = kernel.name();
  k.kind = kernel.kind();
  k.role = kernel.role();
  k.count = count;
  // A collective over more ranks than a node holds runs on the network
  // (only such a kernel is copied).
  std::optional<model::Kernel> across;
  if (const model::CollectiveSpec *col = kernel.collective();
      col && cluster && col->ranks.value > cluster->gpusPerNode) {
    model::CollectiveSpec net = *col;
    net.tier = model::Tier::Network;
    across = model::Kernel(std::move(net));
  }
  // The run's precision prices weight GEMMs as FP8 linear layers, and a
  // grouped expert GEMM over the experts that get a token.
  const KernelEstimate e =
      predictKernel(across ? *across : kernel, c.dtype, t, cluster, &run);
  k.supported = e.supported;
  k.unsupported = e.unsupported;
  k.us = e.supported ? e.predictedUs : 0;
  k.flops = e.flops;
  const std::array<int64_t, 4> columns = kernel.columns();
  k.batch = columns[0];
  k.m = columns[1];
  k.n = columns[2];
  k.k = columns[3];
  k.bytes = e.bytes;
  k.weightBytes = e.weightBytes;
  k.cacheBytes = e.cacheBytes;
  k.ridge = e.ridge;
  if (k.bytes > 0)
    k.intensity = k.flops / k.bytes;
  if (!k.supported) {
    notes.push_back(k.name + " not priced: " + k.unsupported);
    k.regime = "unpriced";
    return k;
  }
  k.shares = sharesOf(k, e);
  if (e.communication)
    k.regime = "communication";
  else if (k.shares.launchUs >= k.us - k.shares.launchUs)
    k.regime = "launch";
  else
    k.regime = k.shares.computeUs > 0 ? "compute" : "memory";
  return k;
}

/// What an MoE layer costs beyond its GEMMs, from the whole-layer model
/// the MoE timings calibrate (estimateMoeMemory, docs/cost-model.md): the
/// permutation and gated activation's bytes at moe_memory_efficiency, and
/// the fused layer's fixed cost (routing, alignment, launches). Its GEMMs
/// are the block's own kernels, priced beside it.
InferenceKernel moeLayerRest(const model::ModelConfig &c,
                             const model::RunShape &run,
                             const target::GpuTarget &t, int64_t count,
                             std::vector<std::string> &notes) {
  InferenceKernel k;
  k.name = "moe_permute";
  k.kind = model::KernelKind::Elementwise;
  k.count = count;
  const MoeLayerEstimate m = estimateMoeMemory(c, run, t);
  if (!m.supported) {
    k.supported = false;
    k.unsupported = m.unsupported;
    k.regime = "unpriced";
    notes.push_back(k.name + " not priced: " + k.unsupported);
    return k;
  }
  k.m = run.tokens().eval(model::bindings(c)).value_or(0);
  k.n = c.hidden;
  k.bytes = m.memoryBytes;
  k.us = m.predictedUs;
  k.shares.activationsUs = m.memoryUs;
  k.shares.launchUs = t.moeOverheadUs;
  k.regime = t.moeOverheadUs >= m.memoryUs ? "launch" : "memory";
  return k;
}

/// The activations one rank holds for `tokens` tokens (b x q): the
/// residual stream and its normed copy (2h), and the largest weight GEMM's
/// input and output (N + K of the widest: the gate/up or the logits).
double activationBytes(const std::vector<model::Kernel> &kernels,
                       const model::ModelConfig &c, double tokensPerSeqM) {
  int64_t widest = 0;
  for (const model::Kernel &k : kernels)
    if (const model::GemmSpec *g = k.gemm();
        g && model::roleInfo(g->role).weight)
      widest = std::max(widest, g->n.value + g->k.value);
  return tokensPerSeqM * double(2 * c.hidden + widest) *
         double(model::dtypeBytes(c.dtype));
}

/// The blocks' serving workspace (BlockInfo::workspace; MLA's chunked
/// context, vLLM's MLA common backend): `gather` bytes allocated once,
/// and `perToken` bytes per token of a piece of the up-projected context;
/// the largest over the layers (they run one after another and reuse one
/// buffer); zeros when no block has one.
struct Workspace {
  double gather = 0, perToken = 0;
};
Workspace servingWorkspace(const model::ModelConfig &c) {
  Workspace w;
  const double eb = double(model::dtypeBytes(c.dtype));
  for (const auto &[lc, n] : model::layerGroups(c))
    for (model::BlockKind k : lc.layerBlocks)
      if (auto f = model::blockInfo(k).workspace) {
        const model::ServingWorkspace ws = f(lc);
        w.gather = std::max(w.gather, double(ws.once) * eb);
        w.perToken = std::max(w.perToken, double(ws.perPieceToken) * eb);
      }
  return w;
}
} // namespace

double tshape::cost::stateElementBytes(const model::StateComponent &s,
                                       const model::ModelConfig &c,
                                       const model::RunShape &run) {
  return double(
      model::dtypeBytes(s.dtype.value_or(run.kvCache.value_or(c.dtype))));
}

double tshape::cost::cacheBytesPerToken(const model::ModelConfig &c,
                                        const model::RunShape &run) {
  // The elements each layer's blocks cache per key on one rank (an
  // attention: 2 (K and V) x kv heads per rank x head dim; MLA: its latent
  // and rotary key, r_kv + d_r), x their element bytes, over the layers.
  double bytes = 0;
  for (const model::LayerState &g : model::modelState(c))
    for (const model::StateComponent &s : g.components)
      if (s.perToken)
        bytes += double(g.layers) * double(s.elements().value_or(0)) *
                 stateElementBytes(s, c, run);
  return bytes;
}

double tshape::cost::cacheBytesPerSequence(const model::ModelConfig &c,
                                           const model::RunShape &run,
                                           int64_t keys) {
  double bytes = 0;
  for (const model::LayerState &g : model::modelState(c))
    for (const model::StateComponent &s : g.components)
      bytes += double(g.layers) *
               double(s.held(keys, run.draft).value_or(0)) *
               stateElementBytes(s, c, run);
  return bytes;
}

std::string tshape::cost::stateFormula(const model::ModelConfig &c,
                                       const model::RunShape &run,
                                       bool perToken) {
  // One term per distinct layer state, in stack order: "L layers x
  // (a + b) x B bytes" when its components share an element size, else
  // each with its own bytes.
  auto bytesText = [](double b) {
    return std::to_string(int64_t(b)) + (b == 1 ? " byte" : " bytes");
  };
  std::vector<std::pair<std::string, int64_t>> terms;
  for (const model::LayerState &g : model::modelState(c)) {
    std::vector<const model::StateComponent *> parts;
    for (const model::StateComponent &s : g.components)
      if (s.perToken == perToken)
        parts.push_back(&s);
    if (parts.empty())
      continue;
    bool oneSize = true;
    for (const model::StateComponent *s : parts)
      oneSize &= stateElementBytes(*s, c, run) ==
                 stateElementBytes(*parts.front(), c, run);
    std::string text;
    for (const model::StateComponent *s : parts)
      text += (text.empty() ? "" : " + ") + s->formula() +
              (oneSize ? "" : " x " + bytesText(stateElementBytes(*s, c, run)));
    if (parts.size() > 1)
      text = "(" + text + ")";
    if (oneSize)
      text += " x " + bytesText(stateElementBytes(*parts.front(), c, run));
    for (const model::StateComponent *s : parts)
      if (s->window > 0) {
        text += ", the last " + std::to_string(s->window) + " keys";
        break;
      }
    auto it = std::find_if(terms.begin(), terms.end(),
                           [&](const auto &t) { return t.first == text; });
    if (it == terms.end())
      terms.push_back({text, g.layers});
    else
      it->second += g.layers;
  }
  std::string out;
  for (const auto &[text, layers] : terms)
    out += (out.empty() ? "" : " + ") + std::to_string(layers) +
           (layers == 1 ? " layer x " : " layers x ") + text;
  return out;
}

std::optional<InferenceEstimate>
tshape::cost::estimateInference(const model::ModelConfig &c,
                                const model::RunShape &run,
                                const target::GpuTarget &t,
                                const InferenceOptions &o, std::string &error) {
  if (run.backward()) {
    error = "an inference estimate is of a prefill or a decode step, not " +
            model::str(run) + " (use phase=prefill or phase=decode)";
    return std::nullopt;
  }
  for (auto v : {model::checkModel(c), model::checkMlaContext(c, run)})
    if (v) {
      error = "rule " + v->rule + ": " + v->message;
      return std::nullopt;
    }
  if (run.precision && !t.supports(*run.precision)) {
    error = std::string("precision ") + precisionName(*run.precision) +
            " is not supported on " + t.name + " (it supports " +
            t.precisionList() +
            "): use one of those, or a target that "
            "has it";
    return std::nullopt;
  }
  InferenceEstimate est;
  est.run = run;
  est.sequences = c.microbatch;
  const model::Bindings env = model::bindings(c);
  est.queries = run.queries().eval(env).value_or(0);
  est.keys = run.keys().eval(env).value_or(0);
  est.tp = model::getParam(c, Param::Tp);
  est.cacheDType = run.kvCache.value_or(c.dtype);
  const double eb = double(model::dtypeBytes(c.dtype));
  const double tokens = double(est.sequences) * double(est.queries);

  // Collectives (tp's all-reduces, ep's all-to-alls) run on a cluster.
  const bool collectives = est.tp > 1 || model::getParam(c, Param::Ep) > 1;
  const Cluster *cluster = o.cluster;
  if (!cluster && collectives)
    cluster = defaultClusterForTarget(t.name);
  if (cluster)
    est.cluster = cluster->name;

  // The kernels: one layer of each distinct kind (layerGroups: one for a
  // uniform stack; DeepSeek-V3's 3 dense and 58 MoE layers two) times its
  // count, then the once-per-model ones (the logits).
  std::vector<model::Kernel> all;
  for (const auto &[lc, n] : model::layerGroups(c)) {
    const std::vector<model::Kernel> layer = model::layerKernels(lc, run, 0);
    for (const model::Kernel &k : layer)
      est.kernels.push_back(priceKernel(k, n, lc, t, cluster, run, est.notes));
    // A layer that routes tokens (its router kernel) pays what the
    // calibrated MoE layer model adds beyond the GEMMs: the permutation,
    // the gated activation and the fused layer's fixed cost.
    if (llvm::any_of(layer, [](const model::Kernel &k) {
          return k.role() == model::Role::MoeRouter;
        }))
      est.kernels.push_back(moeLayerRest(lc, run, t, n, est.notes));
    all.insert(all.end(), layer.begin(), layer.end());
  }
  const std::vector<model::Kernel> head = model::modelBlockKernels(c, run);
  for (const model::Kernel &k : head)
    est.kernels.push_back(priceKernel(k, 1, c, t, cluster, run, est.notes));

  // The tensor-parallel collectives (each block's all-reduce) as one row
  // per collective and size, after the computing kernels.
  std::vector<InferenceKernel> comm;
  llvm::erase_if(est.kernels, [&](const InferenceKernel &k) {
    if (k.role != model::Role::TpEnter && k.role != model::Role::TpLeave)
      return false;
    auto same = llvm::find_if(comm, [&](const InferenceKernel &o) {
      return o.name == k.name && o.n == k.n && o.batch == k.batch;
    });
    if (same == comm.end())
      comm.push_back(k);
    else
      same->count += k.count;
    return true;
  });
  est.kernels.insert(est.kernels.end(), comm.begin(), comm.end());
  for (const InferenceKernel &k : est.kernels) {
    est.stepUs += double(k.count) * k.us;
    add(est.shares, k.shares, double(k.count));
  }
  if (est.stepUs > 0) {
    // Every draft accepted: q tokens per sequence per step.
    est.perTokenMs = est.stepUs / 1e3 / double(std::max<int64_t>(1, est.queries));
    est.tokensPerSecondPerSequence = double(est.queries) * 1e6 / est.stepUs;
    est.tokensPerSecondPerGpu = tokens * 1e6 / est.stepUs / double(est.tp);
  }

  // Memory per GPU: the weights one rank holds, the cache of b sequences
  // at the kv length (the step's own entries are written into it), and
  // the activations of the step or of a prefill chunk.
  InferenceMemory &m = est.memory;
  std::optional<int64_t> params = 0;
  for (model::BlockKind b : {model::BlockKind::Embedding,
                             model::BlockKind::LMHead})
    params = model::checkedAdd(params, model::rankWeights(b, c));
  for (const auto &[lc, n] : model::layerGroups(c))
    for (model::BlockKind b : lc.layerBlocks)
      params = model::checkedAdd(
          params, model::checkedMul(model::rankWeights(b, lc), n));
  m.weights = double(params.value_or(0)) * eb;
  // Under an FP8 precision the weights of the GEMMs that run at it are
  // stored at its bytes (weightElementBytes); the embedding, the LM head,
  // the norms and the router stay in the model's dtype. The stored weights
  // are those of the blocks' prefill kernels (MLA's up projections, which
  // an absorbed decode step multiplies dequantized).
  for (const auto &[lc, n] : model::layerGroups(c))
    for (const model::Kernel &k : model::layerKernels(lc, model::RunShape(), 0))
      if (const model::GemmSpec *g = k.gemm();
          g && model::roleInfo(g->role).weight && g->pass == model::GemmPass::Forward)
        m.weights -= double(n) * double(g->batch.value) *
                     double(g->n.value) * double(g->k.value) *
                     (eb - weightElementBytes(*g, c.dtype, &run));
  m.cachePerToken = cacheBytesPerToken(c, run);
  const double cachePerSequence = cacheBytesPerSequence(c, run, est.keys);
  m.cachePerSequence = cachePerSequence;
  m.kvCache = cachePerSequence * double(est.sequences);
  const double actTokensPerSeq = double(
      std::max<int64_t>(est.queries, o.prefillChunk));
  all.insert(all.end(), head.begin(), head.end());
  const double actPerSequence = activationBytes(all, c, actTokensPerSeq);
  m.activations = actPerSequence * double(est.sequences);
  // MLA's context workspace: the gather buffer, and the first (largest)
  // piece's up-projected keys and values, b x min(C, floor(64 Ki / b))
  // tokens (model::mlaContextPieceLength, the one home of the piece).
  const Workspace ws = servingWorkspace(c);
  const int64_t context = model::mlaContextTokens(c, run);
  m.workspacePerToken = context > 0 ? ws.perToken : 0;
  m.workspacePieceTokens =
      m.workspacePerToken > 0
          ? est.sequences * model::mlaContextPieceLength(c, run, 0)
          : 0;
  m.workspacePiece = double(m.workspacePieceTokens) * m.workspacePerToken;
  m.workspace = ws.gather + m.workspacePiece;
  m.capacity = t.memoryGiB * kGiB;
  if (m.capacity > 0) {
    const double perSequence = cachePerSequence + actPerSequence;
    const double avail = m.capacity - m.weights - ws.gather;
    const double full = double(model::kMlaContextWorkspace);
    auto fit = [](double bytes, double per) {
      return bytes <= 0 || per <= 0 ? int64_t(0)
                                     : int64_t(std::floor(bytes / per));
    };
    if (m.weights >= m.capacity)
      m.maxBatch = 0;
    else if (m.workspacePerToken <= 0)
      m.maxBatch = fit(avail, perSequence);
    else {
      // The piece at batch B holds min(64 Ki, B C) tokens at most: B C
      // while B <= floor(64 Ki / C), the whole workspace beyond.
      const int64_t small = int64_t(full) / context;
      const int64_t beyond =
          fit(avail - full * m.workspacePerToken, perSequence);
      m.maxBatch =
          beyond > small
              ? beyond
              : std::min(small,
                         fit(avail, perSequence + double(context) *
                                                      m.workspacePerToken));
    }
  }
  if (!cluster && collectives)
    est.notes.push_back("no cluster for " + t.name +
                        ": the tensor- and expert-parallel collectives are "
                        "not priced "
                        "(give one: cluster=)");
  return est;
}
