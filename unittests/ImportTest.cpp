//===- ImportTest.cpp - Unit tests of the HF config reader ----------------===//
//
// The config reader on in-memory JSON: defaults, key aliases and located
// errors. The lit tests cover the tool end to end on example files.
//
//===----------------------------------------------------------------------===//

#include "tshape/Interop/HFConfig.h"
#include "tshape/Interop/Megatron.h"

#include <gtest/gtest.h>

#include <set>

using namespace tshape;
using namespace tshape::model;

TEST(Import, Gpt2DefaultsInner) {
  ImportDiagnostic diag;
  auto c = importHFConfig(R"({"model_type": "gpt2", "n_embd": 768,
      "n_head": 12, "n_layer": 12, "vocab_size": 50257, "n_inner": null})",
                          ImportOptions(), diag);
  ASSERT_TRUE(c) << diag.message;
  // n_inner null means 4h = 3072; gpt2 ties its embeddings.
  EXPECT_EQ(c->mlp.inner, 3072);
  EXPECT_TRUE(c->tiedEmbeddings);
  EXPECT_EQ(c->attention.kvHeads, 12);
  EXPECT_EQ(c->microbatch, 4);
  EXPECT_EQ(c->seq, 2048);
}

TEST(Import, FalconMultiQuery) {
  ImportDiagnostic diag;
  auto c = importHFConfig(R"({"model_type": "falcon", "hidden_size": 4544,
      "num_attention_heads": 71, "num_hidden_layers": 32,
      "vocab_size": 65024, "multi_query": true, "parallel_attn": true})",
                          ImportOptions(), diag);
  ASSERT_TRUE(c) << diag.message;
  EXPECT_EQ(c->attention.kvHeads, 1);
  EXPECT_EQ(c->residual, ResidualMode::Parallel);
  EXPECT_EQ(c->headDim(), 64); // 4544 / 71
}

TEST(Import, LocatesBadKey) {
  ImportDiagnostic diag;
  auto c = importHFConfig("{\"model_type\": \"llama\",\n"
                          "  \"hidden_size\": 4096,\n"
                          "  \"num_attention_heads\": -4,\n"
                          "  \"num_hidden_layers\": 32, \"vocab_size\": 32000}",
                          ImportOptions(), diag);
  EXPECT_FALSE(c);
  EXPECT_EQ(diag.line, 3u);
  EXPECT_EQ(diag.column, 3u);
  EXPECT_NE(diag.message.find("num_attention_heads"), std::string::npos);
  EXPECT_NE(diag.message.find("-4"), std::string::npos);
}

TEST(Import, MalformedJsonHasLineAndColumn) {
  ImportDiagnostic diag;
  EXPECT_FALSE(importHFConfig("{\n  \"model_type\": \"gpt2\",\n  \"n_embd\" 768\n}",
                              ImportOptions(), diag));
  EXPECT_EQ(diag.line, 3u);
  EXPECT_NE(diag.message.find("malformed JSON"), std::string::npos);
}

TEST(Import, KnowsAllListedTypes) {
  auto types = supportedModelTypes();
  for (const char *t : {"gpt2", "gpt_neo", "gptj", "gpt_neox", "opt", "llama",
                        "mistral", "qwen2", "phi", "falcon", "bloom", "gemma",
                        "stablelm", "bert"})
    EXPECT_NE(std::find(types.begin(), types.end(), t), types.end()) << t;
}

TEST(Import, KeyTablesUseTheVocabularysHfKeys) {
  // Every key a model type reads is one of its parameter's HF keys in the
  // vocabulary (Params.h), and every key listed there is read by some type:
  // the vocabulary is the one list, the per-type tables choose from it.
  std::set<std::pair<tshape::model::Param, std::string>> used;
  for (auto &pk : tshape::hfKeysInUse()) {
    used.insert(pk);
    std::string listed =
        std::string(",") + tshape::model::paramInfo(pk.first).hfKeys + ",";
    EXPECT_NE(listed.find("," + pk.second + ","), std::string::npos)
        << pk.second << " is not a listed key of "
        << tshape::model::paramName(pk.first);
  }
  for (size_t i = 0; i < tshape::model::kNumParams; ++i) {
    auto p = tshape::model::Param(i);
    std::string keys = tshape::model::paramInfo(p).hfKeys;
    size_t start = 0;
    while (!keys.empty() && start <= keys.size()) {
      size_t end = keys.find(',', start);
      std::string k = keys.substr(start, end - start);
      EXPECT_TRUE(used.count({p, k})) << k << " is listed but never read";
      if (end == std::string::npos)
        break;
      start = end + 1;
    }
  }
}

