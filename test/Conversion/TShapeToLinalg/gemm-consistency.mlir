// RUN: tshape-opt %s -split-input-file --tshape-test-gemm-consistency -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FWD
// RUN: tshape-opt %s -split-input-file --tshape-test-gemm-consistency="phase=train fuse-gated-mlp=true" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=TRAIN
// RUN: tshape-opt %s -split-input-file --tshape-test-gemm-consistency="phase=train" | FileCheck %s --check-prefix=IR
// The test pass needs one uniform model per function, and says so.
// RUN: not tshape-opt %S/Inputs/mixed-layers.mlir --tshape-test-gemm-consistency -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=MIXED
// MIXED: error: tshape-test-gemm-consistency: the function's layers are not all the same shape
// Blocks that hold different sub-layers are a heterogeneous stack
// (ModelConfig::stack): 6 kernels, then 6 + 2 (the second MLP's up and down).
// RUN: tshape-opt %S/Inputs/mixed-blocks.mlir --tshape-test-gemm-consistency -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=BLOCKS
// BLOCKS: remark: tshape-test-gemm-consistency: 14 kernels, 14 contractions match the model

// A 2-layer GQA model with a gated MLP at t = 2 (a = 8, g = 2, d = 64,
// f = 1024, v = 1000). Forward: per layer qkv, score, value, out, gate, up,
// down = 7, x 2 layers + logits = 15. Training with fused gate/up: per layer
// 6 forward + 12 backward = 18, x 2 + logits x 3 = 39.
// FWD: remark: tshape-test-gemm-consistency: 15 kernels, 15 contractions match the model
// TRAIN: remark: tshape-test-gemm-consistency: 39 kernels, 39 contractions match the model

// Each GEMM carries its sizes as expressions over the named parameters:
// qkv N = (a/t + 2 max(1, floor(g/t))) d = (4 + 2) x 64 = 384 per rank.
// IR: tshape.role = "qkv", tshape.sizes = {k = "hidden", m = "microbatch*seq", n = "(heads/tp+2*max(1,floordiv(kv_heads,tp)))*(hidden/heads)", params = {heads = 8 : i64, hidden = 512 : i64, kv_heads = 2 : i64, microbatch = 2 : i64, seq = 16 : i64, tp = 2 : i64}}} {{.*}} tensor<384x512xbf16>
// IR: tshape.role = "attn_score", tshape.sizes = {batch = "microbatch*(heads/tp)", k = "hidden/heads", m = "seq", n = "seq"
// IR: tshape.role = "mlp_down_wgrad", tshape.sizes = {k = "microbatch*seq", m = "ffn/tp", n = "hidden"
func.func @gqa(%t: tensor<2x16xi32>) -> tensor<2x16x1000xbf16> attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  %x = tshape.embedding %t vocab = 1000 : tensor<2x16xi32> -> tensor<2x16x512xbf16>
  %y = tshape.repeat %x layers = 2 : tensor<2x16x512xbf16> {
  ^bb0(%a: tensor<2x16x512xbf16>):
    %b = tshape.block sequential %a : tensor<2x16x512xbf16> {
    ^bb0(%c: tensor<2x16x512xbf16>):
      %d = tshape.attention %c heads = 8 kv_heads = 2 causal : tensor<2x16x512xbf16> -> tensor<2x16x512xbf16>
      %e = tshape.mlp %d inner = 1024 activation = silu gated : tensor<2x16x512xbf16> -> tensor<2x16x512xbf16>
      tshape.yield %e : tensor<2x16x512xbf16>
    }
    tshape.yield %b : tensor<2x16x512xbf16>
  }
  %z = tshape.lm_head %y vocab = 1000 : tensor<2x16x512xbf16> -> tensor<2x16x1000xbf16>
  return %z : tensor<2x16x1000xbf16>
}

// -----

