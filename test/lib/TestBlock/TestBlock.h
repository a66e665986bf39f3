//===- TestBlock.h - A block that exists only in the tests ------*- C++ -*-===//

#ifndef TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCK_H
#define TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCK_H

#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h"
#include "tshape/Model/Blocks/Block.h"
#include "tshape/Model/Params.h"

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TestBlockDialect.h.inc"

#define GET_OP_CLASSES
#include "TestBlockOps.h.inc"

namespace tshape::test {
/// The block's rows: its GEMM's role and its block (registered on first
/// use).
model::Role testProjRole();
model::BlockKind testProjBlock();
/// A block with a model (no kernels, no weights) and no lowering, so that
/// the lowering's error for such a block is tested.
model::BlockKind testBareBlock();
/// Registers the dialect, the block and its lowering.
void registerTestBlock(mlir::DialectRegistry &registry);
} // namespace tshape::test

#endif // TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCK_H
