//===- MoeLayer.cpp - One fused mixture-of-experts layer ------------------===//
//
// The layer's kernels from the MoE block, and the routed load of the
// measured rank under a skewed routing (moeRankLoad).
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/MoeLayer.h"

#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Params.h"
#include "tshape/Model/Transformer.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <map>
#include <mutex>
#include <tuple>
#include <vector>

using namespace tshape;
using namespace tshape::cost;

double tshape::cost::moeMemoryBytes(double copies, double tokens, int64_t h,
                                    int64_t f, int64_t e) {
  return double(e) * (copies * (2.0 * double(h) + 3.0 * double(f) + double(h)) +
                      tokens * double(h));
}

MoeLayerEstimate tshape::cost::estimateMoeMemory(const model::ModelConfig &c,
                                                 const model::RunShape &run,
                                                 const target::GpuTarget &t) {
  MoeLayerEstimate m;
  const model::Bindings env = model::bindings(c);
  std::optional<int64_t> tokens = run.tokens().eval(env);
  std::optional<int64_t> f = model::perRank(model::Param::MoeFfn).eval(env);
  if (!tokens || !f) {
    m.supported = false;
    m.unsupported = "the MoE layer's tokens or expert inner size per rank "
                    "are not whole numbers";
    return m;
  }
  // Activations stay in the model's element type (bf16 under fp8 too).
  const int64_t eb =
      c.dtype == model::DType::FP8 ? 2 : model::dtypeBytes(c.dtype);
  m.memoryBytes = moeMemoryBytes(double(*tokens) * double(c.moe.topk),
                                 double(*tokens), c.hidden, *f, eb);
  m.memoryUs = m.memoryBytes /
               (t.memoryBandwidthGBs * 1e9 * t.moeMemoryEfficiency) * 1e6;
  m.predictedUs = m.memoryUs + t.moeOverheadUs;
  return m;
}

MoeLayerEstimate tshape::cost::estimateMoeLayer(const model::ModelConfig &c,
                                                const model::RunShape &run,
                                                const target::GpuTarget &t,
                                                int64_t layer,
                                                int64_t maskedEp,
                                                double activeExperts) {
  MoeLayerEstimate m;
  // fused_moe holds gate and up as one weight (w13) and runs them as one
  // grouped GEMM of width 2f: two expert GEMMs per layer, each quantizing
  // its input once under fp8, whatever layout the config's dense MLPs take.
  model::ModelConfig fused = c;
  fused.mlp.fusedGateUp = true;
  for (const model::Kernel &k : model::moeKernels(fused, run, layer)) {
    // The fused layer starts from the router's logits and sends nothing
    // between ranks: its grouped expert GEMMs (and shared experts, when
    // the block has them).
    if (k.role() == model::Role::MoeRouter || k.collective())
      continue;
    model::Kernel local = k;
    if (model::GemmSpec *g = local.gemm();
        g && maskedEp > 1 && g->batch.expr.mentions(model::Param::Experts))
      g->batch.value = (g->batch.value + maskedEp - 1) / maskedEp;
    if (model::GemmSpec *g = local.gemm(); g && activeExperts > 0 &&
                                           g->batch.expr.mentions(
                                               model::Param::Experts))
      g->batch.value = std::min(
          g->batch.value, std::max<int64_t>(1, std::llround(activeExperts)));
    KernelEstimate e = predictKernel(local, c.dtype, t, nullptr, &run);
    if (!e.supported) {
      m.supported = false;
      m.unsupported = e.unsupported;
      return m;
    }
    m.gemmUs += e.predictedUs;
  }
  const double gemmUs = m.gemmUs;
  m = estimateMoeMemory(c, run, t);
  m.gemmUs = gemmUs;
  m.predictedUs += gemmUs;
  return m;
}

int64_t tshape::cost::MoeRankLoad::capacity() const {
  if (!(activeExperts > 0) || !(balanced > 0))
    return 100;
  return std::max<int64_t>(
      100, std::llround(100.0 * copies / activeExperts / balanced));
}

