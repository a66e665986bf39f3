//===- TShapeInterfaces.td - tshape op interfaces ----------*- tablegen -*-===//
//
// The block op interface: what every op that stands for a block of the
// plain-C++ model (embedding, attention, MLP, LM head) says about itself, so
// that code outside the dialect (the ModelConfig bridge, the tools, the
// passes) reads and rewrites a model without naming the ops.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTERFACES_TD
#define TSHAPE_INTERFACES_TD

include "mlir/IR/OpBase.td"

def TShape_BlockOpInterface : OpInterface<"BlockOpInterface"> {
  let description = [{
    An op that stands for one block of the model: a residual sub-layer
    (`tshape.attention`, `tshape.mlp`: `y = x + f(x)`, one per layer, the
    body ops of a `tshape.block`) or a once-per-model op (`tshape.embedding`,
    `tshape.lm_head`). It names its block, reads the hyperparameters it
    states into a `model::ModelConfig` and rewrites itself to another one.

    Adding a block: its op derives from `TShape_BlockOp` (TShapeOps.td),
    which states the constant answers below, and writes `readConfig` and
    `writeConfig`; the bridge (`ModelConfigBridge.cpp`), rule B1 of
    `tshape.block` and the tools then accept it.
  }];
  let cppNamespace = "::tshape";

  let methods = [
    InterfaceMethod<[{
        The block's name as the plain-C++ block table calls it
        (`model::parseBlock`): "embedding", "attention", "mlp", "lm_head".
        By default the op's mnemonic, which is that name.
      }],
      "::llvm::StringRef", "getBlockName", (ins), [{}], [{
        return $_op->getName().stripDialect();
      }]>,
    InterfaceMethod<[{
        Whether the op is a residual sub-layer `y = x + f(x)`, one per layer,
        that may stand in the body of a `tshape.block` (attention, MLP), as
        opposed to an op that runs once per model (embedding, LM head).
      }],
      "bool", "isResidualSubLayer">,
    InterfaceMethod<[{
        The `batch x seq x hidden` activations the op works on: its input,
        or for an op that makes them (the embedding) its result. A residual
        sub-layer reads these and its result has their type.
      }],
      "::mlir::TypedValue<::mlir::RankedTensorType>", "getActivations">,
    InterfaceMethod<[{
        The parameters (`model::Param`) that the op's attributes state, the
        ones `readConfig` takes from them: attention heads, kv_heads and
        head_dim, MLP ffn, embedding and LM head vocab. (Every op also
        states microbatch, seq and hidden through `getActivations`.) Ops
        of one config group must agree on the parameters both state for a
        function to be one model (`extractModelConfig`).
      }],
      "::llvm::SmallVector<::tshape::model::Param>", "getStatedParams">,
    InterfaceMethod<[{
        Names the ops that must agree for a function to be one model, as
        messages call them: "attention ops", "MLP ops", and "vocabularies"
        for the embedding and the LM head, which both state the vocabulary.
        `extractModelConfig` checks each op of a group against the first
        one (the stated parameters both state; residual sub-layers of one
        block must be the same op but for their operands, since they stand
        for the layers) and reports a disagreement as "<group> differ".
      }],
      "::llvm::StringRef", "getConfigGroup">,
    InterfaceMethod<[{
        Writes what the op states into `config`: microbatch, seq and hidden
        from its activations, its stated parameters (`getStatedParams`,
        through `model::setParam`; an absent head_dim as 0, "hidden /
        heads") and its flags (attention causal and fused, MLP gated and
        activation, LM head tiedEmbeddings). Leaves everything else alone.
      }],
      "void", "readConfig", (ins "::tshape::model::ModelConfig &":$config)>,
    InterfaceMethod<[{
        Rewrites the op to `config`: the attributes `readConfig` reads, and
        the last dimension of its result type (hidden, or vocab for the LM
        head) when that changes. The microbatch and seq of its types are
        kept, and so are its operands: the caller retypes the values that
        no block op defines.
      }],
      "void", "writeConfig",
      (ins "const ::tshape::model::ModelConfig &":$config)>,
  ];
}

#endif // TSHAPE_INTERFACES_TD
