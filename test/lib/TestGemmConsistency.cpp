//===- TestGemmConsistency.cpp - lowering vs. model GEMM list -------------===//
//
// tshape-test-gemm-consistency: reads the model of each function
// (extractModelConfig), computes the model's GEMM list (modelGemms), lowers
// the module in place with tshape-lower-to-linalg under the same options,
// and checks that the lowered contractions are exactly that list, in order:
// name, layer, batch x M x N x K, operand layouts and each size's
// expression. A remark states the count on success; the first difference
// is an error at the op. Test-only (no public header), after the analysis
// test passes of IREE and CIRCT.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Contraction.h"
#include "tshape/Conversion/Passes.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

using namespace mlir;

namespace {
std::string describe(const tshape::model::GemmSpec &g) {
  std::string s = g.name() + " layer " + std::to_string(g.layer) + " " +
                  std::to_string(g.batch.value) + " x " +
                  std::to_string(g.m.value) + "x" + std::to_string(g.n.value) +
                  "x" + std::to_string(g.k.value) +
                  (g.transA ? " transA" : "") + (g.transB ? " transB" : "");
  for (const tshape::model::Dim *d : {&g.batch, &g.m, &g.n, &g.k})
    s += " [" + d->expr.str() + "]";
  return s;
}

struct TestGemmConsistencyPass
    : public PassWrapper<TestGemmConsistencyPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(TestGemmConsistencyPass)
  TestGemmConsistencyPass() = default;
  TestGemmConsistencyPass(const TestGemmConsistencyPass &other)
      : PassWrapper(other) {}

  StringRef getArgument() const final {
    return "tshape-test-gemm-consistency";
  }
  StringRef getDescription() const final {
    return "Test: lower with tshape-lower-to-linalg and check the lowered "
           "contractions against the model's GEMM list";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<linalg::LinalgDialect, tensor::TensorDialect,
                    arith::ArithDialect, math::MathDialect>();
  }

  Option<bool> training{*this, "training",
                        llvm::cl::desc("lower the training step"),
                        llvm::cl::init(false)};
  Option<bool> fuseGatedMlp{*this, "fuse-gated-mlp",
                            llvm::cl::desc("fused gate/up layout"),
                            llvm::cl::init(false)};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Expected lists, per function, from the model.
    std::map<std::string, std::vector<tshape::model::GemmSpec>> expected;
    for (auto fn : module.getOps<func::FuncOp>()) {
      bool hasVocab = false;
      std::string error;
      auto c = tshape::extractModelConfig(fn, hasVocab, error);
      if (!c) {
        fn.emitError() << "tshape-test-gemm-consistency: " << error;
        return signalPassFailure();
      }
      c->mlp.fusedGateUp = fuseGatedMlp;
      std::vector<tshape::model::GemmSpec> gemms =
          tshape::model::modelGemms(*c, training);
      if (!hasVocab) { // no embedding or head: no logits GEMMs
        llvm::erase_if(gemms, [](const tshape::model::GemmSpec &g) {
          return g.role == tshape::model::Role::Logits;
        });
      }
      expected[fn.getSymName().str()] = std::move(gemms);
    }
    OpPassManager pm(ModuleOp::getOperationName());
    tshape::TShapeLowerToLinalgOptions options;
    options.training = training;
    options.fuseGatedMlp = fuseGatedMlp;
    pm.addPass(tshape::createTShapeLowerToLinalg(options));
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
    for (auto fn : module.getOps<func::FuncOp>()) {
      const auto &want = expected[fn.getSymName().str()];
      size_t i = 0;
      WalkResult r = fn.walk([&](linalg::LinalgOp op) -> WalkResult {
        auto shape = tshape::getContractionShape(op);
        if (!shape)
          return WalkResult::advance();
        if (i >= want.size()) {
          op->emitError() << "contraction " << i
                          << " is not in the model's list of " << want.size();
          return WalkResult::interrupt();
        }
        if (!shape->spec) {
          op->emitError() << "contraction " << i
                          << " carries no model provenance; expected "
                          << describe(want[i]);
          return WalkResult::interrupt();
        }
        std::string got = describe(*shape->spec), exp = describe(want[i]);
        if (got != exp) {
          op->emitError() << "contraction " << i << " is " << got
                          << "; the model says " << exp;
          return WalkResult::interrupt();
        }
        ++i;
        return WalkResult::advance();
      });
      if (r.wasInterrupted())
        return signalPassFailure();
      if (i != want.size()) {
        fn.emitError() << "lowered " << i << " contractions; the model lists "
                       << want.size();
        return signalPassFailure();
      }
      fn.emitRemark() << "tshape-test-gemm-consistency: " << i
                      << " contractions match the model";
    }
  }
};
} // namespace

namespace tshape::test {
void registerTestGemmConsistencyPass() {
  PassRegistration<TestGemmConsistencyPass>();
}
} // namespace tshape::test
