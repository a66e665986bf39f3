//===- StepTime.cpp - The time of one training step of a plan -------------===//
//
// Compute from the block models' per-rank kernels priced by predictKernel,
// memory-bound elementwise bytes at the target's bandwidth, collectives
// priced by the collective model on the cluster, the pipeline bubble, the
// data-parallel reduction's overlap and the optimizer step.
// docs/step-time.md derives each term and names its source.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/StepTime.h"

#include "tshape/Cost/Collective.h"
#include "tshape/Cost/PredictKernel.h"

#include <algorithm>
#include <array>

using namespace tshape;
using namespace tshape::cost;
using model::CollectiveOp;
using model::DType;
using model::Precision;
using model::ModelConfig;
using model::Param;
using model::Role;
using model::Tier;

std::vector<StepLine> StepEstimate::lines() const {
  return {
      {"compute", compute, 0},
      {"recompute", recompute, 0},
      {"elementwise", elementwise, 0},
      {"tensor-parallel communication", tp.exposed, tp.hidden()},
      {"expert-parallel communication", ep.exposed, ep.hidden()},
      {"context-parallel communication", cp.exposed, cp.hidden()},
      {"pipeline send/recv", p2p.exposed, p2p.hidden()},
      {"activation offload", offload.exposed, offload.hidden()},
      {"pipeline bubble", bubble, 0},
      {"data-parallel communication", dp.exposed, dp.hidden()},
      {"optimizer step", optimizer, 0},
  };
}

double tshape::cost::stepModelFlops(const ModelConfig &c, int64_t globalBatch,
                                    Recompute recompute) {
  // Narayanan et al. 2021, Section 5.1: a layer's forward is
  // 24 B s h^2 + 4 B s^2 h FLOPs, the logits 2 B s h V; the backward is
  // twice the forward; full recompute runs the layers' forward once more
  // (Eq. 3's 96 = 4 x 24); the logits are not recomputed, so they count
  // 3 x 2 B s h V = 6 B s h V (Eq. 3's 96 B s L h^2 x V/(16 L h)).
  const double B = double(globalBatch), s = double(getParam(c, Param::Seq));
  const double h = double(getParam(c, Param::Hidden));
  const double L = double(getParam(c, Param::Layers));
  const double V = double(getParam(c, Param::Vocab));
  const double layerFwd = 24 * B * s * L * h * h + 4 * B * s * s * h * L;
  const double logitsFwd = 2 * B * s * h * V;
  double flops = 3 * (layerFwd + logitsFwd);
  if (recompute == Recompute::Full)
    flops += layerFwd;
  else if (recompute == Recompute::Selective)
    flops += 4 * B * s * s * h * L; // the attention core's two products
  return flops;
}

namespace {
constexpr double kUs = 1e-6;

/// Where a group of GPUs runs: its tier and, on the network, how many of
/// its ranks share a node.
struct Placement {
  Tier tier = Tier::Node;
  int64_t ranksPerNode = 0;
};

/// The placement of a group of `ranks` GPUs, `stride` ranks apart in
/// Megatron-LM's rank order (tp fastest, then cp, dp, pp): the node when
/// the whole span fits in one NVLink domain; else the network, with
/// gpusPerNode / stride of the group's ranks in each node, one when the
/// stride spans a node (the data-parallel group beside tp = 8: one GPU per
/// node, each on its own NIC while the groups beside it use theirs).
Placement placeGroup(int64_t ranks, int64_t stride, const Cluster &cluster) {
  const int64_t g = cluster.gpusPerNode;
  if (ranks * stride <= g)
    return {Tier::Node, 0};
  return {Tier::Network, std::max<int64_t>(1, g / stride)};
}

/// Seconds of a collective; `err` set when the model cannot price it.
struct Pricer {
  const Cluster &cluster;
  std::string err;

