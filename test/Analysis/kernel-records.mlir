// The analysis record is the kernel, and lowered IR is read back into
// kernels: the kernels no op of a block's lowering computes (here the
// tensor-parallel all-reduces) travel as tshape.kernels on the op the
// block ends with, and tshape-gemm-analysis lists them beside the GEMMs,
// as `tshape advise` does on the model path (test/Advise/same-as-passes.test
// compares the two at tp = 2).
// RUN: tshape-opt %s --tshape-lower-to-linalg | FileCheck %s --check-prefix=IR
// RUN: tshape-opt %s --tshape-lower-to-linalg | tshape-opt --tshape-gemm-analysis="target=h100-sxm remarks=all report=%t.json" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s --check-prefix=JSON < %t.json

// A 2-layer model at tp = 2, b = 2, s = 16, h = 512: the embedding's
// output and each layer's attention and MLP outputs are all-reduced over
// the 2 ranks, 1 + 2 x 2 = 5 all-reduces of b x s x h x 2 bytes = 2 x 16
// x 512 x 2 = 32,768 bytes each.
// IR: tshape.kernels = [{flags = {backward = false}, kind = "collective", layer = -1 : i64, params = {hidden = 512 : i64, microbatch = 2 : i64, seq = 16 : i64, tp = 2 : i64, vocab = 1000 : i64}, role = "tp_leave", sizes = {bytes = "microbatch*seq*hidden*2", ranks = "tp"}, words = {op = "all_reduce", tier = "node"}}]
// IR-COUNT-4: tshape.kernels = [{flags = {backward = false}, kind = "collective", layer = {{[01]}} : i64
// IR-NOT: tshape.kernels
// A collective is a cluster's to price (the step model's and the serving
// report's): listed here, at 0 us, with what it moves.
// REMARK: remark: all_reduce kernel (x5) (2 x 0x32768x0, bf16) on h100-sxm: all_reduce of 32768 bytes over 2 ranks: communication, priced on a cluster by the step model and the serving report, not by this analysis; not predicted
// JSON: "name": "all_reduce",
// JSON-NEXT: "layer": -1,
// JSON: "group": "other",
// JSON-NEXT: "kind": "collective",
// JSON-NEXT: "batch": 2,
// JSON-NEXT: "m": 0,
// JSON-NEXT: "n": 32768,
// JSON: "bound": "communication",
// JSON-NEXT: "predicted_us": 0,
func.func @tp2(%t: tensor<2x16xi32>) -> tensor<2x16x1000xbf16> attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  %x = tshape.embedding %t vocab = 1000 : tensor<2x16xi32> -> tensor<2x16x512xbf16>
  %y = tshape.repeat %x layers = 2 : tensor<2x16x512xbf16> {
  ^bb0(%a: tensor<2x16x512xbf16>):
    %b = tshape.block sequential %a : tensor<2x16x512xbf16> {
    ^bb0(%c: tensor<2x16x512xbf16>):
      %d = tshape.attention %c heads = 8 kv_heads = 2 causal : tensor<2x16x512xbf16> -> tensor<2x16x512xbf16>
      %e = tshape.mlp %d inner = 1024 activation = gelu : tensor<2x16x512xbf16> -> tensor<2x16x512xbf16>
      tshape.yield %e : tensor<2x16x512xbf16>
    }
    tshape.yield %b : tensor<2x16x512xbf16>
  }
  %z = tshape.lm_head %y vocab = 1000 : tensor<2x16x512xbf16> -> tensor<2x16x1000xbf16>
  return %z : tensor<2x16x1000xbf16>
}
