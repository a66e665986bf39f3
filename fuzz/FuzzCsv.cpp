//===- FuzzCsv.cpp - libFuzzer target: measurement CSV readers ------------===//
//
// Bytes -> parseMeasurements (tshape-calibrate's input) -> (when accepted)
// the prediction error on the built-in H100.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Calibration.h"
#include "tshape/Target/GpuTarget.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string csv(reinterpret_cast<const char *>(data), size);
  std::vector<tshape::analysis::Measurement> rows;
  std::string error;
  if (!tshape::analysis::parseMeasurements(csv, rows, error))
    return 0;
  if (rows.size() > 256)
    rows.resize(256); // bounded work per input
  (void)tshape::analysis::predictionError(
      rows, *tshape::target::findBuiltinTarget("h100-sxm"));
  return 0;
}