  double collective(CollectiveOp op, double bytes, int64_t ranks,
                    Placement at) {
    if (ranks <= 1 || bytes <= 0)
      return 0;
    CollectiveEstimate e = estimateCollective(
        {op, bytes, ranks, at.tier, at.ranksPerNode}, cluster);
    if (!e.supported && err.empty())
      err = e.unsupported;
    return e.predictedUs * kUs;
  }
};

/// Collectives of the tensor-parallel group, as the blocks state them
/// (tpCollectives): `count` of op over `bytes`, of the forward or the
/// backward pass.
struct TpCollective {
  CollectiveOp op;
  double bytes = 0, count = 0;
  bool backward = false;
};

/// Adds `count` of `k`'s tensor-parallel collectives to `out`; false when
/// `k` is none.
bool addTpCollective(std::vector<TpCollective> &out, const model::Kernel &k,
                     double count) {
  const model::CollectiveSpec *c = k.collective();
  if (!c || (c->role != Role::TpEnter && c->role != Role::TpLeave))
    return false;
  const double bytes = double(c->bytes.value);
  for (TpCollective &o : out)
    if (o.op == c->op && o.bytes == bytes && o.backward == c->backward) {
      o.count += count;
      return true;
    }
  out.push_back({c->op, bytes, count, c->backward});
  return true;
}

/// One decoder layer's work for one microbatch on one rank, in seconds: the
/// mean layer of a heterogeneous stack (dense then MoE), weighted by count.
struct LayerTime {
  double forward = 0, backward = 0;
  /// Of the backward, the weight-gradient GEMMs' (what LoRA's frozen base
  /// does not run).
  double weightGrad = 0;
  double coreForward = 0, coreBackward = 0; ///< the attention core's share
  /// Of the forward, the kernels a selective recompute module runs again,
  /// by the set of modules whose recompute reruns them
  /// (RoleInfo::recomputedBy: the core's under core_attn, the shared
  /// experts' under moe or shared_experts).
  std::array<double, model::kRecomputeSets> rerunForward{};
  /// The expert-parallel all-to-alls (a MoE layer at ep > 1): how many per
  /// layer (forward and backward, the mean layer's; of them the forward's,
  /// which the moe recompute module runs again) and their bytes.
  double allToAlls = 0, forwardAllToAlls = 0, allToAllBytes = 0;
  /// Key and value elements per token of this rank that the context-
  /// parallel ring exchanges: kv_heads/t x (key head dim + value head dim)
  /// of the layer's attention kernel, as the kernel states them (plain
  /// attention 2 g/t d; MLA the expanded a/t x (d_nope + d_rope + d_v),
  /// docs/step-time.md#context-parallelism).
  double kvExchangePerToken = 0;
};

std::optional<LayerTime> layerTimeOf(const ModelConfig &c,
                                     const target::GpuTarget &target,
                                     const model::RunShape &run,
                                     std::string &err);

std::optional<LayerTime> layerTime(const ModelConfig &c,
                                   const target::GpuTarget &target,
                                   const model::RunShape &run,
                                   std::string &err) {
  const double layers = double(std::max<int64_t>(1, c.layers));
  LayerTime mean;
  for (const auto &[lc, n] : model::layerGroups(c)) {
    std::optional<LayerTime> t = layerTimeOf(lc, target, run, err);
    if (!t)
      return std::nullopt;
    const double w = double(n) / layers;
    mean.forward += w * t->forward;
    mean.backward += w * t->backward;
    mean.weightGrad += w * t->weightGrad;
    mean.coreForward += w * t->coreForward;
    mean.coreBackward += w * t->coreBackward;
    for (int set = 1; set < model::kRecomputeSets; ++set)
      mean.rerunForward[set] += w * t->rerunForward[set];
    mean.allToAlls += w * t->allToAlls;
    mean.forwardAllToAlls += w * t->forwardAllToAlls;
    mean.kvExchangePerToken += w * t->kvExchangePerToken;
    mean.allToAllBytes = std::max(mean.allToAllBytes, t->allToAllBytes);
  }
  return mean;
}

std::optional<LayerTime> layerTimeOf(const ModelConfig &c,
                                     const target::GpuTarget &target,
                                     const model::RunShape &run,
                                     std::string &err) {
  // The context-parallel rank's kernels: s/cp of each sequence.
  const ModelConfig rc = model::rankSeqConfig(c);
  const int64_t cp = getParam(c, Param::Cp);
  std::vector<model::Kernel> kernels = model::layerKernels(rc, run, 0);
  if (kernels.empty()) {
    err = "the model has no kernels (an invalid config)";
    return std::nullopt;
  }
  LayerTime t;
  // The keys and values the context-parallel ring exchanges, from the
  // layer's attention kernel (its fused form: an unfused layer states the
  // same attention as its score and value GEMMs, which do not name the kv
  // heads). Megatron-LM's MLA runs its core attention as Transformer
  // Engine's DotProductAttention on the expanded per-head keys and values
  // (multi_latent_attention.py: k_channels = qk_head_dim +
  // qk_pos_emb_head_dim, v_channels = v_head_dim), so its ring exchanges
  // those, not the latent: the kernel's own heads and head dims say it.
  if (cp > 1) {
    ModelConfig fused = rc;
    fused.attention.fused = true;
    for (const model::Kernel &k : model::layerKernels(fused, run, 0))
      t.kvExchangePerToken += double(k.ringElementsPerToken());
  }
  for (const model::Kernel &k : kernels) {
    // The collectives are priced on the cluster (the tensor-parallel ones
    // from TpKernels).
    if (k.role() == Role::TpEnter || k.role() == Role::TpLeave)
      continue;
    if (const model::CollectiveSpec *a = k.collective()) {
      t.allToAlls += 1;
      if (!k.backward())
        t.forwardAllToAlls += 1;
      t.allToAllBytes = double(a->bytes.value);
      continue;
    }
    const model::GemmSpec *g = k.gemm();
    // The attention core (its role's column): what selective recompute
    // runs again, and what the context-parallel ring runs in cp blocks.
    const bool core = model::roleInfo(k.role()).core;
    // A fused attention's backward is a kernel of its own
    // (AttentionSpec::backward), priced as every kernel is.
    const bool forward = !k.backward();
    // At the run's precision: a weight GEMM is an FP8 linear layer.
    KernelEstimate e = predictKernel(k, c.dtype, target, nullptr, &run);
    if (!e.supported) {
      err = "cannot price " + k.name() + ": " + e.unsupported;
      return std::nullopt;
    }
    // Ring attention: each rank computes its s/cp queries against all s
    // keys, cp blocks of the (s/cp)-long kernel.
    double sec = e.predictedUs * kUs * (core ? double(cp) : 1.0);
    if (forward) {
      t.forward += sec;
      if (core)
        t.coreForward += sec;
      if (model::RecomputeModules by = model::roleInfo(k.role()).recomputedBy)
        t.rerunForward[by] += sec;
    } else {
      t.backward += sec;
      if (core)
        t.coreBackward += sec;
      if (g && g->pass == model::GemmPass::GradB &&
          model::roleInfo(g->role).weight)
        t.weightGrad += sec;
    }
  }
  return t;
}

} // namespace

