// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg -verify-diagnostics

// The tshape ops of a function share one element type and batch x seq.
func.func @mixed(%x: tensor<1x16x64xbf16>, %y: tensor<1x16x64xf16>) -> (tensor<1x16x64xbf16>, tensor<1x16x64xf16>) {
  %a = tshape.mlp %x inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  // expected-error @+1 {{result 'tensor<1x16x64xf16>' does not share the element type 'bf16' and batch x seq 1x16 of the function's other tshape ops}}
  %b = tshape.mlp %y inner = 256 activation = gelu : tensor<1x16x64xf16> -> tensor<1x16x64xf16>
  return %a, %b : tensor<1x16x64xbf16>, tensor<1x16x64xf16>
}

// -----

// A layer count past max-layers (default 4096) is refused, not unrolled
// until memory runs out.
func.func @too_many(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{unrolling 1000000000 layers after 0 would exceed max-layers=4096; raise the option if this is intended}}
  %0 = tshape.repeat %x layers = 1000000000 : tensor<1x16x64xbf16> {
  ^bb0(%in: tensor<1x16x64xbf16>):
    %m = tshape.mlp %in inner = 256 activation = gelu : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
    tshape.yield %m : tensor<1x16x64xbf16>
  }
  return %0 : tensor<1x16x64xbf16>
}

// -----

// tshape ops must sit in a function to be lowered.
module {
  %t = arith.constant dense<1> : tensor<1x4xi32>
  // expected-error @+1 {{must be inside a func.func to be lowered}}
  %0 = tshape.embedding %t vocab = 8 : tensor<1x4xi32> -> tensor<1x4x8xbf16>
}
