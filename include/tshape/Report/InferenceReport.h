//===- InferenceReport.h - The report of a serving step ----------*- C++ -*-===//
//
// tshape-inference-report's model: per function, one prefill or decode
// step of the model (cost::estimateInference), its findings traced to
// hyperparameters (advise::inferenceFindings) and the analysis' own
// findings on the step's GEMMs (alignment at small M). Writers.h renders
// it as JSON (schema tshape-inference/1, docs/report-schema.md) and
// Markdown. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_REPORT_INFERENCEREPORT_H
#define TSHAPE_REPORT_INFERENCEREPORT_H

#include "tshape/Advise/InferenceFindings.h"
#include "tshape/Advise/ShapeReport.h"

#include <string>
#include <vector>

namespace tshape::report {

struct InferenceReport {
  struct Function {
    std::string name;
    model::ModelConfig config;
    cost::InferenceEstimate estimate;
    std::vector<advise::InferenceFinding> findings;
    /// The analysis' findings on the step's GEMMs (ShapeReport.h).
    std::vector<advise::Finding> shapeFindings;
  };
  target::GpuTarget target;
  std::vector<Function> functions;
};

/// The one-line summary of a function's step (the pass's remark).
std::string summaryLine(const InferenceReport::Function &f,
                        const target::GpuTarget &t);

} // namespace tshape::report

#endif // TSHAPE_REPORT_INFERENCEREPORT_H
