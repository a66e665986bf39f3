// A block that exists only in the tests (test/lib/TestBlock), added by the
// steps of docs/architecture.md "Adding a block" alone: its block file
// (TestBlockModel.cpp: one GEMM test_proj, (b*s x h).(h x h)), its op
// (tshape_test.proj, with the block op interface), its lowering file and its
// registered rows. Nothing else in tshape names it, and yet it verifies in a
// tshape.block, reads into the model, lowers, matches its block model, and
// the analysis traces its GEMM to the hidden size.
// RUN: tshape-opt %s | tshape-opt | FileCheck %s --check-prefix=ROUND
// RUN: tshape-opt %s --tshape-test-gemm-consistency -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: tshape-opt %s --tshape-test-gemm-consistency="phase=train" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: tshape-opt %s --tshape-lower-to-linalg --tshape-gemm-analysis="target=h100-sxm remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=ANALYSIS

// ROUND: tshape_test.proj %{{.*}} : tensor<2x64x770xbf16> -> tensor<2x64x770xbf16>

// Per layer: qkv, score, value, out (4), up, down (2), test_proj (1) = 7
// forward GEMMs; 3 layers + logits: 22. Training: each x 3: 66.
// FWD: remark: tshape-test-gemm-consistency: 22 kernels, 22 contractions match the model
// TRAIN: remark: tshape-test-gemm-consistency: 66 kernels, 66 contractions match the model

// The projection is (b*s x h).(h x h) = 128x770x770: its N and K are traced
// to the hidden size (770 is not a multiple of 8 bf16 elements).
// ANALYSIS: test_proj GEMM of layers 0..2 (x3) (1 x 128x770x770, bf16) on h100-sxm
// ANALYSIS-SAME: K = 770 (hidden) is not a multiple of 8 (bf16, 16 bytes)
// ANALYSIS-SAME: N = 770 (hidden) is not a multiple of 8 (bf16, 16 bytes)
func.func @with_test_block(%t: tensor<2x64xi32>) -> tensor<2x64x1024xbf16> {
  %x = tshape.embedding %t vocab = 1024 : tensor<2x64xi32> -> tensor<2x64x770xbf16>
  %y = tshape.repeat %x layers = 3 : tensor<2x64x770xbf16> {
  ^bb0(%a: tensor<2x64x770xbf16>):
    %b = tshape.block sequential %a : tensor<2x64x770xbf16> {
    ^bb0(%c: tensor<2x64x770xbf16>):
      %d = tshape.attention %c heads = 10 kv_heads = 10 causal : tensor<2x64x770xbf16> -> tensor<2x64x770xbf16>
      %e = tshape.mlp %d inner = 3080 activation = gelu : tensor<2x64x770xbf16> -> tensor<2x64x770xbf16>
      %f = tshape_test.proj %e : tensor<2x64x770xbf16> -> tensor<2x64x770xbf16>
      tshape.yield %f : tensor<2x64x770xbf16>
    }
    tshape.yield %b : tensor<2x64x770xbf16>
  }
  %z = tshape.lm_head %y vocab = 1024 : tensor<2x64x770xbf16> -> tensor<2x64x1024xbf16>
  return %z : tensor<2x64x1024xbf16>
}

