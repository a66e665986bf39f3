// Two attention layers of different head counts: not one model.
func.func @mixed(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  %a = tshape.attention %x heads = 4 kv_heads = 4 : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  %b = tshape.attention %a heads = 8 kv_heads = 8 : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  %m = tshape.mlp %b inner = 128 activation = gelu : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %m : tensor<1x8x64xbf16>
}
