//===- GemmCollection.cpp - The GEMMs of a module, collected once ---------===//

#include "tshape/Analysis/GemmCollection.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

using namespace mlir;
using namespace tshape;

GemmCollection::GemmCollection(Operation *root) {
  root->walk([&](linalg::LinalgOp op) {
    bool dynamic = false;
    std::optional<ContractionShape> shape = getContractionShape(op, &dynamic);
    if (!shape) {
      if (dynamic)
        notRead.push_back({op, "dynamic shape"});
      return;
    }
    CollectedGemm g;
    g.op = op;
    g.shape = std::move(*shape);
    g.elementType =
        getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType());
    g.dtype = gemmDType(op, g.elementType);
    collected.push_back(std::move(g));
  });
}
