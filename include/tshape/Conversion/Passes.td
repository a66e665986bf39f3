//===- Passes.td - tshape conversion passes ----------------*- tablegen -*-===//
//
// Lowering of the tshape dialect to standard MLIR, and the GEMM summary.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_CONVERSION_PASSES_TD
#define TSHAPE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"
include "tshape/PassRunShape.td"

//===----------------------------------------------------------------------===//
// TShapeToLinalg
//===----------------------------------------------------------------------===//

def TShapeLowerToLinalg : Pass<"tshape-lower-to-linalg", "::mlir::ModuleOp"> {
  let summary = "lower tshape ops to linalg GEMMs, one tensor-parallel rank";
  let description = [{
    Lowers every `tshape` op to `linalg`, `tensor`, `arith`, `math` and
    `func`, producing the GEMMs of one tensor-parallel rank exactly as the
    paper lists them.

    Each op is lowered by its block's lowering from the kernels of its
    block model; `docs/kernels.md` lists them (the GEMMs `qkv`,
    `attn_score`, `attn_value`, `attn_out`, `mlp_gate`, `mlp_up` or
    `mlp_gate_up`, `mlp_down`, `logits`, and the fused attention kernel).

    Weights are `arith.constant` splats stored `[out, in]` like
    `nn.Linear`, read through `indexing_maps`. Each GEMM carries
    `tshape.role` and `tshape.layer` (-1 for logits); with `fused`
    attention the two batched GEMMs also carry `tshape.fused_attention`.
    `tshape.repeat` is unrolled. Softmax (`linalg.softmax`), activations,
    gating and residual adds lower to linalg too; norms, the causal mask,
    dropout and tensor-parallel collectives are left out of this GEMM view.

    With `phase=train` (or `tshape.run = #tshape.run<train>`) the
    backward GEMMs follow the forward: for each
    weight GEMM the data gradient `<role>_dgrad` `(M x N) . (N x K)` and the
    weight gradient `<role>_wgrad` `(K x M) . (M x N)`, and for attention
    `attn_value_dp`, `attn_value_dv`, `attn_score_dq`, `attn_score_dk`. The
    weight gradients are appended to the function's results.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect", "::mlir::func::FuncDialect",
    "::mlir::linalg::LinalgDialect", "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect"
  ];
  let options = [
    PhaseOption<"the run to lower: train also emits the backward GEMMs">,
    RemovedTrainingOption,
    Option<"fuseGatedMlp", "fuse-gated-mlp", "bool", /*default=*/"false",
           "emit a gated MLP's gate and up projections as one GEMM of width "
           "2f/t (role mlp_gate_up) instead of two">,
    Option<"weights", "weights", "::tshape::WeightValues",
           /*default=*/"::tshape::WeightValues::Splat",
           "weight values: splat (0.01, compact at any size) or pattern "
           "(0.1 sin(0.37 i + 1.13 j + seed), distinct per weight, for "
           "executed tests)",
           [{::llvm::cl::values(
             clEnumValN(::tshape::WeightValues::Splat, "splat",
                        "0.01 everywhere (compact at any size)"),
             clEnumValN(::tshape::WeightValues::Pattern, "pattern",
                        "0.1 sin(0.37 i + 1.13 j + seed), distinct per "
                        "weight"))}]>,
    Option<"decomposeSoftmax", "decompose-softmax", "bool", /*default=*/"false",
           "emit softmax as linalg.generic ops (max, exp, sum, divide) "
           "instead of linalg.softmax, for pipelines that execute the IR">,
    Option<"maxLayers", "max-layers", "int64_t", /*default=*/"4096",
           "refuse to unroll more than this many layers in one function "
           "(keeps a mistyped layer count from exhausting memory)">
  ];
  let statistics = [
    Statistic<"numGemms", "gemms",
              "linalg GEMMs emitted (with phase=train, the backward's too)">,
    Statistic<"numLayers", "layers",
              "Layers lowered (blocks and standalone sub-layers, repeats "
              "unrolled)">
  ];
}

//===----------------------------------------------------------------------===//
// GEMM summary
//===----------------------------------------------------------------------===//

#endif // TSHAPE_CONVERSION_PASSES_TD
