// RUN: tshape-opt %s --tshape-gemm-summary -o /dev/null | FileCheck %s
// RUN: tshape-opt %s --tshape-gemm-summary=output=%t.md -o /dev/null && FileCheck %s < %t.md
// RUN: not tshape-opt %s --tshape-gemm-summary=output=/nonexistent/dir/x.md -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE
// RUN: tshape-opt %s --tshape-gemm-summary=output=%t.json -o /dev/null && FileCheck %s --check-prefix=JSON < %t.json
// A name with another extension is an error naming the formats (it used to
// get JSON silently).
// RUN: not tshape-opt %s --tshape-gemm-summary=output=%t.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=TXT
// TXT: error: cannot write report '{{.*}}.txt': '.txt' is not a report format; name it .json (JSON) or .md (Markdown), or - for Markdown on stdout

// The summary reads any static contraction: named ops with or without
// tshape roles, a linalg.generic contraction, and reports dynamic ones as
// skipped. FLOPs: 2 * 64 * 128 * 256 = 4,194,304 (0.0 GFLOP); generic
// 2 * 8 * 32 * 16 = 8192.

// CHECK: | role | layers | batch | M | N | K |
// CHECK: | linalg.matmul | - | 1 | 64 | 128 | 256 |
// CHECK: | mlp_up | 3 | 1 | 64 | 128 | 256 |
// CHECK: | linalg.generic | - | 1 | 8 | 16 | 32 |
// CHECK: 3 GEMMs, 0.00 TFLOP in all; not read as GEMMs: 1 dynamic shape
// BADFILE: error: cannot open report '/nonexistent/dir/x.md': No such file or directory
// The same report model as JSON (tshape/Report/Writers.h), for .json and,
// by the rule every report follows (report::formatFor), any name but - and
// .md.
// JSON: "schema": "tshape-summary/1"
// JSON: "role": "linalg.matmul",
// JSON: "role": "mlp_up",
// JSON-NEXT: "first_layer": 3,
// JSON: "gemms": 3,
// JSON: "skipped": {
// JSON-NEXT: "dynamic shape": 1

#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
func.func @mixed(%a: tensor<64x256xf32>, %b: tensor<256x128xf32>, %c: tensor<64x128xf32>,
                 %ga: tensor<8x32xf32>, %gb: tensor<32x16xf32>, %gc: tensor<8x16xf32>,
                 %da: tensor<?x256xf32>, %dc: tensor<?x128xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %1 = linalg.matmul {tshape.role = "mlp_up", tshape.layer = 3 : i64} ins(%a, %b : tensor<64x256xf32>, tensor<256x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  %2 = linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%ga, %gb : tensor<8x32xf32>, tensor<32x16xf32>) outs(%gc : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %3 = linalg.matmul ins(%da, %b : tensor<?x256xf32>, tensor<256x128xf32>) outs(%dc : tensor<?x128xf32>) -> tensor<?x128xf32>
  return
}