namespace {
/// GPT-2-small shapes on tp 2, pp 4, dp 8 untied, bf16 (24 layers).
tshape::model::ModelConfig planModel() {
  tshape::model::ModelConfig c;
  c.hidden = 768;
  c.layers = 24;
  c.vocab = 50304;
  c.seq = 1024;
  c.microbatch = 2;
  c.attention.heads = c.attention.kvHeads = 12;
  c.mlp.inner = 3072;
  c.parallel = {2, 4, 8, 1, 1};
  return c;
}
bool has(const std::string &s, const std::string &part) {
  return s.find(part) != std::string::npos;
}
} // namespace

TEST(Megatron, DegreesComeFromTheTable) {
  // GPT-2 small shapes on tp 2, pp 4, dp 8: tp is always written, pp has a
  // flag and is not 1, dp has no Megatron flag (the world size sets it).
  // Vocab 50304 from the tokenizer's 50257 at tp 2: multiples of 64 x 2 =
  // 128: ceil(50257/128) x 128 = 393 x 128 = 50304, so the largest power of
  // two x that lands there is 64 (x = 128: 256 x 197 = 50432).
  tshape::model::ModelConfig c = planModel();
  std::string args = tshape::megatronArguments(c, 50257);
  EXPECT_NE(args.find("--tensor-model-parallel-size 2"), std::string::npos)
      << args;
  EXPECT_NE(args.find("--pipeline-model-parallel-size 4"), std::string::npos)
      << args;
  EXPECT_EQ(args.find("--expert-model-parallel-size"), std::string::npos)
      << args;
  EXPECT_EQ(args.find("--context-parallel-size"), std::string::npos) << args;
  EXPECT_NE(args.find("--make-vocab-size-divisible-by 64"), std::string::npos)
      << args;
}


TEST(Megatron, PlanFlags) {
  tshape::cost::TrainingPlan plan;
  plan.schedule = tshape::cost::PipelineSchedule::Interleaved;
  plan.virtualStages = 3; // 24 / 4 = 6 layers per stage, 2 per chunk
  plan.microbatches = 16;
  plan.recompute = tshape::cost::Recompute::Full;
  plan.sequenceParallel = true;
  plan.sharding = tshape::cost::StateSharding::DistributedOptimizer;
  std::string error;
  auto launch = tshape::megatronLaunch(planModel(), 50257, plan, &error);
  ASSERT_TRUE(launch) << error;
  const std::string &a = launch->arguments;
  EXPECT_TRUE(has(a, "--pipeline-model-parallel-size 4")) << a;
  EXPECT_TRUE(has(a, "--num-layers-per-virtual-pipeline-stage 2")) << a;
  EXPECT_TRUE(has(a, "--sequence-parallel")) << a;
  EXPECT_TRUE(has(a, "--recompute-granularity full --recompute-method "
                     "uniform --recompute-num-layers 1"))
      << a;
  EXPECT_TRUE(has(a, "--use-distributed-optimizer")) << a;
  EXPECT_TRUE(has(a, "--micro-batch-size 2")) << a;
  // m b d = 16 x 2 x 8.
  EXPECT_TRUE(has(a, "--global-batch-size 256")) << a;
  EXPECT_FALSE(has(a, "#")) << a;
  EXPECT_EQ(launch->environment, "CUDA_DEVICE_MAX_CONNECTIONS=1");
  EXPECT_EQ(launch->command(512, 8).rfind(
                "CUDA_DEVICE_MAX_CONNECTIONS=1 torchrun --nnodes 64 "
                "--nproc_per_node 8 --node_rank $NODE_RANK --master_addr "
                "$MASTER_ADDR --master_port ${MASTER_PORT:-6000} "
                "pretrain_gpt.py --num-layers 24",
                0),
            0u);
  // torchrun starts the same count on every host: the largest that divides
  // the world, up to the host's GPUs (6 on hosts of 4: 2 of 3; 7: 7 of 1).
  EXPECT_EQ(launchProcessesPerHost(6, 4), 3);
  EXPECT_EQ(launchProcessesPerHost(7, 4), 1);
  EXPECT_EQ(launchProcessesPerHost(256, 4), 4);
  EXPECT_EQ(launchProcessesPerHost(2, 8), 2);
  // Whole groups of tp x cp where a count of them divides the world: 12 at
  // tp 4 on 8-GPU hosts is 3 hosts of 4 (not 2 of 6); 12 in groups of 3 on
  // hosts of 4 is 4 hosts of 3; a group larger than a host keeps the
  // largest divisor, 4.
  EXPECT_EQ(launchProcessesPerHost(12, 8, 4), 4);
  EXPECT_EQ(launchProcessesPerHost(12, 8, 1), 6);
  EXPECT_EQ(launchProcessesPerHost(12, 4, 3), 3);
  EXPECT_EQ(launchProcessesPerHost(12, 4, 6), 4);
  EXPECT_EQ(launch->command(6, launchProcessesPerHost(6, 4))
                .find("--nnodes 2 --nproc_per_node 3"),
            launch->environment.size() + 10);

  // Selective: granularity only (Megatron-LM rejects a method with it).
  plan.recompute = tshape::cost::Recompute::Selective;
  launch = tshape::megatronLaunch(planModel(), 50257, plan, &error);
  ASSERT_TRUE(launch) << error;
  EXPECT_TRUE(has(launch->arguments, "--recompute-granularity selective"));
  EXPECT_FALSE(has(launch->arguments, "--recompute-method"));
}

