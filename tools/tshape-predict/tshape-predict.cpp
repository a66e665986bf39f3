//===- tshape-predict.cpp - Predicted times for a list of kernels ---------===//
//
// tshape-predict [--target=T] FILE.csv... [-o OUT.csv] [--compare]
//
// Reads lists of kernels (GEMMs or prefill attention; the formats of
// docs/predict.md, including the measured files of NVIDIA's aiconfigurator
// database as they are) and writes every row back with `predicted_us`
// appended. With --compare it prints, per file and per regime, the median
// and 90th-percentile error against the measured column and the m -> m+1
// direction agreement. Plain C++ on the cost-model libraries: no MLIR.
//
//===----------------------------------------------------------------------===//

#include "tshape/Predict/Accuracy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <map>
#include <memory>
#include <optional>

using namespace tshape;
using namespace tshape::predict;
namespace cl = llvm::cl;

namespace {
cl::list<std::string> inputs(cl::Positional, cl::desc("<kernels.csv>..."),
                             cl::OneOrMore);
cl::opt<std::string> targetName(
    "target",
    cl::desc("built-in target (default: the one each row's `gpu` column "
             "names: a100-sxm, h100-sxm, b200)"),
    cl::init(""));
cl::opt<std::string> targetFile("target-file",
                                cl::desc("target file to use instead"),
                                cl::init(""));
cl::opt<bool> uncalibrated(
    "uncalibrated",
    cl::desc("use the target's datasheet figures with the model constants "
             "as they were before calibration (for before/after figures)"));
cl::opt<std::string> output(
    "o",
    cl::desc("write the rows with predicted_us here (default: stdout; with "
             "--compare, not written unless -o is given)"),
    cl::init(""));
cl::opt<bool> compare("compare",
                      cl::desc("print the error against the measured "
                               "column, per file and regime"));
cl::opt<std::string> partOpt(
    "part",
    cl::desc("compare and write only the rows of this part of the shape "
             "split: all, fit, held-out (default: all)"),
    cl::init("all"));
cl::opt<std::string> dtypeOpt("dtype",
                              cl::desc("compare and write only rows of this dtype"),
                              cl::init(""));

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
    if (targetFile.empty() && targetName.empty())
      return true; // each row's gpu column names its target
    auto t = target::resolveTarget(targetName, targetFile, error);
    if (!t)
      return false;
    fixed = std::make_unique<target::GpuTarget>(adjust(*t));
    return true;
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
  std::unique_ptr<target::GpuTarget> fixed;
  std::map<std::string, std::unique_ptr<target::GpuTarget>> byGpu;
};

std::string pct(double v) {
  char buf[32];
  snprintf(buf, sizeof(buf), "%.1f%%", 100 * v);
  return buf;
}

void printComparison(llvm::raw_ostream &os, const KernelTable &table,
                     const std::vector<double> &predicted,
                     const std::string &targetLabel, Part part) {
  std::vector<const KernelRow *> rows;
  std::vector<double> preds;
  size_t unmeasured = 0, noKernel = 0;
  for (size_t i = 0; i < table.rows.size(); ++i) {
    const KernelRow &r = table.rows[i];
    if (!selected(r, part))
      continue;
    if (!r.measuredUs) {
      ++unmeasured;
      continue;
    }
    if (!(predicted[i] > 0)) {
      ++noKernel;
      continue;
    }
    rows.push_back(&r);
    preds.push_back(predicted[i]);
  }
  os << table.name << ": " << rows.size() << " measured rows on "
     << targetLabel << " (part " << partName(part)
     << (dtypeOpt.empty() ? std::string() : ", dtype " + dtypeOpt) << ")";
  if (unmeasured)
    os << ", " << unmeasured << " without a measurement";
  if (noKernel)
    os << ", " << noKernel << " with no kernel on the target";
  os << "\n";
  if (rows.empty())
    return;
  os << llvm::format("  %-14s %7s %8s %8s\n", "regime", "rows", "median",
                     "p90");
  for (Regime g : kRegimes) {
    std::vector<double> e;
    for (size_t i = 0; i < rows.size(); ++i)
      if (inRegime(*rows[i], g))
        e.push_back(std::fabs(preds[i] - *rows[i]->measuredUs) /
                    *rows[i]->measuredUs);
    if (e.empty())
      continue;
    ErrorStats s = errorStats(std::move(e));
    os << llvm::format("  %-14s %7zu %8s %8s\n", regimeName(g), s.count,
                       pct(s.median).c_str(), pct(s.p90).c_str());
  }
  DirectionStats d = directionAgreement(rows, preds);
  if (d.pairs)
    os << "  direction m -> m+1: " << d.agree << " of " << d.pairs
       << " pairs agree (" << pct(d.agreement()) << "); " << d.drops
       << " are kernel-switch drops (measured time falls > 10%), "
       << d.dropsAgree << " of them agree; without them "
       << pct(d.agreementWithoutDrops()) << "\n";
  else
    os << "  direction m -> m+1: no pair of rows m, m+1 whose measured "
          "times differ by > 10%\n";
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // Kept alive to the end: cl keeps the overview for --help.
  const std::string overview =
      std::string(kTool) +
      ": predicted times for lists of kernels\n\n"
      "Reads GEMM rows (dtype,m,n,k[,batch,trans_a,trans_b]) or prefill "
      "attention rows\n(batch,seq,heads,kv_heads,head_dim[,step,window]), "
      "with an optional latency_us or\nmeasured_us column, and writes each "
      "row back with predicted_us appended.\nSee docs/predict.md.\n";
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
  std::string error;
  Targets targets;
  if (!targets.init(error))
    return fail(error);
  std::unique_ptr<llvm::raw_fd_ostream> out;
  if (!output.empty() || !compare) {
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
    std::string label;
    for (const KernelRow &r : table.rows) {
      keep.push_back(selected(r, *part));
      const target::GpuTarget *t = targets.forRow(table, r, error);
      if (!t) {
        llvm::errs() << error << "\n";
        return 1;
      }
      if (label.empty())
        label = t->name;
      else if (label != t->name && label.find(t->name) == std::string::npos)
        label += ", " + t->name;
      predicted.push_back(predictRow(r, *t));
    }
    if (out)
      *out << withPredictions(table, predicted, keep);
    if (compare)
      printComparison(llvm::outs(), table, predicted,
                      label.empty() ? std::string("no target") : label, *part);
  }
  return 0;
}
