//===- moe-accuracy.cpp - tshape's MoE layer against measured layers ------===//
//
// Reads ../shared/data/measured/moe-h100-sxm.csv (aiconfigurator's fused
// MoE layers through vLLM 0.19's fused_moe: routing, both grouped expert
// GEMMs, activation), averages the repeated keys, and prices each layer
// with cost::estimateMoeLayer (Cost/MoeLayer.h): the MoE block's grouped
// expert GEMMs over the experts that get a token, min(E/ep, tokens x k),
// through predictKernel, plus the permutation and activation bytes and a
// fixed cost. The layer's `tokens` enter on the measured rank (the data's
// README) and are routed over all E experts; with moe_ep > 1 the rank runs
// vLLM's expert parallelism by masking (every rank holds every token and
// computes its E/ep experts' groups: estimateMoeLayer's maskedEp), so the
// config is b*s = tokens, ep 1, tokensPerExpert = ceil(tokens*k/E). fp8
// layers run at precision fp8 (FP8 expert GEMMs, each quantizing its
// input).
//
// Split: a fixed hash (splitmix64) of the shape (tokens, hidden, inter,
// topk, experts, moe_tp, moe_ep), not of the dtype or distribution: half
// the shapes are held out, and every repeat, dtype and distribution of a
// shape falls on one side.
//
//   tshape-moe-accuracy [--target-file=T.json] FILE
//       the built-in h100-sxm's constants (or T's)
//   tshape-moe-accuracy --fit [--target-file=T.json] [-o OUT.json] FILE
//       fit the MoE constants (target::FitGroup::MoeLayer, from their
//       guesses) on the fitting half, report before and after; OUT.json
//       gets the fitted constants and the figures (what
//       bench/model-accuracy.sh reads)
//
// docs/model-accuracy.md#moe-layers records the figures.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/MoeLayer.h"
#include "tshape/Model/Transformer.h"
#include "tshape/Target/GpuTarget.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
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

struct Layer {
  Key key;
  double measured = 0;
  bool heldOut = false;
  std::string cls; ///< "bf16 balanced", "fp8 power_law", ...
};

uint64_t splitmix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

bool heldOut(const Key &k) {
  uint64_t h = 0;
  for (int64_t v : {k.tokens, k.hidden, k.inter, k.topk, k.experts, k.tp, k.ep})
    h = splitmix(h * 0x9e3779b97f4a7c15ull + uint64_t(v));
  return h & 1;
}

/// The predicted microseconds of one fused MoE layer, or -1.
double predict(const Key &k, const target::GpuTarget &t) {
  if (k.experts % k.ep || k.inter % k.tp)
    return -1;
  model::ModelConfig c;
  model::RunShape run = model::RunShape::prefill();
  // fp8 layers: bf16 activations, FP8 expert GEMMs with per-tensor
  // scaling (vLLM's fused_moe quantizes the tokens it feeds them).
  if (k.dtype == "fp8")
    run.precision = Precision::FP8;
  c.microbatch = 1;
  c.seq = k.tokens;
  c.hidden = k.hidden;
  c.vocab = k.tp;
  c.attention.heads = c.attention.kvHeads = 1;
  c.layerBlocks = {model::BlockKind::Moe};
  c.moe.experts = k.experts;
  c.moe.topk = k.topk;
  c.moe.inner = k.inter;
  c.parallel.tp = k.tp;
  cost::MoeLayerEstimate e = cost::estimateMoeLayer(c, run, t, 0, k.ep);
  return e.supported ? e.predictedUs : -1;
}

double quantile(std::vector<double> v, double q) {
  if (v.empty())
    return 0;
  std::sort(v.begin(), v.end());
  return v[size_t(q * double(v.size() - 1) + 0.5)];
}

/// Mean |log(predicted / measured)| over `layers`.
double loss(const std::vector<const Layer *> &layers,
            const target::GpuTarget &t) {
  double sum = 0;
  size_t n = 0;
  for (const Layer *l : layers) {
    double p = predict(l->key, t);
    if (p > 0) {
      sum += std::fabs(std::log(p / l->measured));
      ++n;
    }
  }
  return n ? sum / double(n) : 0;
}

/// Coordinate search over the MoE constants (target::FitGroup::MoeLayer):
/// each in turn set to the best of 21 values across its window, six
/// rounds, the window halving around the best value each round.
target::GpuTarget fit(const std::vector<const Layer *> &use,
                      target::GpuTarget t) {
  std::vector<const target::ModelConstant *> params;
  std::vector<double> width;
  for (const target::ModelConstant &c : target::modelConstants())
    if (c.group == target::FitGroup::MoeLayer) {
      params.push_back(&c);
      width.push_back(c.hi - c.lo);
    }
  double best = loss(use, t);
  for (int round = 0; round < 6; ++round)
    for (size_t i = 0; i < params.size(); ++i) {
      const target::ModelConstant &p = *params[i];
      double centre = t.*p.field;
      double lo = std::max(p.lo, centre - width[i] / 2);
      double hi = std::min(p.hi, centre + width[i] / 2);
      for (int step = 0; step <= 20; ++step) {
        target::GpuTarget c = t;
        c.*p.field = lo + (hi - lo) * step / 20.0;
        double s = loss(use, c);
        if (s < best - 1e-12) {
          best = s;
          t = c;
        }
      }
      width[i] /= 2;
    }
  return t;
}

/// Per class: (all errors, held-out errors).
using Errors =
    std::map<std::string, std::pair<std::vector<double>, std::vector<double>>>;

