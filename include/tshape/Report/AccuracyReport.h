//===- AccuracyReport.h - What the prediction tools report ------*- C++ -*-===//
//
// The models of tshape-predict's accuracy report (predicted against
// measured, per file and regime, with the m -> m+1 direction agreement) and
// tshape-calibrate's fit report (the fitted constants and the error before
// and after on both parts of the shape split). Each is computed once and
// rendered by the writers of Writers.h: JSON and Markdown for --report, and
// the tools' text views. Plain C++ on lib/Predict: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_ACCURACYREPORT_H
#define TSHAPE_REPORT_ACCURACYREPORT_H

#include "tshape/Predict/Calibration.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::report {

/// tshape-predict --compare / --report (docs/report-schema.md).
struct AccuracyReport {
  /// The error of one regime's rows (predict::kRegimes).
  struct Regime {
    predict::Regime regime;
    predict::ErrorStats errors;
  };
  /// One input file.
  struct File {
    std::string name; ///< the path as given
    /// The kind of its rows (one per file: the header decides it); none for
    /// a file without rows.
    std::optional<predict::KernelKind> kind;
    /// The targets its rows were predicted on, in order of first use.
    std::vector<target::GpuTarget> targets;
    /// Selected rows compared (measured, with a kernel on the target), and
    /// the selected rows left out for want of either.
    size_t measured = 0, unmeasured = 0, noKernel = 0;
    /// The regimes with rows, in kRegimes order ("all" first).
    std::vector<Regime> regimes;
    predict::DirectionStats direction; ///< pairs == 0: no pair to judge
  };
  predict::Part part = predict::Part::All;
  std::string dtype; ///< the rows' dtype; empty: every dtype
  std::vector<File> files;
};

/// Compares `predicted` (one per row of `table`; 0: no kernel on the
/// target) with the measured column over the rows `selected` marks.
/// `targets[i]` predicted row i.
AccuracyReport::File
compareTable(const predict::KernelTable &table,
             const std::vector<double> &predicted,
             const std::vector<bool> &selected,
             const std::vector<const target::GpuTarget *> &targets);

/// tshape-calibrate (docs/report-schema.md).
struct CalibrationReport {
  target::GpuTarget start; ///< the target the fit started from
  std::string dtype;       ///< the rows' dtype; empty: every dtype
  size_t measurements = 0; ///< rows with a measured time, fitted or held out
  predict::CalibrationResult result;
};

} // namespace tshape::report

#endif // TSHAPE_REPORT_ACCURACYREPORT_H
