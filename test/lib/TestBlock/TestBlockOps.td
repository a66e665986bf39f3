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

/// A residual sub-layer of the block `block`, with the block op interface
/// (the shared answers stated once here).
class TShapeTest_SubLayerOp<string mnemonic, string block>
    : Op<TShapeTest_Dialect, mnemonic, [Pure, TShape_BlockOpInterface]> {
  let arguments = (ins AnyRankedTensor:$input);
  let results = (outs AnyRankedTensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::llvm::StringRef getBlockName() { return "}] # block # [{"; }
    bool isResidualSubLayer() { return true; }
    ::mlir::TypedValue<::mlir::RankedTensorType> getActivations() {
      return ::mlir::cast<::mlir::TypedValue<::mlir::RankedTensorType>>(
          getInput());
    }
    ::llvm::SmallVector<::tshape::model::Param> getStatedParams() {
      return {};
    }
    ::llvm::StringRef getConfigGroup() { return "}] # block # [{ ops"; }
    void readConfig(::tshape::model::ModelConfig &config) {
      ::tshape::readActivationSizes(config, getActivations().getType());
    }
    void writeConfig(const ::tshape::model::ModelConfig &config) {
      ::tshape::setLastDim(getResult(), ::tshape::model::getParam(
                                            config,
                                            ::tshape::model::Param::Hidden));
    }
  }];
}

def TShapeTest_ProjOp : TShapeTest_SubLayerOp<"proj", "test_proj"> {
  let summary = "residual projection y = x + x . W^T, W [hidden, hidden]";
}

def TShapeTest_BareOp : TShapeTest_SubLayerOp<"bare", "test_bare"> {
  let summary = "a block with a model but no lowering (its error path)";
}

def TShapeTest_ScanOp : TShapeTest_SubLayerOp<"scan", "test_scan"> {
  let summary = "a recurrent layer: one chunked scan and a state per "
                "sequence (no lowering)";
}

#endif // TSHAPE_TEST_BLOCK_OPS_TD
