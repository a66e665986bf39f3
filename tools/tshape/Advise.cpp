//===- Advise.cpp - tshape advise -----------------------------------------===//
//
// Imports a Hugging Face config.json (Interop/HFConfig), runs the whole
// path through report::buildAdviseReport (analysis, findings, guidelines,
// shape search, sweeps, the serving step or the plan), prints a short
// summary and, with -o DIR, writes report.html, report.json, report.md,
// the optimized config.json (every original key kept, exportHFConfig) and
// megatron-args.txt (the one Megatron-LM writer). docs/advise.md.
//
//===----------------------------------------------------------------------===//

#include "Subcommands.h"

#include "tshape/Interop/HFConfig.h"
#include "tshape/Report/AdviseReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Support/Progress.h"
#include "tshape/Tools/DegreeOptions.h"
#include "tshape/Tools/RunOptions.h"
#include "tshape/Tools/ToolOptions.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

using namespace tshape;
using namespace tshape::driver;
namespace cl = llvm::cl;

cl::SubCommand &tshape::driver::adviseCommand() {
  static cl::SubCommand cmd(
      "advise", "analyze a config.json, search a faster shape within the "
                "parameter budget, write the reports and the optimized "
                "config");
  return cmd;
}

cl::OptionCategory &tshape::driver::adviseCategory() {
  static cl::OptionCategory cat("Advise options", "tshape advise CONFIG.json [options]");
  return cat;
}

