//===- tshape-calibrate.cpp - Fit a GPU target to measured GEMMs ----------===//
//
// tshape-calibrate MEASUREMENTS.csv --target=h100-sxm -o fitted.json
// Fits the cost model's constants to measured sweeps (bench/gpu-sweeps.sh
// writes the CSV) and reports the prediction error on held-out rows before
// and after. The output is a target file for target-file=.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Calibration.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tshape;

namespace {
llvm::cl::opt<std::string> input(llvm::cl::Positional,
                                 llvm::cl::desc("<measurements.csv>"),
                                 llvm::cl::Required);
llvm::cl::opt<std::string>
    targetName("target",
               llvm::cl::desc("built-in target to start from (default: "
                              "h100-sxm)"),
               llvm::cl::init("h100-sxm"));
llvm::cl::opt<std::string>
    targetFile("target-file",
               llvm::cl::desc("target file to start from instead"),
               llvm::cl::init(""));
llvm::cl::opt<std::string> output("o",
                                  llvm::cl::desc("write the fitted target "
                                                 "file here (default: stdout)"),
                                  llvm::cl::init("-"));
llvm::cl::opt<int> holdout("holdout-every",
                           llvm::cl::desc("hold out every Nth row for the "
                                          "error report (default: 4)"),
                           llvm::cl::init(4));

int fail(const std::string &msg) {
  llvm::errs() << "tshape-calibrate: error: " << msg << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  llvm::cl::ParseCommandLineOptions(
      argc, argv,
      "tshape-calibrate: fit a GPU target's model constants to measured "
      "GEMMs\n\nCSV header: batch,m,n,k,dtype,trans_a,trans_b,measured_us\n");
  std::string error;
  std::optional<target::GpuTarget> base;
  if (!targetFile.empty())
    base = target::loadTargetFile(targetFile, error);
  else if (const target::GpuTarget *t = target::findBuiltinTarget(targetName))
    base = *t;
  else
    error = "unknown target '" + targetName + "' (built-in: " +
            target::builtinTargetNames() + ")";
  if (!base)
    return fail(error);
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(input);
  if (!buf)
    return fail("cannot read '" + input + "': " + buf.getError().message());
  std::vector<analysis::Measurement> rows;
  if (!analysis::parseMeasurements((*buf)->getBuffer().str(), rows, error))
    return fail(input + ": " + error);
  analysis::CalibrationResult r;
  if (!analysis::calibrate(rows, *base, holdout, r, error))
    return fail(error);
  auto pct = [](double v) { return llvm::format("%.1f%%", 100 * v); };
  llvm::errs() << "tshape-calibrate: " << rows.size() << " measurements, "
               << r.trainRows << " to fit, " << r.heldOutRows
               << " held out\n"
               << "  fitted: math_efficiency "
               << llvm::format("%.3f", r.fitted.mathEfficiency)
               << ", memory_efficiency "
               << llvm::format("%.3f", r.fitted.memoryEfficiency)
               << ", launch_overhead_us "
               << llvm::format("%.2f", r.fitted.launchOverheadUs) << "\n"
               << "  held-out |predicted - measured| / measured: median "
               << pct(r.heldOutBefore.median) << " -> "
               << pct(r.heldOutAfter.median) << ", p90 "
               << pct(r.heldOutBefore.p90) << " -> "
               << pct(r.heldOutAfter.p90) << "\n";
  for (const analysis::CalibrationRange &e : r.atEdge)
    llvm::errs() << "tshape-calibrate: warning: " << e.name
                 << " stopped at an edge of its range ["
                 << llvm::format("%.2f", e.lo) << ", "
                 << llvm::format("%.2f", e.hi)
                 << "]: the measurements are probably not from a "
                 << base->name << " GPU, or show an effect the model lacks\n";
  std::string baseName = targetFile.empty() ? targetName.getValue()
                                            : base->name;
  std::string json = analysis::targetFileJson(r.fitted, baseName);
  if (output == "-") {
    llvm::outs() << json;
    return 0;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(output, ec);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  os << json;
  return 0;
}
