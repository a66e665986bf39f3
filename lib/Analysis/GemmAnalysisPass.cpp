//===- GemmAnalysisPass.cpp - tshape-gemm-analysis ------------------------===//
//
// Thin MLIR driver over the plain-C++ analysis (ShapeReport.h): collects the
// static contractions, resolves the target, emits located diagnostics,
// attaches results as attributes and writes the report.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Dialect/TShape/IR/GemmAttributes.h"
#include "tshape/Analysis/Passes.h"
#include "tshape/Advise/ShapeReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Analysis/TargetResolution.h"
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/PassDiagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/TypeUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"

#include <map>

namespace tshape {
#define GEN_PASS_DEF_TSHAPEGEMMANALYSIS
#include "tshape/Analysis/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;
using namespace tshape::cost;
using namespace tshape::advise;

/// The global form of the pass's remarks= option, as in
/// `tshape-opt -tshape-remarks=all`; the pass option wins when given.
static llvm::cl::opt<AnalysisRemarks> clRemarks(
    "tshape-remarks",
    llvm::cl::desc("tshape-gemm-analysis diagnostics when its remarks= option "
                   "is not given: none, flagged or all"),
    llvm::cl::init(AnalysisRemarks::Flagged), analysisRemarksValues());

namespace {


std::string locString(Location loc) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto f = dyn_cast<FileLineColLoc>(loc))
    os << f.getFilename().getValue() << ":" << f.getLine() << ":"
       << f.getColumn();
  else
    loc.print(os);
  return s;
}

} // namespace

namespace {
struct TShapeGemmAnalysisPass
    : public tshape::impl::TShapeGemmAnalysisBase<TShapeGemmAnalysisPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (threshold < 0 || threshold >= 1) {
      emitError(module.getLoc())
          << passPrefix(*this) << "threshold must be in [0, 1), got "
          << threshold.getValue();
      return signalPassFailure();
    }
    if (!remarks.getNumOccurrences() && clRemarks.getNumOccurrences())
      remarks = clRemarks.getValue();
    std::optional<target::GpuTarget> tgt =
        resolveTarget(module, getArgument(), targetName, targetFile);
    if (!tgt)
      return signalPassFailure();

    // Collect.
    std::vector<GemmRecord> collected;
    std::vector<Operation *> ops;
    int64_t skipped = 0;
    std::map<int64_t, bool> fusedSeen;
    const GemmCollection &collection = getAnalysis<GemmCollection>();
    for (const SkippedGemm &sk : collection.skipped()) {
      ++skipped;
      if (remarks == AnalysisRemarks::All)
        sk.op->emitRemark() << passPrefix(*this) << "skipped: " << sk.reason;
    }
    for (const CollectedGemm &g : collection.gemms()) {
      Operation *op = g.op;
      const ContractionShape *shape = &g.shape;
      if (!g.dtype) {
        ++skipped;
        if (remarks == AnalysisRemarks::All)
          op->emitRemark() << passPrefix(*this) << "skipped: element type "
                           << g.elementType << " has no GEMM model";
        continue;
      }
      auto dtype = g.dtype;
      GemmRecord r;
      r.name = shape->role;
      r.layer = shape->layer;
      r.spec = shape->spec;
      r.location = locString(op->getLoc());
      r.problem = {shape->batch, shape->m, shape->n, shape->k, *dtype,
                   shape->transA, shape->transB};
      // A GEMM the model sized is priced under the run its function was
      // lowered for (the string tshape.run the lowering keeps): at the
      // run's precision, as on the tshape IR (ShapeAnalysis::predict).
      if (r.spec) {
        r.run = getRunShape(op);
        if (r.run && r.run->precision && !tgt->supports(*r.run->precision)) {
          op->emitError() << passPrefix(*this) << "precision "
                          << precisionName(*r.run->precision)
                          << " is not supported on " << tgt->name
                          << " (it supports " << tgt->precisionList()
                          << "): use one of those, or a target that has it";
          return signalPassFailure();
        }
      }
      if (auto m = getGemmMeasurement(op)) {
        r.measuredUs = m->medianUs;
        r.libraryWaves = m->wavesCount;
        r.libraryTileId = m->tileId;
        r.libraryTileM = m->tileM;
        r.libraryTileN = m->tileN;
      }
      if (auto f =
              op->getAttrOfType<IntegerAttr>(TShapeDialect::kFusedAttrName)) {
        r.fusedGroup = f.getInt();
        // The score GEMM that carries a kernel starts one (a layer may
        // hold two: MLA's chunk over its own keys and over the context).
        r.fusedPrimary = op->hasAttr(TShapeDialect::kAttentionAttrName) ||
                         !fusedSeen[f.getInt()];
        // The kernel itself, as the lowering carried it from the block.
        if (r.fusedPrimary)
          r.attention = getAttentionProvenance(op);
        fusedSeen[f.getInt()] = true;
      }
      collected.push_back(std::move(r));
      ops.push_back(op);
    }
    // The elementwise kernels the lowering carried from the block's list
    // (MLA's merge on its last linalg.add), priced as predictKernel prices
    // them, so this analysis and the inference report agree.
    module.walk([&](Operation *op) {
      std::optional<model::ElementwiseSpec> w = getElementwiseProvenance(op);
      std::optional<model::DType> dtype =
          w && op->getNumResults() == 1
              ? gemmDType(op, getElementTypeOrSelf(op->getResult(0)))
              : std::nullopt;
      if (!dtype)
        return;
      GemmRecord r;
      r.name = model::roleInfo(w->role).name;
      r.layer = w->layer;
      r.location = locString(op->getLoc());
      r.problem.dtype = *dtype;
      r.elementwise = *w;
      r.run = getRunShape(op);
      collected.push_back(std::move(r));
      ops.push_back(op);
    });

