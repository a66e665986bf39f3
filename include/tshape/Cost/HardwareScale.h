//===- HardwareScale.h - User-scaled hardware variants ----------*- C++ -*-===//
//
// A what-if variant of a GPU target and its cluster: the dense compute
// peaks, the HBM bandwidth, the HBM capacity and the link bandwidths
// multiplied by factors the user gives ("dgx-h100:compute=1.5,hbm-bw=2"),
// renamed so that reports say what was scaled ("dgx-h100 x compute 1.5,
// hbm-bw 2"). The hardware co-search and the projection
// (Advise/HardwareSearch.h, Advise/Projection.h) price plans on them.
// docs/plan.md, "Hardware co-search". Plain C++: no MLIR types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_HARDWARESCALE_H
#define TSHAPE_COST_HARDWARESCALE_H

#include "tshape/Cost/Cluster.h"
#include "tshape/Target/GpuTarget.h"

#include <optional>
#include <string>

namespace tshape::cost {

/// Multipliers of a target's and a cluster's figures; 1 leaves a figure
/// as it is.
struct HardwareFactors {
  /// Every dense tensor-core peak (GpuTarget::peakTflops). The SM count,
  /// the tile menu and the fitted efficiencies stay: each SM gets faster,
  /// so tile and wave quantization are those of today's GPU.
  double compute = 1;
  double hbmBandwidth = 1; ///< GpuTarget::memoryBandwidthGBs
  double hbmCapacity = 1;  ///< GpuTarget::memoryGiB (the plan's memory limit)
  double link = 1;         ///< both tiers' bandwidth per GPU
  double nvlink = 1;       ///< the node tier's, on top of `link`
  double network = 1;      ///< the network tier's, on top of `link`

  bool identity() const;
  /// "compute 1.5, hbm-bw 2" (the factors that are not 1, in key order);
  /// "" for the identity.
  std::string describe() const;
};

/// The keys of a factor list, in order: compute, hbm-bw, hbm, link,
/// nvlink, network ("compute, hbm-bw, ..." for messages).
std::string hardwareFactorKeys();

/// Parses "compute=1.5,hbm-bw=2" into `factors` (each key at most once).
/// False with `error` set for an unknown key ("unknown hardware factor
/// 'flops' (known: compute, ...)"), a value that is not a number, or one
/// not above 0.
bool parseHardwareFactors(const std::string &text, HardwareFactors &factors,
                          std::string &error);

/// A target and its cluster, as the step model takes them.
struct Hardware {
  target::GpuTarget target;
  Cluster cluster;
};

/// `target` and `cluster` with the figures of `factors` scaled, renamed
/// "NAME x compute 1.5" (target and cluster alike; the cluster's `gpu` is
/// the new target's name) and described as scaled. Nullopt with `error`
/// set when a factor is not a finite number above 0.
std::optional<Hardware> scaleHardware(const target::GpuTarget &target,
                                      const Cluster &cluster,
                                      const HardwareFactors &factors,
                                      std::string &error);

} // namespace tshape::cost

#endif // TSHAPE_COST_HARDWARESCALE_H
