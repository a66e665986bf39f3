//===- TestGemmConsistency.cpp - lowering vs. model GEMM list -------------===//
//
// tshape-test-gemm-consistency: reads the model of each function
// (extractModelConfig), computes the kernels of the run (modelKernels),
// lowers the module in place with tshape-lower-to-linalg under the same
// options, and checks every kernel against the lowered contractions, in
// order: a GEMM is one contraction (name, layer, batch x M x N x K, operand
// layouts and each size's expression); a fused attention is its score and
// value contractions, the score one carrying the kernel itself (every size,
// its expression, causal). A kind the lowering does not emit is an error.
// Each contraction is also posed as the analysis poses it on lowered IR
// (its traced GemmSpec under the run the lowered function states, through
// cost::gemmProblem on `target=`) and compared with the model's kernel
// posed under the run it was lowered for: element type, quantization,
// transposed copy and active groups, so that an FP8 run prices alike on
// both paths.
// A remark states the counts on success; the first difference is an error
// at the op. Test-only (no public header), after the analysis
// test passes of IREE and CIRCT.
//
//===----------------------------------------------------------------------===//

#include "tshape/Analysis/Contraction.h"
#include "tshape/Conversion/Passes.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Dialect/TShape/IR/ModelConfigBridge.h"
#include "tshape/Dialect/TShape/IR/TShapeAttrs.h"
#include "tshape/Dialect/TShape/IR/TShapeDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"

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

std::string describe(const tshape::model::AttentionSpec &a) {
  std::string s = "attention layer " + std::to_string(a.layer) +
                  (a.causal ? " causal" : "") + (a.cross ? " cross" : "") +
                  (a.backward ? " backward" : "");
  for (auto [name, d] : tshape::model::Kernel(a).dims())
    s += std::string(" ") + name + "=" + std::to_string(d.value) + " [" +
         d.expr.str() + "]";
  return s;
}

std::string describe(const tshape::model::ElementwiseSpec &e) {
  return std::string(tshape::model::roleInfo(e.role).name) + " layer " +
         std::to_string(e.layer) + " " + std::to_string(e.count) + " x " +
         std::to_string(e.rows.value) + " [" + e.rows.expr.str() + "] x " +
         std::to_string(e.width.value) + " [" + e.width.expr.str() + "], " +
         std::to_string(e.tensors) + " tensors + " +
         std::to_string(e.rowExtraBytes) + " bytes a row";
}

/// How the cost model runs a GEMM: "fp8 1 x 2048x12288x4096 quantize=1
/// transposed".
std::string describe(const tshape::cost::GemmProblem &p) {
  return std::string(tshape::model::dtypeName(p.dtype)) + " " +
         std::to_string(p.batch) + " x " + std::to_string(p.m) + "x" +
         std::to_string(p.n) + "x" + std::to_string(p.k) +
         " quantize=" + std::to_string(int(p.quantize)) +
         (p.quantizeTranspose ? " transposed" : "") +
         (p.grouped ? " grouped" : "");
}

