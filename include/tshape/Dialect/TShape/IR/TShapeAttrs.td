//===- TShapeAttrs.td - tshape attributes and enums --------*- tablegen -*-===//
//
// Typed attributes of the tshape dialect: the parallelism config, the f32
// math mode, and the MLP activation and block residual enums.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ATTRS_TD
#define TSHAPE_ATTRS_TD

include "tshape/Dialect/TShape/IR/TShapeBase.td"

def TShape_Activation : I32EnumAttr<"Activation", "MLP activation", [
    I32EnumAttrCase<"gelu", 0>,
    I32EnumAttrCase<"relu", 1>,
    I32EnumAttrCase<"silu", 2>
  ]> {
  let cppNamespace = "::tshape";
}

def TShape_ResidualMode : I32EnumAttr<"ResidualMode",
    "how a block combines its attention and MLP residual branches", [
    I32EnumAttrCase<"sequential", 0>,
    I32EnumAttrCase<"parallel", 1>
  ]> {
  let cppNamespace = "::tshape";
}

def TShape_MathMode : I32EnumAttr<"MathMode", "f32 GEMM math mode", [
    I32EnumAttrCase<"ieee", 0>,
    I32EnumAttrCase<"tf32", 1>
  ]> {
  let cppNamespace = "::tshape";
  let genSpecializedAttr = 0;
}

def TShape_MathModeAttr : EnumAttr<TShape_Dialect, TShape_MathMode, "math"> {
  let summary = "math mode of f32 GEMMs (ieee or tf32 tensor cores)";
  let assemblyFormat = "`<` $value `>`";
}

def TShape_ParallelAttr : AttrDef<TShape_Dialect, "Parallel"> {
  let mnemonic = "parallel";
  let summary = "the parallel degrees of a run";
  let description = [{
    Placed on a function or module as `tshape.parallel`: the one IR form of
    the parallel degrees (`model::Parallelism`). `tp` is the tensor-parallel
    degree t: attention heads, the MLP inner size and the vocabulary are
    split across t ranks, and the lowering emits the GEMMs of one rank.
    `pp`, `dp`, `ep` and `cp` (pipeline, data, expert and context degrees)
    are stated for the planner and the memory model; no GEMM size depends
    on them yet. `tp` is always written; the others default to 1 and are
    printed only when they differ.

    ```mlir
    func.func @m(...) attributes {tshape.parallel = #tshape.parallel<tp = 2>}
    module attributes {tshape.parallel = #tshape.parallel<tp = 8, pp = 4, dp = 16>}
    ```
  }];
  let parameters = (ins "int64_t":$tp,
                        DefaultValuedParameter<"int64_t", "1">:$pp,
                        DefaultValuedParameter<"int64_t", "1">:$dp,
                        DefaultValuedParameter<"int64_t", "1">:$ep,
                        DefaultValuedParameter<"int64_t", "1">:$cp);
  let assemblyFormat = "`<` struct(params) `>`";
  let builders = [
    AttrBuilder<(ins "const ::tshape::model::Parallelism &":$p), [{
      return $_get($_ctxt, p.tp, p.pp, p.dp, p.ep, p.cp);
    }]>
  ];
  let extraClassDeclaration = [{
    /// The degrees as the plain-C++ model states them.
    ::tshape::model::Parallelism getDegrees() const {
      return {getTp(), getPp(), getDp(), getEp(), getCp()};
    }
  }];
  let genVerifyDecl = 1;
}

def TShape_Phase : I32EnumAttr<"Phase", "what a run computes", [
    I32EnumAttrCase<"train", 0>,
    I32EnumAttrCase<"prefill", 1>,
    I32EnumAttrCase<"decode", 2>
  ]> {
  let cppNamespace = "::tshape";
  let genSpecializedAttr = 0;
}

