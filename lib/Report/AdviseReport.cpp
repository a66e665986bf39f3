//===- AdviseReport.cpp - tshape advise: the whole path, one report -------===//
//
// buildAdviseReport calls the library's pieces in the order a model
// designer needs them (docs/advise.md); nothing here prices, searches or
// traces on its own.
//
//===----------------------------------------------------------------------===//

#include "tshape/Report/AdviseReport.h"
#include "tshape/Advise/InferenceFindings.h"
#include "tshape/Cost/Inference.h"
#include "tshape/Interop/Megatron.h"
#include "tshape/Model/Parallelism.h"

#include <set>

using namespace tshape;
using namespace tshape::report;

double AdviseReport::stepUs() const { return analysis.totals.stepUs; }

std::optional<AdviseReport>
tshape::report::buildAdviseReport(const model::ModelConfig &config,
                                  const AdviseOptions &options,
                                  std::string &error) {
  auto stage = [&](llvm::StringRef s) {
    if (options.onStage)
      options.onStage(s);
  };
  AdviseReport r;
  r.model = options.model;
  r.modelType = config.modelType;
  r.options = options;
  r.config = config;
  const target::GpuTarget &target = options.target;
  const model::RunShape &run = options.run;

  // The analysis: every GEMM priced, findings, the checklist.
  stage("analyzing the GEMMs");
  r.analysis = analyze(target, options.threshold,
                       advise::recordsFor(config, run), 0);

  // The serving step, when the run is one (it can fail: say why).
  if (run.phase != model::Phase::Train) {
    stage("pricing the serving step");
    cost::InferenceOptions io;
    if (options.cluster)
      io.cluster = &*options.cluster;
    std::optional<cost::InferenceEstimate> est =
        cost::estimateInference(config, run, target, io, error);
    if (!est)
      return std::nullopt;
    InferenceReport ir;
    ir.target = target;
    InferenceReport::Function f;
    f.name = config.name;
    f.config = config;
    f.estimate = *est;
    f.findings = advise::inferenceFindings(config, run, target, io, *est);
    f.shapeFindings = r.analysis.findings;
    ir.functions.push_back(std::move(f));
    r.inference = std::move(ir);
  }

  // The shape search within the parameter budget.
  stage("searching shapes");
  advise::ShapeSearch search(target);
  advise::SearchOptions so;
  so.paramTolerance = options.paramTolerance;
  so.run = run;
  so.vary = advise::defaultVary(config); // + moe_ffn, shared_ffn for MoE
  if (!model::getParam(config, model::Param::Vocab))
    so.vary.erase(model::paramName(model::Param::Vocab));
  r.search = search.search(config, so, r.searchError);
  if (r.search && !r.search->changes.empty())
    r.optimized = analyze(target, options.threshold,
                          advise::recordsFor(r.search->after, run), 0);

  // The figure behind each finding, then behind each searched change that
  // no finding names.
  stage("sweeping the findings' parameters");
  advise::ShapeAnalysis priced(target, options.threshold);
  std::set<model::Param> swept;
  for (const advise::Finding &f : r.analysis.findings) {
    if (r.sweeps.size() >= options.maxSweeps)
      break;
    if (swept.insert(f.parameter).second)
      r.sweeps.push_back(advise::sweepParameter(
          priced, r.analysis.records, f.parameter, f.value, f.suggested));
  }
  if (r.search)
    for (const advise::Change &ch : r.search->changes) {
      std::optional<model::Param> p = model::parseParam(ch.parameter);
      if (!p || r.sweeps.size() >= options.maxSweeps + 2 ||
          !swept.insert(*p).second)
        continue;
      advise::Sweep s = advise::sweepParameter(priced, r.analysis.records, *p,
                                               ch.before, ch.after);
      if (!s.points.empty())
        r.sweeps.push_back(std::move(s));
    }

  // A training step on a cluster: tp x pp GPUs (times ep data-parallel
  // replicas), pp microbatches, the vocabulary padded as Megatron-LM pads
  // it: the plan tshape-plan prices for the same options.
  if (options.cluster && run.phase == model::Phase::Train) {
    stage("pricing the plan");
    model::ModelConfig c = config;
    model::padGrowOnlySplits(c, kMegatronVocabDivisibleBy);
    c.parallel.dp = std::max<int64_t>(1, c.parallel.ep);
    cost::TrainingPlan plan;
    plan.microbatches = c.parallel.pp;
    plan.setVirtualStages(options.virtualStages);
    plan.recompute = options.recompute;
    plan.recomputeModules = options.recomputeModules;
    plan.sequenceParallel = options.sequenceParallel;
    plan.bytes = stateBytes(c.dtype);
    plan.precision = run.precision;
    const model::Parallelism &par = c.parallel;
    if (std::optional<model::RuleViolation> v =
            model::checkModelPerSequence(c))
      r.planError = "rule " + v->rule + ": " + v->message;
    else
      r.plan = evaluatePlan(options.model, c, plan, target, *options.cluster,
                            par.tp * par.pp * par.cp * par.dp,
                            options.originalVocab, r.planError);
  }

  // Megatron-LM trains: for a serving run its sequence is the served
  // context (the kv length), not the step's one new token.
  const int64_t vocab = options.originalVocab
                            ? options.originalVocab
                            : model::getParam(config, model::Param::Vocab);
  model::ModelConfig trained = r.result();
  const int64_t context = run.kvLength ? run.kvLength : trained.seq;
  if (run.phase != model::Phase::Train)
    model::setParam(trained, model::Param::Seq, context);
  r.megatronArguments = megatronArguments(trained, vocab, run.precision);
  if (run.phase != model::Phase::Train)
    r.megatronArguments += "\n# note: a " +
                           std::string(model::phaseName(run.phase)) +
                           " run: --seq-length is its context (" +
                           std::to_string(context) +
                           " tokens), --micro-batch-size its batch";
  return r;
}
