//===- MoeLayer.cpp - One fused mixture-of-experts layer ------------------===//

#include "tshape/Cost/MoeLayer.h"

#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Params.h"
#include "tshape/Model/Transformer.h"

using namespace tshape;
using namespace tshape::cost;

double tshape::cost::moeMemoryBytes(double copies, double tokens, int64_t h,
                                    int64_t f, int64_t e) {
  return double(e) * (copies * (2.0 * double(h) + 3.0 * double(f) + double(h)) +
                      tokens * double(h));
}

MoeLayerEstimate tshape::cost::estimateMoeLayer(const model::ModelConfig &c,
                                                const model::RunShape &run,
                                                const target::GpuTarget &t,
                                                int64_t layer,
                                                int64_t maskedEp) {
  MoeLayerEstimate m;
  const model::Bindings env = model::bindings(c);
  for (const model::Kernel &k : model::moeKernels(c, run, layer)) {
    // The fused layer starts from the router's logits and sends nothing
    // between ranks: its grouped expert GEMMs (and shared experts, when
    // the block has them).
    if (k.role() == model::Role::MoeRouter || k.collective())
      continue;
    model::Kernel local = k;
    if (model::GemmSpec *g = local.gemm();
        g && maskedEp > 1 && g->batch.expr.mentions(model::Param::Experts))
      g->batch.value = (g->batch.value + maskedEp - 1) / maskedEp;
    KernelEstimate e = predictKernel(local, c.dtype, t, nullptr, &run);
    if (!e.supported) {
      m.supported = false;
      m.unsupported = e.unsupported;
      return m;
    }
    m.gemmUs += e.predictedUs;
  }
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
  m.predictedUs = m.gemmUs + m.memoryUs + t.moeOverheadUs;
  return m;
}