namespace {
cl::SubCommand &cmd = adviseCommand();
cl::OptionCategory &cat = adviseCategory();

cl::opt<std::string> input(cl::Positional, cl::desc("<config.json>"),
                           cl::sub(cmd), cl::cat(cat));
cl::opt<std::string>
    targetName("target",
               cl::desc("GPU target (default: h100-sxm, or --cluster's GPU)"),
               cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> &tp = declareDegree(DegreeOption::Tp, cmd, cat, 1);
// The --cluster plan's (tshape-plan's meaning and defaults).
cl::opt<int64_t> &pp = declareDegree(DegreeOption::Pp, cmd, cat, 1);
cl::opt<int64_t> &cp = declareDegree(DegreeOption::Cp, cmd, cat, 1);
cl::opt<int64_t> &vp = declareDegree(DegreeOption::Vp, cmd, cat, 1);
cl::opt<int64_t> &ep = declareDegree(DegreeOption::Ep, cmd, cat, 1);
cl::opt<cost::Recompute> recompute(
    "recompute",
    cl::desc("what the backward of the --cluster plan recomputes (default: "
             "none)"),
    tshape::recomputeValues(), cl::init(cost::Recompute::None), cl::sub(cmd),
    cl::cat(cat));
cl::opt<std::string> recomputeModules("recompute-modules",
                                      cl::desc(tshape::kRecomputeModulesHelp),
                                      cl::value_desc("list"), cl::sub(cmd),
                                      cl::cat(cat));
cl::opt<bool> sequenceParallel(
    "sequence-parallel",
    cl::desc("sequence parallelism with tensor parallelism in the --cluster "
             "plan (Megatron-LM's --sequence-parallel; MoE at tp > 1 needs "
             "it)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<bool> fusedAttention(
    "fused-attention",
    cl::desc("attention as one fused kernel, forward and backward "
             "(FlashAttention or cuDNN: what Megatron-LM and the serving "
             "engines run); =false prices the unfused score and value GEMMs "
             "with their softmax (default true, as tshape-plan)"),
    cl::init(true), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t> &seq = declareDegree(DegreeOption::Seq, cmd, cat, 2048);
// 4, the GEMMs' analysis shape (tshape-translate's); --batch is the same.
cl::opt<int64_t> &microbatch =
    declareDegree(DegreeOption::Microbatch, cmd, cat, 4);
cl::alias batch("batch",
                cl::desc("alias for --microbatch: the concurrent sequences "
                         "of a prefill or decode"),
                cl::aliasopt(microbatch), cl::cat(cat));
cl::opt<model::Phase> phase(
    "phase", cl::desc("the run to price (default: train)"),
    cl::values(clEnumValN(model::Phase::Train, "train",
                          "a training step: the forward, then the backward"),
               clEnumValN(model::Phase::Prefill, "prefill",
                          "the forward of --batch prompts of --seq tokens"),
               clEnumValN(model::Phase::Decode, "decode",
                          "one decode step of --batch sequences over "
                          "--context cached tokens")),
    cl::init(model::Phase::Train), cl::sub(cmd), cl::cat(cat));
cl::opt<int64_t>
    context("context",
            cl::desc("prefill, decode: tokens already in each sequence's KV "
                     "cache"),
            cl::init(0), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> precisionOpt(
    "precision",
    cl::desc("the linear layers' precision: bf16, fp8 (per-tensor current "
             "scaling) or mxfp8 (block scaling, Blackwell): the weight GEMMs "
             "are priced as FP8 linear layers, and the Megatron-LM arguments "
             "name the recipe (default: the model's dtype)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> clusterName(
    "cluster",
    cl::desc("price the step on a cluster (dgx-h100, ...; docs/clusters.md): "
             "train: the plan of --tp, --pp, --cp, --vp, --ep and "
             "--recompute (tp x pp x cp GPUs, ep replicas when experts are "
             "split, pp "
             "microbatches) with its Megatron-LM launch, as tshape-plan "
             "prices it; prefill, decode: the tensor-parallel all-reduces"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> targetFile(
    "target-file",
    cl::desc("a target file to use instead of --target (docs/targets.md; "
             "tshape-calibrate writes one)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<std::string> clusterFile(
    "cluster-file",
    cl::desc("a cluster file to use instead of --cluster (docs/clusters.md)"),
    cl::sub(cmd), cl::cat(cat));
cl::opt<double> paramTolerance(
    "param-tolerance",
    cl::desc("the shape search's parameter budget, |P' - P| / P (default: "
             "0.02)"),
    cl::init(0.02), cl::sub(cmd), cl::cat(cat));
cl::opt<std::string>
    outDir("o",
           cl::desc("write report.html, report.json, report.md, config.json "
                    "and megatron-args.txt into this directory"),
           cl::value_desc("dir"), cl::sub(cmd), cl::cat(cat));

bool given(const cl::Option &o) { return o.getNumOccurrences() > 0; }

/// The run the options ask for, and the tokens per sequence the model is
/// imported with (runFromOptions: the rules tshape-translate reads them
/// by); nullopt after printing the error.
std::optional<std::pair<model::RunShape, int64_t>> runShape() {
  RunInputs in;
  in.defaultPhase = model::Phase::Train;
  if (given(phase))
    in.phase = phase;
  in.seq = seq;
  in.seqGiven = given(seq);
  if (given(context))
    in.context = context;
  if (given(precisionOpt))
    in.precision = precisionOpt.getValue();
  std::string error;
  auto run = runFromOptions(in, error);
  if (!run)
    fail(error);
  return run;
}
} // namespace

int tshape::driver::runAdvise() {
  if (std::optional<std::string> bad =
          checkDegrees({&seq, &microbatch, &tp, &pp, &cp, &vp, &ep}))
    return fail(*bad);
  if (paramTolerance < 0 || paramTolerance >= 1)
    return fail("--param-tolerance must be in [0, 1), got " +
                llvm::formatv("{0}", paramTolerance.getValue()).str());
  if (input.empty())
    return fail("no config.json given (usage: tshape advise CONFIG.json "
                "[-o DIR]; see tshape advise --help)");
  std::optional<std::pair<model::RunShape, int64_t>> run = runShape();
  if (!run)
    return 1;
  // The plan's options price a training step on a cluster.
  for (const cl::Option *o :
       {static_cast<const cl::Option *>(&pp),
        static_cast<const cl::Option *>(&cp),
        static_cast<const cl::Option *>(&vp),
        static_cast<const cl::Option *>(&recompute),
        static_cast<const cl::Option *>(&recomputeModules),
        static_cast<const cl::Option *>(&sequenceParallel)})
    if (given(*o) && ((clusterName.empty() && clusterFile.empty()) ||
                      phase != model::Phase::Train))
      return fail("--" + o->ArgStr.str() +
                  " is a choice of the training plan: it needs --cluster "
                  "(and --phase=train)");

  // The cluster and its GPU, as tshape-plan resolves them.
  std::string error;
  report::AdviseOptions options;
  if (!clusterName.empty() || !clusterFile.empty()) {
    options.cluster = cost::resolveCluster(clusterName, clusterFile, error);
    if (!options.cluster)
      return fail(error);
  }
  std::string tname = targetName;
  if (tname.empty() && targetFile.empty())
    tname = options.cluster ? options.cluster->gpu : "h100-sxm";
  std::optional<target::GpuTarget> target =
      target::resolveTarget(tname, targetFile, error);
  if (!target)
    return fail(error);
  if (run->first.precision && !target->supports(*run->first.precision))
    return fail(std::string("precision ") +
                precisionName(*run->first.precision) +
                " is not supported on " + target->name + " (it supports " +
                target->precisionList() +
                "): use one of those, or a target that has it");

  // The config, imported as tshape-translate imports it.
  auto buf = llvm::MemoryBuffer::getFile(input, /*IsText=*/true);
  if (!buf)
    return fail("cannot read '" + input + "': " + buf.getError().message());
  ImportOptions io;
  io.seq = run->second;
  io.microbatch = microbatch;
  io.name = llvm::sys::path::stem(input).str();
  // Attention fused, forward and backward, as Megatron-LM and the serving
  // engines run it and tshape-plan prices it (--fused-attention=false:
  // the unfused GEMMs the paper analyses).
  io.fusedAttention = fusedAttention;
  ImportDiagnostic diag;
  std::optional<model::ModelConfig> config =
      importHFConfig((*buf)->getBuffer(), io, diag);
  if (!config) {
    llvm::errs() << input;
    if (diag.line)
      llvm::errs() << ":" << diag.line << ":" << diag.column;
    llvm::errs() << ": error: " << diag.message << "\n";
    return 1;
  }
  // The degree: imported at 1, then the vocabulary padded to a multiple of
  // it (the least a run at that degree needs; tshape-plan does the same
  // at Megatron-LM's 128 x tp) and the model's rules checked.
  const int64_t vocab = model::getParam(*config, model::Param::Vocab);
  const model::ModelConfig imported = *config;
  model::setDegree(config->parallel, model::Param::Tp, tp);
  model::setDegree(config->parallel, model::Param::Pp, pp);
  model::setDegree(config->parallel, model::Param::Cp, cp);
  model::setDegree(config->parallel, model::Param::Ep, ep);
  for (model::Param p : model::padGrowOnlySplits(*config))
    options.notes.push_back(
        std::string(model::paramName(p)) + " " +
        std::to_string(model::getParam(imported, p)) + " padded to " +
        std::to_string(model::getParam(*config, p)) + ", a multiple of tp " +
        std::to_string(tp.getValue()) + ", to run at that degree");
  if (std::optional<model::RuleViolation> v = model::checkModel(*config))
    return fail("at --tp=" + std::to_string(tp.getValue()) +
                (pp > 1 ? " --pp=" + std::to_string(pp.getValue()) : "") +
                (cp > 1 ? " --cp=" + std::to_string(cp.getValue()) : "") +
                (ep > 1 ? " --ep=" + std::to_string(ep.getValue()) : "") +
                ": rule " + v->rule + ": " + v->message);
  llvm::Expected<llvm::json::Value> original =
      llvm::json::parse((*buf)->getBuffer());
  if (!original || !original->getAsObject()) {
    if (!original)
      llvm::consumeError(original.takeError());
    return fail("'" + input + "' is not a JSON object");
  }
  const llvm::json::Object &base = *original->getAsObject();

  // The output directory first: a run that cannot write says so at once.
  if (!outDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(outDir))
      return fail("cannot create output directory '" + outDir +
                  "': " + ec.message());

  Progress progress("tshape advise");
  options.model = input;
  options.target = *target;
  options.run = run->first;
  options.paramTolerance = paramTolerance;
  if (std::string bad =
          resolveRecompute(recompute, recomputeModules, options.recompute,
                           options.recomputeModules);
      !bad.empty())
    return fail(bad);
  options.sequenceParallel = sequenceParallel;
  options.virtualStages = vp;
  options.originalVocab = vocab;
  options.onStage = [&](llvm::StringRef stage) { progress.update(stage); };
  std::optional<report::AdviseReport> rep =
      report::buildAdviseReport(*config, options, error);
  progress.done();
  if (!rep)
    return fail(error);

  if (!outDir.empty()) {
    auto path = [&](llvm::StringRef name) {
      llvm::SmallString<256> p(outDir);
      llvm::sys::path::append(p, name);
      return std::string(p);
    };
    for (const char *name : {"report.html", "report.json", "report.md",
                             "config.json", "megatron-args.txt"})
      rep->files.push_back(path(name));
    std::optional<llvm::json::Object> hf = exportHFConfig(
        rep->result(), config->modelType, &base, error);
    if (!hf)
      return fail("cannot export the optimized config: " + error);
    const report::AdviseReport &r = *rep;
    std::pair<std::string, std::function<void(llvm::raw_ostream &)>>
        outputs[] = {
            {rep->files[0], [&](llvm::raw_ostream &os) { writeHtml(os, r); }},
            {rep->files[1],
             [&](llvm::raw_ostream &os) { report::writeJson(os, r); }},
            {rep->files[2],
             [&](llvm::raw_ostream &os) { report::writeMarkdown(os, r); }},
            {rep->files[3],
             [&](llvm::raw_ostream &os) {
               os << llvm::formatv("{0:2}", llvm::json::Value(std::move(*hf)))
                  << "\n";
             }},
            {rep->files[4], [&](llvm::raw_ostream &os) {
               os << r.megatronArguments << "\n";
             }}};
    for (auto &[file, body] : outputs)
      if (llvm::Error err = report::writeFile(file, body))
        return fail(llvm::toString(std::move(err)));
  }
  report::writeText(llvm::outs(), *rep);
  if (outDir.empty())
    llvm::outs() << "(give -o DIR for report.html, report.json, report.md, "
                    "config.json and megatron-args.txt)\n";
  return 0;
}
