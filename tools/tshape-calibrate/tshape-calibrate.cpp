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
#include "tshape/Tools/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

using namespace tshape;
using namespace tshape::predict;
namespace cl = llvm::cl;

namespace {
/// The tool's own options, shown first by --help (LLVM's are hidden:
/// --help-hidden lists them).
cl::OptionCategory calibrateCat("tshape-calibrate options");
cl::list<std::string> inputs(cl::Positional, cl::desc("<measurements.csv>..."),
                             cl::OneOrMore, cl::cat(calibrateCat));
cl::opt<std::string>
    targetName("target",
               cl::desc("built-in target to start from (default: h100-sxm)"),
               cl::init("h100-sxm"), cl::cat(calibrateCat));
cl::opt<std::string> targetFile("target-file",
                                cl::desc("target file to start from instead"),
                                cl::init(""), cl::cat(calibrateCat));
cl::opt<std::string> clusterName(
    "cluster",
    cl::desc("for NCCL collective rows: the built-in cluster whose node "
             "tier to fit (default: the target's, e.g. dgx-h100)"),
    cl::init(""), cl::cat(calibrateCat));
cl::opt<std::string> clusterFile("cluster-file",
                                 cl::desc("cluster file to start from "
                                          "instead"),
                                 cl::init(""), cl::cat(calibrateCat));
cl::opt<bool> uncalibratedOpt(
    "uncalibrated",
    cl::desc("start from the target's constants as they were before "
             "calibration (the datasheet figures and the model's guesses)"),
    cl::cat(calibrateCat));
cl::opt<std::string>
    dtypeOpt("dtype", cl::desc("fit only rows of this dtype (default: all)"),
             cl::init(""), cl::cat(calibrateCat));
cl::opt<std::string> output("o",
                            cl::desc("write the fitted target file here "
                                     "(default: stdout)"),
                            cl::init("-"), cl::cat(calibrateCat));
cl::opt<std::string> reportPath(
    "report",
    cl::desc("also write the fit report: a .json file, a .md file, or - "
             "for Markdown on stdout (needs -o FILE; docs/report-schema.md)"),
    cl::init(""), cl::cat(calibrateCat));

/// The tool's name, the start of each line it writes to stderr.
constexpr const char kTool[] = "tshape-calibrate";

int fail(const std::string &msg) {
  llvm::errs() << kTool << ": error: " << msg << "\n";
  return 1;
}
/// Writes `text` to -o (default stdout).
int writeOutput(const std::string &text) {
  if (output == "-") {
    llvm::outs() << text;
    return 0;
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(output, ec);
  if (ec)
    return fail("cannot write '" + output + "': " + ec.message());
  os << text;
  return 0;
}

/// Fits the node tier of the cluster to NCCL collective rows and writes it
/// as a cluster file; the figures go to stderr.
int fitCluster(const std::vector<const KernelRow *> &rows,
               const target::GpuTarget &gpu) {
  if (!reportPath.empty())
    return fail("--report is for target fits; a cluster fit prints its "
                "figures to stderr");
  std::string error;
  std::optional<cost::Cluster> base;
  if (clusterName.empty() && clusterFile.empty()) {
    const cost::Cluster *c = cost::defaultClusterForTarget(gpu.name);
    if (!c)
      return fail("no built-in cluster of target '" + gpu.name +
                  "'; give --cluster=NAME (built-in: " +
                  cost::builtinClusterNames() + ")");
    base = *c;
  } else if (!(base = cost::resolveCluster(clusterName, clusterFile,
                                           error))) {
    return fail(error);
  }
  if (uncalibratedOpt)
    base = cost::uncalibrated(*base, model::Tier::Node);
  ClusterCalibrationResult res;
  if (!calibrateCluster(rows, *base, gpu, res, error))
    return fail(error);
  auto pct = [](const ErrorStats &e) {
    return llvm::formatv("median {0:F1}%, p90 {1:F1}%", e.median * 100,
                         e.p90 * 100)
        .str();
  };
  llvm::errs() << kTool << ": cluster " << base->name << ", node tier, "
               << rows.size() << " measurements on " << gpu.name << "\n"
               << "  fit      (" << res.fitRows << " rows): before "
               << pct(res.fitBefore) << ", after " << pct(res.fitAfter)
               << "\n"
               << "  held-out (" << res.heldOutRows << " rows): before "
               << pct(res.heldOutBefore) << ", after "
               << pct(res.heldOutAfter) << "\n";
  for (const cost::ClusterConstant &c : res.atEdge)
    llvm::errs() << "  note: " << c.key << " ended on an edge of its range\n";
  for (const cost::ClusterConstant &c : res.unidentified)
    llvm::errs() << "  note: no row identifies " << c.key
                 << "; left as it was\n";
  return writeOutput(cost::clusterJson(res.fitted));
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
  tshape::showOnlyOwnOptions({&calibrateCat});
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
  bool collectives = rows.front()->kind == KernelKind::Collective;
  for (const KernelRow *r : rows)
    if ((r->kind == KernelKind::Collective) != collectives)
      return fail("collective rows and kernel rows fit different "
                  "constants (a cluster's, a target's): give them in "
                  "separate runs");
  if (collectives)
    return fitCluster(rows, *base);
  report::CalibrationReport rep;
  rep.start = *base;
  rep.dtype = dtypeOpt;
  rep.measurements = rows.size();
  if (!calibrate(rows, *base, rep.result, error))
    return fail(error);
  report::writeText(llvm::errs(), rep, kTool);
  // A fit from a target file names that file's built-in base, so that a
  // fitted file can start the next fit (GEMMs, then attention, then
  // decode).
  std::string baseName = targetFile.empty() ? targetName.getValue()
                                            : base->name;
  if (!targetFile.empty())
    if (auto buf = llvm::MemoryBuffer::getFile(targetFile, true))
      if (auto v = llvm::json::parse((*buf)->getBuffer()))
        if (const llvm::json::Object *o = v->getAsObject())
          if (auto b = o->getString("base"))
            baseName = b->str();
  if (int rc = writeOutput(targetFileJson(rep.result.fitted, baseName)))
    return rc;
  // After the fitted target, which a bad report path does not lose.
  if (!reportPath.empty())
    if (llvm::Error err = report::writeReport(reportPath, rep))
      return fail(llvm::toString(std::move(err)));
  return 0;
}
