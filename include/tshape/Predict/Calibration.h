//===- Calibration.h - Fit a target's constants to measurements -*- C++ -*-===//
//
// Fits the model constants of a GpuTarget to measured kernel times (a
// KernelTable): the GEMM constants on GEMM rows, the attention constants on
// prefill-attention rows, the decode constants on decode-attention rows,
// the fused MoE layer's constants on MoE layer rows, each on the fit part of the shape split, and
// reports the error on both parts before and after; and the node tier of
// a cluster (Cost/Cluster.h) on NCCL collective rows the same way. Plain C++: no MLIR
// types. docs/model-accuracy.md describes the method.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PREDICT_CALIBRATION_H
#define TSHAPE_PREDICT_CALIBRATION_H

#include "tshape/Predict/Accuracy.h"

#include <string>
#include <vector>

namespace tshape::predict {

using FitParam = target::ModelConstant;

struct CalibrationResult {
  target::GpuTarget fitted;
  size_t fitRows = 0, heldOutRows = 0;
  ErrorStats fitBefore, fitAfter, heldOutBefore, heldOutAfter;
  /// Constants that ended on an edge of their range: the best fit wanted a
  /// value outside it, so the measurements are probably not from this
  /// target's GPU, or show an effect the model lacks.
  std::vector<FitParam> atEdge;
  /// Constants with no row to identify them, left as they were.
  std::vector<FitParam> unidentified;
};

/// Fits on the rows of `Part::Fit` (all rows when the split leaves no
/// held-out shape) by coordinate search minimising the mean
/// |log(predicted / measured)|. Rows must carry a measurement. Needs at
/// least 4 fitting rows.
bool calibrate(const std::vector<const KernelRow *> &rows,
               const target::GpuTarget &base, CalibrationResult &out,
               std::string &error);

/// Errors of `rows` (with measurements) on `target` (collectives on
/// `cluster`).
ErrorStats predictionError(const std::vector<const KernelRow *> &rows,
                           const target::GpuTarget &target,
                           const cost::Cluster *cluster = nullptr);

struct ClusterCalibrationResult {
  cost::Cluster fitted;
  size_t fitRows = 0, heldOutRows = 0;
  ErrorStats fitBefore, fitAfter, heldOutBefore, heldOutAfter;
  /// As in CalibrationResult.
  std::vector<cost::ClusterConstant> atEdge, unidentified;
};

/// Fits the node tier's constants of `base` (clusterConstants()) to the
/// collective rows of `rows` priced on `target`, by the same search and
/// split as calibrate (the split is on message sizes).
bool calibrateCluster(const std::vector<const KernelRow *> &rows,
                      const cost::Cluster &base,
                      const target::GpuTarget &target,
                      ClusterCalibrationResult &out, std::string &error);

/// The fitted constants as a target file (docs/targets.md) based on
/// `base`.
std::string targetFileJson(const target::GpuTarget &fitted,
                           const std::string &base);

} // namespace tshape::predict

#endif // TSHAPE_PREDICT_CALIBRATION_H
