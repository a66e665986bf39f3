//===- PredictKernel.h - One price for every kernel kind --------*- C++ -*-===//
//
// predictKernel prices a kernel of the model (Model/Kernel.h) on a GPU
// target: a GEMM with the GEMM model, a fused attention with the attention
// model (GemmModel.h: self-attention, or a prefill chunk over the tokens
// cached before it, with one head dim or a value head dim of its own) or,
// one query (or a decode step's 1 + draft, grouped) over a longer cache,
// the decode-attention model (DecodeAttention.h), a collective with the
// collective model on a cluster (Collective.h). The analysis, the search and tshape-predict all call it;
// a kind with no model yet says so, and so does a collective priced
// without a cluster.
// Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_PREDICTKERNEL_H
#define TSHAPE_COST_PREDICTKERNEL_H

#include "tshape/Cost/Collective.h"
#include "tshape/Cost/DecodeAttention.h"
#include "tshape/Cost/GemmModel.h"
#include "tshape/Model/Kernel.h"
#include "tshape/Model/RunShape.h"

#include <string>

namespace tshape::cost {

struct KernelEstimate {
  model::KernelKind kind = model::KernelKind::Gemm;
  /// Whether a model priced it; else `unsupported` says why, with numbers.
  bool supported = true;
  std::string unsupported;
  double predictedUs = 0;
  double flops = 0; ///< useful FLOPs (a causal mask's skipped pairs excluded)
  /// What every kind fills, so that the serving report's shares, regimes
  /// and byte columns read no kind: the fixed cost of its launches (us),
  /// whether memory bounds the rest (else compute; `communication` for a
  /// collective), the bytes it moves and of them the weights' (at the
  /// run's precision) and the cache's (a KV cache or a recurrent state).
  double fixedUs = 0;
  bool memoryBound = false, communication = false;
  double bytes = 0, weightBytes = 0, cacheBytes = 0;
  /// A GEMM's ridge at its dtype: the FLOPs per byte where the target's
  /// peak x math_efficiency meets its bandwidth x memory_efficiency (0 for
  /// other kinds).
  double ridge = 0;
  GemmEstimate gemm;                ///< kind Gemm
  /// Kind Attention. A decode step fills its summary too (supported, the
  /// padded head dim, FLOPs, compute, memory and predicted time), so that
  /// a reader of `attention` sees any attention kernel's price.
  FusedAttentionEstimate attention;
  /// Kind Attention, one query over a longer cache: the decode model's
  /// detail (`decodeStep` says whether it priced the kernel).
  DecodeAttentionEstimate decode;
  bool decodeStep = false;
  CollectiveEstimate collective;    ///< kind Collective
  /// Kind Elementwise: the bytes it reads and writes (its time is them at
  /// bandwidth x memory_efficiency, plus launch_overhead_us per launch).
  double elementwiseBytes = 0;
  /// Kind Scan: a first-principles roofline, not calibrated (no timings
  /// of a scan calibrate it yet): its FLOPs at the dtype's peak x
  /// math_efficiency, its bytes (ScanSpec::bytes, of which `stateBytes`
  /// the fp32 state's) at bandwidth x memory_efficiency, the larger plus
  /// one launch.
  struct ScanEstimate {
    double computeUs = 0, memoryUs = 0, bytes = 0, stateBytes = 0;
  } scan;
  /// Kind TopK: memory-bound, a first-principles price (TopKSpec::bytes at
  /// bandwidth x memory_efficiency plus one launch), not calibrated.
};

/// The groups of a grouped expert GEMM (batch over the rank's E/ep
/// routed experts) that receive a token under `run`: min(E/ep, tokens x
/// k), the token copies routed to the rank (with fewer copies than
/// experts, the others get none and their weights are not read). The
/// GEMM's batch for any other GEMM.
int64_t activeGroups(const model::GemmSpec &g, const model::RunShape &run);

/// Whether a GEMM of `role` runs at the run's precision (an FP8 linear
/// layer under fp8 or mxfp8): a weight GEMM (RoleInfo::weight) other than
/// the LM head (logits), the MoE router and absorbed MLA's per-head
/// products, which Megatron-LM and vLLM keep in the model's dtype.
bool runsAtPrecision(model::Role role);

/// Bytes per element of the weight of `g` as a run at `run`'s precision
/// stores it: 1 for an FP8 linear layer (its per-tensor fp32 scale, 4
/// bytes a tensor, left out), 1 + 1/32 under mxfp8 (an E8M0 scale per 32
/// elements); `dtype`'s bytes for every other GEMM (runsAtPrecision) and
/// without a precision.
double weightElementBytes(const model::GemmSpec &g, model::DType dtype,
                          const model::RunShape *run);

/// The GEMM problem of a GEMM of the model, in `dtype`; with a `run`, a
/// grouped expert GEMM over its activeGroups. With a `run` whose
/// precision is fp8 or mxfp8, a weight GEMM (runsAtPrecision) is an FP8
/// linear layer as Transformer Engine runs it: FP8 operands (E4M3 forward;
/// in the hybrid recipe the gradients E5M2, the same tensor-core rate), a
/// bf16 output, and its A operand quantized first: the input x forward,
/// the output gradient dY in the data gradient (per-tensor current scaling
/// or MXFP8 block scaling); the weight gradient's operands were written by
/// those casts. In training the cast writes a transposed copy for the
/// weight gradient: where the target's FP8 GEMMs take only the TN layout
/// (`t->fp8TnOnly`: Hopper, Ada) and under block scaling (column-wise
/// scales). The other
/// GEMMs (unfused attention products) stay in `dtype`.
GemmProblem gemmProblem(const model::GemmSpec &g, model::DType dtype,
                        const model::RunShape *run = nullptr,
                        const target::GpuTarget *t = nullptr);
/// The attention problem of a fused attention kernel, in `dtype`: a kv
/// length beyond the queries is that many cached keys before them
/// (AttentionProblem::cached), a value head dim unlike the query's its own
/// (AttentionProblem::valueHeadDim).
AttentionProblem attentionProblem(const model::AttentionSpec &a,
                                  model::DType dtype);

/// The decode problem of an attention kernel of one query per sequence
/// (or 1 + draft, DecodeAttentionProblem::draft) over `kvLen` keys, in
/// `dtype`.
DecodeAttentionProblem decodeAttentionProblem(const model::AttentionSpec &a,
                                              model::DType dtype);

/// The collective problem of a collective kernel.
CollectiveProblem collectiveProblem(const model::CollectiveSpec &c);

/// The predicted time of `k` in `dtype` on `target`; a collective needs
/// the `cluster` its ranks run on (without one it is unsupported: "no
/// cluster given for collective"). A `run` with a precision prices weight
/// GEMMs as gemmProblem says; a precision the target lacks is
/// unsupported ("mxfp8 is not supported on h100-sxm (it supports bf16,
/// fp8)").
KernelEstimate predictKernel(const model::Kernel &k, model::DType dtype,
                             const target::GpuTarget &target,
                             const Cluster *cluster = nullptr,
                             const model::RunShape *run = nullptr);

} // namespace tshape::cost

#endif // TSHAPE_COST_PREDICTKERNEL_H
