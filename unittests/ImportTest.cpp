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

TEST(Megatron, DegreesComeFromTheTable) {
  // GPT-2 small shapes on tp 2, pp 4, dp 8: tp is always written, pp has a
  // flag and is not 1, dp has no Megatron flag (the world size sets it).
  // Vocab 50304 from the tokenizer's 50257 at tp 2: multiples of 64 x 2 =
  // 128: ceil(50257/128) x 128 = 393 x 128 = 50304, so the largest power of
  // two x that lands there is 64 (x = 128: 256 x 197 = 50432).
  tshape::model::ModelConfig c;
  c.hidden = 768;
  c.layers = 12;
  c.vocab = 50304;
  c.seq = 1024;
  c.attention.heads = c.attention.kvHeads = 12;
  c.mlp.inner = 3072;
  c.parallel = {2, 4, 8, 1, 1};
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
