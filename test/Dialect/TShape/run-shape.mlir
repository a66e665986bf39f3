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
  // CHECK: func.func @prefill() attributes {tshape.run = #tshape.run<prefill>}
  func.func @prefill() attributes {tshape.run = #tshape.run<prefill, kv_length = 0>} {
    return
  }
}
