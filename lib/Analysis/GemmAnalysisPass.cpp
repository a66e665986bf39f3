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

    // Collect: each op read back into the kernel the lowering carried
    // (its provenance attributes), so that the records are those the model
    // path builds (KernelRecord.h). A fused attention's GEMMs are the parts
    // of the kernel its score GEMM carries, in program order; a group whose
    // score GEMM carries none is priced as separate GEMMs, and says so.
    std::vector<KernelRecord> collected;
    std::vector<Operation *> ops;
    int64_t skipped = 0;
    struct FusedKernel {
      std::optional<model::Kernel> kernel;
      int parts = 0;
    };
    std::map<int64_t, FusedKernel> fusedKernels;
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
      KernelRecord r;
      if (shape->spec)
        r = KernelRecord::bare(*shape->spec);
      if (auto f =
              op->getAttrOfType<IntegerAttr>(TShapeDialect::kFusedAttrName)) {
        FusedKernel &fk = fusedKernels[f.getInt()];
        // The score GEMM that carries a kernel starts one (a layer may
        // hold two: MLA's chunk over its own keys and over the context).
        if (std::optional<model::AttentionSpec> a =
                getAttentionProvenance(op)) {
          fk.kernel = model::Kernel(*a);
          fk.parts = 0;
        }
        if (fk.kernel && shape->spec) {
          r = KernelRecord::bare(*fk.kernel, *shape->spec, fk.parts);
        } else if (!fk.parts) {
          r.kernelMissing = true;
        }
        ++fk.parts;
      }
      r.name = shape->role;
      r.layer = shape->layer;
      r.location = locString(op->getLoc());
      r.problem = {shape->batch, shape->m, shape->n, shape->k, *g.dtype,
                   shape->transA, shape->transB};
      // A GEMM the model sized is priced under the run its function was
      // lowered for (the string tshape.run the lowering keeps): at the
      // run's precision, as on the tshape IR (ShapeAnalysis::predict).
      if (shape->spec) {
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
      collected.push_back(std::move(r));
      ops.push_back(op);
    }
    // The elementwise kernels the lowering carried from the block's list
    // (MLA's merge on its last linalg.add), priced as predictKernel prices
    // them, so this analysis and the inference report agree.
    // Then the kernels no op computes (tshape.kernels on the op a block's
    // lowering ends with: its collectives), read back as they were stated.
    module.walk([&](Operation *op) {
      std::vector<model::Kernel> kernels = getKernelsProvenance(op);
      if (std::optional<model::ElementwiseSpec> w =
              getElementwiseProvenance(op))
        kernels.insert(kernels.begin(), model::Kernel(*w));
      std::optional<model::DType> dtype =
          !kernels.empty() && op->getNumResults() == 1
              ? gemmDType(op, getElementTypeOrSelf(op->getResult(0)))
              : std::nullopt;
      if (!dtype)
        return;
      std::optional<model::RunShape> run = getRunShape(op);
      for (const model::Kernel &k : kernels) {
        collected.push_back(KernelRecord::of(k, *dtype, locString(op->getLoc()),
                                             run ? &*run : nullptr));
        ops.push_back(op);
      }
    });

    // The report model, computed once: attributes, diagnostics and the
    // report file all render it.
    report::AnalysisReport rep =
        report::analyze(*tgt, threshold, std::move(collected), skipped);
    const std::vector<KernelRecord> &records = rep.records;
    const std::vector<Finding> &findings = rep.findings;

    // Attributes, diagnostics (one per location, role and shape).
    std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>,
             std::pair<size_t, std::vector<int64_t>>>
        groups;
    std::vector<decltype(groups)::key_type> order;
    for (size_t i = 0; i < records.size(); ++i) {
      const KernelRecord &r = records[i];
      const GemmEstimate &e = r.estimate.gemm;
      GemmPrediction d;
      d.bound = r.fused() && r.estimate.attention.supported
                    ? "fused"
                    : (r.estimate.memoryBound ? "memory" : "compute");
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
      if (r.gemmPriced() || r.fused())
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
    for (const KernelRecord &r : records)
      numFlagged += r.flagged;

    if (remarks != AnalysisRemarks::None)
      for (auto &key : order) {
        auto &[index, layers] = groups[key];
        const KernelRecord &r = records[index];
        if (!r.flagged && remarks != AnalysisRemarks::All)
          continue;
        std::string msg;
        llvm::raw_string_ostream os(msg);
        os << r.name;
        const char *kind = r.gemmPriced() || r.fused() ? " GEMM" : " kernel";
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
        if (!r.fused() && !r.estimate.supported) {
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
              r.spec()->env.get(f.parameter) == f.value) {
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
