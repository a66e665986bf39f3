//===- tshape-predict.cpp - Predicted times for a list of kernels ---------===//
//
// tshape-predict [--target=T] [--cluster=C] FILE.csv... [-o OUT.csv]
//                [--compare] [--report=REPORT.json|.md|-]
//
// Reads lists of kernels (GEMMs, prefill or decode attention, fused MoE
// layers, or NCCL collectives, these on a cluster: --cluster, else the
// built-in cluster of the row's GPU; the formats of
// docs/predict.md, including the measured files of NVIDIA's aiconfigurator
// database as they are) and writes every row back with `predicted_us`
// appended. The accuracy report (report::AccuracyReport: per file and
// regime, the median and 90th-percentile error against the measured column
// and the m -> m+1 direction agreement) is printed as text with --compare
// and written as JSON or Markdown with --report. Plain C++ on the
// cost-model libraries: no MLIR.
//
//===----------------------------------------------------------------------===//

#include "tshape/Predict/Accuracy.h"
#include "tshape/Report/AccuracyReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Tools/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>
#include <memory>
#include <optional>

using namespace tshape;
using namespace tshape::predict;
namespace cl = llvm::cl;

namespace {
/// The tool's own options, shown first by --help (LLVM's are hidden:
/// --help-hidden lists them).
cl::OptionCategory predictCat("tshape-predict options");
cl::list<std::string> inputs(cl::Positional, cl::desc("<kernels.csv>..."),
                             cl::OneOrMore, cl::cat(predictCat));
cl::opt<std::string> targetName(
    "target",
    cl::desc("built-in target (default: the one each row's `gpu` column "
             "names: a100-sxm, h100-sxm, b200)"),
    cl::init(""), cl::cat(predictCat));
cl::opt<std::string> targetFile("target-file",
                                cl::desc("target file to use instead"),
                                cl::init(""), cl::cat(predictCat));
cl::opt<std::string> clusterName(
    "cluster",
    cl::desc("built-in cluster for collective rows (default: the one of "
             "each row's target: dgx-a100, dgx-h100, dgx-b200, ...)"),
    cl::init(""), cl::cat(predictCat));
cl::opt<std::string> clusterFile("cluster-file",
                                 cl::desc("cluster file to use instead "
                                          "(docs/clusters.md)"),
                                 cl::init(""), cl::cat(predictCat));
cl::opt<bool> uncalibrated(
    "uncalibrated",
    cl::desc("use the target's datasheet figures with the model constants "
             "as they were before calibration (for before/after figures); "
             "for collectives, the cluster's node-tier constants"),
    cl::cat(predictCat));
cl::opt<std::string> output(
    "o",
    cl::desc("write the rows with predicted_us here (default: stdout; with "
             "--compare or --report, not written unless -o is given)"),
    cl::init(""), cl::cat(predictCat));
cl::opt<bool> compare("compare",
                      cl::desc("print the error against the measured "
                               "column, per file and regime"),
                      cl::cat(predictCat));
cl::opt<std::string> reportPath(
    "report",
    cl::desc("write the --compare figures as a report: a .json file, a .md "
             "file, or - for Markdown on stdout (docs/report-schema.md)"),
    cl::init(""), cl::cat(predictCat));
cl::opt<std::string> partOpt(
    "part",
    cl::desc("compare and write only the rows of this part of the shape "
             "split: all, fit, held-out (default: all)"),
    cl::init("all"), cl::cat(predictCat));
cl::opt<std::string>
    dtypeOpt("dtype", cl::desc("compare and write only rows of this dtype"),
             cl::init(""), cl::cat(predictCat));

/// The tool's name, the start of each line it writes to stderr.
constexpr const char kTool[] = "tshape-predict";

int fail(const std::string &msg) {
  llvm::errs() << kTool << ": error: " << msg << "\n";
  return 1;
}

/// Whether --part and --dtype select row `r` (for --compare and -o).
bool selected(const KernelRow &r, Part part) {
  return inPart(r, part) &&
         (dtypeOpt.empty() || dtypeOpt == dtypeName(rowDType(r)));
}

/// The target of each row: the one given, or the row's `gpu` column.
class Targets {
public:
  bool init(std::string &error) {
    if (!clusterFile.empty() || !clusterName.empty()) {
      auto c = cost::resolveCluster(clusterName, clusterFile, error);
      if (!c)
        return false;
      fixedCluster = std::make_unique<cost::Cluster>(adjust(*c));
    }
    if (targetFile.empty() && targetName.empty())
      return true; // each row's gpu column names its target
    auto t = target::resolveTarget(targetName, targetFile, error);
    if (!t)
      return false;
    fixed = std::make_unique<target::GpuTarget>(adjust(*t));
    return true;
  }
  /// The cluster of a collective row on target `t`: the one given, else
  /// the built-in cluster of `t`; nullptr (and the row unpriced) when
  /// there is none.
  const cost::Cluster *clusterFor(const target::GpuTarget &t) {
    if (fixedCluster)
      return fixedCluster.get();
    auto &slot = byTarget[t.name];
    if (!slot)
      if (const cost::Cluster *c = cost::defaultClusterForTarget(t.name))
        slot = std::make_unique<cost::Cluster>(adjust(*c));
    return slot.get();
  }
  const target::GpuTarget *forRow(const KernelTable &table,
                                  const KernelRow &row, std::string &error) {
    if (fixed)
      return fixed.get();
    std::string name = targetForGpu(row.gpu);
    const target::GpuTarget *t =
        name.empty() ? nullptr : target::findBuiltinTarget(name);
    if (!t) {
      error = table.name + ":" + std::to_string(row.line) + ": error: " +
              (row.gpu.empty() ? std::string("no --target and no gpu column")
                               : "gpu '" + row.gpu +
                                     "' names no built-in target") +
              "; give --target=NAME (built-in: " +
              target::builtinTargetNames() + ")";
      return nullptr;
    }
    auto &slot = byGpu[row.gpu];
    if (!slot)
      slot = std::make_unique<target::GpuTarget>(adjust(*t));
    return slot.get();
  }

private:
  static target::GpuTarget adjust(const target::GpuTarget &t) {
    return uncalibrated ? target::uncalibrated(t) : t;
  }
  static cost::Cluster adjust(const cost::Cluster &c) {
    return uncalibrated ? cost::uncalibrated(c, model::Tier::Node) : c;
  }
  std::unique_ptr<target::GpuTarget> fixed;
  std::map<std::string, std::unique_ptr<target::GpuTarget>> byGpu;
  std::unique_ptr<cost::Cluster> fixedCluster;
  std::map<std::string, std::unique_ptr<cost::Cluster>> byTarget;
};

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Kept alive to the end: cl keeps the overview for --help.
  const std::string overview =
      std::string(kTool) +
      ": predicted times for lists of kernels\n\n"
      "Reads GEMM rows (dtype,m,n,k[,batch,trans_a,trans_b]) or prefill "
      "attention rows\n(batch,seq,heads,kv_heads,head_dim[,step,window]) "
      "or NCCL collective rows\n(op,gpus,message_elements[,dtype]) on a "
      "cluster, or fused MoE layer rows\n(tokens,hidden,inter,topk,experts"
      "[,dtype,moe_tp,moe_ep,distribution]),\nwith an optional latency_us or "
      "measured_us column, and writes each row back\nwith predicted_us "
      "appended. See "
      "docs/predict.md.\n";
  tshape::showOnlyOwnOptions({&predictCat});
  cl::ParseCommandLineOptions(argc, argv, overview);
  std::optional<Part> part;
  for (Part p : {Part::All, Part::Fit, Part::HeldOut})
    if (partOpt == partName(p))
      part = p;
  if (!part)
    return fail("--part must be all, fit or held-out, got '" + partOpt + "'");
  if (!dtypeOpt.empty() && !parseDType(dtypeOpt))
    return fail("unknown --dtype '" + dtypeOpt + "'");
  if (!output.empty() && inputs.size() > 1)
    return fail("-o takes one input file, got " +
                std::to_string(inputs.size()));
  if (reportPath == "-" && output == "-")
    return fail("--report=- and -o - both write to stdout");
  std::string error;
  Targets targets;
  if (!targets.init(error))
    return fail(error);
  std::unique_ptr<llvm::raw_fd_ostream> out;
  const bool comparing = compare || !reportPath.empty();
  report::AccuracyReport accuracy;
  accuracy.part = *part;
  accuracy.dtype = dtypeOpt;
  if (!output.empty() || !comparing) {
    std::error_code ec;
    out = std::make_unique<llvm::raw_fd_ostream>(
        output.empty() ? "-" : output.getValue(), ec);
    if (ec)
      return fail("cannot write '" + output + "': " + ec.message());
  }
  for (const std::string &path : inputs) {
    auto buf = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
    if (!buf)
      return fail("cannot read '" + path + "': " + buf.getError().message());
    KernelTable table;
    if (!parseKernelTable((*buf)->getBuffer().str(), path, table, error)) {
      llvm::errs() << error << "\n";
      return 1;
    }
    std::vector<double> predicted;
    std::vector<bool> keep;
    std::vector<const target::GpuTarget *> rowTargets;
    for (const KernelRow &r : table.rows) {
      keep.push_back(selected(r, *part));
      const target::GpuTarget *t = targets.forRow(table, r, error);
      if (!t) {
        llvm::errs() << error << "\n";
        return 1;
      }
      rowTargets.push_back(t);
      predicted.push_back(predictRow(
          r, *t,
          r.kind == KernelKind::Collective ? targets.clusterFor(*t) : nullptr));
    }
    if (out)
      *out << withPredictions(table, predicted, keep);
    if (!comparing)
      continue;
    accuracy.files.push_back(
        report::compareTable(table, predicted, keep, rowTargets));
    if (compare)
      report::writeText(llvm::outs(), accuracy, accuracy.files.size() - 1);
  }
  if (!reportPath.empty())
    if (llvm::Error err = report::writeReport(reportPath, accuracy))
      return fail(llvm::toString(std::move(err)));
  return 0;
}
