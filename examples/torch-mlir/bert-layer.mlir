// One BERT-base encoder layer's projections (b = 1, s = 128, h = 768,
// 12 heads of 64, FFN 3072, f32) in the form torch-mlir's
// torch-backend-to-linalg-on-tensors pipeline emits: shape checks as
// cf.assert, the random seed as an ml_program.global, nn.Linear as
// linalg.transpose + linalg.matmul, bias adds as linalg.generic, and the
// attention scores as linalg.batch_matmul. Written by the tshape project
// from the op definitions to show what such a module looks like; weights
// are splat constants.
//
//   tshape-opt examples/torch-mlir/bert-layer.mlir --tshape-gemm-summary -o /dev/null
//   tshape-opt examples/torch-mlir/bert-layer.mlir --tshape-gemm-analysis="target=a100-80gb report=-" -o /dev/null
#map = affine_map<(d0, d1) -> (d0, d1)>
#map1 = affine_map<(d0, d1) -> (d1)>
module attributes {torch.debug_module_name = "BertLayer"} {
  ml_program.global private mutable @global_seed(dense<0> : tensor<i64>) : tensor<i64>
  func.func @forward(%arg0: tensor<1x128x768xf32>) -> tensor<1x128x768xf32> {
    %c768 = arith.constant 768 : index
    %c1 = arith.constant 1 : index
    %cst = arith.constant 0.000000e+00 : f32
    %w_qkv = arith.constant dense<0.01> : tensor<2304x768xf32>
    %b_qkv = arith.constant dense<0.0> : tensor<2304xf32>
    %w_out = arith.constant dense<0.01> : tensor<768x768xf32>
    %w_up = arith.constant dense<0.01> : tensor<3072x768xf32>
    %w_down = arith.constant dense<0.01> : tensor<768x3072xf32>
    %seed = ml_program.global_load @global_seed : tensor<i64>
    %x = tensor.collapse_shape %arg0 [[0, 1], [2]] : tensor<1x128x768xf32> into tensor<128x768xf32>
    // aten.linear(x, w_qkv, b_qkv): check the contracting dimension.
    %dim = tensor.dim %x, %c1 : tensor<128x768xf32>
    %ok = arith.cmpi eq, %dim, %c768 : index
    cf.assert %ok, "mismatching contracting dimension for torch.aten.linear"
    %wt0 = tensor.empty() : tensor<768x2304xf32>
    %wt = linalg.transpose ins(%w_qkv : tensor<2304x768xf32>) outs(%wt0 : tensor<768x2304xf32>) permutation = [1, 0]
    %e0 = tensor.empty() : tensor<128x2304xf32>
    %f0 = linalg.fill ins(%cst : f32) outs(%e0 : tensor<128x2304xf32>) -> tensor<128x2304xf32>
    %qkv = linalg.matmul ins(%x, %wt : tensor<128x768xf32>, tensor<768x2304xf32>) outs(%f0 : tensor<128x2304xf32>) -> tensor<128x2304xf32>
    %qkvb = linalg.generic {indexing_maps = [#map, #map1, #map], iterator_types = ["parallel", "parallel"]} ins(%qkv, %b_qkv : tensor<128x2304xf32>, tensor<2304xf32>) outs(%e0 : tensor<128x2304xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %s = arith.addf %in, %in_0 : f32
      linalg.yield %s : f32
    } -> tensor<128x2304xf32>
    // Scores of 12 heads: (128 x 64) . (64 x 128) each.
    %q = tensor.extract_slice %qkvb[0, 0] [128, 768] [1, 1] : tensor<128x2304xf32> to tensor<128x768xf32>
    %q3 = tensor.expand_shape %q [[0], [1, 2]] output_shape [128, 12, 64] : tensor<128x768xf32> into tensor<128x12x64xf32>
    %qh0 = tensor.empty() : tensor<12x128x64xf32>
    %qh = linalg.transpose ins(%q3 : tensor<128x12x64xf32>) outs(%qh0 : tensor<12x128x64xf32>) permutation = [1, 0, 2]
    %kt0 = tensor.empty() : tensor<12x64x128xf32>
    %kt = linalg.transpose ins(%qh : tensor<12x128x64xf32>) outs(%kt0 : tensor<12x64x128xf32>) permutation = [0, 2, 1]
    %e1 = tensor.empty() : tensor<12x128x128xf32>
    %f1 = linalg.fill ins(%cst : f32) outs(%e1 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
    %scores = linalg.batch_matmul ins(%qh, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>) outs(%f1 : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
    %e2 = tensor.empty() : tensor<12x128x64xf32>
    %f2 = linalg.fill ins(%cst : f32) outs(%e2 : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
    %ctx = linalg.batch_matmul ins(%scores, %qh : tensor<12x128x128xf32>, tensor<12x128x64xf32>) outs(%f2 : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
    %c0 = tensor.empty() : tensor<128x12x64xf32>
    %ctxt = linalg.transpose ins(%ctx : tensor<12x128x64xf32>) outs(%c0 : tensor<128x12x64xf32>) permutation = [1, 0, 2]
    %ctx2 = tensor.collapse_shape %ctxt [[0], [1, 2]] : tensor<128x12x64xf32> into tensor<128x768xf32>
    // Output projection and the FFN (aten.linear each).
    %ot0 = tensor.empty() : tensor<768x768xf32>
    %ot = linalg.transpose ins(%w_out : tensor<768x768xf32>) outs(%ot0 : tensor<768x768xf32>) permutation = [1, 0]
    %e3 = tensor.empty() : tensor<128x768xf32>
    %f3 = linalg.fill ins(%cst : f32) outs(%e3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %attn = linalg.matmul ins(%ctx2, %ot : tensor<128x768xf32>, tensor<768x768xf32>) outs(%f3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    %ut0 = tensor.empty() : tensor<768x3072xf32>
    %ut = linalg.transpose ins(%w_up : tensor<3072x768xf32>) outs(%ut0 : tensor<768x3072xf32>) permutation = [1, 0]
    %e4 = tensor.empty() : tensor<128x3072xf32>
    %f4 = linalg.fill ins(%cst : f32) outs(%e4 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
    %up = linalg.matmul ins(%attn, %ut : tensor<128x768xf32>, tensor<768x3072xf32>) outs(%f4 : tensor<128x3072xf32>) -> tensor<128x3072xf32>
    %dt0 = tensor.empty() : tensor<3072x768xf32>
    %dt = linalg.transpose ins(%w_down : tensor<768x3072xf32>) outs(%dt0 : tensor<3072x768xf32>) permutation = [1, 0]
    %down = linalg.matmul ins(%up, %dt : tensor<128x3072xf32>, tensor<3072x768xf32>) outs(%f3 : tensor<128x768xf32>) -> tensor<128x768xf32>
    ml_program.global_store @global_seed = %seed : tensor<i64>
    %y = tensor.expand_shape %down [[0, 1], [2]] output_shape [1, 128, 768] : tensor<128x768xf32> into tensor<1x128x768xf32>
    return %y : tensor<1x128x768xf32>
  }
}
