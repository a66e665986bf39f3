//===- TestBlockModel.cpp - The test block: its kernels and weights -------===//
//
// Step 1 of "Adding a block" (docs/architecture.md): the block file. A
// residual projection y = x + x . W^T: one GEMM (b*s x h).(h x h), role
// test_proj, with W [h, h] as its only weight. The sizes are DimExprs over
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
       projWeights});
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
