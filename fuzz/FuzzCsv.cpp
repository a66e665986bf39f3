//===- FuzzCsv.cpp - libFuzzer target: kernel tables ----------------------===//
//
// Bytes -> parseKernelTable (the reader of tshape-predict and
// tshape-calibrate) -> (when accepted) a prediction for every row on the
// built-in H100 and the table written back.
//
//===----------------------------------------------------------------------===//

#include "tshape/Predict/Accuracy.h"
#include "tshape/Target/GpuTarget.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string csv(reinterpret_cast<const char *>(data), size);
  tshape::predict::KernelTable table;
  std::string error;
  if (!tshape::predict::parseKernelTable(csv, "fuzz.csv", table, error))
    return 0;
  if (table.rows.size() > 256)
    table.rows.resize(256); // bounded work per input
  const tshape::target::GpuTarget &t =
      *tshape::target::findBuiltinTarget("h100-sxm");
  std::vector<double> predicted;
  for (const tshape::predict::KernelRow &r : table.rows)
    predicted.push_back(tshape::predict::predictRow(r, t));
  (void)tshape::predict::withPredictions(table, predicted);
  return 0;
}