Errors errors(const std::vector<Layer> &layers, const target::GpuTarget &t,
              size_t &unpriced) {
  Errors err;
  unpriced = 0;
  for (const Layer &l : layers) {
    double p = predict(l.key, t);
    if (p < 0) {
      ++unpriced;
      continue;
    }
    double e = std::fabs(p - l.measured) / l.measured;
    err[l.cls].first.push_back(e);
    if (l.heldOut)
      err[l.cls].second.push_back(e);
  }
  return err;
}

llvm::json::Object figures(const Errors &err) {
  llvm::json::Object o;
  for (const auto &[cls, e] : err)
    o[cls] = llvm::json::Object{{"keys", int64_t(e.first.size())},
                                {"median", quantile(e.first, 0.5)},
                                {"p90", quantile(e.first, 0.9)},
                                {"held_out_keys", int64_t(e.second.size())},
                                {"held_out_median", quantile(e.second, 0.5)},
                                {"held_out_p90", quantile(e.second, 0.9)}};
  return o;
}

void print(const char *title, const Errors &err) {
  std::printf("%s\n%-18s %8s %8s %8s | %8s %8s %8s\n", title, "class", "n",
              "median", "p90", "held-out", "median", "p90");
  for (const auto &[cls, e] : err)
    std::printf("%-18s %8zu %7.1f%% %7.1f%% | %8zu %7.1f%% %7.1f%%\n",
                cls.c_str(), e.first.size(), 100 * quantile(e.first, 0.5),
                100 * quantile(e.first, 0.9), e.second.size(),
                100 * quantile(e.second, 0.5), 100 * quantile(e.second, 0.9));
}
} // namespace

int main(int argc, char **argv) {
  bool doFit = false;
  std::string targetFile, outPath, path;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--fit")
      doFit = true;
    else if (a.rfind("--target-file=", 0) == 0)
      targetFile = a.substr(14);
    else if (a == "-o" && i + 1 < argc)
      outPath = argv[++i];
    else if (path.empty() && a[0] != '-')
      path = a;
    else
      path.clear(), i = argc;
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: tshape-moe-accuracy [--fit] "
                         "[--target-file=T.json] [-o OUT.json] "
                         "<moe-h100-sxm.csv>\n");
    return 2;
  }
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "tshape-moe-accuracy: cannot read %s\n", path.c_str());
    return 1;
  }
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
    // Power-law rows of different exponents stay apart: the key keeps the
    // exponent.
    Key k{f[1],
          f[9],
          std::stoll(f[2]),
          std::stoll(f[3]),
          std::stoll(f[4]),
          std::stoll(f[5]),
          std::stoll(f[6]),
          std::stoll(f[7]),
          std::stoll(f[8])};
    rows[k].push_back(std::stod(f[10]));
  }
  std::vector<Layer> layers;
  for (const auto &[k, lat] : rows) {
    Layer l;
    l.key = k;
    for (double v : lat)
      l.measured += v;
    l.measured /= double(lat.size());
    l.heldOut = heldOut(k);
    l.cls = k.dtype + " " + (k.dist == "balanced" ? "balanced" : "power_law");
    if (l.measured > 0)
      layers.push_back(l);
  }
  std::string error;
  std::optional<target::GpuTarget> resolved =
      target::resolveTarget("h100-sxm", targetFile, error);
  if (!resolved) {
    std::fprintf(stderr, "tshape-moe-accuracy: %s\n", error.c_str());
    return 1;
  }
  target::GpuTarget t = *resolved;
  size_t unpriced = 0;
  llvm::json::Object out;
  if (doFit) {
    target::GpuTarget guess = t;
    const target::GpuTarget defaults;
    for (const target::ModelConstant &c : target::modelConstants())
      if (c.group == target::FitGroup::MoeLayer)
        guess.*c.field = defaults.*c.field;
    std::vector<const Layer *> use;
    for (const Layer &l : layers)
      if (!l.heldOut)
        use.push_back(&l);
    // A fixed stride sample of at most 3,000 fitting layers.
    if (use.size() > 3000) {
      std::vector<const Layer *> s;
      for (size_t i = 0; i < 3000; ++i)
        s.push_back(use[i * use.size() / 3000]);
      use = s;
    }
    Errors before = errors(layers, guess, unpriced);
    t = fit(use, guess);
    std::printf("%zu distinct keys (%zu not priced), fitted on %zu "
                "fitting keys\n",
                layers.size() + 0, unpriced, use.size());
    print("before (MoE constants at their guesses):", before);
    out["before"] = figures(before);
    out["fit_keys"] = int64_t(use.size());
    llvm::json::Object constants;
    std::printf("fitted:");
    for (const target::ModelConstant &c : target::modelConstants())
      if (c.group == target::FitGroup::MoeLayer) {
        std::printf(" %s %.4g", c.key, t.*c.field);
        constants[c.key] = std::round(t.*c.field * 1e4) / 1e4;
      }
    std::printf("\n");
    out["constants"] = std::move(constants);
  }
  Errors after = errors(layers, t, unpriced);
  if (!doFit)
    std::printf("%zu distinct keys (%zu not priced)\n", layers.size(),
                unpriced);
  print(doFit ? "after:" : "built-in h100-sxm:", after);
  out["after"] = figures(after);
  out["keys"] = int64_t(layers.size());
  out["unpriced"] = int64_t(unpriced);
  if (!outPath.empty()) {
    std::error_code ec;
    llvm::raw_fd_ostream os(outPath, ec);
    if (ec) {
      std::fprintf(stderr, "tshape-moe-accuracy: cannot write %s: %s\n",
                   outPath.c_str(), ec.message().c_str());
      return 1;
    }
    os << llvm::formatv("{0:2}", llvm::json::Value(std::move(out))) << "\n";
  }
  return 0;
}
