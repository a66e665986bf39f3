// A block's state reaches the serving report by its row alone: the test
// block (test/lib/TestBlock) states a fixed state of h fp32 elements per
// sequence beside its GEMM, and nothing in the cost model names it.
// RUN: tshape-opt %s --tshape-inference-report="target=h100-sxm report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: tshape-opt %s --tshape-inference-report="target=h100-sxm report=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MD

// By hand, h = 770, 3 layers, 10 heads and 5 kv heads of head_dim 77, bf16:
//   the attention's K and V per key: 2 x 5 x 77 = 770 elements x 2 bytes
//     = 1,540 bytes a layer, 4,620 bytes (4.5 KiB, printed 5) a token;
//   the test block's state: 770 x 4 bytes = 3,080 bytes a layer, 9,240
//     bytes (9.0 KiB) a sequence, whatever its length;
//   a sequence at kv length 65: 65 x 4,620 + 9,240 = 309,540 bytes.
// JSON: "kv_cache_bytes_per_token": 4620,
// JSON: "kv_cache_bytes_per_sequence": 309540,
// MD: - kv-cache (kv_heads): KV cache: 5 KiB per token per GPU (3 layers x 2 x 5 kv_heads x 77 head_dim x 2 bytes)
// MD-SAME: ; and 9 KiB per sequence of fixed state (3 layers x 770 hidden x 4 bytes)
func.func @with_state(%t: tensor<2x1xi32>) -> tensor<2x1x1024xbf16> attributes {tshape.run = #tshape.run<decode, kv_length = 65>} {
  %x = tshape.embedding %t vocab = 1024 : tensor<2x1xi32> -> tensor<2x1x770xbf16>
  %y = tshape.repeat %x layers = 3 : tensor<2x1x770xbf16> {
  ^bb0(%a: tensor<2x1x770xbf16>):
    %b = tshape.block sequential %a : tensor<2x1x770xbf16> {
    ^bb0(%c: tensor<2x1x770xbf16>):
      %d = tshape.attention %c heads = 10 kv_heads = 5 causal fused : tensor<2x1x770xbf16> -> tensor<2x1x770xbf16>
      %e = tshape.mlp %d inner = 3080 activation = gelu : tensor<2x1x770xbf16> -> tensor<2x1x770xbf16>
      %f = tshape_test.proj %e : tensor<2x1x770xbf16> -> tensor<2x1x770xbf16>
      tshape.yield %f : tensor<2x1x770xbf16>
    }
    tshape.yield %b : tensor<2x1x770xbf16>
  }
  %z = tshape.lm_head %y vocab = 1024 : tensor<2x1x770xbf16> -> tensor<2x1x1024xbf16>
  return %z : tensor<2x1x1024xbf16>
}
