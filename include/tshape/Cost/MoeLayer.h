//===- MoeLayer.h - One fused mixture-of-experts layer ----------*- C++ -*-===//
//
// The price of one MoE layer as a fused MoE kernel runs it (vLLM's
// fused_moe: top-k routing over given router logits, the tokens' permutation
// to their experts, the grouped gate/up GEMM, the activation, the grouped
// down GEMM, and the weighted sum back): the grouped expert GEMMs of the
// MoE block (Blocks/Moe.cpp) through predictKernel, over the experts that
// receive a token (activeGroups), plus the permutation and activation bytes
// at a fitted fraction of the bandwidth and a fitted fixed cost. The router
// GEMM and the all-to-all are kernels of their own. Plain C++: no MLIR
// types. docs/cost-model.md#moe-layers states the formulas.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_MOELAYER_H
#define TSHAPE_COST_MOELAYER_H

#include "tshape/Model/RunShape.h"
#include "tshape/Target/GpuTarget.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tshape::model {
struct ModelConfig;
} // namespace tshape::model

namespace tshape::cost {

struct MoeLayerEstimate {
  bool supported = true;
  std::string unsupported; ///< why not, when !supported
  double gemmUs = 0;       ///< the grouped expert GEMMs
  double memoryBytes = 0;  ///< permutation, activation and weighted sum
  double memoryUs = 0;     ///< those bytes at moe_memory_efficiency
  double predictedUs = 0;  ///< gemmUs + memoryUs + moe_overhead_us
};

/// The most experts a MoE layer problem may have (moeRankLoad keeps a
/// count per expert; the largest released models have 512).
inline constexpr int64_t kMaxMoeExperts = 65536;

/// How a layer's tokens spread over its experts.
struct MoeRouting {
  /// 0: balanced (every expert gets tokens x k / E). > 1: the power law of
  /// NVIDIA aiconfigurator's MoE collector with this exponent
  /// (`power_law_A` in its timings): per-expert counts drawn from a power
  /// law between 1 and 0.8 x tokens (between 0.01 and 2 when tokens x k <=
  /// E), scaled to sum to tokens x k, the busiest group of E/ep experts on
  /// the measured rank.
  double powerLaw = 0;
};

/// The routed work on the measured rank under a routing: the token copies
/// its experts receive and how many of its experts receive one.
struct MoeRankLoad {
  double copies = 0;        ///< token copies routed to the rank's experts
  double activeExperts = 0; ///< the rank's experts with at least one
  double busiestExpert = 0; ///< the busiest expert's tokens
  double balanced = 0;      ///< tokens x k / E: one expert's balanced load
  /// The tokens each active group is priced at, in percent of the
  /// balanced tokens x k / E: the MoE block's `capacity` that prices the
  /// same grouped-GEMM work (copies / activeExperts), at least 100.
  int64_t capacity() const;
};

/// Placements averaged per rank share (moeBusiestRank), and the most
/// problems whose power-law rank load moeRankLoad keeps.
inline constexpr int kMoeRankTrials = 256;
inline constexpr size_t kMoeRankCacheSize = 4096;

/// What the busiest of `ep` ranks holds.
struct MoeRankShare {
  double copies = 0, activeExperts = 0, busiestExpert = 0;
};

/// The rank of the largest sum when the per-expert `counts` of a sample
/// sit at uniformly random expert indices, E/ep consecutive indices per
/// rank, as NVIDIA aiconfigurator's collector draws them and then swaps
/// the busiest rank to rank 0: the mean over kMoeRankTrials placements
/// (a fixed-seed splitmix64, so deterministic). Experts flagged in `tie`
/// (a unit the collector's sum adjustment gave to an expert whose count
/// rounded to 0) spread over the ranks instead: the rank holds ceil(ties /
/// ep) of them, as the timings at 1 and 2 tokens show (a power-law row
/// costs what the balanced row costs there). docs/cost-model.md#skewed-routing.
MoeRankShare moeBusiestRank(const std::vector<int64_t> &counts,
                            const std::vector<bool> &tie, int64_t ep);

/// The expected load of the measured rank of `ep` when `tokens` tokens
/// pick `topk` of `experts` experts under `routing`. Deterministic: the
/// power law's counts are its quantiles at (i + 1/2)/E (the expected
/// sample), rounded and adjusted to the total as the collector does,
/// capped at `tokens` per expert (a token picks an expert once; the
/// excess picks go to experts with none), and with ep > 1 the measured
/// rank is the busiest of the ep ranks the counts fall on
/// (moeBusiestRank). Results are kept per problem (kMoeRankCacheSize).
/// docs/cost-model.md#skewed-routing.
MoeRankLoad moeRankLoad(int64_t tokens, int64_t experts, int64_t topk,
                        int64_t ep, const MoeRouting &routing);

/// One fused MoE layer as a kernel list states it (tshape-predict's MoE
/// rows, docs/predict.md): `tokens` entering the layer on the measured
/// rank, `experts` experts of inner size `inter` split `tp` ways, top
/// `topk`, expert parallelism `ep` by masking, in `dtype` (fp8: FP8 expert
/// GEMMs quantizing their input, bf16 activations).
struct MoeLayerProblem {
  int64_t tokens = 1, hidden = 1, inter = 1, topk = 1, experts = 1;
  int64_t tp = 1, ep = 1;
  DType dtype = DType::BF16;
  MoeRouting routing;
};

/// Bytes of the memory-bound work of one MoE layer on a rank with
/// `copies` routed token copies (tokens x k on the rank), hidden `h` and
/// per-rank expert inner size `f`, activations in `e` bytes: gather each
/// copy (read and write h), the gated activation (read 2f, write f) and
/// the weighted sum (read each copy's h, write each token's h once).
double moeMemoryBytes(double copies, double tokens, int64_t h, int64_t f,
                      int64_t e);

/// The part of one MoE layer of `c` under `run` on `t` beyond its grouped
/// GEMMs: the permutation and activation bytes (moeMemoryBytes) at
/// moe_memory_efficiency, and moe_overhead_us; gemmUs is 0. The serving
/// reports price the GEMMs as the block's kernels and add this.
MoeLayerEstimate estimateMoeMemory(const model::ModelConfig &c,
                                   const model::RunShape &run,
                                   const target::GpuTarget &t);

/// One MoE layer (layer `layer` of `c`, a Moe block) under `run` on `t`.
/// `maskedEp` > 1 (with c's ep 1) prices expert parallelism by masking, as
/// vLLM runs it without an all-to-all backend: every one of the maskedEp
/// ranks holds every token and routes all of them, computes only the
/// groups of its E/maskedEp experts (those that get a token), and its
/// permutation still moves every routed copy. `activeExperts` > 0 caps the
/// groups that run (a skewed routing's, moeRankLoad).
MoeLayerEstimate estimateMoeLayer(const model::ModelConfig &c,
                                  const model::RunShape &run,
                                  const target::GpuTarget &t, int64_t layer = 0,
                                  int64_t maskedEp = 1,
                                  double activeExperts = 0);

/// One MoE layer of `p` on `t`: the config of one MoE block (b*s =
/// tokens, ep 1, maskedEp = p.ep), its `capacity` and active experts from
/// moeRankLoad under p.routing. Unsupported when experts % ep or inter %
/// tp is not 0, or with more than kMaxMoeExperts experts.
MoeLayerEstimate estimateMoeLayer(const MoeLayerProblem &p,
                                  const target::GpuTarget &t);

} // namespace tshape::cost

#endif // TSHAPE_COST_MOELAYER_H
