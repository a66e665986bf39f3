//===- KernelRecord.h - One kernel of a program and its analysis -*- C++ -*-===//
//
// The analysis record: one kernel of the program (any kind: a GEMM, a fused
// attention, an elementwise kernel, a scan, a top-k, a collective), its
// price, the causes of what it loses and the dimensions they blame. The
// model path (recordsOf over a block's kernel list) and the lowered-IR path
// (tshape-gemm-analysis, which reads each op's provenance back into a
// model::Kernel) build the same records. Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_KERNELRECORD_H
#define TSHAPE_ADVISE_KERNELRECORD_H

#include "tshape/Cost/GemmModel.h"
#include "tshape/Cost/PredictKernel.h"
#include "tshape/Model/Kernel.h"
#include "tshape/Model/RunShape.h"

#include <optional>
#include <string>
#include <vector>

namespace tshape::model {
struct ModelConfig;
} // namespace tshape::model

namespace tshape::advise {

/// One kernel of the program.
struct KernelRecord {
  std::string name;     ///< the kernel's name (Kernel::name), or the op's
  int64_t layer = -1;   ///< -1: not in a layer (logits, foreign IR)
  std::string location; ///< file:line:col, for the report
  /// The kernel as the model stated it, or as lowered IR carried it (its
  /// provenance attributes read back). Absent for a GEMM the model did not
  /// define (foreign IR): `problem` alone prices it, and it gets no
  /// finding.
  std::optional<model::Kernel> kernel;
  /// Which GEMM of a kernel that lowered IR runs as several (a fused
  /// attention: its scores, then its values, one record each, as the
  /// lowering emits them) this record is. The first carries the kernel's
  /// price; the others cost nothing. 0 for a kernel run as one.
  int part = 0;
  /// A part of a fused attention priced as separate GEMMs: the attention
  /// has no price (a head dim no kernel covers), or lowered IR does not
  /// carry its kernel (`kernelMissing`: the provenance removed, as foreign
  /// or hand-edited IR may have it; the first part's causes say why).
  bool separate = false, kernelMissing = false;
  /// The sizes as the cost model runs them: a GEMM's batch x M x N x K
  /// (with a run and a kernel, posed by gemmProblem at the run's
  /// precision), another kind's four report columns (Kernel::columns), and
  /// the element type the kernel runs in.
  cost::GemmProblem problem;
  /// The run the kernel belongs to (the tshape IR's #tshape.run, the
  /// lowered function's string form); absent for foreign IR, which is
  /// priced as its element types say.
  std::optional<model::RunShape> run;
  /// The price, as predictKernel states every kind: `estimate.gemm` for a
  /// GEMM (or a GEMM part whose attention runs as separate GEMMs),
  /// `estimate.attention` for a fused attention.
  cost::KernelEstimate estimate;
  double predictedUs = 0; ///< the time this record contributes
  double measuredUs = -1; ///< from tshape-run-gemms, when it ran before
  /// What the library chose (cuBLASLt's wavesCount, tile id and that tile as
  /// M x N), when measured; compare with estimate.gemm.waves and .tile.
  double libraryWaves = 0;
  int64_t libraryTileId = -1;
  int64_t libraryTileM = 0, libraryTileN = 0;
  double lossFraction = 0; ///< 1 - useful / issued tensor-core work
  bool flagged = false;
  std::vector<std::string> causes; ///< human-readable, with numbers
  /// The dimensions a cause blames (alignment, K steps, tile fill, fused
  /// head-dim padding): batch, M, N, K. Findings read these, never the text.
  bool faultBatch = false, faultM = false, faultN = false, faultK = false;

  /// The GEMM this record sizes: a GEMM kernel's own, or the `part` of a
  /// kernel run as several GEMMs; null for the other kinds and foreign IR.
  const model::GemmSpec *spec() const;
  model::GemmSpec *spec();
  /// Whether this record is a part of a fused attention priced as one
  /// kernel (its first part carries the price).
  bool fused() const;
  /// The useful FLOPs this record contributes: a fused kernel's on its
  /// first part (0 on the others), else its estimate's.
  double flops() const;
  /// Its role's group (a GEMM's GemmSpec::group, else its kernel's role's);
  /// nullopt for foreign IR.
  std::optional<model::RoleGroup> roleGroup() const;
  /// The group's name as the reports print it: "other" for communication
  /// and foreign IR.
  std::string group() const;
  /// Whether the shape analysis prices it as a GEMM (its tile, waves,
  /// alignment): a GEMM kernel, a foreign GEMM, a part run separately.
  bool gemmPriced() const { return !kernel || spec(); }

  /// A record of `kernel` (its name, layer and sizes) at `location`, under
  /// `run` when given, in the element type `dtype`. For a kernel run as
  /// several GEMMs, `part` says which.
  static KernelRecord of(const model::Kernel &kernel, model::DType dtype,
                         const std::string &location,
                         const model::RunShape *run, int part = 0);

  /// A record of `kernel` (or of its part `part`, whose GEMM is
  /// `partGemm`) with nothing else filled: what a reader of lowered IR
  /// starts from, the op supplying the sizes, name and location.
  static KernelRecord bare(const model::Kernel &kernel,
                           std::optional<model::GemmSpec> partGemm = {},
                           int part = 0);

private:
  /// The part's GEMM of a kernel run as several (set by `of`; kept in
  /// step with the kernel when a finding rebinds it).
  std::optional<model::GemmSpec> partGemm;
};

/// The records of `kernels` of `c`, one per kernel of every kind, in order:
/// a fused attention becomes the records of its GEMMs (its scores, which
/// carry the kernel's price, then its values), as the lowering emits it.
/// Each record is priced under `run` (its precision, its active experts)
/// when one is given.
std::vector<KernelRecord> recordsOf(const model::ModelConfig &c,
                                    const std::vector<model::Kernel> &kernels,
                                    const model::RunShape *run = nullptr);
/// The records of a whole run of `c` (every layer), for reports.
std::vector<KernelRecord> recordsFor(const model::ModelConfig &c,
                                     const model::RunShape &run);

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_KERNELRECORD_H
