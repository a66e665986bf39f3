// Every tshape pass counts what it did in MLIR pass statistics
// (--mlir-pass-statistics); the statistics report goes to stderr.
//
// RUN: rm -rf %t && split-file %s %t
// RUN: tshape-opt %t/gpt2.mlir --tshape-inference-report="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json" --tshape-lower-to-linalg --tshape-gemm-summary="output=%t/summary.md" --tshape-gemm-analysis="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json" --tshape-pad-gemms="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json" --mlir-pass-statistics --mlir-pass-statistics-display=list -mlir-print-op-on-diagnostic=false -o /dev/null 2> %t/main.txt
// RUN: tshape-opt %t/gpt2.mlir --tshape-optimize-shapes="target-file=%S/../Analysis/Inputs/h100-sxm-uncalibrated.json vary=vocab" --mlir-pass-statistics --mlir-pass-statistics-display=list -mlir-print-op-on-diagnostic=false -o /dev/null 2> %t/optimize.txt
// RUN: tshape-opt %t/tiny.mlir --tshape-lower-to-linalg --tshape-run-gemms="backend=cpu warmup=0 iters=1 check=true" --mlir-pass-statistics --mlir-pass-statistics-display=list -mlir-print-op-on-diagnostic=false -o /dev/null 2> %t/run.txt
// RUN: tshape-opt %t/tiny.mlir --tshape-lower-to-linalg | mlir-opt --one-shot-bufferize=bufferize-function-boundaries | tshape-opt --tshape-lower-linalg-to-runtime --mlir-pass-statistics --mlir-pass-statistics-display=list -mlir-print-op-on-diagnostic=false 2> %t/runtime.txt > %t/runtime.mlir
//
// The values are printed only where LLVM keeps statistics (an LLVM built
// with assertions, or with LLVM_FORCE_ENABLE_STATS): Debian's release
// LLVM compiles llvm::Statistic out, and MLIR then prints the report's
// header alone. So the header is checked everywhere, the values where the
// report has them, and the counted events where the IR or a remark shows
// them (below), which keeps the derivations checked on either LLVM.
// RUN: FileCheck %s --check-prefix=HEADER < %t/main.txt
// RUN: FileCheck %s --check-prefix=HEADER < %t/optimize.txt
// RUN: FileCheck %s --check-prefix=HEADER < %t/run.txt
// RUN: FileCheck %s --check-prefix=HEADER < %t/runtime.txt
// RUN: if grep -q '(S)' %t/main.txt; then FileCheck %s --check-prefix=STATS < %t/main.txt; fi
// RUN: if grep -q '(S)' %t/optimize.txt; then FileCheck %s --check-prefix=OPTSTATS < %t/optimize.txt; fi
// RUN: if grep -q '(S)' %t/run.txt; then FileCheck %s --check-prefix=RUNSTATS < %t/run.txt; fi
// RUN: if grep -q '(S)' %t/runtime.txt; then FileCheck %s --check-prefix=RTSTATS < %t/runtime.txt; fi
// RUN: FileCheck %s --check-prefix=MAIN < %t/main.txt
// RUN: FileCheck %s --check-prefix=SUMMARY < %t/summary.md
// RUN: FileCheck %s --check-prefix=OPTIMIZE < %t/optimize.txt
// RUN: FileCheck %s --check-prefix=TIMING < %t/run.txt
// RUN: grep -c "call @tshapeRt" %t/runtime.mlir | FileCheck %s --check-prefix=CALLS
// RUN: FileCheck %s --check-prefix=LEFT < %t/runtime.txt

// HEADER: ... Pass statistics report ...

