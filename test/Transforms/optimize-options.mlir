// RUN: tshape-opt %s -split-input-file --tshape-optimize-shapes="target=h100-sxm" -mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s
// RUN: tshape-opt %s -split-input-file --tshape-optimize-shapes="target=h100-sxm vary=vocab param-tolerance=0" -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s --check-prefix=NOBUDGET
// RUN: tshape-opt %s -split-input-file --tshape-optimize-shapes="target=h100-sxm" 2>/dev/null | python3 -c "import re, sys; ir = sys.stdin.read(); v = int(re.search(r'embedding %%\w+ vocab = (\d+)', ir).group(1)); a = int(re.search(r'heads = (\d+)', ir).group(1)); print('vocab', v, 'mod 512 =', v %% 512, 'heads', a, 'mod 8 =', a %% 8)" | FileCheck %s --check-prefix=DIV
// DIV: vocab {{[0-9]+}} mod 512 = 0 heads {{[0-9]+}} mod 8 = 0

// Tensor parallelism t = 8: per rank the vocab is v/8, so the search pads v
// to a multiple of 64 x 8 = 512 (candidates 50688 = 512 x 99 ... 54272 =
// 512 x 106; it takes the best for waves, 52224 = 512 x 102: 6528 per rank),
// and any head count it picks stays divisible by 8 (DIV checks both).
// CHECK-LABEL: func.func @tp8
// CHECK: tshape.embedding %{{.*}} vocab = 52224
// CHECK: tshape.lm_head %{{.*}} vocab = 52224
// With param-tolerance=0 nothing may grow: the model is kept.
// NOBUDGET-LABEL: func.func @tp8
// NOBUDGET: remark: tshape-optimize-shapes on h100-sxm: {{.*}} kept
// NOBUDGET: tshape.embedding %{{.*}} vocab = 50264
func.func @tp8(%t: tensor<4x2048xi32>) -> tensor<4x2048x50264xbf16>
    attributes {tshape.parallel = #tshape.parallel<tp = 8>} {
  %x = tshape.embedding %t vocab = 50264 : tensor<4x2048xi32> -> tensor<4x2048x4096xbf16>
  %y = tshape.repeat %x layers = 4 : tensor<4x2048x4096xbf16> {
  ^bb0(%in: tensor<4x2048x4096xbf16>):
    %b = tshape.block sequential %in : tensor<4x2048x4096xbf16> {
    ^bb0(%h: tensor<4x2048x4096xbf16>):
      %a = tshape.attention %h heads = 32 kv_heads = 32 causal : tensor<4x2048x4096xbf16> -> tensor<4x2048x4096xbf16>
      %m = tshape.mlp %a inner = 16384 activation = gelu : tensor<4x2048x4096xbf16> -> tensor<4x2048x4096xbf16>
      tshape.yield %m : tensor<4x2048x4096xbf16>
    }
    tshape.yield %b : tensor<4x2048x4096xbf16>
  }
  %l = tshape.lm_head %y vocab = 50264 : tensor<4x2048x4096xbf16> -> tensor<4x2048x50264xbf16>
  return %l : tensor<4x2048x50264xbf16>
}

// -----

// GQA keeps its group ratio (32/8 = 4 query heads per kv head) unless
// kv_heads is in vary: heads and kv_heads change together or not at all.
// CHECK-LABEL: func.func @gqa
// CHECK: tshape.attention %{{.*}} heads = [[A:[0-9]+]] kv_heads = [[G:[0-9]+]]
func.func @gqa(%x: tensor<1x4096x4096xbf16>) -> tensor<1x4096x4096xbf16> {
  %b = tshape.block sequential %x : tensor<1x4096x4096xbf16> {
  ^bb0(%h: tensor<1x4096x4096xbf16>):
    %a = tshape.attention %h heads = 32 kv_heads = 8 causal : tensor<1x4096x4096xbf16> -> tensor<1x4096x4096xbf16>
    %m = tshape.mlp %a inner = 14336 activation = silu gated : tensor<1x4096x4096xbf16> -> tensor<1x4096x4096xbf16>
    tshape.yield %m : tensor<1x4096x4096xbf16>
  }
  return %b : tensor<1x4096x4096xbf16>
}