MoeRankShare tshape::cost::moeBusiestRank(const std::vector<int64_t> &counts,
                                          const std::vector<bool> &tie,
                                          int64_t ep) {
  MoeRankShare s;
  const int64_t experts = int64_t(counts.size());
  ep = std::clamp<int64_t>(ep, 1, std::max<int64_t>(1, experts));
  const int64_t perRank = std::max<int64_t>(1, experts / ep);
  std::vector<int64_t> placed; // the sample's experts with a count
  double tieExperts = 0, tieCopies = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] <= 0)
      continue;
    if (i < tie.size() && tie[i]) {
      tieExperts += 1;
      tieCopies += double(counts[i]);
    } else {
      placed.push_back(counts[i]);
    }
  }
  // Ties spread over the ranks: the rank gets ceil(ties / ep) of them.
  const double tieShare = std::ceil(tieExperts / double(ep));
  const double tieCount = tieExperts > 0 ? tieCopies / tieExperts : 0;
  // The sample's experts at uniformly random positions (the collector draws
  // the law per expert index), the rank of the largest sum measured: the
  // mean over kMoeRankTrials placements by a fixed-seed splitmix64, so the
  // result is a deterministic function of its arguments.
  std::vector<int64_t> slot(static_cast<size_t>(experts));
  std::iota(slot.begin(), slot.end(), int64_t(0));
  std::vector<double> sum(static_cast<size_t>(ep)),
      active(static_cast<size_t>(ep)), most(static_cast<size_t>(ep));
  uint64_t state = 0x9e3779b97f4a7c15ull;
  auto next = [&state]() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  double copies = 0, busy = 0, busiest = 0;
  for (int trial = 0; trial < kMoeRankTrials; ++trial) {
    std::fill(sum.begin(), sum.end(), 0.0);
    std::fill(active.begin(), active.end(), 0.0);
    std::fill(most.begin(), most.end(), 0.0);
    for (size_t i = 0; i < placed.size(); ++i) {
      // Partial Fisher-Yates: slot[i] becomes a uniform pick of the rest.
      size_t j = i + size_t(next() % uint64_t(experts - int64_t(i)));
      std::swap(slot[i], slot[j]);
      size_t r = size_t(std::min(slot[i] / perRank, ep - 1));
      sum[r] += double(placed[i]);
      active[r] += 1;
      most[r] = std::max(most[r], double(placed[i]));
    }
    size_t best = size_t(std::max_element(sum.begin(), sum.end()) -
                         sum.begin());
    copies += sum[best];
    busy += active[best];
    busiest += most[best];
  }
  s.copies = copies / kMoeRankTrials + tieShare * tieCount;
  s.activeExperts = busy / kMoeRankTrials + tieShare;
  s.busiestExpert =
      std::max(busiest / kMoeRankTrials, tieShare > 0 ? tieCount : 0.0);
  return s;
}

