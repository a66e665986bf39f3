//===- MegatronArgsTest.cpp - Megatron-LM's rules, encoded ----------------===//
//
// The encoded flag table and start-up rules (MegatronArgs.h): each rule
// with a line that breaks it and the same line fixed, and every example
// family under every plan kind through megatronLaunch, whose command must
// pass them all and name the architecture. The lit tests check the flags
// family by family against the configs.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/HFConfig.h"
#include "tshape/Interop/Megatron.h"
#include "tshape/Interop/MegatronArgs.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <dirent.h>

using namespace tshape;

namespace {
/// A line that starts: the sizes Megatron-LM requires (P1).
const std::string kBase = "--num-layers 24 --hidden-size 1024 "
                          "--num-attention-heads 16 --seq-length 2048 "
                          "--max-position-embeddings 2048 "
                          "--micro-batch-size 2 ";

/// The base line plus `extra`, run with CUDA_DEVICE_MAX_CONNECTIONS=1 set
/// (as a launch at tp > 1 sets it) unless `ctx` is given.
std::vector<std::string> check(const std::string &extra,
                               std::optional<MegatronLaunchContext> ctx = {}) {
  MegatronLaunchContext c;
  c.deviceMaxConnections1 = true;
  return validateMegatronArguments(kBase + extra, ctx.value_or(c));
}

/// Whether some problem names `rule` ("rule X5 (").
bool breaks(const std::vector<std::string> &problems, const std::string &rule) {
  for (const std::string &p : problems)
    if (p.rfind("rule " + rule + " (", 0) == 0)
      return true;
  return false;
}

std::string joined(const std::vector<std::string> &v) {
  std::string s;
  for (const std::string &x : v)
    s += x + "\n";
  return s;
}
} // namespace

TEST(MegatronArgs, TheBaseLineStarts) {
  EXPECT_TRUE(check("").empty()) << joined(check(""));
}

TEST(MegatronArgs, ParsesAsArgparse) {
  std::vector<std::string> p;
  // --rotary-base is type=int (arguments.py:2418): 1e6 and 500000.0 fail.
  p = check("--rotary-base 1e6");
  ASSERT_EQ(p.size(), 1u) << joined(p);
  EXPECT_NE(p[0].find("expected an integer"), std::string::npos) << p[0];
  EXPECT_EQ(check("--rotary-base 500000.0").size(), 1u);
  EXPECT_TRUE(check("--rotary-base 500000").empty());
  // allow_abbrev=False: a misspelt or shortened flag is unrecognized.
  p = check("--overlap-p2p-comm");
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], "unrecognized argument --overlap-p2p-comm");
  EXPECT_EQ(check("--num-lay 3").size(), 2u); // the flag, then its value
  // Choices.
  EXPECT_EQ(check("--normalization rmsnorm").size(), 1u);
  EXPECT_TRUE(check("--normalization RMSNorm").empty());
  EXPECT_TRUE(check("--attention-backend unfused").empty());
  // A switch takes no value; a valued flag needs one; no flag twice.
  EXPECT_EQ(check("--swiglu 1").size(), 1u);
  EXPECT_EQ(check("--norm-epsilon").size(), 1u);
  EXPECT_EQ(check("--swiglu --swiglu").size(), 1u);
  // Window pairs and layer patterns (tuple_type, moe_freq_type).
  EXPECT_TRUE(check("--window-size 127,0").empty());
  EXPECT_EQ(check("--window-size 127").size(), 1u);
  EXPECT_TRUE(check("--num-experts 8 --disable-bias-linear --moe-layer-freq "
                    "\"([0]*3+[1]*21)\"")
                  .empty());
  // nargs='+'.
  EXPECT_TRUE(check("--recompute-granularity selective --recompute-modules "
                    "core_attn mlp")
                  .empty());
}

