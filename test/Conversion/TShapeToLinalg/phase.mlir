// The run shape: phase= on the command line, else the tshape.run attribute
// in force, else a prefill (the forward only).
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg | FileCheck %s --check-prefix=DEFAULT
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=prefill" | FileCheck %s --check-prefix=PREFILL
// RUN: not tshape-opt %s -split-input-file --tshape-lower-to-linalg="training=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=OLD
// RUN: tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=decode" | FileCheck %s --check-prefix=DECODE
// RUN: not tshape-opt %s -split-input-file --tshape-lower-to-linalg="phase=bogus" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// The removed option names its replacement.
// OLD: error: tshape-lower-to-linalg: option 'training' was replaced by 'phase=train' (phases: train|prefill|decode)
// phase=decode lowers one step: the last of the 8 tokens of each
// sequence (the others are cached), so the MLP's GEMMs have M = b = 1.
// DECODE-LABEL: func.func @run_attr
// DECODE-SAME: -> tensor<1x1x64xbf16>
// DECODE: tensor.extract_slice %arg0[0, 7, 0] [1, 1, 64] [1, 1, 1] : tensor<1x8x64xbf16> to tensor<1x1x64xbf16>
// DECODE-COUNT-2: linalg.matmul {{.*}} tensor<1x64xbf16>
// DECODE-NOT: linalg.matmul
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

