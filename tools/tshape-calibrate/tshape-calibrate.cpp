//===- tshape-calibrate.cpp - Fit a GPU target to measured kernels --------===//
//
// tshape-calibrate MEASUREMENTS.csv... --target=h100-sxm -o fitted.json
// Fits the cost model's constants to measured kernel times (any table
// tshape-predict reads with a measured column: tshape-bench-gemms output,
// bench/gpu-sweeps.sh calibration rows, the aiconfigurator GEMM and prefill
// attention files) on the fitting part of the shape split, and reports the
// error on both parts before and after (report::CalibrationReport: text on
// stderr, JSON or Markdown with --report). The output is a target file for
// target-file=.
//
//===----------------------------------------------------------------------===//

#include "tshape/Predict/Calibration.h"
#include "tshape/Report/AccuracyReport.h"
#include "tshape/Report/Writers.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tshape;
using namespace tshape::predict;
namespace cl = llvm::cl;

namespace {
cl::list<std::string> inputs(cl::Positional, cl::desc("<measurements.csv>..."),
                             cl::OneOrMore);
cl::opt<std::string>
    targetName("target",
               cl::desc("built-in target to start from (default: h100-sxm)"),
               cl::init("h100-sxm"));
cl::opt<std::string> targetFile("target-file",
                                cl::desc("target file to start from instead"),
                                cl::init(""));
cl::opt<bool> uncalibratedOpt(
    "uncalibrated",
    cl::desc("start from the target's constants as they were before "
             "calibration (the datasheet figures and the model's guesses)"));
cl::opt<std::string> dtypeOpt(
    "dtype", cl::desc("fit only rows of this dtype (default: all)"),
    cl::init(""));
cl::opt<std::string> output("o",
                            cl::desc("write the fitted target file here "
                                     "(default: stdout)"),
                            cl::init("-"));
cl::opt<std::string> reportPath(
    "report",
    cl::desc("also write the fit report: a .json file, a .md file, or - "
             "for Markdown on stdout (needs -o FILE; docs/report-schema.md)"),
    cl::init(""));

/// The tool's name, the start of each line it writes to stderr.
constexpr const char kTool[] = "tshape-calibrate";

int fail(const std::string &msg) {
  llvm::errs() << kTool << ": error: " << msg << "\n";
  return 1;
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Kept alive to the end: cl keeps the overview for --help.
  const std::string overview =
      std::string(kTool) +
      ": fit a GPU target's model constants to measured kernels\n\n"
      "Input: any table tshape-predict reads (docs/predict.md) with a "
      "measured_us or\nlatency_us column, e.g. tshape-bench-gemms output "
      "(batch,m,n,k,dtype,trans_a,trans_b,measured_us).\n";
  cl::ParseCommandLineOptions(argc, argv, overview);
  if (reportPath == "-" && output == "-")
    return fail("--report=- and the fitted target (-o, default stdout) "
                "both write to stdout; give -o FILE");
  std::string error;
  std::optional<target::GpuTarget> base =
      target::resolveTarget(targetName, targetFile, error);
  if (!base)
    return fail(error);
  if (uncalibratedOpt)
    base = target::uncalibrated(*base);
  std::optional<DType> only;
  if (!dtypeOpt.empty() && !(only = parseDType(dtypeOpt)))
    return fail("unknown --dtype '" + dtypeOpt + "'");
  std::vector<KernelTable> tables(inputs.size());
  std::vector<const KernelRow *> rows;
  size_t total = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    auto buf = llvm::MemoryBuffer::getFileOrSTDIN(inputs[i], true);
    if (!buf)
      return fail("cannot read '" + inputs[i] +
                  "': " + buf.getError().message());
    if (!parseKernelTable((*buf)->getBuffer().str(), inputs[i], tables[i],
                          error)) {
      llvm::errs() << error << "\n";
      return 1;
    }
    for (const KernelRow &r : tables[i].rows) {
      ++total;
      if (r.measuredUs && (!only || rowDType(r) == *only))
        rows.push_back(&r);
    }
  }
  if (rows.empty())
    return fail("no row with a measured time (a latency_us or measured_us "
                "column)" +
                std::string(only ? " of dtype " + dtypeOpt : ""));
  report::CalibrationReport rep;
  rep.start = *base;
  rep.dtype = dtypeOpt;
  rep.measurements = rows.size();
  if (!calibrate(rows, *base, rep.result, error))
    return fail(error);
  report::writeText(llvm::errs(), rep, kTool);
  std::string baseName = targetFile.empty() ? targetName.getValue()
                                            : base->name;
  std::string json = targetFileJson(rep.result.fitted, baseName);
  if (output == "-") {
    llvm::outs() << json;
  } else {
    std::error_code ec;
    llvm::raw_fd_ostream os(output, ec);
    if (ec)
      return fail("cannot write '" + output + "': " + ec.message());
    os << json;
  }
  // After the fitted target, which a bad report path does not lose.
  if (!reportPath.empty())
    if (llvm::Error err = report::writeReport(reportPath, rep))
      return fail(llvm::toString(std::move(err)));
  return 0;
}
