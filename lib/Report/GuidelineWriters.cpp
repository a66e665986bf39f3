//===- GuidelineWriters.cpp - The guidelines checklist in every report ----===//
//
// The checklist of Guidelines.h as the `guidelines` array of a JSON report
// and as a Markdown section (docs/report-schema.md), written once for the
// analysis report, the optimization report and `tshape advise`'s report.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/Writers.h"

#include "llvm/Support/Format.h"

using namespace tshape;
using namespace tshape::report;

void tshape::report::writeGuidelinesJson(
    llvm::json::OStream &j, const std::vector<advise::Guideline> &gs) {
  j.attributeArray("guidelines", [&] {
    for (const advise::Guideline &g : gs)
      j.object([&] {
        j.attribute("rule", g.rule);
        j.attribute("parameter", g.parameter);
        j.attribute("value", g.value);
        j.attribute("ok", g.ok);
        // A share of the step; five significant digits (0.0030412).
        char buf[32];
        snprintf(buf, sizeof(buf), "%.5g", g.predictedCost);
        j.attributeBegin("predicted_cost");
        j.rawValue(std::string(buf) == "-0" ? "0" : buf);
        j.attributeEnd();
        if (g.priced)
          j.attribute("fix", g.fix);
        j.attribute("note", g.note);
      });
  });
}

void tshape::report::writeGuidelinesMarkdown(
    llvm::raw_ostream &os, const std::vector<advise::Guideline> &gs) {
  os << "## Guidelines checklist\n\n";
  if (gs.empty()) {
    os << "No rule applies: the GEMMs bind none of the parameters the rules "
          "read.\n\n";
    return;
  }
  os << "| rule | quantity | value | ok | predicted cost | note |\n"
     << "| --- | --- | ---: | --- | ---: | --- |\n";
  for (const advise::Guideline &g : gs) {
    os << "| " << g.rule << " | " << g.parameter << " | " << g.value << " | "
       << (g.ok ? "yes" : "**no**") << " | ";
    if (g.priced)
      os << advise::costPercent(g.predictedCost);
    else
      os << "-";
    os << " | " << g.note << " |\n";
  }
  os << "\n";
}
