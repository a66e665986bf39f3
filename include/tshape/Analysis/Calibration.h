//===- Calibration.h - Fit the cost model to measurements -------*- C++ -*-===//
//
// Fits a target's model constants (math efficiency, memory efficiency,
// launch overhead) to measured GEMM times, and reports the prediction error
// on held-out measurements before and after. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_CALIBRATION_H
#define TSHAPE_ANALYSIS_CALIBRATION_H

#include "tshape/Analysis/GemmModel.h"

#include <string>
#include <vector>

namespace tshape::analysis {

struct Measurement {
  GemmProblem problem;
  double measuredUs = 0;
};

/// Parses CSV with the header `batch,m,n,k,dtype,trans_a,trans_b,measured_us`
/// (dtype: bf16, fp16, fp32, tf32, fp8). Returns false with `error` (naming
/// the line) on a malformed file.
bool parseMeasurements(const std::string &csv, std::vector<Measurement> &out,
                       std::string &error);

/// Median and 90th percentile of |predicted - measured| / measured.
struct ErrorStats {
  double median = 0, p90 = 0;
  size_t count = 0;
};
ErrorStats predictionError(const std::vector<Measurement> &rows,
                           const target::GpuTarget &t);

/// The search range of each fitted constant.
struct CalibrationRange {
  const char *name; ///< the target-file key
  double lo, hi;
};
inline constexpr CalibrationRange kMathEfficiencyRange{"math_efficiency",
                                                        0.30, 1.00};
inline constexpr CalibrationRange kMemoryEfficiencyRange{"memory_efficiency",
                                                          0.30, 1.00};
inline constexpr CalibrationRange kLaunchOverheadRange{"launch_overhead_us",
                                                        0.0, 14.0};

struct CalibrationResult {
  target::GpuTarget fitted;
  size_t trainRows = 0, heldOutRows = 0;
  ErrorStats trainBefore, trainAfter, heldOutBefore, heldOutAfter;
  /// Constants that ended on an edge of their range: the best fit wanted a
  /// value outside it, so the measurements are probably not from this
  /// target's GPU, or show an effect the model lacks.
  std::vector<CalibrationRange> atEdge;
};

/// Every `holdoutEvery`-th row (1-based: rows 4, 8, ... for 4) is held out;
/// the rest fit the constants by coordinate search minimising the median
/// relative error. Needs at least 4 training rows.
bool calibrate(const std::vector<Measurement> &rows,
               const target::GpuTarget &base, int holdoutEvery,
               CalibrationResult &out, std::string &error);

/// The fitted target as a target file (docs/targets.md) based on `base`.
std::string targetFileJson(const target::GpuTarget &fitted,
                           const std::string &base);

} // namespace tshape::analysis

#endif // TSHAPE_ANALYSIS_CALIBRATION_H