TEST(Megatron, SequenceParallelAtTp1IsANote) {
  tshape::model::ModelConfig c = planModel();
  c.parallel.tp = 1;
  tshape::cost::TrainingPlan plan;
  plan.microbatches = 4;
  plan.sequenceParallel = true;
  auto launch = tshape::megatronLaunch(c, 50257, plan);
  ASSERT_TRUE(launch);
  EXPECT_FALSE(has(launch->arguments, "--sequence-parallel"));
  // The model was built by hand: no architecture stated (a note), and
  // sequence parallelism at tp 1 (a note).
  ASSERT_EQ(launch->notes.size(), 2u);
  EXPECT_TRUE(has(launch->notes[0], "states no architecture"));
  EXPECT_TRUE(has(launch->notes[1], "needs tp > 1"));
  EXPECT_EQ(launch->environment, "");
}

TEST(Megatron, RulesOfArgumentsPy) {
  tshape::cost::TrainingPlan plan;
  plan.microbatches = 8;
  tshape::model::ModelConfig c = planModel();
  EXPECT_FALSE(tshape::checkMegatronRules(c, plan));
  // Layers not divisible by pp.
  c.parallel.pp = 5;
  auto broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "num-layers 24 not divisible by "
                           "pipeline-model-parallel-size 5"))
      << *broken;
  // The interleaved schedule at pp 2 runs (P2P overlap is Megatron-LM's
  // default, arguments.py:1000); at pp 1 it does not, and it needs pp
  // microbatches.
  c.parallel.pp = 2;
  plan.virtualStages = 2;
  EXPECT_FALSE(tshape::checkMegatronRules(c, plan));
  c.parallel.pp = 1;
  broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "needs pipeline-model-parallel-size > 1, got 1"));
  c.parallel.pp = 4;
  plan.microbatches = 2;
  plan.virtualStages = 2;
  broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "needs at least pp = 4 microbatches per step, "
                           "got 2"))
      << *broken;
  plan.microbatches = 8;
  // 24 / 4 = 6 layers per stage, not divisible by 4 chunks.
  c.parallel.pp = 4;
  plan.virtualStages = 4;
  broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "layers per pipeline stage 6 (24/4) not divisible "
                           "by 4 virtual stages"))
      << *broken;
  plan.virtualStages = 1;
  // Context parallelism needs s divisible by 2 cp.
  c.parallel.cp = 3;
  broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "seq-length 1024 not a multiple of 2 x "
                           "context-parallel-size = 6"));
  c.parallel.cp = 1;
  // Key/value groups a multiple or a divisor of tp (transformer_config.py:
  // 1461; Megatron-LM replicates them as tshape's rule A4 does): 1 group
  // at tp 2 runs; 3 groups at tp 2 do not.
  c.attention.kvHeads = 1;
  EXPECT_FALSE(tshape::checkMegatronRules(c, plan));
  c.attention.kvHeads = 3;
  broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "num-query-groups 3 neither a multiple nor a "
                           "divisor of tensor-model-parallel-size 2"))
      << *broken;
  c.attention.kvHeads = 12;
  // FSDP2 with pipeline parallelism.
  plan.sharding = tshape::cost::StateSharding::Fsdp;
  broken = tshape::checkMegatronRules(c, plan);
  ASSERT_TRUE(broken);
  EXPECT_TRUE(has(*broken, "--use-torch-fsdp2 is not supported with pipeline"));
}
