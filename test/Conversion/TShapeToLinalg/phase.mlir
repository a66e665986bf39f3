// The run shape: phase= on the command line, else the tshape.run attribute
// in force, else a prefill (the forward only).
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | FileCheck %s --check-prefix=DEFAULT
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=prefill" | FileCheck %s --check-prefix=PREFILL
// RUN: not tshape-opt %s -split-input-file --tshape-lower-to-linalg="training=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: not tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=decode" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DECODE
// RUN: not tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=bogus" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// The removed option names its replacement.
// OLD: error: tshape-lower-to-linalg: option 'training' was replaced by 'phase=train' (phases: train|prefill|decode)
// A decode step reads a KV cache, which the lowering does not build yet.
// DECODE: error: phase decode is not lowered to linalg yet: its attention reads a KV cache; lower phase=train or phase=prefill
// BAD: for the --phase option: Cannot find option named 'bogus'!

// One layer of one MLP (h = 64, f = 256): the function's tshape.run says
// train, so the default lowers forward + backward (up, down, then down's
// and up's dgrad and wgrad: 6 GEMMs) and returns the 2 weight gradients;
// phase=prefill on the command line overrides it: 2 GEMMs.
// DEFAULT-LABEL: func.func @run_attr
// DEFAULT-SAME: -> (tensor<1x8x64xbf16>, tensor<256x64xbf16>, tensor<64x256xbf16>)
// DEFAULT-COUNT-6: linalg.matmul
// DEFAULT-NOT: linalg.matmul
// PREFILL-LABEL: func.func @run_attr
// PREFILL-SAME: -> tensor<1x8x64xbf16>
// PREFILL-COUNT-2: linalg.matmul
// PREFILL-NOT: linalg.matmul
func.func @run_attr(%x: tensor<1x8x64xbf16>) -> tensor<1x8x64xbf16> attributes {tshape.run = #tshape.run<train>} {
  %y = tshape.mlp %x inner = 256 activation = gelu : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
  return %y : tensor<1x8x64xbf16>
}
