//===- KernelTable.h - Lists of kernels to predict --------------*- C++ -*-===//
//
// A CSV list of kernels, one per row, whose header names the kind: GEMMs
// (`dtype,m,n,k` and optionally `batch,trans_a,trans_b`), fused attention
// (`batch,seq,heads,kv_heads,head_dim,step,window`), NCCL collectives
// (`op,gpus,message_elements`, nccl-tests' sizes) and fused MoE layers
// (`tokens,hidden,inter,topk,experts` and optionally
// `moe_tp,moe_ep,distribution`). The measured files of NVIDIA's aiconfigurator database, the
// output of tshape-bench-gemms and a user's own list all read as they are;
// a `latency_us` or `measured_us` column is the measured time. Plain C++:
// no MLIR types. docs/predict.md documents the formats.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PREDICT_KERNELTABLE_H
#define TSHAPE_PREDICT_KERNELTABLE_H

#include "tshape/Cost/Collective.h"
#include "tshape/Cost/GemmModel.h"
#include "tshape/Cost/MoeLayer.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::predict {

enum class KernelKind {
  Gemm,
  /// Attention rows with step 0, or seq > 1 after `step` cached tokens (a
  /// prefill chunk).
  PrefillAttention,
  DecodeAttention,  ///< attention rows with step > 0 and seq 1 (one query token)
  Collective,       ///< NCCL collectives
  MoeLayer,         ///< whole fused MoE layers
};

/// "gemm", "prefill attention", "decode attention", "nccl collective",
/// "moe layer".
const char *kindName(KernelKind kind);

/// Sizes above this are rejected (cuBLAS and FlashAttention take 32-bit
/// sizes).
inline constexpr int64_t kMaxSize = (int64_t(1) << 31) - 1;

struct KernelRow {
  int line = 0;        ///< 1-based line of the file
  KernelKind kind = KernelKind::Gemm;
  std::string gpu;     ///< the `gpu` column, empty when there is none
  cost::GemmProblem gemm;           ///< kind Gemm
  cost::AttentionProblem attention; ///< attention kinds
  /// Kind Collective: the op, nccl-tests' size in bytes and the ranks, on
  /// the node tier (the measured files time one node).
  cost::CollectiveProblem collective;
  /// Kind Collective: the element type (`half` is fp16, `int8` reads as
  /// fp8, the one-byte type: a collective's time depends on bytes only).
  DType collectiveDType = DType::FP16;
  /// Kind MoeLayer: the layer (dtype, sizes, degrees, routing).
  cost::MoeLayerProblem moe;
  int64_t step = 0;                     ///< cached tokens (decode or a chunk)
  std::optional<double> measuredUs;
  /// The shape without the timing: rows with equal keys are repeats of one
  /// measurement.
  std::string key;
};

/// The element type of a row, whatever its kind.
inline DType rowDType(const KernelRow &row) {
  if (row.kind == KernelKind::Collective)
    return row.collectiveDType;
  if (row.kind == KernelKind::MoeLayer)
    return row.moe.dtype;
  return row.kind == KernelKind::Gemm ? row.gemm.dtype : row.attention.dtype;
}

struct KernelTable {
  std::string name;               ///< the file name, for messages
  std::vector<std::string> lines; ///< every line as read (no line ends)
  int headerLine = 0;             ///< 1-based
  std::vector<KernelRow> rows;
};

/// Parses `text`. On a malformed header or row returns false with `error`
/// as "NAME:LINE: error: ..."; rows of a kind with no model are errors
/// ("no model for moe layer yet").
bool parseKernelTable(const std::string &text, const std::string &name,
                      KernelTable &out, std::string &error);

/// The built-in target a `gpu` column names ("h100-sxm", "a100-sxm" is the
/// A100 SXM 80 GB, "b200"); empty when unknown.
std::string targetForGpu(const std::string &gpu);

/// The table written back with `predicted_us` appended to the header and to
/// every row (`predictions` holds one value per row, in order; 0, no kernel
/// on the target, is written as an empty field); comments and blank lines
/// are kept. Rows whose `keep` entry is false (when `keep` is not empty)
/// are left out.
std::string withPredictions(const KernelTable &table,
                            const std::vector<double> &predictions,
                            const std::vector<bool> &keep = {});

} // namespace tshape::predict

#endif // TSHAPE_PREDICT_KERNELTABLE_H
