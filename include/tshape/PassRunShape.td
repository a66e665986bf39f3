//===- PassRunShape.td - The run-shape options of passes ---*- tablegen -*-===//
//
// The `phase` and removed `training` options of the passes that emit or
// price a run (tshape-lower-to-linalg, tshape-optimize-shapes), stated once;
// PassRunShape.h reads them. `what` says what the pass does with the run.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_PASSRUNSHAPE_TD
#define TSHAPE_PASSRUNSHAPE_TD

include "mlir/Pass/PassBase.td"

class PhaseOption<string what>
    : Option<"phase", "phase", "::tshape::model::Phase",
             /*default=*/"::tshape::model::Phase::Prefill",
             what # " (default: the tshape.run attribute in force, else "
                    "prefill)",
             [{::llvm::cl::values(
               clEnumValN(::tshape::model::Phase::Train, "train",
                          "a training step: the forward, then the backward"),
               clEnumValN(::tshape::model::Phase::Prefill, "prefill",
                          "the forward of a prompt"),
               clEnumValN(::tshape::model::Phase::Decode, "decode",
                          "one new token per sequence over its cache"))}]>;

def RemovedTrainingOption
    : Option<"training", "training", "bool", /*default=*/"false",
             "removed: use phase=train">;

#endif // TSHAPE_PASSRUNSHAPE_TD
