//===- Megatron.h - Megatron-LM arguments for a model -----------*- C++ -*-===//
//
// The one writer of Megatron-LM command-line arguments: the exporter, the
// planner and `advise` all call it. Each parameter's flag comes from the
// vocabulary (Params.h). Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_INTEROP_MEGATRON_H
#define TSHAPE_INTEROP_MEGATRON_H

#include "tshape/Model/Transformer.h"

#include <string>

namespace tshape {

/// Megatron-LM arguments for `c` (one line, then a `# note:` line for each
/// feature Megatron-LM has no argument for). `originalVocab` is the
/// tokenizer's size, for --make-vocab-size-divisible-by.
std::string megatronArguments(const model::ModelConfig &c,
                              int64_t originalVocab);

} // namespace tshape

#endif // TSHAPE_INTEROP_MEGATRON_H
