//===- TShapeDialect.cpp - tshape dialect ---------------------------------===//
//
// Dialect registration, typed attributes and verification of the dialect's
// discardable attributes.
//
//===----------------------------------------------------------------------===//

#include "tshape/Dialect/TShape/IR/TShapeDialect.h"
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeOps.h"
#include "tshape/Target/GpuTarget.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tshape;

#include "tshape/Dialect/TShape/IR/TShapeDialect.cpp.inc"
#include "tshape/Dialect/TShape/IR/TShapeEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "tshape/Dialect/TShape/IR/TShapeAttrs.cpp.inc"

void TShapeDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "tshape/Dialect/TShape/IR/TShapeOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "tshape/Dialect/TShape/IR/TShapeAttrs.cpp.inc"
      >();
}

/// Rule P1: the tensor-parallel degree is positive.
LogicalResult
ParallelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                     int64_t tp) {
  if (tp <= 0)
    return emitError() << "rule P1: tensor-parallel degree tp must be "
                          "positive, got "
                       << tp;
  return success();
}

/// Rule P2: a target names a built-in GPU or a .json file.
LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name) {
  if (name.ends_with(".json") ||
      ::tshape::target::findBuiltinTarget(name.str()))
    return success();
  return emitError() << "rule P2: unknown target '" << name
                     << "' (built-in: "
                     << ::tshape::target::builtinTargetNames()
                     << "; or a .json target file)";
}

LogicalResult TShapeDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  if (name == kParallelAttrName) {
    if (!isa<ParallelAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' must be a #tshape.parallel attribute";
    return success();
  }
  if (name == kMathAttrName) {
    if (!isa<MathModeAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' must be a #tshape.math attribute";
    return success();
  }
  if (name == kRoleAttrName) {
    if (!isa<StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a string";
    return success();
  }
  if (name == kTargetAttrName) {
    if (!isa<TargetAttr, StringAttr>(attr.getValue()))
      return op->emitError() << "'" << name
                             << "' must be a #tshape.target or a string";
    return success();
  }
  if (name == kAnalysisAttrName) {
    if (!isa<DictionaryAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a dictionary";
    return success();
  }
  if (name == kTf32AttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be a unit attribute";
    return success();
  }
  if (name == kLayerAttrName || name == kFusedAttrName || name == kTpAttrName) {
    if (!isa<IntegerAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' must be an integer";
    return success();
  }
  return op->emitError() << "unknown tshape attribute '" << name << "'";
}

int64_t tshape::getTensorParallelDegree(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto p = cur->getAttrOfType<ParallelAttr>(
            TShapeDialect::kParallelAttrName))
      return p.getTp();
  return 1;
}
