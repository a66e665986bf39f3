// Gemma-style local and global layers: a repeat of 2 of a two-layer
// pattern, the first layer's attention with a sliding window of 4 (s = 16),
// the second's full.
func.func @local_global(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  %r = tshape.repeat %x layers = 2 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %b0 = tshape.block sequential %in : tensor<1x16x64xbf16> {
    ^bb0(%i0: tensor<1x16x64xbf16>):
      %a = tshape.attention %i0 heads = 4 kv_heads = 2 causal window = 4 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.mlp %a inner = 128 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    %b1 = tshape.block sequential %b0 : tensor<1x16x64xbf16> {
    ^bb0(%i1: tensor<1x16x64xbf16>):
      %a = tshape.attention %i1 heads = 4 kv_heads = 2 causal : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      %m = tshape.mlp %a inner = 128 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
      tshape.yield %m : tensor<1x16x64xbf16>
    }
    tshape.yield %b1 : tensor<1x16x64xbf16>
  }
  return %r : tensor<1x16x64xbf16>
}
