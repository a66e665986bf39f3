//===- TestBlock.h - A block that exists only in the tests ------*- C++ -*-===//

#ifndef TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCK_H
#define TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCK_H

#include "TestBlockModel.h"
#include "tshape/Dialect/TShape/IR/TShapeInterfaces.h"

#include "mlir/IR/Dialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "TestBlockDialect.h.inc"

#define GET_OP_CLASSES
#include "TestBlockOps.h.inc"

namespace tshape::test {
/// Registers the dialect, the block and its lowering.
void registerTestBlock(mlir::DialectRegistry &registry);
} // namespace tshape::test

#endif // TSHAPE_TEST_LIB_TESTBLOCK_TESTBLOCK_H
