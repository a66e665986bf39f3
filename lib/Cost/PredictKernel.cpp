//===- PredictKernel.cpp - One price for every kernel kind ----------------===//

#include "tshape/Cost/PredictKernel.h"

#include <algorithm>

using namespace tshape;
using namespace tshape::cost;

int64_t tshape::cost::activeGroups(const model::GemmSpec &g,
                                   const model::RunShape &run) {
  using model::Param;
  if (!g.batch.expr.mentions(Param::Experts) || !g.env.has(Param::TopK))
    return g.batch.value;
  // The token copies routed to this rank's experts: each of its tokens k
  // times (balanced over the ep ranks, as tokensPerExpert counts them).
  std::optional<int64_t> copies =
      (run.tokens() * model::DimExpr::param(Param::TopK)).eval(g.env);
  if (!copies || *copies <= 0)
    return g.batch.value;
  return std::min(g.batch.value, *copies);
}

bool tshape::cost::runsAtPrecision(model::Role role) {
  // The role's column (RoleInfo::quantized): a weight GEMM the frameworks
  // do not keep in the model's element type.
  return model::roleInfo(role).quantized();
}

double tshape::cost::weightElementBytes(const model::GemmSpec &g,
                                        model::DType dtype,
                                        const model::RunShape *run) {
  if (!run || !run->precision || *run->precision == Precision::BF16 ||
      !runsAtPrecision(g.role))
    return double(model::dtypeBytes(dtype));
  return precisionInfo(*run->precision).bytesPerElement();
}

GemmProblem tshape::cost::gemmProblem(const model::GemmSpec &g,
                                      model::DType dtype,
                                      const model::RunShape *run,
                                      const target::GpuTarget *t) {
  GemmProblem p{g.batch.value, g.m.value, g.n.value, g.k.value,
                dtype,         g.transA,  g.transB};
  p.grouped = g.batch.expr.mentions(model::Param::Experts);
  if (run)
    p.batch = activeGroups(g, *run);
  if (!run || !run->precision || *run->precision == Precision::BF16 ||
      !runsAtPrecision(g.role))
    return p;
  p.dtype = model::DType::FP8;
  const bool block = *run->precision == Precision::MXFP8;
  p.blockScaled = block;
  // The forward quantizes x, the data gradient dY; the weight gradient
  // reads the FP8 copies those casts wrote.
  if (g.pass != model::GemmPass::GradB)
    p.quantize = block ? Quantize::Block : Quantize::PerTensor;
  p.quantizeTranspose = p.quantize != Quantize::None && run->backward() &&
                        (block || (t && t->fp8TnOnly));
  // A gated pair's up projection reads the x its gate's cast wrote: both
  // frameworks run gate and up as one linear layer (Megatron-LM's
  // linear_fc1, vLLM's gate_up_proj), one cast, whichever layout the list
  // states. Its gradient's dY is its own.
  p.inputQuantized = g.pass == model::GemmPass::Forward && g.inputShared;
  return p;
}

AttentionProblem tshape::cost::attentionProblem(const model::AttentionSpec &a,
                                                model::DType dtype) {
  AttentionProblem p;
  p.batch = a.batch.value;
  p.seq = a.queryLen.value;
  p.heads = a.heads.value;
  p.kvHeads = a.kvHeads.value;
  p.headDim = a.headDim.value;
  // The fused model prices a causal sliding band of `window` keys (its
  // masked pairs and key blocks). A chunk of W aligned keys leaves each
  // query (W + 1)/2 keys on average, the pairs of a sliding band of that
  // width (within W/2 pairs per chunk): chunked attention is priced as it.
  p.window = a.chunked ? (a.window.value + 1) / 2 : a.window.value;
  p.causal = a.causal;
  p.dtype = dtype;
  // A prefill chunk over the tokens cached before it: kv length = cached
  // + queries. Over keys not its own (MLA's context): that many keys.
  if (a.cross)
    p.crossKeys = a.kvLen.value;
  else if (a.kvLen.value > a.queryLen.value)
    p.cached = a.kvLen.value - a.queryLen.value;
  // A value head dim of its own only when it differs (MLA's prefill).
  if (a.valueHeadDim.value != a.headDim.value)
    p.valueHeadDim = a.valueHeadDim.value;
  return p;
}

