// Two blocks with different sub-layers (attention + MLP, then attention +
// MLP + MLP): a heterogeneous stack of two one-layer segments.
func.func @mixed_blocks(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  %b0 = tshape.block sequential %x : tensor<1x8x64xbf16> {
  ^bb0(%in: tensor<1x8x64xbf16>):
    %a = tshape.attention %in heads = 4 kv_heads = 4 : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %m = tshape.mlp %a inner = 128 activation = gelu : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    tshape.yield %m : tensor<1x8x64xbf16>
  }
  %b1 = tshape.block sequential %b0 : tensor<1x8x64xbf16> {
  ^bb0(%in: tensor<1x8x64xbf16>):
    %a = tshape.attention %in heads = 4 kv_heads = 4 : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %m = tshape.mlp %a inner = 128 activation = gelu : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %n = tshape.mlp %m inner = 128 activation = gelu : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    tshape.yield %n : tensor<1x8x64xbf16>
  }
  return %b1 : tensor<1x8x64xbf16>
}
