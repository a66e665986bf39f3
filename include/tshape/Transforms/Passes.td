//===- Passes.td - tshape shape rewrites -------------------*- tablegen -*-===//
//
// Rewrites that remove shape inefficiencies: model-level hyperparameter
// search, and linalg-level padding that keeps results the same.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_TRANSFORMS_PASSES_TD
#define TSHAPE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"
include "tshape/PassRunShape.td"

def TShapeInferenceReport : Pass<"tshape-inference-report", "::mlir::ModuleOp"> {
  let summary = "what one prefill or decode step of the model costs";
  let description = [{
    For each function holding a tshape model, prices one step of its run
    (the `tshape.run` in force, or `phase=`: a decode step over the KV
    cache, or a prefill) on the target (docs/inference.md): the step time,
    per-token latency, tokens/s per GPU and per sequence, the share of the
    step spent reading weights, reading the cache, moving activations,
    computing, communicating (the tensor-parallel all-reduces, priced on
    `cluster`) and launching, the roofline regime of each kernel, the
    memory per GPU (weights, KV cache, activations) and the largest batch
    that fits; and the findings of the step, each traced to a
    hyperparameter (the batch that leaves the memory-bound regime, the
    cache bytes per token from kv_heads x head_dim, head counts that break
    a decode kernel's grouping, alignment at small M). A remark states the
    summary; `report=` writes the report (JSON, or Markdown for `-` and
    `.md`).
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "built-in GPU (default: the module's tshape.target, else h100-sxm)">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "JSON GPU description; overrides target">,
    PhaseOption<"the run to price: prefill or decode">,
    RemovedTrainingOption,
    Option<"clusterName", "cluster", "std::string", /*default=*/"\"\"",
           "built-in cluster for the tensor-parallel all-reduces (default: "
           "the target's)">,
    Option<"prefillChunk", "prefill-chunk", "int64_t", /*default=*/"0",
           "tokens per sequence of a prefill chunk whose activations must "
           "fit beside the cache (default: the step's own)">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write the report: .json, .md, or - for Markdown">
  ];
  let dependentDialects = ["::tshape::TShapeDialect"];
  let statistics = [
    Statistic<"numModels", "models-priced",
              "Functions whose model's step was priced">,
    Statistic<"numKernels", "kernels-priced",
              "Kernels priced (rows of the report: identical layers merged)">,
    Statistic<"numFindings", "findings", "Findings reported">
  ];
}

def TShapeOptimizeShapes : Pass<"tshape-optimize-shapes", "::mlir::ModuleOp"> {
  let summary = "choose faster hyperparameters within a parameter budget";
  let description = [{
    For each function holding a tshape model, searches the neighbourhood of
    the hyperparameters in `vary` (docs/optimize-shapes.md) for the shape
    with the highest predicted throughput on the target, subject to: the
    parameter count within `param-tolerance` of the original; every
    structural rule (hidden = heads x head_dim, heads divisible by kv_heads,
    tensor-parallel divisibility); the GQA group ratio kept unless `kv_heads`
    may vary; vocab only growing; head dims in [min-head-dim, max-head-dim]
    and supported by a fused attention kernel where the model fuses it.
    The search is exhaustive over that neighbourhood, and deterministic.

    The model is kept unless the predicted throughput gain reaches
    `min-gain`. Otherwise the tshape ops are rewritten in place, with one
    remark per change (before -> after, its predicted speed-up alone, its
    parameter delta) and a summary remark. `report=` writes a before/after
    report (JSON, or Markdown for `-` and `.md`).
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "built-in GPU (default: the module's tshape.target, else h100-sxm)">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "JSON GPU description; overrides target">,
    Option<"paramTolerance", "param-tolerance", "double", /*default=*/"0.02",
           "allowed relative change of the parameter count (>= 0)">,
    Option<"activeTolerance", "active-param-tolerance", "double",
           /*default=*/"0.02",
           "mixture of experts: allowed relative change of the parameters "
           "active per token (>= 0)">,
    ListOption<"vary", "vary", "std::string",
               "parameters that may change: vocab, heads, kv_heads, ffn, "
               "hidden, seq, head_dim, moe_ffn, shared_ffn, and (opt-in) "
               "experts, topk, q_lora_rank, kv_lora_rank, qk_nope_head_dim, "
               "qk_rope_head_dim, v_head_dim, window (default: "
               "vocab,heads,ffn; with experts also moe_ffn,shared_ffn "
               "unless the config ties shared_ffn to moe_ffn)">,
    PhaseOption<"the run to optimize: train prices forward + backward">,
    RemovedTrainingOption,
    ListOption<"phaseMix", "phase-mix", "std::string",
               "serve a mix instead of one run: PHASE:WEIGHT steps per "
               "request, e.g. prefill:1,decode:256 (the IR's run is the "
               "prompt; the objective is requests/s)">,
    Option<"minGain", "min-gain", "double", /*default=*/"0.01",
           "keep the model unless predicted throughput improves this much">,
    Option<"minHeadDim", "min-head-dim", "int64_t", /*default=*/"64",
           "smallest head dimension to consider">,
    Option<"maxHeadDim", "max-head-dim", "int64_t", /*default=*/"128",
           "largest head dimension to consider">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "write the before/after report: .json, .md, or - for Markdown">
  ];
  let dependentDialects = ["::tshape::TShapeDialect"];
  let statistics = [
    Statistic<"numEvaluated", "shapes-evaluated",
              "Candidate shapes predicted by the search">,
    Statistic<"numRewritten", "models-rewritten",
              "Models rewritten with the shape found">,
    Statistic<"numChanged", "params-changed",
              "Hyperparameters changed in the rewritten models">
  ];
}

def TShapePadGemms : Pass<"tshape-pad-gemms", "::mlir::ModuleOp"> {
  let summary = "pad linalg GEMM dimensions where the model predicts a gain";
  let description = [{
    For every static linalg contraction (from tshape or any other frontend),
    rounds M, N and (for multiply-add contractions) K up to a multiple of
    `multiple` (default: the target's best alignment, 64 bf16 elements on
    Ampere and later). Operands get `tensor.pad` with zeros, the padded
    contraction runs, and `tensor.extract_slice` takes the original result
    back, so the program computes exactly the same values (zeros add
    nothing to a sum; padded rows and columns are dropped).

    A GEMM is padded only when its predicted time padded, plus the copies
    the pads and the slice cost at memory bandwidth, beats its predicted
    time unpadded; `force=true` pads anyway. The copies are never treated
    as free. A remark names each padded operand that is a constant or a
    function argument, since storing it pre-padded would remove its copy.

    A GEMM whose element type the cost model does not know (integer, such
    as i8 x i8 -> i32, or f64) has no prediction: it is padded only with
    `force=true` (with a zero of each operand's own element type), and
    otherwise gets a remark saying so.
  }];
  let options = [
    Option<"targetName", "target", "std::string", /*default=*/"\"\"",
           "built-in GPU (default: the module's tshape.target, else h100-sxm)">,
    Option<"targetFile", "target-file", "std::string", /*default=*/"\"\"",
           "JSON GPU description; overrides target">,
    Option<"multiple", "multiple", "int64_t", /*default=*/"0",
           "pad to multiples of this many elements (0: the target's best "
           "alignment)">,
    Option<"force", "force", "bool", /*default=*/"false",
           "pad every unaligned GEMM, whatever the prediction">
  ];
  let dependentDialects = ["::mlir::tensor::TensorDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPadded", "gemms-padded", "GEMMs padded">,
    Statistic<"numAligned", "gemms-aligned",
              "GEMMs already on the multiple (nothing to pad)">,
    Statistic<"numUnpadded", "gemms-unpadded",
              "Unaligned GEMMs left unpadded: no predicted net gain, or no "
              "GEMM model without force">
  ];
}

//===----------------------------------------------------------------------===//
// Running GEMMs
//===----------------------------------------------------------------------===//

def TShapeRunGemms : Pass<"tshape-run-gemms", "::mlir::ModuleOp"> {
  let summary = "run and time every GEMM of the module on a backend";
  let description = [{
    Executes every static linalg contraction with the tshape runtime
    (include/tshape/Runtime/Runtime.h) on random inputs (never zeros):
    `backend=cpu` (a reference, everywhere) or `backend=cublas` (cuBLASLt,
    loaded on demand; tshape-opt does not link cuBLAS). Each GEMM gets a
    `tshape.measured` dictionary: median, min and max time over `iters`
    runs after `warmup`, TFLOP/s, and what cuBLASLt chose (algorithm, tile,
    wavesCount). When `tshape-gemm-analysis` ran before, the prediction
    error is added, and an analysis that runs after reports `measured_us`.

    `check=true` also runs each GEMM once and compares `samples` output
    elements with an fp64 CPU reference, failing above the dtype's
    tolerance. No device, no driver, out of memory or an unsupported dtype
    is a clean error naming the cause.
  }];
  let options = [
    Option<"backend", "backend", "::tshape::RunBackend",
           /*default=*/"::tshape::RunBackend::Cpu", "cpu or cublas",
           [{::llvm::cl::values(
             clEnumValN(::tshape::RunBackend::Cpu, "cpu",
                        "the runtime's fp32 reference, everywhere"),
             clEnumValN(::tshape::RunBackend::Cublas, "cublas",
                        "cuBLASLt, loaded on demand"))}]>,
    Option<"warmup", "warmup", "int", /*default=*/"2", "untimed runs first">,
    Option<"iters", "iters", "int", /*default=*/"10", "timed runs (median)">,
    Option<"check", "check", "bool", /*default=*/"false",
           "compare sampled outputs with an fp64 reference">,
    Option<"samples", "samples", "int64_t", /*default=*/"256",
           "output elements compared by check (<= 0: all)">,
    Option<"maxGflop", "max-gflop", "double", /*default=*/"-1",
           "budget of the whole pass in GFLOP, every run of every GEMM "
           "counted; a GEMM that would exceed it is skipped with a remark "
           "(default: 8 on cpu, no limit on cublas)">,
    Option<"backendLib", "backend-lib", "std::string", /*default=*/"\"\"",
           "the GPU backend library for backend=cublas (default: "
           "libtshape_runtime_cublas.so next to the runtime)">,
    Option<"runtimeLib", "runtime-lib", "std::string", /*default=*/"\"\"",
           "path of libtshape_runtime.so (default: ../lib next to the tool)">
  ];
  let statistics = [
    Statistic<"numTimed", "gemms-timed", "GEMMs timed on the backend">,
    Statistic<"numChecked", "gemms-checked",
              "GEMMs checked against the fp64 reference (check=true)">,
    Statistic<"numSkipped", "gemms-skipped",
              "Ops skipped: not read as GEMMs (dynamic shapes, convolutions, "
              "other reductions), no runtime GEMM for the element type, or "
              "over max-gflop">
  ];
}

def TShapeLowerLinalgToRuntime
    : Pass<"tshape-lower-linalg-to-runtime", "::mlir::ModuleOp"> {
  let summary = "turn bufferized linalg GEMMs into tshape runtime calls";
  let description = [{
    Replaces each `linalg.matmul` and `linalg.batch_matmul` on f32 memrefs
    (after bufferization) with a `func.call` of `tshapeRtMatmulF32` /
    `tshapeRtBatchMatmulF32`, declared with `llvm.emit_c_interface`, so
    that a lowered module runs under upstream `mlir-runner` with
    `-shared-libs=libtshape_runtime.so`. Transposed operands (from
    `indexing_maps`) are passed as flags. Other contractions are left to
    the usual lowering, with a remark.
  }];
  let dependentDialects = ["::mlir::func::FuncDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numCalls", "calls-emitted",
              "Runtime calls emitted in place of linalg GEMMs">,
    Statistic<"numLeft", "gemms-left",
              "Bufferized matmuls and batch_matmuls left to the loop "
              "lowering: not f32, or a form the runtime cannot express">
  ];
}

#endif // TSHAPE_TRANSFORMS_PASSES_TD
