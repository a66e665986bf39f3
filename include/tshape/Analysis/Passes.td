//===- Passes.td - tshape analysis passes ------------------*- tablegen -*-===//
//
// GEMM efficiency analysis on a GPU target, and the GEMM summary.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ANALYSIS_PASSES_TD
#define TSHAPE_ANALYSIS_PASSES_TD

include "mlir/Pass/PassBase.td"

def TShapeGemmAnalysis : Pass<"tshape-gemm-analysis", "::mlir::ModuleOp"> {
  let summary = "predict each GEMM's time on a GPU and flag shape losses";
  let description = [{
    Predicts every static linalg contraction (named ops with or without
    `indexing_maps`, and any `linalg.generic` that
    `linalg::inferContractionDims` recognises) on the target GPU with the
    GEMM cost model (docs/cost-model.md): alignment, tile, K-step and wave
    quantization, split-K, the roofline, and fused attention kernels.
    Dynamic-shaped contractions are counted as skipped.

    Each GEMM gets a `tshape.analysis` dictionary attribute. A GEMM whose
    predicted loss exceeds `threshold` gets a warning at its location
    naming the cause with numbers and, for GEMMs from tshape ops, the
    hyperparameter and layer that sized it and the suggested value;
    `remarks=all` adds a remark for every other GEMM. `report=FILE` writes
    the JSON report (docs/report-schema.md); `report=-` or a `.md` file
    gives the Markdown report.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "built-in GPU (v100, a100-40gb, a100-80gb, h100-sxm, "
           "h100-sxm-vllm0.24, h100-pcie, "
           "h200, b200, gb200, l40s, rtx4090); default: the module's tshape.target, "
           "else h100-sxm">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "JSON GPU description (docs/targets.md); overrides target">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write the report: a .json file, a .md file, or - for Markdown on "
           "stdout">,
    Option<"threshold", "threshold", "double", /*default=*/"0.1",
           "predicted loss fraction in [0, 1) above which a GEMM is flagged">,
    Option<"remarks", "remarks", "::tshape::AnalysisRemarks",
           /*default=*/"::tshape::AnalysisRemarks::Flagged",
           "diagnostics: none, flagged (warnings) or all (also remarks)",
           [{::tshape::analysisRemarksValues()}]>
  ];
  let statistics = [
    Statistic<"numAnalyzed", "gemms-analyzed",
              "GEMMs priced (with any elementwise kernel a lowering carried)">,
    Statistic<"numSkipped", "gemms-skipped",
              "Ops skipped: dynamic shapes, convolutions, other reductions, "
              "element types without a GEMM model">,
    Statistic<"numFlagged", "gemms-flagged",
              "GEMMs whose predicted loss exceeds the threshold">
  ];
}

def TShapeGemmSummary : Pass<"tshape-gemm-summary", "::mlir::ModuleOp"> {
  let summary = "print a human summary of the module's GEMMs";
  let description = [{
    Finds every static linalg contraction (named or generic, recognised by
    `linalg::inferContractionDims`), groups GEMMs of the same role and
    shape across layers, and prints a Markdown table with the batch count,
    M, N, K, FLOPs and each group's share of the total. Leaves the IR
    unchanged.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "file to write the summary to: '-' (stdout) or a .md file gets "
           "Markdown, any other name JSON">
  ];
  let statistics = [
    Statistic<"numSummarized", "gemms-summarized",
              "GEMMs counted in the summary">,
    Statistic<"numGroups", "gemm-groups",
              "Rows of the summary: GEMMs of one role and shape">,
    Statistic<"numSkipped", "gemms-skipped",
              "Ops with a reduction not read as GEMMs: dynamic shapes, "
              "convolutions, other reductions">
  ];
}

#endif // TSHAPE_ANALYSIS_PASSES_TD