/// LoRA's adapter GEMMs of one decoder layer, one microbatch, one rank
/// (the mean layer's): for each adapted GEMM (M, N, K) of rank r, the
/// forward's x A^T (M x r x K) and (x A^T) B^T (M x N x r), and the
/// backward's four: dH = dY B (M x r x N), dB = dY^T H (N x r x M),
/// dX += dH A (M x K x r), dA = dH^T X (r x K x M). In the model's dtype.
struct LoraTime {
  double forward = 0, backward = 0;
};

/// Seconds of one plain GEMM (batch x m x n x k in `dtype`) on `target`.
static double gemmSeconds(int64_t batch, int64_t m, int64_t n, int64_t k,
                          model::DType dtype,
                          const target::GpuTarget &target) {
  return estimateGemm(GemmProblem{batch, m, n, k, dtype}, target)
             .predictedUs *
         kUs;
}

LoraTime loraTime(const ModelConfig &c, int64_t r,
                  const target::GpuTarget &target) {
  LoraTime t;
  const ModelConfig rc = model::rankSeqConfig(c);
  const double layers = double(std::max<int64_t>(1, rc.layers));
  for (const auto &[lc, count] : model::layerGroups(rc)) {
    const double w = double(count) / layers;
    for (const auto &[batch, m, n, k] : loraTargets(lc)) {
      auto us = [&](int64_t gm, int64_t gn, int64_t gk) {
        return gemmSeconds(batch, gm, gn, gk, c.dtype, target);
      };
      t.forward += w * (us(m, r, k) + us(m, n, r));
      t.backward +=
          w * (us(m, r, n) + us(n, r, m) + us(m, k, r) + us(r, k, m));
    }
  }
  return t;
}

/// The kernels' seconds of one rank for one microbatch: a decoder layer's,
/// and the LM head's GEMMs forward and backward. They depend on the
/// per-rank shape only (StepModel remembers them).
struct StepModel::RankTimes {
  LayerTime layer;
  /// The tensor-parallel collectives of the mean layer, the embedding (the
  /// first stage's) and the LM head (the last stage's), without and with
  /// sequence parallelism (indexed by it: kernels only, nothing priced).
  struct TpKernels {
    std::vector<TpCollective> layer, embedding, head;
  } tp[2];
  double logitsFwd = 0, logitsBwd = 0;
  double logitsWgrad = 0; ///< of logitsBwd, the weight gradient's
};