    // The report model, computed once: attributes, diagnostics and the
    // report file all render it.
    report::AnalysisReport rep =
        report::analyze(*tgt, threshold, std::move(collected), skipped);
    const std::vector<GemmRecord> &records = rep.records;
    const std::vector<Finding> &findings = rep.findings;

    // Attributes, diagnostics (one per location, role and shape).
    std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>,
             std::pair<size_t, std::vector<int64_t>>>
        groups;
    std::vector<decltype(groups)::key_type> order;
    for (size_t i = 0; i < records.size(); ++i) {
      const GemmRecord &r = records[i];
      const GemmEstimate &e = r.estimate;
      GemmPrediction d;
      d.bound = r.fusedGroup >= 0 && r.fused.supported
                    ? "fused"
                    : (e.memoryBound ? "memory" : "compute");
      d.predictedUs = r.predictedUs;
      d.loss = r.lossFraction;
      d.flagged = r.flagged;
      d.tileM = e.tile.m;
      d.tileN = e.tile.n;
      d.splitK = e.splitK;
      d.waves = e.waves;
      d.tileEfficiency = e.tileEfficiency;
      d.kEfficiency = e.kEfficiency;
      d.waveEfficiency = e.waveEfficiency;
      d.alignFactor = e.alignFactor;
      if (!r.elementwise)
        setGemmPrediction(ops[i], d);
      // One diagnostic per role and shape: identical layers are merged.
      auto key = std::make_tuple(r.name, r.problem.batch, r.problem.m,
                                 r.problem.n, r.problem.k);
      auto [it, inserted] = groups.try_emplace(key, i, std::vector<int64_t>{});
      if (inserted)
        order.push_back(key);
      it->second.second.push_back(r.layer);
    }
    numAnalyzed += records.size();
    numSkipped += skipped;
    for (const GemmRecord &r : records)
      numFlagged += r.flagged;

    if (remarks != AnalysisRemarks::None)
      for (auto &key : order) {
        auto &[index, layers] = groups[key];
        const GemmRecord &r = records[index];
        if (!r.flagged && remarks != AnalysisRemarks::All)
          continue;
        std::string msg;
        llvm::raw_string_ostream os(msg);
        os << r.name;
        const char *kind = r.elementwise ? " kernel" : " GEMM";
        if (layers.size() == 1 && layers[0] >= 0)
          os << kind << " of layer " << layers[0];
        else if (layers.front() >= 0 && layers.front() == layers.back())
          // One layer's kernels of one shape (MLA's context pieces).
          os << kind << " of layer " << layers[0] << " (x" << layers.size()
             << ")";
        else if (layers.size() > 1 && layers.front() >= 0)
          os << kind << " of layers " << layers.front() << ".."
             << layers.back() << " (x" << layers.size() << ")";
        else if (layers.size() > 1)
          os << kind << " (x" << layers.size() << ")";
        else
          os << kind;
        os << " (" << r.problem.batch << " x " << r.problem.m << "x"
           << r.problem.n << "x" << r.problem.k << ", "
           << model::dtypeName(r.problem.dtype) << ") on " << tgt->name
           << ": ";
        if (r.fusedGroup < 0 && !r.estimate.supported) {
          os << r.causes.front() << "; not predicted";
          ops[index]->emitRemark(os.str());
          continue;
        }
        os << "predicted " << llvm::format("%.1f", r.predictedUs) << " us, "
           << llvm::format("%.0f%%", 100 * r.lossFraction) << " lost";
        for (const std::string &c : r.causes)
          os << "; " << c;
        // The fix, from the findings on a parameter that sizes this GEMM.
        for (const Finding &f : findings)
          if (sizedBy(r, f.parameter) &&
              r.spec->env.get(f.parameter) == f.value) {
            os << "; " << paramName(f.parameter) << " " << f.value << " -> "
               << f.suggested;
            if (!f.effect.empty())
              os << " (" << f.effect << ")";
            os << " predicts "
               << llvm::format("%.2fx", f.estimatedSpeedup)
               << " on the GEMMs it sizes";
          }
        Operation *op = ops[index];
        if (r.flagged)
          op->emitWarning(os.str());
        else
          op->emitRemark(os.str());
      }

    if (report.empty())
      return markAllAnalysesPreserved();
    if (llvm::Error err = report::writeReport(report, rep)) {
      emitError(module.getLoc())
          << passPrefix(*this) << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
