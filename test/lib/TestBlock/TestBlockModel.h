//===- TestBlockModel.h - The test blocks' models --------------*- C++ -*-===//
//
// The rows of the blocks that exist only in the tests: plain C++ (no MLIR),
// so that the unit tests price them through the step and memory models as
// the lit tests do through the passes.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCKMODEL_H
#define TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCKMODEL_H

#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Params.h"

namespace tshape::test {
/// The block's rows: its GEMM's role and its block (registered on first
/// use).
model::Role testProjRole();
model::BlockKind testProjBlock();
/// A block with a model (no kernels, no weights) and no lowering, so that
/// the lowering's error for such a block is tested.
model::BlockKind testBareBlock();
/// A recurrent block: one chunked scan (2 heads, a 16 x h fp32 state per
/// head, chunks of 64), its state kept per sequence, its input and chunk
/// states kept for the backward; no weights and no lowering.
model::BlockKind testScanBlock();
} // namespace tshape::test

#endif // TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCKMODEL_H