/// What one lowered contraction must be: a GEMM, and for the score GEMM of
/// a fused attention the kernel it carries.
struct Expected {
  tshape::model::GemmSpec gemm;
  std::optional<tshape::model::AttentionSpec> attention;
};

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

  Option<tshape::model::Phase> phase{
      *this, "phase", llvm::cl::desc("the run to lower"),
      llvm::cl::init(tshape::model::Phase::Prefill),
      llvm::cl::values(
          clEnumValN(tshape::model::Phase::Train, "train", "a training step"),
          clEnumValN(tshape::model::Phase::Prefill, "prefill", "the forward"),
          clEnumValN(tshape::model::Phase::Decode, "decode", "a decode step"))};
  Option<bool> fuseGatedMlp{*this, "fuse-gated-mlp",
                            llvm::cl::desc("fused gate/up layout"),
                            llvm::cl::init(false)};
  Option<std::string> targetName{
      *this, "target",
      llvm::cl::desc("the GPU the GEMMs are posed for (the FP8 cast's "
                     "transposed copy depends on it)"),
      llvm::cl::init("h100-sxm")};

  void runOnOperation() override {
    ModuleOp module = getOperation();
    const tshape::target::GpuTarget *target =
        tshape::target::findBuiltinTarget(targetName);
    if (!target) {
      module.emitError() << "tshape-test-gemm-consistency: unknown target '"
                         << targetName.getValue() << "'";
      return signalPassFailure();
    }
    // Expected contractions, per function, from the block models.
    std::map<std::string, tshape::model::RunShape> runs;
    std::map<std::string, std::vector<Expected>> expected;
    std::map<std::string, size_t> kernelCounts;
    // The model's elementwise kernels (MLA's merge), which the lowering
    // carries on the op standing for each (tshape.elementwise).
    std::map<std::string, std::vector<std::string>> elementwise;
    for (auto fn : module.getOps<func::FuncOp>()) {
      bool hasVocab = false;
      std::string error;
      auto c = tshape::extractModelConfig(fn, hasVocab, error);
      if (!c) {
        fn.emitError() << "tshape-test-gemm-consistency: " << error;
        return signalPassFailure();
      }
      c->mlp.fusedGateUp = fuseGatedMlp;
      // The run the lowering will lower: the IR's tshape.run (kv length,
      // draft tokens, KV cache) with phase= on the command line winning.
      tshape::model::RunShape run =
          tshape::getRunShape(fn).value_or(tshape::model::RunShape{phase, 0});
      if (phase.getNumOccurrences())
        run.phase = phase;
      // ... which the lowering then reads from the function.
      fn->setAttr(tshape::TShapeDialect::kRunAttrName,
                  tshape::RunAttr::get(fn.getContext(), run));
      runs[fn.getSymName().str()] = run;
      std::vector<tshape::model::Kernel> kernels =
          tshape::model::modelKernels(*c, run);
      // A MoE layer's all-to-all (ep > 1) moves tokens between ranks; the
      // lowering's gathers stand for it on one rank, with no contraction.
      // MLA's merge of two partial attention outputs (an elementwise
      // kernel) is no contraction either.
      for (const tshape::model::Kernel &k : kernels)
        if (const tshape::model::ElementwiseSpec *e = k.elementwise())
          elementwise[fn.getSymName().str()].push_back(describe(*e));
      llvm::erase_if(kernels, [](const tshape::model::Kernel &k) {
        return k.collective() != nullptr || k.elementwise() != nullptr;
      });
      if (!hasVocab) // no embedding or head: no logits GEMMs
        llvm::erase_if(kernels, [](const tshape::model::Kernel &k) {
          return k.role() == tshape::model::Role::Logits;
        });
      std::vector<Expected> want;
      for (const tshape::model::Kernel &k : kernels) {
        if (const tshape::model::GemmSpec *g = k.gemm()) {
          want.push_back({*g, std::nullopt});
        } else if (const tshape::model::AttentionSpec *a = k.attention()) {
          // The kernel's pass (forward, or the backward's four gradient
          // products), the first carrying the kernel.
          bool first = true;
          for (const tshape::model::GemmSpec &g : a->passGemms()) {
            want.push_back({g, first ? std::optional(*a) : std::nullopt});
            first = false;
          }
        } else {
          fn.emitError() << "tshape-test-gemm-consistency: the model has a "
                         << tshape::model::kernelKindName(k.kind())
                         << " kernel (" << k.name()
                         << "), which the lowering does not emit";
          return signalPassFailure();
        }
      }
      kernelCounts[fn.getSymName().str()] = kernels.size();
      expected[fn.getSymName().str()] = std::move(want);
    }
    OpPassManager pm(ModuleOp::getOperationName());
    tshape::TShapeLowerToLinalgOptions options;
    options.phase = phase;
    options.fuseGatedMlp = fuseGatedMlp;
    pm.addPass(tshape::createTShapeLowerToLinalg(options));
    if (failed(runPipeline(pm, module)))
      return signalPassFailure();
    for (auto fn : module.getOps<func::FuncOp>()) {
      const auto &want = expected[fn.getSymName().str()];
      const tshape::model::RunShape &run = runs[fn.getSymName().str()];
      // The run the analysis reads from the lowered function.
      std::optional<tshape::model::RunShape> lowered = tshape::getRunShape(fn);
      if (!lowered || !(*lowered == run)) {
        fn.emitError() << "the lowered function states the run "
                       << (lowered ? tshape::model::str(*lowered)
                                   : std::string("<none>"))
                       << "; it was lowered for " << tshape::model::str(run);
        return signalPassFailure();
      }
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
                          << describe(want[i].gemm);
          return WalkResult::interrupt();
        }
        std::string got = describe(*shape->spec),
                    exp = describe(want[i].gemm);
        // Posed as the analysis poses each side (ShapeAnalysis::predict).
        std::optional<tshape::model::DType> dtype = tshape::gemmDType(
            op, getElementTypeOrSelf(op.getDpsInputOperand(0)->get().getType()));
        if (dtype) {
          got += "; as " + describe(tshape::cost::gemmProblem(
                               *shape->spec, *dtype, &*lowered, target));
          exp += "; as " + describe(tshape::cost::gemmProblem(
                               want[i].gemm, *dtype, &run, target));
        }
        if (want[i].attention) {
          auto carried = tshape::getAttentionProvenance(op);
          got += carried ? "; " + describe(*carried) : "; no attention kernel";
          exp += "; " + describe(*want[i].attention);
        }
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
      // Each elementwise kernel, in order, as the op carrying it says.
      const std::vector<std::string> &wantEw =
          elementwise[fn.getSymName().str()];
      std::vector<std::string> gotEw;
      fn.walk([&](Operation *op) {
        if (auto e = tshape::getElementwiseProvenance(op))
          gotEw.push_back(describe(*e));
      });
      if (gotEw != wantEw) {
        fn.emitError() << "the lowering carries " << gotEw.size()
                       << " elementwise kernels ("
                       << llvm::join(gotEw, "; ") << "); the model lists "
                       << wantEw.size() << " (" << llvm::join(wantEw, "; ")
                       << ")";
        return signalPassFailure();
      }
      auto remark = fn.emitRemark();
      remark << "tshape-test-gemm-consistency: "
             << kernelCounts[fn.getSymName().str()] << " kernels, " << i
             << " contractions match the model";
      if (!wantEw.empty())
        remark << "; " << wantEw.size() << " elementwise kernel"
               << (wantEw.size() == 1 ? "" : "s") << " carried as it states";
    }
  }
};
} // namespace

namespace tshape::test {
void registerTestGemmConsistencyPass() {
  PassRegistration<TestGemmConsistencyPass>();
}
} // namespace tshape::test
