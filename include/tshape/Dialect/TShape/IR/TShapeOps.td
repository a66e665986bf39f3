//===- TShapeOps.td - tshape operations --------------------*- tablegen -*-===//
//
// Operations for the parts of a transformer that decide its GEMMs.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_OPS_TD
#define TSHAPE_OPS_TD

include "tshape/Dialect/TShape/IR/TShapeBase.td"
include "tshape/Dialect/TShape/IR/TShapeAttrs.td"
include "tshape/Dialect/TShape/IR/TShapeInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/RegionKindInterface.td"

/// Activations: a ranked float tensor (rank and static shape are verified
/// with numbered rules, so that errors say which rule failed).
def TShape_Activations : RankedTensorOf<[AnyFloat]>;
def TShape_Tokens : RankedTensorOf<[AnySignlessInteger]>;

//===----------------------------------------------------------------------===//
// Block ops
//===----------------------------------------------------------------------===//

/// An op of the block op interface (TShapeInterfaces.td), with the
/// interface's constant answers as arguments: whether it is a residual
/// sub-layer, its config group, the accessor of its b x s x h activations
/// (`Input` or `Result`) and the model::Param enumerators its attributes
/// state. readConfig and writeConfig are written per op (TShapeOps.cpp).
class TShape_BlockOp<string mnemonic, bit residualSubLayer, string configGroup,
                     string activations, list<string> statedParams>
    : TShape_Op<mnemonic, [Pure, TShape_BlockOpInterface]> {
  code blockOpDeclarations = [{
    bool isResidualSubLayer() { return }] #
      !if(residualSubLayer, "true", "false") # [{; }
    ::llvm::StringRef getConfigGroup() { return "}] # configGroup # [{"; }
    ::mlir::TypedValue<::mlir::RankedTensorType> getActivations() {
      return get}] # activations # [{();
    }
    ::llvm::SmallVector<::tshape::model::Param> getStatedParams() {
      return {}] # !interleave(!foreach(p, statedParams,
                                        "::tshape::model::Param::" # p),
                               ", ") # [{};
    }
    void readConfig(::tshape::model::ModelConfig &config);
    void writeConfig(const ::tshape::model::ModelConfig &config);
  }];
  let extraClassDeclaration = blockOpDeclarations;
}

//===----------------------------------------------------------------------===//
// Embedding and LM head
//===----------------------------------------------------------------------===//

