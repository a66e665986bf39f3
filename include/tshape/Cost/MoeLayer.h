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

#include <string>

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

/// Bytes of the memory-bound work of one MoE layer on a rank with
/// `copies` routed token copies (tokens x k on the rank), hidden `h` and
/// per-rank expert inner size `f`, activations in `e` bytes: gather each
/// copy (read and write h), the gated activation (read 2f, write f) and
/// the weighted sum (read each copy's h, write each token's h once).
double moeMemoryBytes(double copies, double tokens, int64_t h, int64_t f,
                      int64_t e);

/// One MoE layer (layer `layer` of `c`, a Moe block) under `run` on `t`.
/// `maskedEp` > 1 (with c's ep 1) prices expert parallelism by masking, as
/// vLLM runs it without an all-to-all backend: every one of the maskedEp
/// ranks holds every token and routes all of them, computes only the
/// groups of its E/maskedEp experts (those that get a token), and its
/// permutation still moves every routed copy.
MoeLayerEstimate estimateMoeLayer(const model::ModelConfig &c,
                                  const model::RunShape &run,
                                  const target::GpuTarget &t, int64_t layer = 0,
                                  int64_t maskedEp = 1);

} // namespace tshape::cost

#endif // TSHAPE_COST_MOELAYER_H
