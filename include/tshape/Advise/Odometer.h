//===- Odometer.h - The one bounded enumeration of the searches -*- C++ -*-===//
//
// Both searches of tshape enumerate a Cartesian product of bounded lists
// depth first: the shape search over the neighbourhoods of the searchable
// parameters (ShapeSearch.h), the plan search over parallel degrees,
// microbatch and the training plan's choices (PlanSearch.h). Each level
// applies one value; a level may cut its subtree when the partial
// combination cannot lead to a candidate, and the caller learns how many
// combinations the cut removed, so that a pruned search still counts the
// whole space it covered. Plain C++.
//
//===----------------------------------------------------------------------===//

#ifndef TSHAPE_ADVISE_ODOMETER_H
#define TSHAPE_ADVISE_ODOMETER_H

#include <cstddef>
#include <cstdint>
#include <climits>
#include <vector>

namespace tshape::advise {

/// Visits every combination of one index per level (level 0 outermost),
/// `sizes[l]` indices at level l. `enter(level, index)` applies that value
/// and returns whether the combination so far may lead to a leaf; on false
/// the `below(level)` combinations under it are skipped, and
/// `cut(level, below)` is told. `leave(level)` undoes the level's value
/// after each index. `leaf()` runs at every complete combination. The work
/// is bounded by the product of `sizes`.
template <typename Enter, typename Leave, typename Cut, typename Leaf>
void runOdometer(const std::vector<size_t> &sizes, Enter &&enter,
                 Leave &&leave, Cut &&cut, Leaf &&leaf) {
  // below[l]: the complete combinations under one value of level l.
  // Saturates at INT64_MAX (a shape search over seven 512-value lists).
  std::vector<int64_t> below(sizes.size() + 1, 1);
  for (size_t l = sizes.size(); l-- > 0;)
    below[l] = sizes[l] && below[l + 1] > INT64_MAX / int64_t(sizes[l])
                   ? INT64_MAX
                   : below[l + 1] * int64_t(sizes[l]);
  auto visit = [&](auto &self, size_t level) -> void {
    if (level == sizes.size()) {
      leaf();
      return;
    }
    for (size_t i = 0; i < sizes[level]; ++i) {
      if (enter(level, i))
        self(self, level + 1);
      else
        cut(level, below[level + 1]);
      leave(level);
    }
  };
  visit(visit, 0);
}

/// Without counting cuts.
template <typename Enter, typename Leave, typename Leaf>
void runOdometer(const std::vector<size_t> &sizes, Enter &&enter,
                 Leave &&leave, Leaf &&leaf) {
  runOdometer(sizes, enter, leave, [](size_t, int64_t) {}, leaf);
}

} // namespace tshape::advise

#endif // TSHAPE_ADVISE_ODOMETER_H
