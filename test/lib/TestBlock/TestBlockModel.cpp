//===- TestBlockModel.cpp - The test block: its kernels and weights -------===//
//
// Step 1 of "Adding a block" (docs/architecture.md): the block file. A
// residual projection y = x + x . W^T: one GEMM (b*s x h).(h x h), role
// test_proj, with W [h, h] as its only weight, and a state of h fp32
// elements per sequence. The sizes are DimExprs over
// the parameter table, so findings, the search and the consistency test
// cover it with no further code.
//
//===----------------------------------------------------------------------===//

#include "TestBlock.h"
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

/// A recurrent layer's kind of state: h fp32 elements per sequence, kept
/// between steps whatever the sequence's length (as an SSM's is).
std::vector<StateComponent> projState(const ModelConfig &c) {
  StateComponent s;
  s.name = "test state";
  s.factors = {{"hidden", c.hidden}};
  s.perToken = false;
  s.dtype = DType::FP32;
  s.parameter = Param::Hidden;
  return {s};
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
       projWeights, /*activeWeights=*/nullptr, projState});
  return kind;
}

BlockKind tshape::test::testBareBlock() {
  static const BlockKind kind = registerBlock(
      {BlockKind::Embedding, "test_bare", /*perLayer=*/true,
       [](const ModelConfig &, const RunShape &, int64_t) {
         return std::vector<Kernel>();
       },
       [](const ModelConfig &) -> std::optional<int64_t> { return 0; }});
  return kind;
}
