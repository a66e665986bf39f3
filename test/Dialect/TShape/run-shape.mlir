// RUN: tshape-opt %s | tshape-opt | FileCheck %s
// The run shape round-trips: the phase, and kv_length only when given.

// CHECK: module attributes {tshape.run = #tshape.run<decode, kv_length = 4096>}
module attributes {tshape.run = #tshape.run<decode, kv_length = 4096>} {
  // CHECK: func.func @train() attributes {tshape.run = #tshape.run<train>}
  func.func @train() attributes {tshape.run = #tshape.run<train>} {
    return
  }
  // Draft tokens and the KV cache's element type, printed in their order.
  // CHECK: func.func @spec() attributes {tshape.run = #tshape.run<decode, kv_length = 4100, draft = 3, kv_cache = "fp8">}
  func.func @spec() attributes {tshape.run = #tshape.run<decode, kv_cache = "fp8", draft = 3, kv_length = 4100>} {
    return
  }
  // The linear layers' precision (fp8, mxfp8), printed last.
  // CHECK: func.func @fp8() attributes {tshape.run = #tshape.run<train, precision = "fp8">}
  func.func @fp8() attributes {tshape.run = #tshape.run<train, precision = "fp8">} {
    return
  }
  // CHECK: func.func @mx() attributes {tshape.run = #tshape.run<decode, kv_length = 4097, precision = "mxfp8">}
  func.func @mx() attributes {tshape.run = #tshape.run<decode, precision = "mxfp8", kv_length = 4097>} {
    return
  }
  // Lowered IR's string form round-trips as written.
  // CHECK: func.func @lowered() attributes {tshape.run = "decode kv_length=4100 draft=3 kv_cache=fp8 precision=fp8"}
  func.func @lowered() attributes {tshape.run = "decode kv_length=4100 draft=3 kv_cache=fp8 precision=fp8"} {
    return
  }
  // CHECK: func.func @prefill() attributes {tshape.run = #tshape.run<prefill>}
  func.func @prefill() attributes {tshape.run = #tshape.run<prefill, kv_length = 0>} {
    return
  }
}
