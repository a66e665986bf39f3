//===- GemmSummaryPass.cpp - tshape-gemm-summary --------------------------===//
//
// A human summary of a module's GEMMs, grouped by role and shape.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Analysis/Passes.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Model/Transformer.h"
#include "tshape/Report/Writers.h"
#include "tshape/PassDiagnostics.h"

#include "llvm/Support/Format.h"

#include <map>

namespace tshape {
#define GEN_PASS_DEF_TSHAPEGEMMSUMMARY
#include "tshape/Analysis/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;

namespace {
struct TShapeGemmSummaryPass
    : public tshape::impl::TShapeGemmSummaryBase<TShapeGemmSummaryPass> {
  using Base::Base;
  void runOnOperation() override {
    report::SummaryReport rep;
    const GemmCollection &collection = getAnalysis<GemmCollection>();
    for (const SkippedGemm &sk : collection.skipped()) {
      auto it = llvm::find_if(rep.skipped,
                              [&](auto &kc) { return kc.first == sk.kind; });
      if (it == rep.skipped.end())
        rep.skipped.push_back({sk.kind, 1});
      else
        ++it->second;
      sk.op->emitRemark() << passPrefix(*this) << "not read as a GEMM: "
                          << sk.reason;
    }
    numSkipped += collection.skipped().size();
    // Grouped by role and shape, in order of first appearance.
    std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>,
             size_t>
        index;
    for (const CollectedGemm &gemm : collection.gemms()) {
      const ContractionShape &s = gemm.shape;
      auto key = std::make_tuple(s.role, s.batch, s.m, s.n, s.k);
      auto [it, inserted] = index.try_emplace(key, rep.groups.size());
      if (inserted) {
        report::SummaryReport::Group g;
        g.role = s.role;
        g.firstLayer = s.layer;
        g.batch = s.batch;
        g.m = s.m;
        g.n = s.n;
        g.k = s.k;
        rep.groups.push_back(g);
      }
      report::SummaryReport::Group &g = rep.groups[it->second];
      ++g.count;
      g.lastLayer = s.layer;
      g.flops += gemm.flops();
      rep.totalFlops += gemm.flops();
      ++rep.gemms;
    }
    // The GEMMs in the table, and its rows.
    numSummarized += rep.gemms;
    numGroups += rep.groups.size();

    if (llvm::Error err = report::writeReport(output, rep)) {
      emitError(getOperation().getLoc()) << llvm::toString(std::move(err));
      return signalPassFailure();
    }
    markAllAnalysesPreserved();
  }
};
} // namespace