DecodeAttentionProblem
tshape::cost::decodeAttentionProblem(const model::AttentionSpec &a,
                                     model::DType dtype) {
  DecodeAttentionProblem p;
  p.batch = a.batch.value;
  // Speculative decoding: the 1 + draft queries of a sequence are more
  // rows of its kv heads' CTAs (the cache is read once for all of them);
  // the causal mask among them leaves draft j its first kvLen - draft + j
  // keys.
  p.heads = a.heads.value * std::max<int64_t>(1, a.queryLen.value);
  p.draft = std::max<int64_t>(0, a.queryLen.value - 1);
  p.kvHeads = a.kvHeads.value;
  p.headDim = a.headDim.value;
  p.context = a.kvLen.value;
  p.window = a.window.value;
  p.dtype = a.cacheDType.value_or(dtype);
  // A value head dim of its own only when it differs (MLA's latent).
  if (a.valueHeadDim.value != a.headDim.value)
    p.valueHeadDim = a.valueHeadDim.value;
  p.valuesInKeys = a.valuesInKeys;
  return p;
}

namespace {
/// A decode step priced by the decode model, its summary copied into
/// `attention` as well.
void priceDecode(const model::AttentionSpec &a, model::DType dtype,
                 const target::GpuTarget &t, KernelEstimate &e) {
  e.decodeStep = true;
  e.decode = estimateDecodeAttention(decodeAttentionProblem(a, dtype), t);
  const DecodeAttentionEstimate &d = e.decode;
  e.supported = d.supported;
  if (!e.supported)
    e.unsupported = "head_dim " + std::to_string(a.headDim.value) +
                    " has no fused attention kernel on " + t.name;
  FusedAttentionEstimate &f = e.attention;
  f.supported = d.supported;
  f.paddedHeadDim = d.paddedHeadDim;
  f.paddedValueHeadDim =
      a.valueHeadDim.value != a.headDim.value ? a.valueHeadDim.value
                                              : d.paddedHeadDim;
  f.headDimEfficiency = d.headDimEfficiency;
  f.flops = d.flops;
  f.computeUs = d.computeUs;
  f.criticalPathUs = d.scheduleUs;
  f.memoryUs = d.bandwidthUs;
  f.predictedUs = d.predictedUs;
  f.tflops = d.tflops;
  e.predictedUs = d.predictedUs;
  e.flops = d.flops;
  e.fixedUs = d.fixedUs;
  e.memoryBound = d.memoryBound;
  e.bytes = d.bytes;
  e.cacheBytes = d.cacheBytes;
}
} // namespace

CollectiveProblem
tshape::cost::collectiveProblem(const model::CollectiveSpec &c) {
  return {c.op, double(c.bytes.value), c.ranks.value, c.tier};
}

