//===- InferenceFindings.cpp - What a serving step's shape costs ----------===//

#include "tshape/Advise/InferenceFindings.h"

#include <algorithm>
#include <cstdio>

using namespace tshape;
using namespace tshape::advise;
using model::Param;

namespace {
std::string fmt(const char *f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string kib(double bytes) { return fmt("%.0f KiB", bytes / 1024.0); }

/// Whether the GEMM `role` of one layer (or the logits) is memory-bound
/// at `batch` sequences.
std::optional<bool> memoryBoundAt(const model::ModelConfig &c,
                                  const model::RunShape &run, model::Role role,
                                  const target::GpuTarget &t, int64_t batch) {
  model::ModelConfig n = c;
  n.microbatch = batch;
  std::vector<model::Kernel> ks = model::layerKernels(n, run, 0);
  std::vector<model::Kernel> head = model::modelBlockKernels(n, run);
  ks.insert(ks.end(), head.begin(), head.end());
  for (const model::Kernel &k : ks)
    if (const model::GemmSpec *g = k.gemm(); g && g->role == role)
      return cost::estimateGemm(cost::gemmProblem(*g, c.dtype, &run, &t), t)
          .memoryBound; // at the run's precision, as the step prices it
  return std::nullopt;
}

/// The step of `c2` (a changed model or run) as `inferenceFindings` reports
/// it: its time and the largest batch that fits.
std::pair<double, int64_t> stepOf(const model::ModelConfig &c2,
                                  const model::RunShape &run2,
                                  const target::GpuTarget &t,
                                  const cost::InferenceOptions &o) {
  std::string err;
  auto e = cost::estimateInference(c2, run2, t, o, err);
  return e ? std::make_pair(e->stepUs, e->memory.maxBatch)
           : std::make_pair(0.0, int64_t(0));
}
} // namespace

int64_t tshape::advise::computeBoundBatch(const model::ModelConfig &c,
                                          const model::RunShape &run,
                                          model::Role role,
                                          const target::GpuTarget &t,
                                          int64_t limit) {
  // Memory-bound at small M, compute-bound from some M on: find the first
  // batch by doubling, then bisect (the tile choice can make the boundary
  // ragged; the first batch of the bisection is what is reported).
  std::optional<bool> at1 = memoryBoundAt(c, run, role, t, 1);
  if (!at1)
    return 0;
  if (!*at1)
    return 1;
  int64_t lo = 1, hi = 2;
  while (hi <= limit && memoryBoundAt(c, run, role, t, hi).value_or(true)) {
    lo = hi;
    hi *= 2;
  }
  if (hi > limit)
    return 0;
  while (hi - lo > 1) {
    int64_t mid = lo + (hi - lo) / 2;
    if (memoryBoundAt(c, run, role, t, mid).value_or(true))
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

std::vector<InferenceFinding> tshape::advise::inferenceFindings(
    const model::ModelConfig &c, const model::RunShape &run,
    const target::GpuTarget &t, const cost::InferenceOptions &o,
    const cost::InferenceEstimate &est) {
  std::vector<InferenceFinding> out;
  const model::Bindings env = model::bindings(c);
  const int64_t q = est.queries;

  // The batch that leaves the memory-bound regime: per weight GEMM of the
  // step, the first batch at which it is compute-bound.
  {
    InferenceFinding f;
    f.kind = "memory-bound-batch";
    f.parameter = Param::Microbatch;
    f.value = c.microbatch;
    std::string parts;
    int64_t first = 0, last = 0;
    std::vector<model::Role> seen;
    for (const cost::InferenceKernel &k : est.kernels) {
      std::optional<std::pair<model::Role, model::GemmPass>> r =
          model::parseGemmName(k.name);
      if (k.kind != model::KernelKind::Gemm || !r ||
          !model::roleInfo(r->first).weight ||
          std::count(seen.begin(), seen.end(), r->first))
        continue;
      seen.push_back(r->first);
      int64_t b = computeBoundBatch(c, run, r->first, t);
      parts += (parts.empty() ? "" : ", ") + k.name + " " +
               (b ? std::to_string(b) : ">16384");
      if (b) {
        first = first ? std::min(first, b) : b;
        last = std::max(last, b);
      }
    }
    f.suggested = last;
    std::string what = run.phase == model::Phase::Decode
                           ? "decode at batch " + std::to_string(c.microbatch)
                           : "this prefill";
    bool bound = last && c.microbatch >= last;
    auto tokens = [](int64_t n) {
      return std::to_string(n) + (n == 1 ? " token" : " tokens");
    };
    f.message = "batch " + std::to_string(c.microbatch) + " (x " +
                tokens(q) + " each): the weight GEMMs are " +
                (bound ? "compute-bound"
                       : "memory-bound: each weight is read for " +
                             tokens(c.microbatch * q)) +
                "; compute-bound from batch (per GEMM) " + parts + " on " +
                t.name + " (" + what + ")";
    if (last && est.memory.maxBatch >= 0 && last > est.memory.maxBatch)
      f.message += "; the largest batch that fits is " +
                   std::to_string(est.memory.maxBatch) +
                   ", so the memory caps the batch first";
    out.push_back(f);
  }

  // The KV cache: bytes per token from the blocks' state components (an
  // attention's K and V, MLA's latent), said from the same components, and
  // what fewer kv heads (the next GQA group that divides the heads and
  // keeps tp's rule) or an fp8 cache would save.
  const double perToken = cost::cacheBytesPerToken(c, run);
  if (est.keys > q && perToken > 0) {
    const int64_t a = c.attention.heads,
                  g = c.attention.kvHeads ? c.attention.kvHeads : a;
    const double cacheUs = est.shares.cacheUs;
    // The first per-key component names the size behind the cache; the
    // cache is "the same on every rank" when no component is split.
    const std::vector<model::LayerState> state = model::modelState(c);
    const model::StateComponent *first = nullptr;
    bool whole = true;
    for (const model::LayerState &ls : state)
      for (const model::StateComponent &sc : ls.components)
        if (sc.perToken) {
          first = first ? first : &sc;
          whole &= sc.wholeOnEveryRank;
        }
    InferenceFinding f;
    f.kind = "kv-cache";
    f.parameter = first->parameter;
    f.value = getParam(c, f.parameter);
    f.message = "KV cache: " + kib(perToken) + " per token per GPU (" +
                cost::stateFormula(c, run, /*perToken=*/true) +
                (whole ? ", the same on every rank" : "") +
                "); reading it takes " +
                fmt("%.0f%%", 100 * cacheUs / std::max(est.stepUs, 1e-9)) +
                " of the step";
    if (const double fixed = cost::cacheBytesPerSequence(c, run, 0); fixed > 0)
      f.message += "; and " + kib(fixed) + " per sequence of fixed state (" +
                   cost::stateFormula(c, run, /*perToken=*/false) + ")";
    if (f.parameter == Param::KvHeads) {
      int64_t g2 = 0;
      for (int64_t cand = g / 2; cand >= 1; --cand) {
        model::ModelConfig n = c;
        n.attention.kvHeads = cand;
        if (a % cand == 0 && !model::checkModel(n)) {
          g2 = cand;
          break;
        }
      }
      if (g2) {
        model::ModelConfig n = c;
        n.attention.kvHeads = g2;
        auto [us, maxB] = stepOf(n, run, t, o);
        f.suggested = g2;
        f.stepUsAfter = us;
        f.maxBatchAfter = maxB;
        f.message += "; kv_heads " + std::to_string(g) + " -> " +
                     std::to_string(g2) + " (" + std::to_string(a / g2) +
                     " query heads per kv head) gives " +
                     kib(cost::cacheBytesPerToken(n, run)) + " per token, " +
                     fmt("step %.1f", est.stepUs) + fmt(" -> %.1f us", us) +
                     ", largest batch " + std::to_string(est.memory.maxBatch) +
                     " -> " + std::to_string(maxB) +
                     " (a model change: retrain or uptrain to GQA)";
      }
    }
    if (est.cacheDType != model::DType::FP8) {
      model::RunShape r8 = run;
      r8.kvCache = model::DType::FP8;
      auto [us, maxB] = stepOf(c, r8, t, o);
      f.message += fmt("; an fp8 cache (--kv-cache-dtype=fp8) gives step %.1f us",
                       us) +
                   ", largest batch " + std::to_string(maxB);
    }
    out.push_back(f);
  }

  // Decode grouping: the query heads of one kv head (per rank, times the
  // step's queries) are the rows of one CTA's query tile; more rows than
  // the tile take more CTAs that each read the same cache, and kv heads
  // replicated over tp hold the whole cache on every rank.
  // (MLA's absorbed decode has one latent head that every rank holds
  // whole, by design; its grouping is the kernel's, FlashMLA's.)
  // The decode attention whose kv heads tp splits: the first layer's
  // grouped attention kernel that reads separate keys and values.
  std::optional<model::AttentionSpec> decodeAttention;
  if (run.phase == model::Phase::Decode)
    if (auto groups = model::layerGroups(c); !groups.empty())
      for (model::BlockKind k : groups.front().first.layerBlocks)
        for (const model::Kernel &kernel :
             model::forwardKernels(k, groups.front().first, run, 0))
          if (const model::AttentionSpec *at = kernel.attention();
              at && at->grouped && !at->valuesInKeys && !decodeAttention)
            decodeAttention = *at;
  if (decodeAttention) {
    const model::AttentionSpec &at = *decodeAttention;
    const int64_t rows = at.kvHeads.value
                             ? at.heads.value / at.kvHeads.value * q
                             : 0;
    const int64_t tile = std::max<int64_t>(1, t.decodeQueryTile);
    if (rows > tile) {
      InferenceFinding f;
      f.kind = "decode-grouping";
      f.parameter = Param::Heads;
      f.value = c.attention.heads;
      const int64_t tiles = (rows + tile - 1) / tile;
      f.message = std::to_string(rows) + " query rows per kv head (heads/" +
                  "kv_heads per rank x " + std::to_string(q) +
                  " queries) exceed the decode kernel's query tile of " +
                  std::to_string(tile) + ": " + std::to_string(tiles) +
                  " CTAs read each kv head's cache, " +
                  fmt("%.0f%%", 100.0 * (1 - double(rows) /
                                                 double(tiles * tile))) +
                  " of their rows padding; more kv_heads (or a head count "
                  "with heads/kv_heads <= " +
                  std::to_string(tile / std::max<int64_t>(1, q)) +
                  ") keeps one CTA per kv head";
      out.push_back(f);
    }
    const int64_t g = env.get(Param::KvHeads).value_or(c.attention.heads);
    if (est.tp > g) {
      InferenceFinding f;
      f.kind = "decode-grouping";
      f.parameter = Param::KvHeads;
      f.value = g;
      f.suggested = est.tp;
      f.message = "kv_heads " + std::to_string(g) + " < tp " +
                  std::to_string(est.tp) + ": each rank holds a copy of " +
                  "its kv head's cache, so tp does not divide the cache (" +
                  kib(est.memory.cachePerToken) +
                  " per token on every GPU); kv_heads a multiple of tp (" +
                  std::to_string(est.tp) + ") splits it";
      out.push_back(f);
    }
  }
  return out;
}
