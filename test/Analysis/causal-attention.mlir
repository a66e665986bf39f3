// A causal layer's fused attention does half the work: the lowering marks
// score GEMM with the attention kernel (tshape.attention, causal), and the
// analysis predicts that kernel over the blocks the mask leaves. Constants: the uncalibrated H100
// (Inputs/h100-sxm-uncalibrated.json: 0.8 x 989.4 = 791.52 TFLOP/s, 2 us,
// K/V tile traffic at one HBM read per 8 loads, 2-norm with the compute).
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg --tshape-gemm-analysis="target-file=%S/Inputs/h100-sxm-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | FileCheck %s --check-prefix=IR

// 32 heads of 2048 x 128 in blocks of 128: 16 query blocks. Causal: 16 x 17
// / 2 = 136 blocks of 4 x 128^2 x 128 = 8,388,608 FLOP; 32 x 136 x 8,388,608
// / 791.52e12 = 46.12 us (above the 35.4 us of bytes and the 22.4 us of the
// longest CTA). Each block loads its K and V tiles, 2 x 128 x 128 x 2 =
// 65,536 B, for each of the 32 kv heads, one HBM read per 8 loads:
// 136 x 32 x 65,536 / 8 B at 2847.5e9 B/s = 12.52 us, whose 2-norm with
// the compute is 47.79 us; + 2 = 49.8 us.
// CHECK: attn_score GEMM of layer 0 (32 x 2048x2048x128, bf16) on h100-sxm: predicted 49.8 us
// IR-LABEL: func.func @causal
// IR: {tshape.attention = {batch = "microbatch", causal, head_dim = "hidden/heads", heads = "heads/tp", kv_heads = "heads/tp", kv_len = "seq", q_len = "seq", v_head_dim = "hidden/heads", window = "0"}, tshape.fused_attention = 0 : i64, tshape.layer = 0 : i64, tshape.role = "attn_score"
func.func @causal(%x: tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 causal fused : tensor<1x2048x4096xbf16> -> tensor<1x2048x4096xbf16>
  return %a : tensor<1x2048x4096xbf16>
}

// -----

// Not causal: all 16 x 16 = 256 blocks: 32 x 256 x 8,388,608 / 791.52e12 =
// 86.82 us; K/V tiles 256 x 32 x 65,536 / 8 B = 23.57 us; 2-norm 89.96 us
// + 2 = 92.0 us.
// CHECK: attn_score GEMM of layer 0 (32 x 2048x2048x128, bf16) on h100-sxm: predicted 92.0 us
// IR-LABEL: func.func @full
// IR: {tshape.attention = {batch = "microbatch", head_dim
func.func @full(%x: tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16> {
  %a = tshape.attention %x heads = 32 kv_heads = 32 fused : tensor<1x2048x4096xbf16> -> tensor<1x2048x4096xbf16>
  return %a : tensor<1x2048x4096xbf16>
}

// A fused attention whose score GEMM carries no kernel (tshape.attention
// removed, as foreign or hand-edited IR may have it) runs as separate GEMMs:
// the score GEMM says why, and the value GEMM is priced too (it cost nothing
// before, though its group was not fused). The value GEMM, 32 x
// (2048x2048).(2048x128), reads and writes (32 x 2048 x 2048 + 2 x 32 x 2048
// x 128) x 2 = 301,989,888 bytes: memory-bound at 3.35 TB/s x 0.85, 106.05
// us + 2 us launch = 108.1 us.
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | sed 's/tshape.attention = {[^}]*}, //' | tshape-opt -split-input-file --tshape-gemm-analysis="target-file=%S/Inputs/h100-sxm-uncalibrated.json remarks=all" -mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOKERNEL
// NOKERNEL: attn_score GEMM of layer 0 (32 x 2048x2048x128, bf16) on h100-sxm: predicted {{.*}}; the fused attention carries no attention kernel; predicted as separate GEMMs
// NOKERNEL: attn_value GEMM of layer 0 (32 x 2048x128x2048, bf16) on h100-sxm: predicted 108.1 us