namespace {
MoeRankLoad powerLawRankLoad(int64_t tokens, int64_t experts, int64_t topk,
                             int64_t ep, double a, MoeRankLoad l) {
  const int64_t total = tokens * topk;
  // The expected sample: the power law's quantiles at (i + 1/2)/E, by its
  // inverse CDF ((hi^(1-a) - lo^(1-a)) u + lo^(1-a))^(1/(1-a)).
  const bool many = total > experts;
  const double lo = many ? 1.0 : 0.01;
  const double hi = std::max(lo, many ? 0.8 * double(tokens) : 2.0);
  const double lo1 = std::pow(lo, 1 - a), hi1 = std::pow(hi, 1 - a);
  std::vector<double> x(static_cast<size_t>(experts));
  for (int64_t i = 0; i < experts; ++i)
    x[size_t(i)] = std::pow((hi1 - lo1) * (double(i) + 0.5) / double(experts) +
                                lo1,
                            1 / (1 - a));
  const double sum = std::accumulate(x.begin(), x.end(), 0.0);
  // Scaled to tokens x k and rounded; the difference is added to the
  // largest counts (or taken from the smallest non-zero ones) one at a
  // time, as the collector does. A unit added to an expert that rounded to
  // 0 lands where the collector's sort puts its ties (`tie`).
  std::vector<int64_t> n(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    n[i] = std::llround(x[i] / sum * double(total));
  std::sort(n.begin(), n.end(), std::greater<int64_t>());
  std::vector<bool> tie(n.size(), false);
  int64_t delta = total - std::accumulate(n.begin(), n.end(), int64_t(0));
  for (size_t i = 0; delta > 0; ++i, --delta) {
    if (n[i % n.size()] == 0)
      tie[i % n.size()] = true;
    ++n[i % n.size()];
  }
  for (size_t i = n.size(); delta < 0 && i > 0;) {
    --i;
    int64_t take = std::min(n[i], -delta);
    n[i] -= take;
    delta += take;
  }
  // A token picks an expert once: counts above `tokens` spill to experts
  // with fewer, the emptiest first.
  int64_t spill = 0;
  for (int64_t &v : n)
    if (v > tokens) {
      spill += v - tokens;
      v = tokens;
    }
  for (size_t i = n.size(); spill > 0 && i > 0;) {
    --i;
    int64_t give = std::min(tokens - n[i], spill);
    n[i] += give;
    spill -= give;
  }
  l.busiestExpert = double(*std::max_element(n.begin(), n.end()));
  if (ep == 1) {
    l.copies = double(total);
    l.activeExperts = double(
        std::count_if(n.begin(), n.end(), [](int64_t v) { return v > 0; }));
    return l;
  }
  MoeRankShare s = moeBusiestRank(n, tie, ep);
  l.copies = s.copies;
  l.activeExperts = std::max(1.0, s.activeExperts);
  l.busiestExpert = std::max(1.0, s.busiestExpert);
  return l;
}
} // namespace

MoeRankLoad tshape::cost::moeRankLoad(int64_t tokens, int64_t experts,
                                      int64_t topk, int64_t ep,
                                      const MoeRouting &routing) {
  MoeRankLoad l;
  if (experts < 1 || tokens < 1 || topk < 1)
    return l;
  const int64_t total = tokens * topk;
  ep = std::max<int64_t>(1, ep);
  const int64_t perRank = std::max<int64_t>(1, experts / ep);
  l.balanced = double(total) / double(experts);
  // Beyond kMaxMoeExperts no count per expert is kept: balanced.
  if (!(routing.powerLaw > 1) || experts > kMaxMoeExperts) {
    // tokens x k / ep copies on the rank, one per expert while fewer than
    // its E/ep experts; at least one (the collector's balanced assignment
    // starts every token's picks at expert 0, on the measured rank).
    l.activeExperts = double(std::min<int64_t>(
        perRank, std::max<int64_t>(1, (total + ep - 1) / ep)));
    l.copies = std::max(double(total) / double(ep), l.activeExperts);
    l.busiestExpert = std::ceil(l.balanced);
    return l;
  }
  // Placing the experts on ranks averages many draws: keep the answer
  // per problem (tshape-predict and the calibration ask for the same rows
  // again and again).
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, double>;
  static std::mutex cacheMutex;
  static std::map<Key, MoeRankLoad> cache;
  const Key key{tokens, experts, topk, ep, routing.powerLaw};
  {
    std::lock_guard<std::mutex> lock(cacheMutex);
    if (auto it = cache.find(key); it != cache.end())
      return it->second;
  }
  l = powerLawRankLoad(tokens, experts, topk, ep, routing.powerLaw, l);
  std::lock_guard<std::mutex> lock(cacheMutex);
  if (cache.size() >= kMoeRankCacheSize)
    cache.clear();
  cache.emplace(key, l);
  return l;
}


MoeLayerEstimate tshape::cost::estimateMoeLayer(const MoeLayerProblem &p,
                                                const target::GpuTarget &t) {
  MoeLayerEstimate m;
  if (p.experts < 1 || p.experts > kMaxMoeExperts || p.topk < 1 ||
      p.topk > p.experts) {
    m.supported = false;
    m.unsupported = "experts (" + std::to_string(p.experts) +
                    ") must be in [1, " + std::to_string(kMaxMoeExperts) +
                    "] and topk (" + std::to_string(p.topk) +
                    ") in [1, experts]";
    return m;
  }
  if (p.ep < 1 || p.tp < 1 || p.experts % p.ep || p.inter % p.tp) {
    m.supported = false;
    m.unsupported = "experts (" + std::to_string(p.experts) +
                    ") must divide by moe_ep (" + std::to_string(p.ep) +
                    ") and inter (" + std::to_string(p.inter) +
                    ") by moe_tp (" + std::to_string(p.tp) + ")";
    return m;
  }
  model::ModelConfig c = model::moeLayerConfig(p.tokens, p.hidden, p.experts,
                                               p.topk, p.inter, p.tp);
  model::RunShape run = model::RunShape::prefill();
  // fp8: bf16 activations, FP8 expert GEMMs with per-tensor scaling
  // (vLLM's fused_moe quantizes the tokens it feeds them).
  if (p.dtype == DType::FP8)
    run.precision = Precision::FP8;
  else
    c.dtype = p.dtype;
  // The rank's active experts under either routing (with masking, a rank
  // of ep > 1 gets tokens x k / ep balanced copies); a skewed routing's
  // load also as the block's capacity.
  MoeRankLoad l = moeRankLoad(p.tokens, p.experts, p.topk, p.ep, p.routing);
  if (p.routing.powerLaw > 1)
    c.moe.capacity = l.capacity();
  return estimateMoeLayer(c, run, t, 0, p.ep, l.activeExperts);
}