def TShape_EmbeddingOp : TShape_BlockOp<"embedding", /*residualSubLayer=*/0,
    "vocabularies", "Result", ["Vocab"]> {
  let summary = "token embedding lookup";
  let description = [{
    Looks up `tokens` (`batch x seq` integers) in a `vocab x hidden` table.
    The result type gives the microbatch, the sequence length, the hidden
    size and the model's element type. The lookup is not a GEMM forward; its
    table is reused by a tied `tshape.lm_head`.

    ```mlir
    %x = tshape.embedding %tokens vocab = 50257
        : tensor<4x2048xi32> -> tensor<4x2048x2560xbf16>
    ```
  }];
  let arguments = (ins TShape_Tokens:$tokens, I64Attr:$vocab);
  let results = (outs TShape_Activations:$result);
  let assemblyFormat = [{
    $tokens `vocab` `=` $vocab attr-dict `:` type($tokens) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TShape_LMHeadOp : TShape_BlockOp<"lm_head", /*residualSubLayer=*/0,
    "vocabularies", "Input", ["Vocab"]> {
  let summary = "final projection from hidden states to vocabulary logits";
  let description = [{
    Projects `batch x seq x hidden` activations to `batch x seq x vocab`
    logits: the once-per-model GEMM `(b*s x h) . (h x v/t)`. With `tied`, the
    weight is the embedding table of the `tshape.embedding` in the same
    function, which must then exist with the same vocabulary and hidden size.

    ```mlir
    %logits = tshape.lm_head %x vocab = 50257 tied
        : tensor<4x2048x2560xbf16> -> tensor<4x2048x50257xbf16>
    ```
  }];
  let arguments = (ins TShape_Activations:$input, I64Attr:$vocab,
                       UnitAttr:$tied);
  let results = (outs TShape_Activations:$result);
  let assemblyFormat = [{
    $input `vocab` `=` $vocab (`tied` $tied^)? attr-dict `:` type($input) `->`
    type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention and MLP sub-layers
//===----------------------------------------------------------------------===//

def TShape_AttentionOp : TShape_BlockOp<"attention", /*residualSubLayer=*/1,
    "attention ops", "Input", ["Heads", "KvHeads", "HeadDim", "Window"]> {
  let summary = "self-attention sub-layer with MHA, GQA or MQA heads";
  let description = [{
    A pre-norm self-attention sub-layer `y = x + Attn(norm(x))` over
    `batch x seq x hidden` activations. `heads` is the number of query heads
    a, `kv_heads` the number of key/value heads g (g = a: multi-head; 1 < g <
    a: grouped-query; g = 1: multi-query). `head_dim` d is hidden / heads
    unless given (as in Gemma). `causal` masks future tokens (decoders);
    `fused` says scores, softmax and values run as one fused kernel
    (FlashAttention), whose head-dimension rules then apply. `window`
    makes it a windowed layer: each query sees the `window` keys up to its
    own (sliding: Mistral, Gemma's local layers, gpt-oss), or with
    `chunked` the keys of its own aligned chunk of `window` (Llama 4). A
    layer without one attends to every key, also in a model whose other
    layers are windowed (Gemma 3's global layers).

    It lowers to the QKV projection `(b*s x h) . (h x (a+2g)*d/t)`, the
    batched scores `b*a/t x (s x d) . (d x s)`, the batched values
    `b*a/t x (s x s) . (s x d)` and the output projection
    `(b*s x a*d/t) . (a*d/t x h)`. With a window shorter than the
    sequence, the scores and values are banded: per block of `window`
    queries over the keys the block sees (docs/lowering.md#windows).

    ```mlir
    %y = tshape.attention %x heads = 32 kv_heads = 8 causal window = 4096
        : tensor<1x8192x4096xbf16> -> tensor<1x8192x4096xbf16>
    ```
  }];
  let arguments = (ins TShape_Activations:$input, I64Attr:$heads,
                       I64Attr:$kv_heads, OptionalAttr<I64Attr>:$head_dim,
                       UnitAttr:$causal, UnitAttr:$fused,
                       OptionalAttr<I64Attr>:$window, UnitAttr:$chunked);
  let results = (outs TShape_Activations:$result);
  let assemblyFormat = [{
    $input `heads` `=` $heads `kv_heads` `=` $kv_heads
    (`head_dim` `=` $head_dim^)? (`causal` $causal^)? (`fused` $fused^)?
    (`window` `=` $window^)? (`chunked` $chunked^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = blockOpDeclarations # [{
    /// The head dimension d: head_dim if given, else hidden / heads.
    int64_t getHeadDimOrDefault();
  }];
}

def TShape_MLPOp : TShape_BlockOp<"mlp", /*residualSubLayer=*/1,
    "MLP ops", "Input", ["Ffn"]> {
  let summary = "feed-forward sub-layer, plain or gated";
  let description = [{
    A pre-norm MLP sub-layer `y = x + W_down(act(W_up(norm(x))))`, or with
    `gated` (SwiGLU, GeGLU) `y = x + W_down(act(W_gate(n)) * W_up(n))`.
    `inner` is the inner size f (4h for GELU MLPs, about 8h/3 for gated
    ones).

    It lowers to `(b*s x h) . (h x f/t)` (twice when gated: `mlp_gate` and
    `mlp_up`) and `(b*s x f/t) . (f/t x h)`.

    ```mlir
    %y = tshape.mlp %x inner = 11008 activation = silu gated
        : tensor<1x4096x4096xbf16> -> tensor<1x4096x4096xbf16>
    ```
  }];
  let arguments = (ins TShape_Activations:$input, I64Attr:$inner,
                       TShape_Activation:$activation, UnitAttr:$gated);
  let results = (outs TShape_Activations:$result);
  let assemblyFormat = [{
    $input `inner` `=` $inner `activation` `=` $activation (`gated` $gated^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TShape_MoEOp : TShape_BlockOp<"moe", /*residualSubLayer=*/1,
    "MoE ops", "Input",
    ["Experts", "TopK", "MoeFfn", "SharedExperts", "SharedFfn", "Capacity"]> {
  let summary = "mixture-of-experts feed-forward sub-layer";
  let description = [{
    A pre-norm mixture-of-experts sub-layer `y = x + MoE(norm(x))`: a
    router scores `experts` routed experts per token, each token runs the
    `topk` best, each expert an MLP of inner size `inner` (gated: SwiGLU),
    and `shared_experts` experts of inner size `shared_inner` run on every
    token. `capacity` (percent, absent: balanced) prices the busiest
    expert's load above the balanced `b*s*topk/experts` tokens, for skewed
    routing or a capacity factor. The experts are split over the
    expert-parallel degree `ep` of `#tshape.parallel`.

    It lowers to the router `(b*s x h) . (h x E)`, the routed experts as
    grouped GEMMs over the rank's `E/ep` experts, each
    `(ceil(b*s*k/(E/ep)) x h) . (h x f/t)` (gate and up) and
    `(.. x f/t) . (f/t x h)` (down), and the shared experts as one dense
    gated MLP of inner `shared_experts*shared_inner/t`.

    ```mlir
    %y = tshape.moe %x experts = 8 topk = 2 inner = 14336 activation = silu
        gated : tensor<4x4096x4096xbf16> -> tensor<4x4096x4096xbf16>
    ```
  }];
  let arguments = (ins TShape_Activations:$input, I64Attr:$experts,
                       I64Attr:$topk, I64Attr:$inner,
                       TShape_Activation:$activation, UnitAttr:$gated,
                       OptionalAttr<I64Attr>:$shared_experts,
                       OptionalAttr<I64Attr>:$shared_inner,
                       OptionalAttr<I64Attr>:$capacity);
  let results = (outs TShape_Activations:$result);
  let assemblyFormat = [{
    $input `experts` `=` $experts `topk` `=` $topk `inner` `=` $inner
    `activation` `=` $activation (`gated` $gated^)?
    (`shared_experts` `=` $shared_experts^)?
    (`shared_inner` `=` $shared_inner^)? (`capacity` `=` $capacity^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TShape_MlaOp : TShape_BlockOp<"mla", /*residualSubLayer=*/1,
    "MLA ops", "Input",
    ["Heads", "QLoraRank", "KvLoraRank", "QkNopeDim", "QkRopeDim",
     "VHeadDim"]> {
  let summary = "multi-head latent attention sub-layer (DeepSeek-V2/V3)";
  let description = [{
    A pre-norm multi-head latent attention sub-layer `y = x + MLA(norm(x))`
    over `batch x seq x hidden` activations, as in DeepSeek-V2/V3 and
    Kimi-K2. Queries go through a latent of `q_lora_rank` (absent: projected
    from the hidden size directly, as DeepSeek-V2-Lite), keys and values
    through one latent of `kv_lora_rank` plus a rotary key of
    `qk_rope_head_dim` that the `heads` heads share. Each head's query and
    key have `qk_nope_head_dim + qk_rope_head_dim` dims (192 for
    DeepSeek-V3), its value `v_head_dim`. `causal` and `fused` are those of
    `tshape.attention`.

    It lowers (per tensor-parallel rank t, a_t = heads/t, T = b*s) to
    `mla_q_down (T x h).(h x r_q)` and `mla_q_up (T x r_q).(r_q x a_t(dn+dr))`
    (or `mla_q (T x h).(h x a_t(dn+dr))`), `mla_kv_down (T x h).(h x r_kv+dr)`,
    `mla_kv_up (T x r_kv).(r_kv x a_t(dn+dv))`, the attention over a_t heads
    with head dims dn+dr and dv, and `attn_out (T x a_t dv).(a_t dv x h)`.
    A decode step runs the absorbed form: `mla_q_absorb`
    `a_t x (T x dn).(dn x r_kv)`, attention of a_t query heads over one
    latent key/value head of dim r_kv+dr, and `mla_out_absorb`
    `a_t x (T x r_kv).(r_kv x dv)`.

    ```mlir
    %y = tshape.mla %x heads = 128 q_lora_rank = 1536 kv_lora_rank = 512
        qk_nope_head_dim = 128 qk_rope_head_dim = 64 v_head_dim = 128 causal
        : tensor<1x4096x7168xbf16> -> tensor<1x4096x7168xbf16>
    ```
  }];
  let arguments = (ins TShape_Activations:$input, I64Attr:$heads,
                       OptionalAttr<I64Attr>:$q_lora_rank,
                       I64Attr:$kv_lora_rank, I64Attr:$qk_nope_head_dim,
                       I64Attr:$qk_rope_head_dim, I64Attr:$v_head_dim,
                       UnitAttr:$causal, UnitAttr:$fused);
  let results = (outs TShape_Activations:$result);
  let assemblyFormat = [{
    $input `heads` `=` $heads (`q_lora_rank` `=` $q_lora_rank^)?
    `kv_lora_rank` `=` $kv_lora_rank `qk_nope_head_dim` `=` $qk_nope_head_dim
    `qk_rope_head_dim` `=` $qk_rope_head_dim `v_head_dim` `=` $v_head_dim
    (`causal` $causal^)? (`fused` $fused^)?
    attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Blocks and repetition
//===----------------------------------------------------------------------===//

def TShape_BlockOp : TShape_Op<"block", [
    SingleBlock, RecursiveMemoryEffects, AllTypesMatch<["input", "result"]>]> {
  let summary = "decoder (or encoder) block: residual sub-layers in sequence or in parallel";
  let description = [{
    Groups the residual sub-layers of one layer (ops of the block op
    interface that are residual sub-layers: `tshape.attention`,
    `tshape.mlp`) into a block. The body has one argument, the block input,
    then one or more sub-layers, then `tshape.yield`.

    - `sequential` (GPT-2, Llama): the first sub-layer reads the block
      input, each next one reads the previous one's result, and the body
      yields the last result. Attention then MLP:
      `y = h + MLP(h)`, `h = x + Attn(x)`.
    - `parallel` (GPT-J, GPT-NeoX, Falcon): every sub-layer reads the block
      input and the body yields each result, in order; the block computes
      `y = x + f1(x) + ... + fn(x)`, the sum of the yielded values less
      `(n - 1) x`. Attention and MLP: `y = x + Attn(x) + MLP(x)`.

    The usual block is one attention then one MLP; the lowering handles
    that one.

    ```mlir
    %y = tshape.block sequential %x : tensor<4x2048x2560xbf16> {
    ^bb0(%in: tensor<4x2048x2560xbf16>):
      %a = tshape.attention %in heads = 32 kv_heads = 32 causal
          : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      %m = tshape.mlp %a inner = 10240 activation = gelu
          : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
      tshape.yield %m : tensor<4x2048x2560xbf16>
    }
    ```
  }];
  let arguments = (ins TShape_Activations:$input, TShape_ResidualMode:$mode);
  let results = (outs TShape_Activations:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $mode $input attr-dict `:` type($input) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "ResidualMode":$mode)>
  ];
  let extraClassDeclaration = [{
    /// The residual sub-layers of the body, in order.
    ::llvm::SmallVector<BlockOpInterface> getSubLayers();
  }];
}

def TShape_RepeatOp : TShape_Op<"repeat", [
    SingleBlock, RecursiveMemoryEffects, AllTypesMatch<["input", "result"]>]> {
  let summary = "repeat a body for a number of layers";
  let description = [{
    Applies its body `layers` times, feeding each result to the next
    iteration, so that a model with L identical layers is written once. The
    body has one argument of the input type and yields one value of the same
    type. Lowering unrolls it: each GEMM gets its layer index.

    ```mlir
    %y = tshape.repeat %x layers = 32 : tensor<4x2048x2560xbf16> {
    ^bb0(%in: tensor<4x2048x2560xbf16>):
      %b = tshape.block sequential %in : tensor<4x2048x2560xbf16> { ... }
      tshape.yield %b : tensor<4x2048x2560xbf16>
    }
    ```
  }];
  let arguments = (ins TShape_Activations:$input, I64Attr:$layers);
  let results = (outs TShape_Activations:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $input `layers` `=` $layers attr-dict `:` type($input) $body
  }];
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    OpBuilder<(ins "::mlir::Value":$input, "int64_t":$layers)>
  ];
}

def TShape_YieldOp : TShape_Op<"yield", [
    Pure, Terminator, ReturnLike, ParentOneOf<["BlockOp", "RepeatOp"]>]> {
  let summary = "yield the results of a block or repeat body";
  let description = [{
    Terminates the body of `tshape.block` and `tshape.repeat`.

    ```mlir
    tshape.yield %m : tensor<4x2048x2560xbf16>
    ```
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
}

#endif // TSHAPE_OPS_TD
