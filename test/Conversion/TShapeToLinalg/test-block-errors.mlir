// Error paths of the test-only blocks (test/lib/TestBlock).
// A block with a model but no lowering (test_bare, registered without one)
// is refused at the op, standalone or inside a tshape.block.
// RUN: not tshape-opt %s -split-input-file --tshape-lower-to-linalg -o /dev/null 2>&1 | FileCheck %s --check-prefix=BARE
// BARE: error: 'tshape_test.bare' op block 'test_bare' has no lowering to linalg
// BARE: error: 'tshape_test.bare' op block 'test_bare' has no lowering to linalg

func.func @bare(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  %y = tshape_test.bare %x : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %y : tensor<1x8x64xbf16>
}

// -----

func.func @bare_in_block(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> {
  %b = tshape.block sequential %x : tensor<1x8x64xbf16> {
  ^bb0(%in: tensor<1x8x64xbf16>):
    %a = tshape.attention %in heads = 4 kv_heads = 4 : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    %y = tshape_test.bare %a : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
    tshape.yield %y : tensor<1x8x64xbf16>
  }
  return %b : tensor<1x8x64xbf16>
}

// -----

// The test op's own rule: one static batch x seq x hidden type in and out.
// RUN: tshape-opt %s -split-input-file -verify-diagnostics -o /dev/null
func.func @bad_proj(%x: tensor<1x8x64xbf16>) -> tensor<1x8x32xbf16> {
  // expected-error @+1 {{'tshape_test.proj' op input and result must be one static batch x seq x hidden type, got 'tensor<1x8x64xbf16>' -> 'tensor<1x8x32xbf16>'}}
  %y = tshape_test.proj %x : tensor<1x8x64xbf16> -> tensor<1x8x32xbf16>
  return %y : tensor<1x8x32xbf16>
}
