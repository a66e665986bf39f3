// Bad options and targets are clean errors (exit 1, a message), never a crash.
// RUN: not tshape-opt %s --tshape-gemm-analysis="target=tpu-v5" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: tshape-gemm-analysis: unknown target 'tpu-v5' (built-in: v100, a100-40gb, a100-80gb, h100-sxm, h100-sxm-vllm0.24, h100-pcie, h200, b200, gb200, l40s, rtx4090; or target-file=FILE.json)
// RUN: not tshape-opt %s --tshape-gemm-analysis="threshold=-0.5" 2>&1 | FileCheck %s --check-prefix=THRESH
// THRESH: error: tshape-gemm-analysis: threshold must be in [0, 1), got -5.000000e-01
// RUN: not tshape-opt %s --tshape-gemm-analysis="remarks=some" 2>&1 | FileCheck %s --check-prefix=REMARKS
// remarks= is an enum option: a word other than none, flagged or all is
// rejected by the option parser, before the pass runs (likewise the global
// -tshape-remarks).
// REMARKS: for the --remarks option: Cannot find option named 'some'!
// RUN: not tshape-opt %s --tshape-gemm-analysis -tshape-remarks=some 2>&1 | FileCheck %s --check-prefix=GREMARKS
// GREMARKS: for the --tshape-remarks option: Cannot find option named 'some'!
// RUN: not tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: tshape-gemm-analysis: cannot read target file '{{.*}}missing.json': No such file or directory
// RUN: not tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/bad-target.json" 2>&1 | FileCheck %s --check-prefix=BADFILE
// BADFILE: error: tshape-gemm-analysis: {{.*}}bad-target.json: key 'memory_efficiency': must be in (0, 1], got 1.2
// RUN: not tshape-opt %s --tshape-gemm-analysis="target-file=%S/Inputs/malformed-target.json" 2>&1 | FileCheck %s --check-prefix=MALFORMED
// MALFORMED: error: tshape-gemm-analysis: {{.*}}malformed-target.json: malformed JSON: [2:
// RUN: not tshape-opt %s --tshape-gemm-analysis="report=/nonexistent/dir/r.json" 2>&1 | FileCheck %s --check-prefix=REPORT
// REPORT: error: tshape-gemm-analysis: cannot open report '/nonexistent/dir/r.json'

func.func @g(%a: tensor<64x64xbf16>, %c: tensor<64x64xbf16>) -> tensor<64x64xbf16> {
  %0 = linalg.matmul ins(%a, %a : tensor<64x64xbf16>, tensor<64x64xbf16>) outs(%c : tensor<64x64xbf16>) -> tensor<64x64xbf16>
  return %0 : tensor<64x64xbf16>
}
