//===- TestBlockModel.cpp - The test block: its kernels and weights -------===//
//
// Step 1 of "Adding a block" (docs/architecture.md): the block file. A
// residual projection y = x + x . W^T: one GEMM (b*s x h).(h x h), role
// test_proj, with W [h, h] as its only weight. And a recurrent layer,
// test_scan: one chunked scan (ScanSpec) over 2 heads of a 16 x h fp32
// state in chunks of 64 tokens, that state kept per sequence, no weights. The sizes are DimExprs over
// the parameter table, so findings, the search and the consistency test
// cover it with no further code.
//
//===----------------------------------------------------------------------===//

#include "TestBlockModel.h"
#include "tshape/Model/Transformer.h"

using namespace tshape;
using namespace tshape::model;

namespace {
std::vector<Kernel> projKernels(const ModelConfig &c, const RunShape &run,
                                int64_t layer) {
  const DimExpr h = DimExpr::param(Param::Hidden);
  return {blockGemm(bindings(c), test::testProjRole(), layer, DimExpr(),
                    run.tokens(), h, h, /*transA=*/false, /*transB=*/true)};
}

std::optional<int64_t> projWeights(const ModelConfig &c) {
  return gemmWeights(projKernels(c, RunShape(), 0));
}

/// test_scan's sizes: 2 heads, a key (state) dim of 16, chunks of 64.
constexpr int64_t kScanHeads = 2, kScanKeyDim = 16, kScanChunk = 64;

/// One scan over the step's tokens of each sequence, the value dim h.
std::vector<Kernel> scanKernels(const ModelConfig &c, const RunShape &run,
                                int64_t layer) {
  ScanSpec s;
  s.layer = layer;
  s.env = bindings(c);
  bool *o = &s.overflow;
  s.batch = blockDim(s.env, DimExpr::param(Param::Microbatch), o);
  s.heads = blockDim(s.env, DimExpr::constant(kScanHeads), o);
  s.length = blockDim(s.env, run.queries(), o);
  s.chunk = blockDim(s.env, DimExpr::constant(kScanChunk), o);
  s.keyDim = blockDim(s.env, DimExpr::constant(kScanKeyDim), o);
  s.valueDim = blockDim(s.env, DimExpr::param(Param::Hidden), o);
  return {s};
}

/// Each head's 16 x h state in fp32, per sequence whatever its length.
std::vector<StateComponent> scanState(const ModelConfig &c) {
  StateComponent s;
  s.name = "scan state";
  s.factors = {{"heads", kScanHeads}, {"", kScanKeyDim}, {"hidden", c.hidden}};
  s.perToken = false;
  s.dtype = DType::FP32;
  s.parameter = Param::Hidden;
  return {s};
}

/// For the backward: its input (2 s b h, 16-bit) and the fp32 state at
/// each chunk's start (b x heads x ceil(s/64) x 16 x h x 4).
double scanActivations(const ModelConfig &c, const ActivationPlan &) {
  const double s = double(rankSeq(c)), b = double(c.microbatch);
  const double chunks = double((rankSeq(c) + kScanChunk - 1) / kScanChunk);
  return 2 * s * b * double(c.hidden) +
         b * kScanHeads * chunks * kScanKeyDim * double(c.hidden) * 4;
}
} // namespace

Role tshape::test::testProjRole() {
  static const Role role = registerRole(
      {Role::Qkv, "test_proj", RoleGroup::Mlp, /*weight=*/true, "dgrad",
       "wgrad"});
  return role;
}

BlockKind tshape::test::testProjBlock() {
  static const BlockKind kind = registerBlock(
      {BlockKind::Embedding, "test_proj", /*perLayer=*/true, projKernels,
       projWeights, nullptr, nullptr, nullptr, nullptr, nullptr,
       "tshape_test.proj"});
  return kind;
}

BlockKind tshape::test::testBareBlock() {
  static const BlockKind kind = registerBlock(
      {BlockKind::Embedding, "test_bare", /*perLayer=*/true,
       [](const ModelConfig &, const RunShape &, int64_t) {
         return std::vector<Kernel>();
       },
       [](const ModelConfig &) -> std::optional<int64_t> { return 0; },
       nullptr, nullptr, nullptr, nullptr, nullptr, "tshape_test.bare"});
  return kind;
}

BlockKind tshape::test::testScanBlock() {
  static const BlockKind kind = registerBlock(
      {BlockKind::Embedding, "test_scan", /*perLayer=*/true, scanKernels,
       [](const ModelConfig &) -> std::optional<int64_t> { return 0; },
       /*activeWeights=*/nullptr, scanState, scanActivations, nullptr,
       nullptr, "tshape_test.scan"});
  return kind;
}
