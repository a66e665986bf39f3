//===- Accuracy.h - Predicted against measured kernel times -----*- C++ -*-===//
//
// Predictions for a kernel table on a target, the held-out split, error
// statistics per regime and the m -> m+1 direction agreement of
// docs/model-accuracy.md. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PREDICT_ACCURACY_H
#define TSHAPE_PREDICT_ACCURACY_H

#include "tshape/Cost/PredictKernel.h"
#include "tshape/Predict/KernelTable.h"

#include <string>
#include <vector>

namespace tshape::predict {

/// The kernel a row timed, with constant sizes: a GEMM, an attention
/// kernel (a decode row: one query over `step` keys) or a collective. A
/// MoE layer row is several kernels (cost::estimateMoeLayer prices it):
/// not for MoE rows.
model::Kernel rowKernel(const KernelRow &row);

/// The predicted time of one row in microseconds (predictKernel, as the
/// analysis and the search price kernels); 0 when the target has no kernel
/// for it (a dtype without a GEMM path, a head dim without a fused kernel,
/// a collective without a `cluster`). A MoE layer row through
/// cost::estimateMoeLayer.
double predictRow(const KernelRow &row, const target::GpuTarget &target,
                  const cost::Cluster *cluster = nullptr);

/// The keys a decode row's query attends to: its `step` cached tokens and
/// itself.
inline int64_t decodeContext(const KernelRow &row) { return row.step + 1; }

/// FLOPs of one row (useful work).
double rowFlops(const KernelRow &row);

/// Which part of a split a row belongs to. The part depends only on the
/// row's weight shape, (n, k) for a GEMM and (heads, kv_heads) for
/// prefill attention, on a decode row's context length (decodeContext), or
/// on a collective's message size in bytes, so the two parts share no such
/// shape, length or size and repeats of one key always land together.
/// About one in four is held out. A MoE layer row: a splitmix64 hash of
/// its shape (tokens, hidden, inter, topk, experts, moe_tp, moe_ep), not of
/// its dtype or routing; half are held out.
enum class Part { All, Fit, HeldOut };
bool inPart(const KernelRow &row, Part part);
/// "all", "fit", "held-out".
const char *partName(Part part);

/// Median and 90th percentile of |predicted - measured| / measured.
struct ErrorStats {
  double median = 0, p90 = 0;
  size_t count = 0;
};
ErrorStats errorStats(std::vector<double> relativeErrors);

/// The regimes of the accuracy report: by m for GEMMs (m <= 16,
/// 16 < m <= 256, larger), by FLOPs for every kind, and for MoE layers by
/// routing (balanced, power law) and by the tokens entering the layer
/// (decode-sized: 1-16 and 17-256; larger).
enum class Regime {
  All,
  SmallM,
  MidM,
  LargeM,
  Under1G,
  Under100G,
  Over100G,
  Balanced,
  PowerLaw,
  FewTokens,
  MidTokens,
  ManyTokens
};
inline constexpr Regime kRegimes[] = {
    Regime::All,       Regime::SmallM,     Regime::MidM,     Regime::LargeM,
    Regime::Under1G,   Regime::Under100G,  Regime::Over100G, Regime::Balanced,
    Regime::PowerLaw,  Regime::FewTokens,  Regime::MidTokens,
    Regime::ManyTokens};
const char *regimeName(Regime r);
bool inRegime(const KernelRow &row, Regime r);

/// m -> m+1 direction agreement: over the pairs of measured rows with the
/// same dtype, batch, n, k and layout and m one apart whose measured times
/// differ by more than 10%, the fraction where "m+1 is more than 5% slower"
/// has the same truth value in the prediction as in the measurement.
/// Pairs whose measured time drops by more than 10% (a kernel switch no
/// tile model can know) are counted apart as well.
struct DirectionStats {
  size_t pairs = 0, agree = 0;
  size_t drops = 0, dropsAgree = 0; ///< the kernel-switch pairs among them
  double agreement() const { return pairs ? double(agree) / pairs : 0; }
  /// Agreement over the pairs without the kernel-switch drops.
  double agreementWithoutDrops() const {
    return pairs > drops ? double(agree - dropsAgree) / (pairs - drops) : 0;
  }
};
/// `rows` and `predicted` are parallel; rows without a measurement are
/// ignored.
DirectionStats directionAgreement(const std::vector<const KernelRow *> &rows,
                                  const std::vector<double> &predicted);

} // namespace tshape::predict

#endif // TSHAPE_PREDICT_ACCURACY_H
