// RUN: tshape-opt %s -split-input-file -verify-diagnostics
// One case per numbered rule of tshape.moe (docs/dialect.md).

// S1: experts, topk and the expert inner size are positive.
func.func @s1_experts(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule S1: experts must be positive, got 0}}
  %0 = tshape.moe %x experts = 0 topk = 1 inner = 128 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// E1: experts are divisible by the expert-parallel degree.
func.func @e1(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 1, ep = 3, dp = 3>} {
  // expected-error @+1 {{rule E1: experts 8 is not divisible by expert-parallel degree 3; use experts 6 or 9, or ep dividing 8}}
  %0 = tshape.moe %x experts = 8 topk = 2 inner = 128 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// E2: a token is routed to at most every expert.
func.func @e2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule E2: topk 9 exceeds experts 8: a token is routed to at most every expert; use topk <= 8}}
  %0 = tshape.moe %x experts = 8 topk = 9 inner = 128 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// E4: shared experts come with their inner size.
func.func @e4(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule E4: shared_experts 2 and shared_ffn 0: give both (shared experts and their inner size) or neither}}
  %0 = tshape.moe %x experts = 8 topk = 2 inner = 128 activation = silu gated shared_experts = 2 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// E5: the busiest expert carries at least the balanced load.
func.func @e5(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16> {
  // expected-error @+1 {{rule E5: capacity 80% is below the balanced load}}
  %0 = tshape.moe %x experts = 8 topk = 2 inner = 128 activation = silu gated capacity = 80 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// M2: an expert's inner size is divisible by tp.
func.func @m2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  // expected-error @+1 {{rule M2: moe_ffn 129 is not divisible by tensor-parallel degree 2; use moe_ffn 128 or 130, or tp dividing 129}}
  %0 = tshape.moe %x experts = 8 topk = 2 inner = 129 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// M3: a shared expert's inner size is divisible by tp.
func.func @m3(%x: tensor<1x16x64xbf16>) -> tensor<1x16x64xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  // expected-error @+1 {{rule M3: shared_ffn 99 is not divisible by tensor-parallel degree 2}}
  %0 = tshape.moe %x experts = 8 topk = 2 inner = 128 activation = silu gated shared_experts = 1 shared_inner = 99 : tensor<1x16x64xbf16> -> tensor<1x16x64xbf16>
  return %0 : tensor<1x16x64xbf16>
}

// -----

// T2: the result keeps the input type.
func.func @t2(%x: tensor<1x16x64xbf16>) -> tensor<1x16x32xbf16> {
  // expected-error @+1 {{rule T2: result type}}
  %0 = tshape.moe %x experts = 8 topk = 2 inner = 128 activation = silu gated : tensor<1x16x64xbf16> -> tensor<1x16x32xbf16>
  return %0 : tensor<1x16x32xbf16>
}
