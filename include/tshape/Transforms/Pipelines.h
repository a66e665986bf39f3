//===- Pipelines.h - tshape pass pipelines ----------------------*- C++ -*-===//
//
// Pipelines other tools can reuse: the C++ builders for embedding projects,
// and their registration as tshape-opt pipelines.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PIPELINES_H
#define TSHAPE_PIPELINES_H

#include "tshape/Model/RunShape.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace tshape {

struct AnalyzeModelOptions
    : public mlir::PassPipelineOptions<AnalyzeModelOptions> {
  Option<std::string> target{*this, "target",
                             llvm::cl::desc("built-in GPU (default: the "
                                            "module's, else h100-sxm)"),
                             llvm::cl::init("")};
  Option<model::Phase> phase{
      *this, "phase",
      llvm::cl::desc("the run where the IR states none: train (also the "
                     "backward GEMMs), prefill or decode"),
      llvm::cl::init(model::Phase::Prefill),
      llvm::cl::values(
          clEnumValN(model::Phase::Train, "train", "a training step"),
          clEnumValN(model::Phase::Prefill, "prefill", "the forward"),
          clEnumValN(model::Phase::Decode, "decode", "one decode step"))};
  Option<bool> training{*this, "training",
                        llvm::cl::desc("removed: use phase=train"),
                        llvm::cl::init(false)};
  Option<std::string> report{*this, "report",
                             llvm::cl::desc("report file (.json, .md or -)"),
                             llvm::cl::init("")};
  Option<double> threshold{*this, "threshold",
                           llvm::cl::desc("flag threshold (loss fraction)"),
                           llvm::cl::init(0.1)};
};

/// tshape IR -> linalg GEMMs -> efficiency analysis (and report).
void buildAnalyzeModelPipeline(mlir::OpPassManager &pm,
                               const AnalyzeModelOptions &options);

/// Registers `tshape-analyze-model` with the pass registry.
void registerTShapePipelines();

} // namespace tshape

#endif // TSHAPE_PIPELINES_H
