//===- TargetResolution.cpp - The GPU a pass models -----------------------===//
//
// A pass's target= / target-file= options, else the module's tshape.target,
// else h100-sxm (TargetResolution.h).
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/TargetResolution.h"
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

using namespace mlir;
using namespace tshape;

std::optional<target::GpuTarget>
tshape::resolveTarget(ModuleOp module, StringRef pass, const std::string &name,
                      const std::string &file) {
  std::string f = file, n = name;
  if (f.empty() && n.empty()) {
    Attribute a = module->getAttr(TShapeDialect::kTargetAttrName);
    std::string fromAttr;
    if (auto t = dyn_cast_or_null<TargetAttr>(a))
      fromAttr = t.getName().str();
    else if (auto s = dyn_cast_or_null<StringAttr>(a))
      fromAttr = s.str();
    if (StringRef(fromAttr).ends_with(".json"))
      f = fromAttr;
    else
      n = fromAttr.empty() ? "h100-sxm" : fromAttr;
  }
  std::string error;
  if (!f.empty()) {
    auto t = target::loadTargetFile(f, error);
    if (!t)
      emitError(module.getLoc()) << pass << ": " << error;
    return t;
  }
  if (const target::GpuTarget *t = target::findBuiltinTarget(n))
    return *t;
  emitError(module.getLoc())
      << pass << ": unknown target '" << n
      << "' (built-in: " << target::builtinTargetNames()
      << "; or target-file=FILE.json)";
  return std::nullopt;
}

