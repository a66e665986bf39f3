// RUN: tshape-opt %s | tshape-opt | FileCheck %s
// A block holds one or more residual sub-layers (rule B1), chained when
// sequential and side by side when parallel (B3); each round-trips.

// One attention, then two MLPs, each reading the previous result.
// CHECK-LABEL: func.func @sequential_three
func.func @sequential_three(%x: tensor<2x128x256xbf16>) -> tensor<2x128x256xbf16> {
  // CHECK: tshape.block sequential %{{.*}} : tensor<2x128x256xbf16> {
  %y = tshape.block sequential %x : tensor<2x128x256xbf16> {
  ^bb0(%in: tensor<2x128x256xbf16>):
    // CHECK: %[[A:.*]] = tshape.attention %{{.*}} heads = 4 kv_heads = 4 causal
    %a = tshape.attention %in heads = 4 kv_heads = 4 causal
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    // CHECK: %[[M:.*]] = tshape.mlp %[[A]] inner = 1024 activation = gelu
    %m = tshape.mlp %a inner = 1024 activation = gelu
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    // CHECK: %[[N:.*]] = tshape.mlp %[[M]] inner = 512 activation = silu gated
    %n = tshape.mlp %m inner = 512 activation = silu gated
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    // CHECK: tshape.yield %[[N]] : tensor<2x128x256xbf16>
    tshape.yield %n : tensor<2x128x256xbf16>
  }
  return %y : tensor<2x128x256xbf16>
}

// Three branches on the block input, yielded in order.
// CHECK-LABEL: func.func @parallel_three
func.func @parallel_three(%x: tensor<2x128x256xbf16>) -> tensor<2x128x256xbf16> {
  // CHECK: tshape.block parallel %{{.*}} : tensor<2x128x256xbf16> {
  %y = tshape.block parallel %x : tensor<2x128x256xbf16> {
  ^bb0(%in: tensor<2x128x256xbf16>):
    // CHECK: %[[A:.*]] = tshape.attention %[[IN:[^ ]*]] heads = 4 kv_heads = 1
    %a = tshape.attention %in heads = 4 kv_heads = 1
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    // CHECK: %[[B:.*]] = tshape.attention %[[IN]] heads = 8 kv_heads = 8
    %b = tshape.attention %in heads = 8 kv_heads = 8
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    // CHECK: %[[M:.*]] = tshape.mlp %[[IN]] inner = 1024 activation = relu
    %m = tshape.mlp %in inner = 1024 activation = relu
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    // CHECK: tshape.yield %[[A]], %[[B]], %[[M]] : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>
    tshape.yield %a, %b, %m
        : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>, tensor<2x128x256xbf16>
  }
  return %y : tensor<2x128x256xbf16>
}

// A single sub-layer, of either kind, is a block; so is an MLP before the
// attention.
// CHECK-LABEL: func.func @one_and_reordered
func.func @one_and_reordered(%x: tensor<2x128x256xbf16>) -> tensor<2x128x256xbf16> {
  // CHECK: tshape.block sequential
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: tshape.attention
  // CHECK-NEXT: tshape.yield
  %y = tshape.block sequential %x : tensor<2x128x256xbf16> {
  ^bb0(%in: tensor<2x128x256xbf16>):
    %a = tshape.attention %in heads = 4 kv_heads = 4
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    tshape.yield %a : tensor<2x128x256xbf16>
  }
  // CHECK: tshape.block parallel
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: tshape.mlp
  // CHECK-NEXT: tshape.yield
  %z = tshape.block parallel %y : tensor<2x128x256xbf16> {
  ^bb0(%in: tensor<2x128x256xbf16>):
    %m = tshape.mlp %in inner = 1024 activation = gelu
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    tshape.yield %m : tensor<2x128x256xbf16>
  }
  // CHECK: tshape.block sequential
  // CHECK-NEXT: ^bb0
  // CHECK-NEXT: tshape.mlp
  // CHECK-NEXT: tshape.attention
  // CHECK-NEXT: tshape.yield
  %w = tshape.block sequential %z : tensor<2x128x256xbf16> {
  ^bb0(%in: tensor<2x128x256xbf16>):
    %m = tshape.mlp %in inner = 1024 activation = gelu
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    %a = tshape.attention %m heads = 4 kv_heads = 4
        : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
    tshape.yield %a : tensor<2x128x256xbf16>
  }
  return %w : tensor<2x128x256xbf16>
}
