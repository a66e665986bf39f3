//===- TShapeBase.td - tshape dialect definition -----------*- tablegen -*-===//
//
// The `tshape` dialect: transformer building blocks described by the
// hyperparameters that decide their GEMMs.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_BASE_TD
#define TSHAPE_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def TShape_Dialect : Dialect {
  let name = "tshape";
  let cppNamespace = "::tshape";
  let summary = "transformer blocks described by their shape hyperparameters";
  let description = [{
    The `tshape` dialect represents a transformer by the hyperparameters that
    decide its GEMMs: hidden size, heads, key/value heads, head dimension, MLP
    inner size, vocabulary, microbatch, sequence length and tensor-parallel
    degree. Activation shapes live in the tensor types (`batch x seq x
    hidden`, global, not per rank); hyperparameters live in typed attributes.

    Tensor types are unsharded. The tensor-parallel degree `t` is given by a
    `tshape.parallel = #tshape.parallel<tp = t>` attribute on the enclosing
    function or module (default 1). The element type of the activations is
    the model's precision: `bf16`, `f16`, `f32` (with `tshape.math =
    #tshape.math<tf32>` for TF32 tensor-core math) or `f8E4M3FN`.

    Each verifier rule has a number (S1, A1, ...), listed in
    `docs/dialect.md` and tested in `test/Dialect/TShape/errors.mlir`.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let extraClassDeclaration = [{
    /// Name of the discardable attribute carrying the parallel config.
    static constexpr ::llvm::StringLiteral kParallelAttrName = "tshape.parallel";
    /// Name of the discardable attribute carrying the run shape.
    static constexpr ::llvm::StringLiteral kRunAttrName = "tshape.run";
    /// Name of the discardable attribute carrying the f32 math mode.
    static constexpr ::llvm::StringLiteral kMathAttrName = "tshape.math";
    /// Discardable attributes put on lowered GEMMs.
    static constexpr ::llvm::StringLiteral kRoleAttrName = "tshape.role";
    static constexpr ::llvm::StringLiteral kLayerAttrName = "tshape.layer";
    /// A gated pair's up projection: its A is its gate's (one FP8 cast).
    static constexpr ::llvm::StringLiteral kInputSharedAttrName = "tshape.input_shared";
    /// The size expressions and parameter values of a lowered GEMM.
    static constexpr ::llvm::StringLiteral kSizesAttrName = "tshape.sizes";
    /// On both GEMMs of a fused attention: the layer, which groups them.
    static constexpr ::llvm::StringLiteral kFusedAttrName = "tshape.fused_attention";
    /// On the score GEMM of a fused attention: the attention kernel as the
    /// block model states it (size expressions, causal), whose parameter
    /// values are those of the op's tshape.sizes.
    static constexpr ::llvm::StringLiteral kAttentionAttrName = "tshape.attention";
    /// On the op that stands for a memory-bound elementwise kernel (MLA's
    /// merge of partial attention outputs): the kernel as the block model
    /// states it (role, layer, rows and width as expressions, launches,
    /// tensors, extra bytes per row, params), so the analysis prices it.
    static constexpr ::llvm::StringLiteral kElementwiseAttrName = "tshape.elementwise";
    /// On the op a block's lowering ends with: the block's kernels that no
    /// op of the lowering computes (its collectives, a scan, a top-k), each
    /// a dictionary of its fields (model::KernelFields), so the analysis of
    /// lowered IR reads them back as kernels.
    static constexpr ::llvm::StringLiteral kKernelsAttrName = "tshape.kernels";
    /// Builtin-typed forms of the model attributes on lowered functions, so
    /// that lowered IR needs no tshape attribute types (plain MLIR).
    static constexpr ::llvm::StringLiteral kTpAttrName = "tshape.tp";
    static constexpr ::llvm::StringLiteral kTf32AttrName = "tshape.tf32";
    /// The GPU target (#tshape.target or, on lowered IR, a string).
    static constexpr ::llvm::StringLiteral kTargetAttrName = "tshape.target";
    /// Results of tshape-gemm-analysis on a GEMM (a dictionary).
    static constexpr ::llvm::StringLiteral kAnalysisAttrName = "tshape.analysis";
    /// Measurements of tshape-run-gemms on a GEMM (a dictionary).
    static constexpr ::llvm::StringLiteral kMeasuredAttrName = "tshape.measured";
    /// The Hugging Face model_type a function was imported from.
    static constexpr ::llvm::StringLiteral kModelTypeAttrName = "tshape.model_type";
    /// What the model is beyond its sizes (model::Architecture): the
    /// fields that differ from the defaults, as a dictionary.
    static constexpr ::llvm::StringLiteral kArchitectureAttrName = "tshape.architecture";
  }];
}

class TShape_Op<string mnemonic, list<Trait> traits = []>
    : Op<TShape_Dialect, mnemonic, traits>;

#endif // TSHAPE_BASE_TD
