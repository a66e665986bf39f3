//===- TestBlockOps.td - A block that exists only in the tests -*- tablegen -*-===//
//
// The op of the test-only block `test_proj` (TestBlockModel.cpp), added by
// the steps of docs/architecture.md "Adding a block" and nothing else: one
// block file, one op with the block op interface, one lowering file, and
// its rows (a role, a block, a lowering), registered at start-up.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TEST_BLOCK_OPS_TD
#define TSHAPE_TEST_BLOCK_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "tshape/Dialect/TShape/IR/TShapeInterfaces.td"

def TShapeTest_Dialect : Dialect {
  let name = "tshape_test";
  let summary = "a block that exists only in the tests";
  let cppNamespace = "::tshape::test";
}

def TShapeTest_ProjOp : Op<TShapeTest_Dialect, "proj", [
    Pure, DeclareOpInterfaceMethods<TShape_BlockOpInterface, ["getBlockName"]>]> {
  let summary = "residual projection y = x + x . W^T, W [hidden, hidden]";
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

#endif // TSHAPE_TEST_BLOCK_OPS_TD
