//===- HFArchitecture.h - A config's architecture beyond sizes --*- C++ -*-===//
//
// Reads what a Hugging Face config says of a model beyond its GEMM sizes
// (model::Architecture): positions, rotary base and scaling, norm and
// epsilon, biases, query/key norms, the MoE router, multi-token prediction,
// and the features some frameworks cannot express. One row per family,
// each default its transformers configuration class's (docs/importer.md,
// "Architecture"). Internal to lib/Interop.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_LIB_INTEROP_HFARCHITECTURE_H
#define TSHAPE_LIB_INTEROP_HFARCHITECTURE_H

#include "HFReader.h"

#include "tshape/Model/Architecture.h"

namespace tshape::hf {

/// The architecture of a `family` config read through `r` (over the merged
/// object: nested sub-objects' keys included); false with the reader's
/// diagnostic set on a mistyped key or an unknown rope scaling.
bool readArchitecture(llvm::StringRef family, Reader &r,
                      model::Architecture &arch);

} // namespace tshape::hf

#endif // TSHAPE_LIB_INTEROP_HFARCHITECTURE_H
