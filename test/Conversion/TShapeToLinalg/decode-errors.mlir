// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg -verify-diagnostics -o /dev/null
// The run's queries must fit its keys and, for a decode step, the IR's
// sequence (whose last 1 + draft tokens the step computes).

// expected-error @+1 {{phase prefill kv_length=4: the kv length 4 is shorter than the 8 query tokens per sequence of the step; give kv_length >= 8 (the cached tokens plus the step's)}}
func.func @short_keys(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> attributes {tshape.run = #tshape.run<prefill, kv_length = 4>} {
  %y = tshape.mlp %x inner = 256 activation = gelu : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %y : tensor<1x8x64xbf16>
}

// -----

// expected-error @+1 {{phase decode kv_length=16 draft=3: the step's 4 query tokens per sequence exceed the IR's sequence of 2; import with --phase=decode (s = 1 + draft) or lower fewer draft tokens}}
func.func @drafts(%x: tensor<1x2x64xbf16>) -> tensor<1x2x64xbf16> attributes {tshape.run = #tshape.run<decode, kv_length = 16, draft = 3>} {
  %y = tshape.mlp %x inner = 256 activation = gelu : tensor<1x2x64xbf16> -> tensor<1x2x64xbf16>
  return %y : tensor<1x2x64xbf16>
}
