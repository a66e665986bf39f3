// The shape search reads one model per function (extractModelConfig, through
// the block op interface): ops of one group must agree, and a model needs an
// attention and an MLP.
// RUN: not tshape-opt %s -split-input-file --tshape-optimize-shapes 2>&1 | FileCheck %s

// Two MLP inner sizes.
// CHECK: error: tshape-optimize-shapes: the function's layers are not all the same shape (MLP ops differ); shape search needs one layer configuration
func.func @mlp_inner(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %n = tshape.mlp %m inner = 8192 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %n : tensor<1x512x2560xbf16>
}

// -----

// A gated and a plain MLP.
// CHECK: error: tshape-optimize-shapes: the function's layers are not all the same shape (MLP ops differ)
func.func @mlp_gated(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %n = tshape.mlp %m inner = 10240 activation = gelu gated : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %n : tensor<1x512x2560xbf16>
}

// -----

// A causal and a bidirectional attention: the config has one causal flag.
// CHECK: error: tshape-optimize-shapes: the function's layers are not all the same shape (attention ops differ)
func.func @attention_causal(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 causal : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %b = tshape.attention %a heads = 32 kv_heads = 32 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %m = tshape.mlp %b inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %m : tensor<1x512x2560xbf16>
}

// -----

// The embedding and the LM head state the vocabulary; they must agree.
// CHECK: error: tshape-optimize-shapes: the function's layers are not all the same shape (vocabularies differ)
func.func @vocab(%t: tensor<1x512xi32>) -> tensor<1x512x1024xbf16> {
  %x = tshape.embedding %t vocab = 1000 : tensor<1x512xi32> -> tensor<1x512x2560xbf16>
  %a = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %m = tshape.mlp %a inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  %l = tshape.lm_head %m vocab = 1024 : tensor<1x512x2560xbf16> -> tensor<1x512x1024xbf16>
  return %l : tensor<1x512x1024xbf16>
}

// -----

// An attention alone is not a model...
// CHECK: error: tshape-optimize-shapes: the function needs a tshape.attention (or tshape.mla) and a tshape.mlp
func.func @attention_only(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %a : tensor<1x512x2560xbf16>
}

// -----

// ...nor is an MLP alone.
// CHECK: error: tshape-optimize-shapes: the function needs a tshape.attention (or tshape.mla) and a tshape.mlp
func.func @mlp_only(%x: tensor<1x512x2560xbf16>) -> tensor<1x512x2560xbf16> {
  %m = tshape.mlp %x inner = 10240 activation = gelu : tensor<1x512x2560xbf16> -> tensor<1x512x2560xbf16>
  return %m : tensor<1x512x2560xbf16>
}