KernelEstimate tshape::cost::predictKernel(const model::Kernel &k,
                                           model::DType dtype,
                                           const target::GpuTarget &t,
                                           const Cluster *cluster,
                                           const model::RunShape *run) {
  KernelEstimate e;
  e.kind = k.kind();
  if (run && run->precision && !t.supports(*run->precision)) {
    e.supported = false;
    e.unsupported = std::string(precisionName(*run->precision)) +
                    " is not supported on " + t.name + " (it supports " +
                    t.precisionList() + ")";
    return e;
  }
  if (const model::GemmSpec *g = k.gemm()) {
    e.gemm = estimateGemm(gemmProblem(*g, dtype, run, &t), t);
    e.supported = e.gemm.supported;
    if (!e.supported)
      e.unsupported = std::string(model::dtypeName(dtype)) +
                      " has no GEMM path on " + t.name;
    e.predictedUs = e.gemm.predictedUs;
    e.flops = e.gemm.flops;
    e.fixedUs = t.launchOverheadUs;
    e.memoryBound = e.gemm.memoryBound;
    e.bytes = e.gemm.bytes;
    // At the run's precision (an FP8 linear layer reads 1-byte weights).
    if (model::roleInfo(g->role).weight)
      e.weightBytes = weightElementBytes(*g, dtype, run) *
                      double(g->n.value) * double(g->k.value);
    e.ridge = t.peakTflops[int(dtype)] * t.mathEfficiency * 1e12 /
              (t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency);
    return e;
  }
  if (const model::AttentionSpec *a = k.attention()) {
    // One query (or a decode step's 1 + draft, grouped) over a longer
    // cache: the decode model. Any other attention, self-attention or a
    // prefill chunk over the tokens cached before it, with one head dim or
    // a value head dim of its own (MLA): the fused model.
    if (!a->cross && a->kvLen.value > a->queryLen.value &&
        (a->queryLen.value == 1 || a->grouped)) {
      priceDecode(*a, dtype, t, e);
      return e;
    }
    if (!a->cross && a->kvLen.value < a->queryLen.value) {
      e.supported = false;
      e.unsupported = "attention of " + std::to_string(a->queryLen.value) +
                      " queries over " + std::to_string(a->kvLen.value) +
                      " keys: the keys hold the queries' own tokens, so the "
                      "kv length must be at least " +
                      std::to_string(a->queryLen.value);
      return e;
    }
    e.attention = estimateAttention(attentionProblem(*a, dtype), t);
    e.supported = e.attention.supported;
    if (!e.supported) {
      e.unsupported = "head_dim " + std::to_string(a->headDim.value);
      if (a->valueHeadDim.value != a->headDim.value)
        e.unsupported +=
            " with v_head_dim " + std::to_string(a->valueHeadDim.value);
      e.unsupported += " has no fused attention kernel on " + t.name;
    }
    // The backward kernel: the forward's work times the target's factor
    // (GpuTarget::attentionBackwardFactor); its useful FLOPs are the four
    // gradient products, twice the forward's.
    if (a->backward && e.supported) {
      FusedAttentionEstimate &f = e.attention;
      // A training step writes no cache: the forward's cache-write term
      // (a serving kernel's) is left out before scaling.
      const double x = t.attentionBackwardFactor;
      f.predictedUs -= f.cacheWriteUs;
      f.cacheWriteUs = 0;
      for (double *us : {&f.computeUs, &f.criticalPathUs, &f.memoryUs,
                         &f.kvStreamUs, &f.predictedUs})
        *us *= x;
      f.flops *= 2;
      f.tflops = f.predictedUs > 0 ? f.flops / (f.predictedUs * 1e6) : 0;
    }
    e.predictedUs = e.attention.predictedUs;
    e.flops = e.attention.flops;
    e.fixedUs = t.attentionOverheadUs;
    e.memoryBound =
        e.attention.memoryUs >=
        std::max(e.attention.computeUs, e.attention.criticalPathUs);
    // The prefill model's memory term: Q, O, and K, V read once, and a
    // chunk's cached K, V read (cache bytes).
    e.bytes = e.attention.bytes;
    e.cacheBytes = e.attention.cacheBytes;
    return e;
  }
  if (const model::ElementwiseSpec *w = k.elementwise()) {
    // Memory-bound: its bytes at the bandwidth the GEMM model reaches
    // (memory_efficiency) plus a launch each (launch_overhead_us); both
    // constants are the GEMM fit's, none is fitted on these kernels.
    e.elementwiseBytes = w->bytes(double(model::dtypeBytes(dtype)));
    e.fixedUs = double(w->count) * t.launchOverheadUs;
    e.predictedUs = e.fixedUs + e.elementwiseBytes / (t.memoryBandwidthGBs *
                                                      1e9 * t.memoryEfficiency) *
                                    1e6;
    e.memoryBound = true;
    e.bytes = e.elementwiseBytes;
    return e;
  }
  if (const model::TopKSpec *s = k.topK()) {
    // Memory-bound: the scores read and the indices written at the
    // bandwidth the GEMM model reaches, plus one launch; not calibrated.
    e.bytes = s->bytes();
    e.fixedUs = t.launchOverheadUs;
    e.memoryBound = true;
    e.predictedUs = e.fixedUs + e.bytes / (t.memoryBandwidthGBs * 1e3 *
                                           t.memoryEfficiency);
    return e;
  }
  if (const model::ScanSpec *s = k.scan()) {
    const double peak = t.peakTflops[int(dtype)];
    const std::optional<int64_t> flops = s->flops();
    if (peak <= 0 || !flops) {
      e.supported = false;
      e.unsupported = !flops ? "the scan's FLOPs overflow"
                             : std::string(model::dtypeName(dtype)) +
                                   " has no tensor-core path on " + t.name;
      return e;
    }
    e.flops = double(*flops);
    e.scan.bytes = s->bytes(double(model::dtypeBytes(dtype)));
    e.scan.stateBytes = s->stateBytes();
    e.scan.computeUs = e.flops / (peak * t.mathEfficiency * 1e6);
    e.scan.memoryUs =
        e.scan.bytes / (t.memoryBandwidthGBs * 1e3 * t.memoryEfficiency);
    e.predictedUs =
        t.launchOverheadUs + std::max(e.scan.computeUs, e.scan.memoryUs);
    e.fixedUs = t.launchOverheadUs;
    e.memoryBound = e.scan.memoryUs >= e.scan.computeUs;
    e.bytes = e.scan.bytes;
    e.cacheBytes = e.scan.stateBytes;
    return e;
  }
  if (const model::CollectiveSpec *c = k.collective()) {
    e.communication = true;
    e.bytes = double(c->bytes.value);
    if (!cluster) {
      e.supported = false;
      e.unsupported = std::string("no cluster given for collective ") +
                      model::collectiveName(c->op) + " (a collective needs "
                      "a cluster: --cluster)";
      return e;
    }
    e.collective = estimateCollective(collectiveProblem(*c), *cluster);
    e.supported = e.collective.supported;
    e.unsupported = e.collective.unsupported;
    e.predictedUs = e.collective.predictedUs;
    return e;
  }
  e.supported = false;
  e.unsupported = std::string("no model for ") +
                  model::kernelKindName(k.kind()) + " yet";
  return e;
}
