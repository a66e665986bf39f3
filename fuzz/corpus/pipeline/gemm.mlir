func.func @g(%a: tensor<13x37xbf16>, %w: tensor<29x37xbf16>, %c: tensor<13x29xf32>) -> tensor<13x29xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%a, %w : tensor<13x37xbf16>, tensor<29x37xbf16>) outs(%c : tensor<13x29xf32>) -> tensor<13x29xf32>
  return %r : tensor<13x29xf32>
}
