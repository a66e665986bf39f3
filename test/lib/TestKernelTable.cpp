//===- TestKernelTable.cpp - The docs' kernel tables, from the blocks -----===//
//
// tshape-test-kernel-table prints the Markdown tables of docs/kernels.md
// from the block models (Model/Blocks): every forward kernel of every
// block, for each layout a block has (plain, gated and fused gate/up MLP;
// unfused and fused attention; MoE with separate or fused gate/up experts),
// with its sizes as the block states them.
// test/Docs/kernel-table.test checks that the docs hold exactly this text,
// so the docs cannot drift from the models. Test-only, like
// tshape-test-gemm-consistency.
//
//===----------------------------------------------------------------------===//

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Transformer.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace model = tshape::model;

namespace {
/// A GQA model with every parameter bound, at tp = 2 (so that the
/// per-rank divisions appear).
model::ModelConfig exampleConfig() {
  model::ModelConfig c;
  c.microbatch = 2;
  c.seq = 1024;
  c.hidden = 4096;
  c.vocab = 32000;
  c.attention = {32, 8, 0, true, false};
  c.mlp.inner = 11008;
  c.parallel.tp = 2;
  return c;
}

struct Layout {
  const char *name;
  model::BlockKind block;
  void (*apply)(model::ModelConfig &);
  /// A decode step's kernels instead of a training step's.
  bool decode = false;
};

/// DeepSeek-V3's latent attention on the example's 32 heads.
void mla(model::ModelConfig &c) {
  c.mla = {1536, 512, 128, 64, 128};
}

const Layout kLayouts[] = {
    {"attention", model::BlockKind::Attention, [](model::ModelConfig &) {}},
    {"attention, fused", model::BlockKind::Attention,
     [](model::ModelConfig &c) { c.attention.fused = true; }},
    {"attention, window 256", model::BlockKind::Attention,
     [](model::ModelConfig &c) { c.attention.window = 256; }},
    {"mlp", model::BlockKind::Mlp, [](model::ModelConfig &) {}},
    {"mlp, gated", model::BlockKind::Mlp,
     [](model::ModelConfig &c) { c.mlp.gated = true; }},
    {"mlp, gated, fuse-gated-mlp", model::BlockKind::Mlp,
     [](model::ModelConfig &c) { c.mlp.gated = c.mlp.fusedGateUp = true; }},
    // An MoE block: 8 gated routed experts of inner 1408, top-2, and one
    // shared expert of inner 2816 (Qwen-MoE's layout), at ep = 2.
    {"moe", model::BlockKind::Moe,
     [](model::ModelConfig &c) {
       c.moe = {8, 2, 1408, 1, 2816};
       c.parallel.ep = 2;
     }},
    {"moe, fuse-gated-mlp", model::BlockKind::Moe,
     [](model::ModelConfig &c) {
       c.moe = {8, 2, 1408, 1, 2816};
       c.parallel.ep = 2;
       c.mlp.fusedGateUp = true;
     }},
    {"embedding", model::BlockKind::Embedding, [](model::ModelConfig &) {}},
    {"lm_head", model::BlockKind::LMHead, [](model::ModelConfig &) {}},
    {"mla", model::BlockKind::Mla, mla},
    {"mla, fused", model::BlockKind::Mla,
     [](model::ModelConfig &c) {
       mla(c);
       c.attention.fused = true;
     }},
    {"mla, no query latent", model::BlockKind::Mla,
     [](model::ModelConfig &c) {
       mla(c);
       c.mla.qLoraRank = 0;
     }},
    {"mla, decode (absorbed)", model::BlockKind::Mla, mla, /*decode=*/true},
};

struct TestKernelTablePass
    : public PassWrapper<TestKernelTablePass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestKernelTablePass)
  StringRef getArgument() const final { return "tshape-test-kernel-table"; }
  StringRef getDescription() const final {
    return "Test: print the kernel tables of docs/kernels.md from the block "
           "models";
  }
  void runOnOperation() override {
    llvm::raw_ostream &os = llvm::outs();
    auto e = [](const model::Dim &d) { return "`" + d.expr.str() + "`"; };
    os << "| block layout | role | batch | M | N | K | B stored |\n"
       << "| --- | --- | --- | --- | --- | --- | --- |\n";
    std::string attention;
    for (const Layout &l : kLayouts) {
      model::ModelConfig c = exampleConfig();
      l.apply(c);
      model::RunShape run = model::RunShape::train();
      if (l.decode)
        run.phase = model::Phase::Decode;
      std::vector<model::Kernel> ks = model::forwardKernels(
          l.block, c, run,
          model::blockInfo(l.block).perLayer ? 0 : -1);
      if (llvm::none_of(ks, [](const model::Kernel &k) { return k.gemm(); }))
        os << "| " << l.name << " | (no GEMM) | | | | | |\n";
      for (const model::Kernel &k : ks) {
        if (const model::GemmSpec *g = k.gemm()) {
          os << "| " << l.name << " | `" << g->name() << "` | "
             << (g->batch.expr.isConstant(1) ? std::string() : e(g->batch))
             << " | " << e(g->m) << " | " << e(g->n) << " | " << e(g->k)
             << " | " << (g->transB ? "[N, K]" : "[K, N]") << " |\n";
        } else if (const model::AttentionSpec *a = k.attention()) {
          attention += "| " + std::string(l.name);
          for (auto [name, d] : k.dims())
            attention += " | " + e(d);
          attention += std::string(" | ") + (a->causal ? "yes" : "no") + " |\n";
        }
      }
    }
    os << "\n| block layout | batch | heads | kv_heads | head_dim | "
          "v_head_dim | q_len | kv_len | window | causal |\n"
       << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"
       << attention;

    // The collectives of a training step, forward then backward, of the
    // first layout of each block, without and with sequence parallelism.
    os << "\n| block | sequence parallel | pass | role | collective | bytes "
          "| ranks |\n"
       << "| --- | --- | --- | --- | --- | --- | --- |\n";
    std::vector<model::BlockKind> seen;
    for (const Layout &l : kLayouts) {
      if (llvm::is_contained(seen, l.block) || l.decode)
        continue;
      seen.push_back(l.block);
      model::ModelConfig c = exampleConfig();
      l.apply(c);
      for (bool sp : {false, true}) {
        model::RunShape run = model::RunShape::train();
        run.sequenceParallel = sp;
        for (const model::Kernel &k : model::blockKernels(
                 l.block, c, run,
                 model::blockInfo(l.block).perLayer ? 0 : -1))
          if (const model::CollectiveSpec *col = k.collective())
            os << "| " << model::blockInfo(l.block).name << " | "
               << (sp ? "yes" : "no") << " | "
               << (col->backward ? "backward" : "forward") << " | `"
               << model::roleInfo(col->role).name << "` | "
               << model::collectiveName(col->op) << " | " << e(col->bytes)
               << " | " << e(col->ranks) << " |\n";
      }
    }
  }
};
} // namespace

namespace tshape::test {
void registerTestKernelTablePass() { PassRegistration<TestKernelTablePass>(); }
} // namespace tshape::test
