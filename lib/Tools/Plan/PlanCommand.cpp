//===- PlanCommand.cpp - Evaluate or search training plans ----------------===//
//
// tshape-plan CONFIG.json (or tshape plan CONFIG.json) --gpus=N [--cluster=C | --cluster-file=F]
//             [--target=T] [--tp --pp --dp --cp --ep] [--microbatch --seq
//             --global-batch --vp] [--recompute=...] [--sequence-parallel]
//             [--sharding=...] [--report=FILE]
//
// Imports a Hugging Face config.json (Interop/HFConfig.h), prices one
// training step of the plan (cost::estimateStep: time per component,
// exposed and hidden communication, TFLOP/s, tokens/s, MFU, memory per GPU
// per component against the target's memory) and prints the Megatron-LM
// launch command (Interop/Megatron.h, checked against Megatron-LM's
// argument rules). --report writes report::PlanReport as JSON or Markdown.
// docs/plan.md. Plain C++ on the cost-model libraries: no MLIR. The
// options live on plancmd::subCommand(), which each binary defines: the
// top level in tshape-plan, the `plan` subcommand in tshape.
//
//===----------------------------------------------------------------------===//

#include "tshape/Tools/PlanHardware.h"
#include "tshape/Tools/PlanCommand.h"

#include "tshape/Cost/StepTime.h"
#include "tshape/Interop/HFConfig.h"
#include "tshape/Interop/Megatron.h"
#include "tshape/Report/PlanReport.h"
#include "tshape/Report/Writers.h"
#include "tshape/Support/Progress.h"
#include "tshape/Tools/DegreeOptions.h"
#include "tshape/Tools/ToolOptions.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <set>

using namespace tshape;
namespace cl = llvm::cl;