// Fused attention is one kernel: 2 layers x (qkv, attention, out, up, down)
// + logits = 11 kernels; the attention lowers to its score and value GEMMs,
// so 2 x 6 + 1 = 13 contractions, the score one carrying the kernel (heads
// a/t = 4, kv heads max(1, floor(1/2)) = 1, d = 256/8 = 32). Training: per
// layer 5 forward + 4 x 2 GEMM gradients + the attention's backward kernel
// = 14, x 2 + logits x 3 = 31 kernels; the backward kernel lowers to its
// four gradient GEMMs (dP, dV, dQ, dK), the first carrying it, so
// 2 x (6 + 12) + 3 = 39 contractions.
// FWD: remark: tshape-test-gemm-consistency: 11 kernels, 13 contractions match the model
// TRAIN: remark: tshape-test-gemm-consistency: 31 kernels, 39 contractions match the model
// IR-LABEL: func.func @fused
// IR: tshape.attention = {batch = "microbatch", causal, head_dim = "hidden/heads", heads = "heads/tp", kv_heads = "max(1,floordiv(kv_heads,tp))", kv_len = "seq", q_len = "seq", v_head_dim = "hidden/heads", window = "0"}, tshape.fused_attention = 0 : i64, tshape.layer = 0 : i64, tshape.role = "attn_score"
func.func @fused(%t: tensor<1x64xi32>) -> tensor<1x64x512xbf16> attributes {tshape.parallel = #tshape.parallel<tp = 2>} {
  %x = tshape.embedding %t vocab = 512 : tensor<1x64xi32> -> tensor<1x64x256xbf16>
  %y = tshape.repeat %x layers = 2 : tensor<1x64x256xbf16> {
  ^bb0(%a: tensor<1x64x256xbf16>):
    %b = tshape.block sequential %a : tensor<1x64x256xbf16> {
    ^bb0(%c: tensor<1x64x256xbf16>):
      %d = tshape.attention %c heads = 8 kv_heads = 1 causal fused : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      %e = tshape.mlp %d inner = 1024 activation = gelu : tensor<1x64x256xbf16> -> tensor<1x64x256xbf16>
      tshape.yield %e : tensor<1x64x256xbf16>
    }
    tshape.yield %b : tensor<1x64x256xbf16>
  }
  %z = tshape.lm_head %y vocab = 512 : tensor<1x64x256xbf16> -> tensor<1x64x512xbf16>
  return %z : tensor<1x64x512xbf16>
}

// -----

// A block of three sub-layers (rule B1 allows any number): attention, then
// two MLPs, each reading the previous result. Per layer 4 + 2 + 2 = 8
// forward GEMMs (x 3 in training), 2 layers + logits: 17 forward, 51 in
// training; the model's layer is the block's sub-layers in order.
// FWD: remark: tshape-test-gemm-consistency: 17 kernels, 17 contractions match the model
// TRAIN: remark: tshape-test-gemm-consistency: 51 kernels, 51 contractions match the model
func.func @three_sub_layers(%t: tensor<1x32xi32>) -> tensor<1x32x512xbf16> {
  %x = tshape.embedding %t vocab = 512 : tensor<1x32xi32> -> tensor<1x32x256xbf16>
  %y = tshape.repeat %x layers = 2 : tensor<1x32x256xbf16> {
  ^bb0(%a: tensor<1x32x256xbf16>):
    %b = tshape.block sequential %a : tensor<1x32x256xbf16> {
    ^bb0(%c: tensor<1x32x256xbf16>):
      %d = tshape.attention %c heads = 4 kv_heads = 4 causal : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
      %e = tshape.mlp %d inner = 1024 activation = gelu : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
      %f = tshape.mlp %e inner = 1024 activation = gelu : tensor<1x32x256xbf16> -> tensor<1x32x256xbf16>
      tshape.yield %f : tensor<1x32x256xbf16>
    }
    tshape.yield %b : tensor<1x32x256xbf16>
  }
  %z = tshape.lm_head %y vocab = 512 : tensor<1x32x256xbf16> -> tensor<1x32x512xbf16>
  return %z : tensor<1x32x512xbf16>
}