namespace {
std::optional<StepModel::RankTimes>
rankTimes(const ModelConfig &c, const target::GpuTarget &target,
          const model::RunShape &run, std::string &err) {
  std::optional<LayerTime> lt = layerTime(c, target, run, err);
  if (!lt)
    return std::nullopt;
  StepModel::RankTimes r;
  r.layer = *lt;
  const ModelConfig rc = model::rankSeqConfig(c);
  for (bool sp : {false, true}) {
    model::RunShape spRun = run;
    spRun.sequenceParallel = sp;
    StepModel::RankTimes::TpKernels &tk = r.tp[sp];
    const double layers = double(std::max<int64_t>(1, c.layers));
    for (const auto &[lc, n] : model::layerGroups(c))
      for (const model::Kernel &k :
           model::layerKernels(model::rankSeqConfig(lc), spRun, 0))
        addTpCollective(tk.layer, k, double(n) / layers);
    for (const model::Kernel &k :
         model::blockKernels(model::BlockKind::Embedding, rc, spRun, -1))
      addTpCollective(tk.embedding, k, 1);
    for (const model::Kernel &k :
         model::blockKernels(model::BlockKind::LMHead, rc, spRun, -1))
      addTpCollective(tk.head, k, 1);
  }
  // The LM head (last stage): its GEMMs.
  for (const model::Kernel &k :
       model::blockKernels(model::BlockKind::LMHead, rc, run, -1)) {
    if (k.collective())
      continue;
    KernelEstimate ke = predictKernel(k, c.dtype, target, nullptr, &run);
    if (!ke.supported) {
      err = "cannot price " + k.name() + ": " + ke.unsupported;
      return std::nullopt;
    }
    const model::GemmSpec *g = k.gemm();
    (g && g->pass != model::GemmPass::Forward ? r.logitsBwd : r.logitsFwd) +=
        ke.predictedUs * kUs;
    if (g && g->pass == model::GemmPass::GradB)
      r.logitsWgrad += ke.predictedUs * kUs;
  }
  return r;
}

/// The memory-bound bytes of one decoder layer's forward on one rank for
/// one microbatch (docs/step-time.md): norms, residual adds and dropouts
/// on the s b h activations, the MLP's activation on s b f/t, and, when
/// the attention is not fused, the softmax and dropout on the scores.
struct ElementwiseBytes {
  double forward = 0;
  /// What each set of selective recompute modules runs again
  /// (ElementwiseTraffic::recomputed; the layernorm module the norms that
  /// are modules of their own).
  std::array<double, model::kRecomputeSets> rerun{};
};

ElementwiseBytes elementwiseBytesOf(const ModelConfig &c, bool sp);

/// The mean layer's bytes over the stack's layers.
ElementwiseBytes elementwiseBytes(const ModelConfig &c, bool sp) {
  ElementwiseBytes mean;
  const double layers = double(std::max<int64_t>(1, c.layers));
  for (const auto &[lc, n] : model::layerGroups(c)) {
    ElementwiseBytes b = elementwiseBytesOf(lc, sp);
    mean.forward += double(n) / layers * b.forward;
    for (int set = 1; set < model::kRecomputeSets; ++set)
      mean.rerun[set] += double(n) / layers * b.rerun[set];
  }
  return mean;
}

ElementwiseBytes elementwiseBytesOf(const ModelConfig &c, bool sp) {
  const double e = double(model::dtypeBytes(c.dtype));
  const double t = double(getParam(c, Param::Tp));
  const double tokens =
      double(getParam(c, Param::Microbatch)) * double(model::rankSeq(c));
  const double h = double(getParam(c, Param::Hidden));
  // Per residual sub-layer: a norm (read x, write y: 2 elements) and a
  // fused dropout + residual add (read the branch and the residual, write
  // the sum: 3 elements, and a 1-byte mask): 5 elements + 1 byte per
  // token and hidden unit; replicated over t unless sequence parallel.
  const double perToken = double(c.layerBlocks.size()) * (5 * e + 1) * h;
  ElementwiseBytes b;
  b.forward = tokens * perToken / (sp ? t : 1.0);
  // Each block's own (BlockInfo::elementwise): an MLP's activation, an
  // MoE block's experts' activations and permutation, an unfused
  // attention core's softmax and dropout.
  // The layernorm module reruns a norm: read x, write y, 2 elements per
  // token and hidden unit, split like the sub-layer norm above.
  const double normBytes = tokens * 2 * e * h / (sp ? t : 1.0);
  for (model::BlockKind k : c.layerBlocks)
    if (auto f = model::blockInfo(k).elementwise) {
      const model::ElementwiseTraffic own = f(c);
      b.forward += own.forward;
      for (const model::ElementwiseTraffic::Part &p : own.recomputed)
        b.rerun[p.by] += p.bytes;
      b.rerun[model::RecomputeModules(model::RecomputeModule::LayerNorm)] +=
          own.separateNorms * normBytes;
    }
  return b;
}

double memoryBoundSeconds(double bytes, const target::GpuTarget &t) {
  return bytes / (t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency);
}

std::string checkStep(const ModelConfig &c, const TrainingPlan &plan,
                      const target::GpuTarget &target) {
  const int64_t p = c.parallel.pp, m = plan.microbatches;
  if (p > 1 && m < p)
    return "microbatches " + std::to_string(m) + " < pp " +
           std::to_string(p) + ": the pipeline never fills (" +
           scheduleName(plan.schedule) + " needs m >= pp; raise the global "
           "batch or lower pp)";
  if (plan.schedule == PipelineSchedule::Interleaved && m % p != 0)
    return "microbatches " + std::to_string(m) + " not divisible by pp " +
           std::to_string(p) + " with the interleaved schedule (Megatron-LM's "
           "interleaved schedule requires it)";
  if (target.peak(c.dtype) <= 0)
    return target.name + " has no dense " + model::dtypeName(c.dtype) +
           " peak: choose another dtype or target";
  if (plan.precision && !target.supports(*plan.precision))
    return std::string("precision ") + precisionName(*plan.precision) +
           " is not supported on " + target.name + " (it supports " +
           target.precisionList() + "): use one of those, or a target that "
           "has it";
  if (target.memoryBandwidthGBs <= 0)
    return target.name + " states no memory bandwidth";
  return "";
}
} // namespace

std::optional<StepEstimate>
tshape::cost::estimateStep(const ModelConfig &c, const TrainingPlan &plan,
                           const target::GpuTarget &target,
                           const Cluster &cluster, const StepOptions &opt,
                           std::string *error) {
  StepModel model(target, cluster, opt);
  return model.estimate(c, plan, error);
}

StepModel::StepModel(const target::GpuTarget &target, const Cluster &cluster,
                     const StepOptions &options)
    : target(target), cluster(cluster), opt(options) {}
StepModel::~StepModel() = default;

const StepModel::RankTimes *StepModel::times(const ModelConfig &c,
                                             const model::RunShape &run,
                                             std::string &err) {
  std::vector<int64_t> key;
  for (Param p : model::allParams())
    key.push_back(getParam(c, p));
  key.push_back(int64_t(c.dtype));
  key.push_back(run.precision ? int64_t(*run.precision) + 1 : 0);
  auto [it, inserted] = cache.try_emplace(std::move(key));
  if (inserted) {
    if (std::optional<RankTimes> r =
            rankTimes(c, target, run, it->second.error))
      it->second.times = std::make_unique<RankTimes>(*r);
    ++priced;
  }
  if (!it->second.times) {
    err = it->second.error;
    return nullptr;
  }
  return it->second.times.get();
}

std::optional<StepEstimate> StepModel::estimate(const ModelConfig &c,
                                                const TrainingPlan &plan,
                                                std::string *error) {
  std::optional<MemoryEstimate> mem = estimateMemory(c, plan, error, &target);
  if (!mem)
    return std::nullopt;
  return estimate(c, plan, std::move(*mem), error);
}