namespace {
cl::OptionCategory planCat("tshape-plan options");

cl::opt<std::string> input(cl::Positional, cl::desc("<config.json>"),
                           cl::Required, cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> clusterName(
    "cluster",
    cl::desc("built-in cluster (dgx-a100, dgx-h100, hgx-h200, dgx-b200, "
             "gb200-nvl72; default: the one of --target, else dgx-h100)"),
    cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> clusterFile(
    "cluster-file", cl::desc("cluster file to use instead (docs/clusters.md)"),
    cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> targetName(
    "target", cl::desc("built-in GPU target (default: the cluster's GPU)"),
    cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> targetFile("target-file",
                                cl::desc("target file to use instead"),
                                cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> gpus("gpus",
                      cl::desc("GPUs in all (default: tp x pp x dp x cp)"),
                      cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> &tp = declareDegree(DegreeOption::Tp, plancmd::subCommand(),
                                     planCat, 1);
cl::opt<int64_t> &pp = declareDegree(DegreeOption::Pp, plancmd::subCommand(),
                                     planCat, 1);
cl::opt<int64_t> dp("dp",
                    cl::desc("data-parallel degree (default: "
                             "gpus / (tp x pp x cp))"),
                    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> &cp = declareDegree(DegreeOption::Cp, plancmd::subCommand(),
                                     planCat, 1);
cl::opt<int64_t> &ep = declareDegree(DegreeOption::Ep, plancmd::subCommand(),
                                     planCat, 1);
cl::opt<int64_t> etp(
    "etp",
    cl::desc("expert tensor-parallel degree of a MoE model (Megatron-LM's "
             "--expert-tensor-parallel-size; default: tp)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> &microbatch = declareDegree(
    DegreeOption::Microbatch, plancmd::subCommand(), planCat, 1);
cl::opt<int64_t> &seq =
    declareDegree(DegreeOption::Seq, plancmd::subCommand(), planCat, 2048);
cl::opt<int64_t> globalBatch(
    "global-batch",
    cl::desc("sequences per step (default: microbatch x dp x pp, the "
             "fewest microbatches that fill the pipeline)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> &vp = declareDegree(DegreeOption::Vp, plancmd::subCommand(),
                                     planCat, 1);
cl::opt<int64_t> firstStageLayers(
    "first-stage-layers",
    cl::desc("decoder layers of the first pipeline stage (uneven stages: "
             "Megatron-LM's --decoder-first-pipeline-num-layers; the middle "
             "stages split the rest evenly)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> lastStageLayers(
    "last-stage-layers",
    cl::desc("decoder layers of the last pipeline stage "
             "(--decoder-last-pipeline-num-layers)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<bool> embeddingInSplit(
    "embedding-in-split",
    cl::desc("the embedding counts as a layer when the pipeline stages are "
             "split (Megatron-LM's --account-for-embedding-in-pipeline-split:"
             " each model chunk holds (layers + embedding + loss) / (pp x vp) "
             "decoder layers, the first one fewer)"),
    cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<bool> lossInSplit(
    "loss-in-split",
    cl::desc("the loss counts as a layer when the pipeline stages are split "
             "(--account-for-loss-in-pipeline-split: the last chunk one "
             "layer fewer)"),
    cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> pipelineLayout(
    "pipeline-layout",
    cl::desc("Megatron-LM's --pipeline-model-parallel-layout: each of the "
             "pp x v model chunks in order, E the embedding, t a decoder "
             "layer, m an MTP layer, L the loss, '|' between chunks, x*n and "
             "(...)*n to repeat (DeepSeek-V3 at pp 16, or at pp 4 where it "
             "makes v 4: "
             "\"Etttt|(tttt|)*14tmL\"); v follows from it"),
    cl::value_desc("layout"), cl::sub(plancmd::subCommand()),
    cl::cat(planCat));
/// --pipeline-layout, parsed (run).
std::optional<cost::PipelineLayout> parsedLayout;
int64_t layoutVirtualStages = 1;
cl::opt<cost::Recompute> recompute(
    "recompute", cl::desc("what the backward recomputes"),
    tshape::recomputeValues(),
    cl::init(cost::Recompute::None), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> recomputeModules(
    "recompute-modules", cl::desc(tshape::kRecomputeModulesHelp),
    cl::value_desc("list"), cl::sub(plancmd::subCommand()),
    cl::cat(planCat));
/// --recompute and --recompute-modules, resolved (run).
cost::Recompute resolvedRecompute = cost::Recompute::None;
model::RecomputeModules resolvedModules = 0;
cl::opt<int64_t> offloadLayers(
    "offload-layers",
    cl::desc("activation CPU offloading: the decoder layers whose saved "
             "activations go to host memory (Megatron-LM's "
             "--cpu-offloading-num-layers; pp 1, no recompute)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<bool> overlapEpComm(
    "overlap-ep-comm",
    cl::desc("the expert all-to-alls behind another microbatch's compute "
             "(Megatron-LM's --overlap-moe-expert-parallel-comm: ep > 1, "
             "virtual stages at pp > 1, no full recompute)"),
    cl::init(false), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> loraRank(
    "lora-rank",
    cl::desc("LoRA finetuning at this adapter rank (Megatron-Bridge's PEFT, "
             "peft=lora): the base weights frozen, two adapters on every "
             "linear layer of the decoder; Megatron-LM has no LoRA, so no "
             "command is written (0: full training)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<bool> sequenceParallel(
    "sequence-parallel",
    cl::desc("sequence parallelism with tensor parallelism"),
    cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<cost::StateSharding> sharding(
    "sharding", cl::desc("training state sharded over data-parallel ranks"),
    cl::values(clEnumValN(cost::StateSharding::None, "none", "none"),
               clEnumValN(cost::StateSharding::DistributedOptimizer,
                          "distributed-optimizer",
                          "optimizer state (Megatron-LM's distributed "
                          "optimizer)"),
               clEnumValN(cost::StateSharding::Fsdp, "fsdp",
                          "weights, gradients and optimizer state")),
    cl::init(cost::StateSharding::None), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<bool> fusedAttention(
    "fused-attention",
    cl::desc("attention as one fused kernel (FlashAttention or cuDNN, "
             "Megatron-LM's default); =false prices the unfused scores, "
             "softmax and dropout (default true)"),
    cl::init(true), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> dtypeOpt("dtype",
                              cl::desc("training precision (bf16, fp16, ...)"),
                              cl::init("bf16"), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<std::string> precisionOpt(
    "precision",
    cl::desc("the linear layers' precision as Transformer Engine runs them: "
             "bf16, fp8 (per-tensor current scaling) or mxfp8 (block "
             "scaling, Blackwell); prices the weight GEMMs as FP8 linear "
             "layers, adds the FP8 weight copies to the memory and writes "
             "Megatron-LM's --fp8-format/--fp8-recipe (default: none, the "
             "--dtype's)"),
    cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(planCat));
/// --precision, parsed (main).
std::optional<Precision> precision;
cl::opt<std::string> reportPath(
    "report",
    cl::desc("write the report: a .json file, a .md file, or - for Markdown "
             "on stdout (docs/report-schema.md)"),
    cl::init(""), cl::sub(plancmd::subCommand()), cl::cat(planCat));

cl::opt<bool> search(
    "search",
    cl::desc("search the plans instead of evaluating one: every degree, "
             "microbatch, v, recompute, sequence parallelism and sharding "
             "not given on the command line is searched (docs/plan.md)"),
    cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> top("top", cl::desc("--search: ranked plans shown (10)"),
                     cl::init(10), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<double> memoryLimit(
    "memory-limit",
    cl::desc("--search: GiB per GPU allowed (default: the target's memory)"),
    cl::init(0), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<double> equalWithin(
    "equal-within",
    cl::desc("--search: plans whose step times are within this fraction of "
             "their group's fastest are ranked as equals, the conventional "
             "plan first (default: the step model's mean |error| on "
             "held-out published runs, 0.171; 0 ranks by time alone)"),
    cl::init(cost::kStepHeldOutMeanAbsError), cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<int64_t> maxCandidates(
    "max-candidates",
    cl::desc("--search: candidates visited at most (100000000)"),
    cl::init(100'000'000), cl::sub(plancmd::subCommand()), cl::cat(planCat));

cl::opt<bool> coSearch(
    "co-search",
    cl::desc("--search: run the shape search under each tensor-parallel "
             "family's fastest plan (a shape good at t=1 can be bad at t=8)"),
    cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::list<std::string> vary(
    "vary",
    cl::desc("--co-search: parameters that may change (default "
             "vocab,heads,ffn)"),
    cl::CommaSeparated, cl::sub(plancmd::subCommand()), cl::cat(planCat));
cl::opt<double> paramTolerance(
    "param-tolerance",
    cl::desc("--co-search: |P' - P| / P allowed (0.02)"), cl::init(0.02),
    cl::sub(plancmd::subCommand()), cl::cat(planCat));

/// The tool's name, the start of each line it writes to stderr
/// ("tshape-plan", or "tshape" for `tshape plan`).
const char *kTool = "tshape-plan";

int fail(const std::string &msg) {
  llvm::errs() << kTool << ": error: " << msg << "\n";
  return 1;
}

std::string n(int64_t v) { return std::to_string(v); }

bool given(const cl::Option &o) { return o.getNumOccurrences() > 0; }

/// The plan choices of the command line (the degrees and microbatch are
/// the config's).
cost::TrainingPlan commandLinePlan(int64_t microbatches) {
  cost::TrainingPlan plan;
  plan.setVirtualStages(parsedLayout ? layoutVirtualStages : int64_t(vp));
  plan.firstStageLayers = firstStageLayers;
  plan.lastStageLayers = lastStageLayers;
  plan.embeddingInSplit = embeddingInSplit;
  plan.lossInSplit = lossInSplit;
  plan.layout = parsedLayout;
  plan.microbatches = microbatches;
  plan.recompute = resolvedRecompute;
  plan.recomputeModules = resolvedModules;
  plan.offloadLayers = offloadLayers;
  plan.overlapEpComm = overlapEpComm;
  plan.loraRank = loraRank;
  plan.sequenceParallel = sequenceParallel;
  plan.sharding = sharding;
  return plan;
}

/// Writes `r` as asked: the terminal summary unless the report goes to
/// stdout, and the report file.
template <typename Report> int emit(const Report &r) {
  if (reportPath != "-")
    report::writeText(llvm::outs(), r);
  if (!reportPath.empty())
    if (llvm::Error err = report::writeReport(reportPath, r))
      return fail(llvm::toString(std::move(err)));
  return 0;
}

/// The plan choices the command line fixes (a search searches the rest).
advise::FixedPlanChoices fixedChoices() {
  advise::FixedPlanChoices fixed;
  auto fix = [](auto &slot, const auto &opt) {
    if (given(opt))
      slot = opt.getValue();
  };
  fix(fixed.tp, tp);
  fix(fixed.pp, pp);
  fix(fixed.cp, cp);
  fix(fixed.ep, ep);
  fix(fixed.microbatch, microbatch);
  fix(fixed.virtualStages, vp);
  fix(fixed.recompute, recompute);
  if (given(recomputeModules)) {
    fixed.recompute = cost::Recompute::Selective;
    fixed.recomputeModules = resolvedModules;
  }
  fix(fixed.sequenceParallel, sequenceParallel);
  fix(fixed.sharding, sharding);
  fix(fixed.overlapEpComm, overlapEpComm);
  return fixed;
}

/// --search: the space of the command line (a choice given is fixed), the
/// search, and the fastest plan evaluated with its launch.
int runSearch(const model::ModelConfig &config, model::DType dtype,
              const target::GpuTarget &target, const cost::Cluster &cluster) {
  const advise::PlanSpace space = advise::narrowSpace(
      advise::defaultPlanSpace(config, gpus, globalBatch), fixedChoices());
  advise::PlanSearchOptions options;
  options.memoryLimitGiB = memoryLimit;
  options.top = top;
  options.equalWithin = equalWithin;
  options.maxCandidates = maxCandidates;
  options.bytes = report::stateBytes(dtype);
  options.precision = precision;
  // A status line on a terminal past two seconds (GPT-3 175B on 1024
  // GPUs takes about three); never in a pipe or a log.
  Progress progress("tshape-plan");
  options.progress = [&](int64_t done, int64_t total) {
    progress.update("searching plans", done, total);
  };
  std::string error;
  const auto start = std::chrono::steady_clock::now();
  std::optional<advise::PlanSearchResult> result =
      advise::searchPlans(config, space, target, cluster, options, error);
  progress.done();
  if (!result)
    return fail(error);
  report::PlanSearchReport rep;
  rep.seconds = std::chrono::duration<double>(
                    std::chrono::steady_clock::now() - start)
                    .count();
  rep.model = input;
  rep.target = target.name;
  rep.cluster = cluster.name;
  rep.result = std::move(*result);
  if (!rep.result.ranked.empty()) {
    const advise::PlanCandidate &best = rep.result.ranked.front();
    rep.best = report::evaluatePlan(input, best.config, best.plan, target,
                                    cluster, gpus,
                                    getParam(config, model::Param::Vocab),
                                    error);
    if (!rep.best)
      return fail("the fastest plan (" + best.describe() +
                  ") cannot be evaluated: " + error);
    rep.best->memoryCapacityGiB = rep.result.memoryLimitGiB;
  }
  if (coSearch) {
    advise::SearchOptions shape;
    shape.paramTolerance = paramTolerance;
    if (!vary.empty())
      shape.vary = std::set<std::string>(vary.begin(), vary.end());
    for (const std::string &v : shape.vary)
      rep.coSearchVary += (rep.coSearchVary.empty() ? "" : ",") + v;
    rep.coSearchTolerance = paramTolerance;
    for (const advise::PlanFamily &f : rep.result.families) {
      if (!f.fastest)
        continue;
      std::optional<advise::SearchResult> shapes = advise::coSearchShapes(
          *f.fastest, target, cluster, shape, rep.result.memoryLimitGiB, {},
          error);
      if (!shapes)
        return fail("--co-search under " + f.fastest->describe() + ": " +
                    error);
      rep.coSearch.push_back({*f.fastest, std::move(*shapes)});
    }
  }
  if (int rc = emit(rep))
    return rc;
  if (std::string none = advise::noPlanFits(rep.result); !none.empty())
    return fail(none);
  return 0;
}
/// The config, imported as tshape-translate imports it; nullopt after
/// printing the error.
std::optional<model::ModelConfig> importConfig(model::DType dtype) {
  auto buf = llvm::MemoryBuffer::getFileOrSTDIN(input, /*IsText=*/true);
  if (!buf) {
    fail("cannot read '" + input + "': " + buf.getError().message());
    return std::nullopt;
  }
  ImportOptions options;
  options.seq = seq;
  options.dtype = dtype;
  ImportDiagnostic diag;
  std::optional<model::ModelConfig> config =
      importHFConfig((*buf)->getBuffer(), options, diag);
  if (!config) {
    llvm::errs() << input;
    if (diag.line)
      llvm::errs() << ":" << diag.line << ":" << diag.column;
    llvm::errs() << ": error: " << diag.message << "\n";
    return std::nullopt;
  }
  config->attention.fused = fusedAttention;
  return config;
}

/// The hardware modes (--clusters, --scale, --price, --project;
/// Hardware.cpp): the command line's shared choices handed over.
int runHardware(int argc, char **argv, model::DType dtype) {
  planhw::Context ctx;
  ctx.model = input;
  for (int i = 0; i < argc; ++i)
    ctx.command += (i ? " " : "") + std::string(argv[i]);
  ctx.search = search;
  ctx.singleHardwareGiven = given(clusterName) || given(clusterFile) ||
                            given(targetName) || given(targetFile);
  ctx.dpGiven = given(dp);
  ctx.gpus = gpus;
  ctx.globalBatch = globalBatch;
  ctx.report = reportPath;
  ctx.fixed = fixedChoices();
  ctx.options.memoryLimitGiB = memoryLimit;
  ctx.options.top = top;
  ctx.options.maxCandidates = maxCandidates;
  ctx.options.bytes = report::stateBytes(dtype);
  ctx.options.precision = precision;
  ctx.importModel = [dtype] { return importConfig(dtype); };
  return planhw::run(ctx);
}
} // namespace

cl::OptionCategory &tshape::plancmd::category() { return planCat; }

std::string tshape::plancmd::overview(const char *tool) {
  return std::string(tool) +
      ": evaluate or search training plans and print the Megatron-LM "
      "launch\n\n"
      "Prices one training step of a Hugging Face config.json under a plan "
      "(degrees,\nbatch, schedule, recompute, sharding) on a cluster: time "
      "per component, TFLOP/s,\ntokens/s and MFU per GPU, memory per GPU "
      "against the target's, and the\nMegatron-LM command. With --search, "
      "ranks every plan of the space that fits\nthe memory. See "
      "docs/plan.md.\n";
}

int tshape::plancmd::run(const char *tool, int argc, char **argv) {
  kTool = tool;
  planhw::setTool(tool);

  if (std::optional<std::string> bad =
          checkDegrees({&tp, &pp, &cp, &ep, &microbatch, &seq, &vp, &top,
                        &maxCandidates}))
    return fail(*bad);
  if (gpus < 0 || dp < 0 || globalBatch < 0)
    return fail("--gpus, --dp and --global-batch must be positive");
  if (std::string bad = resolveRecompute(recompute, recomputeModules,
                                         resolvedRecompute, resolvedModules);
      !bad.empty())
    return fail(bad);
  if (memoryLimit < 0)
    return fail("--memory-limit must be positive (GiB per GPU)");
  if (equalWithin < 0 || equalWithin >= 1)
    return fail(llvm::formatv("--equal-within must be in [0, 1), got {0}",
                              equalWithin.getValue())
                    .str());
  if (given(equalWithin) && !search)
    return fail("--equal-within groups a search's ranking: it needs --search");
  std::optional<model::DType> dtype = model::parseDType(dtypeOpt);
  if (!dtype)
    return fail("unknown --dtype '" + dtypeOpt + "'");
  if (!precisionOpt.empty()) {
    precision = parsePrecision(precisionOpt);
    if (!precision)
      return fail("--precision: unknown precision '" + precisionOpt +
                  "' (expected " + precisionNames() + ")");
  }
  if ((coSearch || given(vary) || given(paramTolerance)) && !search)
    return fail("--co-search, --vary and --param-tolerance need --search");
  if (paramTolerance < 0)
    return fail("--param-tolerance must be >= 0, got " +
                std::to_string(paramTolerance));
  if (given(etp) && etp < 1)
    return fail("--etp must be at least 1, got " + n(etp));
  if (search && given(etp))
    return fail("--etp fixes one plan's expert tensor parallelism; the "
                "search keeps it at tp (give the plan without --search)");
  if (loraRank < 0)
    return fail("--lora-rank must be positive (0: full training)");
  if (search && given(loraRank))
    return fail("--lora-rank prices one LoRA plan; the search prices full "
                "training (give the plan without --search)");
  if (offloadLayers < 0)
    return fail("--offload-layers must be positive (0: no offloading)");
  if (search && given(offloadLayers))
    return fail("--offload-layers fixes one plan's offloading; the search "
                "prices none (give the plan without --search)");
  if (firstStageLayers < 0 || lastStageLayers < 0)
    return fail("--first-stage-layers and --last-stage-layers must be "
                "positive (0: the even share)");
  if (search && (given(firstStageLayers) || given(lastStageLayers) ||
                 embeddingInSplit || lossInSplit || given(pipelineLayout)))
    return fail("--first-stage-layers, --last-stage-layers, "
                "--embedding-in-split, --loss-in-split and --pipeline-layout "
                "fix one plan's layout; the search prices even stages (give "
                "--pp and no --search)");
  if (given(pipelineLayout)) {
    std::string bad;
    parsedLayout = cost::parsePipelineLayout(pipelineLayout, bad);
    if (!parsedLayout)
      return fail("--pipeline-layout: " + bad);
    const int64_t v = parsedLayout->virtualStages(pp);
    if (int64_t(parsedLayout->chunks.size()) % pp != 0)
      return fail("--pipeline-layout: " +
                  std::to_string(parsedLayout->chunks.size()) +
                  " chunks not divisible by --pp " + std::to_string(pp) +
                  " (Megatron-LM, arguments.py:944)");
    if (given(vp) && vp != v)
      return fail("--pipeline-layout has " +
                  std::to_string(parsedLayout->chunks.size()) +
                  " chunks, v = " + std::to_string(v) + " at --pp " +
                  std::to_string(pp) + "; --vp says " +
                  std::to_string(vp.getValue()) + " (leave --vp out)");
    layoutVirtualStages = v;
  }
  if (search) {
    if (!gpus)
      return fail("--search needs --gpus (the GPUs to plan for)");
    if (!globalBatch)
      return fail("--search needs --global-batch (sequences per step)");
    if (dp)
      return fail("--search derives dp (gpus / (tp x pp x cp)); give "
                  "--gpus, not --dp");
  }
  if (planhw::requested())
    return runHardware(argc, argv, *dtype);

  // The degrees: dp given, or derived from the GPUs.
  const int64_t modelRanks = tp * pp * cp;
  int64_t d = dp, world = gpus;
  if (search) {
    d = 1; // the search sets every degree
  } else if (!world && !d) {
    return fail("give --gpus (or --dp)");
  } else if (!d) {
    if (world % modelRanks)
      return fail(n(world) + " GPUs do not factor as tp " + n(tp) + " x pp " +
                  n(pp) + " x cp " + n(cp) + " = " + n(modelRanks) +
                  " times a data-parallel degree (" + n(world) + " / " +
                  n(modelRanks) + " is not whole)");
    d = world / modelRanks;
  } else if (!world) {
    world = modelRanks * d;
  } else if (modelRanks * d != world) {
    return fail("tp " + n(tp) + " x pp " + n(pp) + " x dp " + n(d) +
                " x cp " + n(cp) + " = " + n(modelRanks * d) + " GPUs, not " +
                n(world));
  }

  // The cluster and its GPU.
  std::string error;
  std::string cname = clusterName;
  if (cname.empty() && clusterFile.empty()) {
    const cost::Cluster *byTarget =
        targetName.empty() ? nullptr
                           : cost::defaultClusterForTarget(targetName);
    cname = byTarget ? byTarget->name : "dgx-h100";
  }
  std::optional<cost::Cluster> cluster =
      cost::resolveCluster(cname, clusterFile, error);
  if (!cluster)
    return fail(error);
  std::optional<target::GpuTarget> target = target::resolveTarget(
      targetName.empty() && targetFile.empty() ? cluster->gpu : targetName,
      targetFile, error);
  if (!target)
    return fail(error);

  // The model, imported as tshape-translate imports it (at degree 1 for a
  // search, which sets the degrees itself).
  std::optional<model::ModelConfig> config = importConfig(*dtype);
  if (!config)
    return 1;
  const int64_t vocab = getParam(*config, model::Param::Vocab);
  if (search)
    return runSearch(*config, *dtype, *target, *cluster);

  // The degrees and microbatch; the vocabulary padded to a multiple of tp
  // as Megatron-LM pads it; the model's rules at these degrees.
  setParam(*config, model::Param::Microbatch, microbatch);
  config->parallel = {tp, pp, d, ep, cp};
  config->parallel.etp = etp;
  model::padGrowOnlySplits(*config, kMegatronVocabDivisibleBy);
  if (std::optional<model::RuleViolation> v =
          model::checkModelPerSequence(*config))
    return fail("rule " + v->rule + ": " + v->message);

  // The plan; Megatron-LM's batch rule (num_microbatches_calculator.py).
  const int64_t perStep = microbatch * d;
  int64_t batch = globalBatch ? int64_t(globalBatch) : perStep * pp;
  if (batch % perStep)
    return fail("global batch size " + n(batch) +
                " not divisible by micro batch size " + n(microbatch) +
                " x data-parallel size " + n(d) + " = " + n(perStep) +
                " (Megatron-LM asserts it)");
  cost::TrainingPlan plan = commandLinePlan(batch / perStep);
  plan.bytes = report::stateBytes(*dtype);
  plan.precision = precision;
  std::optional<report::PlanReport> r =
      report::evaluatePlan(input, *config, plan, *target, *cluster, world,
                           vocab, error);
  if (!r)
    return fail(error);

  if (!globalBatch)
    r->megatronNotes.push_back("no --global-batch: tshape took " + n(batch) +
                               " (" + n(plan.microbatches) +
                               " microbatches, the fewest that fill the "
                               "pipeline)");
  if (int rc = emit(*r))
    return rc;
  // The report says what does not fit; the exit status says it to scripts.
  if (!r->fits())
    return fail(llvm::formatv("the plan does not fit: {0:F1} GiB per GPU > "
                              "{1:F0} GiB of {2}",
                              r->peakGiB(), r->memoryCapacityGiB, r->target)
                    .str());
  return 0;
}
