//===- LowerLinalgToRuntime.cpp - linalg GEMMs to runtime calls -----------===//
//
// tshape-lower-linalg-to-runtime: bufferized f32 linalg.matmul and
// linalg.batch_matmul become calls of the runtime's C-interface functions.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Contraction.h"
#include "tshape/Transforms/Passes.h"
#include "tshape/PassDiagnostics.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace tshape {
#define GEN_PASS_DEF_TSHAPELOWERLINALGTORUNTIME
#include "tshape/Transforms/Passes.h.inc"
} // namespace tshape

using namespace mlir;
using namespace tshape;

namespace {
/// Why the runtime's entry points cannot express `op` (empty when they
/// can): C = op(A) . op(B) with C row-major and its map the identity,
/// A and B full-rank with maps that are (batch,) then their two matrix
/// dimensions in either order.
std::string notExpressible(linalg::LinalgOp op, unsigned rank) {
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  AffineMap out = maps.back();
  SmallVector<AffineExpr> identity;
  for (unsigned i = 0; i < rank; ++i)
    identity.push_back(getAffineDimExpr(i, op.getContext()));
  if (out.getResults() != ArrayRef<AffineExpr>(identity))
    return "the result is stored through a non-identity map (for example "
           "transposed); the runtime writes C row-major";
  for (unsigned i = 0; i < 2; ++i) {
    AffineMap m = maps[i];
    if (m.getNumResults() != rank)
      return std::string("operand ") + (i ? "B" : "A") +
             " is not full-rank (a broadcast operand); the runtime takes "
             "full matrices";
    if (!m.isProjectedPermutation())
      return std::string("operand ") + (i ? "B" : "A") +
             " is read through a map that is not a projected permutation";
    if (rank == 3 && m.getResult(0) != getAffineDimExpr(0, op.getContext()))
      return std::string("operand ") + (i ? "B" : "A") +
             " does not lead with the batch dimension";
  }
  return "";
}

struct TShapeLowerLinalgToRuntimePass
    : public tshape::impl::TShapeLowerLinalgToRuntimeBase<
          TShapeLowerLinalgToRuntimePass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    Builder b(ctx);
    auto f32 = b.getF32Type();
    // memref<?x?xf32, strided<[?, ?], offset: ?>> and the rank-3 form.
    auto anyLayout = [&](unsigned rank) {
      SmallVector<int64_t> dyn(rank, ShapedType::kDynamic);
      return MemRefType::get(
          dyn, f32,
          StridedLayoutAttr::get(ctx, ShapedType::kDynamic, dyn));
    };
    auto declare = [&](StringRef name, unsigned rank) {
      if (auto fn = module.lookupSymbol<func::FuncOp>(name))
        return fn;
      OpBuilder ob(ctx);
      ob.setInsertionPointToStart(module.getBody());
      Type m = anyLayout(rank), i32 = ob.getI32Type();
      auto fn = func::FuncOp::create(
          ob, module.getLoc(), name,
          ob.getFunctionType({m, m, m, i32, i32}, {}));
      fn.setPrivate();
      fn->setAttr("llvm.emit_c_interface", ob.getUnitAttr());
      return fn;
    };

    SmallVector<linalg::LinalgOp> ops;
    module.walk([&](linalg::LinalgOp op) {
      if (op.hasPureBufferSemantics() &&
          isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op.getOperation()))
        ops.push_back(op);
    });
    for (linalg::LinalgOp op : ops) {
      bool ok = llvm::all_of(op->getOperands(), [&](Value v) {
        return getElementTypeOrSelf(v.getType()) == f32;
      });
      if (!ok) {
        op->emitRemark() << passPrefix(*this)
                         << "left to the loop lowering: the runtime's "
                            "compiled entry points take f32 operands";
        ++numLeft;
        continue;
      }
      unsigned rank = isa<linalg::BatchMatmulOp>(op.getOperation()) ? 3 : 2;
      std::string why = notExpressible(op, rank);
      if (!why.empty()) {
        op->emitRemark() << passPrefix(*this) << "left to the loop lowering: "
                         << why;
        ++numLeft;
        continue;
      }
      bool transA = false, transB = false;
      getOperandLayouts(op, transA, transB);
      func::FuncOp callee = declare(
          rank == 3 ? "tshapeRtBatchMatmulF32" : "tshapeRtMatmulF32", rank);
      OpBuilder ob(op);
      Location loc = op.getLoc();
      SmallVector<Value> args;
      for (Value v : op->getOperands())
        args.push_back(memref::CastOp::create(ob, loc, anyLayout(rank), v));
      args.push_back(arith::ConstantIntOp::create(ob, loc, transA, 32));
      args.push_back(arith::ConstantIntOp::create(ob, loc, transB, 32));
      func::CallOp::create(ob, loc, callee, args);
      op->erase();
      ++numCalls;
    }
  }
};
} // namespace