std::optional<StepEstimate> StepModel::estimate(const ModelConfig &c,
                                                const TrainingPlan &plan,
                                                MemoryEstimate memory,
                                                std::string *error) {
  auto fail = [&](const std::string &msg) -> std::optional<StepEstimate> {
    if (error)
      *error = msg;
    return std::nullopt;
  };
  StepEstimate est;
  est.memory = std::move(memory);
  if (std::string bad = checkStep(c, plan, target); !bad.empty())
    return fail(bad);
  if (plan.offloadLayers > 0 && cluster.hostLinkGBs <= 0)
    return fail("cluster " + cluster.name + " states no host link "
                "(host_link_gbs): activation offloading cannot be priced; "
                "give it in the cluster file");

  const model::Parallelism &par = c.parallel;
  const int64_t t = par.tp, p = par.pp, d = par.dp, cp = par.cp;
  const int64_t v = plan.virtualStages, m = plan.microbatches;
  const std::vector<int64_t> perStage = stageLayers(c, plan);
  const bool sp = plan.sequenceParallel && t > 1;
  const double e = double(model::dtypeBytes(c.dtype));
  const double tokens = double(getParam(c, Param::Microbatch)) *
                        double(model::rankSeq(c));
  const double h = double(getParam(c, Param::Hidden));
  est.gpus = t * p * d * cp;
  est.microbatches = m;
  est.globalBatch = m * getParam(c, Param::Microbatch) * d;

  std::string err;
  const RankTimes *rt = times(c, plan.run(), err);
  if (!rt)
    return fail(err);
  const LayerTime *lt = &rt->layer;
  Pricer price{cluster, ""};

  // One decoder layer, one microbatch.
  const ElementwiseBytes eb = elementwiseBytes(c, sp);
  double recomputeKernels = 0, recomputeBytes = 0;
  if (plan.recompute == Recompute::Full) {
    recomputeKernels = lt->forward;
    recomputeBytes = eb.forward;
  } else if (plan.recompute == Recompute::Selective) {
    // Every kernel and elementwise pass one of the plan's modules reruns,
    // once (a shared expert's under moe and shared_experts alike).
    for (int set = 1; set < model::kRecomputeSets; ++set)
      if (set & plan.recomputeModules) {
        recomputeKernels += lt->rerunForward[set];
        recomputeBytes += eb.rerun[set];
      }
  }
  // Forward once, backward about twice the bytes (read the output's
  // gradient and the saved input, write the input's gradient).
  const double layerElementwise =
      memoryBoundSeconds(3 * eb.forward + recomputeBytes, target);

  // Tensor parallelism: the blocks' collectives (tpCollectives: per
  // residual sub-layer an all-reduce forward and one backward, or with
  // sequence parallelism an all-gather and a reduce-scatter each pass), on
  // the tp group; full recompute runs the forward's again. The embedding's
  // (first stage) and the LM head's (last stage) likewise, run once.
  const Placement tpTier = placeGroup(t, 1, cluster);
  auto tpSeconds = [&](const std::vector<TpCollective> &cs,
                       double forwardPasses) {
    double sec = 0;
    for (const TpCollective &x : cs)
      sec += x.count * (x.backward ? 1.0 : forwardPasses) *
             price.collective(x.op, x.bytes, t, tpTier);
    return sec;
  };
  const StepModel::RankTimes::TpKernels &tk = rt->tp[plan.sequenceParallel];
  const double layerTp =
      tpSeconds(tk.layer, plan.recompute == Recompute::Full ? 2 : 1);
  const double firstTp = tpSeconds(tk.embedding, 1);
  const double lastTp = tpSeconds(tk.head, 1);

  // Expert parallelism: each MoE layer's dispatch and combine all-to-alls
  // (and their gradients) among the ep ranks of one expert group, t apart;
  // exposed, a line of its own.
  // Full recompute and the moe recompute module run the forward's again.
  double layerEp = 0;
  if (par.ep > 1 && lt->allToAlls > 0) {
    const bool rerun =
        plan.recompute == Recompute::Full ||
        model::recomputes(plan.selectiveModules(), model::RecomputeModule::Moe);
    layerEp = (lt->allToAlls + (rerun ? lt->forwardAllToAlls : 0)) *
              price.collective(CollectiveOp::AllToAll, lt->allToAllBytes,
                               par.ep, placeGroup(par.ep, t, cluster));
  }

  // Context parallelism: a ring of cp - 1 exchanges of this rank's K and V
  // (b s/cp tokens of the attention kernel's kv_heads/t x (d_k + d_v)
  // elements: 2 g/t d for plain attention) forward; K, V and their
  // gradients backward; each step hides behind the attention core's block
  // of that step.
  CommTime layerCp;
  if (cp > 1) {
    const double kvBytes = tokens * lt->kvExchangePerToken * e;
    const Placement cpTier = placeGroup(cp, t, cluster);
    const double step =
        price.collective(CollectiveOp::SendRecv, kvBytes, 2, cpTier);
    const double fwd = double(cp - 1) * step, bwd = 2 * fwd;
    const int64_t fwdPasses = plan.recompute == Recompute::None ? 1 : 2;
    layerCp.total = fwd * fwdPasses + bwd;
    layerCp.exposed = fwdPasses * std::max(0.0, fwd - lt->coreForward) +
                      std::max(0.0, bwd - lt->coreBackward);
  }

  // The LM head (last stage): its GEMMs (rt) and the fp32 cross-entropy
  // over v/t logits (read the bf16 logits, write fp32 losses forward; read,
  // write the gradient backward: about 12 bytes per logit).
  const double logitsFwd = rt->logitsFwd;
  // LoRA: the frozen LM head computes no weight gradient.
  const double logitsBwd =
      rt->logitsBwd - (plan.loraRank > 0 ? rt->logitsWgrad : 0.0);
  // LoRA's adapters, per layer and microbatch (the mean layer's), and the
  // frozen base's weight-gradient GEMMs left out of the backward.
  const LoraTime lora = plan.loraRank > 0
                            ? loraTime(c, plan.loraRank, target)
                            : LoraTime{};
  const double layerBackward =
      lt->backward - (plan.loraRank > 0 ? lt->weightGrad : 0.0) +
      lora.backward;
  const double vocabRank =
      double(getParam(c, Param::Vocab)) /
      double(model::splitDegree(Param::Vocab, model::bindings(c)));
  const double lossSeconds =
      memoryBoundSeconds(12 * tokens * vocabRank, target);
  // Multi-token prediction (Megatron Core's multi_token_prediction.py): on
  // the last stage, each MTP layer runs eh_proj (the 2h -> h projection of
  // its two normed inputs, column-parallel: tokens x h/t x 2h, forward and
  // its two gradients), one decoder layer (the mean layer, with all its
  // per-layer work below) and the shared LM head with its loss again.
  const int64_t mtp = std::max<int64_t>(0, c.arch.mtpLayers);
  double ehProjFwd = 0, ehProjBwd = 0;
  if (mtp > 0) {
    auto gemm = [&](double gm, double gn, double gk) {
      return gemmSeconds(1, int64_t(gm), int64_t(gn), int64_t(gk), c.dtype,
                         target);
    };
    const double ht = std::max(1.0, h / double(t));
    ehProjFwd = gemm(tokens, ht, 2 * h);
    ehProjBwd = gemm(tokens, 2 * h, ht) + gemm(2 * h, ht, tokens);
  }
  // On the last stage, or where a layout puts them.
  const int64_t mtpRank = plan.mtpStage(p);

  // Pipeline send/recv: each model chunk sends its output forward and
  // receives its gradient back once per microbatch, b s h, to a stage
  // tp cp dp ranks away. Each tensor-parallel rank sends its 1/t share:
  // with sequence parallelism it holds only that; without, Megatron-LM's
  // scatter/gather optimization (Narayanan et al. 2021, Section 4.1) sends
  // 1/t per rank and all-gathers it in the node at the receiver.
  CommTime p2pOne;
  if (p > 1) {
    const double actBytes = tokens * h * e;
    const Placement ppTier = placeGroup(p, t * cp * d, cluster);
    double one = price.collective(CollectiveOp::SendRecv,
                                  actBytes / double(t), 2, ppTier);
    if (t > 1 && !sp)
      one += price.collective(CollectiveOp::AllGather, actBytes, t, tpTier);
    p2pOne.total = p2pOne.exposed = 2 * double(v) * one;
  }

  for (int64_t i = 0; i < p; ++i) {
    StageMicrobatch st;
    st.stage = i;
    const double n = double(perStage[size_t(i)] + (i == mtpRank ? mtp : 0));
    st.forward = n * (lt->forward + lora.forward);
    st.backward = n * layerBackward;
    st.recompute =
        n * (recomputeKernels +
             (plan.recompute == Recompute::Full ? lora.forward : 0.0));
    st.elementwise = n * layerElementwise;
    if (!opt.gradientAccumulationFusion) {
      // Unfused gradient accumulation: per microbatch, each parameter's new
      // gradient (e bytes) is read and added to its main gradient (read
      // and written, bytes.gradients each): Megatron-LM's DDP hook
      // main_grad.add_(grad) before --gradient-accumulation-fusion.
      const StageMemory &mem = est.memory.stages[size_t(i)];
      // (LoRA: the adapters' gradients only.)
      const double params =
          plan.loraRank > 0
              ? double(mem.adapterState.params)
              : double(mem.layerState.params + mem.embeddingState.params);
      st.elementwise += memoryBoundSeconds(
          params * (e + 2 * double(plan.bytes.gradients)), target);
    }
    st.tp.total = st.tp.exposed = n * layerTp;
    st.ep.total = st.ep.exposed = n * layerEp;
    // --overlap-moe-expert-parallel-comm: Megatron-LM runs one model
    // chunk's forward and another's backward together, layer by layer,
    // each one's all-to-alls behind the other's compute. Of the stage's
    // m v chunk passes, the W warm-up forwards (TrainingPlan::
    // warmupChunks: 1 at pp 1) and as many cool-down backwards have no
    // partner and stay exposed; the m v - W pairs hide up to a layer's
    // forward and backward: per layer and microbatch
    // ((m v - W) max(0, E - (F + B)) + W E) / (m v).
    if (plan.overlapEpComm && layerEp > 0) {
      const double passes = double(m) * double(v);
      const double unpaired = double(plan.warmupChunks(p, i));
      const double partner = lt->forward + lora.forward + layerBackward;
      st.ep.exposed = n *
                      ((passes - unpaired) *
                           std::max(0.0, layerEp - partner) +
                       unpaired * layerEp) /
                      passes;
    }
    st.cp.total = n * layerCp.total;
    st.cp.exposed = n * layerCp.exposed;
    st.p2p = p2pOne;
    // Activation CPU offloading: each offloaded layer's saved activations
    // go to host memory while the next layer's forward runs and come back
    // while the previous layer's backward runs (Megatron-LM's
    // CpuOffloadHandler, one layer ahead), at the host link's bandwidth;
    // what a layer's compute does not hide is exposed.
    if (const StageMemory &mem = est.memory.stages[size_t(i)];
        mem.offloadedLayers > 0) {
      const double one = mem.offloadedActivations /
                         double(mem.offloadedLayers) /
                         (cluster.hostLinkGBs * 1e9);
      const double k = double(mem.offloadedLayers);
      st.offload.total = 2 * k * one;
      st.offload.exposed = k * (std::max(0.0, one - lt->forward) +
                                std::max(0.0, one - lt->backward));
    }
    if (i == 0)
      st.tp.total = st.tp.exposed += firstTp;
    if (i == mtpRank) {
      // The MTP layers' projections, heads and losses.
      st.forward += double(mtp) * (logitsFwd + ehProjFwd);
      st.backward += double(mtp) * (logitsBwd + ehProjBwd);
      st.elementwise += double(mtp) * lossSeconds;
      st.tp.total = st.tp.exposed += double(mtp) * lastTp;
    }
    if (i == p - 1) {
      st.forward += logitsFwd;
      st.backward += logitsBwd;
      st.elementwise += lossSeconds;
      st.tp.total = st.tp.exposed += lastTp;
    }
    // Interleaved schedules overlap each send/recv with the next model
    // chunk's compute (Megatron-LM's overlap_p2p_comm, on by default with
    // virtual stages and forced off without them: arguments.py:1000-1018
    // at d98e8a64): a transfer shows only where it outlasts one chunk's
    // forward (its activation) or backward and recompute (its gradient).
    // (The same compute also hides the expert all-to-alls when they are
    // overlapped: the two are not charged against each other.)
    if (opt.overlapP2pComm && v > 1 && p > 1) {
      const double one = p2pOne.total / (2 * double(v));
      const double dv = double(v);
      st.p2p.exposed =
          dv * (std::max(0.0, one - st.forward / dv) +
                std::max(0.0, one - (st.backward + st.recompute) / dv));
    }
    est.stages.push_back(st);
  }
  if (!price.err.empty())
    return fail(price.err);
  for (size_t i = 1; i < est.stages.size(); ++i)
    if (est.stages[i].total() > est.stages[est.paceStage].total())
      est.paceStage = i;
  const StageMicrobatch &pace = est.stages[est.paceStage];
  est.microbatchTime = pace.total();

  // The pipeline: m microbatches at the slowest stage's pace plus the
  // bubble, (p - 1)/(v m) of them (Narayanan et al. 2021, Section 2.2).
  const double md = double(m);
  est.bubbleFraction = double(p - 1) / (double(v) * md);
  est.bubble = est.bubbleFraction * md * est.microbatchTime;
  est.compute = md * (pace.forward + pace.backward);
  est.recompute = md * pace.recompute;
  est.elementwise = md * pace.elementwise;
  est.tp = {md * pace.tp.total, md * pace.tp.exposed};
  est.ep = {md * pace.ep.total, md * pace.ep.exposed};
  est.cp = {md * pace.cp.total, md * pace.cp.exposed};
  est.p2p = {md * pace.p2p.total, md * pace.p2p.exposed};
  est.offload = {md * pace.offload.total, md * pace.offload.exposed};

  // Data parallelism over the d x cp ranks that hold the same weights (the
  // routed experts: over the expert data-parallel group, tp x cp x dp /
  // (etp x ep) ranks etp x ep apart), and the optimizer step, per stage;
  // the stage that finishes last ends the step.
  const int64_t group = d * cp;
  const Placement dpTier = placeGroup(group, t, cluster);
  const int64_t expertGroup = est.memory.expertGroup;
  const Placement expertTier =
      placeGroup(expertGroup, est.memory.expertStride, cluster);
  double worst = -1;
  for (size_t i = 0; i < est.stages.size(); ++i) {
    const StageMemory &mem = est.memory.stages[i];
    const StageMicrobatch &st = est.stages[i];
    // LoRA: only the adapters have gradients, and only they change, so
    // the distributed optimizer gathers them alone; FSDP still gathers the
    // frozen base for every pass.
    const double all = double(mem.layerState.params +
                              mem.embeddingState.params +
                              mem.adapterState.params);
    const double params =
        plan.loraRank > 0 ? double(mem.adapterState.params) : all;
    // Of them the routed experts', which reduce over their own group.
    const double routed = double(mem.routedParams);
    const double gradBytes = (params - routed) * double(plan.bytes.gradients);
    const double routedGradBytes = routed * double(plan.bytes.gradients);
    const double weightBytes =
        ((plan.sharding == StateSharding::Fsdp ? all : params) - routed) *
        double(plan.bytes.weights);
    const double routedWeightBytes = routed * double(plan.bytes.weights);
    // A collective of the dense parameters' bytes over the data-parallel
    // group and of the routed experts' over theirs (each skipped on one
    // rank).
    auto reduce = [&](CollectiveOp op, double denseBytes, double expertBytes) {
      double us = 0;
      if (group > 1 && denseBytes > 0)
        us += price.collective(op, denseBytes, group, dpTier);
      if (expertGroup > 1 && expertBytes > 0)
        us += price.collective(op, expertBytes, expertGroup, expertTier);
      return us;
    };
    // The backward of the last microbatch, and the forward of the first,
    // hide the reduction and the gather except the last layer's bucket
    // (Megatron-LM's --overlap-grad-reduce / --overlap-param-gather).
    const double share = 1.0 / double(std::max<int64_t>(1, mem.layers));
    auto overlapped = [&](double total, double window, bool on) {
      if (!on)
        return total;
      return std::max(total * share, total - window * (1 - share));
    };
    CommTime dp;
    if (group > 1 || (expertGroup > 1 && routed > 0)) {
      const double bwdWindow = st.backward + st.recompute;
      const double fwdWindow = st.forward;
      if (plan.sharding == StateSharding::None) {
        dp.total = reduce(CollectiveOp::AllReduce, gradBytes, routedGradBytes);
        dp.exposed = overlapped(dp.total, bwdWindow, opt.overlapGradReduce);
      } else {
        const double rs = reduce(CollectiveOp::ReduceScatter, gradBytes,
                                 routedGradBytes);
        const double ag = reduce(CollectiveOp::AllGather, weightBytes,
                                 routedWeightBytes);
        if (plan.sharding == StateSharding::DistributedOptimizer) {
          dp.total = rs + ag;
          dp.exposed = overlapped(rs, bwdWindow, opt.overlapGradReduce) +
                       overlapped(ag, fwdWindow, opt.overlapParamGather);
        } else {
          // FSDP: the weights are gathered for every microbatch's forward
          // and backward, each behind that pass's compute.
          dp.total = rs + 2 * md * ag;
          dp.exposed = overlapped(rs, bwdWindow, opt.overlapGradReduce) +
                       md * (overlapped(ag, fwdWindow, true) +
                             overlapped(ag, bwdWindow, true));
        }
      }
    }
    // A tied embedding on its own stages: the first stage's table and the
    // last stage's copy for the LM head sum their gradients, an all-reduce
    // of the V/t x h word embedding between the two, after the data-parallel
    // reduction and not overlapped (Megatron-LM's embedding group: 2021's
    // train_step, and finalize_model_grads today).
    if (c.tiedEmbeddings && p > 1 && (i == 0 || i == size_t(p - 1))) {
      const double tied = price.collective(
          CollectiveOp::AllReduce, vocabRank * h * double(plan.bytes.gradients),
          2, placeGroup(2, (p - 1) * t * cp * d, cluster));
      dp.total += tied;
      dp.exposed += tied;
    }
    // Adam reads and writes its state (2 x optimizer bytes) and reads the
    // gradients and writes the weights of the parameters this GPU updates.
    const double optBytes = mem.layerState.optimizer +
                            mem.embeddingState.optimizer +
                            mem.adapterState.optimizer;
    const double perParam = double(plan.bytes.optimizer);
    const double moved =
        optBytes * (2 + double(plan.bytes.gradients + plan.bytes.weights) /
                            perParam);
    const double optSeconds = memoryBoundSeconds(moved, target);
    if (!price.err.empty())
      return fail(price.err);
    if (dp.exposed + optSeconds > worst) {
      worst = dp.exposed + optSeconds;
      est.lastStage = i;
      est.dp = dp;
      est.optimizer = optSeconds;
    }
  }

  est.stepTime = 0;
  for (const StepLine &l : est.lines())
    est.stepTime += l.seconds;

  est.modelFlops = stepModelFlops(c, est.globalBatch, plan.recompute);
  est.modelFlopsNoRecompute =
      stepModelFlops(c, est.globalBatch, Recompute::None);
  // LoRA: the frozen base computes no weight gradients, Eq. 3's share of
  // them (the weight GEMMs' forward FLOPs again: 24 B s L h^2 and the
  // logits' 2 B s h V) is not work the step does; the adapters' FLOPs
  // (r/h of a GEMM's) are not counted.
  if (plan.loraRank > 0) {
    const double B = double(est.globalBatch),
                 s = double(getParam(c, Param::Seq)),
                 L = double(getParam(c, Param::Layers)),
                 V = double(getParam(c, Param::Vocab));
    const double frozen = B * s * (24 * L * h * h + 2 * h * V);
    est.modelFlops -= frozen;
    est.modelFlopsNoRecompute -= frozen;
  }
  const double perGpu = est.stepTime * double(est.gpus);
  // MFU against the peak of the precision the linear layers run in: an
  // FP8 run's against the FP8 peak, not the BF16 one.
  const DType peakType =
      plan.precision && *plan.precision != Precision::BF16 &&
              target.peak(DType::FP8) > 0
          ? DType::FP8
          : c.dtype;
  const double peak = target.peak(peakType) * 1e12;
  est.peakPrecision = model::dtypeName(peakType);
  est.tflopsPerGpu = est.modelFlopsNoRecompute / perGpu / 1e12;
  est.hardwareTflopsPerGpu = est.modelFlops / perGpu / 1e12;
  est.tokensPerSPerGpu =
      double(est.globalBatch) * double(getParam(c, Param::Seq)) / perGpu;
  est.mfu = est.modelFlopsNoRecompute / perGpu / peak;
  est.hfu = est.modelFlops / perGpu / peak;
  return est;
}