// gpt2.mlir: GPT-2's shapes (h = 768, 12 heads of d = 64, f = 3072,
// v = 50257 tied, b = 8, s = 1024: b*s = 8192) over 2 layers, on the H100
// before calibration (Analysis/Inputs/h100-sxm-uncalibrated.json: 132 SMs,
// 2 us launch), with two plain GEMMs beside it: @small, 100 x 100 x 100
// bf16, and @dynamic, whose M is dynamic. Per layer, 6 GEMMs: qkv
// (8192 x 2304 x 768), attn_score (96 x 1024 x 1024 x 64), attn_value
// (96 x 1024 x 64 x 1024), attn_out (8192 x 768 x 768), mlp_up
// (8192 x 3072 x 768), mlp_down (8192 x 768 x 3072); then the logits
// (8192 x 50257 x 768).
//
// Passes in name order, statistics in name order within a pass.
//
// tshape-gemm-analysis: 2 x 6 + 1 = 13 GEMMs of the model and @small = 14
// priced; @dynamic skipped. Flagged (loss over 10%): qkv (64 x 9 = 576
// tiles of 128 x 256 on 132 SMs: the last of 5 waves 36% full, 13% lost),
// attn_out and mlp_down (64 x 3 = 192 tiles: the last of 2 waves 45% full,
// 27% lost) in both layers, and the logits (N = 50257 is 2-byte aligned:
// 0.6x loads, 41% lost): 2 x 3 + 1 = 7. Not flagged: mlp_up (768 tiles,
// 6 waves, the last 82% full: 3%), the memory-bound attention GEMMs (wave
// losses cost nothing under the memory floor) and @small (0.62 us of work,
// less than a launch: never flagged).
// STATS:      TShapeGemmAnalysis
// STATS-NEXT:   (S) 14 gemms-analyzed -
// STATS-NEXT:   (S) 7 gemms-flagged -
// STATS-NEXT:   (S) 1 gemms-skipped -
//
// tshape-gemm-summary: the same 14 GEMMs; rows: the model's 7 roles (each
// layer's GEMM of a role has the same shape) and @small's = 8; @dynamic
// not read as a GEMM.
// STATS-NEXT: TShapeGemmSummary
// STATS-NEXT:   (S) 8 gemm-groups -
// STATS-NEXT:   (S) 1 gemms-skipped -
// STATS-NEXT:   (S) 14 gemms-summarized -
//
// tshape-inference-report: one model (@small and @dynamic hold none); its
// prefill step's kernels, identical layers merged: the 6 of a layer and
// the logits = 7 rows (tp = 1: no collectives); 2 findings: the batch
// (8 x 1024 tokens make every weight GEMM compute-bound) and vocab
// 50257 -> 50304 (the logits' 2-byte loads).
// STATS-NEXT: TShapeInferenceReport
// STATS-NEXT:   (S) 2 findings -
// STATS-NEXT:   (S) 7 kernels-priced -
// STATS-NEXT:   (S) 1 models-priced -
//
// tshape-lower-to-linalg: the repeat unrolls into 2 layers of 6 GEMMs,
// plus the logits: 13.
// STATS-NEXT: TShapeLowerToLinalg
// STATS-NEXT:   (S) 13 gemms -
// STATS-NEXT:   (S) 2 layers -
//
// tshape-pad-gemms, to multiples of 64 (128 bytes of bf16): every dimension
// of the model but the vocab is one (8192, 2304 = 36 x 64, 768, 3072,
// 1024, 64), so 2 x 6 = 12 GEMMs are aligned; the logits' N 50257 -> 50304
// predicts 1345.0 -> 807.8 us + 56.5 us of copies (as derived in
// Transforms/tshape-pad-gemms.mlir): padded; @small to 128 x 128 x 128
// predicts 2.6 -> 2.5 us + 6.1 us of copies: left unpadded. @dynamic is
// not a static GEMM and is in no count.
// STATS-NEXT: TShapePadGemms
// STATS-NEXT:   (S) 12 gemms-aligned -
// STATS-NEXT:   (S) 1 gemms-padded -
// STATS-NEXT:   (S) 1 gemms-unpadded -
//
// MAIN: remark: tshape-pad-gemms: padded N 50257 -> 50304
// MAIN: remark: tshape-pad-gemms: not padded: M 100 -> 128, N 100 -> 128, K 100 -> 128 predicts 2.6 -> 2.5 us + 6.1 us of copies (no net gain)
// SUMMARY: 14 GEMMs, {{.*}}; not read as GEMMs: 1 dynamic shape

// tshape-optimize-shapes with vary=vocab: the candidates are the next 8
// multiples of 64 from 50304 to 50752 (docs/optimize-shapes.md), 8 shapes;
// the model is rewritten with one change, the vocab.
// OPTIMIZE: remark: tshape-optimize-shapes: vocab 50257 -> {{[0-9]+}}:
// OPTIMIZE-NOT: remark: tshape-optimize-shapes: {{[a-z_]+}} {{[0-9]+}} -> {{[0-9]+}}:
// OPTIMIZE: remark: tshape-optimize-shapes on h100-sxm: 8 shapes evaluated
// OPTSTATS:      TShapeOptimizeShapes
// OPTSTATS-NEXT:   (S) 1 models-rewritten -
// OPTSTATS-NEXT:   (S) 1 params-changed -
// OPTSTATS-NEXT:   (S) 8 shapes-evaluated -

