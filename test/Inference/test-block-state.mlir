// A recurrent block reaches the serving report by its rows alone: the test
// block test_scan (test/lib/TestBlock) states one chunked scan kernel
// (ScanSpec) and a fixed fp32 state per sequence, and nothing in the cost
// model, the report or the findings names it.
// RUN: tshape-opt %s --tshape-inference-report="target=h100-sxm report=%t.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: tshape-opt %s --tshape-inference-report="target=h100-sxm report=-" -o /dev/null 2>&1 | FileCheck %s --check-prefix=MD

// By hand, h = 770, 3 layers, 10 heads and 5 kv heads of head_dim 77, bf16,
// batch 2, a decode step at kv length 65:
//   the attention's K and V per key: 2 x 5 x 77 = 770 elements x 2 bytes
//     = 1,540 bytes a layer, 4,620 bytes (4.5 KiB, printed 5) a token;
//   the scan's state: 2 heads x 16 x 770 x 4 bytes = 98,560 bytes a layer,
//     295,680 bytes (288.75 KiB, printed 289) a sequence, whatever its
//     length;
//   a sequence at 65 keys: 65 x 4,620 + 295,680 = 595,980 bytes.
// JSON: "kv_cache_bytes_per_token": 4620,
// JSON: "kv_cache_bytes_per_sequence": 595980,
// The scan of one token per sequence: 2 sequences x 2 heads, one chunk of
// q = 1: FLOPs 4 x (2 q^2 (16 + 770) + 4 q 16 x 770) = 4 x 50,852 =
// 203,408; bytes 4 x 2 (16 + 770) x 2 (the token's keys, queries, values,
// output) + 4 x 2 x 16 x 770 x 4 (the state read and written) = 12,576 +
// 394,240 = 406,816: 0.5 FLOP a byte, and a launch outlasts it.
// JSON: "name": "scan",
// JSON-NEXT: "kind": "scan",
// JSON-NEXT: "count": 3,
// JSON-NEXT: "batch": 4,
// JSON-NEXT: "m": 1,
// JSON-NEXT: "n": 770,
// JSON-NEXT: "k": 16,
// JSON: "flops": 203408,
// JSON-NEXT: "regime": "launch",
// JSON-NEXT: "intensity": 0.5{{$}}
// MD: | scan | 3 | 4 | 1 | 770 | 16 | {{[0-9.]+}} | launch | 0.5 |
// MD: - kv-cache (kv_heads): KV cache: 5 KiB per token per GPU (3 layers x 2 x 5 kv_heads x 77 head_dim x 2 bytes)
// MD-SAME: ; and 289 KiB per sequence of fixed state (3 layers x 2 heads x 16 x 770 hidden x 4 bytes)
func.func @with_state(%t: tensor<2x1xi32>) -> tensor<2x1x1024xbf16> attributes {tshape.run = #tshape.run<decode, kv_length = 65>} {
  %x = tshape.embedding %t vocab = 1024 : tensor<2x1xi32> -> tensor<2x1x770xbf16>
  %y = tshape.repeat %x layers = 3 : tensor<2x1x770xbf16> {
  ^bb0(%a: tensor<2x1x770xbf16>):
    %b = tshape.block sequential %a : tensor<2x1x770xbf16> {
    ^bb0(%c: tensor<2x1x770xbf16>):
      %d = tshape.attention %c heads = 10 kv_heads = 5 causal fused : tensor<2x1x770xbf16> -> tensor<2x1x770xbf16>
      %e = tshape.mlp %d inner = 3080 activation = gelu : tensor<2x1x770xbf16> -> tensor<2x1x770xbf16>
      %f = tshape_test.scan %e : tensor<2x1x770xbf16> -> tensor<2x1x770xbf16>
      tshape.yield %f : tensor<2x1x770xbf16>
    }
    tshape.yield %b : tensor<2x1x770xbf16>
  }
  %z = tshape.lm_head %y vocab = 1024 : tensor<2x1x770xbf16> -> tensor<2x1x1024xbf16>
  return %z : tensor<2x1x1024xbf16>
}