TEST(MegatronArgs, EachRuleBrokenAndKept) {
  // Each pair: a line that breaks the rule, and the change that keeps it.
  struct Case {
    const char *rule, *broken, *kept;
    int64_t world = 0;
    bool maxConnections1 = true; ///< CUDA_DEVICE_MAX_CONNECTIONS=1 set
  };
  const Case cases[] = {
      // 24 layers over pp 5; over pp 4 they split.
      {"P2", "--pipeline-model-parallel-size 5",
       "--pipeline-model-parallel-size 4"},
      // Uneven stages: 24 - 5 - 5 = 14 over 2 middle stages of pp 4 is 7
      // each; 24 - 5 - 4 = 15 is not even.
      {"P3",
       "--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers "
       "5 --decoder-last-pipeline-num-layers 4",
       "--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers "
       "5 --decoder-last-pipeline-num-layers 5"},
      {"P4",
       "--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers "
       "5 --decoder-last-pipeline-num-layers 5 "
       "--account-for-loss-in-pipeline-split",
       "--pipeline-model-parallel-size 4 --decoder-first-pipeline-num-layers "
       "5 --decoder-last-pipeline-num-layers 5"},
      // 24 / 4 = 6 layers per stage; chunks of 4 do not divide them.
      {"P8",
       "--pipeline-model-parallel-size 4 "
       "--num-layers-per-virtual-pipeline-stage 4",
       "--pipeline-model-parallel-size 4 "
       "--num-layers-per-virtual-pipeline-stage 3"},
      // Interleaving at pp 2 needs the (default) P2P overlap.
      {"P10",
       "--pipeline-model-parallel-size 2 "
       "--num-layers-per-virtual-pipeline-stage 6 "
       "--no-overlap-p2p-communication",
       "--pipeline-model-parallel-size 2 "
       "--num-layers-per-virtual-pipeline-stage 6"},
      {"H1", "--tensor-model-parallel-size 3",
       "--tensor-model-parallel-size 4"},
      // 16 heads in 4 groups: tp 8 replicates them (8 % 4 == 0); 6 groups
      // at tp 4 neither divide nor are divided (and 16 % 6 != 0).
      {"H2",
       "--tensor-model-parallel-size 4 --group-query-attention "
       "--num-query-groups 6",
       "--tensor-model-parallel-size 8 --group-query-attention "
       "--num-query-groups 4"},
      // 2048 over 2 x cp 3 = 6 does not divide; cp 4: 8 does.
      {"C1", "--context-parallel-size 3", "--context-parallel-size 4"},
      {"S5", "--tp-comm-overlap --tensor-model-parallel-size 2",
       "--tp-comm-overlap --tensor-model-parallel-size 2 --sequence-parallel"},
      {"X1", "--expert-model-parallel-size 2",
       "--expert-model-parallel-size 2 --num-experts 8 --disable-bias-linear"},
      {"X2", "--num-experts 6 --expert-model-parallel-size 4 "
             "--disable-bias-linear",
       "--num-experts 8 --expert-model-parallel-size 4 --disable-bias-linear"},
      // Biased experts at tp 2 (ETP defaults to tp).
      {"X5", "--num-experts 8 --tensor-model-parallel-size 2 "
             "--sequence-parallel",
       "--num-experts 8 --tensor-model-parallel-size 2 --sequence-parallel "
       "--expert-tensor-parallel-size 1"},
      {"X6", "--num-experts 8 --disable-bias-linear --moe-router-topk 1",
       "--num-experts 8 --disable-bias-linear --moe-router-topk 1 "
       "--moe-router-pre-softmax"},
      {"X7", "--num-experts 8 --disable-bias-linear "
             "--moe-router-enable-expert-bias",
       "--num-experts 8 --disable-bias-linear "
       "--moe-router-enable-expert-bias --moe-router-score-function sigmoid"},
      {"X8", "--num-experts 8 --disable-bias-linear --moe-router-group-topk 2",
       "--num-experts 8 --disable-bias-linear --moe-router-group-topk 2 "
       "--moe-router-num-groups 4"},
      {"X12", "--num-experts 8 --disable-bias-linear "
              "--moe-shared-expert-intermediate-size 512 "
              "--moe-shared-expert-overlap",
       "--num-experts 8 --disable-bias-linear "
       "--moe-shared-expert-intermediate-size 512 "
       "--moe-shared-expert-overlap --moe-token-dispatcher-type alltoall"},
      {"X18", "--num-experts 8 --disable-bias-linear "
              "--moe-apply-probs-on-input",
       "--num-experts 8 --disable-bias-linear --moe-apply-probs-on-input "
       "--moe-router-topk 1 --moe-router-score-function sigmoid"},
      {"S4", "--num-experts 8 --disable-bias-linear "
             "--tensor-model-parallel-size 2",
       "--num-experts 8 --disable-bias-linear --tensor-model-parallel-size 2 "
       "--sequence-parallel"},
      // FSDP2 wants CUDA_DEVICE_MAX_CONNECTIONS unset.
      {"F1", "--use-torch-fsdp2 --untie-embeddings-and-output-weights",
       "--use-torch-fsdp2 --untie-embeddings-and-output-weights "
       "--no-gradient-accumulation-fusion", 0, false},
      {"F4", "--overlap-param-gather --overlap-grad-reduce",
       "--overlap-param-gather --overlap-grad-reduce "
       "--use-distributed-optimizer"},
      {"F7", "--optimizer-cpu-offload --use-distributed-optimizer",
       "--optimizer-cpu-offload --use-distributed-optimizer "
       "--use-precision-aware-optimizer"},
      {"F8", "--cpu-offloading-num-layers 4 --recompute-granularity selective",
       "--cpu-offloading-num-layers 4"},
      {"R2", "--recompute-granularity selective --recompute-method uniform",
       "--recompute-granularity selective"},
      {"R4", "--recompute-granularity full",
       "--recompute-granularity full --recompute-method uniform "
       "--recompute-num-layers 1"},
      // A layout of the base line's 24 layers over pp 2 (its 2 chunks a
      // rank: v 1); and what breaks it.
      {"P11",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*12L\" --num-layers-per-virtual-pipeline-stage 6",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*12L\""},
      {"P12",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*12L\" --decoder-first-pipeline-num-layers 12",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*12L\""},
      {"P13",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|x*12L\"",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*12L\""},
      {"P14",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*11L\"",
       "--pipeline-model-parallel-size 2 --pipeline-model-parallel-layout "
       "\"Et*12|t*12L\""},
      {"R5", "--recompute-granularity selective --recompute-modules attn",
       "--recompute-granularity selective --recompute-modules core_attn"},
      {"R6", "--recompute-granularity selective --recompute-modules moe_act",
       "--recompute-granularity selective --recompute-modules moe_act "
       "--moe-grouped-gemm"},
      {"R7",
       "--recompute-granularity selective --recompute-modules mla_up_proj",
       "--recompute-granularity selective --recompute-modules mla_up_proj "
       "--multi-latent-attention"},
      {"R8",
       "--recompute-granularity selective --recompute-modules shared_experts "
       "--moe-shared-expert-intermediate-size 1024 "
       "--moe-shared-expert-overlap",
       "--recompute-granularity selective --recompute-modules shared_experts "
       "--moe-shared-expert-intermediate-size 1024"},
      // --fp8-recipe defaults to delayed.
      {"R9",
       "--fp8-format e4m3 --recompute-granularity selective "
       "--recompute-modules layernorm",
       "--fp8-format e4m3 --fp8-recipe tensorwise --recompute-granularity "
       "selective --recompute-modules layernorm"},
      // The expert all-to-alls overlapped: ep > 1, virtual stages at pp >
      // 1, the alltoall/flex dispatcher, no full recompute or moe module,
      // bf16/fp16, no shared-expert overlap, at most one MTP layer.
      {"M1",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --pipeline-model-parallel-size 2 "
       "--overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --pipeline-model-parallel-size 2 "
       "--num-layers-per-virtual-pipeline-stage 6 "
       "--overlap-moe-expert-parallel-comm --bf16"},
      // One chunk per rank is no interleaving (Megatron-LM leaves the
      // virtual size None: arguments.py:950-951).
      {"M1",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --pipeline-model-parallel-size 2 "
       "--num-virtual-stages-per-pipeline-rank 1 "
       "--overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --pipeline-model-parallel-size 2 "
       "--num-virtual-stages-per-pipeline-rank 2 "
       "--overlap-moe-expert-parallel-comm --bf16"},
      {"M2",
       "--num-experts 8 --disable-bias-linear "
       "--moe-token-dispatcher-type alltoall "
       "--overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall "
       "--overlap-moe-expert-parallel-comm --bf16"},
      {"M3",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type flex --overlap-moe-expert-parallel-comm --bf16"},
      {"M4",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --recompute-granularity full "
       "--recompute-method uniform --recompute-num-layers 1 "
       "--overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --recompute-granularity "
       "selective --overlap-moe-expert-parallel-comm --bf16"},
      {"M5",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --recompute-granularity "
       "selective --recompute-modules moe --overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --recompute-granularity "
       "selective --recompute-modules core_attn "
       "--overlap-moe-expert-parallel-comm --bf16"},
      {"M6",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall "
       "--overlap-moe-expert-parallel-comm",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall "
       "--overlap-moe-expert-parallel-comm --fp16"},
      {"M7",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall "
       "--moe-shared-expert-intermediate-size 512 "
       "--moe-shared-expert-overlap --overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall "
       "--moe-shared-expert-intermediate-size 512 "
       "--overlap-moe-expert-parallel-comm --bf16"},
      {"M8",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --mtp-num-layers 2 --position-embedding-type rope "
       "--overlap-moe-expert-parallel-comm --bf16",
       "--num-experts 8 --disable-bias-linear --expert-model-parallel-size 2 "
       "--moe-token-dispatcher-type alltoall --mtp-num-layers 1 --position-embedding-type rope "
       "--overlap-moe-expert-parallel-comm --bf16"},
      {"RP4", "--rope-type yarn", "--rope-type rope"},
      {"ML1", "--multi-latent-attention --group-query-attention "
              "--num-query-groups 16",
       "--multi-latent-attention"},
      {"ML3", "--multi-latent-attention --position-embedding-type rope "
              "--rope-type rope",
       "--multi-latent-attention --position-embedding-type rope "
       "--rope-type rope --no-rope-fusion"},
      {"MT1", "--mtp-num-layers 1", "--mtp-num-layers 1 "
                                    "--position-embedding-type rope"},
      // 24 layers: every 5th without rope does not tile them; every 4th does.
      {"RP5", "--position-embedding-type rope --no-rope-freq 5",
       "--position-embedding-type rope --no-rope-freq 4"},
      {"R-ACT1", "--squared-relu", "--squared-relu --no-bias-gelu-fusion"},
      {"M1", "--fp16 --bf16", "--bf16"},
      {"M2", "--fp8-format hybrid --fp4-format e2m1", "--fp4-format e2m1"},
      // 64 GPUs at tp 2, pp 4: dp 8, so a global batch of 24 is not a
      // multiple of 2 x 8 = 16; 32 is.
      {"B4",
       "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 "
       "--global-batch-size 24",
       "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 4 "
       "--global-batch-size 32",
       64},
      // 60 GPUs over tp 8 do not split.
      {"W1", "--tensor-model-parallel-size 8",
       "--tensor-model-parallel-size 4", 60},
      // Interleaved at pp 4 with dp 4: a global batch of 16 is 2
      // microbatches of 2 x 4, fewer than pp.
      {"P14",
       "--pipeline-model-parallel-size 4 "
       "--num-layers-per-virtual-pipeline-stage 3 --global-batch-size 16",
       "--pipeline-model-parallel-size 4 "
       "--num-layers-per-virtual-pipeline-stage 3 --global-batch-size 32",
       16},
  };
  for (const Case &c : cases) {
    MegatronLaunchContext ctx;
    ctx.worldSize = c.world;
    ctx.deviceMaxConnections1 = c.maxConnections1;
    std::vector<std::string> broken = check(c.broken, ctx);
    EXPECT_TRUE(breaks(broken, c.rule))
        << c.rule << " not found for '" << c.broken << "':\n"
        << joined(broken);
    std::vector<std::string> kept = check(c.kept, ctx);
    EXPECT_TRUE(kept.empty()) << c.rule << " kept line '" << c.kept
                              << "' fails:\n"
                              << joined(kept);
  }
  // E1: tensor parallelism before Blackwell needs the environment.
  MegatronLaunchContext bare;
  EXPECT_TRUE(breaks(validateMegatronArguments(
                         kBase + "--tensor-model-parallel-size 2", bare),
                     "E1"));
  bare.blackwell = true;
  EXPECT_TRUE(validateMegatronArguments(
                  kBase + "--tensor-model-parallel-size 2", bare)
                  .empty());
  // C2: max positions below the sequence; P1: the required sizes.
  EXPECT_TRUE(breaks(validateMegatronArguments(
                         "--num-layers 2 --hidden-size 64 "
                         "--num-attention-heads 4 --seq-length 4096 "
                         "--max-position-embeddings 2048 --micro-batch-size 1"),
                     "C2"));
  EXPECT_TRUE(breaks(validateMegatronArguments("--hidden-size 8"), "P1"));
}

namespace {
/// The example configs (examples/*.json), in name order.
std::vector<std::string> exampleFiles() {
  std::vector<std::string> out;
  if (DIR *d = opendir(TSHAPE_EXAMPLES_DIR)) {
    while (dirent *e = readdir(d)) {
      std::string name = e->d_name;
      if (name.size() > 5 && name.substr(name.size() - 5) == ".json")
        out.push_back(std::string(TSHAPE_EXAMPLES_DIR) + "/" + name);
    }
    closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The plan kinds a Megatron-LM launch can take: data parallel, tensor and
/// sequence parallel with the distributed optimizer, interleaved pipeline
/// with full recompute, FSDP2, context parallel, expert parallel, FP8,
/// uneven pipeline stages.
struct PlanKind {
  const char *name;
  model::Parallelism par;
  cost::TrainingPlan plan;
};
std::vector<PlanKind> planKinds() {
  using cost::Recompute;
  using cost::StateSharding;
  std::vector<PlanKind> kinds;
  auto add = [&](const char *name, model::Parallelism par,
                 auto configure) {
    cost::TrainingPlan plan;
    plan.microbatches = 8;
    configure(plan);
    kinds.push_back({name, par, plan});
  };
  add("dp", {1, 1, 8, 1, 1}, [](cost::TrainingPlan &) {});
  add("tp-sp-distopt", {2, 1, 4, 1, 1}, [](cost::TrainingPlan &p) {
    p.sequenceParallel = true;
    p.sharding = StateSharding::DistributedOptimizer;
    p.recompute = Recompute::Selective;
  });
  add("pp-interleaved-full", {1, 2, 4, 1, 1}, [](cost::TrainingPlan &p) {
    p.setVirtualStages(2);
    p.recompute = Recompute::Full;
  });
  add("fsdp", {1, 1, 8, 1, 1},
      [](cost::TrainingPlan &p) { p.sharding = StateSharding::Fsdp; });
  add("cp", {2, 1, 2, 1, 2}, [](cost::TrainingPlan &p) {
    p.sequenceParallel = true;
  });
  add("ep", {1, 1, 8, 2, 1}, [](cost::TrainingPlan &p) {
    p.sharding = StateSharding::DistributedOptimizer;
  });
  add("fp8", {1, 1, 8, 1, 1},
      [](cost::TrainingPlan &p) { p.precision = Precision::FP8; });
  // Megatron-Bridge's MoE recipes: layernorm and moe_act recomputed, in
  // FP8 (R6: grouped GEMMs; R9: not the delayed recipe).
  add("ep-recompute-modules", {1, 1, 8, 2, 1}, [](cost::TrainingPlan &p) {
    p.recompute = Recompute::Selective;
    p.recomputeModules =
        model::RecomputeModules(model::RecomputeModule::LayerNorm) |
        model::RecomputeModules(model::RecomputeModule::MoeAct);
    p.precision = Precision::FP8;
  });
  // The expert all-to-alls behind another microbatch's compute (pp 2
  // interleaved, as Megatron-LM requires).
  add("ep-overlap", {1, 2, 4, 2, 1}, [](cost::TrainingPlan &p) {
    p.setVirtualStages(2);
    p.overlapEpComm = true;
    p.sharding = StateSharding::DistributedOptimizer;
  });
  // Uneven stages: the first of pp 2 holds one layer more than half
  // (set per model below).
  add("uneven", {1, 2, 4, 1, 1}, [](cost::TrainingPlan &) {});
  return kinds;
}
} // namespace

TEST(MegatronArgs, EveryFamilyUnderEveryPlanKind) {
  std::vector<std::string> files = exampleFiles();
  ASSERT_GE(files.size(), 38u) << "examples not found at "
                               << TSHAPE_EXAMPLES_DIR;
  int launched = 0;
  for (const std::string &file : files) {
    auto buf = llvm::MemoryBuffer::getFile(file);
    ASSERT_TRUE(buf) << file;
    ImportOptions opts;
    ImportDiagnostic diag;
    std::optional<model::ModelConfig> base =
        importHFConfig((*buf)->getBuffer(), opts, diag);
    ASSERT_TRUE(base) << file << ": " << diag.message;
    if (base->modelType == "bert")
      continue; // an encoder: pretrain_gpt.py trains decoders
    int ok = 0;
    for (const PlanKind &k : planKinds()) {
      model::ModelConfig c = *base;
      c.parallel = k.par;
      cost::TrainingPlan plan = k.plan;
      if (std::string(k.name) == "uneven")
        plan.firstStageLayers = c.layers / 2 + 1;
      if (k.par.ep > 1 && (!c.moe.experts || c.moe.experts % k.par.ep))
        continue;
      if (model::checkModel(c))
        continue; // tshape's own rules (heads over tp) first
      if (checkMegatronRules(c, plan))
        continue; // a plan Megatron-LM cannot run, said before the writer
      std::string error;
      std::optional<MegatronLaunch> launch =
          megatronLaunch(c, 0, plan, &error);
      // What checkMegatronRules lets through, the encoded rules accept.
      ASSERT_TRUE(launch) << file << " under " << k.name << ": " << error;
      const std::string &a = launch->arguments;
      for (const char *flag : {"--position-embedding-type ", "--normalization ",
                               "--norm-epsilon "})
        EXPECT_NE(a.find(flag), std::string::npos)
            << file << " under " << k.name << " lacks " << flag << ": " << a;
      MegatronLaunchContext ctx;
      ctx.worldSize = k.par.tp * k.par.pp * k.par.cp * k.par.dp;
      ctx.deviceMaxConnections1 = !launch->environment.empty();
      EXPECT_TRUE(validateMegatronArguments(a, ctx).empty()) << a;
      ++ok;
    }
    // Each family launches under some plan kind (data parallel at least).
    EXPECT_GE(ok, 1) << file;
    launched += ok;
  }
  // 37 decoders: every one under most of the 9 kinds.
  std::printf("Megatron-LM launches checked: %d of %zu families under %zu "
              "plan kinds\n",
              launched, files.size() - 1, planKinds().size());
  EXPECT_GE(launched, 150);
}

TEST(MegatronArgs, SinksFollowTheArchitecture) {
  // Learned sinks are an architecture fact, not gpt-oss's: a llama with
  // them states them, and without them nothing is written.
  ImportDiagnostic diag;
  std::optional<model::ModelConfig> c = importHFConfig(
      R"({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4,
          "num_hidden_layers": 2, "vocab_size": 1024})",
      ImportOptions(), diag);
  ASSERT_TRUE(c) << diag.message;
  EXPECT_EQ(megatronArguments(*c, 0).find("--softmax-type"),
            std::string::npos);
  c->arch.attentionSinks = true;
  std::string args = megatronArguments(*c, 0);
  EXPECT_NE(args.find("--softmax-type learnable"), std::string::npos) << args;
  EXPECT_NE(args.find("# note: --softmax-type learnable (the sinks) needs "
                      "Transformer Engine 2.8 or later"),
            std::string::npos)
      << args;
}