// tiny.mlir, f32 (Runtime/lower-to-runtime-exec.mlir's model): per layer
// qkv, attn_score, attn_value, attn_out, mlp_gate, mlp_up, mlp_down = 5
// matmuls and 2 batch_matmuls; 2 layers and the logits: 11 + 4 = 15 GEMMs.
// Beside it, @bf16 (16 x 32 x 8) and @dynamic (bf16, M dynamic).
//
// tshape-run-gemms on the CPU: the 15 and @bf16 timed and checked, 16;
// @dynamic skipped.
// TIMING: remark: tshape-run-gemms on CPU reference (single thread): 16 GEMMs measured, 1 skipped
// RUNSTATS:      TShapeLowerToLinalg
// RUNSTATS-NEXT:   (S) 15 gemms -
// RUNSTATS-NEXT:   (S) 2 layers -
// RUNSTATS-NEXT: TShapeRunGemms
// RUNSTATS-NEXT:   (S) 16 gemms-checked -
// RUNSTATS-NEXT:   (S) 1 gemms-skipped -
// RUNSTATS-NEXT:   (S) 16 gemms-timed -
//
// tshape-lower-linalg-to-runtime after bufferization: the 15 f32 GEMMs
// become runtime calls; both bf16 matmuls are left to the loop lowering.
// CALLS: {{^}}15{{$}}
// LEFT-COUNT-2: remark: tshape-lower-linalg-to-runtime: left to the loop lowering: the runtime's compiled entry points take f32 operands
// RTSTATS:      TShapeLowerLinalgToRuntime
// RTSTATS-NEXT:   (S) 15 calls-emitted -
// RTSTATS-NEXT:   (S) 2 gemms-left -

//--- gpt2.mlir
func.func @gpt2(%tokens: tensor<8x1024xi32>) -> tensor<8x1024x50257xbf16> {
  %x = tshape.embedding %tokens vocab = 50257 : tensor<8x1024xi32> -> tensor<8x1024x768xbf16>
  %y = tshape.repeat %x layers = 2 : tensor<8x1024x768xbf16> {
  ^bb0(%in: tensor<8x1024x768xbf16>):
    %b = tshape.block sequential %in : tensor<8x1024x768xbf16> {
    ^bb0(%h: tensor<8x1024x768xbf16>):
      %a = tshape.attention %h heads = 12 kv_heads = 12 causal : tensor<8x1024x768xbf16> -> tensor<8x1024x768xbf16>
      %m = tshape.mlp %a inner = 3072 activation = gelu : tensor<8x1024x768xbf16> -> tensor<8x1024x768xbf16>
      tshape.yield %m : tensor<8x1024x768xbf16>
    }
    tshape.yield %b : tensor<8x1024x768xbf16>
  }
  %l = tshape.lm_head %y vocab = 50257 tied : tensor<8x1024x768xbf16> -> tensor<8x1024x50257xbf16>
  return %l : tensor<8x1024x50257xbf16>
}

func.func @small(%a: tensor<100x100xbf16>, %b: tensor<100x100xbf16>, %c: tensor<100x100xbf16>) -> tensor<100x100xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<100x100xbf16>, tensor<100x100xbf16>) outs(%c : tensor<100x100xbf16>) -> tensor<100x100xbf16>
  return %r : tensor<100x100xbf16>
}

func.func @dynamic(%a: tensor<?x64xbf16>, %b: tensor<64x64xbf16>, %c: tensor<?x64xbf16>) -> tensor<?x64xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<?x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<?x64xbf16>) -> tensor<?x64xbf16>
  return %r : tensor<?x64xbf16>
}

//--- tiny.mlir
func.func @tiny(%t: tensor<1x8xi32>) -> tensor<1x8x24xf32> {
  %x = tshape.embedding %t vocab = 24 : tensor<1x8xi32> -> tensor<1x8x16xf32>
  %y = tshape.repeat %x layers = 2 : tensor<1x8x16xf32> {
  ^bb0(%in: tensor<1x8x16xf32>):
    %b = tshape.block sequential %in : tensor<1x8x16xf32> {
    ^bb0(%h: tensor<1x8x16xf32>):
      %a = tshape.attention %h heads = 4 kv_heads = 2 causal : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
      %m = tshape.mlp %a inner = 32 activation = silu gated : tensor<1x8x16xf32> -> tensor<1x8x16xf32>
      tshape.yield %m : tensor<1x8x16xf32>
    }
    tshape.yield %b : tensor<1x8x16xf32>
  }
  %l = tshape.lm_head %y vocab = 24 tied : tensor<1x8x16xf32> -> tensor<1x8x24xf32>
  return %l : tensor<1x8x24xf32>
}

func.func @bf16(%a: tensor<16x8xbf16>, %b: tensor<8x32xbf16>, %c: tensor<16x32xbf16>) -> tensor<16x32xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<16x8xbf16>, tensor<8x32xbf16>) outs(%c : tensor<16x32xbf16>) -> tensor<16x32xbf16>
  return %r : tensor<16x32xbf16>
}

func.func @dynamic(%a: tensor<?x8xbf16>, %b: tensor<8x32xbf16>, %c: tensor<?x32xbf16>) -> tensor<?x32xbf16> {
  %r = linalg.matmul ins(%a, %b : tensor<?x8xbf16>, tensor<8x32xbf16>) outs(%c : tensor<?x32xbf16>) -> tensor<?x32xbf16>
  return %r : tensor<?x32xbf16>
}
