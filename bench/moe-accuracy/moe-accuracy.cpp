//===- moe-accuracy.cpp - tshape's MoE layer against measured layers ------===//
//
// Reads ../shared/data/measured/moe-h100-sxm.csv (aiconfigurator's fused
// MoE layers: routing, both grouped expert GEMMs, activation), groups the
// repeated keys (their latencies averaged), and prices each layer with
// the MoE block (Blocks/Moe.cpp): its grouped expert GEMMs through
// predictKernel, plus the memory-bound permutation and activation bytes.
// The layer's `tokens` enter on the measured rank and its E/ep experts
// get tokens*k/E each (balanced), so the config is b*s = tokens/ep, ep =
// moe_ep: tokensPerExpert = ceil((tokens/ep)*k/(E/ep)) = ceil(tokens*k/E).
// Nothing is fitted. Shapes are split in two by a hash of the shape (not
// the distribution or dtype): half "held out". Prints median and p90 of
// |predicted - measured| / measured per dtype and distribution class.
// Usage: tshape-moe-accuracy <moe-h100-sxm.csv>  (docs/model-accuracy.md)
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Transformer.h"
#include "tshape/Target/GpuTarget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace tshape;

namespace {
struct Key {
  std::string dtype, dist;
  int64_t tokens, hidden, inter, topk, experts, tp, ep;
  auto tie() const {
    return std::tie(dtype, dist, tokens, hidden, inter, topk, experts, tp, ep);
  }
  bool operator<(const Key &o) const { return tie() < o.tie(); }
};

/// The predicted microseconds of one fused MoE layer, or -1.
double predict(const Key &k, const target::GpuTarget &t) {
  model::ModelConfig c;
  c.dtype = k.dtype == "fp8" ? model::DType::FP8 : model::DType::BF16;
  if (k.tokens % k.ep || k.experts % k.ep || k.inter % k.tp)
    return -1;
  c.microbatch = 1;
  c.seq = k.tokens / k.ep;
  c.hidden = k.hidden;
  c.vocab = k.tp;
  c.attention.heads = c.attention.kvHeads = 1;
  c.layerBlocks = {model::BlockKind::Moe};
  c.moe.experts = k.experts;
  c.moe.topk = k.topk;
  c.moe.inner = k.inter;
  c.parallel.tp = k.tp;
  c.parallel.ep = k.ep;
  double us = 0;
  for (const model::Kernel &kn : model::forwardKernels(
           model::BlockKind::Moe, c, model::RunShape::prefill(), 0)) {
    // The fused layer takes the router's logits as input and runs no
    // all-to-all: its expert GEMMs only.
    if (kn.role() == model::Role::MoeRouter || kn.collective())
      continue;
    cost::KernelEstimate e = cost::predictKernel(kn, c.dtype, t);
    if (!e.supported)
      return -1;
    us += e.predictedUs;
  }
  // Memory-bound work: gather the k copies of each token (read, write h),
  // the activation (read 2 f/t, write f/t) and the weighted sum back (read
  // k copies, write one), in the activation's bytes.
  const double e = double(model::dtypeBytes(model::DType::BF16));
  const double copies = double(k.tokens) * double(k.topk) / double(k.ep);
  const double bytes =
      e * (copies * (2.0 * k.hidden + 3.0 * k.inter / k.tp + k.hidden) +
           double(k.tokens) * k.hidden);
  us += bytes / (t.memoryBandwidthGBs * 1e9 * t.memoryEfficiency) * 1e6;
  return us;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}
} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: tshape-moe-accuracy <moe-h100-sxm.csv>\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  if (!in) {
    std::fprintf(stderr, "tshape-moe-accuracy: cannot read %s\n", argv[1]);
    return 1;
  }
  const target::GpuTarget *t = target::findBuiltinTarget("h100-sxm");
  std::map<Key, std::vector<double>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line.rfind("gpu,", 0) == 0)
      continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() < 11)
      continue;
    Key k{f[1], f[9].rfind("power_law", 0) == 0 ? "power_law" : f[9],
          std::stoll(f[2]), std::stoll(f[3]), std::stoll(f[4]),
          std::stoll(f[5]), std::stoll(f[6]), std::stoll(f[7]),
          std::stoll(f[8])};
    // Power-law rows of different exponents stay apart: key the exponent.
    if (k.dist == "power_law")
      k.dist = f[9];
    rows[k].push_back(std::stod(f[10]));
  }
  // class -> (all errors, held-out errors)
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> err;
  size_t unpriced = 0;
  for (const auto &[k, lat] : rows) {
    double measured = 0;
    for (double l : lat)
      measured += l;
    measured /= double(lat.size());
    double p = predict(k, *t);
    if (p < 0 || measured <= 0) {
      ++unpriced;
      continue;
    }
    const std::string cls =
        k.dtype + " " + (k.dist == "balanced" ? "balanced" : "power_law");
    size_t h = std::hash<std::string>()(
        std::to_string(k.tokens) + "," + std::to_string(k.hidden) + "," +
        std::to_string(k.inter) + "," + std::to_string(k.topk) + "," +
        std::to_string(k.experts) + "," + std::to_string(k.tp) + "," +
        std::to_string(k.ep));
    const double e = std::fabs(p - measured) / measured;
    err[cls].first.push_back(e);
    if (h % 2)
      err[cls].second.push_back(e);
  }
  std::printf("%zu distinct keys (%zu not priced)\n", rows.size(), unpriced);
  std::printf("%-18s %8s %8s %8s | %8s %8s %8s\n", "class", "n", "median",
              "p90", "held-out", "median", "p90");
  for (const auto &[cls, e] : err)
    std::printf("%-18s %8zu %7.1f%% %7.1f%% | %8zu %7.1f%% %7.1f%%\n",
                cls.c_str(), e.first.size(), 100 * quantile(e.first, 0.5),
                100 * quantile(e.first, 0.9), e.second.size(),
                100 * quantile(e.second, 0.5), 100 * quantile(e.second, 0.9));
  return 0;
}