def TShape_RunAttr : AttrDef<TShape_Dialect, "Run"> {
  let mnemonic = "run";
  let summary = "the run shape: train, prefill or decode, the kv length, "
                "draft tokens, the KV-cache element type and the "
                "linear-layer precision";
  let description = [{
    Placed on a function or module as `tshape.run`: the one IR form of the
    run shape (`model::RunShape`). `train` is a training step (the forward,
    then the backward); `prefill` the forward of a prompt (or of one chunk
    of it over a longer `kv_length`); `decode` one new token per sequence
    over its cache. `kv_length` is the keys each query attends to (default:
    the sequence length): the cached tokens plus the step's own. `draft`
    (decode only) is the draft tokens of speculative decoding verified in
    the step: 1 + draft queries per sequence. `kv_cache` is the KV cache's
    element type (`bf16`, `fp16`, `fp8`; default: the model's).
    `precision` is the precision of the linear layers as frameworks run
    them (`bf16`, `fp8`: per-tensor current scaling, `mxfp8`: block
    scaling on Blackwell; default: the model's element type), which the
    cost model prices (docs/cost-model.md#fp8-linear-layers); a target
    without it is an error where the run is priced. A pass's `phase=`
    option takes precedence over the phase.

    ```mlir
    func.func @m(...) attributes {tshape.run = #tshape.run<train>}
    module attributes {tshape.run = #tshape.run<decode, kv_length = 4097>}
    module attributes {tshape.run = #tshape.run<decode, kv_length = 4100, draft = 3, kv_cache = "fp8">}
    module attributes {tshape.run = #tshape.run<train, precision = "fp8">}
    ```
  }];
  let parameters = (ins EnumParameter<TShape_Phase>:$phase,
                        DefaultValuedParameter<"int64_t", "0">:$kv_length,
                        DefaultValuedParameter<"int64_t", "0">:$draft,
                        StringRefParameter<"KV-cache element type", "\"\"">:$kv_cache,
                        StringRefParameter<"linear-layer precision", "\"\"">:$precision);
  let assemblyFormat = "`<` $phase (`,` struct($kv_length, $draft, "
                       "$kv_cache, $precision)^)? `>`";
  let builders = [
    AttrBuilder<(ins "const ::tshape::model::RunShape &":$r), [{
      return $_get($_ctxt, ::tshape::Phase(r.phase), r.kvLength, r.draft,
                   r.kvCache ? ::llvm::StringRef(::tshape::dtypeName(*r.kvCache))
                             : ::llvm::StringRef(),
                   r.precision ? ::llvm::StringRef(
                                     ::tshape::precisionName(*r.precision))
                               : ::llvm::StringRef());
    }]>
  ];
  let extraClassDeclaration = [{
    /// The run shape as the plain-C++ model states it.
    ::tshape::model::RunShape getRunShape() const {
      ::tshape::model::RunShape r = ::tshape::model::RunShape::of(
          ::tshape::model::Phase(getPhase()), getKvLength(), getDraft());
      if (!getKvCache().empty())
        r.kvCache = ::tshape::parseDType(getKvCache().str());
      if (!getPrecision().empty())
        r.precision = ::tshape::parsePrecision(getPrecision().str());
      return r;
    }
  }];
  let genVerifyDecl = 1;
}

def TShape_TargetAttr : AttrDef<TShape_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "the GPU the analysis passes model";
  let description = [{
    Placed on the module as `tshape.target`. The name is a built-in target
    (`v100`, `a100-40gb`, `a100-80gb`, `h100-sxm`, `h100-sxm-vllm0.24`,
    `h100-pcie`, `h200`,
    `b200`, `gb200`, `l40s`, `rtx4090`) or the path of a JSON target file ending in
    `.json` (schema in docs/targets.md). A pass's `target=` or
    `target-file=` option takes precedence.

    ```mlir
    module attributes {tshape.target = #tshape.target<"h100-sxm">} { ... }
    ```
  }];
  let parameters = (ins StringRefParameter<"target name or .json file">:$name);
  let assemblyFormat = "`<` $name `>`";
  let genVerifyDecl = 1;
}

#endif // TSHAPE_ATTRS_TD
