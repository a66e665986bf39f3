// RUN: tshape-opt %s -split-input-file -verify-diagnostics
// One case per numbered window rule of tshape.attention (docs/dialect.md).

// W1: a window is positive.
func.func @w1(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule W1: window 0 is not positive: a windowed layer's query sees the last `window` keys; give a positive window, or none for full attention}}
  %0 = tshape.attention %x heads = 4 kv_heads = 4 causal window = 0 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// W2: chunked attention needs a window (the chunk size).
func.func @w2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule W2: chunked attention needs a window (the chunk size); give window = C, or drop chunked}}
  %0 = tshape.attention %x heads = 4 kv_heads = 4 causal chunked : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// W3: a window is the keys up to the query's own, so it needs causal.
func.func @w3(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule W3: window 4 on a non-causal attention: a window is the keys up to a query's own; make it causal or drop the window}}
  %0 = tshape.attention %x heads = 4 kv_heads = 4 window = 4 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}
