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
  // Each discardable tshape attribute and the kind of value it takes.
  struct Rule {
    StringRef name;
    bool (*accepts)(Attribute);
    const char *expected;
  };
  static const Rule rules[] = {
      {kParallelAttrName, [](Attribute a) { return isa<ParallelAttr>(a); },
       "a #tshape.parallel attribute"},
      {kMathAttrName, [](Attribute a) { return isa<MathModeAttr>(a); },
       "a #tshape.math attribute"},
      {kTargetAttrName,
       [](Attribute a) { return isa<TargetAttr, StringAttr>(a); },
       "a #tshape.target or a string"},
      {kAnalysisAttrName, [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary"},
      {kMeasuredAttrName, [](Attribute a) { return isa<DictionaryAttr>(a); },
       "a dictionary"},
      {kRoleAttrName, [](Attribute a) { return isa<StringAttr>(a); },
       "a string"},
      {kModelTypeAttrName, [](Attribute a) { return isa<StringAttr>(a); },
       "a string"},
      {kTf32AttrName, [](Attribute a) { return isa<UnitAttr>(a); },
       "a unit attribute"},
      {kLayerAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
       "an integer"},
      {kFusedAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
       "an integer"},
      {kTpAttrName, [](Attribute a) { return isa<IntegerAttr>(a); },
       "an integer"},
  };
  StringRef name = attr.getName().getValue();
  for (const Rule &r : rules)
    if (r.name == name) {
      if (r.accepts(attr.getValue()))
        return success();
      return op->emitError() << "'" << name << "' must be " << r.expected;
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

bool tshape::usesTf32Math(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp()) {
    if (auto m = cur->getAttrOfType<MathModeAttr>(TShapeDialect::kMathAttrName))
      return m.getValue() == MathMode::tf32;
    if (cur->hasAttr(TShapeDialect::kTf32AttrName))
      return true;
  }
  return false;
}

std::optional<model::DType> tshape::gemmDType(Operation *op, Type t) {
  if (t.isBF16())
    return model::DType::BF16;
  if (t.isF16())
    return model::DType::FP16;
  if (t.isF32())
    return usesTf32Math(op) ? model::DType::TF32 : model::DType::FP32;
  if (isa<Float8E4M3FNType, Float8E5M2Type>(t))
    return model::DType::FP8;
  return std::nullopt;
}
