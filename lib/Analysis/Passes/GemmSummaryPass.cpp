//===- GemmSummaryPass.cpp - tshape-gemm-summary --------------------------===//
//
// A human summary of a module's GEMMs, grouped by role and shape.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Analysis/Passes.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Model/Transformer.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/ToolOutputFile.h"

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
    struct Group {
      int64_t count = 0;
      int64_t firstLayer = -1, lastLayer = -1;
      double flops = 0;
    };
    // Keyed by first appearance so the table follows execution order.
    std::vector<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>>
        order;
    std::map<std::tuple<std::string, int64_t, int64_t, int64_t, int64_t>,
             Group>
        groups;
    int64_t dynamicCount = 0;
    double total = 0;
    const GemmCollection &collection = getAnalysis<GemmCollection>();
    dynamicCount = collection.skipped().size();
    for (const CollectedGemm &gemm : collection.gemms()) {
      const ContractionShape *s = &gemm.shape;
      auto key = std::make_tuple(s->role, s->batch, s->m, s->n, s->k);
      Group &g = groups[key];
      if (g.count++ == 0) {
        order.push_back(key);
        g.firstLayer = s->layer;
      }
      g.lastLayer = s->layer;
      double f = 2.0 * s->batch * s->m * s->n * s->k;
      g.flops += f;
      total += f;
    }

    std::string err;
    auto file = openOutputFile(output, &err);
    if (!file) {
      emitError(getOperation().getLoc())
          << "cannot open summary output '" << output.getValue()
          << "': " << err;
      return signalPassFailure();
    }
    llvm::raw_ostream &os = file->os();
    os << "| role | layers | batch | M | N | K | GFLOP (all) | share |\n"
       << "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |\n";
    for (auto &key : order) {
      Group &g = groups[key];
      auto &[role, batch, m, n, k] = key;
      std::string layers =
          g.firstLayer < 0
              ? std::string("-")
              : (g.count == 1 ? std::to_string(g.firstLayer)
                              : std::to_string(g.firstLayer) + ".." +
                                    std::to_string(g.lastLayer) + " (x" +
                                    std::to_string(g.count) + ")");
      os << "| " << role << " | " << layers << " | " << batch << " | " << m
         << " | " << n << " | " << k << " | "
         << llvm::format("%.1f", g.flops / 1e9) << " | "
         << llvm::format("%.1f%%", total > 0 ? 100.0 * g.flops / total : 0.0)
         << " |\n";
    }
    int64_t gemms = 0;
    for (auto &kv : groups)
      gemms += kv.second.count;
    os << "\n" << gemms << " GEMMs, "
       << llvm::format("%.2f", total / 1e12) << " TFLOP in all";
    if (dynamicCount)
      os << "; " << dynamicCount << " dynamic-shaped contractions skipped";
    os << "\n";
    file->keep();
    markAllAnalysesPreserved();
  }
};
} // namespace
