// tshape-optimize-shapes rewrites the IR through the block op interface
// (BlockOpInterface::writeConfig): every op states the new shape, and the
// activations follow a new hidden size.
// RUN: tshape-opt %s --tshape-optimize-shapes="target=h100-sxm vary=hidden min-gain=0 param-tolerance=0.5" 2>/dev/null | FileCheck %s --check-prefix=HIDDEN
// RUN: tshape-opt %s --tshape-optimize-shapes="target=h100-sxm vary=head_dim,heads param-tolerance=0.5" 2>/dev/null | FileCheck %s --check-prefix=HEADDIM

// hidden 2550 -> 2520 (a multiple of 8 and of the 30 heads): the embedding,
// the repeat, the block, both sub-layers, their arguments, the head's input
// and the function's logits keep b x s; the hidden size changes everywhere.
// HIDDEN-LABEL: func.func @hidden
// HIDDEN: tshape.embedding %{{.*}} vocab = 32000 : tensor<4x2048xi32> -> tensor<4x2048x2520xbf16>
// HIDDEN: tshape.repeat %{{.*}} layers = 32 : tensor<4x2048x2520xbf16>
// HIDDEN: ^bb0(%{{.*}}: tensor<4x2048x2520xbf16>):
// HIDDEN: tshape.block sequential %{{.*}} : tensor<4x2048x2520xbf16>
// HIDDEN: ^bb0(%{{.*}}: tensor<4x2048x2520xbf16>):
// HIDDEN: tshape.attention %{{.*}} heads = 30 kv_heads = 30 causal : tensor<4x2048x2520xbf16> -> tensor<4x2048x2520xbf16>
// HIDDEN: tshape.mlp %{{.*}} inner = 10240 activation = gelu : tensor<4x2048x2520xbf16> -> tensor<4x2048x2520xbf16>
// HIDDEN: tshape.lm_head %{{.*}} vocab = 32000 : tensor<4x2048x2520xbf16> -> tensor<4x2048x32000xbf16>
// HIDDEN: return %{{.*}} : tensor<4x2048x32000xbf16>
func.func @hidden(%t: tensor<4x2048xi32>) -> tensor<4x2048x32000xbf16> {
  %x = tshape.embedding %t vocab = 32000 : tensor<4x2048xi32> -> tensor<4x2048x2550xbf16>
  %y = tshape.repeat %x layers = 32 : tensor<4x2048x2550xbf16> {
  ^bb0(%in: tensor<4x2048x2550xbf16>):
    %b = tshape.block sequential %in : tensor<4x2048x2550xbf16> {
    ^bb0(%h: tensor<4x2048x2550xbf16>):
      %a = tshape.attention %h heads = 30 kv_heads = 30 causal : tensor<4x2048x2550xbf16> -> tensor<4x2048x2550xbf16>
      %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<4x2048x2550xbf16> -> tensor<4x2048x2550xbf16>
      tshape.yield %m : tensor<4x2048x2550xbf16>
    }
    tshape.yield %b : tensor<4x2048x2550xbf16>
  }
  %l = tshape.lm_head %y vocab = 32000 : tensor<4x2048x2550xbf16> -> tensor<4x2048x32000xbf16>
  return %l : tensor<4x2048x32000xbf16>
}

// An explicit head_dim the search changes (80 -> 128, with heads 32 -> 16)
// is written back, as the remarks report it.
// HEADDIM-LABEL: func.func @head_dim
// HEADDIM: tshape.attention %{{.*}} heads = 16 kv_heads = 16 head_dim = 128 causal
func.func @head_dim(%x: tensor<4x2048x2560xbf16>) -> tensor<4x2048x2560xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 head_dim = 80 causal : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<4x2048x2560xbf16> -> tensor<4x2048x2560xbf16>
  return %m : tensor<4x2048x2560xbf16>
}
