//===- Collective.cpp - The time of an NCCL-style collective --------------===//
//
// docs/clusters.md derives the formulas; unittests/CollectiveTest.cpp
// checks each against hand-derived values.
//
//===----------------------------------------------------------------------===//

#include "tshape/Cost/Collective.h"

#include <algorithm>
#include <cmath>

using namespace tshape;
using namespace tshape::cost;
using model::CollectiveOp;

double tshape::cost::busFactor(CollectiveOp op, int64_t n, bool inNetwork) {
  if (n <= 1)
    return 0;
  double share = double(n - 1) / double(n);
  switch (op) {
  case CollectiveOp::AllReduce:
    return inNetwork ? 1.0 : 2 * share;
  case CollectiveOp::ReduceScatter:
  case CollectiveOp::AllGather:
  case CollectiveOp::AllToAll:
    return share;
  case CollectiveOp::SendRecv:
    return 1.0;
  }
  return 1.0;
}

int64_t tshape::cost::latencySteps(CollectiveOp op, int64_t n) {
  if (n <= 1)
    return 0;
  switch (op) {
  case CollectiveOp::AllReduce:
    return 2 * (n - 1);
  case CollectiveOp::ReduceScatter:
  case CollectiveOp::AllGather:
    return n - 1;
  case CollectiveOp::AllToAll:
  case CollectiveOp::SendRecv:
    return 1;
  }
  return 1;
}

double tshape::cost::tierEfficiency(const TierLink &l, double busBytes,
                                    int64_t n) {
  double x = std::pow(std::max(busBytes, 1.0) / l.halfEfficiencyBytes,
                      l.efficiencyExponent);
  return l.efficiency * double(n) / (double(n) + l.rankOffset) * x / (1 + x);
}

CollectiveEstimate tshape::cost::flatCollective(const TierLink &l,
                                                CollectiveOp op, double bytes,
                                                int64_t n) {
  CollectiveEstimate e;
  // Send/recv involves two ranks whatever `n` says; the others with one
  // rank move nothing.
  if (op == CollectiveOp::SendRecv)
    n = std::max<int64_t>(n, 2);
  if (n <= 1 || bytes <= 0)
    return e;
  // GB/s = 1e3 bytes per microsecond.
  auto bandwidthUs = [&](bool inNetwork) {
    double bus = bytes * busFactor(op, n, inNetwork);
    double eta = tierEfficiency(l, bus, n) *
                 (inNetwork ? l.inNetworkEfficiency : 1.0);
    return bus / (l.bandwidthGBs * 1e3 * eta);
  };
  e.latencyUs = l.latencyUs + l.stepLatencyUs * double(latencySteps(op, n));
  e.bandwidthUs = bandwidthUs(false);
  // An all-reduce on a tier that reduces in the network (NVLink SHARP
  // needs more than two GPUs on the switch; InfiniBand SHARP likewise)
  // runs as whichever is faster, as NCCL's tuner picks: the ring, or the
  // switch reduction (bus factor 1 at the switch's efficiency). Small
  // messages stay on the ring's latency.
  if (op == CollectiveOp::AllReduce && l.inNetworkReduction && n > 2) {
    double in = bandwidthUs(true);
    if (in < e.bandwidthUs) {
      e.bandwidthUs = in;
      e.inNetwork = true;
    }
  }
  e.predictedUs = e.latencyUs + e.bandwidthUs;
  return e;
}

namespace {
CollectiveEstimate operator+(CollectiveEstimate a,
                             const CollectiveEstimate &b) {
  a.latencyUs += b.latencyUs;
  a.bandwidthUs += b.bandwidthUs;
  a.predictedUs += b.predictedUs;
  a.inNetwork = a.inNetwork || b.inNetwork;
  return a;
}
} // namespace

CollectiveEstimate tshape::cost::estimateCollective(const CollectiveProblem &p,
                                                    const Cluster &c) {
  CollectiveEstimate e;
  auto fail = [&](std::string why) {
    e.supported = false;
    e.unsupported = std::move(why);
    return e;
  };
  if (p.ranks < 1)
    return fail("a collective needs at least 1 rank, got " +
                std::to_string(p.ranks));
  if (p.tier == model::Tier::Node) {
    if (p.ranks > c.gpusPerNode)
      return fail(std::to_string(p.ranks) + " ranks on the node tier of " +
                  c.name + ", which has " + std::to_string(c.gpusPerNode) +
                  " GPUs per node");
    return flatCollective(c.node, p.op, p.bytes, p.ranks);
  }
  // Network tier: g ranks to a node (whole nodes unless the group is
  // strided) run hierarchically, each of the g on its own NIC; otherwise
  // one rank per node, flat over the network.
  const int64_t g = p.ranksPerNode > 0
                        ? std::min(p.ranksPerNode, c.gpusPerNode)
                        : c.gpusPerNode;
  if (p.ranks <= g || p.ranks % g != 0 || g == 1)
    return flatCollective(c.network, p.op, p.bytes, p.ranks);
  const int64_t nodes = p.ranks / g;
  const double shard = p.bytes / double(g);
  switch (p.op) {
  case CollectiveOp::AllReduce:
    // Reduce-scatter in the node, all-reduce of each GPU's 1/g across the
    // nodes (all g GPUs at once, each on its own NIC), all-gather in the
    // node.
    e = flatCollective(c.node, CollectiveOp::ReduceScatter, p.bytes, g) +
        flatCollective(c.network, CollectiveOp::AllReduce, shard, nodes) +
        flatCollective(c.node, CollectiveOp::AllGather, p.bytes, g);
    e.phases = 3;
    return e;
  case CollectiveOp::ReduceScatter:
    // In the node to 1/g, then across the nodes to 1/n.
    e = flatCollective(c.node, CollectiveOp::ReduceScatter, p.bytes, g) +
        flatCollective(c.network, CollectiveOp::ReduceScatter, shard, nodes);
    e.phases = 2;
    return e;
  case CollectiveOp::AllGather:
    e = flatCollective(c.network, CollectiveOp::AllGather, shard, nodes) +
        flatCollective(c.node, CollectiveOp::AllGather, p.bytes, g);
    e.phases = 2;
    return e;
  case CollectiveOp::AllToAll: {
    // The share for other nodes, (n-g)/n of the buffer, leaves through the
    // GPU's own NIC; the share inside the node moves over NVLink at the
    // same time, so the slower of the two sets the time.
    CollectiveEstimate net = flatCollective(
        c.network, CollectiveOp::SendRecv,
        p.bytes * double(p.ranks - g) / double(p.ranks), 2);
    CollectiveEstimate node = flatCollective(
        c.node, CollectiveOp::AllToAll, p.bytes * double(g) / double(p.ranks),
        g);
    e = net.predictedUs >= node.predictedUs ? net : node;
    e.phases = 1;
    return e;
  }
  case CollectiveOp::SendRecv:
    return flatCollective(c.network, p.op, p.bytes, 2);
  }
  return e;
}
