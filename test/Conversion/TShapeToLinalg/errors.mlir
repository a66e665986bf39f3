// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg -verify-diagnostics

// The tshape ops of a function share one element type and batch x seq.
func.func @mixed(%x: tensor<1x16x64xbf16>, %y: tensor<1x16x64xf16>) -> (tensor<1x16x64xbf16>, tensor<1x16x64xf16>) {
  %a = tshape.mlp %x inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{result 'tensor<1x16x64xf16>' does not share the element type 'bf16' and batch x seq 1x16 of the function's other tshape ops}}
  %b = tshape.mlp %y inner = 256 activation = gelu : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
  return %a, %b : tensor<1x16x64xbf16>, tensor<1x16x64xf16>
}
