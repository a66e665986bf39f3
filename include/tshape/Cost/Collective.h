//===- Collective.h - The time of an NCCL-style collective -----*- C++ -*-===//
//
// An alpha-beta model of all-reduce, reduce-scatter, all-gather, all-to-all
// and send/recv on n ranks of one tier of a cluster (Cluster.h):
//
//   time = latency + stepLatency * steps + bytes * busFactor / (bw * eta)
//
// `bytes` follows nccl-tests' size convention (the buffer of one rank: for
// all-gather the gathered output, for reduce-scatter the input, for
// all-to-all everything a rank sends and receives), so that busFactor
// gives nccl-tests' bus bandwidth: 2(n-1)/n for all-reduce, (n-1)/n for
// reduce-scatter, all-gather and all-to-all, 1 for send/recv; an
// all-reduce on a tier that reduces in the network has bus factor 1 where
// that is faster than the ring. Ranks
// on the network tier, g to a node (whole nodes unless the problem says
// fewer), run hierarchically (inside the node, then across nodes on 1/g of
// the data, then inside the node again); one to a node, flat. docs/clusters.md derives each case. Plain C++: no MLIR
// types.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_COST_COLLECTIVE_H
#define TSHAPE_COST_COLLECTIVE_H

#include "tshape/Cost/Cluster.h"

#include <string>

namespace tshape::cost {

/// A collective to price: `bytes` (nccl-tests' size) on `ranks` ranks of
/// `tier`.
struct CollectiveProblem {
  model::CollectiveOp op = model::CollectiveOp::AllReduce;
  double bytes = 0;
  int64_t ranks = 1;
  model::Tier tier = model::Tier::Node;
  /// On the network tier, how many of the ranks share a node: 0 for whole
  /// nodes (the GPUs per node); 1 for a group strided across nodes (e.g.
  /// Megatron-LM's data-parallel group beside tp = 8), which runs flat, one
  /// rank and its NIC per node.
  int64_t ranksPerNode = 0;
};

struct CollectiveEstimate {
  /// Whether the model priced it; else `unsupported` says why.
  bool supported = true;
  std::string unsupported;
  double predictedUs = 0;
  double latencyUs = 0;   ///< the latency terms
  double bandwidthUs = 0; ///< the bandwidth terms
  /// The phases it ran as: 1 flat, 2 or 3 hierarchical across nodes.
  int phases = 1;
  bool inNetwork = false; ///< an all-reduce reduced in the network
};

/// nccl-tests' bus factor of `op` on `n` ranks; an all-reduce that reduces
/// in the network moves each byte once (1).
double busFactor(model::CollectiveOp op, int64_t n, bool inNetwork = false);

/// The ring steps the latency term counts: 2(n-1) for all-reduce, n-1 for
/// reduce-scatter and all-gather, 1 for all-to-all (all peers at once) and
/// send/recv. Small messages run on the ring (or its tree) whatever the
/// tier can reduce, so an in-network all-reduce keeps them.
int64_t latencySteps(model::CollectiveOp op, int64_t n);

/// The tier's efficiency for `busBytes` moved per GPU by `n` ranks.
double tierEfficiency(const TierLink &link, double busBytes, int64_t n);

/// The time of `op` on `n` ranks of one tier, flat (no hierarchy).
CollectiveEstimate flatCollective(const TierLink &link,
                                  model::CollectiveOp op, double bytes,
                                  int64_t n);

/// The time of `p` on `cluster`: on the node tier flat (at most
/// gpusPerNode ranks); on the network tier hierarchically over the nodes
/// when g = `p.ranksPerNode` (else gpusPerNode) ranks share each node
/// (ranks a multiple of g > 1), else flat with one rank per node.
CollectiveEstimate estimateCollective(const CollectiveProblem &p,
                                      const Cluster &cluster);

} // namespace tshape::cost

#endif // TSHAPE_COST_COLLECTIVE_H
