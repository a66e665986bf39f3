// RUN: tshape-opt %s --tshape-lower-to-linalg="fuse-gated-mlp=true" | FileCheck %s
// RUN: tshape-opt %s --tshape-lower-to-linalg | FileCheck %s --check-prefix=TWO

// Llama-2-7B MLP (h = 4096, f = 11008, b*s = 64). With fuse-gated-mlp the
// gate and up projections are one GEMM of width 2f = 22016 (role
// mlp_gate_up, N = 2*(ffn/tp): the layout of the MLP model, so a finding on
// it names ffn 11008, not 22016),
// split afterwards; by default they are two GEMMs of width f.
// CHECK-LABEL: func.func @swiglu
// CHECK-NOT: mlp_gate
// CHECK: tshape.role = "mlp_gate_up", tshape.sizes = {k = "hidden", m = "microbatch*seq", n = "2*(ffn/tp)", params = {ffn = 11008 : i64{{.*}}}} ins(%{{.*}}, %{{.*}} : tensor<64x4096xbf16>, tensor<22016x4096xbf16>) outs(%{{.*}} : tensor<64x22016xbf16>)
// CHECK: tensor.extract_slice %{{.*}}[0, 0] [64, 11008] [1, 1]
// CHECK: tensor.extract_slice %{{.*}}[0, 11008] [64, 11008] [1, 1]
// CHECK: tshape.role = "mlp_down"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<64x11008xbf16>, tensor<4096x11008xbf16>)
// TWO: tshape.role = "mlp_gate"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<64x4096xbf16>, tensor<11008x4096xbf16>)
// TWO: tshape.role = "mlp_up"{{.*}}} ins(%{{.*}}, %{{.*}} : tensor<64x4096xbf16>, tensor<11008x4096xbf16>)
func.func @swiglu(%x: tensor<1x64x4096xbf16>) -> tensor<1x64x4096xbf16> {
  %m = tshape.mlp %x inner = 11008 activation = silu gated : tensor<1x64x4096xbf16> -> tensor<1x64x4096xbf16>
  return %m : tensor<1x64x4096xbf16>
}
